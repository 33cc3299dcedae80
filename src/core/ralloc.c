// SPDX-License-Identifier: MIT
/*
 * The region allocator and the flows between it and the page allocator
 * (patches 16-30, 32, 33); see ralloc.h.  Everything runs under zone->lock.
 *
 * Moving a region is two list splices, whatever its size: the region's
 * blocks are one contiguous run of a region-sorted free list, from the block
 * after the previous region's page_block to the region's own page_block.
 * On the way out patches 27 and 32 give every block the new freepage
 * migratetype and every pageblock the new pageblock migratetype, one store
 * per block.  The pageblock flags of a region are one contiguous run of
 * bytes (relaxed word stores, and none while they are as the region's last
 * claim left them); the freepage migratetypes are one store per block, 128
 * cache lines for a 512 MiB region, but only needed when the region changes
 * type: a held region remembers the list it came from, which is every one
 * of its blocks' freepage migratetype.
 */
#include <stdlib.h>
#include <string.h>

#include "freelist.h"
#include "ralloc.h"

/* Sentinels of the allocator's lists: at most one per zone region. */
uint64_t region_allocator_sentinels(const struct mpm_machine_spec *s, unsigned int region_shift)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < s->nr_zones; i++)
		n += ((s->zones[i].end_pfn - s->zones[i].start_pfn) >> region_shift) + 2;
	return n;
}

/* Whether the MAX_ORDER-1 window at @head is wholly a hole (PG_nomem). */
static bool window_is_hole(const struct mpm_machine *m, uint64_t head)
{
	for (uint64_t p = head; p < head + (1ull << (MAX_ORDER - 1)); p++)
		if (!(READ_ONCE(m->pages[pfn_to_idx(m, p)].flags) & PG_nomem))
			return false;
	return true;
}

/*
 * The MAX_ORDER-1 blocks of zone region @rid, from the page flags that
 * memmap_init_zone has set: the aligned windows whose head page lies in the
 * region and whose pages lie in the zone, less the windows that are wholly
 * a hole.  The patch's present_pages (patch 03) leaves holes out, so a
 * region whose holes are whole windows is "all free" when its other
 * windows are; a window only partly present still counts, and since it can
 * never be a free MAX_ORDER-1 block, its region never qualifies.  A zone
 * edge inside a window leaves a partial window, which never merges into a
 * MAX_ORDER-1 block: the region of its first pfn gets no blocks at all,
 * so is never returned.  Sets @r's first_block, nr_blocks and sparse.
 */
void ra_region_geometry(const struct mpm_machine *m, const struct zone *z, uint32_t rid,
			struct ra_region *r)
{
	const struct zone_mem_region *zr = &z->regions[rid];
	uint64_t size = 1ull << (MAX_ORDER - 1), end = zone_end_pfn(z);
	uint64_t head = (zr->start_pfn + size - 1) & ~(size - 1);
	uint64_t last = end & ~(size - 1);

	r->first_block = 0;
	r->nr_blocks = 0;
	r->sparse = false;
	for (; head < zr->end_pfn && head + size <= end; head += size) {
		if (window_is_hole(m, head))
			continue;
		if (!r->nr_blocks)
			r->first_block = head;
		else if (head != r->first_block + ((uint64_t)r->nr_blocks << (MAX_ORDER - 1)))
			r->sparse = true;
		r->nr_blocks++;
	}
	if (last < z->zone_start_pfn)
		last = z->zone_start_pfn;
	if (((z->zone_start_pfn & (size - 1)) &&
	     rid == pfn_zone_region_id(m, z, z->zone_start_pfn)) ||
	    ((end & (size - 1)) && rid == pfn_zone_region_id(m, z, last)))
		r->nr_blocks = 0;
}

int region_allocator_init(struct mpm_machine *m, struct zone *z)
{
	uint64_t words = region_bitmap_words(z->nr_regions, NULL);
	struct region_allocator *ra = calloc(1, sizeof(*ra));

	if (!ra)
		return -1;
	z->ralloc = ra;
	ra->region = calloc(z->nr_regions ? z->nr_regions : 1, sizeof(*ra->region));
	ra->mask_mem = calloc(words, sizeof(*ra->mask_mem));
	ra->stack = calloc(z->nr_regions ? z->nr_regions : 1, sizeof(*ra->stack));
	if (!ra->region || !ra->mask_mem || !ra->stack)
		return -1;
	region_bitmap_init(&ra->mask, ra->mask_mem, z->nr_regions);
	for (unsigned int r = 0; r < z->nr_regions; r++) {
		ra->region[r].list = alloc_list_head(m);
		list_init(m->pages, ra->region[r].list);
		ra->region[r].pb_mt = PB_MT_UNKNOWN;
		ra_region_geometry(m, z, r, &ra->region[r]);
	}
	ra->next_region = -1;
	m->metadata_bytes += sizeof(*ra) + z->nr_regions * (sizeof(*ra->region) +
							 sizeof(*ra->stack)) +
			     words * sizeof(*ra->mask_mem);
	return 0;
}

