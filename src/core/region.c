// SPDX-License-Identifier: MIT
/*
 * Per-region free page accounting (zone_mem_region->nr_free, patch 12).
 *
 * The patchset adds a whole block's 1 << order to the region of the block's
 * head page.  When region boundaries are not aligned to MAX_ORDER blocks (as
 * with node-relative regions on x86, whose first pfn is 1) a block can
 * straddle two regions, and the patch then reports nr_free > present for one
 * of them (the v4 results mail shows 131,801 of 131,072).  We account each
 * page to the region that holds it, so that "region free" means exactly that
 * all of its present pages are free; the common case (a block inside one
 * region) costs one comparison more than the patch.
 */
#include "region.h"

void region_mod_free(struct zone *z, struct zone_mem_region *r, long delta)
{
	bool was_free = r->nr_free == r->present_pages;

	SET_REGION_NR_FREE(r, r->nr_free + (uint64_t)delta);
	if (r->present_pages == 0)
		return;
	if (was_free != (r->nr_free == r->present_pages))
		ADD_ONCE(z->free_regions, was_free ? -1u : 1u);
}

/* A block that straddles region boundaries: split its pages. */
void region_mod_straddling(struct zone *z, struct zone_mem_region *r,
			   uint64_t pfn, uint64_t end, int sign)
{
	while (pfn < end) {
		uint64_t stop = end < r->end_pfn ? end : r->end_pfn;

		region_mod_free(z, r, sign * (long)(stop - pfn));
		pfn = stop;
		r++;
	}
}
