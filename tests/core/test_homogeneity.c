// SPDX-License-Identifier: MIT
/*
 * Region homogeneity (homogeneity.c): pageblocks per migratetype per
 * region add up to the zone's, and a region becomes "mixed" when an
 * unmovable allocation claims a pageblock in it.
 */
#include "freelist.h"
#include "machines.h"

static uint64_t zone_pageblocks(struct mpm_machine *m, unsigned int zid, int mt)
{
	struct mpm_zone_info zi;
	uint64_t sum = 0;

	mpm_zone_info(m, zid, &zi);
	for (unsigned int rid = 0; rid < zi.nr_regions; rid++) {
		uint64_t c[MPM_MIGRATE_TYPES];

		mpm_region_pageblocks(m, zid, rid, c);
		sum += c[mt];
	}
	return sum;
}

int main(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	uint64_t pfn, total = 0;

	/*
	 * 4 regions of 2048 pages, pageblocks of 512: 16 pageblocks, one a
	 * hole.  An order-10 block is two pageblocks, half a region.
	 */
	tm_flat(&t, 0, 8192, 1);
	t.holes[0] = (struct mpm_hole_spec){ 4096, 4608 };
	t.spec.nr_holes = 1;
	t.spec.holes = t.holes;
	t.spec.region_shift = 11;
	t.spec.pageblock_order = 9;
	t.spec.region_absolute = true;
	m = tm_create(&t);
	for (int mt = 0; mt < MPM_MIGRATE_TYPES; mt++)
		total += zone_pageblocks(m, 0, mt);
	CHECK_EQ_U(total, 15);			/* the hole's pageblock is not counted */
	CHECK_EQ_U(zone_pageblocks(m, 0, MPM_MIGRATE_RESERVE), 1);
	CHECK_EQ_U(zone_pageblocks(m, 0, MPM_MIGRATE_MOVABLE), 14);
	CHECK_EQ_U(mpm_mixed_regions(m), 0);

	/*
	 * An unmovable page falls back to the largest movable block, order
	 * 10, and takes ownership of its two pageblocks (3.12: order >=
	 * pageblock_order).
	 */
	pfn = mpm_alloc_pages(m, MPM_GFP_KERNEL, 0, 0);
	REQUIRE(pfn != MPM_NO_PFN);
	CHECK_EQ_U(zone_pageblocks(m, 0, MPM_MIGRATE_UNMOVABLE), 2);
	CHECK_EQ_U(zone_pageblocks(m, 0, MPM_MIGRATE_MOVABLE), 12);
	/* the claimed pageblocks share their region with movable ones */
	CHECK_EQ_U(mpm_mixed_regions(m), 1);
	CHECK_EQ_U(tm_check(m), 0);

	/*
	 * Reclaimable pageblocks mix a region as unmovable ones do: slab
	 * pages that shrink only under reclaim keep it busy as well.  One
	 * pageblock of region 1, then all four: a region of one type is not
	 * mixed, whichever type.
	 */
	set_pageblock_migratetype(m, &m->zones[0], 2048, MIGRATE_RECLAIMABLE);
	CHECK_EQ_U(mpm_mixed_regions(m), 2);
	for (uint64_t pb = 2560; pb < 4096; pb += 512)
		set_pageblock_migratetype(m, &m->zones[0], pb, MIGRATE_RECLAIMABLE);
	CHECK_EQ_U(mpm_mixed_regions(m), 1);
	mpm_machine_destroy(m);
	return t_report("core/homogeneity");
}
