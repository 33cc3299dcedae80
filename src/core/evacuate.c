// SPDX-License-Identifier: MIT
/*
 * evacuate_mem_region (v4 patches 34-35) and should_evacuate_region (patch
 * 39): the page-moving half of the design, in the library.  What starts it
 * is the free-path trigger of patch 40 (mempower_work.c) and kmempowerd
 * (patches 36-38): the library's thread in kmempowerd.c, the simulator's
 * kernel thread in src/sim/kmempowerd.c.
 *
 * The patch generalises CMA's compaction into compact_range() and runs it
 * asynchronously, once, over the source region's pfns only.  Each round:
 *
 *  - isolate_migratepages_range (3.12, async, ignore_skip_hint) walks pfns
 *    until it holds COMPACT_CLUSTER_MAX (32) LRU pages.  Free pages are
 *    stepped over a pfn at a time (scanned counts every pfn walked, the
 *    tails of a free block too); in a pageblock that is not MOVABLE the
 *    first pfn that is not a free head ends that pageblock's walk
 *    (migrate_async_suitable: async compaction moves only out of MOVABLE
 *    pageblocks); a transparent huge page is passed over, or ends its
 *    pageblock's walk while nothing is isolated yet (the lru_lock not
 *    held).  Here a page is on an LRU list when it has an owner in the
 *    reverse map (the simulator's anonymous and page-cache pages); kernel
 *    pages have none.
 *  - reclaim_clean_pages_from_list: the clean page cache of the batch is
 *    dropped rather than moved (reclaim_clean), freed cold as
 *    shrink_page_list frees.
 *  - migrate_pages, highest pfn first (the isolated list is built with
 *    list_add).  Targets come from power_mgmt_alloc: when its list is
 *    empty, rmqueue_bulk(zone, 0, nr_migratepages, MIGRATE_MOVABLE, cold=1)
 *    fills it -- the lowest regions first with sorted free lists, but
 *    listed last-taken first, so the first target tried is the highest --
 *    and the run aborts as soon as the target at the head lies in a region
 *    >= the source region: moving pages sideways or up saves nothing.
 *
 * Targets left over are freed hot at the end (release_freepages).
 * Unevictable and pinned pages are not isolated (the owner protocol below).
 */
#include "freelist.h"
#include "mempower_work.h"
#include "pcp.h"

#define COMPACT_CLUSTER_MAX	32

int mpm_set_migrate_ops(struct mpm_machine *m, const struct mpm_migrate_ops *ops)
{
	/* start and stop are the caller's too, so running cannot change here */
	if (mpm_kmempowerd_running(m))
		return -1;
	/* a lock taken must be given back: both callbacks or neither */
	if (!ops || !ops->lock != !ops->unlock)
		return -1;
	m->migrate_ops = *ops;
	return 0;
}

bool should_evacuate_region_out(const struct zone *z, unsigned int rid, uint64_t threshold,
				uint64_t out)
{
	const struct zone_mem_region *r = &z->regions[rid];
	uint64_t used = r->present_pages - REGION_NR_FREE(r) + out;

	/* region 0 is the target of all our compaction runs */
	return rid != 0 && used > 0 && used <= threshold;
}

bool should_evacuate_region(const struct zone *z, unsigned int rid, uint64_t threshold)
{
	return should_evacuate_region_out(z, rid, threshold, 0);
}

bool mpm_should_evacuate_region(const struct mpm_machine *m, unsigned int zid,
				unsigned int rid, uint64_t threshold)
{
	return zone_region_valid(m, zid, rid) &&
	       should_evacuate_region(&m->zones[zid], rid, threshold);
}

/* The isolated pages of one round, lowest pfn first (migrated highest first). */
struct evac_batch {
	uint64_t pfn[COMPACT_CLUSTER_MAX];
	unsigned int nr;
};

/* power_mgmt_alloc's cc->freepages: idx[nr - 1] is the list's head. */
struct evac_targets {
	uint32_t idx[COMPACT_CLUSTER_MAX];
	unsigned int nr;
};

/* migrate_async_suitable (3.12): async compaction isolates from MOVABLE pageblocks only. */
static bool migrate_async_suitable(int mt)
{
	return mt == MIGRATE_MOVABLE;
}

