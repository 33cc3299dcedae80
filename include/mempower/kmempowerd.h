/* SPDX-License-Identifier: MIT */
/*
 * kmempowerd as a thread of the library (v4 patches 36-38): per node with
 * memory one pthread, asleep until the free-path trigger (patch 40) queues
 * a region of one of the node's zones, then evacuating the queued regions
 * (mpm_evacuate_region), lowest first, and repeating while more arrive.
 * It runs concurrently with allocations, faults and frees on other
 * threads, provided the owners follow the protocol of evacuate.h: the
 * migrate ops must have lock and unlock.  Unlike the simulator's
 * kmempowerd, when it runs and what it finds is up to the host's scheduler:
 * its results are not reproducible run to run.
 */
#ifndef MEMPOWER_KMEMPOWERD_H
#define MEMPOWER_KMEMPOWERD_H

#include <stdint.h>

#include "export.h"
#include "machine.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Start one thread per node with memory.  Each frees and allocates as a
 * cpu, like the kernel thread bound to its node: @cpus[nid] is the cpu
 * number of node @nid's thread (NULL: the node's last cpu); the caller
 * must not use these numbers from any other thread until
 * mpm_kmempowerd_stop, so the per-cpu lists stay single-user without a
 * lock.  Needs the evacuation feature, the reverse map and migrate ops
 * with lock and unlock (mpm_set_migrate_ops).  Installs its own hook with
 * mpm_set_mempower_notify.  Regions queued before the start are taken at
 * once.  Returns 0, or -1 (already running, a missing prerequisite, a
 * node with memory and no cpu, one cpu for two nodes, no thread).
 */
MPM_API int mpm_kmempowerd_start(struct mpm_machine *m, const unsigned int *cpus);
/*
 * Stop the threads and wait for them: each finishes the region it is
 * evacuating; regions still queued stay queued for the next start.  Then
 * the cpus are the caller's again (their per-cpu lists are drained).
 * A no-op when not running.  Not while holding an owner's lock: a thread
 * may be waiting for it.  mpm_machine_destroy stops them too.
 */
MPM_API void mpm_kmempowerd_stop(struct mpm_machine *m);
/*
 * Start and stop are the machine owner's: one thread at a time calls them.
 * Whether the threads run, and their stats below, may be asked from any
 * thread at any time, also while another starts or stops them.
 */
MPM_API int mpm_kmempowerd_running(const struct mpm_machine *m);

/* The threads' work since the machine was created, over every start. */
struct mpm_kmempowerd_stats {
	/*
	 * regions queued by the free path (mpm_counters' evac_queued); with
	 * the threads stopped, evacuations + skipped + mpm_counters'
	 * evac_pending (those still queued)
	 */
	uint64_t queued;
	/*
	 * rounds over the node's zones: one per wake-up, and another when
	 * regions were queued during a round (the worker's pending flag)
	 */
	uint64_t wakeups;
	uint64_t skipped;	/* regions taken but no longer worth evacuating (patch 39) */
	uint64_t evacuations;	/* mpm_evacuate_region runs */
	uint64_t completed;	/* runs that walked the whole region */
	uint64_t aborted;	/* runs stopped by a target not below the region */
	uint64_t scanned;	/* pfns walked */
	uint64_t migrated;	/* pages moved */
	uint64_t reclaimed;	/* clean page cache dropped */
	uint64_t migrate_failed;	/* owned pages left (pinned, huge) */
	uint64_t raced;		/* pages freed or reused by their owner under its feet */
	uint64_t bytes_copied;	/* migrated * page size */
	uint64_t cpu_ns;	/* the threads' CPU time (CLOCK_THREAD_CPUTIME_ID) */
};

/* Safe at any time; figures of a running thread lag by at most one region. */
MPM_API void mpm_kmempowerd_stats(const struct mpm_machine *m, struct mpm_kmempowerd_stats *s);

#ifdef __cplusplus
}
#endif

#endif /* MEMPOWER_KMEMPOWERD_H */
