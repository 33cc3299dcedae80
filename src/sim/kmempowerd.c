// SPDX-License-Identifier: MIT
/*
 * kmempowerd in the simulator (v4 patches 36-38): one kernel thread per
 * node (a node without memory has no region to queue), asleep until the allocator's free-path trigger queues a
 * region of one of its zones (mpm_set_mempower_notify), then evacuating the
 * queued regions lowest first, repeating while new ones arrive, and asleep
 * again.  It runs on its virtual CPU like any task, and the time it takes is
 * charged there:
 *
 *  - ESTIMATE: 2 ns per pfn scanned (compact_range's walk reads one struct
 *    page per pfn, sequentially: 64 bytes at the ~30 GB/s a core streams);
 *  - ESTIMATE: 2 us + one 4 KiB copy per page migrated (isolate, try_to_unmap
 *    with its TLB shootdown, copy, remove_migration_ptes, putback), the
 *    copy at the MEASURED copy_ns_per_page of the machine;
 *  - ESTIMATE: 0.5 us per clean page-cache page reclaimed (unmap from the
 *    mapping and free, no I/O).
 *
 * The pages move through the owners' callbacks below: an anonymous page's
 * address space or a file's page cache learns the new pfn; a clean
 * page-cache page is dropped instead when reclaim_clean is on.
 *
 * The sources are freed hot onto this CPU's pcp lists, as 3.12's putback
 * frees them, and stay there until an allocation needs them drained: 3.12
 * drains a CPU's lists of its own node only after failed direct reclaim
 * or direct compaction, never periodically.  The evac_drain switch, which
 * is not in the patchset, drains them after each round of evacuations (as
 * 3.12's __alloc_pages_direct_compact drains after migrating: "Page
 * migration frees to the PCP lists but we want merging"); the drain is
 * not charged any time.
 */
#include <stdlib.h>

#include "sim/ksim.h"

#define KMPD_SCAN_NS_PER_PFN	2
#define KMPD_MIGRATE_NS		2000
#define KMPD_RECLAIM_NS		500

struct kmempowerd {
	unsigned int nid;
	struct ktask *task;
	unsigned int max_regions;	/* the most regions of any zone */
	bool kicked;			/* a region queued since its zone pass began */
	uint32_t rids[];		/* a zone's queued regions, all at once */
};

/* The owner of a moving page learns its new pfn; -1 if it no longer holds it there. */
int ksim_migrate_page(void *arg, uint32_t owner, uint32_t index, uint64_t from,
			     uint64_t to)
{
	struct ksim *k = arg;

	if (owner >= k->nr_owners || !k->owner_obj[owner])
		return -1;
	if (k->owner_kind[owner] == OWNER_VMA) {
		struct kvma *v = k->owner_obj[owner];

		if (index >= v->npages || v->pfn[index] != from || v->huge[index / 512])
			return -1;
		v->pfn[index] = (uint32_t)to;
		ksim_touch(k, from, TOUCH_PAGE_RD);
		ksim_touch(k, to, TOUCH_PAGE_WR);
		return 0;
	}
	if (k->owner_kind[owner] == OWNER_FILE) {
		struct kfile *f = k->owner_obj[owner];

		if (index >= f->npages || f->pfn[index] != from)
			return -1;
		ksim_lru_del(k, from);
		f->pfn[index] = (uint32_t)to;
		/* putback_lru_page: the new page is the newest on its zone's LRU */
		ksim_lru_add(k, owner, index, (uint32_t)to);
		ksim_touch(k, from, TOUCH_PAGE_RD);
		ksim_touch(k, to, TOUCH_PAGE_WR);
		return 0;
	}
	return -1;
}

/* reclaim_clean: a clean page-cache page leaves the cache instead of moving. */
static int ksim_reclaim_clean(void *arg, uint32_t owner, uint32_t index, uint64_t pfn)
{
	struct ksim *k = arg;
	struct kfile *f;

	if (owner >= k->nr_owners || k->owner_kind[owner] != OWNER_FILE)
		return 0;
	f = k->owner_obj[owner];
	if (!f || index >= f->npages || f->pfn[index] != pfn || f->dirty[index])
		return 0;
	ksim_lru_del(k, pfn);
	f->pfn[index] = NO_PFN32;	/* its LRU entry is skipped as truncated */
	f->cached--;
	return 1;
}

/*
 * queue_mempower_work's wake-up: the node's thread runs at the next
 * quantum.  queue_kthread_work queues the zone's work again even while the
 * worker runs, so a region queued during a round -- in a zone the round
 * has passed, by its own drain -- is remembered for another pass.
 */
static void kmempowerd_kick(void *arg, unsigned int nid)
{
	struct ksim *k = arg;

	if (nid >= k->nr_kmpd)
		return;
	k->kmpd[nid]->kicked = true;
	if (k->kmpd[nid]->task->state == TASK_SLEEPING)
		k->kmpd[nid]->task->wake_at = 0;
}

static uint64_t evacuate_cost(const struct ksim *k, const struct mpm_evac_result *r)
{
	return r->scanned * KMPD_SCAN_NS_PER_PFN +
	       r->migrated * (KMPD_MIGRATE_NS + k->p.copy_ns_per_page) +
	       r->reclaimed * KMPD_RECLAIM_NS;
}

/* A region queued but no longer worth it: emptied since, or filled past the threshold. */
static void count_skipped(struct ksim *k, unsigned int zid, uint32_t rid)
{
	struct mpm_region_info ri;

	mpm_region_info(k->m, zid, rid, &ri);
	if (ri.nr_free == ri.present)
		k->c.evac_skipped_free++;
	else
		k->c.evac_skipped_used++;
}