void region_allocator_destroy(struct zone *z)
{
	if (!z->ralloc)
		return;
	free(z->ralloc->region);
	free(z->ralloc->mask_mem);
	free(z->ralloc->stack);
	free(z->ralloc);
	z->ralloc = NULL;
}

/*
 * del_from_freelist_bulk (patch 18): cut region @rid's run of blocks out of
 * free_list[@mt] of @order into the empty list @to, in list order.
 * Returns the number of blocks.  The pages stay free.
 */
static uint32_t del_from_freelist_bulk(struct mpm_machine *m, struct zone *z,
				       unsigned int order, int mt, uint32_t rid, uint32_t to)
{
	struct mpm_page *pg = m->pages;
	struct sorted_free_lists *s = z->sorted;
	struct free_list_regions *fl = &s->fl[order][mt];
	struct mem_region_list *mr = mr_list_of(s, order, mt, rid);
	long prev = find_prev_region(&fl->map, rid);
	uint32_t head = z->free_area[order].free_list[mt];
	uint32_t anchor = prev >= 0 ? mr_list_of(s, order, mt, (uint32_t)prev)->page_block : head;
	uint32_t first = pg[anchor].next, last = mr->page_block, after = pg[last].next;
	uint32_t n = mr->nr_free;

	WRITE_LINK(pg[anchor].next, after);
	WRITE_LINK(pg[after].prev, anchor);
	WRITE_LINK(pg[to].next, first);
	WRITE_LINK(pg[first].prev, to);
	WRITE_LINK(pg[last].next, to);
	WRITE_LINK(pg[to].prev, last);

	mr->nr_free = 0;
	mr->page_block = NO_BLOCK;
	clear_region_bit(&fl->map, rid);
	if (prev < 0)
		set_next_region_in_freelist(pg, z, order, mt);
	ADD_ONCE(z->free_area[order].nr_free, -(unsigned long)n);
	ADD_ONCE(z->nr_free_mt[mt], -((long)n << order));
	return n;
}

/*
 * add_to_freelist_bulk (patch 17): splice the @n blocks of list @from into
 * free_list[@mt] of @order where region @rid belongs.  As in the patch, the
 * list's first block is linked first and the rest go before it, so it ends
 * up the region's page_block.
 */
static void add_to_freelist_bulk(struct mpm_machine *m, struct zone *z, unsigned int order,
				 int mt, uint32_t rid, uint32_t from, uint32_t n)
{
	struct mpm_page *pg = m->pages;
	struct sorted_free_lists *s = z->sorted;
	struct free_list_regions *fl = &s->fl[order][mt];
	struct mem_region_list *mr = mr_list_of(s, order, mt, rid);
	uint32_t head = z->free_area[order].free_list[mt];
	long prev = list_empty(pg, head) ? -1 : find_prev_region(&fl->map, rid);
	uint32_t anchor = prev >= 0 ? mr_list_of(s, order, mt, (uint32_t)prev)->page_block : head;
	uint32_t after = pg[anchor].next, first = pg[from].next, last = pg[from].prev;
	uint32_t run = n > 1 ? pg[first].next : first;	/* the blocks before @first */

	if (n > 1) {
		WRITE_LINK(pg[anchor].next, run);
		WRITE_LINK(pg[run].prev, anchor);
		WRITE_LINK(pg[last].next, first);
		WRITE_LINK(pg[first].prev, last);
	} else {
		WRITE_LINK(pg[anchor].next, first);
		WRITE_LINK(pg[first].prev, anchor);
	}
	WRITE_LINK(pg[first].next, after);
	WRITE_LINK(pg[after].prev, first);
	list_init(pg, from);

	mr->nr_free = n;
	mr->page_block = first;
	set_region_bit(&fl->map, rid);
	if (prev < 0)
		set_next_region(s, mt, order, rid);
	ADD_ONCE(z->free_area[order].nr_free, (unsigned long)n);
	ADD_ONCE(z->nr_free_mt[mt], (long)n << order);
}

/*
 * Whether a free block smaller than MAX_ORDER-1 has its head page in
 * region @rid, on any list.  Patch 12 counts a zone region's nr_free by
 * head page over every order, so such a block -- a piece of the block that
 * straddles the region's lower boundary, whose pieces above the boundary
 * are headed in this region -- raises it past present_pages while the
 * region's own MAX_ORDER-1 blocks are all free.
 */
