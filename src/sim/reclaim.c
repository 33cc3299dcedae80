// SPDX-License-Identifier: MIT
/*
 * Page cache and memory pressure.  Files hold page cache pages
 * (GFP_HIGHUSER_MOVABLE, cold for reads), kept on their zone's LRU, oldest
 * first.  kswapd, one per node: woken by the allocator's slow path for a
 * zone below its high watermark, it reclaims clean page cache of its own
 * zones by priority until each is above its high watermark (balance_pgdat),
 * dirty pages being written back and rotated (pageout), and frees them on a
 * cpu of its node.  An allocation that fails goes through direct reclaim
 * (by priority over the allocation's zonelist until SWAP_CLUSTER_MAX pages
 * are freed; after a round that made progress, all pcp lists drained if the
 * attempt still fails, as __alloc_pages_direct_reclaim does) and, without
 * progress, for orders up to PAGE_ALLOC_COSTLY_ORDER without __GFP_NORETRY,
 * the OOM killer: the process with most rss + page tables dies.  There is
 * no swap.
 */
#include "sim/ksim.h"

#include <stdlib.h>
#include <string.h>

#define SWAP_CLUSTER_MAX		32
#define PAGE_ALLOC_COSTLY_ORDER		3
#define DEF_PRIORITY			12
#define KSWAPD_ZONE_BALANCE_GAP_RATIO	100

uint64_t ksim_cached_pages(const struct ksim *k)
{
	uint64_t n = 0;

	for (size_t i = 0; i < k->nr_files; i++)
		n += k->files[i]->cached;
	return n;
}

int ksim_reclaim_init(struct ksim *k)
{
	unsigned int nodes = mpm_nr_nodes(k->m);

	k->nr_zones = mpm_nr_zones(k->m);
	k->lru = calloc(k->nr_zones, sizeof(*k->lru));
	k->zone_node = calloc(k->nr_zones, sizeof(*k->zone_node));
	k->kswapd_cpu = calloc(nodes, sizeof(*k->kswapd_cpu));
	k->kswapd = calloc(nodes, sizeof(*k->kswapd));
	if (!k->lru || !k->zone_node || !k->kswapd_cpu || !k->kswapd)
		return -1;
	for (unsigned int z = 0; z < k->nr_zones; z++) {
		struct mpm_zone_info zi;

		mpm_zone_info(k->m, z, &zi);
		k->zone_node[z] = zi.node;
		/* zones are numbered node by node, lowest first */
		if (k->kswapd[zi.node].nr_zones < MPM_NR_ZONE_TYPES)
			k->kswapd[zi.node].zids[k->kswapd[zi.node].nr_zones++] = z;
	}
	/*
	 * kswapd binds itself to its node's cpus (kswapd(): cpumask_of_node);
	 * the first of them stands for where it runs.  A node without cpus
	 * leaves it unbound: cpu 0.
	 */
	for (unsigned int n = 0; n < nodes; n++)
		for (unsigned int cpu = k->nr_cpus; cpu-- > 0;)
			if (mpm_cpu_to_node(k->m, cpu) == n)
				k->kswapd_cpu[n] = cpu;
	return 0;
}

void ksim_reclaim_fini(struct ksim *k)
{
	for (unsigned int z = 0; k->lru && z < k->nr_zones; z++)
		free(k->lru[z].ring);
	free(k->lru);
	free(k->zone_node);
	free(k->kswapd_cpu);
	free(k->kswapd);
	k->kswapd = NULL;
	k->lru = NULL;
	k->zone_node = k->kswapd_cpu = NULL;
}

/* lru_cache_add: onto the LRU of the zone @pfn lies in, as its newest page. */
void ksim_lru_add(struct ksim *k, uint32_t file, uint32_t index, uint32_t pfn)
{
	struct klru *l = &k->lru[mpm_pfn_to_zone(k->m, pfn)];

	if (l->len == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 4096;
		struct klru_entry *n = malloc(cap * sizeof(*n));

		if (!n) {
			ksim_fail(k, "out of memory in the simulator");
			return;
		}
		for (size_t i = 0; i < l->len; i++)
			n[i] = l->ring[(l->head + i) % l->cap];
		free(l->ring);
		l->ring = n;
		l->head = 0;
		l->cap = cap;
	}
	l->ring[(l->head + l->len++) % l->cap] = (struct klru_entry){ file, index, pfn };
	l->nr_pages++;
}

