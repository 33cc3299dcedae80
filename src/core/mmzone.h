/* SPDX-License-Identifier: MIT */
/*
 * The allocator's internal data structures, named after include/linux/mmzone.h.
 * Not part of the public API; shared by the files of src/core and by tests.
 */
#ifndef MPM_CORE_MMZONE_H
#define MPM_CORE_MMZONE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <mempower/mempower.h>

#include "page.h"
#include "spinlock.h"

#define MAX_ORDER		MPM_MAX_ORDER
#define MIGRATE_UNMOVABLE	MPM_MIGRATE_UNMOVABLE
#define MIGRATE_RECLAIMABLE	MPM_MIGRATE_RECLAIMABLE
#define MIGRATE_MOVABLE		MPM_MIGRATE_MOVABLE
#define MIGRATE_PCPTYPES	MPM_MIGRATE_PCPTYPES
#define MIGRATE_RESERVE		MPM_MIGRATE_RESERVE
#define MIGRATE_ISOLATE		MPM_MIGRATE_ISOLATE
#define MIGRATE_TYPES		MPM_MIGRATE_TYPES
#define MAX_NR_ZONES		MPM_NR_ZONE_TYPES

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/* Watermark indices (enum zone_watermarks). */
enum { WMARK_MIN, WMARK_LOW, WMARK_HIGH, NR_WMARK };

/* alloc_flags of get_page_from_freelist(), as in mm/internal.h of 3.12. */
#define ALLOC_WMARK_MIN		WMARK_MIN
#define ALLOC_WMARK_LOW		WMARK_LOW
#define ALLOC_WMARK_HIGH	WMARK_HIGH
#define ALLOC_NO_WATERMARKS	0x04
#define ALLOC_WMARK_MASK	(ALLOC_NO_WATERMARKS - 1)
#define ALLOC_HARDER		0x10
#define ALLOC_HIGH		0x20
#define ALLOC_CPUSET		0x40

/*
 * Relaxed atomics: plain loads and stores on x86, but race-free in the C
 * memory model, for counters read without the lock that guards writers.
 */
#define READ_ONCE(x)		atomic_load_explicit(&(x), memory_order_relaxed)
#define WRITE_ONCE(x, v)	atomic_store_explicit(&(x), (v), memory_order_relaxed)
#define ADD_ONCE(x, v)		WRITE_ONCE(x, READ_ONCE(x) + (v))	/* one writer */
/* a counter that threads bump under no common lock: a locked add */
#define ADD_ATOMIC(x, v)	atomic_fetch_add_explicit(&(x), (v), memory_order_relaxed)

/*
 * __this_cpu_add: a counter with one writer (the thread that holds the
 * cpu) and unlocked readers.  On x86-64, as in the kernel, one unlocked
 * read-modify-write instruction on the 8-byte aligned counter, which a
 * reader sees whole, before or after; the compiler emits a load, an add
 * and a store for ADD_ONCE.  Elsewhere, and under ThreadSanitizer (which
 * cannot see into asm, and should go on checking that one thread writes),
 * ADD_ONCE.
 */
#if defined(__SANITIZE_THREAD__)
#define MPM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MPM_TSAN 1
#endif
#endif

#if defined(__x86_64__) && !defined(MPM_TSAN)
#define __this_cpu_add(x, v)						\
	__asm__ __volatile__("addq %1, %0" : "+m"(*(uint64_t *)&(x)) : "er"((uint64_t)(v)))
#else
#define __this_cpu_add(x, v)	ADD_ONCE(x, v)
#endif

/*
 * Per-cpu event counters of one zone (vm_event_item subset).  Pages are
 * counted as blocks plus the pages beyond each block's head (2^order - 1),
 * so that an order-0 allocation or free moves one counter, not two;
 * pcp_pgalloc() and pcp_pgfree() give PGALLOC and PGFREE.
 */
enum pcp_event {
	PCP_ALLOCS,		/* blocks allocated */
	PCP_FREES,		/* blocks freed */
	PCP_ALLOC_TAIL,		/* pages allocated beyond the blocks' head pages */
	PCP_FREE_TAIL,		/* pages freed beyond the blocks' head pages */
	NR_PCP_EVENTS
};

