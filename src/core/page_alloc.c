// SPDX-License-Identifier: MIT
/*
 * The buddy allocator proper, rule for rule as mm/page_alloc.c of Linux 3.12:
 * __rmqueue_smallest, expand, __rmqueue_fallback with fallbacks[] and
 * try_to_steal_freepages, __rmqueue with MIGRATE_RESERVE as last resort,
 * __free_one_page with buddy merging and the "next-higher buddy is free: add
 * to the tail" heuristic, move_freepages(_block).  All of it runs under
 * zone->lock.
 */
#include "freelist.h"
#include "ralloc.h"
#include "mempower_work.h"

/*
 * fallbacks[]: the order in which other migratetypes' free lists are raided
 * when a type runs dry (3.12, without CMA).  RESERVE ends each row.
 */
static const int fallbacks[MIGRATE_TYPES][MIGRATE_TYPES - 1] = {
	[MIGRATE_UNMOVABLE]   = { MIGRATE_RECLAIMABLE, MIGRATE_MOVABLE, MIGRATE_RESERVE },
	[MIGRATE_RECLAIMABLE] = { MIGRATE_UNMOVABLE, MIGRATE_MOVABLE, MIGRATE_RESERVE },
	[MIGRATE_MOVABLE]     = { MIGRATE_RECLAIMABLE, MIGRATE_UNMOVABLE, MIGRATE_RESERVE },
	[MIGRATE_RESERVE]     = { MIGRATE_RESERVE },	/* never used */
	[MIGRATE_ISOLATE]     = { MIGRATE_RESERVE },	/* never used */
};

static inline uint32_t list_first(const struct mpm_machine *m, uint32_t head)
{
	return m->pages[head].next;
}

/*
 * expand: split a block of order @high down to @low, putting each unused
 * upper half on the free list of @migratetype, largest first.  The halves'
 * pages stay free: the caller accounts only for the 2^@low it hands out.
 * @sorted: the zone's list discipline, a constant in the hot copies
 * (add_to_freelist_pos()).
 */
static inline __attribute__((always_inline)) void
expand(struct mpm_machine *m, struct zone *z, uint32_t idx, unsigned int low,
       unsigned int high, int migratetype, bool sorted)
{
	struct mpm_page *pg = m->pages;
	uint32_t size = 1u << high;

	if (high == low)
		return;
	ADD_ONCE(z->ev[ZEV_SPLITS], high - low);
	while (high > low) {
		high--;
		size >>= 1;
		add_to_freelist_pos(pg, z, idx + size, high, migratetype, false, sorted);
		ADD_ONCE(z->free_area[high].nr_free, 1);
	}
}

/*
 * region_bias (patch 15): the first non-empty order @cur has a block, but a
 * higher order may have one in a strictly lower region; split that instead,
 * so that allocation spills into a new region only when no lower region has
 * enough contiguous memory.  Empty lists have next_region NO_REGION.
 *
 * The patch scans the orders above @cur on every call; the answer, the
 * lowest (next_region, order) among the orders >= @cur, is kept in
 * bias_order and refreshed only where next_region changed since the last
 * allocation (sorted.h), so this is usually a lookup.
 */
static inline unsigned int region_bias_order(struct zone *z, unsigned int cur,
					     int migratetype)
{
	unsigned int alloc_order = bias_order_of(z->sorted, migratetype, cur);

	if (alloc_order != cur)
		ADD_ONCE(z->ev[ZEV_REGION_BIAS], 1);
	return alloc_order;
}

/*
 * evac_trigger_alloc: patch 40's trigger sits at the end of add_to_freelist,
 * which expand() calls for each half it puts back, largest first (order k
 * at @idx + 2^k, k = @cur-1 down to @order).  Tested here once the
 * allocation's counts are final, each half as its own add saw them: the
 * halves below it, [@idx + 2^@order, @idx + 2^k), were not back yet, and
 * those of their pages in the half's region count as used.  (The final
 * count alone is not that: a region a block straddles into can go from a
 * few used pages at one add to none at the last, and none never queues.)
 * Nothing when @cur is @order: the caller need not test for a split.
 */
