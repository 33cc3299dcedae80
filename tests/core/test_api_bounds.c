// SPDX-License-Identifier: MIT
/*
 * The library's calls refuse what the machine does not have -- a pfn
 * outside it, a zone or region id past the last -- and the reverse map
 * refuses a page that is not part of an allocated block: -1 (or false),
 * nothing written, and the checker still passes.  Before these guards an
 * owner recorded on a free page overwrote its list links, and the info
 * calls read past their arrays.
 */
#include "machines.h"
#include "mmzone.h"

static struct mpm_machine *m;

/* The first pfn at or after @from in state @state, or MPM_NO_PFN. */
static uint64_t find_state(uint64_t from, enum mpm_page_state state)
{
	for (uint64_t pfn = from; pfn < mpm_max_pfn(m); pfn++)
		if (mpm_page_state(m, pfn, NULL) == state)
			return pfn;
	return MPM_NO_PFN;
}

/* The 16 bytes of @pfn's metadata, to see that a refusal wrote nothing. */
static struct mpm_page page_copy(uint64_t pfn)
{
	struct mpm_page copy;

	memcpy(&copy, &m->pages[pfn_to_idx(m, pfn)], sizeof(copy));
	return copy;
}

static bool page_same(uint64_t pfn, const struct mpm_page *before)
{
	return memcmp(before, &m->pages[pfn_to_idx(m, pfn)], sizeof(*before)) == 0;
}

/* set refused on @pfn, its metadata untouched, the machine still sound */
static void expect_set_refused(uint64_t pfn, const char *what)
{
	struct mpm_page before = page_copy(pfn);

	if (mpm_rmap_set(m, pfn, 7, 1, 2) != -1) {
		fprintf(stderr, "owner recorded on %s pfn %llu\n", what, (unsigned long long)pfn);
		CHECK(0);
	}
	CHECK(page_same(pfn, &before));
	CHECK_EQ_U(mpm_rmap_get(m, pfn, NULL, NULL), MPM_NO_OWNER);
	CHECK(tm_check(m) == 0);
}

static void test_rmap_pages(void)
{
	uint64_t pfn, big, buddy;

	pfn = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0);
	/* not enabled yet: nothing recorded */
	CHECK(mpm_rmap_set(m, pfn, 7, 1, 2) == -1);
	CHECK(mpm_rmap_enable(m) == 0);
	CHECK(mpm_rmap_set(m, pfn, 7, 1, 2) == 0);
	CHECK(mpm_rmap_clear(m, pfn) == 0);
	CHECK(mpm_rmap_clear(m, pfn) == 0);	/* twice: nothing to clear */

	/* a page on cpu 0's pcp list */
	CHECK(mpm_free_pages(m, pfn, 0, 0) == 0);
	REQUIRE(mpm_page_state(m, pfn, NULL) == MPM_PAGE_PCP);
	expect_set_refused(pfn, "a pcp");

	/* a free block's head, and a page inside it */
	buddy = find_state(0, MPM_PAGE_FREE);
	REQUIRE(buddy != MPM_NO_PFN);
	expect_set_refused(buddy, "a free head");
	expect_set_refused(buddy + 1, "a free block's inner");

	/* every page of an allocated order-3 and order-9 block, head and inner ones */
	for (unsigned int order = 3; order <= 9; order += 6) {
		uint64_t n = 1ull << order;

		big = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, order, 0);
		REQUIRE(big != MPM_NO_PFN);
		for (uint64_t p = big; p < big + n; p++)
			CHECK(mpm_rmap_set(m, p, 9, (uint32_t)(p - big), 3) == 0);
		CHECK(tm_check(m) == 0);
		for (uint64_t p = big; p < big + n; p++) {
			CHECK_EQ_U(mpm_rmap_get(m, p, NULL, NULL), 9);
			CHECK(mpm_rmap_clear(m, p) == 0);
		}
		CHECK(mpm_free_pages(m, big, order, 0) == 0);
	}
	/* freed: its inner pages are a free block's now */
	REQUIRE(mpm_page_state(m, big + 5, NULL) == MPM_PAGE_TAIL);
	expect_set_refused(big + 5, "a freed block's inner");
	expect_set_refused(big + 300, "a freed block's inner");
	CHECK(tm_check(m) == 0);
}

