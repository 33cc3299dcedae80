/* SPDX-License-Identifier: MIT */
/*
 * Region-sorted buddy free lists (patches 05, 06, 09 and 11 of the series;
 * feature sorted_freelists).
 *
 * Every free list keeps its blocks sorted by zone region, lowest region at
 * the head, so that __rmqueue_smallest(), which always takes the head,
 * allocates from the lowest region that has a block of the order.  Per free
 * list and zone region a mem_region_list remembers the region's last block
 * in the list (page_block) and its number of blocks (nr_free); next_region
 * is the region of the head block.  The sorting happens on the free path:
 *
 *  - add_to_freelist: a region already in the list takes the new block just
 *    before its page_block (list_add_tail(lru, region->page_block)), so the
 *    region stays contiguous; a region's first block goes right after the
 *    previous populated region's page_block, found with find_prev_region()
 *    (region_bitmap.h), or at the head -- and becomes next_region -- when no
 *    lower region is in the list.
 *  - rmqueue_del_from_freelist (patch 09): allocation deletes the head, so
 *    only next_region's count moves; when it reaches zero next_region
 *    becomes the region of the new head.
 *  - del_from_freelist: a block deleted from the middle moves its region's
 *    page_block back one entry if it was that block.
 *
 * A block belongs to the region of its head page (page_zone_region_id,
 * block_region()), with or without the region allocator.  Counts here are
 * of blocks; the per-region *page* counts that decide
 * whether a region is free live in region.h, in every policy.
 *
 * The bookkeeping hangs off zone->sorted, NULL in policies without the
 * feature; the free list functions of freelist.h branch on it.
 */
#ifndef MPM_CORE_SORTED_H
#define MPM_CORE_SORTED_H

#include "mmzone.h"
#include "region_bitmap.h"

#define NO_REGION	UINT32_MAX	/* next_region of an empty list */
#define NO_BLOCK	UINT32_MAX	/* page_block of a region not in the list */

/* struct mem_region_list of patch 05: one zone region within one free list. */
struct mem_region_list {
	uint32_t page_block;	/* the region's last block in the list, or NO_BLOCK */
	uint32_t nr_free;	/* blocks of the region in the list */
};

/*
 * The region bookkeeping of one free list: its bitmap, and its
 * mem_region_lists, one per zone region, as the patch's
 * mr_list[MAX_NR_ZONE_REGIONS] but sized at run time.  64 bytes on LP64,
 * a power of two, so that &fl[order][mt] is a shift; with the array's
 * address in the struct, a region's entry is one load and one lea from
 * the list, where a single array indexed by region, type and order took a
 * chain of multiplies per lookup (docs/benchmarks-log.md, "Fewer instructions
 * on the sorted lists").
 */
struct free_list_regions {
	struct region_bitmap map;		/* regions with blocks in the list */
	struct mem_region_list *mr;		/* [zone region id] */
};
_Static_assert((sizeof(struct free_list_regions) & (sizeof(struct free_list_regions) - 1)) == 0,
	       "&fl[order][mt] is a shift");

struct sorted_free_lists {
	/*
	 * next_region of each list, by migratetype then order: the bias of
	 * __rmqueue_smallest (patch 15) compares one type's orders, which then
	 * share a cache line.  NO_REGION when the list is empty.
	 */
	uint32_t next_region[MIGRATE_TYPES][MAX_ORDER];
	/*
	 * bias_order[mt][o]: of the orders >= o, the one with the lowest
	 * next_region (the lowest such order on a tie) -- what region_bias
	 * finds by scanning up from o.  Valid above bias_stale[mt], the
	 * highest order whose next_region changed since (-1: all valid);
	 * __rmqueue_smallest refreshes what it needs.  A split or a run of
	 * merges changes several orders' next_region, so refreshing once per
	 * allocation instead of once per change keeps the free path cheap.
	 */
	uint8_t bias_order[MIGRATE_TYPES][MAX_ORDER];
	int8_t bias_stale[MIGRATE_TYPES];
	struct free_list_regions fl[MAX_ORDER][MIGRATE_TYPES];
	/*
	 * page index -> zone region id, without the machine: see block_region().
	 * pfn_base - zone->region_base_pfn - (first_node_region << region_shift),
	 * mod 2^64: the zone's first region starts at offset 0.
	 */
	uint64_t idx_to_zone_region;
	unsigned int region_shift;
	struct mem_region_list *mr_mem;		/* every list's mr[], list by list */
	uint64_t *bitmap_mem;			/* one allocation for every bitmap */
};

