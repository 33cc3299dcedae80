/* SPDX-License-Identifier: MIT */
/*
 * Machine topology: nodes -> zones -> memory regions, and the knobs that a
 * kernel command line or Kconfig would set.  A machine is described by an
 * mpm_machine_spec (plain data, filled by the caller or by the io layer from
 * "16G", "2x64G", a preset or a JSON file) and brought to life with
 * mpm_machine_create(), which leaves it as after boot: every present page
 * free in the buddy lists.
 */
#ifndef MEMPOWER_MACHINE_H
#define MEMPOWER_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MPM_PAGE_SHIFT		12
#define MPM_PAGE_SIZE		(1ul << MPM_PAGE_SHIFT)
#define MPM_MAX_ORDER		11
#define MPM_MAX_NUMNODES	64
#define MPM_MAX_CPUS		1024
#define MPM_NO_PFN		UINT64_MAX
/* One past the highest pfn a spec may name: 52-bit physical addresses. */
#define MPM_MAX_PFN		(1ull << 40)

enum mpm_zone_type {
	MPM_ZONE_DMA,
	MPM_ZONE_DMA32,
	MPM_ZONE_NORMAL,
	MPM_ZONE_MOVABLE,
	MPM_NR_ZONE_TYPES
};

/* Linux 3.12 order (include/linux/mmzone.h, without CMA). */
enum mpm_migratetype {
	MPM_MIGRATE_UNMOVABLE,
	MPM_MIGRATE_RECLAIMABLE,
	MPM_MIGRATE_MOVABLE,
	MPM_MIGRATE_PCPTYPES,		/* number of types on the pcp lists */
	MPM_MIGRATE_RESERVE = MPM_MIGRATE_PCPTYPES,
	MPM_MIGRATE_ISOLATE,
	MPM_MIGRATE_TYPES
};

/*
 * numa_zonelist_order (3.12 boot parameter and sysctl): the order in which
 * an allocation tries the zones of the machine once its local zone cannot
 * serve it.  DEFAULT is 3.12's default_zonelist_order(): zone order, unless
 * DMA/DMA32 is over half of memory, is over 70 % of a large node, or some
 * node has no Normal zone (then node order).
 */
enum mpm_zonelist_order {
	MPM_ZONELIST_ORDER_DEFAULT,
	MPM_ZONELIST_ORDER_NODE,	/* local node's zones, then the next node's */
	MPM_ZONELIST_ORDER_ZONE,	/* every node's Normal, then DMA32, then DMA */
};

/* One zone of one node: [start_pfn, end_pfn); holes are given separately. */
struct mpm_zone_spec {
	unsigned int node;
	enum mpm_zone_type type;
	uint64_t start_pfn;
	uint64_t end_pfn;
};

/* A range of pfns without present pages (e820 hole, PCI hole). */
struct mpm_hole_spec {
	uint64_t start_pfn;
	uint64_t end_pfn;
};

/*
 * Feature switches.  Every rule of the patchset that changes behaviour is
 * one bit; a policy is a set of bits.  mainline is the empty set.
 */