static void test_rmap_outside(void)
{
	uint64_t hole = find_state(0, MPM_PAGE_HOLE);
	uint64_t reserved = find_state(1, MPM_PAGE_RESERVED);
	uint64_t end = mpm_max_pfn(m);

	REQUIRE(hole != MPM_NO_PFN && reserved != MPM_NO_PFN);
	expect_set_refused(hole, "a hole");
	expect_set_refused(reserved, "a reserved");
	/* below the page array, past it, and far past it */
	CHECK(mpm_rmap_set(m, 0, 7, 1, 2) == -1);
	CHECK(mpm_rmap_set(m, end, 7, 1, 2) == -1);
	CHECK(mpm_rmap_set(m, UINT64_MAX, 7, 1, 2) == -1);
	CHECK(mpm_rmap_clear(m, 0) == -1);
	CHECK(mpm_rmap_clear(m, end + 12345) == -1);
	CHECK_EQ_U(mpm_rmap_get(m, end, NULL, NULL), MPM_NO_OWNER);
	CHECK(tm_check(m) == 0);
}

static void test_ids(void)
{
	unsigned int nz = mpm_nr_zones(m);
	struct mpm_zone_info zi, zi_before;
	struct mpm_region_info ri, ri_before;
	struct mpm_evac_result res;
	uint64_t counts[MPM_MIGRATE_TYPES], counts_before[MPM_MIGRATE_TYPES];
	uint32_t rids[4] = { 0 };

	memset(&zi, 0xab, sizeof(zi));
	zi_before = zi;
	CHECK(mpm_zone_info(m, nz, &zi) == -1);
	CHECK(memcmp(&zi, &zi_before, sizeof(zi)) == 0);
	CHECK(mpm_zone_info(m, UINT32_MAX, &zi) == -1);
	CHECK(mpm_zone_info(m, nz - 1, &zi) == 0);

	memset(&ri, 0xab, sizeof(ri));
	ri_before = ri;
	CHECK(mpm_region_info(m, nz - 1, zi.nr_regions, &ri) == -1);
	CHECK(mpm_region_info(m, nz, 0, &ri) == -1);
	CHECK(memcmp(&ri, &ri_before, sizeof(ri)) == 0);
	CHECK(mpm_region_info(m, nz - 1, zi.nr_regions - 1, &ri) == 0);

	memset(counts, 0xab, sizeof(counts));
	memcpy(counts_before, counts, sizeof(counts));
	CHECK(mpm_region_pageblocks(m, nz - 1, zi.nr_regions, counts) == -1);
	CHECK(mpm_region_pageblocks(m, nz, 0, counts) == -1);
	CHECK(memcmp(counts, counts_before, sizeof(counts)) == 0);
	CHECK(mpm_region_pageblocks(m, nz - 1, 0, counts) == 0);

	CHECK(!mpm_should_evacuate_region(m, nz, 1, UINT64_MAX));
	CHECK(!mpm_should_evacuate_region(m, nz - 1, zi.nr_regions, UINT64_MAX));
	memset(&res, 0xab, sizeof(res));
	CHECK(mpm_evacuate_region(m, nz - 1, zi.nr_regions, 0, false, &res) == -1);
	CHECK_EQ_U(res.scanned, 0);
	CHECK(mpm_evacuate_region(m, nz, 1, 0, false, &res) == -1);

	CHECK(mpm_mempower_work_take(m, nz, rids, 4) == -1);
	CHECK(mpm_mempower_work_take(m, nz - 1, rids, 4) == 0);
	rids[1] = zi.nr_regions;
	CHECK(mpm_mempower_work_done(m, nz - 1, rids, 2) == -1);
	CHECK(mpm_mempower_work_done(m, nz, rids, 1) == -1);
	CHECK(mpm_mempower_work_done(m, nz - 1, rids, 1) == 0);
	CHECK(tm_check(m) == 0);
}

/*
 * A larger block with an inner page still owned is a bad free: refused with
 * nothing touched (only the head was tested before, and the free left a
 * free page marked owned).  Both mobility bits in one mask name no
 * migratetype: refused (it indexed past the three pcp lists).
 */
