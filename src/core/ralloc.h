/* SPDX-License-Identifier: MIT */
/*
 * The region allocator (patches 16-30, 32, 33; feature region_allocator):
 * per zone, whole free memory regions held back from the buddy free lists.
 *
 * A region enters it from the free path when it is entirely free, and all
 * its free pages are MAX_ORDER-1 blocks on the one free list the freed block
 * just joined (can_return_region); all those blocks move in one splice
 * (del_from_freelist_bulk).  It leaves when __rmqueue finds its migratetype's
 * lists empty: the lowest held region (ralloc_bias) moves back into that
 * type's MAX_ORDER-1 list in one splice (add_to_freelist_bulk), before any
 * fallback to another type's lists.  The region's blocks then take the type
 * (their freepage migratetype, patch 27, and their pageblocks', patch 32).
 *
 * Held pages stay free: NR_FREE_PAGES and the zone region's nr_free count
 * them, free_area[].nr_free and the per-type counts do not.  Held blocks
 * keep PG_buddy and their order; a MAX_ORDER-1 block is in the allocator
 * iff its region's nr_free is non-zero (page_in_region_allocator, patch
 * 28): the allocator holds whole regions.  Smaller blocks are never held;
 * pieces of the straddling block headed in the region below may be on
 * the free lists, filed under a held region by their heads (sorted.h).
 *
 * "Whole region" means, as in the patch, the MAX_ORDER-1 blocks whose head
 * page lies in the region, less windows that are wholly a hole.  Where
 * region boundaries are not MAX_ORDER-1 aligned (node-relative regions on
 * x86 start at pfn 1) those blocks are offset from the region by up to a
 * block: the last one reaches into the next region and the region's first
 * pages belong to the previous region's last block.  The patch counts a
 * block's pages in its head's region (patch 12) and so never sees the
 * offset; our per-region free counts are exact per page, so the return test
 * is made on the sorted lists' block counts, which are by head
 * (can_return_region): the region's MAX_ORDER-1 blocks all on the one list,
 * and no smaller block headed in the region.  While a piece of the
 * straddling block from below is free, headed in the region, the patch's
 * nr_free exceeds present_pages and the region stays out; once held, such
 * pieces may be freed onto the lists.  A held region is free in the exact
 * sense only when the straddling block headed in the region below is free
 * too.
 */
#ifndef MPM_CORE_RALLOC_H
#define MPM_CORE_RALLOC_H

#include "sorted.h"

/* struct mem_region of patch 16, reduced to the one order it ever holds. */
struct ra_region {
	uint32_t list;		/* sentinel: the region's MAX_ORDER-1 blocks */
	uint32_t nr_free;	/* blocks held; 0: the region is not held */
	uint32_t nr_blocks;	/* MAX_ORDER-1 blocks whose head page is in the region */
	uint64_t first_block;	/* pfn of the first of them */
	uint8_t mt;		/* held: the list it came from, every block's freepage_mt */
	bool sparse;		/* a hole lies between them: not one run of pageblocks */
	/*
	 * The pageblock type that claim_region_blocks gave all of the region's
	 * pageblocks, while none has changed since (set_pageblock_migratetype
	 * resets it, ralloc_pageblock_changed); PB_MT_UNKNOWN otherwise.  A
	 * region that goes back out as the type it came in as needs no stores.
	 */
	int8_t pb_mt;
};

#define PB_MT_UNKNOWN	(-1)

/* Region-allocator events, per zone, under zone->lock. */
enum ra_event {
	RA_PA_TO_RA,		/* regions returned by the page allocator */
	RA_RA_TO_PA,		/* regions handed to the page allocator */
	RA_CACHE_HITS,		/* returns refused to keep a list's last region (patch 33) */
	RA_MOVE_FREEPAGES,	/* regions pulled out by move_freepages (patch 30) */
	NR_RA_EVENTS
};

struct region_allocator {
	struct ra_region *region;	/* [zone->nr_regions] */
	struct region_bitmap mask;	/* ralloc_mask: held regions */
	uint64_t *mask_mem;
	uint32_t *stack;		/* without ralloc_bias: held regions, latest last */
	uint32_t nr_stack;
	_Atomic uint32_t nr_held;	/* regions held; read unlocked by mpm_counters */
	long next_region;		/* the region handed out next; -1: none held */
	_Atomic uint64_t nr_pages;	/* pages held; read unlocked by mpm_counters */
	_Atomic uint64_t ev[NR_RA_EVENTS];
};

/* ralloc.c */
int region_allocator_init(struct mpm_machine *m, struct zone *z);
void region_allocator_destroy(struct zone *z);
void ra_region_geometry(const struct mpm_machine *m, const struct zone *z, uint32_t rid,
			struct ra_region *r);
uint64_t region_allocator_sentinels(const struct mpm_machine_spec *s, unsigned int region_shift);
bool try_return_region(struct mpm_machine *m, struct zone *z, uint32_t idx,
		       unsigned int order, int mt);
int del_from_region_allocator(struct mpm_machine *m, struct zone *z, int mt);
void __del_from_region_allocator(struct mpm_machine *m, struct zone *z, int mt,
				 uint32_t rid);

/* page_in_region_allocator (patch 28): a held region holds all its blocks. */
static inline bool page_in_region_allocator(const struct zone *z, uint32_t idx,
					    unsigned int order)
{
	return z->ralloc && order == MAX_ORDER - 1 &&
	       z->ralloc->region[block_region(z->sorted, idx)].nr_free;
}

#endif /* MPM_CORE_RALLOC_H */