/* Leave @pfn's pageblock (last_pageblock_nr = it): the next one's first pfn. */
static uint64_t skip_pageblock(const struct mpm_machine *m, uint64_t pfn, uint64_t *last_pb)
{
	*last_pb = pfn >> m->pageblock_order;
	return (*last_pb + 1) << m->pageblock_order;
}

/*
 * The async test at @pfn, a pfn that is not a free head: in a pageblock
 * that is not MOVABLE (and not the one last passed over) the walk goes to
 * the next pageblock, whose first pfn is returned; 0 to go on here.
 */
static uint64_t async_skip(const struct mpm_machine *m, const struct zone *z, uint64_t pfn,
			   uint64_t *last_pb)
{
	if (pfn >> m->pageblock_order == *last_pb ||
	    migrate_async_suitable(get_pageblock_migratetype(m, z, pfn)))
		return 0;
	return skip_pageblock(m, pfn, last_pb);
}

/*
 * Walk [@from, @to): pfns that are neither a free block's head nor an LRU
 * page (the tails of free and allocated blocks).  Each is scanned and
 * passed over, except that async_skip may end a pageblock's walk at the
 * first of them.  Returns the next pfn to look at.
 */
static uint64_t pass_over(const struct mpm_machine *m, const struct zone *z, uint64_t from,
			  uint64_t to, uint64_t *last_pb, struct mpm_evac_result *res)
{
	while (from < to) {
		uint64_t pb_end = ((from >> m->pageblock_order) + 1) << m->pageblock_order;
		uint64_t next = async_skip(m, z, from, last_pb);

		if (next) {
			res->scanned++;
			return next;
		}
		if (pb_end > to)
			pb_end = to;
		res->scanned += pb_end - from;
		from = pb_end;
	}
	return to;
}

/*
 * x86-64's sparsemem: memory is present, and pfn_valid, by sections of
 * 128 MiB (SECTION_SIZE_BITS 27).  A hole inside a present section still
 * has its struct pages, reserved, so pfn_valid holds there.
 */
#define PFN_SECTION_SHIFT	(27 - MPM_PAGE_SHIFT)

/* 3.12's pfn_valid(@pfn): some page of @pfn's section is memory (mpm_pfn_valid). */
static bool section_has_memory(const struct mpm_machine *m, uint64_t pfn)
{
	uint64_t start = pfn >> PFN_SECTION_SHIFT << PFN_SECTION_SHIFT;
	uint64_t end = start + (1ull << PFN_SECTION_SHIFT);

	for (uint64_t p = start; p < end; p++)
		if (mpm_pfn_valid(m, p))
			return true;
	return false;
}

/*
 * isolate_migratepages_range (3.12, async, ignore_skip_hint): from *@pfn
 * up to @end, collect up to COMPACT_CLUSTER_MAX owned order-0 pages into
 * @b; *@pfn is left at the next pfn to look at.
 */
static void isolate_migratepages(const struct mpm_machine *m, const struct zone *z,
				 uint64_t *pfn, uint64_t end, struct evac_batch *b,
				 struct mpm_evac_result *res)
{
	const uint64_t window = 1ull << (MAX_ORDER - 1);
	uint64_t last_pb = 0;	/* last_pageblock_nr, 0 at each call as in 3.12 */

	b->nr = 0;
	while (*pfn < end) {
		uint64_t p = *pfn, next;
		const struct mpm_page *page = &m->pages[pfn_to_idx(m, p)];
		uint8_t flags = READ_ONCE(page->flags);
		uint64_t block = 1ull << READ_ONCE(page->order);
		uint64_t block_end = p + block < end ? p + block : end;

		if ((flags & PG_nomem) && !(p & (window - 1)) && !section_has_memory(m, p)) {
			/* !pfn_valid: every MAX_ORDER window of the section */
			*pfn = ((p >> PFN_SECTION_SHIFT) + 1) << PFN_SECTION_SHIFT;
			continue;
		}
		res->scanned++;
		if (flags & PG_buddy) {		/* skip if free: then its tails */
			*pfn = pass_over(m, z, p + 1, block_end, &last_pb, res);
			continue;
		}
		next = async_skip(m, z, p, &last_pb);
		if (next) {
			*pfn = next;
			continue;
		}
		/* PG_owned: an owner set the entry (never MPM_NO_OWNER, rmap.c) */
		if (flags != (PG_alloc | PG_owned)) {	/* not an LRU page */
			*pfn = flags & PG_alloc ? pass_over(m, z, p + 1, block_end, &last_pb, res) :
			       p + 1;
			continue;
		}
		if (block > 1) {
			/* a huge page, not moved here; unlocked, its pageblock is left */
			res->failed++;
			*pfn = b->nr ? p + block : skip_pageblock(m, p, &last_pb);
			continue;
		}
		b->pfn[b->nr++] = p;
		*pfn = p + 1;
		if (b->nr == COMPACT_CLUSTER_MAX)
			return;
	}
}