void ksim_lru_del(struct ksim *k, uint64_t pfn)
{
	k->lru[mpm_pfn_to_zone(k->m, pfn)].nr_pages--;
}

/*
 * shrink_zone, for page cache only: from the cold end of zone @zid's LRU,
 * scan up to @nr_to_scan pages (stale entries, of pages no longer there,
 * are dropped without counting) and reclaim the clean ones, freeing them
 * (cold) on @cpu, until @nr_to_reclaim are freed.  A dirty page is written
 * back and rotated: scanned, not freed.  At most the LRU's length at entry
 * is looked at, so a rotated page is not scanned twice.  Returns the pages
 * freed; *@scanned gets the pages scanned.
 */
static uint64_t shrink_zone(struct ksim *k, unsigned int zid, uint64_t nr_to_reclaim,
			    uint64_t nr_to_scan, unsigned int cpu, uint64_t *scanned)
{
	struct klru *l = &k->lru[zid];
	uint64_t freed = 0, looked = 0, budget = l->len;

	*scanned = 0;
	while (freed < nr_to_reclaim && *scanned < nr_to_scan && l->len && looked++ < budget) {
		struct klru_entry e = l->ring[l->head];
		struct kfile *f;
		uint64_t pfn = e.pfn;

		l->head = (l->head + 1) % l->cap;
		l->len--;
		f = k->owner_obj[e.file];
		if (!f || f->pfn[e.index] != e.pfn)
			continue;		/* truncated or reclaimed since */
		l->nr_pages--;
		(*scanned)++;
		if (f->dirty[e.index]) {
			f->dirty[e.index] = 0;	/* written back; rotated */
			ksim_lru_add(k, e.file, e.index, e.pfn);
			continue;
		}
		mpm_rmap_clear(k->m, pfn);
		ksim_freed(k, mpm_free_cold_page(k->m, pfn, cpu), &pfn, 1);
		f->pfn[e.index] = NO_PFN32;
		f->cached--;
		freed++;
	}
	return freed;
}

/*
 * zone_reclaimable: the zone's LRU holds page cache.  3.12 also gives a
 * zone up once it has been scanned six times over with no page freed into
 * it since (pages_scanned); not modelled.
 */
static bool zone_reclaimable(const struct ksim *k, unsigned int zid)
{
	return k->lru[zid].nr_pages != 0;
}

/*
 * shrink_lruvec for global direct reclaim, with no swap: zone @zid's LRU is
 * scanned by lru_size >> @priority pages (get_scan_count: file pages only,
 * and no force_scan for global direct reclaim, so a zone that small gives
 * nothing at this priority), SWAP_CLUSTER_MAX at a time, until the zone has
 * given nr_to_reclaim = SWAP_CLUSTER_MAX ("For global direct reclaim,
 * reclaim only the number of pages requested").  The test comes after each
 * batch, which is reclaimed whole, so a zone may give up to
 * 2 * SWAP_CLUSTER_MAX - 1 pages.
 */
static uint64_t shrink_lruvec_direct(struct ksim *k, unsigned int zid, int priority,
				     unsigned int cpu, uint64_t *nr_scanned)
{
	uint64_t nr = k->lru[zid].nr_pages >> priority, nr_reclaimed = 0;

	while (nr) {
		uint64_t batch = nr < SWAP_CLUSTER_MAX ? nr : SWAP_CLUSTER_MAX, scanned;

		nr -= batch;
		nr_reclaimed += shrink_zone(k, zid, UINT64_MAX, batch, cpu, &scanned);
		*nr_scanned += scanned;
		if (scanned < batch || nr_reclaimed >= SWAP_CLUSTER_MAX)
			break;		/* the LRU ran out, or enough */
	}
	return nr_reclaimed;
}

