// SPDX-License-Identifier: MIT
/*
 * evacuate_mem_region (v4 patches 34-35) and should_evacuate_region (patch
 * 39): the page-moving half of the design, in the library.  What starts it
 * is the free-path trigger of patch 40 (mempower_work.c) and kmempowerd
 * (patches 36-38): the library's thread in kmempowerd.c, the simulator's
 * kernel thread in src/sim/kmempowerd.c.
 *
 * The patch generalises CMA's compaction into compact_range() and runs it
 * asynchronously, once, over the source region's pfns only: used pages are
 * isolated in batches (COMPACT_CLUSTER_MAX, 32), target pages come from the
 * buddy allocator itself -- rmqueue_bulk(zone, 0, n, MIGRATE_MOVABLE, cold),
 * which with sorted free lists hands out the lowest regions first -- and the
 * run aborts as soon as a target lies in a region >= the source region:
 * moving pages sideways or up saves nothing.  Clean page cache is reclaimed
 * rather than moved (reclaim_clean); unevictable pages are not isolated.
 * Here a page is movable when it has an owner in the reverse map (the
 * simulator's anonymous and page-cache pages); kernel pages have none.
 * Huge pages (order > 0) are skipped and counted as failed.
 */
#include "freelist.h"
#include "mempower_work.h"
#include "pcp.h"

#define COMPACT_CLUSTER_MAX	32

void mpm_set_migrate_ops(struct mpm_machine *m, const struct mpm_migrate_ops *ops)
{
	m->migrate_ops = *ops;
}

bool should_evacuate_region(const struct zone *z, unsigned int rid, uint64_t threshold)
{
	const struct zone_mem_region *r = &z->regions[rid];
	uint64_t used = r->present_pages - r->nr_free;

	/* region 0 is the target of all our compaction runs */
	return rid != 0 && used > 0 && used <= threshold;
}

bool mpm_should_evacuate_region(const struct mpm_machine *m, unsigned int zid,
				unsigned int rid, uint64_t threshold)
{
	return zone_region_valid(m, zid, rid) &&
	       should_evacuate_region(&m->zones[zid], rid, threshold);
}

/*
 * One target page, order 0 and movable, straight from the buddy lists (the
 * patch's rmqueue_bulk, without watermarks), accounted as an allocation on
 * @cpu.  UINT32_MAX if none.
 */
static uint32_t alloc_migrate_target(struct mpm_machine *m, struct zone *z, unsigned int cpu)
{
	uint32_t idx;

	spin_lock(&z->lock);
	idx = __rmqueue(m, z, 0, MIGRATE_MOVABLE);
	if (idx != UINT32_MAX) {
		ADD_ONCE(z->vm_free_pages, -1l);
		WRITE_ONCE(m->pages[idx].flags, PG_alloc);
		WRITE_ONCE(m->pages[idx].order, 0);
		__this_cpu_add(z->pageset[cpu].ev[PCP_ALLOCS], 1);
	}
	spin_unlock(&z->lock);
	return idx;
}

struct evac_batch {
	uint64_t pfn[COMPACT_CLUSTER_MAX];
	unsigned int nr;
};

/*
 * Evacuation against the owners (the protocol of evacuate.h).  The kernel
 * isolates a page -- takes it off the LRU holding a reference, so that the
 * owner's put_page cannot free it -- and serialises the PTE switch with the
 * owner's page-table lock.  Here the owner's own lock does both: the batch
 * was collected without it, so each page's owner is looked up again, its
 * lock taken, and the entry re-read under it.  Only an owner changes its
 * pages' entries, and only under that lock, so an entry that still names
 * the owner means the owner still holds the page, order 0 and allocated,
 * at that index with that content; it stays so until unlock.  An entry
 * that changed was freed (skipped) or freed and reused (it is another
 * owner's page now; the next run of this region finds it).
 *
 * The allocation and free fast paths pay nothing for this: no page flag,
 * no atomic read-modify-write; the owner's lock is the one it takes anyway
 * around its own page tables.  The cost is kmempowerd's: one lock round
 * trip per page moved.  Without ops->lock (one thread) the re-read finds
 * what the first read found.
 *
 * Returns the locked owner and the page's @index, or MPM_NO_OWNER.
 */
static uint32_t lock_page_owner(struct mpm_machine *m, uint64_t pfn, uint32_t *index,
				struct mpm_evac_result *res)
{
	const struct mpm_migrate_ops *ops = &m->migrate_ops;
	uint32_t idx = pfn_to_idx(m, pfn);
	uint32_t owner = page_rmap_owner(m, idx);

	if (owner == MPM_NO_OWNER) {
		res->raced += !!ops->lock;	/* freed since the walk saw it */
		return MPM_NO_OWNER;
	}
	if (ops->lock) {
		if (ops->lock(ops->arg, owner)) {
			res->raced++;		/* the owner is going away */
			return MPM_NO_OWNER;
		}
		if (page_rmap_owner(m, idx) != owner ||
		    READ_ONCE(m->pages[idx].flags) != (PG_alloc | PG_owned) ||
		    READ_ONCE(m->pages[idx].order) != 0) {
			ops->unlock(ops->arg, owner);
			res->raced++;
			return MPM_NO_OWNER;
		}
	}
	*index = page_rmap_index(m, idx);
	return owner;
}

static void unlock_page_owner(struct mpm_machine *m, uint32_t owner)
{
	const struct mpm_migrate_ops *ops = &m->migrate_ops;

	if (ops->unlock)
		ops->unlock(ops->arg, owner);
}

