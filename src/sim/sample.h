/* SPDX-License-Identifier: MIT */
/* The physical bound on free regions (sample.c). */
#ifndef MPM_SIM_SAMPLE_H
#define MPM_SIM_SAMPLE_H

#include <stdint.h>

#include <mempower/mempower.h>

struct mpm_ideal {
	unsigned int nr_zones;
	uint64_t **sizes;		/* per zone: sizes of regions that can be freed, ascending */
	unsigned int *nr;
};

int mpm_ideal_init(struct mpm_ideal *id, const struct mpm_machine *m);
void mpm_ideal_fini(struct mpm_ideal *id);
unsigned int mpm_ideal_free_regions(const struct mpm_ideal *id, const struct mpm_machine *m);

#endif /* MPM_SIM_SAMPLE_H */
