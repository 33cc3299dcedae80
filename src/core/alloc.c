// SPDX-License-Identifier: MIT
/*
 * The allocation and free entry points: __alloc_pages_nodemask with its
 * fast path (get_page_from_freelist at the low watermark under the fair zone
 * policy of 3.12.0) and slow path (prepare_slowpath, then the min watermark),
 * buffered_rmqueue, __free_pages and the bulk variants.
 *
 * Not modelled here: direct reclaim, compaction and the OOM killer -- the
 * library has no pages it could reclaim; the simulator layers them on top.
 * An allocation that fails the min watermark fails and is counted.
 */
#include "gfp.h"
#include "pcp.h"

#define __mpm_inline inline __attribute__((always_inline))

static inline void count_alloc(struct per_cpu_pages *pcp, unsigned int order)
{
	__this_cpu_add(pcp->ev[PCP_ALLOCS], 1);
	if (order)
		__this_cpu_add(pcp->ev[PCP_ALLOC_TAIL], (1ull << order) - 1);
}

/*
 * __mod_zone_page_state(zone, NR_ALLOC_BATCH, -pages): accumulate in the
 * cpu's differential and fold into the zone once past the threshold.
 * Allocations only subtract, so only the lower bound of
 * [-stat_threshold, stat_threshold] can be crossed here (a refill by
 * prepare_slowpath may have left the differential above 0).  True when it
 * folded: the zone's batch, which the fair zone policy tests, has just
 * changed.
 */
static inline bool dec_zone_alloc_batch(struct zone *z, struct per_cpu_pages *pcp,
					long pages)
{
	long x = pcp->alloc_batch_diff - pages;
	bool fold = x < -pcp->stat_threshold;

	if (unlikely(fold)) {
		atomic_fetch_add_explicit(&z->vm_alloc_batch, x, memory_order_relaxed);
		x = 0;
	}
	pcp->alloc_batch_diff = x;
	return fold;
}

/* mod_zone_page_state(zone, NR_ALLOC_BATCH, delta), either sign. */
static void mod_zone_alloc_batch(struct zone *z, struct per_cpu_pages *pcp, long delta)
{
	long x = pcp->alloc_batch_diff + delta;

	if (x > pcp->stat_threshold || x < -pcp->stat_threshold) {
		atomic_fetch_add_explicit(&z->vm_alloc_batch, x, memory_order_relaxed);
		x = 0;
	}
	pcp->alloc_batch_diff = x;
}

/*
 * mod_zone_page_state(zone, NR_ALLOC_BATCH, high - low - zone_page_state(zone,
 * NR_ALLOC_BATCH)) on @cpu: the fair-policy batch back to high - low, as
 * prepare_slowpath refills it and __setup_per_zone_wmarks sets it.  The read
 * is zone_page_state(), clamped at 0 as on SMP, so an overdrawn batch
 * carries its debt into the next round; the delta goes through the cpu's
 * differential, so the zone sees it only past the stat threshold.
 */
void reset_zone_alloc_batch(struct zone *z, unsigned int cpu)
{
	long batch = READ_ONCE(z->vm_alloc_batch);

	mod_zone_alloc_batch(z, &z->pageset[cpu],
			     (long)(z->watermark[WMARK_HIGH] - z->watermark[WMARK_LOW]) -
			     (batch > 0 ? batch : 0));
}

/* zone_watermark_ok: order 0 needs one comparison; the rest is out of line. */
static inline bool zone_watermark_ok(const struct zone *z, unsigned int order,
				     unsigned long mark, unsigned int classzone_idx,
				     int alloc_flags)
{
	if (likely(order == 0 && !(alloc_flags & (ALLOC_HIGH | ALLOC_HARDER))))
		return READ_ONCE(((struct zone *)z)->vm_free_pages) >
		       (long)mark + z->lowmem_reserve[classzone_idx];
	return __zone_watermark_ok(z, order, mark, classzone_idx, alloc_flags);
}

/*
 * buffered_rmqueue: order 0 from the cpu's pcp list, higher orders straight
 * from the buddy lists under the zone lock.
 */
