/* SPDX-License-Identifier: MIT */
/*
 * The per-region parts of /proc/buddyinfo, /proc/pagetypeinfo and
 * /proc/zoneinfo that v4 patches 13/40 and 14/40 of the Memory Power
 * Management series add to mm/vmstat.c (vmstat_region.c).  Each prints one
 * zone of node @nid; the caller holds that zone's lock, as
 * walk_zones_in_node() does.
 */
#ifndef MPM_CORE_VMSTAT_REGION_H
#define MPM_CORE_VMSTAT_REGION_H

#include <stdio.h>

#include "mmzone.h"

/*
 * The pageblock walk of pagetypeinfo_showblockcount_print(): one sample pfn
 * per pageblock, zone_start_pfn + k * pageblock_nr_pages, skipped when it
 * is a hole (pfn_valid: holes have no memmap to read).  The zone lines and
 * the region lines both use it, so a zone's region lines add up to its
 * zone line.
 */
static inline bool blockcount_pfn_valid(const struct mpm_machine *m, uint64_t pfn)
{
	return !(READ_ONCE(m->pages[pfn_to_idx(m, pfn)].flags) & PG_nomem);
}

/*
 * Nonzero: count free blocks in chunks of this many regions (at most 32)
 * on the stack, the fallback for a zone table that cannot be allocated.
 * For tests; 0 (a table for the whole zone, one walk of each list) in use.
 */
extern unsigned int region_table_chunk;

/* frag_show_print, patch 13: "\t\t Region %6d " + free blocks per order. */
void frag_show_region_print(const struct mpm_machine *m, const struct zone *z,
			    FILE *out);
/* Patch 14: "Node %4d, zone %8s, R%3d %12s " + free blocks per order. */
void pagetypeinfo_showfree_region_print(const struct mpm_machine *m, unsigned int nid,
					const struct zone *z, FILE *out);
/* Patch 14: "Node %d, zone %8s R%3d " + pageblocks per migratetype. */
void pagetypeinfo_showblockcount_region_print(const struct mpm_machine *m,
					      unsigned int nid, const struct zone *z,
					      FILE *out);
/* zoneinfo_show_print, patch 13: the "Per-region page stats" block. */
void zoneinfo_show_region_print(const struct zone *z, FILE *out);

#endif /* MPM_CORE_VMSTAT_REGION_H */