static __attribute__((noinline)) void evac_trigger_halves(struct mpm_machine *m, struct zone *z,
							  uint32_t idx, unsigned int order,
							  unsigned int cur)
{
	uint64_t base = idx_to_pfn(m, idx), low = base + (1ull << order);

	for (unsigned int k = cur; k-- > order;) {
		uint64_t half = base + (1ull << k);
		const struct zone_mem_region *r = &z->regions[pfn_zone_region_id(m, z, half)];
		uint64_t from = low > r->start_pfn ? low : r->start_pfn;
		uint64_t to = half < r->end_pfn ? half : r->end_pfn;

		evac_trigger_out(m, z, idx + (1u << k), to > from ? to - from : 0);
	}
}

static inline bool trigger_on_alloc(const struct mpm_machine *m, const struct zone *z)
{
	return unlikely(m->features & MPM_FEATURE_EVAC_TRIGGER_ALLOC) && z->mpw;
}

/*
 * Take the first block of the smallest order that fits from one list.
 * @sorted: the zone's list discipline; region_bias needs sorted lists
 * (mpm_machine_create refuses it without), so mainline's copy has none.
 */
static inline __attribute__((always_inline)) uint32_t
__rmqueue_smallest(struct mpm_machine *m, struct zone *z, unsigned int order,
		   int migratetype, bool sorted)
{
	struct mpm_page *pg = m->pages;

	for (unsigned int cur = order; cur < MAX_ORDER; cur++) {
		struct free_area *area = &z->free_area[cur];
		uint32_t head = area->free_list[migratetype];
		uint32_t idx, next;

		if (list_empty(pg, head))
			continue;
		if (sorted && (m->features & MPM_FEATURE_REGION_BIAS)) {
			cur = region_bias_order(z, cur, migratetype);
			area = &z->free_area[cur];
			head = area->free_list[migratetype];
		}
		idx = pg[head].next;
		next = pg[idx].next;
		/*
		 * A free list is a chain of dependent loads, and a refill pops
		 * up to a batch of blocks back to back, a third of them long
		 * cold.  Start the misses of the next block, which becomes the
		 * head, and of the one this block's hint names: two on
		 * (set_buddy_hint()), or BUDDY_HINT_RING on for most blocks of
		 * mainline's order-0 lists (push_buddy_hint()), so that many
		 * misses are in flight instead of one, without waiting for
		 * each line to learn the next.
		 */
		__builtin_prefetch(&pg[next], 1);
		__builtin_prefetch(&pg[pg[idx].private], 1);
		/* on free_list[migratetype], so its freepage_mt is migratetype */
		__rmqueue_del_from_freelist(pg, z, idx, cur, migratetype, sorted);
		ADD_ONCE(area->nr_free, -1ul);
		expand(m, z, idx, order, cur, migratetype, sorted);
		account_freepages(m, z, idx, order, migratetype, -1);
		/* add_to_freelist is the sorted lists' (evac_trigger_alloc needs them) */
		if (sorted && trigger_on_alloc(m, z))
			evac_trigger_halves(m, z, idx, order, cur);
		return idx;
	}
	return UINT32_MAX;
}

/*
 * move_freepages: move every free block that starts in [start, end] to the
 * free lists of @migratetype.  Returns the number of pages moved.
 */
static int move_freepages(struct mpm_machine *m, struct zone *z, uint64_t start,
			  uint64_t end, int migratetype)
{
	int pages_moved = 0;

	for (uint64_t pfn = start; pfn <= end;) {
		uint32_t idx = pfn_to_idx(m, pfn);
		const struct mpm_page *page = &m->pages[idx];
		unsigned int order;

		if (!(READ_ONCE(page->flags) & PG_buddy)) {
			pfn++;
			continue;
		}
		order = READ_ONCE(page->order);
		/*
		 * patch 30: a block of the region allocator brings its whole
		 * region to the MOVABLE lists first; then try this pfn again
		 */
		if (page_in_region_allocator(z, idx, order)) {
			__del_from_region_allocator(m, z, MIGRATE_MOVABLE,
						    block_region(z->sorted, idx));
			ADD_ONCE(z->ralloc->ev[RA_MOVE_FREEPAGES], 1);
			continue;
		}
		move_page_freelist(m, z, idx, order, migratetype);
		/*
		 * evac_trigger_alloc: the move's add_to_freelist (patch 40 as
		 * coded), unless it returned the region to the region allocator
		 */
		if (trigger_on_alloc(m, z) && !page_in_region_allocator(z, idx, order))
			evac_trigger(m, z, idx);
		pfn += 1ull << order;
		pages_moved += 1 << order;
	}
	return pages_moved;
}