static void test_bad_free_and_gfp(void)
{
	uint64_t big, pfns[4];
	struct mpm_page before;

	big = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 3, 0);
	REQUIRE(big != MPM_NO_PFN);
	CHECK(mpm_rmap_set(m, big + 5, 5, 1, 2) == 0);
	before = page_copy(big);
	CHECK(mpm_free_pages(m, big, 3, 0) == -1);
	CHECK(page_same(big, &before));
	CHECK_EQ_U(mpm_rmap_get(m, big + 5, NULL, NULL), 5);
	CHECK(tm_check(m) == 0);
	CHECK(mpm_rmap_clear(m, big + 5) == 0);
	CHECK(mpm_free_pages(m, big, 3, 0) == 0);
	CHECK(tm_check(m) == 0);

	for (unsigned int order = 0; order < 2; order++) {
		CHECK(mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_RECLAIMABLE,
				      order, 0) == MPM_NO_PFN);
		CHECK(mpm_alloc_pages_node(m, 0, MPM_GFP_TEMPORARY | MPM___GFP_MOVABLE,
					   order, 0) == MPM_NO_PFN);
		CHECK(mpm_alloc_pages_bulk(m, MPM_GFP_TEMPORARY | MPM___GFP_MOVABLE, order,
					   0, 4, pfns) == 0);
	}
	CHECK(tm_check(m) == 0);
}

/*
 * A cpu number the machine does not have is refused by every call that
 * takes one: nothing allocated, freed or drained, no counter moved, the
 * block named untouched.
 */
static void test_bad_cpu(void)
{
	unsigned int bad = mpm_nr_cpus(m), zids[8];
	uint64_t pfn, pfns[2], pcp, used;
	struct mpm_counters before, after;
	struct mpm_page copy;

	pfn = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0);
	REQUIRE(pfn != MPM_NO_PFN);
	copy = page_copy(pfn);
	mpm_counters(m, &before);
	pcp = mpm_pcp_pages(m);
	used = mpm_used_pages(m);
	CHECK(pcp > 0);		/* the refill left pages a drain would take */

	CHECK(mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, bad) == MPM_NO_PFN);
	CHECK(mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, UINT32_MAX) == MPM_NO_PFN);
	CHECK(mpm_alloc_pages_node(m, 0, MPM_GFP_HIGHUSER_MOVABLE, 0, bad) == MPM_NO_PFN);
	CHECK(mpm_alloc_pages_bulk(m, MPM_GFP_HIGHUSER_MOVABLE, 0, bad, 2, pfns) == 0);
	CHECK(mpm_zonelist_zones(m, MPM_GFP_HIGHUSER_MOVABLE, bad, zids, 8) == 0);
	CHECK(mpm_free_pages(m, pfn, 0, bad) == -1);
	CHECK(mpm_free_cold_page(m, pfn, bad) == -1);
	CHECK(mpm_free_pages_bulk(m, &pfn, 1, 0, bad) == -1);
	CHECK(mpm_free_page_list(m, &pfn, 1, bad, 0) == -1);
	mpm_drain_local_pages(m, bad);
	mpm_refresh_cpu_vm_stats(m, bad);

	mpm_counters(m, &after);
	CHECK(memcmp(&before, &after, sizeof(before)) == 0);
	CHECK_EQ_U(mpm_pcp_pages(m), pcp);
	CHECK_EQ_U(mpm_used_pages(m), used);
	CHECK(page_same(pfn, &copy));
	CHECK(tm_check(m) == 0);
	CHECK(mpm_free_pages(m, pfn, 0, 0) == 0);
	CHECK(tm_check(m) == 0);
}

/*
 * The bulk frees go on past a block they refuse, as release_pages goes on
 * past a bad page: every good block is freed, the refused one -- not a
 * head, or named twice -- is left as it was, and the call returns -1.
 */
