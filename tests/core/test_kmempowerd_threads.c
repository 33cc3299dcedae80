// SPDX-License-Identifier: MIT
/*
 * kmempowerd as a library thread (kmempowerd.c) against owners on other
 * threads.  Each owner thread has an "address space" -- slots holding a pfn
 * and the content tag written into it -- behind its own mutex, and faults
 * (allocate, write, mpm_rmap_set), rewrites, unmaps (mpm_rmap_clear, free)
 * and now and then munmaps everything, on its own cpu number, under policy
 * `full` with a high evacuation threshold, while one kmempowerd thread per
 * node evacuates the regions the frees queue.  The owners' callbacks take
 * the owner's mutex (the protocol of evacuate.h) and update the slot.
 *
 * Each owner checks its own slots under its mutex while kmempowerd runs;
 * every round all owners meet at a barrier, kmempowerd is stopped, and
 * every slot must be where the reverse map says with the content written,
 * no page may carry an owner that no slot names, and mpm_check must pass;
 * then one owner munmaps everything and kmempowerd starts again and works
 * off the queue before the owners go on.  Meanwhile a toggler thread stops
 * and restarts kmempowerd every 2 ms under the owners' load: no stop may
 * hang and no wakeup be lost.  Pages must actually have moved,
 * and the owners must have seen every move the library counted.  Under the
 * tsan preset this shows the protocol free of data races (for the
 * interleavings the run met; raced counts the pages it saw change hands).
 * First, on a machine of its own, a node with cpus and no memory: no
 * thread, and no claim on its cpu number.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "machines.h"

#define NR_OWNERS	4
#define NR_SLOTS	2048
#define NR_KERNEL	64	/* unowned GFP_KERNEL pages each owner keeps */
#define ROUNDS		12
#define OPS_PER_ROUND	40000
#define NO_SLOT		MPM_NO_PFN

struct aspace {
	pthread_mutex_t lock;
	uint32_t id;			/* owner id in the reverse map */
	unsigned int cpu;
	uint64_t rng;
	uint32_t gen;
	uint64_t pfn[NR_SLOTS];
	uint32_t content[NR_SLOTS];
	uint8_t clean[NR_SLOTS];	/* clean page cache: may be reclaimed */
	uint64_t kernel[NR_KERNEL];
	/* under lock */
	uint64_t faults, unmaps, munmaps, moved, reclaimed, mismatches;
};

static struct mpm_machine *m;
static struct aspace as[NR_OWNERS];
static pthread_barrier_t barrier;
static atomic_uint protocol_errors;	/* a callback naming the wrong slot of a page held */
static atomic_uint alloc_errors;	/* a free the allocator refused */

static uint64_t next(struct aspace *a)
{
	a->rng ^= a->rng << 13;
	a->rng ^= a->rng >> 7;
	a->rng ^= a->rng << 17;
	return a->rng;
}

static bool pinned(uint32_t index)
{
	return index % 97 == 0;
}

static struct aspace *owner_as(uint32_t owner)
{
	return owner >= 1 && owner <= NR_OWNERS ? &as[owner - 1] : NULL;
}

static int owner_lock(void *arg, uint32_t owner)
{
	struct aspace *a = owner_as(owner);

	(void)arg;
	if (!a)
		return -1;
	pthread_mutex_lock(&a->lock);
	return 0;
}

static void owner_unlock(void *arg, uint32_t owner)
{
	(void)arg;
	pthread_mutex_unlock(&owner_as(owner)->lock);
}

/*
 * Under @a's lock, whether it holds @pfn at some slot other than @index:
 * then the library named the wrong slot for a page that cannot have
 * changed hands while the lock was held.  Not holding @pfn at all is the
 * stale reading the contract has the owner refuse (evacuate.h): a page
 * freed and reused while the library read its words one at a time.
 */
static bool wrong_slot(const struct aspace *a, uint32_t index, uint64_t pfn)
{
	for (uint32_t i = 0; i < NR_SLOTS; i++)
		if (i != index && a->pfn[i] == pfn)
			return true;
	return false;
}

/* Under the owner's lock: the page must still be at that slot. */
static int owner_move(void *arg, uint32_t owner, uint32_t index, uint64_t from, uint64_t to)
{
	struct aspace *a = owner_as(owner);

	(void)arg;
	if (!a || index >= NR_SLOTS || a->pfn[index] != from) {
		if (!a || wrong_slot(a, index, from))
			atomic_fetch_add(&protocol_errors, 1);
		return -1;
	}
	if (pinned(index))
		return -1;
	a->pfn[index] = to;
	a->moved++;
	return 0;
}