/*
 * try_to_free_pages (do_try_to_free_pages) for page cache only: from
 * DEF_PRIORITY down to 0, each round shrinks every zone of the failed
 * allocation's zonelist, in its order (shrink_zones; after DEF_PRIORITY a
 * zone that is not reclaimable is left to kswapd), and reclaim stops after
 * the round that brought the total to nr_to_reclaim = SWAP_CLUSTER_MAX.
 * Returns the pages reclaimed.  *@progress gets them too, or 1 when none
 * were but a zone of the zonelist is still reclaimable ("top priority
 * shrink_zones still had more to do? don't OOM, then").  Priority 0 scans
 * every zone's whole LRU, so that happens here only when every page
 * scanned was dirty, and has been written back since: the next call frees
 * them.  Progress also needs a page scanned, so that an LRU count gone
 * wrong (the owner checker recounts it) ends in the OOM killer rather
 * than in a slow path that retries for ever.
 */
static uint64_t try_to_free_pages(struct ksim *k, mpm_gfp_t gfp, unsigned int cpu,
				  uint64_t *progress)
{
	unsigned int zids[64];
	size_t nr = mpm_zonelist_zones(k->m, gfp, cpu, zids, 64);
	uint64_t nr_reclaimed = 0, nr_scanned = 0;

	if (nr > 64)
		nr = 64;	/* a zonelist holds each zone once: never with this few */
	for (int priority = DEF_PRIORITY; priority >= 0; priority--) {
		for (size_t i = 0; i < nr; i++) {
			if (priority != DEF_PRIORITY && !zone_reclaimable(k, zids[i]))
				continue;
			nr_reclaimed += shrink_lruvec_direct(k, zids[i], priority, cpu,
							     &nr_scanned);
		}
		if (nr_reclaimed >= SWAP_CLUSTER_MAX)
			break;
	}
	*progress = nr_reclaimed;
	for (size_t i = 0; i < nr && !*progress && nr_scanned; i++)
		*progress = zone_reclaimable(k, zids[i]);
	return nr_reclaimed;
}

/*
 * zone_balanced(zone, 0, balance_gap, classzone_idx): order 0 passes
 * __zone_watermark_ok at the high mark plus @gap, with the zone's lowmem
 * reserve against allocations of classzone @classzone (none against its
 * own type or a lower one).
 */
static bool zone_balanced(const struct mpm_zone_info *zi, uint64_t gap,
			  enum mpm_zone_type classzone)
{
	return zi->free_pages > zi->wmark_high + gap + zi->lowmem_reserve[classzone];
}

/*
 * The zones balance_pgdat looks at: populated ones, and after
 * DEF_PRIORITY only those still reclaimable.  Fills @zi.
 */
static bool balance_pgdat_zone(const struct ksim *k, unsigned int zid, int priority,
			       struct mpm_zone_info *zi)
{
	mpm_zone_info(k->m, zid, zi);
	if (!zi->present)
		return false;
	return priority == DEF_PRIORITY || zone_reclaimable(k, zid);
}

/*
 * kswapd_shrink_zone: unless the zone is balanced with room to spare (the
 * high mark plus balance_gap, the low mark or 1 % of the zone, whichever is
 * smaller, and the lowmem reserve against kswapd's classzone), shrink it by
 * lru_pages >> priority pages scanned (get_scan_count with no swap: file
 * pages only).  kswapd keeps scanning past nr_to_reclaim: with no anon
 * pages to scan, shrink_lruvec's proportional adjustment leaves the file
 * target whole.  Returns true when the priority need not rise: the zone
 * was balanced, or at least nr_to_reclaim = max(SWAP_CLUSTER_MAX, high
 * mark) pages were scanned.
 */