/* struct per_cpu_pages + the vmstat differentials of one cpu in one zone. */
struct per_cpu_pages {
	int count;			/* pages on the lists */
	int high;			/* high watermark: drain when reached */
	int batch;			/* chunk size for buddy add/remove */
	uint32_t lists[MIGRATE_PCPTYPES];	/* sentinel index of each list */
	long alloc_batch_diff;		/* NR_ALLOC_BATCH differential */
	long stat_threshold;		/* the zone's, copied where the differential is */
	int expire;			/* refresh_cpu_vm_stats: intervals left before a remote drain */
	uint64_t last_activity;		/* allocs + frees at the last refresh */
	_Atomic uint64_t ev[NR_PCP_EVENTS];	/* written by the cpu, read by stats */
} __attribute__((aligned(64)));

/*
 * pcp->count is written by its cpu, and by a drain under the zone lock,
 * and read without a lock by the statistics (mpm_pcp_pages, the zoneinfo
 * printer): relaxed atomic loads and stores, plain moves on x86.
 */
#define PCP_COUNT(pcp)		__atomic_load_n(&(pcp)->count, __ATOMIC_RELAXED)

/* pcp->count += @n by its writer; returns the new count. */
static inline int pcp_count_add(struct per_cpu_pages *pcp, int n)
{
	int count = PCP_COUNT(pcp) + n;

	__atomic_store_n(&pcp->count, count, __ATOMIC_RELAXED);
	return count;
}

/* PGALLOC and PGFREE of one cpu in one zone; allocated pages = their difference. */
static inline uint64_t pcp_pgalloc(const struct per_cpu_pages *pcp)
{
	struct per_cpu_pages *p = (struct per_cpu_pages *)pcp;

	return atomic_load_explicit(&p->ev[PCP_ALLOCS], memory_order_relaxed) +
	       atomic_load_explicit(&p->ev[PCP_ALLOC_TAIL], memory_order_relaxed);
}

static inline uint64_t pcp_pgfree(const struct per_cpu_pages *pcp)
{
	struct per_cpu_pages *p = (struct per_cpu_pages *)pcp;

	return atomic_load_explicit(&p->ev[PCP_FREES], memory_order_relaxed) +
	       atomic_load_explicit(&p->ev[PCP_FREE_TAIL], memory_order_relaxed);
}

/*
 * The top BUDDY_HINT_RING entries of one of mainline's order-0 free lists,
 * as far as pushes and pops have shown them: the head block at
 * slot[(pos - 1) % BUDDY_HINT_RING], the deepest at slot[pos %
 * BUDDY_HINT_RING] (freelist.h, push_buddy_hint()).  Hints only.
 */
#define BUDDY_HINT_RING	16
struct buddy_hint_ring {
	uint32_t slot[BUDDY_HINT_RING];
	uint32_t pos;		/* pushes less pops, mod 2^32 */
};

struct free_area {
	uint32_t free_list[MIGRATE_TYPES];	/* sentinel index of each list */
	_Atomic unsigned long nr_free;		/* blocks in all lists; read unlocked by watermark checks */
};

/* A zone's share of one node memory region (patch 03), with its free pages. */
struct zone_mem_region {
	uint64_t start_pfn;
	uint64_t end_pfn;
	uint64_t present_pages;
	uint64_t managed_pages;		/* present less reserved */
	uint64_t nr_free;		/* pages free in buddy lists (exact) */
};

/*
 * zone_mem_region.nr_free changes under the zone lock and is read without
 * it by the statistics (mpm_region_info, the region printer) and by
 * mpm_should_evacuate_region: relaxed atomic stores and unlocked loads,
 * plain moves on x86.  Under the lock a plain read is enough.
 */
#define REGION_NR_FREE(r)		__atomic_load_n(&(r)->nr_free, __ATOMIC_RELAXED)
#define SET_REGION_NR_FREE(r, v)	__atomic_store_n(&(r)->nr_free, (v), __ATOMIC_RELAXED)

struct sorted_free_lists;
struct region_allocator;
struct mempower_work;
struct kmpd_ctl;

/*
 * Zone-level events, counted under zone->lock; the slow path's kswapd
 * wakeups, slow paths and failures, counted under no lock, with ADD_ATOMIC.
 */