static int owner_reclaim(void *arg, uint32_t owner, uint32_t index, uint64_t pfn)
{
	struct aspace *a = owner_as(owner);

	(void)arg;
	if (!a || index >= NR_SLOTS || a->pfn[index] != pfn) {
		if (!a || wrong_slot(a, index, pfn))
			atomic_fetch_add(&protocol_errors, 1);
		return 0;
	}
	if (!a->clean[index])
		return 0;
	a->pfn[index] = NO_SLOT;
	a->reclaimed++;
	return 1;
}

/* Under a->lock (or with everything paused): mismatching slots. */
static uint64_t verify_owner(struct aspace *a)
{
	uint64_t bad = 0;

	for (uint32_t i = 0; i < NR_SLOTS; i++) {
		uint32_t index, content;

		if (a->pfn[i] == NO_SLOT)
			continue;
		if (mpm_rmap_get(m, a->pfn[i], &index, &content) != a->id || index != i ||
		    content != a->content[i] ||
		    mpm_page_state(m, a->pfn[i], NULL) != MPM_PAGE_ALLOC)
			bad++;
	}
	return bad;
}

static void fault(struct aspace *a, uint32_t s)
{
	uint64_t pfn;

	if (a->pfn[s] != NO_SLOT)
		return;
	pfn = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, a->cpu);
	if (pfn == MPM_NO_PFN)
		return;
	a->content[s] = (a->id << 24) ^ (s << 8) ^ ++a->gen;
	a->clean[s] = next(a) % 4 == 0;
	mpm_rmap_set(m, pfn, a->id, s, a->content[s]);
	a->pfn[s] = pfn;
	a->faults++;
}

static void unmap(struct aspace *a, uint32_t s)
{
	if (a->pfn[s] == NO_SLOT)
		return;
	mpm_rmap_clear(m, a->pfn[s]);
	if (mpm_free_pages(m, a->pfn[s], 0, a->cpu))
		atomic_fetch_add(&alloc_errors, 1);
	a->pfn[s] = NO_SLOT;
	a->unmaps++;
}

/* A write to a mapped page: new content. */
static void rewrite(struct aspace *a, uint32_t s)
{
	if (a->pfn[s] == NO_SLOT)
		return;
	a->content[s] = (a->id << 24) ^ (s << 8) ^ ++a->gen;
	a->clean[s] = 0;
	mpm_rmap_set(m, a->pfn[s], a->id, s, a->content[s]);
}

/* Unmovable churn beside the owned pages: mixed pageblocks, no owner. */
static void kernel_churn(struct aspace *a)
{
	unsigned int k = (unsigned int)(next(a) % NR_KERNEL);

	if (a->kernel[k] != MPM_NO_PFN) {
		if (mpm_free_pages(m, a->kernel[k], 0, a->cpu))
			atomic_fetch_add(&alloc_errors, 1);
		a->kernel[k] = MPM_NO_PFN;
	} else {
		a->kernel[k] = mpm_alloc_pages(m, MPM_GFP_KERNEL, 0, a->cpu);
	}
}

static void one_op(struct aspace *a)
{
	unsigned int r = (unsigned int)(next(a) % 1000);
	uint32_t s = (uint32_t)(next(a) % NR_SLOTS);

	pthread_mutex_lock(&a->lock);
	if (next(a) % 20000 == 0) {
		for (uint32_t i = 0; i < NR_SLOTS; i++)
			unmap(a, i);
		a->munmaps++;
	} else if (r < 500) {
		fault(a, s);
	} else if (r < 850) {
		unmap(a, s);
	} else if (r < 950) {
		rewrite(a, s);
	} else if (r < 999) {
		kernel_churn(a);
	} else {
		/* the owner check while kmempowerd runs */
		a->mismatches += verify_owner(a);
	}
	pthread_mutex_unlock(&a->lock);
}

/* Pages the reverse map gives @id, machine-wide. */
static uint64_t owned_pages(uint32_t id)
{
	uint64_t n = 0;

	for (unsigned int zid = 0; zid < mpm_nr_zones(m); zid++) {
		struct mpm_zone_info zi;

		mpm_zone_info(m, zid, &zi);
		for (uint64_t pfn = zi.start_pfn; pfn < zi.start_pfn + zi.spanned; pfn++)
			n += mpm_rmap_get(m, pfn, NULL, NULL) == id;
	}
	return n;
}