/* sorted.c */
int sorted_free_lists_init(struct mpm_machine *m, struct zone *z);
void sorted_free_lists_destroy(struct zone *z);

/* free_list[@mt] of @order's mem_region_list for zone region @rid. */
static inline struct mem_region_list *mr_list_of(const struct sorted_free_lists *s,
						 unsigned int order, int mt, uint32_t rid)
{
	return &s->fl[order][mt].mr[rid];
}

/*
 * The zone region of the block at page index @idx: the region of its head
 * page, page_zone_region_id() as patches 06 and 09 file every block, with
 * or without the region allocator.  Where region boundaries are not
 * MAX_ORDER-1 aligned (node-relative regions start at pfn 1 on x86) a
 * MAX_ORDER-1 block straddles two regions, and the pieces split off it are
 * filed under whichever region their own head falls in -- possibly a
 * region the region allocator holds, which only ever deals in MAX_ORDER-1
 * blocks ("We keep only MAX_ORDER-1 pages in the region allocator", patch
 * 28) and so never misses them (docs/patchset-rules.md).
 */
static inline uint32_t block_region(const struct sorted_free_lists *s, uint32_t idx)
{
	/* ((idx + o) >> shift) - first, as the offset is first << shift short */
	return (uint32_t)((idx + s->idx_to_zone_region) >> s->region_shift);
}

/*
 * Refresh bias_order[@mt][@cur..bias_stale]: each entry is the better of
 * its own order and the entry above, from the highest stale order down.
 * Entries below @cur stay stale until an allocation needs them.
 */
static inline void refresh_bias_order(struct sorted_free_lists *s, int mt, unsigned int cur)
{
	const uint32_t *next_region = s->next_region[mt];
	uint8_t *bias = s->bias_order[mt];
	int stale = s->bias_stale[mt];
	unsigned int best = stale < MAX_ORDER - 1 ? bias[stale + 1] : (unsigned int)stale;
	uint32_t best_rid = next_region[best];

	/* the best key rides in a register: no load depends on the last compare */
	for (int o = stale; o >= (int)cur; o--) {
		uint32_t rid = next_region[o];

		if (rid <= best_rid) {
			best = (unsigned int)o;
			best_rid = rid;
		}
		bias[o] = (uint8_t)best;
	}
	s->bias_stale[mt] = (int8_t)((int)cur - 1);
}

/* bias_order[@mt][@cur], refreshed first if a change made it stale. */
static inline unsigned int bias_order_of(struct sorted_free_lists *s, int mt, unsigned int cur)
{
	if (s->bias_stale[mt] >= (int)cur)
		refresh_bias_order(s, mt, cur);
	return s->bias_order[mt][cur];
}

/* next_region of free_list[@mt] of @order becomes @rid. */
static inline void set_next_region(struct sorted_free_lists *s, int mt, unsigned int order,
				   uint32_t rid)
{
	s->next_region[mt][order] = rid;
	if ((int)order > s->bias_stale[mt])
		s->bias_stale[mt] = (int8_t)order;
}

/*
 * add_to_freelist (patches 06 and 11): link @idx in region order.  Forced
 * inline, like rmqueue_del_from_freelist below: they are called only from
 * the sorted copies of the buddy paths (add_to_freelist_pos()), where a call
 * and a stack frame per split or merge level would cost more than the work.
 */