enum zone_event {
	ZEV_FALLBACKS,
	ZEV_FRAGMENTING,
	ZEV_PAGEBLOCK_CLAIMS,
	ZEV_RESERVE_ALLOCS,
	ZEV_REGION_BIAS,
	ZEV_EVAC_RUN,
	ZEV_EVAC_ABORTED,
	ZEV_MIGRATED,
	ZEV_RECLAIMED,
	ZEV_MIGRATE_FAILED,
	ZEV_PCP_REFILLS,
	ZEV_PCP_DRAINS,
	ZEV_MERGES,
	ZEV_SPLITS,
	ZEV_SLOWPATH,
	ZEV_KSWAPD_WAKEUPS,
	ZEV_ALLOC_FAILURES,
	NR_ZONE_EVENTS
};

struct zone {
	/* Read on every allocation: watermarks, counters, fair-batch. */
	unsigned long watermark[NR_WMARK];
	long lowmem_reserve[MAX_NR_ZONES];
	_Atomic long vm_free_pages;		/* NR_FREE_PAGES */
	_Atomic long vm_alloc_batch;		/* NR_ALLOC_BATCH */
	int stat_threshold;
	unsigned int node;
	enum mpm_zone_type type;
	unsigned int id;			/* machine-wide zone id */
	struct per_cpu_pages *pageset;		/* [nr_cpus] */

	spinlock_t lock;
	struct free_area free_area[MAX_ORDER];
	struct buddy_hint_ring hint_ring[MIGRATE_TYPES];	/* order 0, plain lists */
	struct sorted_free_lists *sorted;	/* region-sorted lists (sorted.h); NULL: plain lists */
	struct region_allocator *ralloc;	/* ralloc.h; NULL without region_allocator */
	struct mempower_work *mpw;		/* mempower_work.h; NULL without evacuation */
	_Atomic long nr_free_mt[MIGRATE_TYPES];	/* free pages on each type's lists */
	/*
	 * Migratetype per pageblock.  Written under the zone lock, read without
	 * it by the pcp free path (free_hot_cold_page), as in the kernel: a
	 * free racing with a steal may see the old type.  Relaxed atomics make
	 * that benign race well defined.
	 */
	_Atomic uint8_t *pageblock_flags;
	uint64_t pageblock_base_pfn;	/* zone_start_pfn rounded down to a pageblock */

	uint64_t zone_start_pfn;
	uint64_t spanned_pages;
	uint64_t present_pages;
	uint64_t managed_pages;

	/* Memory regions (patches 02-04), bookkeeping in every policy. */
	struct zone_mem_region *regions;
	unsigned int nr_regions;
	unsigned int nr_present_regions;
	unsigned int first_node_region;	/* node region index of regions[0], mod 2^32 */
	uint64_t region_base_pfn;	/* where node region 0 begins */
	_Atomic unsigned int free_regions;

	_Atomic uint64_t ev[NR_ZONE_EVENTS];
};

static inline uint64_t zone_end_pfn(const struct zone *z)
{
	return z->zone_start_pfn + z->spanned_pages;
}

static inline bool zone_spans_pfn(const struct zone *z, uint64_t pfn)
{
	return z->zone_start_pfn <= pfn && pfn < zone_end_pfn(z);
}

/* A zonelist: zone pointers, best first, NULL-terminated. */
struct zonelist {
	struct zone **zones;
};

struct pglist_data {
	unsigned int node_id;
	uint64_t node_start_pfn;
	uint64_t node_end_pfn;
	unsigned int nr_zones;			/* zones of this node */
	struct zone *node_zones[MAX_NR_ZONES];	/* by type; NULL if absent */
	/* [0][type]: fallback to other nodes; [1][type]: __GFP_THISNODE */
	struct zonelist zonelists[2][MAX_NR_ZONES];
};

struct mpm_machine {
	struct mpm_page *pages;		/* page array, then list sentinels */
	bool rmap_enabled;		/* mpm_rmap_enable(): owners are recorded */
	/*
	 * Inner pages of allocated blocks that have an owner (rmap.c): while
	 * there are none, a free of order > 0 need not look at its inner pages
	 * for one (__free_pages_ok), and mixed-order work without a reverse
	 * map pays nothing for that test.
	 */
	_Atomic uint64_t inner_owned;
	struct mpm_migrate_ops migrate_ops;	/* evacuate.c; move == NULL: none */
	uint64_t pfn_base;		/* pfn of pages[0] */
	uint64_t nr_pfns;		/* pages in the array (not sentinels) */
	uint64_t nr_entries;		/* pages + sentinels */
	uint32_t next_sentinel;

