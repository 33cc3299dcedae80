// SPDX-License-Identifier: MIT
/*
 * Two races of the threaded evacuation API, for the tsan preset to see
 * (in the other presets they run as plain stress and check the state).
 *
 * A region handed out of the region allocator while an evacuation walks
 * it: one thread allocates and frees a MAX_ORDER-1 block, so a region moves
 * between the region allocator and the page allocator over and over
 * (claim_region_blocks rewrites its pageblock types), while another walks
 * the regions with mpm_evacuate_region, reading those types without the
 * zone lock.  With a memset for the rewrite TSan reports a race.
 *
 * A notify hook replaced while another thread frees: the freeing thread
 * queues a region again and again and so calls the hook under a zone lock,
 * while the main thread swaps hook and arg.  Each call must see a hook with
 * its own arg (hook_a with &arg_a, hook_b with &arg_b); with the pair
 * stored outside the zone locks TSan reports the race on the arg.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "machines.h"

#define ROUNDS	20000

static struct mpm_machine *m;
static atomic_bool stop;
static atomic_ulong progress;	/* the other thread's rounds */
static atomic_uint thread_errors;	/* the other thread's failures (CHECK is not thread-safe) */

/* No page has an owner here: every lock attempt is refused. */
static int no_move(void *arg, uint32_t owner, uint32_t index, uint64_t from, uint64_t to)
{
	(void)arg, (void)owner, (void)index, (void)from, (void)to;
	return -1;
}

static int no_owner(void *arg, uint32_t owner)
{
	(void)arg, (void)owner;
	return -1;
}

static void no_unlock(void *arg, uint32_t owner)
{
	(void)arg, (void)owner;
}

static const struct mpm_migrate_ops ops = {
	.move = no_move, .lock = no_owner, .unlock = no_unlock,
};

/* 8 regions of 1024 pages (one pageblock, one MAX_ORDER-1 block each). */
static void create(unsigned long features)
{
	struct test_machine t;

	tm_flat(&t, 0, 8192, 2);
	t.spec.region_shift = 10;
	t.spec.region_absolute = true;
	t.spec.features = features;
	m = tm_create(&t);
	REQUIRE(mpm_rmap_enable(m) == 0);
	mpm_set_migrate_ops(m, &ops);
}

static void *move_regions(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		uint64_t pfn = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, MPM_MAX_ORDER - 1, 0);

		/* six free regions: an order-10 block is always there */
		if (pfn == MPM_NO_PFN || mpm_free_pages(m, pfn, MPM_MAX_ORDER - 1, 0)) {
			atomic_fetch_add(&thread_errors, 1);
			break;
		}
		atomic_fetch_add(&progress, 1);
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * The main thread's rounds: at least ROUNDS, and on until the other thread
 * has done ROUNDS / 4 of its own, however the two are scheduled -- unless it
 * failed, or 60 s pass (a stuck thread fails the test, not the ctest timer).
 */
static bool more_rounds(unsigned int i, double start)
{
	if (i < ROUNDS)
		return true;
	if (atomic_load(&thread_errors) || atomic_load(&progress) >= ROUNDS / 4)
		return false;
	if (now_s() - start > 60) {
		atomic_fetch_add(&thread_errors, 1);
		return false;
	}
	return true;
}

static void test_claim_under_walk(void)
{
	unsigned long features;
	struct mpm_counters c;
	pthread_t thr;
	uint64_t pin;
	double start;

	REQUIRE(mpm_policy_features("full", &features) == 0);
	/* no cache: a freed region goes straight back to the region allocator */
	create(features & ~MPM_FEATURE_REGION_CACHE);
	pin = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, MPM_MAX_ORDER - 1, 1);	/* region 0 */
	REQUIRE(pin != MPM_NO_PFN);
	atomic_store(&stop, false);
	atomic_store(&progress, 0);
	REQUIRE(pthread_create(&thr, NULL, move_regions, NULL) == 0);
	start = now_s();
	for (unsigned int i = 0; more_rounds(i, start); i++) {
		struct mpm_evac_result r;

		CHECK(mpm_evacuate_region(m, 0, 1 + i % 7, 1, false, &r) == 0);
	}
	atomic_store(&stop, true);
	pthread_join(thr, NULL);
	CHECK_EQ_U(atomic_load(&thread_errors), 0);
	mpm_counters(m, &c);
	CHECK(c.ra_to_pa > 0);
	CHECK(mpm_free_pages(m, pin, MPM_MAX_ORDER - 1, 1) == 0);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