static bool kswapd_shrink_zone(struct ksim *k, unsigned int zid, const struct mpm_zone_info *zi,
			       unsigned int nid, enum mpm_zone_type classzone, int priority,
			       uint64_t *nr_reclaimed)
{
	uint64_t nr_to_reclaim, balance_gap, scanned;

	nr_to_reclaim = zi->wmark_high > SWAP_CLUSTER_MAX ? zi->wmark_high : SWAP_CLUSTER_MAX;
	balance_gap = (zi->managed + KSWAPD_ZONE_BALANCE_GAP_RATIO - 1) /
		      KSWAPD_ZONE_BALANCE_GAP_RATIO;
	if (balance_gap > zi->wmark_low)
		balance_gap = zi->wmark_low;
	if (zone_balanced(zi, balance_gap, classzone))
		return true;
	*nr_reclaimed += shrink_zone(k, zid, UINT64_MAX, k->lru[zid].nr_pages >> priority,
				     k->kswapd_cpu[nid], &scanned);
	return scanned >= nr_to_reclaim;
}

/*
 * pgdat_balanced for order 0: every zone of the node is above its high
 * mark, or not reclaimable (which balance_pgdat passes over after
 * DEF_PRIORITY, so it counts as balanced).  kswapd's classzone here is
 * the node's highest zone: the waking allocations (GFP_KERNEL,
 * GFP_HIGHUSER_MOVABLE) prefer it.
 */
static bool pgdat_balanced(const struct ksim *k, const unsigned int *zids, unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++) {
		struct mpm_zone_info zi;

		mpm_zone_info(k->m, zids[i], &zi);
		if (!zi.present || !zone_reclaimable(k, zids[i]))
			continue;
		if (!zone_balanced(&zi, 0, zi.type))
			return false;
	}
	return true;
}

/*
 * The highest zone of the node that is not balanced (above its high mark),
 * or -1: balance_pgdat's highmem->dma scan for end_zone.  After
 * DEF_PRIORITY, zones that are not reclaimable are passed over.
 */
static int find_end_zone(const struct ksim *k, const unsigned int *zids, unsigned int nr,
			 int priority)
{
	for (unsigned int i = nr; i-- > 0;) {
		struct mpm_zone_info zi;

		if (balance_pgdat_zone(k, zids[i], priority, &zi) &&
		    !zone_balanced(&zi, 0, MPM_ZONE_DMA))
			return (int)i;
	}
	return -1;
}

/*
 * balance_pgdat for order 0: from DEF_PRIORITY down, each round finds the
 * highest unbalanced zone (end_zone) and runs kswapd_shrink_zone on every
 * zone from DMA up to it, then raises the priority (scans twice as much)
 * unless some zone was balanced or scanned enough, and some page was
 * freed.  It stops when the node is balanced or after priority 1.
 * Returns the pages freed; *@balanced says whether the node was left
 * balanced (pgdat_balanced), which decides whether kswapd sleeps.
 */
static uint64_t balance_pgdat(struct ksim *k, unsigned int nid, bool *balanced)
{
	const unsigned int *zids = k->kswapd[nid].zids;
	unsigned int nr = k->kswapd[nid].nr_zones;
	int priority = DEF_PRIORITY;
	uint64_t total = 0;

	do {
		int end_zone = find_end_zone(k, zids, nr, priority);
		bool raise_priority = true;
		struct mpm_zone_info end;
		uint64_t nr_reclaimed = 0;

		/*
		 * no zone it looks at is below its high mark: that is
		 * pgdat_balanced's own test, over the same zones
		 */
		if (end_zone < 0) {
			*balanced = true;
			return total;
		}
		mpm_zone_info(k->m, zids[end_zone], &end);
		for (int i = 0; i <= end_zone; i++) {
			struct mpm_zone_info zi;

			if (balance_pgdat_zone(k, zids[i], priority, &zi) &&
			    kswapd_shrink_zone(k, zids[i], &zi, nid, end.type, priority,
					       &nr_reclaimed))
				raise_priority = false;
		}
		total += nr_reclaimed;
		if (raise_priority || !nr_reclaimed)
			priority--;
		*balanced = pgdat_balanced(k, zids, nr);
	} while (priority >= 1 && !*balanced);
	return total;
}

/* wakeup_kswapd calls for the zones of node @nid so far (the allocator counts them). */
static uint64_t node_kswapd_wakeups(const struct ksim *k, const unsigned int *zids,
				    unsigned int nr)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < nr; i++) {
		struct mpm_zone_info zi;

		mpm_zone_info(k->m, zids[i], &zi);
		n += zi.kswapd_wakeups;
	}
	return n;
}