/* Everything paused: every slot, no stray owner, the checker. */
static uint64_t verify_all(void)
{
	uint64_t bad = 0;

	for (unsigned int o = 0; o < NR_OWNERS; o++) {
		uint64_t held = 0;

		bad += verify_owner(&as[o]);
		for (uint32_t i = 0; i < NR_SLOTS; i++)
			held += as[o].pfn[i] != NO_SLOT;
		if (owned_pages(as[o].id) != held) {
			fprintf(stderr, "owner %u: %llu owned pages, %llu slots\n", as[o].id,
				(unsigned long long)owned_pages(as[o].id),
				(unsigned long long)held);
			bad++;
		}
	}
	CHECK(tm_check(m) == 0);
	return bad;
}

static uint64_t round_mismatches;
/* start and stop are the caller's to serialise: the toggler and the rounds */
static pthread_mutex_t kmpd_ctl = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool owners_done;
static unsigned int toggles;

/* Regions queued in any zone (take() only copies the mask). */
static int queued_regions(void)
{
	uint32_t rids[64];
	int n = 0;

	for (unsigned int zid = 0; zid < mpm_nr_zones(m); zid++)
		n += mpm_mempower_work_take(m, zid, rids, 64);
	return n;
}

/*
 * With the owners paused: one owner munmaps everything (its pages leave
 * holes low down), every cpu's lists drain, and kmempowerd restarts and
 * works off the queue alone -- so every round moves pages, however the
 * host scheduled the threads in the racy part.
 */
static void quiet_evacuation(struct aspace *a)
{
	struct timespec ms = { 0, 1000000 };
	int waited = 0;

	for (uint32_t i = 0; i < NR_SLOTS; i++)
		unmap(a, i);
	a->munmaps++;
	mpm_drain_all_pages(m);
	REQUIRE(mpm_kmempowerd_start(m, NULL) == 0);
	while (queued_regions() && waited++ < 20000)
		nanosleep(&ms, NULL);
	CHECK(!queued_regions());
}

static void *owner_thread(void *arg)
{
	struct aspace *a = arg;

	for (int round = 0; round < ROUNDS; round++) {
		for (int i = 0; i < OPS_PER_ROUND; i++)
			one_op(a);
		/* all owners paused: stop kmempowerd, check everything, restart */
		if (pthread_barrier_wait(&barrier) == PTHREAD_BARRIER_SERIAL_THREAD) {
			pthread_mutex_lock(&kmpd_ctl);
			mpm_kmempowerd_stop(m);
			round_mismatches += verify_all();
			quiet_evacuation(&as[round % NR_OWNERS]);
			pthread_mutex_unlock(&kmpd_ctl);
		}
		pthread_barrier_wait(&barrier);
	}
	return NULL;
}

/*
 * Stop and start again every few milliseconds while the owners fault and
 * free, so that stops meet a worker asleep, waking or in mid-region, and
 * notifies meet a worker that is gone.
 */
static void *toggler(void *arg)
{
	struct timespec pause = { 0, 2000000 };

	(void)arg;
	while (!atomic_load(&owners_done)) {
		nanosleep(&pause, NULL);
		pthread_mutex_lock(&kmpd_ctl);
		if (mpm_kmempowerd_running(m)) {
			mpm_kmempowerd_stop(m);
			REQUIRE(mpm_kmempowerd_start(m, NULL) == 0);
			toggles++;
		}
		pthread_mutex_unlock(&kmpd_ctl);
	}
	return NULL;
}

/*
 * An observer from before the first start that gets past the prerequisites
 * (it allocates and publishes the threads' control block, even though the
 * cpus it is given are then refused) to the end: whether the threads run
 * and their stats are any thread's to ask at any time (TSan found the plain
 * pointer and flag racing).  The counters never go back.
 */
static atomic_bool poll_done;
static atomic_uint poll_errors;
static unsigned long polls;

static void *poller(void *arg)
{
	struct mpm_kmempowerd_stats s;
	uint64_t wakeups = 0, migrated = 0;

	(void)arg;
	while (!atomic_load(&poll_done)) {
		mpm_kmempowerd_stats(m, &s);
		if (s.wakeups < wakeups || s.migrated < migrated)
			atomic_fetch_add(&poll_errors, 1);
		wakeups = s.wakeups;
		migrated = s.migrated;
		(void)mpm_kmempowerd_running(m);
		polls++;
		sched_yield();
	}
	return NULL;
}

