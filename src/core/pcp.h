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

static inline __attribute__((always_inline)) uint32_t rmqueue_pcp(struct mpm_machine *m, struct zone *z,
				   int migratetype, bool cold, unsigned int cpu)
{
	struct per_cpu_pages *pcp = &z->pageset[cpu];
	uint32_t head = pcp->lists[migratetype];
	uint32_t idx;

	if (unlikely(list_empty(m->pages, head))) {
		pcp->count += rmqueue_bulk(m, z, (unsigned int)pcp->batch, head,
					   migratetype, cold);
		if (unlikely(list_empty(m->pages, head)))
			return UINT32_MAX;
	}
	idx = cold ? m->pages[head].prev : m->pages[head].next;
	list_del(m->pages, idx);
	pcp->count--;
	/* the next allocation pops the new head: start its miss now */
	__builtin_prefetch(&m->pages[m->pages[head].next], 1);
	/* the owner will record itself in the reverse map next */
	if (m->rmap)
		__builtin_prefetch(&m->rmap[idx], 1);
	return idx;
}

/*
 * free_hot_cold_page: an order-0 page goes to the pcp list of its pageblock's
 * migratetype (RESERVE pages to the MOVABLE list, keeping their freepage
 * type so they find their way home), hot at the head, cold at the tail.
 */
static inline __attribute__((always_inline)) void free_hot_cold_page(struct mpm_machine *m, struct zone *z,
				      uint32_t idx, bool cold, unsigned int cpu)
{
	struct mpm_page *page = &m->pages[idx];
	int migratetype = get_pageblock_migratetype(m, z, idx_to_pfn(m, idx));
	struct per_cpu_pages *pcp;

	page->freepage_mt = (uint8_t)migratetype;
	if (unlikely(migratetype >= MIGRATE_PCPTYPES)) {
		if (unlikely(migratetype == MIGRATE_ISOLATE)) {
			WRITE_ONCE(page->flags, 0);
			free_one_page(m, z, idx, 0, migratetype);
			return;
		}
		migratetype = MIGRATE_MOVABLE;
	}

	pcp = &z->pageset[cpu];
	WRITE_ONCE(page->flags, PG_pcp);
	WRITE_ONCE(page->order, 0);
	if (cold)
		list_add_tail(m->pages, idx, pcp->lists[migratetype]);
	else
		list_add(m->pages, idx, pcp->lists[migratetype]);
	if (unlikely(++pcp->count >= pcp->high)) {
		int batch = pcp->batch;

		free_pcppages_bulk(m, z, batch, pcp);
		pcp->count -= batch;
	}
}

#endif /* MPM_CORE_PCP_H */