static bool smaller_free_block_in(const struct sorted_free_lists *s, uint32_t rid)
{
	for (unsigned int order = 0; order < MAX_ORDER - 1; order++)
		for (int mt = 0; mt < MIGRATE_TYPES; mt++)
			if (mr_list_of(s, order, mt, rid)->nr_free)
				return true;
	return false;
}

/*
 * can_return_region (patches 25, 33): the block just freed is a MAX_ORDER-1
 * block, and every free page headed in the region is in a MAX_ORDER-1
 * block on this one list, together the region's present pages -- the
 * patch's "whole region free" (zone_region->nr_free == present_pages) and
 * "all of it in this list" (region->nr_free << order ==
 * zone_region->nr_free), both under its head-page attribution (patch 12):
 * every MAX_ORDER-1 block of the region is on this list, they add up to
 * present_pages, and no smaller block is headed in the region.  Unless
 * (region_cache) the list holds no other region: each list keeps one
 * region as a cache against ping-pong with the page allocator and against
 * falling back to other types.
 */
static bool can_return_region(struct mpm_machine *m, struct zone *z, uint32_t rid,
			      unsigned int order, int mt)
{
	const struct zone_mem_region *zr = &z->regions[rid];
	const struct sorted_free_lists *s = z->sorted;
	uint32_t head = z->free_area[order].free_list[mt];
	uint32_t nr_blocks = z->ralloc->region[rid].nr_blocks;

	if (order != MAX_ORDER - 1 || !nr_blocks ||
	    mr_list_of(s, order, mt, rid)->nr_free != nr_blocks)
		return false;
	if ((uint64_t)nr_blocks << order != zr->present_pages || smaller_free_block_in(s, rid))
		return false;
	if ((m->features & MPM_FEATURE_REGION_CACHE) &&
	    block_region(s, m->pages[head].next) == block_region(s, m->pages[head].prev)) {
		ADD_ONCE(z->ralloc->ev[RA_CACHE_HITS], 1);
		return false;
	}
	return true;
}

/* The region handed out next: the lowest (ralloc_bias, patch 22), else the latest returned. */
static void pick_next_region(struct mpm_machine *m, struct region_allocator *ra)
{
	if (m->features & MPM_FEATURE_RALLOC_BIAS)
		ra->next_region = find_first_region(&ra->mask);
	else
		ra->next_region = ra->nr_stack ? (long)ra->stack[ra->nr_stack - 1] : -1;
}

/* add_to_region_allocator (patches 19, 21, 22): take region @rid whole. */
static void add_to_region_allocator(struct mpm_machine *m, struct zone *z, int mt, uint32_t rid)
{
	struct region_allocator *ra = z->ralloc;
	uint32_t n = del_from_freelist_bulk(m, z, MAX_ORDER - 1, mt, rid, ra->region[rid].list);

	ra->region[rid].nr_free = n;
	ra->region[rid].mt = (uint8_t)mt;
	ADD_ONCE(ra->nr_pages, (uint64_t)n << (MAX_ORDER - 1));
	set_region_bit(&ra->mask, rid);
	ADD_ONCE(ra->nr_held, 1);
	if (!(m->features & MPM_FEATURE_RALLOC_BIAS))
		ra->stack[ra->nr_stack++] = rid;
	pick_next_region(m, ra);
	ADD_ONCE(ra->ev[RA_PA_TO_RA], 1);
}

/*
 * The PA => RA flow (patch 25): after a block of @order joined free_list[@mt]
 * and every count is up to date, return its region if it qualifies.
 */
bool try_return_region(struct mpm_machine *m, struct zone *z, uint32_t idx,
		       unsigned int order, int mt)
{
	uint32_t rid = block_region(z->sorted, idx);

	if (!can_return_region(m, z, rid, order, mt))
		return false;
	add_to_region_allocator(m, z, mt, rid);
	return true;
}

/* Drop @rid from the stack of held regions (the order without ralloc_bias). */
static void stack_remove(struct region_allocator *ra, uint32_t rid)
{
	for (uint32_t i = ra->nr_stack; i-- > 0;)
		if (ra->stack[i] == rid) {
			for (; i + 1 < ra->nr_stack; i++)
				ra->stack[i] = ra->stack[i + 1];
			ra->nr_stack--;
			return;
		}
}

/* A word of pageblock types, for stores that may alias the byte array. */
typedef uint64_t __attribute__((may_alias)) pageblock_word_t;

