/* SPDX-License-Identifier: MIT */
/*
 * The pcp fast paths, inline: taking an order-0 page from a cpu's list (the
 * order-0 branch of buffered_rmqueue) and putting one back
 * (free_hot_cold_page).  Their slow halves, rmqueue_bulk and
 * free_pcppages_bulk, take the zone lock and live in pcp.c.
 */
#ifndef MPM_CORE_PCP_H
#define MPM_CORE_PCP_H

#include "mmzone.h"

/*
 * prep_new_page: the head of an allocated block remembers its order.  @pg
 * is m->pages as the caller loaded it.
 */
static inline uint64_t prep_new_page(const struct mpm_machine *m, struct mpm_page *pg,
				     uint32_t idx, unsigned int order)
{
	struct mpm_page *page = &pg[idx];

	WRITE_ONCE(page->flags, PG_alloc);
	WRITE_ONCE(page->order, (uint8_t)order);
	return idx_to_pfn(m, idx);
}

/*
 * Take the first (hot) or last (cold) page off a pcp list that is not
 * empty.  @pg is m->pages, loaded once by the caller.
 */
static inline __attribute__((always_inline)) uint32_t
__rmqueue_pcp(struct mpm_page *pg, struct per_cpu_pages *pcp, uint32_t head, bool cold)
{
	uint32_t idx = cold ? pg[head].prev : pg[head].next;

	list_del(pg, idx);
	pcp_count_add(pcp, -1);
	return idx;
}

/* The order-0 branch of buffered_rmqueue: refill an empty list first. */
static inline __attribute__((always_inline)) uint32_t rmqueue_pcp(struct mpm_machine *m, struct zone *z,
				   int migratetype, bool cold, unsigned int cpu)
{
	struct per_cpu_pages *pcp = &z->pageset[cpu];
	uint32_t head = pcp->lists[migratetype];

	if (unlikely(list_empty(m->pages, head))) {
		pcp_count_add(pcp, rmqueue_bulk(m, z, (unsigned int)pcp->batch, head,
						migratetype, cold));
		if (unlikely(list_empty(m->pages, head)))
			return UINT32_MAX;
	}
	return __rmqueue_pcp(m->pages, pcp, head, cold);
}

/*
 * free_hot_cold_page: an order-0 page goes to the pcp list of its pageblock's
 * migratetype (RESERVE pages to the MOVABLE list, keeping their freepage
 * type so they find their way home), hot at the head, cold at the tail.
 * Returns 0, so that the guarded free can end in a tail call: the two
 * out-of-line cases (an isolated pageblock, the lists reaching pcp->high) are
 * then jumps, and the common case needs no stack frame.
 */
static inline __attribute__((always_inline)) int free_hot_cold_page(struct mpm_machine *m, struct zone *z,
				     uint32_t idx, bool cold, unsigned int cpu)
{
	struct mpm_page *pg = m->pages;
	struct mpm_page *page = &pg[idx];
	int migratetype = get_pageblock_migratetype(m, z, idx_to_pfn(m, idx));
	struct per_cpu_pages *pcp;

	page->freepage_mt = (uint8_t)migratetype;
	if (unlikely(migratetype >= MIGRATE_PCPTYPES)) {
		if (unlikely(migratetype == MIGRATE_ISOLATE))
			return free_isolated_page(m, z, idx);
		migratetype = MIGRATE_MOVABLE;
	}

	pcp = &z->pageset[cpu];
	/* page->order is already 0: the guarded free checked it */
	WRITE_ONCE(page->flags, PG_pcp);
	if (cold)
		list_add_tail(pg, idx, pcp->lists[migratetype]);
	else
		list_add(pg, idx, pcp->lists[migratetype]);
	if (unlikely(pcp_count_add(pcp, 1) >= pcp->high))
		return free_pcppages_batch(m, z, pcp);
	return 0;
}

#endif /* MPM_CORE_PCP_H */