enum mpm_feature {
	MPM_FEATURE_NONE = 0,
	/* v2 "sorted" (patches 05-15) */
	MPM_FEATURE_SORTED_FREELISTS = 1u << 0,	/* free lists sorted by region, O(log n) insert */
	MPM_FEATURE_REGION_BIAS = 1u << 1,	/* split a lower region's bigger block (needs sorted_freelists) */
	/* v3 "split" (patches 16-33) */
	MPM_FEATURE_NO_CLAIM = 1u << 2,		/* fallback loans free pages, never claims pageblocks */
	MPM_FEATURE_REGION_ALLOCATOR = 1u << 3,	/* whole free regions held behind the buddy lists */
	MPM_FEATURE_RALLOC_BIAS = 1u << 4,	/* the region allocator hands out its lowest region */
	MPM_FEATURE_REGION_CACHE = 1u << 5,	/* keep one region per MAX_ORDER-1 list */
	/* v4 "full" (patches 34-40) */
	MPM_FEATURE_EVAC_TRIGGERS = 1u << 6,	/* the free path queues lightly used regions */
	MPM_FEATURE_EVACUATION = 1u << 7,	/* kmempowerd evacuates queued regions */
	MPM_FEATURE_RECLAIM_CLEAN = 1u << 8,	/* evacuation drops clean page cache */
	/*
	 * Not in the patchset, in no policy: a variant for experiments.  The
	 * simulator's kmempowerd drains its cpu's pcp lists after each round,
	 * as 3.12's direct compaction drains after migrating and as the
	 * library's kmempowerd thread always does (docs/patchset-rules.md).
	 */
	MPM_FEATURE_EVAC_DRAIN = 1u << 9,	/* kmempowerd drains its pcp lists after a round */
	/*
	 * In no policy: patch 40 as its code places the trigger, at the end of
	 * add_to_freelist, which also runs for the halves expand() puts back
	 * and the blocks move_freepages() moves while allocating; the issue
	 * and the patch's text speak of the free path only (the default).
	 * Needs evac_triggers and, as add_to_freelist is theirs, sorted lists.
	 */
	MPM_FEATURE_EVAC_TRIGGER_ALLOC = 1u << 10,	/* the allocation path queues too */
};
#define MPM_FEATURES_ALL	(MPM_FEATURE_SORTED_FREELISTS | MPM_FEATURE_REGION_BIAS | \
				 MPM_FEATURE_NO_CLAIM | MPM_FEATURE_REGION_ALLOCATOR | \
				 MPM_FEATURE_RALLOC_BIAS | MPM_FEATURE_REGION_CACHE | \
				 MPM_FEATURE_EVAC_TRIGGERS | MPM_FEATURE_EVACUATION | \
				 MPM_FEATURE_RECLAIM_CLEAN | MPM_FEATURE_EVAC_DRAIN | \
				 MPM_FEATURE_EVAC_TRIGGER_ALLOC)

struct mpm_machine_spec {
	unsigned int nr_nodes;
	unsigned int nr_zones;
	const struct mpm_zone_spec *zones;	/* sorted by node, then pfn */
	unsigned int nr_holes;
	const struct mpm_hole_spec *holes;
	/*
	 * Present pages the page allocator never gets (memblock_reserve: the
	 * kernel image, the memmap): counted present, not managed, never free.
	 * Sorted, not overlapping.  A range may cover holes or pfns outside
	 * every zone, as memblock.reserved may: only its present pages count.
	 */
	unsigned int nr_reserved;
	const struct mpm_hole_spec *reserved;
	/*
	 * Node i begins at node_start_pfn[i]; 0 in every entry means "at its
	 * first zone's start_pfn" (x86: pfn 1 on node 0).
	 */
	uint64_t node_start_pfn[MPM_MAX_NUMNODES];
	unsigned int region_shift;	/* log2(pages per region); 0 = 512 MiB */
	bool region_absolute;		/* boundaries at k * size, not node start + k * size */
	unsigned int pageblock_order;	/* 0 = MAX_ORDER - 1 (10) */
	unsigned int nr_cpus;		/* 0 = 1; CPUs are spread evenly over nodes */
	unsigned long min_free_kbytes;	/* 0 = the 3.12 formula */
	unsigned int zonelist_order;	/* enum mpm_zonelist_order */
	unsigned long features;		/* MPM_FEATURE_* bits */
	/* MAX_MEMPWR_MIGRATE_PAGES: 0 = 32; UINT64_MAX = any used region */
	uint64_t evac_threshold;
	/*
	 * Transparent huge pages on (always or madvise), so khugepaged's
	 * late_initcall set_recommended_min_free_kbytes raises min_free_kbytes
	 * once the boot watermarks are set (also over a value given above).
	 */
	bool khugepaged;
};

struct mpm_machine;