/* Start and stop, idle and at once, must never hang or leak a wakeup. */
static void start_stop(void)
{
	CHECK(!mpm_kmempowerd_running(m));
	for (int i = 0; i < 50; i++) {
		REQUIRE(mpm_kmempowerd_start(m, NULL) == 0);
		CHECK(mpm_kmempowerd_running(m));
		CHECK(mpm_kmempowerd_start(m, NULL) == -1);	/* already running */
		mpm_kmempowerd_stop(m);
		CHECK(!mpm_kmempowerd_running(m));
	}
	mpm_kmempowerd_stop(m);		/* not running: a no-op */
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A node with cpus and no memory (a memoryless node) gets no kmempowerd
 * thread, so its cpu number is nobody's: {1, 1} names cpu 1 for node 0
 * alone, where two nodes with memory would be refused it.  pagetypeinfo
 * skips the node too.
 */
static void test_memoryless_node(void)
{
	const struct mpm_migrate_ops ops = {
		.move = owner_move, .lock = owner_lock, .unlock = owner_unlock,
	};
	const unsigned int cpus[2] = { 1, 1 };
	struct test_machine t;
	struct mpm_machine *mm;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	tm_flat(&t, 0, MiB_PAGES(32), 2);
	tm_link(&t, 2, 1, 0);		/* node 1: cpu 1, no zone */
	REQUIRE(!mpm_policy_features("full", &t.spec.features));
	mm = tm_create(&t);
	REQUIRE(!mpm_rmap_enable(mm));
	REQUIRE(!mpm_set_migrate_ops(mm, &ops));
	CHECK(mpm_kmempowerd_start(mm, cpus) == 0);
	CHECK(mpm_kmempowerd_running(mm));
	mpm_kmempowerd_stop(mm);
	CHECK(!mpm_kmempowerd_running(mm));
	out = open_memstream(&text, &len);
	REQUIRE(out);
	mpm_print_pagetypeinfo(mm, out);
	REQUIRE(!fclose(out));
	/* node 0 once, node 1 not at all */
	REQUIRE(strstr(text, "Page block order"));
	CHECK(!strstr(strstr(text, "Page block order") + 1, "Page block order"));
	CHECK(strstr(text, "Node    0,") && !strstr(text, "Node    1,"));
	free(text);
	CHECK_EQ_U(tm_check(mm), 0);
	mpm_machine_destroy(mm);
}

int main(void)
{
	struct mpm_migrate_ops ops = {
		.move = owner_move, .reclaim_clean = owner_reclaim,
		.lock = owner_lock, .unlock = owner_unlock,
	};
	unsigned int bad_cpus[2] = { 0, 0 };
	struct mpm_kmempowerd_stats st;
	struct mpm_counters c;
	struct test_machine t;
	pthread_t tid[NR_OWNERS], toggle_tid, poll_tid;
	uint64_t mismatches = 0, moved = 0, reclaimed = 0;
	double t0 = seconds();

	test_memoryless_node();

	/* two nodes of 32 MiB, 4 MiB regions; cpus 0-2 node 0, 3-5 node 1 */
	memset(&t, 0, sizeof(t));
	t.zones[0] = (struct mpm_zone_spec){ 0, MPM_ZONE_DMA32, 4096, 4096 + MiB_PAGES(32) };
	t.zones[1] = (struct mpm_zone_spec){ 1, MPM_ZONE_NORMAL, 4096 + MiB_PAGES(32),
					     4096 + MiB_PAGES(64) };
	tm_link(&t, 2, 2, 0);
	t.spec.nr_cpus = NR_OWNERS + 2;
	t.spec.region_shift = 10;
	t.spec.region_absolute = true;
	t.spec.evac_threshold = 768;	/* three quarters of a region: frequent runs */
	REQUIRE(!mpm_policy_features("full", &t.spec.features));
	m = tm_create(&t);
	REQUIRE(!mpm_rmap_enable(m));

	/* prerequisites: the owners' lock, distinct cpus */
	CHECK(mpm_kmempowerd_start(m, NULL) == -1);
	CHECK(mpm_set_migrate_ops(m, &(struct mpm_migrate_ops){ .move = owner_move }) == 0);
	CHECK(mpm_kmempowerd_start(m, NULL) == -1);
	CHECK(mpm_set_migrate_ops(m, &ops) == 0);
	/* from here on a start allocates and publishes the control block */
	REQUIRE(pthread_create(&poll_tid, NULL, poller, NULL) == 0);
	CHECK(mpm_kmempowerd_start(m, bad_cpus) == -1);
	start_stop();

	REQUIRE(pthread_barrier_init(&barrier, NULL, NR_OWNERS) == 0);
	for (unsigned int o = 0; o < NR_OWNERS; o++) {
		struct aspace *a = &as[o];

		pthread_mutex_init(&a->lock, NULL);
		a->id = o + 1;
		a->cpu = o < 2 ? o : o + 1;	/* 2 and 5 are kmempowerd's */
		a->rng = 0x9E3779B97F4A7C15ull * (o + 1);
		for (uint32_t i = 0; i < NR_SLOTS; i++)
			a->pfn[i] = NO_SLOT;
		for (unsigned int k = 0; k < NR_KERNEL; k++)
			a->kernel[k] = MPM_NO_PFN;
	}
	REQUIRE(mpm_kmempowerd_start(m, NULL) == 0);
	/* the threads read the ops unlocked: no change while they run */
	CHECK(mpm_set_migrate_ops(m, &(struct mpm_migrate_ops){ .move = owner_move }) == -1);
	for (unsigned int o = 0; o < NR_OWNERS; o++)
		REQUIRE(pthread_create(&tid[o], NULL, owner_thread, &as[o]) == 0);
	REQUIRE(pthread_create(&toggle_tid, NULL, toggler, NULL) == 0);
	for (unsigned int o = 0; o < NR_OWNERS; o++)
		pthread_join(tid[o], NULL);
	atomic_store(&owners_done, true);
	pthread_join(toggle_tid, NULL);
	mpm_kmempowerd_stop(m);
	atomic_store(&poll_done, true);
	pthread_join(poll_tid, NULL);
	CHECK(polls > 0);
	CHECK_EQ_U(atomic_load(&poll_errors), 0);
	mismatches = round_mismatches + verify_all();

	mpm_kmempowerd_stats(m, &st);
	mpm_counters(m, &c);
	for (unsigned int o = 0; o < NR_OWNERS; o++) {
		mismatches += as[o].mismatches;
		moved += as[o].moved;
		reclaimed += as[o].reclaimed;
	}
	printf("kmempowerd: queued %llu, wakeups %llu, evacuations %llu (completed %llu, "
	       "aborted %llu), migrated %llu (%llu KiB), reclaimed %llu, failed %llu, "
	       "raced %llu, cpu %.3f s; %u restarts; mismatches %llu; %.1f s\n",
	       (unsigned long long)st.queued, (unsigned long long)st.wakeups,
	       (unsigned long long)st.evacuations, (unsigned long long)st.completed,
	       (unsigned long long)st.aborted, (unsigned long long)st.migrated,
	       (unsigned long long)(st.bytes_copied >> 10), (unsigned long long)st.reclaimed,
	       (unsigned long long)st.migrate_failed, (unsigned long long)st.raced,
	       st.cpu_ns / 1e9, toggles,
	       (unsigned long long)mismatches, seconds() - t0);
	CHECK_EQ_U(mismatches, 0);
	CHECK_EQ_U(atomic_load(&protocol_errors), 0);
	CHECK_EQ_U(atomic_load(&alloc_errors), 0);
	CHECK(st.evacuations > 0);
	/* every region queued was evacuated, passed over, or is still queued */
	CHECK_EQ_U(st.queued, st.evacuations + st.skipped + c.evac_pending);
	CHECK(st.migrated > 0);
	CHECK(st.reclaimed > 0);
	CHECK(toggles > 0);
	/* the owners saw every move and reclaim; the library counted the same */
	CHECK_EQ_U(st.migrated, moved);
	CHECK_EQ_U(st.reclaimed, reclaimed);
	CHECK_EQ_U(c.migrated, st.migrated);
	CHECK_EQ_U(c.evacuations, st.evacuations);
	CHECK_EQ_U(st.completed + st.aborted, st.evacuations);
	CHECK_EQ_U(st.bytes_copied, st.migrated * MPM_PAGE_SIZE);

	/* everything back: the machine is as booted */
	for (unsigned int o = 0; o < NR_OWNERS; o++) {
		for (uint32_t i = 0; i < NR_SLOTS; i++)
			unmap(&as[o], i);
		for (unsigned int k = 0; k < NR_KERNEL; k++)
			if (as[o].kernel[k] != MPM_NO_PFN)
				CHECK(mpm_free_pages(m, as[o].kernel[k], 0, as[o].cpu) == 0);
	}
	mpm_drain_all_pages(m);
	CHECK(tm_check(m) == 0);
	CHECK_EQ_U(mpm_used_pages(m), 0);
	CHECK_EQ_U(mpm_free_regions(m), mpm_regions_total(m));
	mpm_machine_destroy(m);	/* with a stopped kmempowerd's state */
	return t_report("core/kmempowerd_threads");
}
