/* SPDX-License-Identifier: MIT */
/*
 * The work between the page allocator and kmempowerd (v4 patches 36-38, 40;
 * features evac_triggers and evacuation): per zone a mempower_work, a lock
 * and a bitmap of regions to evacuate.  The free path queues a region
 * (queue_mempower_work) when region_is_evac_candidate; kmempowerd copies the
 * mask under the lock, evacuates each region, clears those bits and repeats
 * while new bits arrived.  Who runs kmempowerd -- a pthread in the library
 * or a kernel thread of the simulator -- takes the work with
 * mpm_mempower_work_take().
 */
#ifndef MPM_CORE_MEMPOWER_WORK_H
#define MPM_CORE_MEMPOWER_WORK_H

#include "mmzone.h"
#include "region_bitmap.h"

enum mpw_event {
	MPW_QUEUED,		/* regions queued (a bit newly set) */
	NR_MPW_EVENTS
};

struct mempower_work {
	spinlock_t lock;
	struct region_bitmap mask;	/* mempower_mask: regions to evacuate */
	uint64_t *mask_mem;
	uint64_t words;
	/*
	 * bits set; changed under the lock, read without it by
	 * mpm_counters() (evac_pending)
	 */
	_Atomic unsigned int nr_queued;
	_Atomic uint64_t ev[NR_MPW_EVENTS];
};

int mempower_work_init(struct mpm_machine *m, struct zone *z);
void mempower_work_destroy(struct zone *z);
/* should_evacuate_region (patch 39) for a region of @z (evacuate.c). */
bool should_evacuate_region(const struct zone *z, unsigned int rid, uint64_t threshold);
/* The same while @out more of its free pages are not yet counted free. */
bool should_evacuate_region_out(const struct zone *z, unsigned int rid, uint64_t threshold,
				uint64_t out);
/* The free-path trigger (patch 40), for the block just put on a list at @idx. */
void evac_trigger(struct mpm_machine *m, struct zone *z, uint32_t idx);
/* The same, as it tests while @out free pages of the region are still out. */
void evac_trigger_out(struct mpm_machine *m, struct zone *z, uint32_t idx, uint64_t out);

#endif /* MPM_CORE_MEMPOWER_WORK_H */