static __mpm_inline uint64_t buffered_rmqueue(struct mpm_machine *m, struct zone *z,
				 unsigned int order, mpm_gfp_t gfp,
				 int migratetype, unsigned int cpu)
{
	struct per_cpu_pages *pcp = &z->pageset[cpu];
	bool cold = gfp & MPM___GFP_COLD;
	uint32_t idx;

	if (likely(order == 0)) {
		idx = rmqueue_pcp(m, z, migratetype, cold, cpu);
		if (unlikely(idx == UINT32_MAX))
			return MPM_NO_PFN;
	} else {
		spin_lock(&z->lock);
		idx = __rmqueue(m, z, order, migratetype);
		if (idx != UINT32_MAX)
			ADD_ONCE(z->vm_free_pages, -(1l << order));
		spin_unlock(&z->lock);
		if (idx == UINT32_MAX)
			return MPM_NO_PFN;
	}
	dec_zone_alloc_batch(z, pcp, 1l << order);
	count_alloc(pcp, order);
	return prep_new_page(m, m->pages, idx, order);
}

/*
 * get_page_from_freelist: walk the zonelist.  In the fast path (low
 * watermark) 3.12.0's fair zone policy skips every zone whose NR_ALLOC_BATCH
 * is used up, so allocations are spread over the zones in proportion to
 * their size -- over *all* zones of the zonelist, remote nodes included,
 * because zone_reclaim_mode is 0 on machines whose SLIT distances are below
 * RECLAIM_DISTANCE (30).  That interleaving across nodes was 3.12.0's
 * behaviour (3.13 reverted its NUMA aspect).  A zone that fails its
 * watermark is skipped (zone_reclaim_mode 0: no zone reclaim).
 */
/*
 * The tests of get_page_from_freelist's walk for one zone: in the fast
 * path (low watermark) the fair-zone batch and the zone_reclaim_mode skip,
 * then the watermark the flags name.
 */
static __mpm_inline bool zone_allows(const struct mpm_machine *m, struct zone **zl,
				     struct zone *z, unsigned int order, int alloc_flags,
				     unsigned int classzone_idx)
{
	if (alloc_flags & ALLOC_WMARK_LOW) {
		if (READ_ONCE(z->vm_alloc_batch) <= 0)
			return false;
		if (m->zone_reclaim_mode && z->node != zl[0]->node)
			return false;
	}
	if (!(alloc_flags & ALLOC_NO_WATERMARKS)) {
		unsigned long mark = z->watermark[alloc_flags & ALLOC_WMARK_MASK];

		if (!zone_watermark_ok(z, order, mark, classzone_idx, alloc_flags))
			return false;
	}
	return true;
}

static __mpm_inline uint64_t get_page_from_freelist(struct mpm_machine *m, mpm_gfp_t gfp,
				       unsigned int order, struct zone **zl,
				       int alloc_flags, int migratetype,
				       unsigned int cpu)
{
	unsigned int classzone_idx = zl[0]->type;

	for (struct zone **zp = zl; *zp; zp++) {
		struct zone *z = *zp;
		uint64_t pfn;

		if (!zone_allows(m, zl, z, order, alloc_flags, classzone_idx))
			continue;
		pfn = buffered_rmqueue(m, z, order, gfp, migratetype, cpu);
		if (pfn != MPM_NO_PFN)
			return pfn;
	}
	return MPM_NO_PFN;
}

/*
 * wakeup_kswapd (3.12, mm/vmscan.c): a wakeup only for a zone that is not
 * balanced, zone_balanced(zone, order, 0, 0): the high watermark for
 * @order, classzone 0.  Counted; the library has no kswapd to wake (the
 * simulator's own reclaim, src/sim/reclaim.c, runs at its quanta), so neither
 * the sleeping-kswapd test nor zone_balanced's compaction_suitable for
 * order > 0 applies: a count of the zones kswapd would be asked to balance.
 */
static void wakeup_kswapd(struct zone *z, unsigned int order)
{
	if (!__zone_watermark_ok(z, order, z->watermark[WMARK_HIGH], 0, 0))
		ADD_ATOMIC(z->ev[ZEV_KSWAPD_WAKEUPS], 1);
}

