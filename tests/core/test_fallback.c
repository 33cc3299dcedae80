// SPDX-License-Identifier: MIT
/*
 * __rmqueue_fallback and try_to_steal_freepages (Linux 3.12) at their
 * edges, each case one rule a mutation of page_alloc.c showed no other
 * test pinned down: the order of the fallbacks[] rows, the claim at
 * exactly pageblock_order / 2, grouping by mobility disabled (every
 * allocation UNMOVABLE, every fallback moving and claiming),
 * move_freepages_block refusing a pageblock that runs past the zone, and
 * move_freepages putting each block it moves at the head of its new list.
 * Machines with min_free_kbytes 3, so that the watermarks stay out of the
 * way.
 */
#include "freelist.h"
#include "machines.h"

#define MOVABLE		MPM_GFP_HIGHUSER_MOVABLE
#define UNMOVABLE	MPM_GFP_KERNEL
#define RECLAIMABLE	MPM_GFP_TEMPORARY

static int pageblock_mt(struct mpm_machine *m, uint64_t pfn)
{
	return get_pageblock_migratetype(m, &m->zones[0], pfn);
}

/*
 * fallbacks[MIGRATE_UNMOVABLE] = { RECLAIMABLE, MOVABLE }: with one free
 * RECLAIMABLE block, an unmovable page comes from it, not from the movable
 * blocks, and claims its pageblock.
 */
