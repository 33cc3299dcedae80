// SPDX-License-Identifier: MIT
/*
 * Per-cpu page lists, as Linux 3.12 keeps them: one list per pcp migratetype,
 * refilled from the buddy lists `batch` pages at a time (rmqueue_bulk), and
 * drained `batch` pages at a time, round-robin over the migratetypes, when
 * `count` reaches `high` (free_pcppages_bulk).  Only order-0 pages go
 * through them.  Pages on pcp lists are *not* free: NR_FREE_PAGES and the
 * per-region nr_free drop when they leave the buddy lists.
 *
 * The cpu number is the caller's; one cpu is used by one thread at a time,
 * so the lists need no lock, just as with interrupts off in the kernel.
 */
#include "pcp.h"

/*
 * zone_batchsize: about a thousandth of the zone, at most 512 KiB, divided
 * by 4 and clamped to 2^n - 1 (cache aliasing), as 3.12 computes it.
 */
int zone_batchsize(const struct zone *z)
{
	long batch = (long)(z->managed_pages / 1024);

	if (batch * (long)MPM_PAGE_SIZE > 512 * 1024)
		batch = (512 * 1024) / (long)MPM_PAGE_SIZE;
	batch /= 4;		/* We effectively *= 4 below */
	if (batch < 1)
		batch = 1;
	/* rounddown_pow_of_two(batch + batch / 2) - 1 */
	batch = batch + batch / 2;
	while (batch & (batch - 1))
		batch &= batch - 1;
	return (int)(batch - 1);
}

/* setup_pageset + pageset_set_batch: high = 6 * batch, batch >= 1. */
void setup_zone_pageset(struct mpm_machine *m, struct zone *z)
{
	int batch = zone_batchsize(z);

	for (unsigned int cpu = 0; cpu < m->nr_cpus; cpu++) {
		struct per_cpu_pages *pcp = &z->pageset[cpu];

		pcp->count = 0;
		pcp->high = 6 * batch;
		pcp->batch = batch > 1 ? batch : 1;
		for (int mt = 0; mt < MIGRATE_PCPTYPES; mt++) {
			pcp->lists[mt] = alloc_list_head(m);
			list_init(m->pages, pcp->lists[mt]);
		}
	}
}

/*
 * rmqueue_bulk: take @count order-0 pages from the buddy allocator under one
 * lock hold and chain them, in the order taken, after @head.  Each page's
 * freepage migratetype becomes the requested type.
 */
int rmqueue_bulk(struct mpm_machine *m, struct zone *z, unsigned int count,
		 uint32_t head, int migratetype, bool cold)
{
	uint32_t pos = head;
	unsigned int i;

	spin_lock(&z->lock);
	for (i = 0; i < count; i++) {
		uint32_t idx = __rmqueue(m, z, 0, migratetype);
		struct mpm_page *page;

		if (unlikely(idx == UINT32_MAX))
			break;
		page = &m->pages[idx];
		WRITE_ONCE(page->flags, PG_pcp);
		page->freepage_mt = (uint8_t)migratetype;
		if (likely(!cold))
			list_add(m->pages, idx, pos);
		else
			list_add_tail(m->pages, idx, pos);
		pos = idx;
	}
	ADD_ONCE(z->vm_free_pages, -(long)i);
	ADD_ONCE(z->ev[ZEV_PCP_REFILLS], 1);
	spin_unlock(&z->lock);
	return (int)i;
}

/*
 * free_pcppages_bulk: give @count pages back to the buddy lists, taking
 * from the tails (the coldest pages) of the lists round-robin; a list that
 * is found empty makes the next non-empty one give more (batch_free).
 * pcp->count drops by @count here (3.12's callers each subtracted it).
 */
void free_pcppages_bulk(struct mpm_machine *m, struct zone *z, int count,
			struct per_cpu_pages *pcp)
{
	int migratetype = 0;
	int batch_free = 0;
	int to_free = count;

