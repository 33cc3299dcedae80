// SPDX-License-Identifier: MIT
/*
 * The region allocator (ralloc.c) under policy split, on small machines
 * with absolute regions of 4 MiB (one MAX_ORDER-1 block each) or 512 MiB:
 * the boot state and the region cache, each can_return_region condition,
 * the region allocator before any fallback, bulk moves of a whole 512 MiB
 * region, move_freepages pulling a held region out (patch 30), and the
 * pieces of a straddling block beside a held region, and the return test
 * refusing a region while such pieces are free.
 */
#include "freelist.h"
#include "machines.h"

static unsigned long split_features(void)
{
	unsigned long f = 0;

	REQUIRE(!mpm_policy_features("split", &f));
	return f;
}

/* 8 regions of 1024 pages (one order-10 block each), pageblock order 10. */
static struct mpm_machine *small_machine(unsigned long features)
{
	struct test_machine t;

	tm_flat(&t, 0, 8192, 1);
	t.spec.region_shift = 10;
	t.spec.region_absolute = true;
	t.spec.features = features;
	return tm_create(&t);
}

static uint64_t held(struct mpm_machine *m)
{
	struct mpm_counters c;

	mpm_counters(m, &c);
	return c.ra_regions;
}

static void test_boot_and_cache(void)
{
	struct mpm_machine *m = small_machine(split_features());
	struct zone *z = &m->zones[0];
	struct mpm_counters c;

	/*
	 * Boot frees low to high: region 0 stays on the movable list as its
	 * cache (patch 33), regions 1-7 go to the region allocator.  Then the
	 * MIGRATE_RESERVE pageblock (region 0's block) moves to the reserve
	 * list, leaving the movable list empty.
	 */
	CHECK_EQ_U(held(m), 7);
	CHECK_EQ_U(z->ralloc->next_region, 1);
	for (uint32_t r = 1; r < 8; r++)
		CHECK_EQ_U(z->ralloc->region[r].nr_free, 1);
	mpm_counters(m, &c);
	/* refused twice: on the movable list, then on the reserve list */
	CHECK_EQ_U(c.ra_cache_hits, 2);
	CHECK_EQ_U(c.ra_pages, 7 * 1024);
	CHECK_EQ_U(c.ra_move_freepages, 0);
	/* held regions are free regions */
	CHECK_EQ_U(mpm_free_regions(m), 8);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);

	/*
	 * Without the cache region 0 goes too; the reserve set-up pulls it
	 * back out with move_freepages (patch 30), moves its block to the
	 * reserve list -- and from there it returns at once, as the patch
	 * lets it (the add_to_freelist in move_page_freelist tries again).
	 */
	m = small_machine(split_features() & ~MPM_FEATURE_REGION_CACHE);
	mpm_counters(m, &c);
	CHECK_EQ_U(held(m), 8);
	CHECK_EQ_U(c.ra_move_freepages, 1);
	CHECK_EQ_U(c.pa_to_ra, 9);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/* An unmovable page: the region allocator comes before any fallback. */
