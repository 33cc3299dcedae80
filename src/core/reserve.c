// SPDX-License-Identifier: MIT
/*
 * MIGRATE_RESERVE pageblocks (setup_zone_migrate_reserve, Linux 3.12): the
 * first movable pageblocks of a zone, as many as the min watermark covers
 * in whole pageblocks but at most 2, are set aside as a last resort for
 * high-order atomic allocations.  Blocks that contain a hole are skipped:
 * their reserved pages never free.  As in 3.12 the walk goes over the
 * whole zone and hands back any RESERVE block beyond the count (3.13's
 * nr_migrate_reserve_block shortcut, which stops early at boot, is not
 * here).  It runs once at boot, and a second time with THP on, from
 * khugepaged's raise of min_free_kbytes (set_recommended_min_free_kbytes,
 * watermark.c): the blocks the first run left RESERVE count towards the
 * second's number, and the count only grows, so nothing is handed back.
 */
#include "mmzone.h"

static bool pageblock_is_reserved(const struct mpm_machine *m, uint64_t start,
				  uint64_t end)
{
	for (uint64_t pfn = start; pfn < end; pfn++)
		if (READ_ONCE(m->pages[pfn_to_idx(m, pfn)].flags) & PG_reserved)
			return true;
	return false;
}

void setup_zone_migrate_reserve(struct mpm_machine *m, struct zone *z)
{
	unsigned long nr = pageblock_nr_pages(m);
	uint64_t end_pfn = zone_end_pfn(z);
	uint64_t start_pfn = (z->zone_start_pfn + nr - 1) & ~(uint64_t)(nr - 1);
	int reserve = (int)(((z->watermark[WMARK_MIN] + nr - 1) & ~(nr - 1)) >>
			    m->pageblock_order);

	if (reserve > 2)
		reserve = 2;

	for (uint64_t pfn = start_pfn; pfn < end_pfn; pfn += nr) {
		int mt = get_pageblock_migratetype(m, z, pfn);

		if (reserve > 0) {
			uint64_t block_end = pfn + nr < end_pfn ? pfn + nr : end_pfn;

			if (pageblock_is_reserved(m, pfn, block_end))
				continue;
			if (mt == MIGRATE_RESERVE) {
				reserve--;
				continue;
			}
			if (mt == MIGRATE_MOVABLE) {
				set_pageblock_migratetype(m, z, pfn, MIGRATE_RESERVE);
				move_freepages_block(m, z, pfn, MIGRATE_RESERVE);
				reserve--;
				continue;
			}
		}
		/* Reserve met: a previously reserved block goes back. */
		if (mt == MIGRATE_RESERVE) {
			set_pageblock_migratetype(m, z, pfn, MIGRATE_MOVABLE);
			move_freepages_block(m, z, pfn, MIGRATE_MOVABLE);
		}
	}
}
