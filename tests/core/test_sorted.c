// SPDX-License-Identifier: MIT
/*
 * Region-sorted free lists (sorted.h) and find_prev_region (region_bitmap.h):
 *  - find_prev_region against a brute-force search on random bitmaps of
 *    1 to 300,000 regions (one to four levels), and its word-search bound;
 *  - insertion and deletion scenarios on one free list, each compared with
 *    the list order the patch's rules give, worked out by hand;
 *  - allocation through the public API goes to strictly increasing regions
 *    with sorted lists, and starts in the top region in mainline.
 */
#include <stdlib.h>

#include "freelist.h"
#include "machines.h"

/* ---- find_prev_region ---- */

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static long brute_prev(const uint8_t *bits, uint64_t id)
{
	for (uint64_t i = id; i-- > 0;)
		if (bits[i])
			return (long)i;
	return -1;
}

static void test_find_prev_region(uint64_t nbits, unsigned int density_pct)
{
	unsigned int levels, max_searches = 0;
	uint64_t words = region_bitmap_words(nbits, &levels);
	uint64_t *mem = calloc(words, sizeof(*mem));
	uint8_t *bits = calloc(nbits, 1);
	struct region_bitmap b;
	int mismatches = 0;

	REQUIRE(mem && bits);
	region_bitmap_init(&b, mem, nbits);
	CHECK_EQ_U(b.levels, levels);
	/* set and clear at random, query after each change */
	for (unsigned int i = 0; i < 20000; i++) {
		uint64_t id = rnd() % nbits, q = rnd() % nbits;
		unsigned int searches = 0;
		long got;

		if (rnd() % 100 < density_pct) {
			set_region_bit(&b, id);
			bits[id] = 1;
		} else {
			clear_region_bit(&b, id);
			bits[id] = 0;
		}
		got = __find_prev_region(&b, q, &searches);
		if (got != brute_prev(bits, q) && mismatches++ < 5)
			fprintf(stderr, "nbits %llu: find_prev_region(%llu) = %ld, brute force %ld\n",
				(unsigned long long)nbits, (unsigned long long)q, got,
				brute_prev(bits, q));
		if (region_bit_test(&b, id) != bits[id])
			mismatches++;
		if (searches > max_searches)
			max_searches = searches;
	}
	CHECK_EQ_U(mismatches, 0);
	/* one masked search per level at most: the patch's 2 up to 4096 regions */
	CHECK(max_searches <= levels);
	if (nbits <= 4096)
		CHECK(max_searches <= 2);
	free(mem);
	free(bits);
}

static void test_bitmap_shapes(void)
{
	unsigned int levels;

	region_bitmap_words(1, &levels);
	CHECK_EQ_U(levels, 1);
	region_bitmap_words(64, &levels);
	CHECK_EQ_U(levels, 1);
	region_bitmap_words(65, &levels);
	CHECK_EQ_U(levels, 2);
	CHECK_EQ_U(region_bitmap_words(4096, &levels), 65);
	CHECK_EQ_U(levels, 2);
	region_bitmap_words(4097, &levels);
	CHECK_EQ_U(levels, 3);

	static const uint64_t sizes[] = { 1, 2, 63, 64, 65, 200, 4095, 4096, 4097, 300000 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		test_find_prev_region(sizes[i], 50);
		test_find_prev_region(sizes[i], 5);	/* sparse: long climbs */
	}
}

/* ---- insertion and deletion scenarios on one list ---- */

/*
 * 8 regions of 1024 pages at absolute boundaries, pfns [0, 8192); region 1
 * is all hole, region 5 half hole.  Every block is taken off the free lists
 * so that the scenarios start from empty lists; restore() puts them back.
 */
struct scene {
	struct test_machine t;
	struct mpm_machine *m;
	struct zone *z;
	uint32_t saved[64][3];	/* idx, order, mt of the boot blocks */
	unsigned int nr_saved;
};