static void test_ra_before_fallback(void)
{
	struct mpm_machine *m = small_machine(split_features());
	struct mpm_counters c;
	uint64_t counts[MPM_MIGRATE_TYPES];
	uint64_t pfn = mpm_alloc_pages(m, MPM_GFP_KERNEL, 0, 0);

	REQUIRE(pfn != MPM_NO_PFN);
	mpm_counters(m, &c);
	CHECK_EQ_U(c.fallbacks, 0);
	CHECK_EQ_U(c.ra_to_pa, 1);
	/* the lowest held region, unmovable down to its pageblock (patch 32) */
	CHECK_EQ_U(mpm_pfn_to_region(m, pfn), 1);
	mpm_region_pageblocks(m, 0, 1, counts);
	CHECK_EQ_U(counts[MPM_MIGRATE_UNMOVABLE], 1);
	CHECK_EQ_U(tm_check(m), 0);
	/* freed, the page merges back; region 1 stays as the unmovable list's cache */
	CHECK_EQ_U(mpm_free_pages(m, pfn, 0, 0), 0);
	mpm_drain_all_pages(m);
	CHECK_EQ_U(held(m), 6);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);

	/* without the region allocator the same request falls back */
	m = small_machine(MPM_FEATURE_SORTED_FREELISTS | MPM_FEATURE_REGION_BIAS |
			  MPM_FEATURE_NO_CLAIM);
	pfn = mpm_alloc_pages(m, MPM_GFP_KERNEL, 0, 0);
	REQUIRE(pfn != MPM_NO_PFN);
	mpm_counters(m, &c);
	CHECK_EQ_U(c.fallbacks, 1);
	/* no_claim: an order-10 block is a whole pageblock, and still not taken */
	CHECK_EQ_U(c.pageblock_claims, 0);
	CHECK_EQ_U(get_pageblock_migratetype(m, &m->zones[0], pfn), MIGRATE_MOVABLE);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * no_claim (patch 31) loans free pages, it never owns a pageblock; the
 * move of the pageblock's free blocks to the requested type's lists
 * stays (move_freepages_block).  Everything is allocated, then region 3's
 * pageblock gets back two free blocks, of order 6 and order 3.  A
 * reclaimable page falls back to the order-6 block (a RECLAIMABLE request
 * moves the pageblock's free blocks at any order): both blocks move to the
 * reclaimable lists, nothing stays on the movable ones, and the pageblock
 * is still MOVABLE.
 */
static void test_no_claim_loans(void)
{
	static uint64_t pfns[8192];
	struct mpm_machine *m = small_machine(MPM_FEATURE_SORTED_FREELISTS |
					      MPM_FEATURE_REGION_BIAS | MPM_FEATURE_NO_CLAIM);
	struct mpm_counters c;
	size_t n = 0;
	uint64_t pfn;

	/* __GFP_MEMALLOC: past the watermarks, the reserve pageblock too */
	while (n < 8192 && (pfns[n] = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE |
						       MPM___GFP_MEMALLOC, 0, 0)) != MPM_NO_PFN)
		n++;
	CHECK_EQ_U(mpm_free_pages_mt(m, MPM_MIGRATE_MOVABLE), 0);
	for (size_t i = 0; i < n; i++)
		if ((pfns[i] >= 3072 && pfns[i] < 3072 + 64) ||
		    (pfns[i] >= 3200 && pfns[i] < 3200 + 8))
			CHECK_EQ_U(mpm_free_pages(m, pfns[i], 0, 0), 0);
	mpm_drain_all_pages(m);
	CHECK_EQ_U(mpm_free_pages_mt(m, MPM_MIGRATE_MOVABLE), 72);
	CHECK_EQ_U(m->pages[pfn_to_idx(m, 3072)].order, 6);
	CHECK_EQ_U(m->pages[pfn_to_idx(m, 3200)].order, 3);

	pfn = mpm_alloc_pages(m, MPM_GFP_KERNEL | MPM___GFP_RECLAIMABLE | MPM___GFP_MEMALLOC, 0, 0);
	REQUIRE(pfn != MPM_NO_PFN);
	CHECK(pfn >= 3072 && pfn < 3072 + 64);
	mpm_counters(m, &c);
	CHECK_EQ_U(c.fallbacks, 1);
	CHECK_EQ_U(c.pageblock_claims, 0);
	CHECK_EQ_U(get_pageblock_migratetype(m, &m->zones[0], 3072), MIGRATE_MOVABLE);
	CHECK_EQ_U(mpm_free_pages_mt(m, MPM_MIGRATE_MOVABLE), 0);
	CHECK_EQ_U(m->pages[pfn_to_idx(m, 3200)].order, 3);	/* moved whole */
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/* can_return_region: whole region, MAX_ORDER-1 block, and the cache. */
static void test_return_conditions(void)
{
	struct mpm_machine *m = small_machine(split_features());
	struct zone *z = &m->zones[0];
	struct mpm_counters c;
	uint64_t a, b, hits;

	mpm_counters(m, &c);
	hits = c.ra_cache_hits;
	spin_lock(&z->lock);
	__del_from_region_allocator(m, z, MIGRATE_MOVABLE, 3);
	__del_from_region_allocator(m, z, MIGRATE_MOVABLE, 5);
	spin_unlock(&z->lock);
	CHECK_EQ_U(held(m), 5);
	CHECK_EQ_U(tm_check(m), 0);

	a = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 9, 0);
	b = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 9, 0);
	REQUIRE(a != MPM_NO_PFN && b != MPM_NO_PFN);
	CHECK_EQ_U(mpm_pfn_to_region(m, a), 3);		/* the lowest on the list */
	CHECK_EQ_U(mpm_pfn_to_region(m, b), 3);
	/* half of region 3 free, as an order-9 block: nothing returns */
	CHECK_EQ_U(mpm_free_pages(m, a, 9, 0), 0);
	CHECK_EQ_U(held(m), 5);
	/* whole again as one order-10 block, with region 5 on the list: returned */
	CHECK_EQ_U(mpm_free_pages(m, b, 9, 0), 0);
	CHECK_EQ_U(held(m), 6);
	CHECK_EQ_U(z->ralloc->region[3].nr_free, 1);
	/* region 5 is now the list's only region: the cache keeps it */
	a = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 10, 0);
	CHECK_EQ_U(mpm_pfn_to_region(m, a), 5);
	CHECK_EQ_U(mpm_free_pages(m, a, 10, 0), 0);
	CHECK_EQ_U(held(m), 6);
	mpm_counters(m, &c);
	CHECK_EQ_U(c.ra_cache_hits, hits + 1);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * A 2 GiB zone of 512 MiB regions: bulk moves of 128 blocks, and a region
 * whose blocks sit on two lists is not returned until they are on one.
 */