	unsigned int nr_nodes;
	unsigned int nr_cpus;
	unsigned int nr_zones;
	unsigned int region_shift;
	bool region_absolute;
	unsigned int pageblock_order;
	bool page_group_by_mobility_disabled;
	bool zone_reclaim_mode;		/* 0: SLIT distances below RECLAIM_DISTANCE */
	unsigned int zonelist_order;	/* MPM_ZONELIST_ORDER_NODE or _ZONE */
	unsigned long min_free_kbytes;
	bool khugepaged;		/* set_recommended_min_free_kbytes at boot */
	unsigned long features;
	uint64_t evac_threshold;	/* should_evacuate_region's used-page bound */
	bool system_running;		/* boot freeing done: evacuation triggers armed */
	/*
	 * called (under a zone lock) when a region is queued for kmempowerd;
	 * hook and arg change together under every zone lock
	 * (mpm_set_mempower_notify), so a thread that frees while the
	 * library's kmempowerd replaces a hook sees a matching pair
	 */
	void (*_Atomic mempower_notify)(void *arg, unsigned int nid);
	void *mempower_notify_arg;
	/* kmempowerd.c: the library's threads, once started; published with
	 * release, read with acquire (mpm_kmempowerd_stats from any thread) */
	struct kmpd_ctl *_Atomic kmpd;
	uint64_t total_present;

	struct pglist_data node_data[MPM_MAX_NUMNODES];
	struct zone *zones;			/* [nr_zones] machine-wide */
	unsigned int *cpu_to_node;		/* [nr_cpus] */
	unsigned int regions_total;
	size_t metadata_bytes;
};

/* ---- pfn <-> page <-> zone ---- */

static inline uint32_t pfn_to_idx(const struct mpm_machine *m, uint64_t pfn)
{
	return (uint32_t)(pfn - m->pfn_base);
}

static inline uint64_t idx_to_pfn(const struct mpm_machine *m, uint32_t idx)
{
	return m->pfn_base + idx;
}

/* One unsigned comparison: a pfn below the base wraps past nr_pfns. */
static inline bool pfn_in_array(const struct mpm_machine *m, uint64_t pfn)
{
	return pfn - m->pfn_base < m->nr_pfns;
}

/* Does the machine have zone @zid with a region @rid?  The API checks its ids. */
static inline bool zone_region_valid(const struct mpm_machine *m, unsigned int zid,
				     unsigned int rid)
{
	return zid < m->nr_zones && rid < m->zones[zid].nr_regions;
}

/*
 * The zone whose span holds @pfn, or NULL.  The entries of pfns outside
 * every zone are never written (layout_page_array): their zero zone id is
 * only believed where that zone's span holds the pfn.
 */
static inline struct zone *pfn_zone(const struct mpm_machine *m, uint64_t pfn)
{
	unsigned int id;

	if (!pfn_in_array(m, pfn))
		return NULL;
	id = m->pages[pfn_to_idx(m, pfn)].zone;
	if (id >= m->nr_zones || !zone_spans_pfn(&m->zones[id], pfn))
		return NULL;
	return &m->zones[id];
}

/*
 * The owner the reverse map names for page @idx, or MPM_NO_OWNER (rmap.c).
 * Safe without any lock: a page that changes hands meanwhile can yield a
 * stale owner or a list index, which the caller re-checks under the owner's
 * lock (evacuate.c), and the owner's callbacks confirm (evacuate.h).
 */
static inline uint32_t page_rmap_owner(const struct mpm_machine *m, uint32_t idx)
{
	if (!(READ_ONCE(((struct mpm_page *)&m->pages[idx])->flags) & PG_owned))
		return MPM_NO_OWNER;
	return READ_LINK_ONCE(m->pages[idx].next);
}

/* The owner's index of page @idx; meaningful only with PG_owned. */
static inline uint32_t page_rmap_index(const struct mpm_machine *m, uint32_t idx)
{
	return READ_LINK_ONCE(m->pages[idx].prev);
}

static inline unsigned long pageblock_nr_pages(const struct mpm_machine *m)
{
	return 1ul << m->pageblock_order;
}

/* ---- pageblock migratetype (get/set_pageblock_migratetype) ---- */

static inline unsigned long pfn_to_bitidx(const struct mpm_machine *m,
					  const struct zone *z, uint64_t pfn)
{
	return (pfn - z->pageblock_base_pfn) >> m->pageblock_order;
}