int move_freepages_block(struct mpm_machine *m, struct zone *z, uint64_t pfn,
			 int migratetype)
{
	uint64_t start = pfn & ~(uint64_t)(pageblock_nr_pages(m) - 1);
	uint64_t end = start + pageblock_nr_pages(m) - 1;

	/* Do not cross zone boundaries */
	if (!zone_spans_pfn(z, start))
		start = pfn;
	if (!zone_spans_pfn(z, end))
		return 0;
	return move_freepages(m, z, start, end, migratetype);
}

static void change_pageblock_range(struct mpm_machine *m, struct zone *z,
				   uint64_t pfn, unsigned int start_order,
				   int migratetype)
{
	int nr_pageblocks = 1 << (start_order - m->pageblock_order);

	while (nr_pageblocks--) {
		if (get_pageblock_migratetype(m, z, pfn) != migratetype)
			ADD_ONCE(z->ev[ZEV_PAGEBLOCK_CLAIMS], 1);
		set_pageblock_migratetype(m, z, pfn, migratetype);
		pfn += pageblock_nr_pages(m);
	}
}

static void claim_pageblock(struct mpm_machine *m, struct zone *z, uint64_t pfn,
			    int start_type)
{
	if (get_pageblock_migratetype(m, z, pfn) != start_type)
		ADD_ONCE(z->ev[ZEV_PAGEBLOCK_CLAIMS], 1);
	set_pageblock_migratetype(m, z, pfn, start_type);
}

/*
 * try_to_steal_freepages: when falling back to another type's free list,
 * decide whether the allocating type takes the pageblock over.  Returns the
 * type the pageblock now has for this allocation: @start_type if it was
 * taken, @fallback_type if not (3.12 only traces it; here it counts the
 * fallbacks that did not take ownership).
 */
static int try_to_steal_freepages(struct mpm_machine *m, struct zone *z,
				  uint32_t idx, int start_type, int fallback_type)
{
	unsigned int current_order = READ_ONCE(m->pages[idx].order);
	uint64_t pfn = idx_to_pfn(m, idx);

	/*
	 * no_claim (patch 31): only _loan_ the free pages of the fallback
	 * type, never _own_ the pageblock -- both ownership rules below go,
	 * moving the pageblock's free blocks stays.
	 */
	if (m->features & MPM_FEATURE_NO_CLAIM) {
		if (current_order >= m->pageblock_order / 2 ||
		    start_type == MIGRATE_RECLAIMABLE ||
		    m->page_group_by_mobility_disabled)
			move_freepages_block(m, z, pfn, start_type);
		return fallback_type;
	}

	/* Take ownership for orders >= pageblock_order */
	if (current_order >= m->pageblock_order) {
		change_pageblock_range(m, z, pfn, current_order, start_type);
		return start_type;
	}

	if (current_order >= m->pageblock_order / 2 ||
	    start_type == MIGRATE_RECLAIMABLE ||
	    m->page_group_by_mobility_disabled) {
		int pages = move_freepages_block(m, z, pfn, start_type);

		/* Claim the whole block if over half of it is free */
		if (pages >= (1 << (m->pageblock_order - 1)) ||
		    m->page_group_by_mobility_disabled) {
			claim_pageblock(m, z, pfn, start_type);
			return start_type;
		}
	}
	return fallback_type;
}

