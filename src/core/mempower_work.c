// SPDX-License-Identifier: MIT
/* The mempower_work queue and its free-path trigger; see mempower_work.h. */
#include <stdlib.h>

#include "mempower_work.h"

int mempower_work_init(struct mpm_machine *m, struct zone *z)
{
	struct mempower_work *w = calloc(1, sizeof(*w));

	if (!w)
		return -1;
	z->mpw = w;
	w->words = region_bitmap_words(z->nr_regions, NULL);
	w->mask_mem = calloc(w->words, sizeof(*w->mask_mem));
	if (!w->mask_mem)
		return -1;
	spin_lock_init(&w->lock);
	region_bitmap_init(&w->mask, w->mask_mem, z->nr_regions);
	m->metadata_bytes += sizeof(*w) + w->words * sizeof(*w->mask_mem);
	return 0;
}

void mempower_work_destroy(struct zone *z)
{
	if (!z->mpw)
		return;
	free(z->mpw->mask_mem);
	free(z->mpw);
	z->mpw = NULL;
}

/* queue_mempower_work (patch 38): set the region's bit, wake the node's kmempowerd. */
static void queue_mempower_work(struct mpm_machine *m, struct zone *z, uint32_t rid)
{
	struct mempower_work *w = z->mpw;
	void (*notify)(void *arg, unsigned int nid);
	bool queued = false;

	spin_lock(&w->lock);
	if (!region_bit_test(&w->mask, rid)) {
		set_region_bit(&w->mask, rid);
		ADD_ONCE(w->nr_queued, 1);
		queued = true;
	}
	spin_unlock(&w->lock);
	if (!queued)
		return;
	ADD_ATOMIC(w->ev[MPW_QUEUED], 1);
	notify = atomic_load_explicit(&m->mempower_notify, memory_order_acquire);
	if (notify)
		notify(m->mempower_notify_arg, z->node);
}

/*
 * region_is_evac_candidate (patch 40): the system is running, the zone is
 * not ZONE_DMA, the pageblock of the block just put on a free list (@idx,
 * its head page after merging) is MOVABLE or RECLAIMABLE, and
 * should_evacuate_region of the head page's region.  The patch's reason:
 * "if the pages freed belong to lower-numbered regions, then there is a
 * chance that pages from higher-numbered regions could be moved to these
 * freshly freed pages" -- though what it queues, and kmempowerd then
 * empties, is the region freed into, if few of its pages are used.
 */
void evac_trigger(struct mpm_machine *m, struct zone *z, uint32_t idx)
{
	evac_trigger_out(m, z, idx, 0);
}

void evac_trigger_out(struct mpm_machine *m, struct zone *z, uint32_t idx, uint64_t out)
{
	uint64_t pfn = idx_to_pfn(m, idx);
	unsigned int rid = pfn_zone_region_id(m, z, pfn);
	int mt;

	if (!m->system_running || z->type == MPM_ZONE_DMA)
		return;
	mt = get_pageblock_migratetype(m, z, pfn);
	if (mt != MIGRATE_MOVABLE && mt != MIGRATE_RECLAIMABLE)
		return;
	if (should_evacuate_region_out(z, rid, m->evac_threshold, out))
		queue_mempower_work(m, z, rid);
}

int mpm_mempower_work_take(struct mpm_machine *m, unsigned int zid, uint32_t *rids,
			   unsigned int max)
{
	struct zone *z;
	struct mempower_work *w;
	unsigned int n = 0;

	if (zid >= m->nr_zones)
		return -1;
	z = &m->zones[zid];
	w = z->mpw;
	if (!w)
		return 0;
	/* copy the mask under the lock; the bits stay until done() */
	spin_lock(&w->lock);
	for (uint32_t r = 0; r < z->nr_regions && n < max && READ_ONCE(w->nr_queued); r++)
		if (region_bit_test(&w->mask, r))
			rids[n++] = r;
	spin_unlock(&w->lock);
	return (int)n;
}

int mpm_mempower_work_done(struct mpm_machine *m, unsigned int zid, const uint32_t *rids,
			   unsigned int n)
{
	struct mempower_work *w;

	if (zid >= m->nr_zones)
		return -1;
	for (unsigned int i = 0; i < n; i++)
		if (!zone_region_valid(m, zid, rids[i]))
			return -1;
	w = m->zones[zid].mpw;
	if (!w)
		return 0;
	/* bitmap_andnot: queued again while being evacuated is cleared too */
	spin_lock(&w->lock);
	for (unsigned int i = 0; i < n; i++)
		if (region_bit_test(&w->mask, rids[i])) {
			clear_region_bit(&w->mask, rids[i]);
			ADD_ONCE(w->nr_queued, -1u);
		}
	spin_unlock(&w->lock);
	return 0;
}

/*
 * The hook is called only under a zone lock (queue_mempower_work), so the
 * pair changes under every zone's: a free path sees the old hook with the
 * old arg or the new with the new, never one with the other's (the library's
 * kmempowerd replaces a user's hook while other threads free).  Zone locks
 * are never nested elsewhere, so taking them in order cannot deadlock.
 */
void mpm_set_mempower_notify(struct mpm_machine *m, void (*fn)(void *arg, unsigned int nid),
			     void *arg)
{
	for (unsigned int i = 0; i < m->nr_zones; i++)
		spin_lock(&m->zones[i].lock);
	m->mempower_notify_arg = arg;
	atomic_store_explicit(&m->mempower_notify, fn, memory_order_release);
	for (unsigned int i = m->nr_zones; i-- > 0;)
		spin_unlock(&m->zones[i].lock);
}
