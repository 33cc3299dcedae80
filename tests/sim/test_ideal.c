// SPDX-License-Identifier: MIT
/*
 * The bound every policy is scored against (sample.c): ideal_free_regions
 * is how many of a zone's regions its free pages could cover whole, the
 * smallest first, leaving out regions with reserved pages.  A zone of five
 * 16 MiB regions: region 1 has an 8 MiB hole (2048 present pages), region
 * 2 a 12 MiB one and 512 reserved pages of its 1024, so the regions that can
 * be freed are 2048, 4096, 4096 and 4096 pages -- region 2, the smallest,
 * never.
 */
#include "core/machines.h"
#include "sim/sample.h"

#define REGION	4096u

/* The same bound, worked out by hand for this zone. */
static unsigned int expected(uint64_t free)
{
	static const uint64_t sizes[] = { 2048, REGION, REGION, REGION };
	unsigned int n = 0;

	for (unsigned int i = 0; i < 4 && sizes[i] <= free; i++) {
		free -= sizes[i];
		n++;
	}
	return n;
}

static uint64_t zone_free(struct mpm_machine *m)
{
	struct mpm_zone_info zi;

	mpm_zone_info(m, 0, &zi);
	return zi.free_pages;
}

/* Allocate until the zone has exactly @target free pages (nothing on pcp lists). */
static void take_to(struct mpm_machine *m, uint64_t target)
{
	while (zone_free(m) > target) {
		uint64_t gap = zone_free(m) - target;
		unsigned int order = 0;

		while (order < 10 && (2ull << order) <= gap)
			order++;
		while (mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, order, 0) == MPM_NO_PFN)
			REQUIRE(order-- > 0);
		mpm_drain_all_pages(m);
	}
	REQUIRE(zone_free(m) == target);
}

int main(void)
{
	static const uint64_t targets[] = {
		2048 + 3 * REGION, 2048 + 3 * REGION - 1, 2048 + REGION, 2048 + REGION - 1,
		2048, 2047, 0,
	};
	struct test_machine t;
	struct mpm_hole_spec reserved = { 2 * REGION + 100, 2 * REGION + 612 };
	uint64_t managed = 3 * REGION + 2048 + 512;
	struct mpm_ideal id;
	struct mpm_machine *m;

	tm_flat(&t, 0, 5 * REGION, 1);
	t.holes[0] = (struct mpm_hole_spec){ REGION + 1024, REGION + 3072 };
	t.holes[1] = (struct mpm_hole_spec){ 2 * REGION + 1024, 3 * REGION };
	tm_link(&t, 1, 1, 2);
	t.spec.region_shift = 12;
	t.spec.min_free_kbytes = 3;	/* watermarks 0: every page can be taken */
	t.spec.nr_reserved = 1;
	t.spec.reserved = &reserved;
	m = tm_create(&t);
	REQUIRE(mpm_ideal_init(&id, m) == 0);
	REQUIRE(zone_free(m) == managed);
	CHECK_EQ_U(mpm_ideal_free_regions(&id, m), 4);
	CHECK_EQ_U(mpm_free_regions(m), 4);	/* region 2 can never be free */
	for (unsigned int i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		take_to(m, targets[i]);
		CHECK_EQ_U(mpm_ideal_free_regions(&id, m), expected(targets[i]));
		CHECK(mpm_free_regions(m) <= mpm_ideal_free_regions(&id, m));
	}
	CHECK_EQ_U(tm_check(m), 0);
	mpm_ideal_fini(&id);
	mpm_machine_destroy(m);
	return t_report("sim/ideal");
}
