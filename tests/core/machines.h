/* SPDX-License-Identifier: MIT */
/* Machines for the core tests, built directly from specs (independent of
 * the io layer's parser, which has tests of its own). */
#ifndef MPM_TEST_MACHINES_H
#define MPM_TEST_MACHINES_H

#include <string.h>

#include <mempower/mempower.h>

#include "testlib.h"

#define GiB_PAGES(x) ((uint64_t)(x) << 18)
#define MiB_PAGES(x) ((uint64_t)(x) << 8)

struct test_machine {
	struct mpm_machine_spec spec;
	struct mpm_zone_spec zones[8];
	struct mpm_hole_spec holes[8];
};

/* Point the spec at the first @nzones zones and @nholes holes of @t. */
static inline void tm_link(struct test_machine *t, unsigned int nodes, unsigned int nzones,
			   unsigned int nholes)
{
	t->spec.nr_nodes = nodes;
	t->spec.nr_zones = nzones;
	t->spec.zones = t->zones;
	t->spec.nr_holes = nholes;
	t->spec.holes = t->holes;
}

/*
 * The cover-letter machine: node 0 = DMA [1,4096) with the 640K-1M hole,
 * DMA32 [4096, 4G) with a 2 GiB MMIO hole, Normal [4G, 66G); node 1 =
 * Normal [66G, 130G).  512 MiB regions, 16 cpus.
 */
static inline void tm_sandybridge(struct test_machine *t)
{
	memset(t, 0, sizeof(*t));
	t->zones[0] = (struct mpm_zone_spec){ 0, MPM_ZONE_DMA, 1, 4096 };
	t->zones[1] = (struct mpm_zone_spec){ 0, MPM_ZONE_DMA32, 4096, 0x100000 };
	t->zones[2] = (struct mpm_zone_spec){ 0, MPM_ZONE_NORMAL, 0x100000, 0x1080000 };
	t->zones[3] = (struct mpm_zone_spec){ 1, MPM_ZONE_NORMAL, 0x1080000, 0x2080000 };
	t->holes[0] = (struct mpm_hole_spec){ 0x9f, 0x100 };
	t->holes[1] = (struct mpm_hole_spec){ 0x80000, 0x100000 };
	tm_link(t, 2, 4, 2);
	t->spec.nr_cpus = 16;
}

/* One node, one Normal zone of @pages pages starting at @start. */
static inline void tm_flat(struct test_machine *t, uint64_t start, uint64_t pages,
			   unsigned int cpus)
{
	memset(t, 0, sizeof(*t));
	t->zones[0] = (struct mpm_zone_spec){ 0, MPM_ZONE_NORMAL, start, start + pages };
	tm_link(t, 1, 1, 0);
	t->spec.nr_cpus = cpus;
}

/*
 * A small PC: one node, zone @lo [1, @split) and zone @hi [@split, @end)
 * with the 640K-1M hole, 2 cpus, regions of 2^@region_shift pages.
 */
static inline void tm_small_pc(struct test_machine *t, enum mpm_zone_type lo,
			       enum mpm_zone_type hi, uint64_t split, uint64_t end,
			       unsigned int region_shift)
{
	memset(t, 0, sizeof(*t));
	t->zones[0] = (struct mpm_zone_spec){ 0, lo, 1, split };
	t->zones[1] = (struct mpm_zone_spec){ 0, hi, split, end };
	t->holes[0] = (struct mpm_hole_spec){ 0x9f, 0x100 };
	tm_link(t, 1, 2, 1);
	t->spec.nr_cpus = 2;
	t->spec.region_shift = region_shift;
}

static inline struct mpm_machine *tm_create(struct test_machine *t);

/* tm_flat() from pfn 0 with min_free_kbytes 3: watermarks 0, out of the way. */
static inline struct mpm_machine *tm_flat_nowmark(struct test_machine *t, uint64_t pages,
						  unsigned int cpus)
{
	tm_flat(t, 0, pages, cpus);
	t->spec.min_free_kbytes = 3;
	return tm_create(t);
}

/* Allocate order-0 @gfp pages on cpu 0 until none is left, pcp lists included. */
static inline void tm_allocate_all(struct mpm_machine *m, mpm_gfp_t gfp)
{
	uint64_t got;

	do {
		for (got = 0; mpm_alloc_pages(m, gfp, 0, 0) != MPM_NO_PFN; got++)
			;
		mpm_drain_all_pages(m);
	} while (got);
}

static inline struct mpm_machine *tm_create(struct test_machine *t)
{
	char err[256];
	struct mpm_machine *m = mpm_machine_create(&t->spec, err, sizeof(err));

	if (!m)
		fprintf(stderr, "machine: %s\n", err);
	REQUIRE(m);
	return m;
}

static inline int tm_check(struct mpm_machine *m)
{
	char msg[512];
	int ret = mpm_check(m, msg, sizeof(msg));

	if (ret)
		fprintf(stderr, "mpm_check: %s\n", msg);
	return ret;
}

#endif
