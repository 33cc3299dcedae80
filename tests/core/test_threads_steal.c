// SPDX-License-Identifier: MIT
/*
 * A pageblock claimed by a fallback while another cpu frees a page of it.
 *
 * The pcp free reads the page's pageblock migratetype without the zone lock
 * (free_hot_cold_page), while __rmqueue_fallback's claim writes it under
 * the lock: the kernel's benign race, which must be a well-defined one
 * here.  The two threads are ordered only by a relaxed flag, which gives
 * ThreadSanitizer no happens-before edge, so under the tsan preset a plain
 * (non-atomic) pageblock byte is reported on every run, not only when the
 * scheduler happens to interleave a steal with a free of the same block.
 * In every preset the claim must happen and the machine stay whole.
 */
#include <pthread.h>

#include "machines.h"

#define ZONE_PAGES	MiB_PAGES(256)
#define BLOCK_PAGES	1024u		/* pageblock order 10 */
#define NR_BLOCKS	(ZONE_PAGES / BLOCK_PAGES)

struct race {
	struct mpm_machine *m;
	uint64_t kept[NR_BLOCKS];	/* one allocated page per pageblock */
	unsigned int nr_kept;
	int freed;			/* relaxed: no happens-before on purpose */
	int bad_free;
	uint64_t stolen;
};

/* cpu 1: one page of every pageblock back through the pcp list, no drain. */
static void *free_one_per_block(void *arg)
{
	struct race *r = arg;

	for (unsigned int i = 0; i < r->nr_kept; i++)
		if (mpm_free_pages(r->m, r->kept[i], 0, 1))
			r->bad_free = 1;
	__atomic_store_n(&r->freed, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* cpu 0: an unmovable page when only movable blocks are free: a claim. */
static void *steal_after_frees(void *arg)
{
	struct race *r = arg;

	while (!__atomic_load_n(&r->freed, __ATOMIC_RELAXED))
		;
	r->stolen = mpm_alloc_pages(r->m, MPM_GFP_KERNEL, 0, 0);
	return NULL;
}

int main(void)
{
	static uint64_t pfns[ZONE_PAGES];
	static struct race r;
	struct mpm_counters before, after;
	struct test_machine t;
	pthread_t tid[2];
	size_t n;

	tm_flat(&t, 0, ZONE_PAGES, 2);
	r.m = tm_create(&t);
	REQUIRE(mpm_pageblock_order(r.m) == 10);

	/* every movable page there is, then all but one per pageblock back */
	n = mpm_alloc_pages_bulk(r.m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0, ZONE_PAGES, pfns);
	REQUIRE(n > ZONE_PAGES / 2);
	for (size_t i = 0; i < n; i++) {
		if (pfns[i] % BLOCK_PAGES == 7)		/* the zone is [0, ZONE_PAGES) */
			r.kept[r.nr_kept++] = pfns[i];
		else
			CHECK(mpm_free_pages(r.m, pfns[i], 0, 0) == 0);
	}
	mpm_drain_all_pages(r.m);
	CHECK(r.nr_kept > NR_BLOCKS / 2);
	CHECK_EQ_U(mpm_pageblocks_mt(r.m, MPM_MIGRATE_UNMOVABLE), 0);
	CHECK(tm_check(r.m) == 0);
	mpm_counters(r.m, &before);

	REQUIRE(pthread_create(&tid[0], NULL, free_one_per_block, &r) == 0);
	REQUIRE(pthread_create(&tid[1], NULL, steal_after_frees, &r) == 0);
	pthread_join(tid[0], NULL);
	pthread_join(tid[1], NULL);

	mpm_counters(r.m, &after);
	CHECK(!r.bad_free);
	CHECK(r.stolen != MPM_NO_PFN);
	CHECK(after.pageblock_claims > before.pageblock_claims);
	CHECK(mpm_pageblocks_mt(r.m, MPM_MIGRATE_UNMOVABLE) > 0);
	CHECK(tm_check(r.m) == 0);
	mpm_machine_destroy(r.m);
	return t_report("core/threads_steal");
}