/* Remove an element from the buddy allocator from the fallback list. */
static uint32_t __rmqueue_fallback(struct mpm_machine *m, struct zone *z,
				   unsigned int order, int start_migratetype)
{
	/* Find the largest possible block of pages in the other list */
	for (int cur = MAX_ORDER - 1; cur >= (int)order; cur--) {
		struct free_area *area = &z->free_area[cur];

		for (int i = 0;; i++) {
			int mt = fallbacks[start_migratetype][i];
			uint32_t head, idx;
			int new_type;

			/* MIGRATE_RESERVE handled later if necessary */
			if (mt == MIGRATE_RESERVE)
				break;
			head = area->free_list[mt];
			if (list_empty(m->pages, head))
				continue;

			idx = list_first(m, head);
			ADD_ONCE(area->nr_free, -1ul);
			new_type = try_to_steal_freepages(m, z, idx,
							  start_migratetype, mt);
			/* Remove the page from the freelists */
			del_from_freelist(m, z, idx, (unsigned int)cur);
			/*
			 * Borrow the excess buddy pages as well, whether or not
			 * the pageblock was taken (3.12.0, and the base of the
			 * patchset: with no_claim's loans too).  Later kernels
			 * hand it to new_type instead (KOSAKI Motohiro's "mm:
			 * __rmqueue_fallback() should respect pageblock type",
			 * posted after 3.12).
			 */
			expand(m, z, idx, order, (unsigned int)cur, start_migratetype,
			       z->sorted != NULL);
			/* the split-off remainder is free on start_migratetype's lists */
			if ((unsigned int)cur > order) {
				account_freepages(m, z, idx, (unsigned int)cur, start_migratetype, 1);
				account_freepages(m, z, idx, order, start_migratetype, -1);
				if (trigger_on_alloc(m, z))
					evac_trigger_halves(m, z, idx, order, (unsigned int)cur);
			}

			ADD_ONCE(z->ev[ZEV_FALLBACKS], 1);
			if (new_type != start_migratetype)
				ADD_ONCE(z->ev[ZEV_FRAGMENTING], 1);
			return idx;
		}
	}
	return UINT32_MAX;
}

/*
 * The rest of __rmqueue once @migratetype's own lists are empty: other
 * types' lists, then MIGRATE_RESERVE.  Out of line, so that the common case
 * is a short function.
 */
static __attribute__((noinline)) uint32_t
__rmqueue_fallback_reserve(struct mpm_machine *m, struct zone *z, unsigned int order,
			   int migratetype)
{
	uint32_t idx;

	/* the reserve's own lists are empty: nothing is left to try */
	if (migratetype == MIGRATE_RESERVE)
		return UINT32_MAX;
	/*
	 * patch 26: a whole region from the region allocator before any
	 * other type's lists; it fills this type's MAX_ORDER-1 list
	 */
	while (z->ralloc && !del_from_region_allocator(m, z, migratetype)) {
		idx = __rmqueue_smallest(m, z, order, migratetype, true);
		if (idx != UINT32_MAX)
			return idx;
	}
	idx = __rmqueue_fallback(m, z, order, migratetype);
	if (idx != UINT32_MAX)
		return idx;
	/* Use MIGRATE_RESERVE rather than fail an allocation. */
	idx = __rmqueue_smallest(m, z, order, MIGRATE_RESERVE, z->sorted != NULL);
	if (idx != UINT32_MAX)
		ADD_ONCE(z->ev[ZEV_RESERVE_ALLOCS], 1);
	return idx;
}

/*
 * __rmqueue: do the hard work of removing an element from the buddy
 * allocator.  Call me with the zone->lock already held.
 */
uint32_t __rmqueue(struct mpm_machine *m, struct zone *z, unsigned int order,
		   int migratetype)
{
	/* one copy per list discipline: see add_to_freelist_pos() */
	uint32_t idx = z->sorted ? __rmqueue_smallest(m, z, order, migratetype, true) :
				   __rmqueue_smallest(m, z, order, migratetype, false);

	if (unlikely(idx == UINT32_MAX))
		return __rmqueue_fallback_reserve(m, z, order, migratetype);
	if (unlikely(migratetype == MIGRATE_RESERVE))
		ADD_ONCE(z->ev[ZEV_RESERVE_ALLOCS], 1);
	return idx;
}

/* page_is_buddy: @buddy is the free head of an order-@order block of @z. */
static inline bool page_is_buddy(const struct mpm_page *buddy, const struct zone *z,
				 unsigned int order)
{
	return (READ_ONCE(buddy->flags) & PG_buddy) && READ_ONCE(buddy->order) == order &&
	       buddy->zone == z->id;
}

/*
 * The cheapest test of region_is_evac_candidate (patch 40) first, inline:
 * should_evacuate_region's used <= threshold, on the region of the block
 * add_to_freelist just took -- by its head page, as the patch's
 * page_zone_region_id(page).  Almost every free is into a region far
 * fuller than 32 pages and stops here; evac_trigger() checks the rest out
 * of line.
 */