static void scene_create(struct scene *s)
{
	tm_flat(&s->t, 0, 8192, 1);
	s->t.holes[0] = (struct mpm_hole_spec){ 1024, 2048 };
	s->t.holes[1] = (struct mpm_hole_spec){ 5632, 6144 };
	s->t.spec.nr_holes = 2;
	s->t.spec.holes = s->t.holes;
	s->t.spec.region_shift = 10;
	s->t.spec.region_absolute = true;
	s->t.spec.features = MPM_FEATURE_SORTED_FREELISTS | MPM_FEATURE_REGION_BIAS;
	s->m = tm_create(&s->t);
	s->z = &s->m->zones[0];
	s->nr_saved = 0;
	CHECK_EQ_U(s->z->nr_regions, 8);
	for (unsigned int o = 0; o < MAX_ORDER; o++)
		for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
			uint32_t head = s->z->free_area[o].free_list[mt];

			while (!list_empty(s->m->pages, head)) {
				uint32_t idx = s->m->pages[head].next;

				REQUIRE(s->nr_saved < 64);
				s->saved[s->nr_saved][0] = idx;
				s->saved[s->nr_saved][1] = o;
				s->saved[s->nr_saved][2] = (uint32_t)mt;
				s->nr_saved++;
				del_from_freelist(s->m, s->z, idx, o);
			}
		}
}

static void scene_restore(struct scene *s)
{
	for (unsigned int i = 0; i < s->nr_saved; i++)
		add_to_freelist(s->m, s->z, s->saved[i][0], s->saved[i][1], (int)s->saved[i][2]);
	CHECK_EQ_U(tm_check(s->m), 0);
	mpm_machine_destroy(s->m);
}

#define MT MIGRATE_MOVABLE

/* The order-0 movable list must hold exactly @want (pfns, head first). */
static void expect_list(struct scene *s, const uint64_t *want, unsigned int n,
			int line)
{
	const struct mpm_page *pg = s->m->pages;
	const struct sorted_free_lists *sl = s->z->sorted;
	uint32_t head = s->z->free_area[0].free_list[MT], p = pg[head].next;
	unsigned int i = 0;
	int ok = 1;

	for (; p != head && i < n; p = pg[p].next, i++)
		ok &= idx_to_pfn(s->m, p) == want[i];
	ok &= p == head && i == n;
	/* next_region is the head's region; each region's page_block its last block */
	ok &= sl->next_region[MT][0] == (n ? (uint32_t)(want[0] >> 10) : NO_REGION);
	for (unsigned int r = 0; r < 8; r++) {
		const struct mem_region_list *mr = mr_list_of(sl, 0, MT, r);
		uint32_t count = 0, last = NO_BLOCK;

		for (unsigned int k = 0; k < n; k++)
			if (want[k] >> 10 == r) {
				count++;
				last = pfn_to_idx(s->m, want[k]);
			}
		ok &= mr->nr_free == count && mr->page_block == last;
		ok &= region_bit_test(&sl->fl[0][MT].map, r) == (count != 0);
	}
	t_checks++;
	if (!ok) {
		t_failures++;
		fprintf(stderr, "%s:%d: free list differs from the expected order:", __FILE__, line);
		for (p = pg[head].next; p != head; p = pg[p].next)
			fprintf(stderr, " %llu", (unsigned long long)idx_to_pfn(s->m, p));
		fprintf(stderr, "\n");
	}
}

#define EXPECT(...) do { \
	static const uint64_t w_[] = { __VA_ARGS__ }; \
	expect_list(&s, w_, sizeof(w_) / sizeof(w_[0]), __LINE__); \
} while (0)
#define EXPECT_EMPTY() expect_list(&s, NULL, 0, __LINE__)

static void add(struct scene *s, uint64_t pfn)
{
	add_to_freelist(s->m, s->z, pfn_to_idx(s->m, pfn), 0, MT);
}

static void del(struct scene *s, uint64_t pfn)
{
	del_from_freelist(s->m, s->z, pfn_to_idx(s->m, pfn), 0);
}