/*
 * rmqueue_bulk(zone, 0, @count, &list, MIGRATE_MOVABLE, cold=1) into @t:
 * straight from the buddy lists, without watermarks, accounted as
 * allocations on @cpu.  With cold each page is listed before the one taken
 * before it, so the last taken is the list's head.
 */
static void rmqueue_targets(struct mpm_machine *m, struct zone *z, unsigned int cpu,
			    unsigned int count, struct evac_targets *t)
{
	spin_lock(&z->lock);
	for (t->nr = 0; t->nr < count; t->nr++) {
		uint32_t idx = __rmqueue(m, z, 0, MIGRATE_MOVABLE);

		if (idx == UINT32_MAX)
			break;
		prep_new_page(m, m->pages, idx, 0);
		t->idx[t->nr] = idx;
	}
	ADD_ONCE(z->vm_free_pages, -(long)t->nr);
	__this_cpu_add(z->pageset[cpu].ev[PCP_ALLOCS], t->nr);
	spin_unlock(&z->lock);
}

/*
 * power_mgmt_alloc (patch 35): the target at the head of the list, filled
 * with @count pages when empty; UINT32_MAX -- abort the run -- when none
 * is free or the head lies in a region >= @rid.
 */
static uint32_t power_mgmt_alloc(struct mpm_machine *m, struct zone *z, unsigned int rid,
				 unsigned int cpu, unsigned int count, struct evac_targets *t)
{
	uint32_t idx;

	if (!t->nr)
		rmqueue_targets(m, z, cpu, count, t);
	if (!t->nr)
		return UINT32_MAX;
	idx = t->idx[t->nr - 1];
	if (pfn_zone_region_id(m, z, idx_to_pfn(m, idx)) >= rid)
		return UINT32_MAX;	/* freepage is not from a lower region */
	t->nr--;
	return idx;
}

/* release_freepages: what is left, head first, each freed hot (__free_page). */
static void release_targets(struct mpm_machine *m, unsigned int cpu, struct evac_targets *t)
{
	while (t->nr)
		mpm_free_pages(m, idx_to_pfn(m, t->idx[--t->nr]), 0, cpu);
}

/*
 * Evacuation against the owners (the protocol of evacuate.h).  The kernel
 * isolates a page -- takes it off the LRU holding a reference, so that the
 * owner's put_page cannot free it -- and serialises the PTE switch with the
 * owner's page-table lock.  Here the owner's own lock does both: the batch
 * was collected without it, so each page's owner is looked up again, its
 * lock taken, and the entry re-read under it.  Only an owner changes its
 * pages' entries, and only under that lock, so a page that is the owner's
 * stays so, order 0 and allocated, at its index with its content, until
 * unlock.  An entry that changed was freed (skipped) or freed and reused
 * (it is another owner's page now; the next run of this region finds it).
 * The entry's words are read one at a time, though, and a page freed and
 * reused between two of them can pass the re-check with an owner and an
 * index of different moments: the owner's callbacks, which check their
 * own table, refuse it (evacuate.h), as the kernel's rmap walk checks the
 * pte under the page-table lock.
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
 * reclaim_clean_pages_from_list: each clean page-cache page of @b leaves
 * its file instead of moving; the rest stay in @b, in order.  The kernel
 * frees what shrink_page_list reclaimed cold, lowest pfn first
 * (free_hot_cold_page_list(&free_pages, 1)).
 */
