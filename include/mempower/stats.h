/* SPDX-License-Identifier: MIT */
/*
 * Counters and kernel-format statistics.  Printers write to a caller's FILE*
 * in the exact formats of Linux 3.12's /proc/buddyinfo, /proc/pagetypeinfo,
 * /proc/zoneinfo and /proc/vmstat, with the per-region lines that the Memory
 * Power Management patchset (v4 patches 13 and 14) adds to the first three,
 * whatever the policy: buddyinfo prints one line per zone region instead of
 * one per zone.
 */
#ifndef MEMPOWER_STATS_H
#define MEMPOWER_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "export.h"
#include "machine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Machine-wide event counters (vm_event_item / allocator decisions). */
struct mpm_counters {
	uint64_t allocs;		/* successful allocations (blocks) */
	uint64_t frees;			/* frees (blocks) */
	uint64_t pgalloc;		/* pages allocated */
	uint64_t pgfree;		/* pages freed */
	uint64_t alloc_failures;
	uint64_t slowpath;		/* allocations that missed the low watermark pass */
	uint64_t kswapd_wakeups;	/* slow-path zones below their high watermark (wakeup_kswapd) */
	uint64_t fallbacks;		/* __rmqueue_fallback successes (mm_page_alloc_extfrag) */
	uint64_t fragmenting_fallbacks;	/* fallbacks that did not claim the block */
	uint64_t pageblock_claims;	/* pageblocks whose migratetype changed on fallback */
	uint64_t reserve_allocs;	/* blocks taken from MIGRATE_RESERVE */
	uint64_t region_bias_splits;	/* region_bias chose a higher order in a lower region */
	uint64_t pa_to_ra;		/* regions returned to the region allocator */
	uint64_t ra_to_pa;		/* regions handed out by the region allocator */
	uint64_t ra_cache_hits;		/* returns refused to keep a list's last region */
	uint64_t ra_move_freepages;	/* regions pulled out of the allocator by move_freepages */
	uint64_t ra_pages;		/* pages the region allocator holds now */
	uint64_t ra_regions;		/* regions it holds now */
	uint64_t evac_queued;		/* regions queued for kmempowerd by the free path */
	uint64_t evac_pending;		/* of those, the regions still queued now */
	uint64_t evacuations;		/* evacuate_mem_region runs */
	uint64_t evac_aborted;		/* runs that met a target not below the region */
	uint64_t migrated;		/* pages moved */
	uint64_t reclaimed;		/* clean page-cache pages dropped instead */
	uint64_t migrate_failed;	/* owned pages that could not move */
	uint64_t pcp_refills;		/* rmqueue_bulk calls */
	uint64_t pcp_drains;		/* free_pcppages_bulk calls */
	uint64_t buddy_merges;
	uint64_t buddy_splits;
};

MPM_API void mpm_counters(const struct mpm_machine *m, struct mpm_counters *c);
/* Pages sitting on per-cpu lists, machine-wide. */
MPM_API uint64_t mpm_pcp_pages(const struct mpm_machine *m);
/* Pages allocated and not yet freed, machine-wide. */
MPM_API uint64_t mpm_used_pages(const struct mpm_machine *m);
/* Free pages of migratetype @mt in buddy lists, machine-wide. */
MPM_API uint64_t mpm_free_pages_mt(const struct mpm_machine *m, int mt);
/* Pageblocks whose migratetype is @mt, machine-wide. */
MPM_API uint64_t mpm_pageblocks_mt(const struct mpm_machine *m, int mt);

MPM_API void mpm_print_buddyinfo(const struct mpm_machine *m, FILE *out);
MPM_API void mpm_print_pagetypeinfo(const struct mpm_machine *m, FILE *out);
MPM_API void mpm_print_zoneinfo(const struct mpm_machine *m, FILE *out);
MPM_API void mpm_print_vmstat(const struct mpm_machine *m, FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* MEMPOWER_STATS_H */