static void test_unmovable_tries_reclaimable_first(void)
{
	struct test_machine t;
	struct mpm_machine *m = tm_flat_nowmark(&t, 131072, 2);
	uint64_t r = mpm_alloc_pages(m, RECLAIMABLE, 10, 0), p;

	REQUIRE(r != MPM_NO_PFN);
	CHECK_EQ_U(mpm_free_pages(m, r, 10, 0), 0);
	p = mpm_alloc_pages(m, UNMOVABLE, 0, 0);
	CHECK_EQ_U(p, r);
	CHECK_EQ_U(pageblock_mt(m, r), MIGRATE_UNMOVABLE);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * fallbacks[MIGRATE_MOVABLE] = { RECLAIMABLE, UNMOVABLE }: one free block
 * of each, the movable lists empty; a movable page takes the reclaimable.
 */
static void test_movable_tries_reclaimable_first(void)
{
	struct test_machine t;
	struct mpm_machine *m = tm_flat_nowmark(&t, 8192, 2);
	uint64_t u = mpm_alloc_pages(m, UNMOVABLE, 10, 0);
	uint64_t r = mpm_alloc_pages(m, RECLAIMABLE, 10, 0);

	REQUIRE(u != MPM_NO_PFN && r != MPM_NO_PFN);
	for (int i = 0; i < 6; i++)
		REQUIRE(mpm_alloc_pages(m, MOVABLE, 10, 0) != MPM_NO_PFN);
	CHECK_EQ_U(mpm_free_pages(m, u, 10, 0), 0);
	CHECK_EQ_U(mpm_free_pages(m, r, 10, 0), 0);
	CHECK_EQ_U(mpm_alloc_pages(m, MOVABLE, 0, 0), r);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * try_to_steal_freepages: current_order >= pageblock_order / 2 moves the
 * pageblock's free pages and, when more than half of it is then free,
 * claims it.  Every pageblock keeps 16 free order-5 blocks (512 pages, the
 * largest free order): the unmovable fallback at order 5 moves all 16 and
 * claims the block; the pcp refill took 31 of them.
 */
static void test_claim_at_half_pageblock_order(void)
{
	struct test_machine t;
	struct mpm_machine *m = tm_flat_nowmark(&t, 131072, 2);
	struct mpm_counters c;
	uint64_t p;

	tm_allocate_all(m, MOVABLE);
	for (uint64_t b = 0; b < 131072; b += 64)
		for (uint64_t q = b; q < b + 32; q++)
			CHECK_EQ_U(mpm_free_pages(m, q, 0, 0), 0);
	mpm_drain_all_pages(m);
	REQUIRE(m->zones[0].free_area[5].nr_free == 131072 / 64);
	p = mpm_alloc_pages(m, UNMOVABLE, 0, 0);
	REQUIRE(p != MPM_NO_PFN);
	mpm_counters(m, &c);
	CHECK_EQ_U(c.pageblock_claims, 1);
	CHECK_EQ_U(pageblock_mt(m, p), MIGRATE_UNMOVABLE);
	CHECK_EQ_U(mpm_free_pages_mt(m, MPM_MIGRATE_UNMOVABLE),
		   512 - (uint64_t)m->zones[0].pageset[0].batch);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * Grouping by mobility is disabled below pageblock_nr_pages * MIGRATE_TYPES
 * pages (1024 * 5; build_all_zonelists): every allocation is then
 * MIGRATE_UNMOVABLE (allocflags_to_migratetype), and every fallback moves
 * and claims the pageblock (try_to_steal_freepages), whatever its order.
 * 4096 pages, 1000 of them reserved: after three whole blocks, an unmovable
 * page falls back at order 4 into block 0 and claims it.  On the same
 * machine without the reservation a movable page is unmovable too: it
 * falls back and claims its block.
 */
static void test_mobility_disabled(void)
{
	static struct mpm_hole_spec reserved = { 0, 1000 };
	struct test_machine t;
	struct mpm_machine *m;
	struct mpm_counters c;
	uint64_t p;

	tm_flat(&t, 0, 4096, 1);
	t.spec.min_free_kbytes = 3;
	t.spec.nr_reserved = 1;
	t.spec.reserved = &reserved;
	m = tm_create(&t);
	REQUIRE(m->page_group_by_mobility_disabled);
	for (int i = 0; i < 3; i++)
		REQUIRE(mpm_alloc_pages(m, UNMOVABLE, 10, 0) != MPM_NO_PFN);
	p = mpm_alloc_pages(m, UNMOVABLE, 0, 0);
	REQUIRE(p != MPM_NO_PFN);
	CHECK(p < 1024);
	mpm_counters(m, &c);
	CHECK_EQ_U(pageblock_mt(m, 0), MIGRATE_UNMOVABLE);
	CHECK_EQ_U(c.pageblock_claims, 4);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);

	m = tm_flat_nowmark(&t, 4096, 2);
	REQUIRE(m->page_group_by_mobility_disabled);
	p = mpm_alloc_pages(m, MOVABLE, 0, 0);
	REQUIRE(p != MPM_NO_PFN);
	mpm_counters(m, &c);
	CHECK_EQ_U(c.fallbacks, 1);
	CHECK_EQ_U(pageblock_mt(m, p), MIGRATE_UNMOVABLE);
	CHECK_EQ_U(mpm_free_pages_mt(m, MPM_MIGRATE_MOVABLE), 3072);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * The threshold counts what build_all_zonelists counts at boot,
 * nr_free_pagecache_pages(): present pages less the memmap (64 bytes per
 * page of the span), not the present pages.  5150 pages: 81 of memmap,
 * 5069 < 5120, grouping off; 5210 pages: 82, 5128, on.  A 16-page
 * reservation below 16 MiB comes off a DMA zone (dma_reserve) but not off
 * a Normal one: 5215 pages give 5133 as Normal, on, and 5117 as DMA, off.
 */
static void test_mobility_threshold_at_boot(void)
{
	static struct mpm_hole_spec reserved = { 0, 16 };
	struct test_machine t;
	struct mpm_machine *m;

	m = tm_flat_nowmark(&t, 5150, 1);
	CHECK(m->page_group_by_mobility_disabled);
	mpm_machine_destroy(m);
	m = tm_flat_nowmark(&t, 5210, 1);
	CHECK(!m->page_group_by_mobility_disabled);
	mpm_machine_destroy(m);
	for (int dma = 0; dma <= 1; dma++) {
		tm_flat(&t, 0, 5215, 1);
		t.zones[0].type = dma ? MPM_ZONE_DMA : MPM_ZONE_NORMAL;
		t.spec.min_free_kbytes = 3;
		t.spec.nr_reserved = 1;
		t.spec.reserved = &reserved;
		m = tm_create(&t);
		CHECK(m->page_group_by_mobility_disabled == (dma == 1));
		CHECK_EQ_U(tm_check(m), 0);
		mpm_machine_destroy(m);
	}
}

/*
 * move_freepages_block gives up on a pageblock that does not lie wholly in
 * the zone.  DMA32 [0, 1536) ends halfway through pageblock 1024; with its
 * whole block 0 allocated, an unmovable DMA32 page falls back to the
 * movable half block at 1024 (order 9) and must neither move nor claim
 * that pageblock: NORMAL's free block at 1536 stays on NORMAL's lists.
 */
static void test_pageblock_past_zone_end(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	struct mpm_counters c;
	uint64_t a, p;

	memset(&t, 0, sizeof(t));
	t.zones[0] = (struct mpm_zone_spec){ 0, MPM_ZONE_DMA32, 0, 1536 };
	t.zones[1] = (struct mpm_zone_spec){ 0, MPM_ZONE_NORMAL, 1536, 9728 };
	tm_link(&t, 1, 2, 0);
	t.spec.nr_cpus = 1;
	t.spec.min_free_kbytes = 3;
	m = tm_create(&t);
	a = mpm_alloc_pages(m, MPM_GFP_KERNEL | MPM___GFP_MOVABLE | MPM___GFP_DMA32, 10, 0);
	CHECK_EQ_U(a, 0);
	p = mpm_alloc_pages(m, UNMOVABLE | MPM___GFP_DMA32, 0, 0);
	CHECK(p >= 1024 && p < 1536);
	mpm_counters(m, &c);
	CHECK_EQ_U(c.pageblock_claims, 0);
	CHECK_EQ_U(pageblock_mt(m, 1024), MIGRATE_MOVABLE);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * move_freepages moves each free block with list_move: to the head of the
 * new list, so the last moved -- the highest pfn of the pageblock -- is the
 * first taken.  Every other page free: a reclaimable refill claims a
 * pageblock of 512 free pages; the pages that follow the first come down
 * from the top of that pageblock.
 */
static void test_moved_blocks_at_head(void)
{
	struct test_machine t;
	struct mpm_machine *m = tm_flat_nowmark(&t, 131072, 2);
	uint64_t p[4], end;

	tm_allocate_all(m, MOVABLE);
	for (uint64_t pfn = 0; pfn < 131072; pfn += 2)
		CHECK_EQ_U(mpm_free_pages(m, pfn, 0, 0), 0);
	mpm_drain_all_pages(m);
	for (int i = 0; i < 4; i++)
		p[i] = mpm_alloc_pages(m, RECLAIMABLE, 0, 0);
	end = (p[0] | 1023) + 1;
	CHECK(p[1] > p[2] && p[2] > p[3]);
	CHECK(p[1] >= end - 4 && p[1] < end);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

int main(void)
{
	test_unmovable_tries_reclaimable_first();
	test_movable_tries_reclaimable_first();
	test_claim_at_half_pageblock_order();
	test_mobility_disabled();
	test_mobility_threshold_at_boot();
	test_pageblock_past_zone_end();
	test_moved_blocks_at_head();
	return t_report("core/fallback");
}