/*
 * prepare_slowpath: wake kswapd for every zone of the zonelist and refill
 * the fair-policy batches to high - low watermark (reset_zone_alloc_batch,
 * through the calling cpu's differential, as 3.12.0's mod_zone_page_state:
 * the zone sees the refill only once that differential passes the stat
 * threshold, or at the next vmstat fold).
 */
static void prepare_slowpath(struct mpm_machine *m, mpm_gfp_t gfp, unsigned int order,
			     struct zone **zl, unsigned int cpu)
{
	for (struct zone **zp = zl; *zp; zp++) {
		struct zone *z = *zp;

		if (!(gfp & MPM___GFP_NO_KSWAPD))
			wakeup_kswapd(z, order);
		if (m->zone_reclaim_mode && z->node != zl[0]->node)
			continue;
		reset_zone_alloc_batch(z, cpu);
	}
}

/*
 * gfp_to_alloc_flags: min watermark; __GFP_HIGH (== ALLOC_HIGH) and
 * callers that cannot sleep may dig deeper; __GFP_MEMALLOC without
 * __GFP_NOMEMALLOC may ignore the watermarks.  There is no task here, so
 * the PF_MEMALLOC and TIF_MEMDIE routes to ALLOC_NO_WATERMARKS, and the
 * rt_task route to ALLOC_HARDER, never apply.
 */
static int gfp_to_alloc_flags(mpm_gfp_t gfp)
{
	int alloc_flags = ALLOC_WMARK_MIN | ALLOC_CPUSET;

	alloc_flags |= (int)(gfp & MPM___GFP_HIGH);
	if (!(gfp & MPM___GFP_WAIT)) {
		if (!(gfp & MPM___GFP_NOMEMALLOC))
			alloc_flags |= ALLOC_HARDER;
		alloc_flags &= ~ALLOC_CPUSET;
	}
	if (!(gfp & MPM___GFP_NOMEMALLOC) && (gfp & MPM___GFP_MEMALLOC))
		alloc_flags |= ALLOC_NO_WATERMARKS;
	return alloc_flags;
}

/* node_zonelist: the zonelist @gfp allocates from on node @nid. */
static inline struct zone **node_zonelist(const struct mpm_machine *m, unsigned int nid,
					  mpm_gfp_t gfp)
{
	return m->node_data[nid].zonelists[!!(gfp & MPM___GFP_THISNODE)][gfp_zone(gfp)].zones;
}

#define GFP_THISNODE	(MPM___GFP_THISNODE | MPM___GFP_NOWARN | MPM___GFP_NORETRY)

static uint64_t alloc_pages_slowpath(struct mpm_machine *m, mpm_gfp_t gfp,
				     unsigned int order, struct zone **zl,
				     int migratetype, unsigned int cpu)
{
	uint64_t pfn = MPM_NO_PFN;

	ADD_ATOMIC(zl[0]->ev[ZEV_SLOWPATH], 1);
	/* GFP_THISNODE callers fall back by themselves: no slow path. */
	if ((gfp & GFP_THISNODE) != GFP_THISNODE) {
		int alloc_flags = gfp_to_alloc_flags(gfp);

		prepare_slowpath(m, gfp, order, zl, cpu);
		pfn = get_page_from_freelist(m, gfp, order, zl,
					     alloc_flags & ~ALLOC_NO_WATERMARKS, migratetype, cpu);
		/*
		 * __alloc_pages_high_priority: once more with no watermark, on
		 * the zonelist of the cpu's node (the high-priority walk ignores
		 * a caller's node).  Its __GFP_NOFAIL loop waits for memory that
		 * nothing here would free meanwhile, so one walk decides.
		 */
		if (pfn == MPM_NO_PFN && (alloc_flags & ALLOC_NO_WATERMARKS))
			pfn = get_page_from_freelist(m, gfp, order,
						     node_zonelist(m, m->cpu_to_node[cpu], gfp),
						     ALLOC_NO_WATERMARKS, migratetype, cpu);
	}
	if (pfn == MPM_NO_PFN)
		ADD_ATOMIC(zl[0]->ev[ZEV_ALLOC_FAILURES], 1);
	return pfn;
}

