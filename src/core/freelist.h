/* SPDX-License-Identifier: MIT */
/*
 * The one place where blocks enter and leave the buddy free lists.  Mainline
 * 3.12 uses plain list_add()/list_add_tail()/list_del(); the region-sorted
 * free lists of the patchset (add_to_freelist/del_from_freelist, patches
 * 05-06, 09, 11; sorted.h) switch in here when zone->sorted is set.  Inline:
 * they run for every split and merge.
 *
 * Invariant kept here: a PG_buddy page's freepage_mt names the free list it
 * is on, and its order field its order.
 *
 * The pages on the free lists are counted twice: per migratetype
 * (zone->nr_free_mt) and per memory region (region.h).  add_to_freelist()
 * and del_from_freelist() keep both counts.  add_to_freelist_pos() and the
 * double-underscore unlinks only link and unlink, for the split and merge
 * loops: a split of an order-N block down to order n changes the counts by
 * the 2^n pages handed out, a merge by the pages of the block freed, and
 * those loops account for that net change once (account_freepages) instead
 * of once per level.  The counts after the loop are the same either way.
 */
#ifndef MPM_CORE_FREELIST_H
#define MPM_CORE_FREELIST_H

#include "region.h"
#include "ralloc.h"

/* @sign * 2^@order pages of the block at @idx join (+1) or leave (-1) type @mt's lists. */
static inline void account_freepages(struct mpm_machine *m, struct zone *z, uint32_t idx,
				     unsigned int order, int mt, int sign)
{
	ADD_ONCE(z->nr_free_mt[mt], sign * (1l << order));
	region_mod_range(m, z, idx_to_pfn(m, idx), order, sign);
}

/*
 * A buddy's private word (the owner's while the page is allocated, and
 * otherwise unused) holds the entry two on in its list, as linked:
 * the successor's next, read from the line that linking has just written.
 * __rmqueue_smallest prefetches it when it takes the block, two pops ahead
 * of need; a block deleted in between only makes the hint point one entry
 * short, which costs a redundant prefetch, never a wrong result.  That is
 * right for a list that pushes and pops at its head.  A region's blocks on
 * a sorted list pop in the order they were linked instead, so there a
 * block's hint is rewritten when the block two after it is linked
 * (sorted_add_to_freelist()).
 */
static inline void set_buddy_hint(struct mpm_page *pg, uint32_t idx)
{
	WRITE_LINK(pg[idx].private, pg[pg[idx].next].next);
}

/*
 * Hints further on, for mainline's order-0 lists.  A refill pops up to a
 * batch of blocks off the head of an order-0 list back to back, most of
 * them pushed there by drains long before, each a cold line whose address
 * is in the line before: with hints two on, two misses are in flight.  A
 * plain (LIFO) list pushes and pops at its head, so the zone can follow the
 * list's top BUDDY_HINT_RING entries in a ring: a block pushed takes the
 * deepest of them as its hint -- the entry BUDDY_HINT_RING on -- and goes
 * on top; a block popped leaves the top, and its own hint, the entry
 * BUDDY_HINT_RING below it, is the new deepest.  A refill that pops through
 * such blocks keeps that many misses in flight.
 *
 * A merge or a list_move that unlinks the top block pops it the same way.
 * Anything else (an unlink from deeper in, a tail add, a block whose hint
 * is two on) leaves the ring a little off, so that a later hint names an
 * entry a few nearer or further, or one that has left the list: a
 * prefetch wasted, never a wrong result -- hints are only prefetched and
 * are always entries of the page array.  The zone lock covers the ring as
 * it covers the list.
 */
static inline void push_buddy_hint(struct mpm_page *pg, struct buddy_hint_ring *r,
				   uint32_t idx)
{
	uint32_t deepest = r->pos % BUDDY_HINT_RING;

	WRITE_LINK(pg[idx].private, r->slot[deepest]);
	r->slot[deepest] = idx;		/* the ring's new top */
	r->pos++;
}

/* The head block @idx leaves its order-0 list. */
static inline void pop_buddy_hint(const struct mpm_page *pg, struct buddy_hint_ring *r,
				  uint32_t idx)
{
	r->pos--;
	r->slot[r->pos % BUDDY_HINT_RING] = pg[idx].private;	/* the new deepest */
}

/* @idx leaves its order-0 list from anywhere: only the top is followed. */
static inline void unlink_buddy_hint(const struct mpm_page *pg, struct buddy_hint_ring *r,
				     uint32_t idx)
{
	if (r->slot[(r->pos - 1) % BUDDY_HINT_RING] == idx)
		pop_buddy_hint(pg, r, idx);
}

static inline void mark_buddy(struct mpm_page *page, unsigned int order, int mt)
{
	WRITE_ONCE(page->flags, PG_buddy);
	WRITE_ONCE(page->order, (uint8_t)order);
	page->freepage_mt = (uint8_t)mt;
}