static void test_free_bulk(void)
{
	uint64_t blocks[3], list[4], pages[3], used;
	struct mpm_page copy;

	REQUIRE(mpm_alloc_pages_bulk(m, MPM_GFP_HIGHUSER_MOVABLE, 1, 0, 3, blocks) == 3);
	used = mpm_used_pages(m);
	copy = page_copy(blocks[1]);
	list[0] = blocks[0];
	list[1] = blocks[1] + 1;	/* the second page of a block: not a head */
	list[2] = blocks[2];
	list[3] = blocks[0];		/* freed a moment ago */
	CHECK(mpm_free_pages_bulk(m, list, 4, 1, 0) == -1);
	CHECK_EQ_U(mpm_used_pages(m), used - 4);
	CHECK(mpm_page_state(m, blocks[1], NULL) == MPM_PAGE_ALLOC);
	CHECK(page_same(blocks[1], &copy));
	CHECK(tm_check(m) == 0);
	CHECK(mpm_free_pages_bulk(m, &blocks[1], 1, 1, 0) == 0);
	CHECK_EQ_U(mpm_used_pages(m), used - 6);
	CHECK(tm_check(m) == 0);

	/* order 0 through a pcp list, hot or cold */
	REQUIRE(mpm_alloc_pages_bulk(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 1, 3, pages) == 3);
	used = mpm_used_pages(m);
	list[0] = pages[0];
	list[1] = pages[1];
	list[2] = pages[1];		/* twice: on the pcp list by now */
	list[3] = pages[2];
	for (int cold = 0; cold < 2; cold++) {
		CHECK(mpm_free_page_list(m, list + 2 * cold, 2, 1, cold) == (cold ? -1 : 0));
		CHECK_EQ_U(mpm_used_pages(m), used - 2 - cold);
		CHECK(tm_check(m) == 0);
	}
	CHECK(mpm_page_state(m, pages[2], NULL) != MPM_PAGE_ALLOC);
}

static int no_move(void *arg, uint32_t owner, uint32_t index, uint64_t from, uint64_t to)
{
	(void)arg, (void)owner, (void)index, (void)from, (void)to;
	return -1;
}

static int no_lock(void *arg, uint32_t owner)
{
	(void)arg, (void)owner;
	return -1;
}

static void no_unlock(void *arg, uint32_t owner)
{
	(void)arg, (void)owner;
}

/*
 * Calls that take names or callbacks (found by an API probe): a NULL name
 * is no policy or switch, a NULL error buffer gets no reason, and a lock
 * callback without its unlock (or the reverse) is refused, as evacuation
 * would leave an owner locked.
 */
static void test_names_and_ops(void)
{
	unsigned long f = 0;
	char err[128];

	CHECK(mpm_policy_features(NULL, &f) == -1);
	CHECK(mpm_feature_by_name(NULL, &f) == -1);
	CHECK(mpm_features_apply("bogus", &f, NULL, 64) == -1);
	CHECK(mpm_features_apply("", &f, NULL, 0) == -1);
	CHECK(mpm_features_apply(NULL, &f, err, sizeof(err)) == -1);
	CHECK(mpm_features_apply("sorted_freelists", &f, NULL, 0) == 0 &&
	      f == MPM_FEATURE_SORTED_FREELISTS);
	CHECK(mpm_set_migrate_ops(m, NULL) == -1);
	CHECK(mpm_set_migrate_ops(m, &(struct mpm_migrate_ops){ .move = no_move,
								.lock = no_lock }) == -1);
	CHECK(mpm_set_migrate_ops(m, &(struct mpm_migrate_ops){ .move = no_move,
								.unlock = no_unlock }) == -1);
	CHECK(mpm_set_migrate_ops(m, &(struct mpm_migrate_ops){ .move = no_move, .lock = no_lock,
								.unlock = no_unlock }) == 0);
	CHECK(mpm_set_migrate_ops(m, &(struct mpm_migrate_ops){ .move = no_move }) == 0);
}

int main(void)
{
	struct test_machine t;
	struct mpm_hole_spec reserved = { 0x1000, 0x1010 };

	/* two zones from pfn 1, a hole and a reserved range, 4 MiB regions */
	tm_small_pc(&t, MPM_ZONE_DMA32, MPM_ZONE_NORMAL, 8192, 16384, 10);
	t.spec.nr_reserved = 1;
	t.spec.reserved = &reserved;
	REQUIRE(mpm_policy_features("full", &t.spec.features) == 0);
	m = tm_create(&t);
	test_rmap_pages();
	test_rmap_outside();
	test_ids();
	test_bad_free_and_gfp();
	test_bad_cpu();
	test_free_bulk();
	test_names_and_ops();
	mpm_machine_destroy(m);
	return t_report("core/api_bounds");
}
