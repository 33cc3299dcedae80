// SPDX-License-Identifier: MIT
/*
 * kmempowerd as a pthread of the library (v4 patches 36-38); the API is in
 * include/mempower/kmempowerd.h, the simulator's deterministic kernel
 * thread in src/sim/kmempowerd.c.  Both take the same work the same way:
 * mpm_mempower_work_take() copies a zone's queued regions under the
 * mempower_work lock, mpm_evacuate_region() empties each, and
 * mpm_mempower_work_done() clears their bits (bitmap_andnot), over and
 * over while take() finds more.
 *
 * Waking.  queue_mempower_work calls the hook with a zone lock held, on
 * whichever thread freed the page, so the hook must be cheap and must not
 * re-enter the allocator: it sets the worker's pending flag and, only if
 * the flag was clear, signals the condition variable under the worker's
 * own mutex.  That mutex is never held while the worker takes any other
 * lock, so zone lock -> worker mutex is the only order and cannot invert.
 * The worker clears pending under the mutex before it looks at the queue;
 * a region queued after that sets it again, and a region queued while it
 * is asleep finds the mutex released only inside pthread_cond_wait, so no
 * wakeup is lost.  stop is set under the same mutex.
 *
 * Which per-cpu lists.  The library's pcp lists are per cpu number and
 * lock-free: one thread per number at a time.  The kernel's kmempowerd is
 * bound to its node and uses that CPU's lists with preemption off; here
 * each worker is given a cpu number of its node that no other thread uses
 * while it runs (the caller's promise, as for every cpu argument).  Its
 * target pages come straight from the buddy lists under the zone lock
 * (rmqueue_targets), its sources are freed hot on its cpu as the
 * kernel's putback does, and after each round it drains its own lists so
 * that an evacuated region is free in the buddy lists at once -- before
 * done(), so that the frees' own triggers for the region are cleared with
 * it rather than queueing it again.
 */
#include <stdlib.h>
#include <time.h>

#include "mempower_work.h"

/*
 * Regions taken from a zone's mask at a time.  Patch 37's worker copies the
 * whole mask, as the simulator's does; the order differs only while more
 * than this many are queued in one zone, and a thread's order is the
 * host scheduler's anyway.
 */
#define KMPD_TAKE	64

enum kmpd_event {
	KMPD_WAKEUPS,
	KMPD_EVACUATIONS,
	KMPD_COMPLETED,
	KMPD_ABORTED,
	KMPD_SCANNED,
	KMPD_MIGRATED,
	KMPD_RECLAIMED,
	KMPD_FAILED,
	KMPD_RACED,
	KMPD_SKIPPED,
	KMPD_CPU_NS,
	NR_KMPD_EVENTS
};

struct kmpd_worker {
	struct mpm_machine *m;
	unsigned int nid;
	unsigned int cpu;
	bool has_memory;		/* set before the hook is published */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wait;
	atomic_bool pending;		/* a region was queued since the last look */
	atomic_bool stop;		/* set under lock */
};

struct kmpd_ctl {
	atomic_bool running;		/* set by start and stop, read by anyone */
	_Atomic uint64_t ev[NR_KMPD_EVENTS];
	struct kmpd_worker worker[MPM_MAX_NUMNODES];
};

