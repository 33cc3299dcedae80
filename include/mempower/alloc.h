/* SPDX-License-Identifier: MIT */
/*
 * The page allocator.  Pages are named by pfn.  The CPU is an explicit
 * argument: it picks the per-cpu page lists (pcp) and the local node, the way
 * smp_processor_id() does in the kernel.  Like a kernel CPU with preemption
 * disabled, one cpu number must be used by one thread at a time; distinct
 * cpu numbers may be used concurrently from different threads (the zone lock
 * is a real lock).
 */
#ifndef MEMPOWER_ALLOC_H
#define MEMPOWER_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "gfp.h"
#include "machine.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Allocate 2^order pages on @cpu's node (zonelist fallback to others).
 * MPM_NO_PFN when nothing fits, and without trying for an order of
 * MPM_MAX_ORDER or more, a bad cpu, or both mobility bits in @gfp (gfp.h).
 */
MPM_API uint64_t mpm_alloc_pages(struct mpm_machine *m, mpm_gfp_t gfp,
				 unsigned int order, unsigned int cpu);
/* Same, but start from @nid's zonelist (alloc_pages_node). */
MPM_API uint64_t mpm_alloc_pages_node(struct mpm_machine *m, unsigned int nid,
				      mpm_gfp_t gfp, unsigned int order,
				      unsigned int cpu);
/*
 * The zones an allocation with @gfp on @cpu tries, best first, as zone ids
 * (mpm_zone_info): its zonelist, which direct reclaim's shrink_zones walks
 * too.  Fills up to @max ids and returns how many the zonelist holds.
 */
MPM_API size_t mpm_zonelist_zones(const struct mpm_machine *m, mpm_gfp_t gfp,
				  unsigned int cpu, unsigned int *zids, size_t max);
/*
 * Free 2^order pages (__free_pages: order 0 goes hot to @cpu's pcp list).
 * Returns 0, or -1 without touching any state when @pfn is not the head of
 * an allocated block of that order, or any page of the block still has an
 * owner in the reverse map (mpm_rmap_clear() first): the kernel's bad_page().
 */
MPM_API int mpm_free_pages(struct mpm_machine *m, uint64_t pfn,
			    unsigned int order, unsigned int cpu);
/* Free one page cold (free_hot_cold_page(page, true)); 0 or -1 as above. */
MPM_API int mpm_free_cold_page(struct mpm_machine *m, uint64_t pfn,
				unsigned int cpu);

/*
 * Bulk variants.  Allocation stops at the first failure and returns how many
 * blocks it got; it decides exactly as @nr calls of mpm_alloc_pages() would
 * (the same pfns in the same order, the same counters, and a failed attempt
 * is made and counted once), only faster for order 0: the zonelist walk runs
 * once per run of pages taken off one pcp list instead of once per page.
 * The bulk frees are release_pages()/free_hot_cold_page_list(): each
 * block freed as mpm_free_pages() would (order-0 pages cold or hot through
 * @cpu's pcp list); they return 0, or -1 when any block was refused (the
 * others are freed).
 */
MPM_API size_t mpm_alloc_pages_bulk(struct mpm_machine *m, mpm_gfp_t gfp,
				    unsigned int order, unsigned int cpu,
				    size_t nr, uint64_t *pfns);
MPM_API int mpm_free_pages_bulk(struct mpm_machine *m, const uint64_t *pfns,
				 size_t nr, unsigned int order, unsigned int cpu);
MPM_API int mpm_free_page_list(struct mpm_machine *m, const uint64_t *pfns,
				size_t nr, unsigned int cpu, int cold);

/* Return @cpu's pcp pages to the buddy lists (drain_local_pages). */
MPM_API void mpm_drain_local_pages(struct mpm_machine *m, unsigned int cpu);
/*
 * vmstat_update of @cpu, which the kernel runs every second
 * (sysctl_stat_interval): fold the cpu's vmstat differentials into the
 * zones and, for zones of other nodes, drain one pcp batch at the second
 * call after the last one that saw the cpu use that zone, i.e. after two
 * to three idle seconds (refresh_cpu_vm_stats: expire = 3, counted down in
 * the same call).  Pages on pcp lists of the local node are never drained
 * this way.
 */
MPM_API void mpm_refresh_cpu_vm_stats(struct mpm_machine *m, unsigned int cpu);
/* drain_all_pages: caller guarantees no other thread uses any cpu meanwhile. */
MPM_API void mpm_drain_all_pages(struct mpm_machine *m);

#ifdef __cplusplus
}
#endif

#endif /* MEMPOWER_ALLOC_H */