static void test_scenarios(void)
{
	struct scene s;

	scene_create(&s);
	EXPECT_EMPTY();
	add(&s, 2100);			/* empty list: the head, next_region 2 */
	EXPECT(2100);
	add(&s, 10);			/* lower region: new head */
	EXPECT(10, 2100);
	add(&s, 7000);			/* higher region: the tail */
	EXPECT(10, 2100, 7000);
	add(&s, 2200);			/* region present: before its last block */
	EXPECT(10, 2200, 2100, 7000);
	add(&s, 3100);			/* new region in the middle: after region 2 */
	EXPECT(10, 2200, 2100, 3100, 7000);
	add(&s, 4096);			/* region 4's first page; region 3 precedes it */
	add(&s, 5119);			/* region 4's last page */
	EXPECT(10, 2200, 2100, 3100, 5119, 4096, 7000);
	add(&s, 5200);			/* region 5 has a hole: still region 5 */
	add(&s, 6143 + 1);		/* region 6 is after the hole [5632, 6144) */
	EXPECT(10, 2200, 2100, 3100, 5119, 4096, 5200, 6144, 7000);
	add(&s, 8191);			/* the zone's last page, top region */
	EXPECT(10, 2200, 2100, 3100, 5119, 4096, 5200, 6144, 7000, 8191);

	del(&s, 2100);			/* region 2's page_block, not the head */
	EXPECT(10, 2200, 3100, 5119, 4096, 5200, 6144, 7000, 8191);
	add(&s, 2300);			/* goes before the new page_block 2200 */
	EXPECT(10, 2300, 2200, 3100, 5119, 4096, 5200, 6144, 7000, 8191);
	del(&s, 2300);			/* in the middle of region 2: page_block stays */
	EXPECT(10, 2200, 3100, 5119, 4096, 5200, 6144, 7000, 8191);
	del(&s, 10);			/* the head (rmqueue path): next_region 2 */
	EXPECT(2200, 3100, 5119, 4096, 5200, 6144, 7000, 8191);
	del(&s, 2200);			/* head and region 2's only block */
	EXPECT(3100, 5119, 4096, 5200, 6144, 7000, 8191);
	del(&s, 8191);			/* the tail */
	del(&s, 5200);			/* a whole region leaves the middle */
	EXPECT(3100, 5119, 4096, 6144, 7000);
	add(&s, 0);			/* region 0 while region 1 is a hole */
	EXPECT(0, 3100, 5119, 4096, 6144, 7000);
	del(&s, 0);
	del(&s, 3100);
	del(&s, 5119);
	del(&s, 4096);
	del(&s, 6144);
	del(&s, 7000);
	EXPECT_EMPTY();
	scene_restore(&s);
}

/*
 * The prefetch hints of a region's blocks.  A region's blocks pop in the
 * order they were linked, its page_block last, so linking a block names it
 * in the hint of the block linked two before, once the region holds that
 * block and one more besides the page_block.  A region's first blocks keep
 * set_buddy_hint()'s, the entry two on as linked.
 */
static uint32_t hint_of(struct scene *s, uint64_t pfn)
{
	return s->m->pages[pfn_to_idx(s->m, pfn)].private;
}

static void test_region_hints(void)
{
	struct scene s;
	uint32_t head;

	scene_create(&s);
	head = s.z->free_area[0].free_list[MT];
	add(&s, 3100);			/* the next region's only block */
	add(&s, 2100);			/* region 2's page_block */
	add(&s, 2200);
	add(&s, 2300);
	EXPECT(2200, 2300, 2100, 3100);
	CHECK_EQ_U(hint_of(&s, 2200), pfn_to_idx(s.m, 3100));	/* two on as linked */
	CHECK_EQ_U(hint_of(&s, 2300), pfn_to_idx(s.m, 3100));
	CHECK_EQ_U(hint_of(&s, 2100), head);
	add(&s, 2400);			/* pops two after 2200 */
	EXPECT(2200, 2300, 2400, 2100, 3100);
	CHECK_EQ_U(hint_of(&s, 2200), pfn_to_idx(s.m, 2400));
	CHECK_EQ_U(hint_of(&s, 2300), pfn_to_idx(s.m, 3100));
	add(&s, 2500);
	CHECK_EQ_U(hint_of(&s, 2200), pfn_to_idx(s.m, 2400));
	CHECK_EQ_U(hint_of(&s, 2300), pfn_to_idx(s.m, 2500));
	CHECK_EQ_U(hint_of(&s, 2500), pfn_to_idx(s.m, 3100));
	/* the block before the page_block leaves: the next link hints the one before */
	del(&s, 2500);
	add(&s, 2600);
	EXPECT(2200, 2300, 2400, 2600, 2100, 3100);
	CHECK_EQ_U(hint_of(&s, 2300), pfn_to_idx(s.m, 2600));
	CHECK_EQ_U(hint_of(&s, 2200), pfn_to_idx(s.m, 2400));
	for (uint64_t pfn = 2200; pfn <= 2600; pfn += 100)
		if (pfn != 2500)
			del(&s, pfn);
	del(&s, 2100);
	del(&s, 3100);
	EXPECT_EMPTY();
	scene_restore(&s);
}