/*
 * One page: reclaimed, moved, or left (failed).  Under the owner's lock the
 * owner learns the new pfn, the content tag is copied and both reverse-map
 * entries change; the source is freed after unlock.  -1 when the run must
 * abort, else 0.
 */
static int migrate_one(struct mpm_machine *m, struct zone *z, unsigned int rid,
		       unsigned int cpu, bool reclaim_clean, uint64_t from,
		       struct mpm_evac_result *res)
{
	const struct mpm_migrate_ops *ops = &m->migrate_ops;
	uint32_t index, owner = lock_page_owner(m, from, &index, res);
	uint32_t tidx;
	uint64_t to;

	if (owner == MPM_NO_OWNER)
		return 0;
	if (reclaim_clean && ops->reclaim_clean &&
	    ops->reclaim_clean(ops->arg, owner, index, from) == 1) {
		mpm_rmap_clear(m, from);
		unlock_page_owner(m, owner);
		mpm_free_pages(m, from, 0, cpu);
		res->reclaimed++;
		return 0;
	}
	tidx = alloc_migrate_target(m, z, cpu);
	if (tidx == UINT32_MAX) {
		unlock_page_owner(m, owner);
		return -1;
	}
	to = idx_to_pfn(m, tidx);
	if (pfn_zone_region_id(m, z, to) >= rid) {
		/* no lower region has room: moving would not empty this one */
		unlock_page_owner(m, owner);
		mpm_free_pages(m, to, 0, cpu);
		return -1;
	}
	if (ops->move(ops->arg, owner, index, from, to)) {
		unlock_page_owner(m, owner);
		mpm_free_pages(m, to, 0, cpu);
		res->failed++;
		return 0;
	}
	/* copy the content: the owner wrote it under the lock we hold */
	mpm_rmap_set(m, to, owner, index, m->pages[pfn_to_idx(m, from)].private);
	mpm_rmap_clear(m, from);
	unlock_page_owner(m, owner);
	mpm_free_pages(m, from, 0, cpu);
	res->migrated++;
	return 0;
}

/* Move or reclaim the batch's pages; false when the run must abort. */
static bool migrate_batch(struct mpm_machine *m, struct zone *z, unsigned int rid,
			  unsigned int cpu, bool reclaim_clean, struct evac_batch *b,
			  struct mpm_evac_result *res)
{
	for (unsigned int i = 0; i < b->nr; i++)
		if (migrate_one(m, z, rid, cpu, reclaim_clean, b->pfn[i], res))
			return false;
	b->nr = 0;
	return true;
}

static int evacuate_mem_region(struct mpm_machine *m, unsigned int zid, unsigned int rid,
			       unsigned int cpu, bool reclaim_clean, struct mpm_evac_result *res)
{
	struct zone *z = &m->zones[zid];
	const struct zone_mem_region *r = &z->regions[rid];
	struct evac_batch b = { .nr = 0 };

	*res = (struct mpm_evac_result){ 0 };
	if (!m->rmap_enabled || !m->migrate_ops.move || cpu >= m->nr_cpus)
		return -1;
	for (uint64_t pfn = r->start_pfn; pfn < r->end_pfn;) {
		const struct mpm_page *page = &m->pages[pfn_to_idx(m, pfn)];
		unsigned int order = READ_ONCE(page->order);
		uint8_t flags = READ_ONCE(page->flags);

		res->scanned++;
		/* PG_owned: an owner set the entry (never MPM_NO_OWNER, rmap.c) */
		if (flags != (PG_alloc | PG_owned)) {
			pfn += flags & PG_buddy ? 1ull << order : 1;
			continue;
		}
		if (order) {
			res->failed++;		/* a huge page: not moved here */
			pfn += 1ull << order;
			continue;
		}
		b.pfn[b.nr++] = pfn++;
		if (b.nr == COMPACT_CLUSTER_MAX &&
		    !migrate_batch(m, z, rid, cpu, reclaim_clean, &b, res)) {
			res->aborted = true;
			return 0;
		}
	}
	if (b.nr && !migrate_batch(m, z, rid, cpu, reclaim_clean, &b, res))
		res->aborted = true;
	return 0;
}

/* The zone's evacuation counters, under its lock like the others. */
static void count_evacuation(struct zone *z, const struct mpm_evac_result *res)
{
	spin_lock(&z->lock);
	ADD_ONCE(z->ev[ZEV_EVAC_RUN], 1);
	ADD_ONCE(z->ev[ZEV_EVAC_ABORTED], res->aborted);
	ADD_ONCE(z->ev[ZEV_MIGRATED], res->migrated);
	ADD_ONCE(z->ev[ZEV_RECLAIMED], res->reclaimed);
	ADD_ONCE(z->ev[ZEV_MIGRATE_FAILED], res->failed);
	spin_unlock(&z->lock);
}

int mpm_evacuate_region(struct mpm_machine *m, unsigned int zid, unsigned int rid,
			unsigned int cpu, bool reclaim_clean, struct mpm_evac_result *res)
{
	int ret;

	if (!zone_region_valid(m, zid, rid)) {
		*res = (struct mpm_evac_result){ 0 };
		return -1;
	}
	ret = evacuate_mem_region(m, zid, rid, cpu, reclaim_clean, res);
	if (!ret)
		count_evacuation(&m->zones[zid], res);
	return ret;
}