static void reclaim_batch(struct mpm_machine *m, unsigned int cpu, struct evac_batch *b,
			  struct mpm_evac_result *res)
{
	const struct mpm_migrate_ops *ops = &m->migrate_ops;
	uint64_t freed[COMPACT_CLUSTER_MAX];
	unsigned int nr_freed = 0, keep = 0;

	for (unsigned int i = 0; i < b->nr; i++) {
		uint64_t pfn = b->pfn[i];
		uint32_t index, owner = lock_page_owner(m, pfn, &index, res);

		if (owner == MPM_NO_OWNER)
			continue;
		if (ops->reclaim_clean(ops->arg, owner, index, pfn) == 1) {
			mpm_rmap_clear(m, pfn);
			freed[nr_freed++] = pfn;
			res->reclaimed++;
		} else {
			b->pfn[keep++] = pfn;
		}
		unlock_page_owner(m, owner);
	}
	b->nr = keep;
	for (unsigned int i = 0; i < nr_freed; i++)
		mpm_free_cold_page(m, freed[i], cpu);
}

/*
 * unmap_and_move: one page moved, or left (failed).  Under the owner's
 * lock the owner learns the new pfn, the content tag is copied and both
 * reverse-map entries change; the source is freed after unlock, hot, as
 * putback_lru_page frees it, and so is the target of a failed move.  -1
 * when the run must abort (power_mgmt_alloc found no target below), else 0.
 */
static int migrate_one(struct mpm_machine *m, struct zone *z, unsigned int rid,
		       unsigned int cpu, unsigned int count, uint64_t from,
		       struct evac_targets *t, struct mpm_evac_result *res)
{
	const struct mpm_migrate_ops *ops = &m->migrate_ops;
	uint32_t index, owner = lock_page_owner(m, from, &index, res);
	uint32_t tidx;
	uint64_t to;

	if (owner == MPM_NO_OWNER)
		return 0;
	tidx = power_mgmt_alloc(m, z, rid, cpu, count, t);
	if (tidx == UINT32_MAX) {
		unlock_page_owner(m, owner);
		return -1;
	}
	to = idx_to_pfn(m, tidx);
	if (ops->move(ops->arg, owner, index, from, to)) {
		unlock_page_owner(m, owner);
		mpm_free_pages(m, to, 0, cpu);
		res->failed++;
		return 0;
	}
	/* copy the content: the owner wrote it under the lock we hold */
	mpm_rmap_set(m, to, owner, index, READ_LINK_ONCE(m->pages[pfn_to_idx(m, from)].private));
	mpm_rmap_clear(m, from);
	unlock_page_owner(m, owner);
	mpm_free_pages(m, from, 0, cpu);
	res->migrated++;
	return 0;
}

/*
 * migrate_pages over the batch, highest pfn first; power_mgmt_alloc asks
 * for as many targets as the batch holds (cc->nr_migratepages after the
 * reclaim).  False when the run must abort.
 */
static bool migrate_batch(struct mpm_machine *m, struct zone *z, unsigned int rid,
			  unsigned int cpu, struct evac_batch *b, struct evac_targets *t,
			  struct mpm_evac_result *res)
{
	for (unsigned int i = b->nr; i-- > 0;)
		if (migrate_one(m, z, rid, cpu, b->nr, b->pfn[i], t, res))
			return false;
	return true;
}

static int evacuate_mem_region(struct mpm_machine *m, unsigned int zid, unsigned int rid,
			       unsigned int cpu, bool reclaim_clean, struct mpm_evac_result *res)
{
	struct zone *z = &m->zones[zid];
	const struct zone_mem_region *r = &z->regions[rid];
	uint64_t pfn = r->start_pfn;
	struct evac_targets t = { .nr = 0 };
	struct evac_batch b;

	*res = (struct mpm_evac_result){ 0 };
	if (!m->rmap_enabled || !m->migrate_ops.move || cpu >= m->nr_cpus)
		return -1;
	reclaim_clean = reclaim_clean && m->migrate_ops.reclaim_clean;
	while (pfn < r->end_pfn) {
		isolate_migratepages(m, z, &pfn, r->end_pfn, &b, res);
		if (reclaim_clean)
			reclaim_batch(m, cpu, &b, res);
		if (!migrate_batch(m, z, rid, cpu, &b, &t, res)) {
			res->aborted = true;
			break;
		}
	}
	release_targets(m, cpu, &t);
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