static uint64_t run_kmempowerd(struct ksim *k, struct ktask *t, uint64_t budget)
{
	struct kmempowerd *d = t->prog;
	bool reclaim = mpm_features(k->m) & MPM_FEATURE_RECLAIM_CLEAN;
	bool drain = mpm_features(k->m) & MPM_FEATURE_EVAC_DRAIN;
	uint64_t used = 0;
	uint32_t *rids = d->rids;

again:
	d->kicked = false;
	for (unsigned int zid = 0; zid < mpm_nr_zones(k->m); zid++) {
		struct mpm_zone_info zi;
		int n;

		mpm_zone_info(k->m, zid, &zi);
		if (zi.node != d->nid)
			continue;
		/* patch 37: the worker copies the zone's whole mask */
		while ((n = mpm_mempower_work_take(k->m, zid, rids, d->max_regions)) > 0) {
			for (int i = 0; i < n; i++) {
				struct mpm_evac_result r;

				/* patch 39: the worker checks again what the trigger checked */
				if (!mpm_should_evacuate_region(k->m, zid, rids[i],
								mpm_evac_threshold(k->m))) {
					count_skipped(k, zid, rids[i]);
					continue;
				}
				mpm_evacuate_region(k->m, zid, rids[i], t->cpu, reclaim, &r);
				ksim_allocator_call_done(k);
				used += evacuate_cost(k, &r);
				k->c.evac_scanned += r.scanned;
				k->c.migrated += r.migrated;
				k->c.reclaimed += r.reclaimed;
				k->c.migrate_failed += r.failed;
				k->c.evac_aborted += r.aborted;
				k->c.evac_run++;
			}
			if (drain) {
				/*
				 * evac_drain, not the patchset: the sources just
				 * freed hot onto this cpu's lists go back to the
				 * buddy lists, where they merge, before done() so
				 * that the frees' own triggers for these regions
				 * are cleared with them
				 */
				uint64_t before = mpm_pcp_pages(k->m);

				mpm_drain_local_pages(k->m, t->cpu);
				ksim_allocator_call_done(k);
				k->c.evac_drained += before - mpm_pcp_pages(k->m);
			}
			mpm_mempower_work_done(k->m, zid, rids, (unsigned int)n);
			if (used >= budget)
				goto out;	/* more next time: stay runnable */
		}
	}
	if (d->kicked)
		goto again;
	ksim_sleep(k, t, UINT64_MAX - 1);
out:
	k->c.kmempowerd_ns += used;
	return used;
}

int ksim_check_kmempowerd(struct ksim *k, char *msg, size_t len)
{
	for (unsigned int nid = 0; nid < k->nr_kmpd; nid++) {
		struct kmempowerd *d = k->kmpd[nid];

		/* asleep and not woken since (kmempowerd_kick sets wake_at 0) */
		if (d->task->state != TASK_SLEEPING || d->task->wake_at != UINT64_MAX - 1)
			continue;
		for (unsigned int zid = 0; zid < mpm_nr_zones(k->m); zid++) {
			struct mpm_zone_info zi;
			int n;

			mpm_zone_info(k->m, zid, &zi);
			if (zi.node != nid)
				continue;
			/* take() copies the mask and leaves it: a read here */
			n = mpm_mempower_work_take(k->m, zid, d->rids, d->max_regions);
			if (n > 0) {
				snprintf(msg, len, "kmempowerd/%u asleep with region %u of zone %u queued",
					 nid, d->rids[0], zid);
				return -1;
			}
		}
	}
	return 0;
}

static unsigned int last_cpu_of(const struct ksim *k, unsigned int nid)
{
	unsigned int cpu = 0;

	for (unsigned int c = 0; c < k->nr_cpus; c++)
		if (mpm_cpu_to_node(k->m, c) == nid)
			cpu = c;
	return cpu;
}

int ksim_start_kmempowerd(struct ksim *k)
{
	struct mpm_migrate_ops ops = {
		.move = ksim_migrate_page, .reclaim_clean = ksim_reclaim_clean, .arg = k,
	};
	unsigned int nodes = mpm_nr_nodes(k->m), max_regions = 1;

	for (unsigned int zid = 0; zid < mpm_nr_zones(k->m); zid++) {
		struct mpm_zone_info zi;

		mpm_zone_info(k->m, zid, &zi);
		if (zi.nr_regions > max_regions)
			max_regions = zi.nr_regions;
	}
	mpm_set_migrate_ops(k->m, &ops);
	if (!(mpm_features(k->m) & MPM_FEATURE_EVACUATION))
		return 0;
	k->kmpd = calloc(nodes, sizeof(*k->kmpd));
	if (!k->kmpd)
		return -1;
	for (unsigned int nid = 0; nid < nodes; nid++) {
		struct kmempowerd *d = calloc(1, sizeof(*d) + max_regions * sizeof(d->rids[0]));

		if (!d)
			return -1;
		d->nid = nid;
		d->max_regions = max_regions;
		/*
		 * kthread_create_on_node: the node's last CPU, outside the
		 * round robin that places the workload's tasks, so that the
		 * workload runs on the same CPUs as without kmempowerd
		 */
		d->task = ksim_spawn_on(k, NULL, run_kmempowerd, d, last_cpu_of(k, nid));
		if (!d->task) {
			free(d);
			return -1;
		}
		k->kmpd[k->nr_kmpd++] = d;
	}
	mpm_set_mempower_notify(k->m, kmempowerd_kick, k);
	return 0;
}