static int arg_a, arg_b;
static atomic_uint calls, mismatched;

static void hook_a(void *arg, unsigned int nid)
{
	(void)nid;
	atomic_fetch_add(&calls, 1);
	if (arg != &arg_a)
		atomic_fetch_add(&mismatched, 1);
}

static void hook_b(void *arg, unsigned int nid)
{
	(void)nid;
	atomic_fetch_add(&calls, 1);
	if (arg != &arg_b)
		atomic_fetch_add(&mismatched, 1);
}

/*
 * The region above the kernel pages holds a few movable pages, so each free
 * there queues it (0 < used <= 32); done() clears it for the next round.
 */
static void *queue_regions(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		uint64_t pfn = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0);
		uint32_t rid;

		if (pfn == MPM_NO_PFN) {
			atomic_fetch_add(&thread_errors, 1);
			break;
		}
		rid = (uint32_t)(pfn >> 10);	/* absolute 1024-page regions from pfn 0 */
		if (mpm_free_pages(m, pfn, 0, 0))
			atomic_fetch_add(&thread_errors, 1);
		mpm_drain_local_pages(m, 0);
		if (mpm_mempower_work_done(m, 0, &rid, 1))
			atomic_fetch_add(&thread_errors, 1);
		atomic_fetch_add(&progress, 1);
	}
	return NULL;
}

static void test_notify_swap(void)
{
	unsigned long features;
	uint64_t kernel[3 * 1024], movable[5];
	size_t nk = 0;
	pthread_t thr;
	double start;

	REQUIRE(mpm_policy_features("full", &features) == 0);
	create(features);
	/* three regions' worth of unmovable pages, then a few movable above */
	while (nk < 3 * 1024 - 64) {
		uint64_t pfn = mpm_alloc_pages(m, MPM_GFP_KERNEL, 0, 1);

		REQUIRE(pfn != MPM_NO_PFN);
		kernel[nk++] = pfn;
	}
	for (unsigned int i = 0; i < 5; i++)
		REQUIRE((movable[i] = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 1)) !=
			MPM_NO_PFN);
	mpm_set_mempower_notify(m, hook_a, &arg_a);
	atomic_store(&stop, false);
	atomic_store(&progress, 0);
	REQUIRE(pthread_create(&thr, NULL, queue_regions, NULL) == 0);
	start = now_s();
	for (unsigned int i = 0; more_rounds(i, start); i++) {
		if (i % 2)
			mpm_set_mempower_notify(m, hook_a, &arg_a);
		else
			mpm_set_mempower_notify(m, hook_b, &arg_b);
	}
	atomic_store(&stop, true);
	pthread_join(thr, NULL);
	CHECK_EQ_U(atomic_load(&thread_errors), 0);
	mpm_set_mempower_notify(m, NULL, NULL);
	CHECK(atomic_load(&calls) >= ROUNDS / 4);
	CHECK_EQ_U(atomic_load(&mismatched), 0);
	for (unsigned int i = 0; i < 5; i++)
		CHECK(mpm_free_pages(m, movable[i], 0, 1) == 0);
	while (nk)
		CHECK(mpm_free_pages(m, kernel[--nk], 0, 1) == 0);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

int main(void)
{
	test_claim_under_walk();
	test_notify_swap();
	return t_report("core/threads_evac_races");
}