static inline bool region_few_used(const struct mpm_machine *m,
				   const struct zone_mem_region *r)
{
	return r->present_pages - r->nr_free <= m->evac_threshold;
}

/*
 * __free_one_page: free a block and merge it with its buddies as far as
 * they are free, then put it on the free list of @migratetype -- at the tail
 * when the buddy of the next-higher order is free, since the block is then
 * likely to merge soon and should not be handed out first.  One body, a
 * copy per list discipline @sorted (the region allocator needs sorted
 * lists, so mainline's copy has no PA => RA test either).
 */
static inline __attribute__((always_inline)) void
free_one_page_body(struct mpm_machine *m, struct zone *z, uint32_t idx, unsigned int order,
		   int migratetype, bool sorted)
{
	/* loaded once: the relaxed atomic stores below would make them reloads */
	struct mpm_page *pg = m->pages;
	uint64_t pfn_base = m->pfn_base;
	uint64_t pfn = pfn_base + idx;
	uint64_t buddy_pfn = pfn;
	unsigned int freed_order = order;
	uint32_t freed_idx = idx;
	struct zone_mem_region *region;

	while (order < MAX_ORDER - 1) {
		uint32_t bidx;
		int bmt;

		buddy_pfn = pfn ^ (1ull << order);
		bidx = (uint32_t)(buddy_pfn - pfn_base);
		if (!page_is_buddy(&pg[bidx], z, order))
			break;
		/* the buddy's pages stay free: only its type's count moves */
		bmt = pg[bidx].freepage_mt;
		__del_from_freelist(pg, z, bidx, order, bmt, sorted);
		ADD_ONCE(z->nr_free_mt[bmt], -(1l << order));
		ADD_ONCE(z->free_area[order].nr_free, -1ul);
		pfn &= buddy_pfn;
		order++;
	}
	if (order > freed_order)
		ADD_ONCE(z->ev[ZEV_MERGES], order - freed_order);
	idx = (uint32_t)(pfn - pfn_base);

	if (order < MAX_ORDER - 2) {
		uint64_t higher_pfn = pfn & buddy_pfn;
		uint64_t higher_buddy = higher_pfn ^ (1ull << (order + 1));

		if (page_is_buddy(&pg[(uint32_t)(higher_buddy - pfn_base)], z, order + 1)) {
			add_to_freelist_pos(pg, z, idx, order, migratetype, true, sorted);
			goto out;
		}
	}
	add_to_freelist_pos(pg, z, idx, order, migratetype, false, sorted);
out:
	ADD_ONCE(z->free_area[order].nr_free, 1);
	/* the merged block on @migratetype's list; the freed pages in their regions */
	ADD_ONCE(z->nr_free_mt[migratetype], 1l << order);
	region = region_add_free(m, z, idx_to_pfn(m, freed_idx), freed_order);
	/* patch 25: the PA => RA flow, once every count is up to date */
	if (sorted && z->ralloc && order == MAX_ORDER - 1 &&
	    try_return_region(m, z, idx, order, migratetype))
		return;
	/* patch 40: a region not returned may be worth evacuating */
	if (z->mpw && (m->features & MPM_FEATURE_EVAC_TRIGGERS)) {
		/* the block's region: the freed page's (a cache-hot line) unless merged */
		if (order > freed_order)
			region = &z->regions[pfn_zone_region_id(m, z, pfn)];
		if (region_few_used(m, region))
			evac_trigger(m, z, idx);
	}
}

void __free_one_page(struct mpm_machine *m, struct zone *z, uint32_t idx,
		     unsigned int order, int migratetype)
{
	if (z->sorted)
		free_one_page_body(m, z, idx, order, migratetype, true);
	else
		free_one_page_body(m, z, idx, order, migratetype, false);
}

/* free_one_page: one block straight to the buddy lists, under the lock. */
void free_one_page(struct mpm_machine *m, struct zone *z, uint32_t idx,
		   unsigned int order, int migratetype)
{
	spin_lock(&z->lock);
	__free_one_page(m, z, idx, order, migratetype);
	if (likely(migratetype != MIGRATE_ISOLATE))
		ADD_ONCE(z->vm_free_pages, 1l << order);
	spin_unlock(&z->lock);
}