/*
 * kswapd, one per node, run at a quantum boundary.  It runs balance_pgdat
 * (counted in kswapd_runs, 3.12's pageoutrun) when the allocator's slow
 * path woke it since the last boundary (wakeup_kswapd for one of its zones
 * below the high mark; counted in kswapd_wakeups if it was asleep, as
 * wakeup_kswapd wakes only a sleeping kswapd), or when it was still
 * unbalanced at the end of its last run: kswapd_try_to_sleep sleeps only on
 * a balanced node, so an unbalanced one goes round again.
 */
void ksim_kswapd(struct ksim *k)
{
	unsigned int nodes = mpm_nr_nodes(k->m);

	for (unsigned int nid = 0; nid < nodes; nid++) {
		struct kswapd_state *ks = &k->kswapd[nid];
		uint64_t wakeups = node_kswapd_wakeups(k, ks->zids, ks->nr_zones);
		bool woken = wakeups != ks->wakeups_seen, balanced;

		ks->wakeups_seen = wakeups;
		if (!woken && !ks->awake)
			continue;
		k->c.kswapd_wakeups += !ks->awake;
		k->c.kswapd_runs++;
		k->c.kswapd_reclaimed += balance_pgdat(k, nid, &balanced);
		ks->awake = !balanced;
	}
}

/*
 * oom_badness: rss + page tables, and at least 1 for any process it may
 * kill ("return (points > 0) ? points : 1"); the biggest live process,
 * the first of equals.
 */
static struct kprocess *select_bad_process(struct ksim *k)
{
	struct kprocess *victim = NULL;
	uint64_t best = 0;

	for (size_t i = 0; i < k->nr_procs; i++) {
		struct kprocess *p = k->procs[i];
		uint64_t points;

		if (p->killed || !p->live_threads)
			continue;
		points = p->mm->rss + p->mm->nr_ptes;
		if (!points)
			points = 1;
		if (points > best) {
			best = points;
			victim = p;
		}
	}
	return victim;
}

static void oom_kill(struct ksim *k, struct kprocess *p)
{
	p->killed = true;
	k->c.oom_kills++;
	for (unsigned int i = 0; i < p->nr_threads; i++)
		ksim_exit_task(k, p->threads[i]);
}

static uint64_t try_alloc(struct ksim *k, mpm_gfp_t gfp, unsigned int order,
			  unsigned int cpu)
{
	uint64_t pfn = mpm_alloc_pages(k->m, gfp, order, cpu);

	ksim_allocator_call_done(k);
	return pfn;
}

uint64_t ksim_alloc_page(struct ksim *k, mpm_gfp_t gfp, unsigned int order,
			 unsigned int cpu)
{
	uint64_t pfn = try_alloc(k, gfp, order, cpu);

	if (pfn != MPM_NO_PFN)
		return pfn;
	return ksim_alloc_page_failed(k, gfp, order, cpu);
}

/*
 * __alloc_pages_direct_reclaim: try_to_free_pages; only if it made
 * progress, an attempt, and if that fails (pages may sit on other cpus'
 * pcp lists) drain_all_pages and one more attempt.  Without progress it
 * returns at once, without draining.
 */
static uint64_t direct_reclaim(struct ksim *k, mpm_gfp_t gfp, unsigned int order,
			       unsigned int cpu, uint64_t *progress)
{
	uint64_t pfn;

	k->c.direct_reclaimed += try_to_free_pages(k, gfp, cpu, progress);
	if (!*progress)
		return MPM_NO_PFN;
	pfn = try_alloc(k, gfp, order, cpu);
	if (pfn != MPM_NO_PFN)
		return pfn;
	mpm_drain_all_pages(k->m);
	return try_alloc(k, gfp, order, cpu);
}