/*
 * Pageblocks [@first, @first + @n) of @z become @mt (a 512 MiB region: 128
 * of them).  Relaxed atomic stores, as set_pageblock_migratetype makes,
 * but eight types a store where the run is aligned: a region's move stays
 * a few stores whatever its size (a 2 GiB region at pageblock order 10: 64).
 */
static void set_pageblock_run(struct zone *z, unsigned long first, uint64_t n, int mt)
{
	_Atomic uint8_t *p = &z->pageblock_flags[first], *end = p + n;
	uint64_t word = 0x0101010101010101ull * (uint8_t)mt;

	for (; p < end && ((uintptr_t)p & 7); p++)
		WRITE_ONCE(*p, (uint8_t)mt);
	for (; end - p >= 8; p += 8)
		__atomic_store_n((pageblock_word_t *)p, word, __ATOMIC_RELAXED);
	for (; p < end; p++)
		WRITE_ONCE(*p, (uint8_t)mt);
}

/*
 * The blocks of held region @r joining type @mt: their freepage migratetype
 * (patch 27) when it changes, and the pageblock migratetype (patch 32) of
 * every pageblock they cover -- all of them, also when pageblock_order is
 * below MAX_ORDER-1, where the patch marks only each block's first.
 */
static void claim_region_blocks(struct mpm_machine *m, struct zone *z,
				struct ra_region *r, int mt)
{
	struct mpm_page *pg = m->pages;
	uint64_t per_block = 1ull << (MAX_ORDER - 1 - m->pageblock_order);
	int pb_mt = m->page_group_by_mobility_disabled ? MIGRATE_UNMOVABLE : mt;

	if (r->mt != mt)
		for (uint32_t p = pg[r->list].next; p != r->list; p = pg[p].next)
			pg[p].freepage_mt = (uint8_t)mt;
	if (r->pb_mt == pb_mt)
		return;		/* as the last claim left them */
	r->pb_mt = (int8_t)pb_mt;
	/*
	 * Every page of the region is free, so no free reads these blocks'
	 * types meanwhile, but an evacuation walking the region without the
	 * lock does (get_pageblock_migratetype in async_skip): relaxed atomic
	 * stores, not a memset.  A hole between the blocks: their pageblocks
	 * one block at a time.
	 */
	if (!r->sparse) {
		set_pageblock_run(z, pfn_to_bitidx(m, z, r->first_block),
				  (uint64_t)r->nr_blocks * per_block, pb_mt);
		return;
	}
	for (uint32_t p = pg[r->list].next; p != r->list; p = pg[p].next)
		set_pageblock_run(z, pfn_to_bitidx(m, z, idx_to_pfn(m, p)), per_block, pb_mt);
}

/*
 * A pageblock at @pfn changed type outside claim_region_blocks: the region
 * whose claims write it -- that of its MAX_ORDER-1 block's head, which may
 * lie in the region below on node-relative boundaries -- no longer knows
 * its pageblocks' type.  Under the zone lock, as every such change.
 */
void ralloc_pageblock_changed(const struct mpm_machine *m, struct zone *z, uint64_t pfn)
{
	uint64_t head = pfn & ~((1ull << (MAX_ORDER - 1)) - 1);

	if (head >= z->zone_start_pfn)	/* a partial window is never held */
		z->ralloc->region[pfn_zone_region_id(m, z, head)].pb_mt = PB_MT_UNKNOWN;
}

/* __del_from_region_allocator (patches 20, 21, 22, 27, 29, 32): region @rid to free_list[@mt]. */
void __del_from_region_allocator(struct mpm_machine *m, struct zone *z, int mt, uint32_t rid)
{
	struct region_allocator *ra = z->ralloc;
	struct ra_region *r = &ra->region[rid];
	uint32_t n = r->nr_free;

	claim_region_blocks(m, z, r, mt);
	add_to_freelist_bulk(m, z, MAX_ORDER - 1, mt, rid, r->list, n);
	r->nr_free = 0;
	ADD_ONCE(ra->nr_pages, -((uint64_t)n << (MAX_ORDER - 1)));
	clear_region_bit(&ra->mask, rid);
	ADD_ONCE(ra->nr_held, -1);
	if (!(m->features & MPM_FEATURE_RALLOC_BIAS))
		stack_remove(ra, rid);	/* O(held): only without the bias */
	pick_next_region(m, ra);
	ADD_ONCE(ra->ev[RA_RA_TO_PA], 1);
}

/* del_from_region_allocator: hand out the next region to type @mt; -1 if none is held. */
int del_from_region_allocator(struct mpm_machine *m, struct zone *z, int mt)
{
	if (z->ralloc->next_region < 0)
		return -1;
	__del_from_region_allocator(m, z, mt, (uint32_t)z->ralloc->next_region);
	return 0;
}
