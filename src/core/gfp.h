/* SPDX-License-Identifier: MIT */
/* GFP mask -> highest zone and migratetype (include/linux/gfp.h of 3.12). */
#ifndef MPM_CORE_GFP_H
#define MPM_CORE_GFP_H

#include "mmzone.h"

/*
 * gfp_zone: the GFP_ZONE_TABLE of a 64-bit kernel without highmem, indexed
 * by the four zone modifier bits (DMA, HIGHMEM, DMA32, MOVABLE): DMA -> DMA,
 * DMA32 -> DMA32, HIGHMEM|MOVABLE -> MOVABLE, anything else (HIGHMEM or
 * MOVABLE alone) -> NORMAL.  The combinations GFP_ZONE_BAD lists (DMA with
 * DMA32 or HIGHMEM, DMA32 with HIGHMEM, and those with MOVABLE) have no
 * entry in GFP_ZONE_TABLE, so the kernel reads zone 0, ZONE_DMA (and
 * VM_BUG_ONs only with CONFIG_DEBUG_VM): so do we.
 */
static inline unsigned int gfp_zone(mpm_gfp_t gfp)
{
	static const uint8_t table[16] = {
		[0x0] = MPM_ZONE_NORMAL, [0x1] = MPM_ZONE_DMA, [0x2] = MPM_ZONE_NORMAL,
		[0x3] = MPM_ZONE_DMA, [0x4] = MPM_ZONE_DMA32, [0x5] = MPM_ZONE_DMA,
		[0x6] = MPM_ZONE_DMA, [0x7] = MPM_ZONE_DMA, [0x8] = MPM_ZONE_NORMAL,
		[0x9] = MPM_ZONE_DMA, [0xa] = MPM_ZONE_MOVABLE, [0xb] = MPM_ZONE_DMA,
		[0xc] = MPM_ZONE_DMA32, [0xd] = MPM_ZONE_DMA, [0xe] = MPM_ZONE_DMA,
		[0xf] = MPM_ZONE_DMA,
	};

	return table[gfp & 0xf];
}

#define GFP_MOVABLE_MASK	(MPM___GFP_RECLAIMABLE | MPM___GFP_MOVABLE)

/*
 * Both mobility bits at once: 3.12's allocflags_to_migratetype WARN_ONs and
 * returns 3, MIGRATE_RESERVE, which then indexes past the three pcp lists
 * of buffered_rmqueue.  The callers refuse such a mask instead
 * (include/mempower/gfp.h).
 */
static inline bool gfp_mobility_bad(mpm_gfp_t gfp)
{
	return (gfp & GFP_MOVABLE_MASK) == GFP_MOVABLE_MASK;
}

/*
 * allocflags_to_migratetype: bit 1 MOVABLE, bit 0 RECLAIMABLE; never both
 * (gfp_mobility_bad), so one of the three pcp types.
 */
static inline int allocflags_to_migratetype(const struct mpm_machine *m, mpm_gfp_t gfp)
{
	if (unlikely(m->page_group_by_mobility_disabled))
		return MIGRATE_UNMOVABLE;
	return (((gfp & MPM___GFP_MOVABLE) != 0) << 1) |
	       ((gfp & MPM___GFP_RECLAIMABLE) != 0);
}

#endif /* MPM_CORE_GFP_H */