	spin_lock(&z->lock);
	while (to_free) {
		uint32_t head;

		do {
			batch_free++;
			if (++migratetype == MIGRATE_PCPTYPES)
				migratetype = 0;
			head = pcp->lists[migratetype];
		} while (list_empty(m->pages, head));

		/* This is the only non-empty list. Free them all. */
		if (batch_free == MIGRATE_PCPTYPES)
			batch_free = to_free;

		do {
			uint32_t idx = m->pages[head].prev;
			uint32_t next = m->pages[idx].prev;
			int mt = m->pages[idx].freepage_mt;

			/*
			 * Start the next page's misses while this one merges
			 * (prefetch_buddy() of later kernels): its own line,
			 * which holds its order-0 and order-1 buddies (four
			 * 16-byte pages to a line), and the line after, which
			 * holds the order-2 buddy that __free_one_page checks
			 * as "higher buddy" when the merge stops at order 1,
			 * or merges with at order 2 -- half of all order-0
			 * frees merge at least once.  nr_pfns is a multiple of
			 * a MAX_ORDER-1 block, so next ^ 4 is a page too.
			 */
			if (next < m->nr_pfns) {
				__builtin_prefetch(&m->pages[next], 1);
				__builtin_prefetch(&m->pages[next ^ 4], 0);
			}

			list_del(m->pages, idx);
			WRITE_ONCE(m->pages[idx].flags, 0);
			/* MIGRATE_MOVABLE list may include MIGRATE_RESERVEs */
			__free_one_page(m, z, idx, 0, mt);
			if (likely(mt != MIGRATE_ISOLATE))
				ADD_ONCE(z->vm_free_pages, 1);
		} while (--to_free && --batch_free && !list_empty(m->pages, head));
	}
	ADD_ONCE(z->ev[ZEV_PCP_DRAINS], 1);
	spin_unlock(&z->lock);
	pcp_count_add(pcp, -count);
}

/*
 * free_hot_cold_page's two out-of-line ends.  Each returns 0 for the
 * guarded free to return, so that the inline fast path jumps to them.
 */

/* The list has reached pcp->high: one batch goes back to the buddy lists. */
int free_pcppages_batch(struct mpm_machine *m, struct zone *z, struct per_cpu_pages *pcp)
{
	free_pcppages_bulk(m, z, pcp->batch, pcp);
	return 0;
}

/* A page of an isolated pageblock skips the pcp lists (MIGRATE_ISOLATE). */
int free_isolated_page(struct mpm_machine *m, struct zone *z, uint32_t idx)
{
	WRITE_ONCE(m->pages[idx].flags, 0);
	free_one_page(m, z, idx, 0, MIGRATE_ISOLATE);
	return 0;
}

/* drain_pages for one zone: everything on @cpu's lists goes back. */
void drain_zone_pages(struct mpm_machine *m, struct zone *z, unsigned int cpu)
{
	struct per_cpu_pages *pcp = &z->pageset[cpu];

	if (pcp->count)
		free_pcppages_bulk(m, z, pcp->count, pcp);
}

/* drain_zone_pages: at most one batch goes back to the buddy lists. */
static void drain_zone_batch(struct mpm_machine *m, struct zone *z, unsigned int cpu)
{
	struct per_cpu_pages *pcp = &z->pageset[cpu];
	int to_drain = pcp->count >= pcp->batch ? pcp->batch : pcp->count;

	if (to_drain > 0)
		free_pcppages_bulk(m, z, to_drain, pcp);
}

void mpm_refresh_cpu_vm_stats(struct mpm_machine *m, unsigned int cpu)
{
	if (cpu >= m->nr_cpus)
		return;
	for (unsigned int i = 0; i < m->nr_zones; i++) {
		struct zone *z = &m->zones[i];
		struct per_cpu_pages *pcp = &z->pageset[cpu];
		uint64_t activity = READ_ONCE(pcp->ev[PCP_ALLOCS]) + READ_ONCE(pcp->ev[PCP_FREES]);

		if (!z->present_pages)
			continue;
		/*
		 * A differential to fold means activity.  The kernel's "3 seconds
		 * idle till flush" sets expire = 3, but this same call counts it
		 * down: the drain comes at the second refresh after this one,
		 * after two to three idle seconds.
		 */
		if (pcp->alloc_batch_diff || activity != pcp->last_activity) {
			atomic_fetch_add_explicit(&z->vm_alloc_batch, pcp->alloc_batch_diff,
						  memory_order_relaxed);
			pcp->alloc_batch_diff = 0;
			pcp->last_activity = activity;
			pcp->expire = 3;
		}
		if (!pcp->expire || !pcp->count)
			continue;
		/* we never drain zones local to this processor */
		if (z->node == m->cpu_to_node[cpu]) {
			pcp->expire = 0;
			continue;
		}
		if (--pcp->expire)
			continue;
		drain_zone_batch(m, z, cpu);
	}
}
