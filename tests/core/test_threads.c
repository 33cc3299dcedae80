// SPDX-License-Identifier: MIT
/*
 * Several threads allocate and free concurrently, each on its own cpu
 * number, handing blocks to each other through a shared pool so that pages
 * allocated on one cpu are freed on another, while one more thread reads the
 * statistics, which take no lock.  Run under the tsan preset this proves the
 * zone lock, the counters and the unlocked reads race-free; in every preset
 * the checker must find the machine intact afterwards.
 */
#include <pthread.h>
#include <stdlib.h>

#include "machines.h"

#define NR_THREADS	4
#define OPS_PER_THREAD	100000
#define POOL		4096

struct shared {
	struct mpm_machine *m;
	pthread_mutex_t lock;
	uint64_t pool_pfn[POOL];
	unsigned int pool_order[POOL];
	size_t nr_pool;
	int failed;
	int done;		/* the workers have finished: the reader stops */
};

struct worker {
	struct shared *sh;
	unsigned int cpu;
	uint64_t rng;
};

static uint64_t next(struct worker *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

static void put(struct worker *w, uint64_t pfn, unsigned int order)
{
	struct shared *sh = w->sh;
	uint64_t evict = MPM_NO_PFN;
	unsigned int evict_order = 0;

	pthread_mutex_lock(&sh->lock);
	if (sh->nr_pool == POOL) {
		size_t i = next(w) % POOL;

		evict = sh->pool_pfn[i];
		evict_order = sh->pool_order[i];
		sh->pool_pfn[i] = pfn;
		sh->pool_order[i] = order;
	} else {
		sh->pool_pfn[sh->nr_pool] = pfn;
		sh->pool_order[sh->nr_pool++] = order;
	}
	pthread_mutex_unlock(&sh->lock);
	if (evict != MPM_NO_PFN && mpm_free_pages(sh->m, evict, evict_order, w->cpu))
		__atomic_store_n(&sh->failed, 1, __ATOMIC_RELAXED);
}

static void take_and_free(struct worker *w)
{
	struct shared *sh = w->sh;
	uint64_t pfn = MPM_NO_PFN;
	unsigned int order = 0;

	pthread_mutex_lock(&sh->lock);
	if (sh->nr_pool) {
		size_t i = next(w) % sh->nr_pool;

		pfn = sh->pool_pfn[i];
		order = sh->pool_order[i];
		sh->pool_pfn[i] = sh->pool_pfn[--sh->nr_pool];
		sh->pool_order[i] = sh->pool_order[sh->nr_pool];
	}
	pthread_mutex_unlock(&sh->lock);
	if (pfn != MPM_NO_PFN && mpm_free_pages(sh->m, pfn, order, w->cpu))
		__atomic_store_n(&sh->failed, 1, __ATOMIC_RELAXED);
}

static void *work(void *arg)
{
	static const mpm_gfp_t gfps[] = { MPM_GFP_HIGHUSER_MOVABLE, MPM_GFP_KERNEL,
					  MPM_GFP_TEMPORARY };
	struct worker *w = arg;

	for (int i = 0; i < OPS_PER_THREAD; i++) {
		if (next(w) % 2) {
			unsigned int order = next(w) % 8 ? 0 : (unsigned int)(next(w) % 11);
			uint64_t pfn = mpm_alloc_pages(w->sh->m, gfps[next(w) % 3], order,
						       w->cpu);

			if (pfn != MPM_NO_PFN)
				put(w, pfn, order);
		} else {
			take_and_free(w);
		}
		if (next(w) % 1000 == 0)
			mpm_drain_local_pages(w->sh->m, w->cpu);
	}
	return NULL;
}

/*
 * The statistics a monitoring thread would poll, each read without a lock:
 * per-cpu list sizes, each region's free pages and evacuation test, and
 * the printers.
 */
static void *read_stats(void *arg)
{
	struct shared *sh = arg;
	FILE *null = fopen("/dev/null", "w");
	uint64_t sum = 0;

	REQUIRE(null);
	while (!__atomic_load_n(&sh->done, __ATOMIC_RELAXED)) {
		struct mpm_counters c;

		sum += mpm_pcp_pages(sh->m);
		mpm_counters(sh->m, &c);
		for (unsigned int z = 0; z < mpm_nr_zones(sh->m); z++) {
			struct mpm_region_info ri;

			for (unsigned int r = 0; mpm_region_info(sh->m, z, r, &ri) == 0; r++)
				sum += ri.nr_free + mpm_should_evacuate_region(sh->m, z, r, 32);
		}
		mpm_print_zoneinfo(sh->m, null);
	}
	fclose(null);
	return (void *)(uintptr_t)(sum & 1);
}

/* argv[1]: the policy (default mainline), so the later stages run threaded too. */
int main(int argc, char **argv)
{
	struct test_machine t;
	struct shared sh = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct worker w[NR_THREADS];
	pthread_t tid[NR_THREADS], reader;

	memset(&t, 0, sizeof(t));
	t.zones[0] = (struct mpm_zone_spec){ 0, MPM_ZONE_DMA32, 1, MiB_PAGES(64) };
	t.zones[1] = (struct mpm_zone_spec){ 1, MPM_ZONE_NORMAL, MiB_PAGES(64), MiB_PAGES(128) };
	tm_link(&t, 2, 2, 0);
	t.spec.nr_cpus = NR_THREADS;
	t.spec.region_shift = 10;
	REQUIRE(!mpm_policy_features(argc > 1 ? argv[1] : "mainline", &t.spec.features));
	sh.m = tm_create(&t);

	for (unsigned int i = 0; i < NR_THREADS; i++) {
		w[i] = (struct worker){ &sh, i, 0x9E3779B97F4A7C15ull * (i + 1) };
		REQUIRE(pthread_create(&tid[i], NULL, work, &w[i]) == 0);
	}
	REQUIRE(pthread_create(&reader, NULL, read_stats, &sh) == 0);
	for (unsigned int i = 0; i < NR_THREADS; i++)
		pthread_join(tid[i], NULL);
	__atomic_store_n(&sh.done, 1, __ATOMIC_RELAXED);
	pthread_join(reader, NULL);

	CHECK(!sh.failed);
	CHECK(tm_check(sh.m) == 0);
	for (size_t i = 0; i < sh.nr_pool; i++)
		CHECK(mpm_free_pages(sh.m, sh.pool_pfn[i], sh.pool_order[i], 0) == 0);
	mpm_drain_all_pages(sh.m);
	CHECK(tm_check(sh.m) == 0);
	CHECK_EQ_U(mpm_used_pages(sh.m), 0);
	CHECK_EQ_U(mpm_free_regions(sh.m), mpm_regions_total(sh.m));
	mpm_machine_destroy(sh.m);
	return t_report("core/threads");
}