/*
 * What follows an allocation that failed (the allocator's attempt, with its
 * counters, has been made): __alloc_pages_slowpath's rebalance loop.  With
 * progress, should_alloc_retry retries orders up to PAGE_ALLOC_COSTLY_ORDER
 * without __GFP_NORETRY (larger ones would go to compaction, not modelled,
 * and fail).  Without progress, those same allocations go to the OOM killer
 * and restart; the others fail.
 */
uint64_t ksim_alloc_page_failed(struct ksim *k, mpm_gfp_t gfp, unsigned int order,
				unsigned int cpu)
{
	bool may_retry = order <= PAGE_ALLOC_COSTLY_ORDER && !(gfp & MPM___GFP_NORETRY);
	uint64_t pfn, progress;

	/*
	 * A task the OOM killer has chosen (TIF_MEMDIE) may dig into the
	 * reserves: gfp_to_alloc_flags gives it ALLOC_NO_WATERMARKS unless
	 * __GFP_NOMEMALLOC, __alloc_pages_high_priority tries once, and then
	 * the slow path gives up ("Avoid allocations with no watermarks from
	 * looping endlessly") -- no reclaim, no second victim.  A task that
	 * exited by itself has no TIF_MEMDIE: its exit's allocations (the
	 * mmu_gather's batch pages) go the ordinary way.
	 */
	if (k->current && k->current->state == TASK_DEAD && k->current->proc &&
	    k->current->proc->killed) {
		pfn = gfp & MPM___GFP_NOMEMALLOC ? MPM_NO_PFN :
		      try_alloc(k, gfp | MPM___GFP_MEMALLOC, order, cpu);
		if (pfn == MPM_NO_PFN)
			k->c.alloc_failures++;
		return pfn;
	}
	if (!(gfp & MPM___GFP_WAIT)) {
		k->c.alloc_failures++;
		return MPM_NO_PFN;
	}
	for (;;) {
		struct kprocess *victim;

		pfn = direct_reclaim(k, gfp, order, cpu, &progress);
		if (pfn != MPM_NO_PFN)
			return pfn;
		if (!may_retry) {
			k->c.alloc_failures++;
			return MPM_NO_PFN;
		}
		if (progress)
			continue;
		victim = select_bad_process(k);
		if (!victim) {
			ksim_fail(k, "out of memory with nothing left to kill");
			return MPM_NO_PFN;
		}
		oom_kill(k, victim);
		/* the allocating task may have been the victim */
		if (k->current && k->current->state == TASK_DEAD)
			return MPM_NO_PFN;
		pfn = try_alloc(k, gfp, order, cpu);
		if (pfn != MPM_NO_PFN)
			return pfn;
	}
}

struct kfile *ksim_new_file(struct ksim *k, uint32_t npages, unsigned int cpu)
{
	struct kfile *f;

	/* pfn and dirty per page, kept to the end of the run */
	if (!ksim_charge_tables(k, (uint64_t)npages * (sizeof(*f->pfn) + sizeof(*f->dirty)),
				"the workload's files hold more pages"))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->pfn = malloc(npages * sizeof(*f->pfn))) ||
	    !(f->dirty = calloc(npages, 1))) {
		if (f)
			free(f->pfn);
		free(f);
		ksim_fail(k, "out of memory in the simulator");
		return NULL;
	}
	memset(f->pfn, 0xff, npages * sizeof(*f->pfn));
	if (!ksim_grow(k->files, k->nr_files, k->files_cap)) {
		ksim_fail(k, "out of memory in the simulator");
		free(f->pfn);
		free(f->dirty);
		free(f);
		return NULL;
	}
	k->files[k->nr_files++] = f;
	f->npages = npages;
	f->id = ksim_new_owner(k, OWNER_FILE, f);
	f->inode_obj = ksim_slab_alloc(k, SLAB_INODE, cpu);
	f->dentry_obj = ksim_slab_alloc(k, SLAB_DENTRY, cpu);
	return f;
}