/*
 * Build the machine described by @spec.  On failure returns NULL and writes a
 * one-line reason into @err (if non-NULL).  Every range of the spec ends at
 * or below MPM_MAX_PFN, and the page array, one entry per pfn from the
 * first zone's start to the last zone's end (gaps included, page indices
 * are 32 bits), has fewer than 2^32 entries: a span of at most 16 TiB.  A page array of 256 MiB or more
 * is first touched on all online CPUs by short-lived threads, joined before
 * this returns (the kernel's zeroing of fresh memory is most of the set-up).
 * The array is mapped MAP_NORESERVE, as the gaps between zones are never
 * touched: the host's commit limit does not refuse a machine whose zones'
 * entries exceed its memory, so check mpm_machine_spec_bytes() against it
 * first (the command-line tools do), or the set-up may run out of memory.
 */
MPM_API struct mpm_machine *mpm_machine_create(const struct mpm_machine_spec *spec,
					       char *err, size_t errlen);
MPM_API void mpm_machine_destroy(struct mpm_machine *m);
/*
 * The page array a machine built from @spec writes: 16 bytes for every pfn
 * of every zone's span (the gaps between zones cost none), which is most of
 * what mpm_machine_create() will allocate.  For a caller to check before
 * building a machine larger than the host can hold.
 */
MPM_API uint64_t mpm_machine_spec_bytes(const struct mpm_machine_spec *spec);

/*
 * Named policies.  Returns 0 and the policy's feature bits; -1 for a name
 * that is no policy; -2 for a policy of a later stage of the design that this
 * build does not have yet ("sorted", "split", "full" until they land).  A
 * NULL name is no policy, and no switch below.
 */
MPM_API int mpm_policy_features(const char *name, unsigned long *features);
/* The bit of a feature switch by its name ("region_bias"); -1 if none. */
MPM_API int mpm_feature_by_name(const char *name, unsigned long *feature);
/*
 * Apply a comma-separated list of switches to *@features: "name" or "+name"
 * adds a switch, "-name" removes it and every switch that needed it (as
 * mpm_features_valid() would), "none" clears all.  Returns 0, or -1 with a
 * one-line reason in @err (unless @err is NULL or @errlen 0) and *@features
 * unchanged.  A switch added without its prerequisite stays:
 * mpm_machine_create() names what it needs.
 */
MPM_API int mpm_features_apply(const char *list, unsigned long *features, char *err,
			       size_t errlen);
/*
 * @features less unknown bits and every switch whose prerequisite is
 * missing (region_bias and region_allocator need sorted_freelists;
 * ralloc_bias and region_cache need region_allocator): what remains of a
 * policy when a switch is taken out.
 */
MPM_API unsigned long mpm_features_valid(unsigned long features);
/*
 * The first switch of @features whose prerequisite is missing: returns 1
 * with both names ("evac_drain", "evacuation"), or 0 if there is none.
 */
MPM_API int mpm_feature_unmet_dep(unsigned long features, const char **name,
				  const char **needs);
/*
 * Comma-separated names of the features in @features ("" for mainline);
 * names that do not fit in @len bytes are left out whole.
 */
MPM_API void mpm_features_string(unsigned long features, char *buf, size_t len);
MPM_API const char *mpm_zone_name(enum mpm_zone_type type);
MPM_API const char *mpm_migratetype_name(int mt);

/* ---- Topology queries (all O(1)) ---- */

struct mpm_zone_info {
	unsigned int node;
	enum mpm_zone_type type;
	const char *name;
	uint64_t start_pfn;
	uint64_t spanned;
	uint64_t present;
	uint64_t managed;
	uint64_t free_pages;		/* NR_FREE_PAGES */
	uint64_t wmark_min, wmark_low, wmark_high;
	/* lowmem_reserve[classzone]: kept back from allocations that could use a higher zone */
	uint64_t lowmem_reserve[MPM_NR_ZONE_TYPES];
	/* wakeup_kswapd calls of the slow path while the zone was below its high mark */
	uint64_t kswapd_wakeups;
	unsigned int nr_regions;
	unsigned int nr_present_regions;	/* zone regions with present pages */
	unsigned int free_regions;
};

struct mpm_region_info {
	uint64_t start_pfn;
	uint64_t end_pfn;
	uint64_t present;
	uint64_t managed;	/* present less reserved (never free) */
	uint64_t nr_free;
};