/*
 * move_page_freelist between two sorted lists and the region_bias choice
 * of __rmqueue_smallest, through the allocator: an order-0 request with an
 * order-0 block in region 6 and an order-3 block in region 2 splits the
 * order-3 block.
 */
static void test_region_bias(void)
{
	struct scene s;
	struct mpm_counters c;
	uint64_t pfn;

	scene_create(&s);
	add(&s, 6500);
	add_to_freelist(s.m, s.z, pfn_to_idx(s.m, 2048), 3, MT);
	add_to_freelist(s.m, s.z, pfn_to_idx(s.m, 7168), 10, MT);
	s.z->free_area[0].nr_free = 1;
	s.z->free_area[3].nr_free = 1;
	s.z->free_area[10].nr_free = 1;
	/* the zone's lists now hold 1 + 8 + 1024 pages; bypass the watermarks */
	spin_lock(&s.z->lock);
	pfn = idx_to_pfn(s.m, __rmqueue(s.m, s.z, 0, MT));
	spin_unlock(&s.z->lock);
	CHECK_EQ_U(pfn, 2048);
	mpm_counters(s.m, &c);
	CHECK_EQ_U(c.region_bias_splits, 1);
	/* the split-off halves of region 2 went back in region order */
	CHECK_EQ_U(s.z->sorted->next_region[MT][0], 2);
	CHECK_EQ_U(s.z->sorted->next_region[MT][1], 2);
	CHECK_EQ_U(s.z->sorted->next_region[MT][2], 2);
	CHECK_EQ_U(s.z->sorted->next_region[MT][3], NO_REGION);
	EXPECT(2049, 6500);
	/* undo: take the pieces back off, put the page back */
	del(&s, 2049);
	del(&s, 6500);
	del_from_freelist(s.m, s.z, pfn_to_idx(s.m, 2050), 1);
	del_from_freelist(s.m, s.z, pfn_to_idx(s.m, 2052), 2);
	del_from_freelist(s.m, s.z, pfn_to_idx(s.m, 7168), 10);
	for (unsigned int o = 0; o < MAX_ORDER; o++)
		s.z->free_area[o].nr_free = 0;
	/* the scene's saved blocks bring their own nr_free back */
	for (unsigned int i = 0; i < s.nr_saved; i++)
		s.z->free_area[s.saved[i][1]].nr_free++;
	scene_restore(&s);
}

/* ---- allocation order through the public API ---- */

static int first_descent(uint64_t start, unsigned int region_shift, unsigned long features,
			 uint64_t n, int *first_region)
{
	struct test_machine t;
	struct mpm_machine *m;
	int prev = -1, descents = 0;

	tm_flat(&t, start, 16384, 1);	/* node-relative regions from @start */
	t.spec.region_shift = region_shift;
	t.spec.features = features;
	m = tm_create(&t);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t pfn = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0);
		int r;

		REQUIRE(pfn != MPM_NO_PFN);
		r = mpm_pfn_to_region(m, pfn);
		if (i == 0)
			*first_region = r;
		descents += r < prev;
		prev = r;
	}
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
	return descents;
}