static void test_bulk_512m(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	struct zone *z;
	uint32_t blk;

	tm_flat(&t, 0, GiB_PAGES(2), 1);
	t.spec.region_absolute = true;
	t.spec.features = split_features();
	m = tm_create(&t);
	z = &m->zones[0];
	/* region 0: 127 movable blocks + the reserve block; 1-3 held */
	CHECK_EQ_U(held(m), 3);
	CHECK_EQ_U(z->ralloc->region[2].nr_free, 128);
	CHECK_EQ_U(z->ralloc->region[2].nr_blocks, 128);
	CHECK_EQ_U(z->free_area[10].nr_free, 128);

	spin_lock(&z->lock);
	__del_from_region_allocator(m, z, MIGRATE_MOVABLE, 2);
	spin_unlock(&z->lock);
	CHECK_EQ_U(held(m), 2);
	CHECK_EQ_U(z->free_area[10].nr_free, 256);
	CHECK_EQ_U(tm_check(m), 0);

	/* one of region 2's blocks to the unmovable list: split over two lists */
	blk = pfn_to_idx(m, 2 * 131072 + 5 * 1024);
	spin_lock(&z->lock);
	move_page_freelist(m, z, blk, 10, MIGRATE_UNMOVABLE);
	spin_unlock(&z->lock);
	CHECK_EQ_U(held(m), 2);
	CHECK_EQ_U(tm_check(m), 0);
	/* back on the movable list with its 127 siblings: the region returns whole */
	spin_lock(&z->lock);
	move_page_freelist(m, z, blk, 10, MIGRATE_MOVABLE);
	spin_unlock(&z->lock);
	CHECK_EQ_U(held(m), 3);
	CHECK_EQ_U(z->ralloc->region[2].nr_free, 128);
	CHECK_EQ_U(z->free_area[10].nr_free, 128);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/* move_freepages_block on a held region's pageblock (patch 30). */
static void test_move_freepages(void)
{
	struct mpm_machine *m = small_machine(split_features());
	struct zone *z = &m->zones[0];
	struct mpm_counters c;
	int moved;

	spin_lock(&z->lock);
	moved = move_freepages_block(m, z, 5 * 1024, MIGRATE_UNMOVABLE);
	spin_unlock(&z->lock);
	CHECK_EQ_U(moved, 1024);
	mpm_counters(m, &c);
	CHECK_EQ_U(c.ra_move_freepages, 1);
	CHECK_EQ_U(z->ralloc->region[5].nr_free, 0);
	/* the region came out as MOVABLE (pageblock too), then its block moved on */
	CHECK_EQ_U(get_pageblock_migratetype(m, z, 5 * 1024), MIGRATE_MOVABLE);
	CHECK_EQ_U(m->pages[pfn_to_idx(m, 5 * 1024)].freepage_mt, MIGRATE_UNMOVABLE);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * Holes (patch 03's present_pages leaves them out): 8 regions of 4096 pages
 * (four MAX_ORDER-1 windows each); region 3's second window is wholly a
 * hole, region 5 has a hole inside its first window.  Region 3 is whole
 * when its three present windows are free, as in the patch, and goes to
 * the region allocator at boot; region 5 can never be all MAX_ORDER-1
 * blocks, so it stays on the free list.  Handed out to another type, region
 * 3's blocks change their pageblocks one block at a time: the hole's
 * pageblock keeps its type.
 */
static void test_hole_windows(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	struct zone *z;
	uint64_t hole = 3 * 4096 + 1024, pfn;

	tm_flat(&t, 0, 8 * 4096, 1);
	t.holes[0] = (struct mpm_hole_spec){ hole, hole + 1024 };
	t.holes[1] = (struct mpm_hole_spec){ 5 * 4096 + 100, 5 * 4096 + 200 };
	tm_link(&t, 1, 1, 2);
	t.spec.region_shift = 12;
	t.spec.region_absolute = true;
	t.spec.features = split_features();
	m = tm_create(&t);
	z = &m->zones[0];
	CHECK_EQ_U(z->regions[3].present_pages, 3 * 1024);
	CHECK_EQ_U(z->ralloc->region[3].nr_blocks, 3);
	CHECK_EQ_U(z->ralloc->region[3].nr_free, 3);
	CHECK_EQ_U(z->ralloc->region[5].nr_free, 0);
	/* regions 1-4, 6 and 7; region 0 is the movable list's cache */
	CHECK_EQ_U(held(m), 6);
	CHECK_EQ_U(tm_check(m), 0);

	spin_lock(&z->lock);
	__del_from_region_allocator(m, z, MIGRATE_RECLAIMABLE, 3);
	spin_unlock(&z->lock);
	for (pfn = 3 * 4096; pfn < 4 * 4096; pfn += 1024)
		CHECK_EQ_U(get_pageblock_migratetype(m, z, pfn),
			   pfn == hole ? MIGRATE_UNMOVABLE : MIGRATE_RECLAIMABLE);
	CHECK_EQ_U(tm_check(m), 0);
	/*
	 * Taken and given back whole, with region 4 on the same list (so the
	 * cache does not keep it), it returns to the region allocator.
	 */
	spin_lock(&z->lock);
	__del_from_region_allocator(m, z, MIGRATE_RECLAIMABLE, 4);
	spin_unlock(&z->lock);
	pfn = mpm_alloc_pages(m, MPM_GFP_KERNEL | MPM___GFP_RECLAIMABLE, 10, 0);
	CHECK_EQ_U(mpm_pfn_to_region(m, pfn), 3);
	CHECK_EQ_U(held(m), 4);
	CHECK_EQ_U(mpm_free_pages(m, pfn, 10, 0), 0);
	CHECK_EQ_U(held(m), 5);
	CHECK_EQ_U(z->ralloc->region[3].mt, MIGRATE_RECLAIMABLE);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * Node-relative regions of 2048 pages from pfn 1 (x86's node 0): region 1
 * is [2049, 4097), its MAX_ORDER-1 blocks 3072 and 4096, held from boot;
 * the block at 2048, headed in region 0, straddles into it.  Allocating
 * page by page splits that block, and its pieces above 2048 go on the
 * free lists filed under region 1 (their heads'), next to the held
 * region: the checker accepts exactly that, after every operation, and
 * everything frees back into the same regions.
 */
static void test_straddling_pieces_beside_held(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	struct zone *z;
	uint64_t pfns[1100];
	unsigned int n = 0;
	bool piece = false;

	tm_flat(&t, 1, 16384, 1);
	t.spec.region_shift = 11;
	t.spec.features = split_features();
	m = tm_create(&t);
	z = &m->zones[0];
	REQUIRE(z->ralloc->region[1].nr_free == 2);
	while (n < 1100 && !piece) {
		pfns[n] = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0);
		REQUIRE(pfns[n] != MPM_NO_PFN);
		CHECK_EQ_U(tm_check(m), 0);
		for (unsigned int o = 0; o < MAX_ORDER - 1; o++)
			piece |= mr_list_of(z->sorted, o, MIGRATE_MOVABLE, 1)->nr_free > 0;
		n++;
	}
	CHECK(piece);
	CHECK_EQ_U(z->ralloc->region[1].nr_free, 2);	/* still held whole */
	while (n--) {
		REQUIRE(mpm_free_pages(m, pfns[n], 0, 0) == 0);
		CHECK_EQ_U(tm_check(m), 0);
	}
	mpm_drain_all_pages(m);
	CHECK_EQ_U(tm_check(m), 0);
	CHECK_EQ_U(z->ralloc->region[1].nr_free, 2);
	mpm_machine_destroy(m);
}

/* The order-10 block at @pfn is in @p[0..@n): take it out of the array. */
static bool take_pfn(uint64_t *p, unsigned int n, uint64_t pfn)
{
	for (unsigned int i = 0; i < n; i++)
		if (p[i] == pfn) {
			p[i] = MPM_NO_PFN;
			return true;
		}
	return false;
}

/*
 * Patch 25's return test counts a region's free pages by head page, as
 * patch 12 keeps zone_region->nr_free, over every order.  Same machine as
 * above: with the block at 2048 (headed in region 0) split for one page,
 * its free pieces 2049..2560 are headed in region 1, so when both of
 * region 1's MAX_ORDER-1 blocks are free on the movable list the patch's
 * count is 2048 + 1023 against 2048 present pages, and the region stays
 * on the list.  Once the pieces have merged back, freeing one of its
 * blocks again returns it.
 */
static void test_return_waits_for_pieces(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	struct zone *z;
	uint64_t p[4], q;

	tm_flat(&t, 1, 16384, 1);
	t.spec.region_shift = 11;
	t.spec.features = split_features();
	m = tm_create(&t);
	z = &m->zones[0];
	for (unsigned int i = 0; i < 4; i++) {
		p[i] = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 10, 0);
		REQUIRE(p[i] != MPM_NO_PFN);
	}
	/* region 0's block at 2048, and region 1's two, taken from the allocator */
	REQUIRE(take_pfn(p, 4, 2048));
	REQUIRE(p[0] == 3072 || p[1] == 3072 || p[2] == 3072 || p[3] == 3072);
	REQUIRE(p[0] == 4096 || p[1] == 4096 || p[2] == 4096 || p[3] == 4096);
	CHECK_EQ_U(z->ralloc->region[1].nr_free, 0);
	REQUIRE(mpm_free_pages(m, 2048, 10, 0) == 0);
	q = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0);
	CHECK_EQ_U(q, 2048);
	mpm_drain_all_pages(m);
	for (unsigned int i = 0; i < 4; i++)
		if (p[i] != MPM_NO_PFN)
			REQUIRE(mpm_free_pages(m, p[i], 10, 0) == 0);
	CHECK_EQ_U(tm_check(m), 0);
	/* the whole region is free, all of it order-10 blocks on this list... */
	CHECK_EQ_U(z->regions[1].nr_free, z->regions[1].present_pages);
	CHECK_EQ_U(mr_list_of(z->sorted, MAX_ORDER - 1, MIGRATE_MOVABLE, 1)->nr_free, 2);
	/* ...but ten pieces are headed in it: not returned */
	CHECK_EQ_U(mr_list_of(z->sorted, 0, MIGRATE_MOVABLE, 1)->nr_free, 1);
	CHECK_EQ_U(mr_list_of(z->sorted, 9, MIGRATE_MOVABLE, 1)->nr_free, 1);
	CHECK_EQ_U(z->ralloc->region[1].nr_free, 0);

	/* the pieces merge back into 2048's block, headed in region 0 */
	REQUIRE(mpm_free_pages(m, q, 0, 0) == 0);
	mpm_drain_all_pages(m);
	CHECK_EQ_U(mr_list_of(z->sorted, 0, MIGRATE_MOVABLE, 1)->nr_free, 0);
	CHECK_EQ_U(tm_check(m), 0);
	/* region 1 leaves the list when one of its blocks is freed again */
	p[0] = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 10, 0);
	p[1] = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 10, 0);
	CHECK_EQ_U(p[0], 2048);
	CHECK(p[1] == 3072 || p[1] == 4096);
	CHECK_EQ_U(z->ralloc->region[1].nr_free, 0);
	REQUIRE(mpm_free_pages(m, p[1], 10, 0) == 0);
	CHECK_EQ_U(z->ralloc->region[1].nr_free, 2);
	REQUIRE(mpm_free_pages(m, p[0], 10, 0) == 0);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

int main(void)
{
	test_boot_and_cache();
	test_ra_before_fallback();
	test_no_claim_loans();
	test_return_conditions();
	test_bulk_512m();
	test_move_freepages();
	test_hole_windows();
	test_straddling_pieces_beside_held();
	test_return_waits_for_pieces();
	return t_report("core/ralloc");
}
