/* SPDX-License-Identifier: MIT */
/*
 * Moving a whole region between the page allocator and the region
 * allocator (policy split): one round trip is __del_from_region_allocator
 * (RA -> PA, into the MAX_ORDER-1 movable list) and try_return_region
 * (PA -> RA), for region sizes from one MAX_ORDER-1 block up.
 */
#ifndef MPM_BENCH_REGION_MOVE_H
#define MPM_BENCH_REGION_MOVE_H

#include <stdint.h>

#define REGION_MOVE_SIZES 4

struct region_move_bench {
	uint64_t region_bytes;
	uint32_t blocks;	/* MAX_ORDER-1 blocks per region */
	double ns;		/* per round trip, median of the runs */
};

/* Fills @out[REGION_MOVE_SIZES]; 0, or -1 when a machine cannot be built. */
int bench_region_move(unsigned int runs, struct region_move_bench *out);

#endif /* MPM_BENCH_REGION_MOVE_H */
