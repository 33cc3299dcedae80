/* SPDX-License-Identifier: MIT */
/*
 * find_prev_region (patch 11) on its own: word searches and time per
 * insertion of a region's first block into a free list, for region counts
 * that need one, two and three levels of the bitmap tree.
 */
#ifndef MPM_BENCH_BITMAP_H
#define MPM_BENCH_BITMAP_H

#include <stdint.h>

struct bitmap_bench {
	uint64_t regions;
	unsigned int levels;
	uint64_t insertions;		/* steps that inserted (searched) */
	unsigned int max_searches;	/* masked word searches, worst insertion */
	double mean_searches;
	double ns;			/* per step: insert with search, or remove */
	uint64_t checksum;		/* of the searches' results: keeps them computed */
};

#define BITMAP_BENCH_SIZES 4

/* Fills @out[BITMAP_BENCH_SIZES]; deterministic in @seed. Returns 0 or -1 (memory). */
int bench_find_prev_region(uint64_t seed, struct bitmap_bench *out);

#endif /* MPM_BENCH_BITMAP_H */
