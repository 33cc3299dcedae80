/* SPDX-License-Identifier: MIT */
/*
 * Region evacuation (v4 patches 34-35, 39; the foundation of stage `full`):
 * move the movable pages out of a lightly used region into lower regions,
 * so that the region becomes free.  Pages are found through the reverse map
 * (rmap.h); the library moves the content tag and the reverse-map entry and
 * asks the page's owner, through callbacks, to update its own reference.
 */
#ifndef MEMPOWER_EVACUATE_H
#define MEMPOWER_EVACUATE_H

#include <stdbool.h>
#include <stdint.h>

#include "export.h"
#include "machine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MAX_MEMPWR_MIGRATE_PAGES of patch 39: evacuate only regions this lightly used. */
#define MPM_MAX_MEMPWR_MIGRATE_PAGES	32u

/*
 * The owners' side of migration.  Threaded use (kmempowerd.h) needs lock
 * and unlock; single-threaded use (the simulator) may leave them NULL.
 *
 * The protocol, the page-table lock of the kernel in small: an owner sets
 * and clears the reverse-map entries of its pages (mpm_rmap_set/_clear),
 * changes its own pfn references, and frees its pages only while holding
 * its own lock -- the one lock(@owner) takes.  Evacuation reads a pfn's
 * owner without that lock, then calls lock(owner) and re-reads the entry:
 * if the page is still that owner's, nothing can free, reuse or rewrite it
 * until unlock, so move()/reclaim_clean(), the content tag's copy and both
 * reverse-map updates happen as one step for that owner and for anyone
 * who checks it under the same lock.  A page freed, or freed and given to
 * another owner, between the two reads mostly fails the re-check and is
 * skipped; the source page is freed after unlock, when no owner refers to
 * it.  But the entry's words are read one at a time, and a page freed and
 * reused between them can pass with an owner of one moment and an index
 * of another.  So, as the kernel's rmap walk checks the pte under the
 * page-table lock (page_check_address), the owner's own table decides:
 * move() and reclaim_clean() must check that @owner holds @from (@pfn) at
 * @index and refuse otherwise (move: -1, reclaim_clean: 0).  A page the
 * owner holds there is its page for as long as its lock is held.
 */
struct mpm_migrate_ops {
	/*
	 * The page @owner holds at @index moves from @from to @to: update the
	 * owner's reference.  0, or -1 when the page cannot move now (pinned),
	 * or when @owner does not hold @from at @index (see above): it is
	 * skipped and counted as failed.  Called with no allocator lock held
	 * and, when lock is set, with the owner's lock held.
	 */
	int (*move)(void *arg, uint32_t owner, uint32_t index, uint64_t from, uint64_t to);
	/*
	 * reclaim_clean: if the page is clean page cache, the owner drops it
	 * and returns 1 (the library then frees it); 0 to have it moved, and
	 * 0 when @owner does not hold @pfn at @index (move then refuses it).
	 * NULL: never reclaim.  Called like move.
	 */
	int (*reclaim_clean)(void *arg, uint32_t owner, uint32_t index, uint64_t pfn);
	void *arg;
	/*
	 * Take the lock under which @owner changes its pages (see above); 0,
	 * or -1 when the owner is gone (its pages are skipped).  @owner may
	 * name no owner at all: the owner is kept in the page's own words,
	 * which become list links when the page is freed, so a page freed and
	 * reused while evacuation read it can yield any 32-bit value; return
	 * -1 for an id that is not one of yours.  It may sleep; it must not
	 * call the allocator.  NULL: no other thread touches owned pages
	 * during evacuation.
	 */
	int (*lock)(void *arg, uint32_t owner);
	void (*unlock)(void *arg, uint32_t owner);
};

/*
 * Register the owners' callbacks (copied).  Evacuation needs them and the
 * reverse map.  Returns 0, or -1 and changes nothing while kmempowerd's
 * threads run (they read the callbacks unlocked): stop them first; also
 * -1 for NULL @ops, or for lock without unlock or unlock without lock.
 */
MPM_API int mpm_set_migrate_ops(struct mpm_machine *m, const struct mpm_migrate_ops *ops);

/*
 * should_evacuate_region (patch 39): not region 0, and 0 < used pages <=
 * @threshold.  False for a zone or region id the machine does not have.
 */
MPM_API bool mpm_should_evacuate_region(const struct mpm_machine *m, unsigned int zid,
					unsigned int rid, uint64_t threshold);

struct mpm_evac_result {
	uint64_t scanned;	/* pfns the walk looked at, free ones too (3.12's nr_scanned) */
	uint64_t migrated;	/* pages moved to a lower region */
	uint64_t reclaimed;	/* clean page cache dropped instead */
	uint64_t failed;	/* owned pages that could not move (pinned, huge) */
	uint64_t raced;		/* freed or reused by its owner before kmempowerd got to it */
	bool aborted;		/* a target page was not below the region, or none was free */
};

/*
 * evacuate_mem_region (patches 34-35): one asynchronous pass over region
 * @rid of zone @zid, as 3.12's async compaction isolates: owned order-0
 * pages of MOVABLE pageblocks only, in batches of 32.  With @reclaim_clean
 * a batch's clean page cache is dropped first (freed cold); the rest move,
 * highest pfn first, to order-0 movable targets taken from the buddy lists
 * as many at a time as the batch needs (lowest region first) and tried
 * last taken first; the pass aborts as soon as the target tried lies in a
 * region >= @rid.  Targets left over are freed hot.  Sources are freed
 * on @cpu, which the caller must own as for mpm_free_pages.  Other threads
 * may allocate, fault and free meanwhile when the owners' lock and unlock
 * are set.  Returns 0, or -1 (@res zeroed, nothing done) without the
 * reverse map or the callbacks, or for a zone, region or cpu the machine
 * does not have.
 */
MPM_API int mpm_evacuate_region(struct mpm_machine *m, unsigned int zid, unsigned int rid,
				unsigned int cpu, bool reclaim_clean,
				struct mpm_evac_result *res);

/*
 * The work queue of kmempowerd (patches 36-38, 40): with evac_triggers the
 * free path queues each region that should be evacuated.  take() copies up
 * to @max queued regions of zone @zid (lowest first) into @rids; after
 * evacuating them, done() clears their bits -- also where a region was
 * queued again meanwhile, as the patch's bitmap_andnot does; the worker
 * repeats while take() finds more.  @fn, if set, is called when a region is
 * newly queued (with a zone lock held: it must not call the allocator).
 * Setting the hook takes every zone lock, so it may be replaced while other
 * threads free (each call sees a hook with its own arg), but not from
 * within a hook.
 * take() returns how many it copied; both return -1 for a zone the machine
 * does not have, and done() also for a region id past the zone's regions
 * (then nothing is cleared).
 */
MPM_API int mpm_mempower_work_take(struct mpm_machine *m, unsigned int zid, uint32_t *rids,
				   unsigned int max);
MPM_API int mpm_mempower_work_done(struct mpm_machine *m, unsigned int zid,
				   const uint32_t *rids, unsigned int n);
MPM_API void mpm_set_mempower_notify(struct mpm_machine *m,
				     void (*fn)(void *arg, unsigned int nid), void *arg);

#ifdef __cplusplus
}
#endif

#endif /* MEMPOWER_EVACUATE_H */