/*
 * __alloc_pages_nodemask past its first zone's pcp list: the whole zonelist
 * walk at the low watermark, then the slow path.  Out of line, so that the
 * order-0 fast path below needs no stack frame.
 */
static __attribute__((noinline)) uint64_t
__alloc_pages_zonelist(struct mpm_machine *m, mpm_gfp_t gfp, unsigned int order,
		       struct zone **zl, int migratetype, unsigned int cpu)
{
	uint64_t pfn;

	pfn = get_page_from_freelist(m, gfp, order, zl,
				     ALLOC_WMARK_LOW | ALLOC_CPUSET,
				     migratetype, cpu);
	if (unlikely(pfn == MPM_NO_PFN))
		pfn = alloc_pages_slowpath(m, gfp, order, zl, migratetype, cpu);
	return pfn;
}

size_t mpm_zonelist_zones(const struct mpm_machine *m, mpm_gfp_t gfp, unsigned int cpu,
			  unsigned int *zids, size_t max)
{
	struct zone **zl;
	size_t n = 0;

	if (cpu >= m->nr_cpus)
		return 0;
	for (zl = node_zonelist(m, m->cpu_to_node[cpu], gfp); *zl; zl++, n++)
		if (n < max)
			zids[n] = (unsigned int)(*zl - m->zones);
	return n;
}

/*
 * __alloc_pages_nodemask.  Nearly every allocation is order 0 and is served
 * by the first zone of the zonelist from the cpu's pcp list; that case is
 * get_page_from_freelist's first iteration, unrolled here: the fair-zone
 * batch, the low watermark (the zone is its own classzone, and the
 * zone_reclaim_mode test never skips the local zone), then a pcp pop.
 * Anything else -- a higher order, a zone that fails a test, an empty pcp
 * list -- starts the full walk from the first zone again, which repeats
 * the same tests on the same values and so decides exactly as one walk.
 * @nid is a node of the machine: the callers check it.
 */
static __mpm_inline uint64_t __alloc_pages(struct mpm_machine *m, unsigned int nid,
					      mpm_gfp_t gfp, unsigned int order,
					      unsigned int cpu)
{
	struct zone **zl, *z;
	int migratetype;

	if (unlikely(order >= MAX_ORDER || gfp_mobility_bad(gfp)))
		return MPM_NO_PFN;
	zl = node_zonelist(m, nid, gfp);
	z = zl[0];
	if (unlikely(!z))
		return MPM_NO_PFN;
	migratetype = allocflags_to_migratetype(m, gfp);

	if (likely(order == 0) && likely(READ_ONCE(z->vm_alloc_batch) > 0) &&
	    likely(zone_watermark_ok(z, 0, z->watermark[WMARK_LOW], z->type,
				     ALLOC_WMARK_LOW | ALLOC_CPUSET))) {
		struct mpm_page *pg = m->pages;
		struct per_cpu_pages *pcp = &z->pageset[cpu];
		uint32_t head = pcp->lists[migratetype];

		if (likely(!list_empty(pg, head))) {
			uint32_t idx = __rmqueue_pcp(pg, pcp, head, gfp & MPM___GFP_COLD);

			dec_zone_alloc_batch(z, pcp, 1);
			count_alloc(pcp, 0);
			return prep_new_page(m, pg, idx, 0);
		}
	}
	return __alloc_pages_zonelist(m, gfp, order, zl, migratetype, cpu);
}

uint64_t mpm_alloc_pages_node(struct mpm_machine *m, unsigned int nid,
			      mpm_gfp_t gfp, unsigned int order, unsigned int cpu)
{
	if (unlikely(cpu >= m->nr_cpus || nid >= m->nr_nodes))
		return MPM_NO_PFN;
	return __alloc_pages(m, nid, gfp, order, cpu);
}

uint64_t mpm_alloc_pages(struct mpm_machine *m, mpm_gfp_t gfp,
			 unsigned int order, unsigned int cpu)
{
	if (unlikely(cpu >= m->nr_cpus))
		return MPM_NO_PFN;
	/* cpu_to_node[] holds valid nodes only (machine set-up) */
	return __alloc_pages(m, m->cpu_to_node[cpu], gfp, order, cpu);
}

