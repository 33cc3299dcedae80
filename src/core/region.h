/* SPDX-License-Identifier: MIT */
/*
 * Per-region free page accounting on the buddy list paths; see region.c for
 * why pages, not head pages, are counted.  The common case -- a block inside
 * one region whose free/not-free state does not flip -- is inline.
 */
#ifndef MPM_CORE_REGION_H
#define MPM_CORE_REGION_H

#include "mmzone.h"

void region_mod_free(struct zone *z, struct zone_mem_region *r, long delta);
void region_mod_straddling(struct zone *z, struct zone_mem_region *r,
			   uint64_t pfn, uint64_t end, int sign);

/* Returns the region of @pfn, whose count the caller may want next. */
static inline struct zone_mem_region *region_mod_range(const struct mpm_machine *m,
							struct zone *z, uint64_t pfn,
							unsigned int order, int sign)
{
	uint64_t end = pfn + (1ull << order);
	struct zone_mem_region *r = &z->regions[pfn_zone_region_id(m, z, pfn)];
	uint64_t nr_free;

	if (unlikely(end > r->end_pfn)) {
		region_mod_straddling(z, r, pfn, end, sign);
		return r;
	}
	nr_free = r->nr_free + (uint64_t)(sign * (long)(1ul << order));
	/* free_regions changes only when a region becomes or stops being free */
	if (unlikely(nr_free == r->present_pages || r->nr_free == r->present_pages)) {
		region_mod_free(z, r, sign * (long)(1ul << order));
		return r;
	}
	SET_REGION_NR_FREE(r, nr_free);
	return r;
}

static inline struct zone_mem_region *region_add_free(const struct mpm_machine *m,
						       struct zone *z, uint64_t pfn,
						       unsigned int order)
{
	return region_mod_range(m, z, pfn, order, 1);
}

static inline void region_sub_free(const struct mpm_machine *m, struct zone *z,
				   uint64_t pfn, unsigned int order)
{
	(void)region_mod_range(m, z, pfn, order, -1);
}

#endif /* MPM_CORE_REGION_H */