static void kmpd_count(struct kmpd_ctl *ctl, enum kmpd_event e, uint64_t v)
{
	atomic_fetch_add_explicit(&ctl->ev[e], v, memory_order_relaxed);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The notify hook (under a zone lock): wake node @nid's worker. */
static void wakeup_kmempowerd(void *arg, unsigned int nid)
{
	struct kmpd_ctl *ctl = arg;
	struct kmpd_worker *w;

	if (nid >= MPM_MAX_NUMNODES)
		return;
	w = &ctl->worker[nid];
	if (!w->has_memory || atomic_exchange(&w->pending, true))
		return;		/* already pending: the worker will look */
	pthread_mutex_lock(&w->lock);
	pthread_cond_signal(&w->wait);
	pthread_mutex_unlock(&w->lock);
}

static void count_run(struct kmpd_ctl *ctl, const struct mpm_evac_result *r)
{
	kmpd_count(ctl, KMPD_EVACUATIONS, 1);
	kmpd_count(ctl, r->aborted ? KMPD_ABORTED : KMPD_COMPLETED, 1);
	kmpd_count(ctl, KMPD_SCANNED, r->scanned);
	kmpd_count(ctl, KMPD_MIGRATED, r->migrated);
	kmpd_count(ctl, KMPD_RECLAIMED, r->reclaimed);
	kmpd_count(ctl, KMPD_FAILED, r->failed);
	kmpd_count(ctl, KMPD_RACED, r->raced);
}

/*
 * should_evacuate_region again, as the patch's worker asks before each
 * region: pages may have been allocated or freed in it since the trigger.
 * Under the zone lock, where the region counts change (the kernel reads
 * them racily).
 */
static bool evacuate_still(struct mpm_machine *m, unsigned int zid, unsigned int rid)
{
	struct zone *z = &m->zones[zid];
	bool ret;

	spin_lock(&z->lock);
	ret = should_evacuate_region(z, rid, m->evac_threshold);
	spin_unlock(&z->lock);
	return ret;
}

/*
 * One zone's queue until it is empty (or stop): evacuate what take() gives,
 * drain, done().  Regions not reached before a stop stay queued.
 */
static void kmempowerd_zone(struct kmpd_ctl *ctl, struct kmpd_worker *w, unsigned int zid,
			    bool reclaim)
{
	struct mpm_machine *m = w->m;
	uint32_t rids[KMPD_TAKE];
	int n;

	while ((n = mpm_mempower_work_take(m, zid, rids, KMPD_TAKE)) > 0) {
		int i;

		for (i = 0; i < n && !atomic_load(&w->stop); i++) {
			struct mpm_evac_result r;

			/* patch 39: a region queued may no longer be worth it */
			if (!evacuate_still(m, zid, rids[i])) {
				kmpd_count(ctl, KMPD_SKIPPED, 1);
				continue;
			}
			if (!mpm_evacuate_region(m, zid, rids[i], w->cpu, reclaim, &r))
				count_run(ctl, &r);
		}
		mpm_drain_local_pages(m, w->cpu);
		mpm_mempower_work_done(m, zid, rids, (unsigned int)i);
		if (i < n)
			return;
	}
}

/* kmempowerd: sleep until a region of the node is queued, evacuate, repeat. */
static void *kmempowerd(void *arg)
{
	struct kmpd_worker *w = arg;
	struct mpm_machine *m = w->m;
	struct kmpd_ctl *ctl = atomic_load_explicit(&m->kmpd, memory_order_acquire);
	bool reclaim = m->features & MPM_FEATURE_RECLAIM_CLEAN;
	uint64_t cpu_ns = thread_cpu_ns(), now;

	for (;;) {
		pthread_mutex_lock(&w->lock);
		while (!atomic_load(&w->pending) && !atomic_load(&w->stop))
			pthread_cond_wait(&w->wait, &w->lock);
		atomic_store(&w->pending, false);
		pthread_mutex_unlock(&w->lock);
		if (atomic_load(&w->stop))
			break;
		kmpd_count(ctl, KMPD_WAKEUPS, 1);
		for (unsigned int zid = 0; zid < m->nr_zones && !atomic_load(&w->stop); zid++)
			if (m->zones[zid].node == w->nid && m->zones[zid].mpw)
				kmempowerd_zone(ctl, w, zid, reclaim);
		now = thread_cpu_ns();
		kmpd_count(ctl, KMPD_CPU_NS, now - cpu_ns);
		cpu_ns = now;
	}
	mpm_drain_local_pages(m, w->cpu);
	kmpd_count(ctl, KMPD_CPU_NS, thread_cpu_ns() - cpu_ns);
	return NULL;
}

static bool node_has_memory(const struct mpm_machine *m, unsigned int nid)
{
	for (unsigned int zid = 0; zid < m->nr_zones; zid++)
		if (m->zones[zid].node == nid && m->zones[zid].managed_pages && m->zones[zid].mpw)
			return true;
	return false;
}

static struct kmpd_ctl *kmpd_ctl_alloc(struct mpm_machine *m)
{
	struct kmpd_ctl *ctl = calloc(1, sizeof(*ctl));

	if (!ctl)
		return NULL;
	for (unsigned int nid = 0; nid < MPM_MAX_NUMNODES; nid++) {
		struct kmpd_worker *w = &ctl->worker[nid];

		w->m = m;
		w->nid = nid;
		w->has_memory = nid < m->nr_nodes && node_has_memory(m, nid);
		pthread_mutex_init(&w->lock, NULL);
		pthread_cond_init(&w->wait, NULL);
	}
	return ctl;
}

/* @cpus[nid], or the node's last cpu; -1 when the node has none. */
static int pick_cpus(const struct mpm_machine *m, const struct kmpd_ctl *ctl,
		     const unsigned int *cpus, unsigned int *cpu_of)
{
	for (unsigned int nid = 0; nid < m->nr_nodes; nid++) {
		if (!ctl->worker[nid].has_memory)
			continue;
		cpu_of[nid] = UINT32_MAX;
		if (cpus)
			cpu_of[nid] = cpus[nid];
		else
			for (unsigned int c = 0; c < m->nr_cpus; c++)
				if (m->cpu_to_node[c] == nid)
					cpu_of[nid] = c;
		if (cpu_of[nid] >= m->nr_cpus)
			return -1;
		for (unsigned int other = 0; other < nid; other++)
			if (ctl->worker[other].has_memory && cpu_of[other] == cpu_of[nid])
				return -1;
	}
	return 0;
}

static void stop_workers(struct kmpd_ctl *ctl, unsigned int nr)
{
	for (unsigned int nid = 0; nid < nr; nid++) {
		struct kmpd_worker *w = &ctl->worker[nid];

		if (!w->has_memory)
			continue;
		pthread_mutex_lock(&w->lock);
		atomic_store(&w->stop, true);
		pthread_cond_signal(&w->wait);
		pthread_mutex_unlock(&w->lock);
	}
	for (unsigned int nid = 0; nid < nr; nid++)
		if (ctl->worker[nid].has_memory)
			pthread_join(ctl->worker[nid].thread, NULL);
}

int mpm_kmempowerd_start(struct mpm_machine *m, const unsigned int *cpus)
{
	const struct mpm_migrate_ops *ops = &m->migrate_ops;
	unsigned int cpu_of[MPM_MAX_NUMNODES];
	struct kmpd_ctl *ctl;

	if (!(m->features & MPM_FEATURE_EVACUATION) || !m->rmap_enabled || !ops->move ||
	    !ops->lock || !ops->unlock)
		return -1;
	ctl = atomic_load_explicit(&m->kmpd, memory_order_acquire);
	if (!ctl) {
		if (!(ctl = kmpd_ctl_alloc(m)))
			return -1;
		/* whole before any reader sees it */
		atomic_store_explicit(&m->kmpd, ctl, memory_order_release);
	}
	if (atomic_load(&ctl->running) || pick_cpus(m, ctl, cpus, cpu_of))
		return -1;
	if (atomic_load(&m->mempower_notify) != wakeup_kmempowerd)
		mpm_set_mempower_notify(m, wakeup_kmempowerd, ctl);
	for (unsigned int nid = 0; nid < m->nr_nodes; nid++) {
		struct kmpd_worker *w = &ctl->worker[nid];

		if (!w->has_memory)
			continue;
		w->cpu = cpu_of[nid];
		atomic_store(&w->stop, false);
		/* what was queued while no thread ran is taken at once */
		atomic_store(&w->pending, true);
		if (pthread_create(&w->thread, NULL, kmempowerd, w)) {
			stop_workers(ctl, nid);
			return -1;
		}
	}
	atomic_store(&ctl->running, true);
	return 0;
}

void mpm_kmempowerd_stop(struct mpm_machine *m)
{
	struct kmpd_ctl *ctl = atomic_load_explicit(&m->kmpd, memory_order_acquire);

	if (!ctl || !atomic_load(&ctl->running))
		return;
	stop_workers(ctl, m->nr_nodes);
	atomic_store(&ctl->running, false);
}

int mpm_kmempowerd_running(const struct mpm_machine *m)
{
	const struct kmpd_ctl *ctl = atomic_load_explicit(&m->kmpd, memory_order_acquire);

	return ctl && atomic_load(&ctl->running);
}

void mpm_kmempowerd_stats(const struct mpm_machine *m, struct mpm_kmempowerd_stats *s)
{
	struct kmpd_ctl *ctl = atomic_load_explicit(&m->kmpd, memory_order_acquire);

	*s = (struct mpm_kmempowerd_stats){ 0 };
	if (!ctl)
		return;
	s->wakeups = atomic_load_explicit(&ctl->ev[KMPD_WAKEUPS], memory_order_relaxed);
	s->evacuations = atomic_load_explicit(&ctl->ev[KMPD_EVACUATIONS], memory_order_relaxed);
	s->completed = atomic_load_explicit(&ctl->ev[KMPD_COMPLETED], memory_order_relaxed);
	s->aborted = atomic_load_explicit(&ctl->ev[KMPD_ABORTED], memory_order_relaxed);
	s->scanned = atomic_load_explicit(&ctl->ev[KMPD_SCANNED], memory_order_relaxed);
	s->migrated = atomic_load_explicit(&ctl->ev[KMPD_MIGRATED], memory_order_relaxed);
	s->reclaimed = atomic_load_explicit(&ctl->ev[KMPD_RECLAIMED], memory_order_relaxed);
	s->migrate_failed = atomic_load_explicit(&ctl->ev[KMPD_FAILED], memory_order_relaxed);
	s->raced = atomic_load_explicit(&ctl->ev[KMPD_RACED], memory_order_relaxed);
	s->skipped = atomic_load_explicit(&ctl->ev[KMPD_SKIPPED], memory_order_relaxed);
	s->bytes_copied = s->migrated * MPM_PAGE_SIZE;
	s->cpu_ns = atomic_load_explicit(&ctl->ev[KMPD_CPU_NS], memory_order_relaxed);
	for (unsigned int zid = 0; zid < m->nr_zones; zid++)
		if (m->zones[zid].mpw)
			s->queued += atomic_load_explicit(&m->zones[zid].mpw->ev[MPW_QUEUED],
							  memory_order_relaxed);
}

/* mpm_machine_destroy: threads stopped, the rest freed. */
void kmempowerd_destroy(struct mpm_machine *m)
{
	struct kmpd_ctl *ctl = m->kmpd;

	if (!ctl)
		return;
	mpm_kmempowerd_stop(m);
	for (unsigned int nid = 0; nid < MPM_MAX_NUMNODES; nid++) {
		pthread_mutex_destroy(&ctl->worker[nid].lock);
		pthread_cond_destroy(&ctl->worker[nid].wait);
	}
	free(ctl);
	m->kmpd = NULL;
}