/*
 * The zone at which the fast path's zonelist walk (get_page_from_freelist
 * at the low watermark, as __alloc_pages unrolls its first step) would
 * stop for an order-0 allocation: the first zone that has fair-zone batch
 * left, is not skipped for zone_reclaim_mode and passes the low watermark.
 * NULL if none does.
 */
static inline struct zone *fast_path_zone(const struct mpm_machine *m, struct zone **zl)
{
	for (struct zone **zp = zl; *zp; zp++)
		if (zone_allows(m, zl, *zp, 0, ALLOC_WMARK_LOW | ALLOC_CPUSET, zl[0]->type))
			return *zp;
	return NULL;
}

/*
 * Pop up to @nr order-0 pages off @z's pcp list @head, each as
 * buffered_rmqueue would.  Stops early when the list runs dry or when a
 * page folds the cpu's NR_ALLOC_BATCH differential into the zone: that is
 * the only change a pop makes to what fast_path_zone() decides.
 */
static size_t pcp_pop_run(struct mpm_machine *m, struct zone *z, unsigned int cpu,
			  uint32_t head, bool cold, size_t nr, uint64_t *pfns)
{
	struct mpm_page *pg = m->pages;
	struct per_cpu_pages *pcp = &z->pageset[cpu];
	size_t i = 0;

	while (i < nr && !list_empty(pg, head)) {
		uint32_t idx = __rmqueue_pcp(pg, pcp, head, cold);

		pfns[i++] = prep_new_page(m, pg, idx, 0);
		if (dec_zone_alloc_batch(z, pcp, 1))
			break;
	}
	__this_cpu_add(pcp->ev[PCP_ALLOCS], i);
	return i;
}

/*
 * @nr allocations, decided exactly as @nr calls of mpm_alloc_pages() would
 * decide them, with the same counters.  For order 0 the zonelist walk runs
 * once per run of pages instead of once per page: while the walk stops at
 * the same zone and that zone's pcp list holds pages, nothing the walk
 * tests changes (pcp pages are not free pages) except the fair-zone batch,
 * whose fold ends the run.  Everything else -- an empty list, a zone that
 * fails its tests, a higher order -- is one ordinary allocation.
 */
size_t mpm_alloc_pages_bulk(struct mpm_machine *m, mpm_gfp_t gfp,
			    unsigned int order, unsigned int cpu, size_t nr,
			    uint64_t *pfns)
{
	struct zone **zl;
	size_t i = 0;
	int migratetype;

	if (unlikely(cpu >= m->nr_cpus || gfp_mobility_bad(gfp)))
		return 0;
	zl = node_zonelist(m, m->cpu_to_node[cpu], gfp);
	migratetype = allocflags_to_migratetype(m, gfp);
	while (i < nr) {
		struct zone *z;

		if (order == 0 && (z = fast_path_zone(m, zl)) != NULL) {
			uint32_t head = z->pageset[cpu].lists[migratetype];

			if (!list_empty(m->pages, head)) {
				i += pcp_pop_run(m, z, cpu, head, gfp & MPM___GFP_COLD,
						 nr - i, pfns + i);
				continue;
			}
		}
		pfns[i] = mpm_alloc_pages(m, gfp, order, cpu);
		if (pfns[i] == MPM_NO_PFN)
			break;
		i++;
	}
	return i;
}

static inline void count_free(struct per_cpu_pages *pcp, unsigned int order)
{
	__this_cpu_add(pcp->ev[PCP_FREES], 1);
	if (order)
		__this_cpu_add(pcp->ev[PCP_FREE_TAIL], (1ull << order) - 1);
}

/*
 * __free_pages_ok: a higher-order block straight to the buddy lists.
 * Returns 0, or -1 with nothing touched, for the guarded free to return (a
 * tail call).
 */