/* add_to_page_cache_lru: a new page for @f at @i, owned, on the LRU. */
static bool add_to_page_cache(struct ksim *k, struct kfile *f, uint32_t i,
			      mpm_gfp_t gfp, unsigned int cpu)
{
	uint64_t pfn = ksim_alloc_page(k, gfp, 0, cpu);

	if (pfn == MPM_NO_PFN)
		return false;
	f->pfn[i] = (uint32_t)pfn;
	ksim_rmap_set(k, pfn, f->id, i, content_tag(f->id, i, 0));
	f->cached++;
	ksim_lru_add(k, f->id, i, (uint32_t)pfn);
	return true;
}

uint64_t ksim_read_file(struct ksim *k, struct kfile *f, uint32_t from, uint32_t to,
			unsigned int cpu, bool dirty)
{
	uint64_t used = 0;

	for (uint32_t i = from; i < to && i < f->npages && !k->failed; i++) {
		k->c.cache_reads++;
		if (f->pfn[i] == NO_PFN32) {
			/*
			 * page_cache_sync_readahead allocates cold and may
			 * fail (page_cache_alloc_readahead: __GFP_NORETRY,
			 * so no OOM kill); do_generic_file_read's
			 * no_cached_page then takes the page the read needs
			 * with page_cache_alloc_cold, which may OOM-kill
			 */
			if (!add_to_page_cache(k, f, i, MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_COLD |
						   MPM___GFP_NORETRY | MPM___GFP_NOWARN, cpu) &&
			    !add_to_page_cache(k, f, i, MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_COLD, cpu))
				break;
			k->c.cache_misses++;
			used += k->p.readin_ns_per_page;
			ksim_touch(k, f->pfn[i], TOUCH_PAGE_WR);	/* the disk's DMA */
		} else {
			used += k->p.read_ns_per_page;
		}
		ksim_touch(k, f->pfn[i], TOUCH_PAGE_RD);	/* copy_to_user */
		if (dirty)
			f->dirty[i] = 1;
	}
	return used;
}

uint64_t ksim_write_file(struct ksim *k, struct kfile *f, uint32_t from, uint32_t to,
			 unsigned int cpu)
{
	uint64_t used = 0;

	for (uint32_t i = from; i < to && i < f->npages && !k->failed; i++) {
		k->c.cache_writes++;
		/* a full-page write needs no read-in; mapping gfp, not cold */
		if (f->pfn[i] == NO_PFN32 &&
		    !add_to_page_cache(k, f, i, MPM_GFP_HIGHUSER_MOVABLE, cpu))
			break;
		f->dirty[i] = 1;
		ksim_touch(k, f->pfn[i], TOUCH_PAGE_WR);	/* copy_from_user */
		used += k->p.read_ns_per_page;	/* copy_from_user of 4 KiB */
	}
	return used;
}

/*
 * unlink -> iput -> evict -> truncate_inode_pages_range: pagevec_lookup
 * takes up to PAGEVEC_SIZE cached pages in index order, each leaves the
 * page cache (truncate_inode_page), and pagevec_release frees the pagevec
 * through release_pages -- last page first, hot, as munmap's pagevecs.
 */
void ksim_delete_file(struct ksim *k, struct kfile *f, unsigned int cpu)
{
	uint32_t vec[PAGEVEC_SIZE];
	unsigned int nr = 0;

	for (uint32_t i = 0; i < f->npages; i++) {
		if (f->pfn[i] == NO_PFN32)
			continue;
		vec[nr++] = f->pfn[i];
		ksim_lru_del(k, f->pfn[i]);
		f->pfn[i] = NO_PFN32;
		if (nr == PAGEVEC_SIZE) {
			ksim_release_pages(k, vec, nr, cpu);
			nr = 0;
		}
	}
	if (nr)
		ksim_release_pages(k, vec, nr, cpu);
	f->cached = 0;
	ksim_slab_free(k, f->inode_obj, cpu);
	ksim_slab_free(k, f->dentry_obj, cpu);
	k->owner_obj[f->id] = NULL;
	/* from the end: files are mostly deleted soon after they were made */
	for (size_t i = k->nr_files; i-- > 0;)
		if (k->files[i] == f) {
			k->files[i] = k->files[--k->nr_files];
			break;
		}
	k->c.files_deleted++;
	free(f->pfn);
	free(f->dirty);
	free(f);
}
