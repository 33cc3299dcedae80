// SPDX-License-Identifier: MIT
/*
 * Region homogeneity: how many pageblocks of each migratetype a zone region
 * holds, and how many regions mix movable with unmovable or reclaimable
 * pageblocks.  A mixed region is the one evacuation cannot empty (its
 * unmovable pages stay), so `split`'s refusal to claim pageblocks on
 * fallback (patch 31) is judged by this count.  Every policy has it.
 *
 * A pageblock is counted in the region of its first pfn inside the zone,
 * sampled at zone_start_pfn + k * pageblock, skipping samples in holes --
 * the rule of the per-region pagetypeinfo block counts (vmstat_region.c).
 */
#include "vmstat_region.h"

int mpm_region_pageblocks(const struct mpm_machine *m, unsigned int zid, unsigned int rid,
			  uint64_t counts[MPM_MIGRATE_TYPES])
{
	const struct zone *z;
	const struct zone_mem_region *r;
	uint64_t step = pageblock_nr_pages(m), end, pfn;

	if (!zone_region_valid(m, zid, rid))
		return -1;
	z = &m->zones[zid];
	r = &z->regions[rid];
	end = zone_end_pfn(z);
	pfn = z->zone_start_pfn;
	for (int mt = 0; mt < MIGRATE_TYPES; mt++)
		counts[mt] = 0;
	/* the first sample at or after the region's start */
	if (r->start_pfn > pfn)
		pfn += (r->start_pfn - pfn + step - 1) / step * step;
	for (; pfn < r->end_pfn && pfn < end; pfn += step) {
		if (!blockcount_pfn_valid(m, pfn))
			continue;
		counts[get_pageblock_migratetype(m, z, pfn)]++;
	}
	return 0;
}

static bool region_is_mixed(const uint64_t counts[MPM_MIGRATE_TYPES])
{
	return counts[MIGRATE_MOVABLE] &&
	       (counts[MIGRATE_UNMOVABLE] || counts[MIGRATE_RECLAIMABLE]);
}

unsigned int mpm_mixed_regions(const struct mpm_machine *m)
{
	unsigned int n = 0;

	for (unsigned int zid = 0; zid < m->nr_zones; zid++)
		for (unsigned int rid = 0; rid < m->zones[zid].nr_regions; rid++) {
			uint64_t counts[MPM_MIGRATE_TYPES];

			mpm_region_pageblocks(m, zid, rid, counts);
			n += region_is_mixed(counts);
		}
	return n;
}
