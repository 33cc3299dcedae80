/* SPDX-License-Identifier: MIT */
/* Shared by the sim tests: what a run's samples alone would say. */
#ifndef MPM_TEST_RUN_SAMPLES_H
#define MPM_TEST_RUN_SAMPLES_H

#include <limits.h>

#include "sim/run.h"

/*
 * The fewest free regions any sample saw: what free_regions_min would be if
 * the run took its minimum at the samples only (UINT_MAX without samples).
 */
static inline unsigned int samples_free_regions_min(const struct mpm_run *r)
{
	unsigned int min = UINT_MAX;

	for (size_t i = 0; i < r->nr_samples; i++)
		if (r->samples[i].free_regions < min)
			min = r->samples[i].free_regions;
	return min;
}

#endif /* MPM_TEST_RUN_SAMPLES_H */