/*
 * Link a block at the head of its list (at the tail with @tail, for a block
 * likely to merge soon) -- or, with sorted_freelists, where its region
 * belongs (sorted.h): sorted lists have no tail to offer, add_to_freelist
 * already puts the block (almost) at the tail of its region, as patch 06
 * notes where it replaces the tail add.  The caller accounts for its pages.
 * @pg is m->pages: loops keep it in a register, where the relaxed atomic
 * stores would otherwise make the compiler reload it from the machine.
 *
 * @sorted is the zone's list discipline (z->sorted != NULL).  The buddy
 * paths of page_alloc.c pass it as a constant, one copy of each path per
 * discipline, so that mainline's copy carries none of the sorted lists'
 * code or registers and the sorted copy has theirs inline.
 */
static inline __attribute__((always_inline)) void
add_to_freelist_pos(struct mpm_page *pg, struct zone *z, uint32_t idx, unsigned int order,
		    int mt, bool tail, bool sorted)
{
	mark_buddy(&pg[idx], order, mt);
	if (sorted) {
		sorted_add_to_freelist(pg, z, idx, order, mt);
	} else if (tail) {
		list_add_tail(pg, idx, z->free_area[order].free_list[mt]);
	} else {
		list_add(pg, idx, z->free_area[order].free_list[mt]);
		if (order == 0) {
			push_buddy_hint(pg, &z->hint_ring[mt], idx);
			return;
		}
	}
	set_buddy_hint(pg, idx);
}

static inline void rmv_page_order(struct mpm_page *pg, uint32_t idx)
{
	WRITE_ONCE(pg[idx].flags, 0);
	WRITE_ONCE(pg[idx].order, 0);
}

/*
 * Unlink the head block of free_list[@mt] of @order (allocation); the
 * caller accounts for the pages and owns the page afterwards.  @sorted as
 * for add_to_freelist_pos().
 */
static inline __attribute__((always_inline)) void
__rmqueue_del_from_freelist(struct mpm_page *pg, struct zone *z, uint32_t idx,
			    unsigned int order, int mt, bool sorted)
{
	if (sorted) {
		rmqueue_del_from_freelist(pg, z, idx, order, mt);
	} else {
		list_del(pg, idx);
		if (order == 0)
			pop_buddy_hint(pg, &z->hint_ring[mt], idx);
	}
	rmv_page_order(pg, idx);
}

/*
 * Unlink a block from anywhere in free_list[@mt] of @order; list_del +
 * rmv_page_order.  @sorted as for add_to_freelist_pos().
 */
static inline __attribute__((always_inline)) void
__del_from_freelist(struct mpm_page *pg, struct zone *z, uint32_t idx, unsigned int order,
		    int mt, bool sorted)
{
	if (sorted) {
		sorted_del_from_freelist(pg, z, idx, order, mt);
	} else {
		list_del(pg, idx);
		if (order == 0)
			unlink_buddy_hint(pg, &z->hint_ring[mt], idx);
	}
	rmv_page_order(pg, idx);
}

static inline void add_to_freelist(struct mpm_machine *m, struct zone *z, uint32_t idx,
				   unsigned int order, int mt)
{
	add_to_freelist_pos(m->pages, z, idx, order, mt, false, z->sorted != NULL);
	account_freepages(m, z, idx, order, mt, 1);
}

/* The caller owns the page afterwards. */
static inline void del_from_freelist(struct mpm_machine *m, struct zone *z, uint32_t idx,
				     unsigned int order)
{
	int mt = m->pages[idx].freepage_mt;

	__del_from_freelist(m->pages, z, idx, order, mt, z->sorted != NULL);
	account_freepages(m, z, idx, order, mt, -1);
}

/* Move a free block to another migratetype's list of the same order. */
static inline void move_page_freelist(struct mpm_machine *m, struct zone *z, uint32_t idx,
				      unsigned int order, int new_mt)
{
	struct mpm_page *pg = m->pages;
	int old_mt = pg[idx].freepage_mt;

	/* list_move, through the paths every unlink and link takes (hints too) */
	__del_from_freelist(pg, z, idx, order, old_mt, z->sorted != NULL);
	add_to_freelist_pos(pg, z, idx, order, new_mt, false, z->sorted != NULL);
	ADD_ONCE(z->nr_free_mt[old_mt], -(1l << order));
	ADD_ONCE(z->nr_free_mt[new_mt], 1l << order);
	/* add_to_freelist may return the region (patch 25) */
	if (z->ralloc && order == MAX_ORDER - 1)
		try_return_region(m, z, idx, order, new_mt);
}

#endif /* MPM_CORE_FREELIST_H */
