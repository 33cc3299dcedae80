// SPDX-License-Identifier: MIT
/*
 * The region-move bench: a zone of four regions of each size, policy split
 * without the region cache (so that every whole region is returned), timed
 * round trips of region 2 between the two allocators.  The splices are
 * O(1); patches 27 and 32 then set each block's freepage migratetype and
 * its pageblocks' migratetype, one store each per MAX_ORDER-1 block, which
 * is what grows with the region.
 */
#include <stdlib.h>
#include <time.h>

#include "bench.h"
#include "bench_region_move.h"
#include "core/freelist.h"

static const uint64_t rm_sizes[REGION_MOVE_SIZES] = {
	4ull << 20, 64ull << 20, 512ull << 20, 2ull << 30
};

#define ROUND_TRIPS	2000

static double rm_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int bench_one_size(uint64_t bytes, unsigned int runs, struct region_move_bench *r)
{
	unsigned int shift = (unsigned int)__builtin_ctzll(bytes) - 12;
	struct mpm_zone_spec zs = { 0, MPM_ZONE_NORMAL, 0, 4 * (bytes >> 12) };
	struct mpm_machine_spec spec = {
		.nr_nodes = 1, .nr_zones = 1, .zones = &zs, .nr_cpus = 1,
		.region_shift = shift, .region_absolute = true,
	};
	double *ns = malloc(runs * sizeof(*ns));
	struct mpm_machine *m;
	struct zone *z;

	if (!ns || mpm_policy_features("split", &spec.features)) {
		free(ns);
		return -1;
	}
	spec.features &= ~(unsigned long)MPM_FEATURE_REGION_CACHE;
	m = mpm_machine_create(&spec, NULL, 0);
	if (!m) {
		free(ns);
		return -1;
	}
	z = &m->zones[0];
	r->region_bytes = bytes;
	r->blocks = z->ralloc->region[2].nr_blocks;
	for (unsigned int run = 0; run < runs; run++) {
		double t0 = rm_now_ns();

		for (unsigned int i = 0; i < ROUND_TRIPS; i++) {
			__del_from_region_allocator(m, z, MIGRATE_MOVABLE, 2);
			try_return_region(m, z, mr_list_of(z->sorted, MAX_ORDER - 1,
							   MIGRATE_MOVABLE, 2)->page_block,
					  MAX_ORDER - 1, MIGRATE_MOVABLE);
		}
		ns[run] = (rm_now_ns() - t0) / ROUND_TRIPS;
	}
	r->ns = bench_median(ns, runs);
	/* the region must have made every trip back */
	if (!z->ralloc->region[2].nr_free)
		r->ns = -1;
	free(ns);
	mpm_machine_destroy(m);
	return 0;
}

int bench_region_move(unsigned int runs, struct region_move_bench *out)
{
	for (unsigned int i = 0; i < REGION_MOVE_SIZES; i++)
		if (bench_one_size(rm_sizes[i], runs ? runs : 1, &out[i]))
			return -1;
	return 0;
}