static __attribute__((noinline)) int __free_pages_ok(struct mpm_machine *m, struct zone *z,
						       uint32_t idx, unsigned int order,
						       unsigned int cpu)
{
	struct mpm_page *page = &m->pages[idx];
	int mt;

	/*
	 * free_pages_prepare: bad_page() looks at every page of the block, and
	 * an inner page that still has an owner (still mapped) refuses the
	 * free like the head's own test in free_pages_cpu().  Only while some
	 * inner page anywhere has one: the walk costs two cache lines of an
	 * order-3 block, 30 % of a sorted `mixed` operation at 1G
	 * (docs/benchmarks-log.md, "Inner owners").
	 */
	if (unlikely(atomic_load_explicit(&m->inner_owned, memory_order_relaxed)))
		for (uint32_t i = 1; i < (1u << order); i++)
			if (READ_ONCE(page[i].flags) & PG_owned)
				return -1;
	mt = get_pageblock_migratetype(m, z, idx_to_pfn(m, idx));
	count_free(&z->pageset[cpu], order);
	WRITE_ONCE(page->flags, 0);
	page->freepage_mt = (uint8_t)mt;
	free_one_page(m, z, idx, order, mt);
	return 0;
}

/*
 * The guarded free: @pfn must be the head of an allocated block of @order
 * that no owner holds (flags exactly PG_alloc: PG_owned is a page still
 * mapped, bad_page()'s mapcount test; __free_pages_ok tests the inner
 * pages of a larger block), else -1 and no state touched, so
 * that a bad free cannot corrupt the lists.  One unsigned comparison of the
 * offset covers pfns on both sides of the page array.
 */
static __mpm_inline int free_pages_cpu(struct mpm_machine *m, uint64_t pfn, unsigned int order,
			  unsigned int cpu, bool cold)
{
	uint64_t off = pfn - m->pfn_base;
	struct mpm_page *page;
	struct zone *z;

	if (unlikely(off >= m->nr_pfns || cpu >= m->nr_cpus))
		return -1;
	page = &m->pages[off];
	if (unlikely(READ_ONCE(page->flags) != PG_alloc || READ_ONCE(page->order) != order))
		return -1;
	z = &m->zones[page->zone];
	if (unlikely(order))
		return __free_pages_ok(m, z, (uint32_t)off, order, cpu);
	count_free(&z->pageset[cpu], 0);
	return free_hot_cold_page(m, z, (uint32_t)off, cold, cpu);
}

int mpm_free_pages(struct mpm_machine *m, uint64_t pfn, unsigned int order,
		   unsigned int cpu)
{
	return free_pages_cpu(m, pfn, order, cpu, false);
}

int mpm_free_cold_page(struct mpm_machine *m, uint64_t pfn, unsigned int cpu)
{
	return free_pages_cpu(m, pfn, 0, cpu, true);
}

int mpm_free_pages_bulk(struct mpm_machine *m, const uint64_t *pfns, size_t nr,
			unsigned int order, unsigned int cpu)
{
	int ret = 0;

	for (size_t i = 0; i < nr; i++)
		if (free_pages_cpu(m, pfns[i], order, cpu, false))
			ret = -1;
	return ret;
}

/* free_hot_cold_page_list: what release_pages() hands over, page by page. */
int mpm_free_page_list(struct mpm_machine *m, const uint64_t *pfns, size_t nr,
		       unsigned int cpu, int cold)
{
	int ret = 0;

	for (size_t i = 0; i < nr; i++) {
		/* the pages are scattered: start the next ones' misses early */
		if (i + 4 < nr && pfn_in_array(m, pfns[i + 4]))
			__builtin_prefetch(&m->pages[pfn_to_idx(m, pfns[i + 4])], 1);
		if (free_pages_cpu(m, pfns[i], 0, cpu, cold))
			ret = -1;
	}
	return ret;
}

void mpm_drain_local_pages(struct mpm_machine *m, unsigned int cpu)
{
	if (cpu >= m->nr_cpus)
		return;
	for (unsigned int i = 0; i < m->nr_zones; i++)
		drain_zone_pages(m, &m->zones[i], cpu);
}

void mpm_drain_all_pages(struct mpm_machine *m)
{
	for (unsigned int cpu = 0; cpu < m->nr_cpus; cpu++)
		mpm_drain_local_pages(m, cpu);
}