MPM_API unsigned int mpm_nr_nodes(const struct mpm_machine *m);
MPM_API unsigned int mpm_nr_cpus(const struct mpm_machine *m);
/* The node of @cpu; 0 for a cpu at or past mpm_nr_cpus(). */
MPM_API unsigned int mpm_cpu_to_node(const struct mpm_machine *m, unsigned int cpu);
/*
 * Zones are numbered machine-wide, node by node, lowest zone first; a
 * zone's regions from 0 to nr_regions - 1.  The info calls fill @info and
 * return 0, or -1 (@info untouched) for an id the machine does not have.
 */
MPM_API unsigned int mpm_nr_zones(const struct mpm_machine *m);
MPM_API int mpm_zone_info(const struct mpm_machine *m, unsigned int zid,
			  struct mpm_zone_info *info);
MPM_API int mpm_region_info(const struct mpm_machine *m, unsigned int zid,
			    unsigned int rid, struct mpm_region_info *info);
MPM_API uint64_t mpm_total_pages(const struct mpm_machine *m);	/* present */
/* One past the highest pfn of any zone: the kernel's max_pfn. */
MPM_API uint64_t mpm_max_pfn(const struct mpm_machine *m);
MPM_API uint64_t mpm_region_pages(const struct mpm_machine *m);
MPM_API unsigned int mpm_pageblock_order(const struct mpm_machine *m);
MPM_API unsigned long mpm_features(const struct mpm_machine *m);
MPM_API unsigned long mpm_min_free_kbytes(const struct mpm_machine *m);
/* should_evacuate_region's bound: the spec's evac_threshold, else 32 (patch 39). */
MPM_API uint64_t mpm_evac_threshold(const struct mpm_machine *m);
/* The order the zonelists were built in: NODE or ZONE, never DEFAULT. */
MPM_API enum mpm_zonelist_order mpm_zonelist_order(const struct mpm_machine *m);
/* Zone regions with present pages, machine-wide, and how many are free. */
MPM_API unsigned int mpm_regions_total(const struct mpm_machine *m);
MPM_API unsigned int mpm_free_regions(const struct mpm_machine *m);
/*
 * Pageblocks of each migratetype in zone @zid's region @rid (homogeneity);
 * 0, or -1 (@counts untouched) for an id the machine does not have.
 */
MPM_API int mpm_region_pageblocks(const struct mpm_machine *m, unsigned int zid,
				  unsigned int rid, uint64_t counts[MPM_MIGRATE_TYPES]);
/* Regions holding movable and also unmovable or reclaimable pageblocks. */
MPM_API unsigned int mpm_mixed_regions(const struct mpm_machine *m);

/* pfn lookups; return -1 for a pfn outside every zone. */
MPM_API int mpm_pfn_to_zone(const struct mpm_machine *m, uint64_t pfn);
MPM_API int mpm_pfn_to_region(const struct mpm_machine *m, uint64_t pfn);
MPM_API int mpm_pfn_valid(const struct mpm_machine *m, uint64_t pfn);

/* What a pfn is, as /proc/kpageflags would tell (BUDDY, reserved, ...). */
enum mpm_page_state {
	MPM_PAGE_HOLE,		/* no page here */
	MPM_PAGE_RESERVED,	/* present, never given to the allocator */
	MPM_PAGE_FREE,		/* head of a free buddy block (*order set) */
	MPM_PAGE_PCP,		/* on a per-cpu list: not free, not allocated */
	MPM_PAGE_ALLOC,		/* head of an allocated block (*order set) */
	MPM_PAGE_TAIL,		/* inside a free or allocated block */
};
/* Racy unless the machine is quiescent; @order may be NULL. */
MPM_API enum mpm_page_state mpm_page_state(const struct mpm_machine *m, uint64_t pfn,
					   unsigned int *order);

/* Resident bytes of the allocator's own metadata: the machine and zone structs,
 * zonelists, pcp sets, the page array, bitmaps and region tables. */
MPM_API size_t mpm_metadata_bytes(const struct mpm_machine *m);

#ifdef __cplusplus
}
#endif

#endif /* MEMPOWER_MACHINE_H */