static inline __attribute__((always_inline)) void
sorted_add_to_freelist(struct mpm_page *pg, struct zone *z, uint32_t idx,
		       unsigned int order, int mt)
{
	struct sorted_free_lists *s = z->sorted;
	struct free_list_regions *fl = &s->fl[order][mt];
	uint32_t rid = block_region(s, idx);
	struct mem_region_list *region = mr_list_of(s, order, mt, rid);
	uint32_t prev_block;
	long prev;

	if (region->nr_free++) {
		uint32_t last = pg[region->page_block].prev;

		/* before the region's last block: the region stays contiguous */
		__list_add(pg, idx, last, region->page_block);
		/*
		 * A region's blocks pop in the order they were linked, its
		 * page_block last, so set_buddy_hint()'s "two on as linked"
		 * goes stale as later blocks are linked in front of the
		 * page_block.  The block two before @idx pops two pops before
		 * it: its hint now names @idx.  @last's line is one the link
		 * writes anyway, and the block before it was written when
		 * @last was linked.  With four blocks or more both are the
		 * region's own, never the list head.
		 */
		if (region->nr_free > 3)
			WRITE_LINK(pg[pg[last].prev].private, idx);
		return;
	}
	/* an empty list has no previous region to search for */
	prev = list_empty(pg, z->free_area[order].free_list[mt]) ? -1 :
	       find_prev_region(&fl->map, rid);
	if (prev >= 0) {
		prev_block = mr_list_of(s, order, mt, (uint32_t)prev)->page_block;
	} else {
		/* This is the first region, so add to the head of the list */
		prev_block = z->free_area[order].free_list[mt];
		set_next_region(s, mt, order, rid);
	}
	list_add(pg, idx, prev_block);
	region->page_block = idx;
	set_region_bit(&fl->map, rid);
}

/* set_next_region_in_freelist: the region of the list's new head block. */
static inline void set_next_region_in_freelist(struct mpm_page *pg,
					       struct zone *z, unsigned int order, int mt)
{
	uint32_t head = z->free_area[order].free_list[mt];
	uint32_t first = pg[head].next;

	set_next_region(z->sorted, mt, order,
			first == head ? NO_REGION : block_region(z->sorted, first));
}

/*
 * rmqueue_del_from_freelist (patch 09): unlink the head block @idx.  Only
 * next_region's bookkeeping can change, and the new head's region is its
 * index's: no page is touched for it.
 */
static inline __attribute__((always_inline)) void
rmqueue_del_from_freelist(struct mpm_page *pg, struct zone *z, uint32_t idx,
			  unsigned int order, int mt)
{
	struct sorted_free_lists *s = z->sorted;
	struct free_list_regions *fl = &s->fl[order][mt];
	uint32_t rid = s->next_region[mt][order];
	struct mem_region_list *region = mr_list_of(s, order, mt, rid);

	list_del(pg, idx);
	if (--region->nr_free)
		return;
	/* the region's last block in this list */
	region->page_block = NO_BLOCK;
	clear_region_bit(&fl->map, rid);
	set_next_region_in_freelist(pg, z, order, mt);
}

/* del_from_freelist: unlink @idx from anywhere in its list. */
static inline __attribute__((always_inline)) void
sorted_del_from_freelist(struct mpm_page *pg, struct zone *z, uint32_t idx,
			 unsigned int order, int mt)
{
	struct free_list_regions *fl = &z->sorted->fl[order][mt];
	uint32_t rid, prev = pg[idx].prev;
	struct mem_region_list *region;

	/* Try to fastpath, if deleting from the head of the list */
	if (prev == z->free_area[order].free_list[mt]) {
		rmqueue_del_from_freelist(pg, z, idx, order, mt);
		return;
	}
	rid = block_region(z->sorted, idx);
	region = mr_list_of(z->sorted, order, mt, rid);
	list_del(pg, idx);
	--region->nr_free;
	if (idx != region->page_block)
		return;
	if (region->nr_free) {
		region->page_block = prev;
	} else {
		region->page_block = NO_BLOCK;
		clear_region_bit(&fl->map, rid);
	}
}

#endif /* MPM_CORE_SORTED_H */
