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

/* What holds a region's pages: the mechanisms behind a region not being free. */
struct mpm_region_usage {
	uint64_t free, pcp, reserved;
	uint64_t anon, file;		/* owned pages (reverse map), by owner kind */
	uint64_t kernel;		/* allocated, no owner: page tables, slab, stacks, ... */
};

/*
 * Walk the region's pfns.  @owner_kind maps reverse-map owner ids to
 * 1 = anonymous, 2 = file (ksim's enum owner_kind), or is NULL.
 */
void mpm_region_usage(const struct mpm_machine *m, unsigned int zid, unsigned int rid,
		      const uint8_t *owner_kind, struct mpm_region_usage *u);

#endif /* MPM_SIM_SAMPLE_H */