static inline int get_pageblock_migratetype(const struct mpm_machine *m,
					    const struct zone *z, uint64_t pfn)
{
	return READ_ONCE(z->pageblock_flags[pfn_to_bitidx(m, z, pfn)]);
}

/* ralloc.c: a region's cached pageblock type is stale (struct ra_region) */
void ralloc_pageblock_changed(const struct mpm_machine *m, struct zone *z, uint64_t pfn);

static inline void set_pageblock_migratetype(const struct mpm_machine *m,
					     struct zone *z, uint64_t pfn, int mt)
{
	if (unlikely(m->page_group_by_mobility_disabled))
		mt = MIGRATE_UNMOVABLE;
	WRITE_ONCE(z->pageblock_flags[pfn_to_bitidx(m, z, pfn)], (uint8_t)mt);
	if (z->ralloc)
		ralloc_pageblock_changed(m, z, pfn);
}

/* ---- zone memory regions (page_zone_region_id, patch 04) ---- */

static inline unsigned int pfn_zone_region_id(const struct mpm_machine *m,
					      const struct zone *z, uint64_t pfn)
{
	return (unsigned int)((pfn - z->region_base_pfn) >> m->region_shift) -
	       z->first_node_region;
}

/* Defined across src/core; see the file named in each comment. */

/* topology.c: a zeroed per-pfn array on huge pages; munmap() frees it */
void *mpm_alloc_pfn_array(size_t bytes);
/* prefault.c: first-touch a large machine's page array on several CPUs. */
void prefault_page_array(const struct mpm_machine *m, const struct mpm_machine_spec *s);

/* page_alloc.c */
uint32_t __rmqueue(struct mpm_machine *m, struct zone *z, unsigned int order,
		   int migratetype);
void __free_one_page(struct mpm_machine *m, struct zone *z, uint32_t idx,
		     unsigned int order, int migratetype);
void free_one_page(struct mpm_machine *m, struct zone *z, uint32_t idx,
		   unsigned int order, int migratetype);
int move_freepages_block(struct mpm_machine *m, struct zone *z, uint64_t pfn,
			 int migratetype);

/* pcp.c (the fast paths are inline in pcp.h) */
int zone_batchsize(const struct zone *z);
void setup_zone_pageset(struct mpm_machine *m, struct zone *z);
int rmqueue_bulk(struct mpm_machine *m, struct zone *z, unsigned int count,
		 uint32_t head, int migratetype, bool cold);
void free_pcppages_bulk(struct mpm_machine *m, struct zone *z, int count,
			struct per_cpu_pages *pcp);
int free_pcppages_batch(struct mpm_machine *m, struct zone *z, struct per_cpu_pages *pcp);
int free_isolated_page(struct mpm_machine *m, struct zone *z, uint32_t idx);
void drain_zone_pages(struct mpm_machine *m, struct zone *z, unsigned int cpu);

/* watermark.c */
/*
 * A call's one-line reason, written into @err when the caller gave a buffer
 * (@err non-NULL, @len non-zero); returns -1 (topology.c).
 */
__attribute__((format(printf, 3, 4)))
int fail_msg(char *err, size_t len, const char *fmt, ...);
void init_per_zone_wmark_min(struct mpm_machine *m);
void reset_zone_alloc_batch(struct zone *z, unsigned int cpu);
/* What boot set up, for the checker too: watermark.c. */
void zone_wmarks(const struct mpm_machine *m, const struct zone *z,
		 unsigned long wmark[NR_WMARK]);
long zone_lowmem_reserve(const struct mpm_machine *m, const struct zone *z, int j);
int calculate_normal_threshold(const struct mpm_machine *m, const struct zone *z);
bool __zone_watermark_ok(const struct zone *z, unsigned int order,
			 unsigned long mark, unsigned int classzone_idx,
			 int alloc_flags);

/* reserve.c */
void setup_zone_migrate_reserve(struct mpm_machine *m, struct zone *z);

/* kmempowerd.c: stop the library's threads and free their state */
void kmempowerd_destroy(struct mpm_machine *m);

/* zonelist.c */
void build_all_zonelists(struct mpm_machine *m, unsigned int order);

/* Sentinel allocation for list heads (topology.c). */
uint32_t alloc_list_head(struct mpm_machine *m);
/* Pages of [start, end) that fall into the spec's holes (topology.c). */
uint64_t absent_pages_in_range(const struct mpm_machine_spec *s, uint64_t start, uint64_t end);

#endif /* MPM_CORE_MMZONE_H */