static void test_allocation_order(void)
{
	const unsigned long sorted = MPM_FEATURE_SORTED_FREELISTS | MPM_FEATURE_REGION_BIAS;
	int first;

	/* three and a half regions of single pages, 16 regions of 1024 pages */
	CHECK_EQ_U(first_descent(0, 10, sorted, 3584, &first), 0);
	/* region 0 is the zone's first pageblock: MIGRATE_RESERVE, not movable */
	CHECK_EQ_U(first, 1);
	/*
	 * Regions from pfn 1 (x86's node 0): every boundary cuts a MAX_ORDER-1
	 * block.  The pieces split off it above the boundary are filed under
	 * the upper region (their head's), so the bias finishes the lower
	 * region's last block first: still no descent.  Filed under the
	 * block's region they would give one descent per boundary crossed.
	 */
	CHECK_EQ_U(first_descent(1, 11, sorted, 12288, &first), 0);
	/* mainline hands out the last block freed at boot first: the top region */
	first_descent(0, 10, 0, 3584, &first);
	CHECK_EQ_U(first, 15);
}

/*
 * Which region a piece of a straddling MAX_ORDER-1 block is filed under:
 * its head page's (patches 06, 09), with or without the region allocator
 * (block_region()).
 */
static void test_straddling_piece(void)
{
	static const unsigned long policies[2] = {
		MPM_FEATURE_SORTED_FREELISTS | MPM_FEATURE_REGION_BIAS,
		MPM_FEATURE_SORTED_FREELISTS | MPM_FEATURE_REGION_BIAS |
		MPM_FEATURE_REGION_ALLOCATOR,
	};

	for (int i = 0; i < 2; i++) {
		struct test_machine t;
		struct mpm_machine *m;
		struct zone *z;

		tm_flat(&t, 1, 16384, 1);	/* regions [1, 2049), [2049, 4097), ... */
		t.spec.region_shift = 11;
		t.spec.features = policies[i];
		m = tm_create(&t);
		z = &m->zones[0];
		/* pfn 2500 lies in region 1, in the block [2048, 3072) headed in region 0 */
		CHECK_EQ_U(mpm_pfn_to_region(m, 2500), 1);
		CHECK_EQ_U(block_region(z->sorted, pfn_to_idx(m, 2500)), 1);
		CHECK_EQ_U(block_region(z->sorted, pfn_to_idx(m, 2048)), 0);
		CHECK_EQ_U(block_region(z->sorted, pfn_to_idx(m, 100)), 0);
		mpm_machine_destroy(m);
	}
}

/*
 * The filing decides which of two free blocks goes first.  With every
 * MAX_ORDER-1 window allocated as order-9 halves, A = [3072, 3584) lies in
 * region 1 and B = [4608, 5120) in region 2, inside the window [4096, 5120)
 * headed in region 1.  Filed by their heads, A's region comes first; filed
 * by their window, both would be region 1's and the later one, B, would
 * go first (before the region's page_block).  The region allocator holds
 * nothing here (no region is free), so `split` must agree with `sorted`.
 */
static void test_straddling_piece_order(void)
{
	static const unsigned long policies[2] = {
		MPM_FEATURE_SORTED_FREELISTS | MPM_FEATURE_REGION_BIAS,
		MPM_FEATURE_SORTED_FREELISTS | MPM_FEATURE_REGION_BIAS |
		MPM_FEATURE_REGION_ALLOCATOR | MPM_FEATURE_RALLOC_BIAS,
	};

	for (int i = 0; i < 2; i++) {
		struct test_machine t;
		struct mpm_machine *m;
		bool a = false, b = false;
		uint64_t pfn;

		tm_flat(&t, 1, 16384, 1);	/* regions [1, 2049), [2049, 4097), ... */
		t.spec.region_shift = 11;
		t.spec.features = policies[i];
		m = tm_create(&t);
		while ((pfn = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 9, 0)) != MPM_NO_PFN) {
			a |= pfn == 3072;
			b |= pfn == 4608;
		}
		REQUIRE(a && b);
		REQUIRE(mpm_free_pages(m, 3072, 9, 0) == 0);
		REQUIRE(mpm_free_pages(m, 4608, 9, 0) == 0);
		CHECK_EQ_U(mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 9, 0), 3072);
		CHECK_EQ_U(tm_check(m), 0);
		mpm_machine_destroy(m);
	}
}

int main(void)
{
	test_bitmap_shapes();
	test_scenarios();
	test_region_hints();
	test_region_bias();
	test_allocation_order();
	test_straddling_piece();
	test_straddling_piece_order();
	return t_report("core/sorted");
}
