/* SPDX-License-Identifier: MIT */
/*
 * The one place where blocks enter and leave the buddy free lists.  Mainline
 * 3.12 uses plain list_add()/list_add_tail()/list_del(); the region-sorted
 * free lists of the patchset (add_to_freelist/del_from_freelist, patches
 * 05-06) will switch in here, so every caller already goes through these
 * names.  Each keeps the per-region free counts of region.h.  Inline: they
 * run for every split and merge.
 *
 * Invariant kept here: a PG_buddy page's freepage_mt names the free list it
 * is on, and its order field its order.
 */
#ifndef MPM_CORE_FREELIST_H
#define MPM_CORE_FREELIST_H

#include "region.h"

static inline void mark_buddy(struct mpm_machine *m, struct zone *z, uint32_t idx,
		       unsigned int order, int mt)
{
	struct mpm_page *page = &m->pages[idx];

	WRITE_ONCE(page->flags, PG_buddy);
	WRITE_ONCE(page->order, (uint8_t)order);
	page->freepage_mt = (uint8_t)mt;
	ADD_ONCE(z->nr_free_mt[mt], 1l << order);
	region_add_free(m, z, idx_to_pfn(m, idx), order);
}

static inline void add_to_freelist(struct mpm_machine *m, struct zone *z, uint32_t idx,
		     unsigned int order, int mt)
{
	mark_buddy(m, z, idx, order, mt);
	list_add(m->pages, idx, z->free_area[order].free_list[mt]);
}

static inline void add_to_freelist_tail(struct mpm_machine *m, struct zone *z, uint32_t idx,
			  unsigned int order, int mt)
{
	mark_buddy(m, z, idx, order, mt);
	list_add_tail(m->pages, idx, z->free_area[order].free_list[mt]);
}

/* list_del + rmv_page_order: the caller owns the page afterwards. */
static inline void del_from_freelist(struct mpm_machine *m, struct zone *z, uint32_t idx,
		       unsigned int order)
{
	list_del(m->pages, idx);
	WRITE_ONCE(m->pages[idx].flags, 0);
	WRITE_ONCE(m->pages[idx].order, 0);
	ADD_ONCE(z->nr_free_mt[m->pages[idx].freepage_mt], -(1l << order));
	region_sub_free(m, z, idx_to_pfn(m, idx), order);
}

/* list_move to the head of another migratetype's list of the same order. */
static inline void move_page_freelist(struct mpm_machine *m, struct zone *z, uint32_t idx,
			unsigned int order, int new_mt)
{
	list_del(m->pages, idx);
	list_add(m->pages, idx, z->free_area[order].free_list[new_mt]);
	ADD_ONCE(z->nr_free_mt[m->pages[idx].freepage_mt], -(1l << order));
	ADD_ONCE(z->nr_free_mt[new_mt], 1l << order);
	m->pages[idx].freepage_mt = (uint8_t)new_mt;
}

#endif /* MPM_CORE_FREELIST_H */
