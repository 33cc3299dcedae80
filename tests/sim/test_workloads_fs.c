// SPDX-License-Identifier: MIT
/*
 * The page-cache workloads end to end on small machines, with the allocator
 * checker and the owner/content checker at every sample: kernbench (page
 * cache hits on the shared tree, object and .cmd files written, .d files
 * deleted) and pagecache (files larger than memory, kswapd reclaiming);
 * both end, and what the allocator counts as used equals what the model
 * holds.  Also: file writes and deletes by hand, kernbench determinism,
 * and reclaim by hand: direct reclaim over the allocation's zonelist, a
 * migrated cache page staying on the LRU, evacuation's reclaim_clean
 * callback, one kswapd per node.
 */
#include "ksim_helpers.h"
#include "mmzone.h"

static int run(struct mpm_run *r, struct mpm_run_config *c, const char *wl,
	       const struct mpm_machine_spec *s, double duration, bool boot)
{
	return run_seeded(r, c, wl, s, duration, boot, 11);
}

static uint64_t lru_entries(const struct ksim *k)
{
	uint64_t n = 0;

	for (unsigned int z = 0; z < k->nr_zones; z++)
		n += k->lru[z].len;
	return n;
}

static uint64_t dirty_pages(const struct ksim *k)
{
	uint64_t n = 0;

	for (size_t i = 0; i < k->nr_files; i++)
		for (uint32_t p = 0; p < k->files[i]->npages; p++)
			n += k->files[i]->pfn[p] != NO_PFN32 && k->files[i]->dirty[p];
	return n;
}

static void test_kernbench(bool prime, bool boot)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	const char *wl = prime ?
		"kernbench:files=40,headers=200,includes=30,heap=4M,cpu=20" :
		"kernbench:files=40,headers=200,includes=30,heap=4M,cpu=20,prime=0,jobs=3";

	machine(&s, 1u << 15, 2);	/* 2 x 128 MiB */
	CHECK(run(&r, &c, wl, &s, 60, boot) == 0);
	CHECK(r.workload_live == 0);
	CHECK(r.end_t < 60);
	/* 40 compiles + make + the daemons */
	CHECK(r.k->c.processes >= 41);
	CHECK_EQ_U(r.k->c.oom_kills, 0);
	/* the shared tree and toolchain are read once from disk, then hit */
	CHECK(r.k->c.cache_misses > 0);
	CHECK(r.k->c.cache_reads > 4 * r.k->c.cache_misses);
	/* an object and a .cmd file per unit; every .d file deleted */
	CHECK_EQ_U(r.k->c.files_deleted, 40);
	CHECK(r.k->c.cache_writes > 0);
	CHECK(dirty_pages(r.k) > 0);
	CHECK(r.k->c.faults >= 40 * (1024 * 2 / 9));	/* the smallest unit's heap */
	check_conservation(&r);
	mpm_run_fini(&r);
}

static void test_kernbench_files(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	uint64_t cached;

	machine(&s, 1u << 15, 2);
	CHECK(run(&r, &c, "kernbench:files=25,headers=50,includes=10,heap=1M,cpu=5,jobs=8", &s,
		  60, false) == 0);
	CHECK(r.workload_live == 0);
	/* toolchain + 25 .c + 50 .h + 25 .o + 25 .cmd */
	CHECK_EQ_U(r.k->nr_files, 1 + 25 + 50 + 25 + 25);
	/* nothing under pressure: every file is wholly cached, outputs dirty */
	cached = 0;
	for (size_t i = 0; i < r.k->nr_files; i++) {
		CHECK_EQ_U(r.k->files[i]->cached, r.k->files[i]->npages);
		cached += r.k->files[i]->cached;
	}
	CHECK_EQ_U(ksim_cached_pages(r.k), cached);
	check_conservation(&r);
	mpm_run_fini(&r);
}

/* Under memory pressure: dirty objects are written back, the tree reclaimed. */
static void test_kernbench_pressure(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;

	machine(&s, 1u << 13, 2);	/* 2 x 32 MiB */
	CHECK(run(&r, &c, "kernbench:files=60,headers=3000,includes=100,heap=8M,cpu=10,jobs=4",
		  &s, 120, false) == 0);
	CHECK(r.workload_live == 0);
	CHECK(r.k->c.kswapd_reclaimed + r.k->c.direct_reclaimed > 0);
	check_conservation(&r);
	mpm_run_fini(&r);
}

static void test_pagecache(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;

	machine(&s, 1u << 14, 2);	/* 2 x 64 MiB; the file is 160 MiB */
	CHECK(run(&r, &c, "pagecache", &s, 120, false) == 0);
	CHECK(r.workload_live == 0);
	CHECK(r.end_t < 120);
	CHECK_EQ_U(r.k->nr_files, 1);
	CHECK(r.k->files[0]->npages > mpm_total_pages(r.m));
	/*
	 * Two passes.  The first misses every page; the second at least the
	 * pages that cannot have stayed cached.  Not all of it: each zone's
	 * LRU is reclaimed only as far as its own watermarks need, so a zone
	 * that stops being filled keeps its oldest pages.
	 */
	CHECK_EQ_U(r.k->c.cache_reads, 2ull * r.k->files[0]->npages);
	CHECK(r.k->c.cache_misses <= r.k->c.cache_reads);
	CHECK(r.k->c.cache_misses >=
	      2ull * r.k->files[0]->npages - mpm_total_pages(r.m));
	CHECK(r.k->c.kswapd_wakeups > 0);
	CHECK(r.k->c.kswapd_reclaimed > 0);
	CHECK(r.k->files[0]->cached < mpm_total_pages(r.m));
	check_conservation(&r);
	mpm_run_fini(&r);
}

static void test_pagecache_readers(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;

	machine(&s, 1u << 14, 2);
	CHECK(run(&r, &c, "pagecache:size=48M,files=3,passes=1", &s, 120, true) == 0);
	CHECK(r.workload_live == 0);
	CHECK(r.k->c.kswapd_reclaimed + r.k->c.direct_reclaimed > 0);
	check_conservation(&r);
	mpm_run_fini(&r);
}

/* The @i-th oldest entry of zone @z's LRU. */
static struct klru_entry lru_at(const struct ksim *k, unsigned int z, size_t i)
{
	return k->lru[z].ring[(k->lru[z].head + i) % k->lru[z].cap];
}

/* Live page-cache pages on zone @z's LRU. */
static uint64_t lru_live(const struct ksim *k, unsigned int z)
{
	uint64_t n = 0;

	for (size_t i = 0; i < k->lru[z].len; i++) {
		struct klru_entry e = lru_at(k, z, i);
		const struct kfile *f = k->owner_obj[e.file];

		n += f && f->pfn[e.index] == e.pfn;
	}
	return n;
}

/*
 * Direct reclaim walks the failed allocation's zonelist (shrink_zones) at
 * each priority, every zone of it.  In zone order cpu 0's list for
 * GFP_HIGHUSER_MOVABLE starts with node 1's Normal, not its own node's
 * DMA32.  Each zone gives lru_size >> priority clean pages: Normal / DMA32
 * 1 / 1 at DEF_PRIORITY, 3 / 2, 5 / 5, and 11 / 11 at priority 9, where
 * the total, 39, passes SWAP_CLUSTER_MAX.  A GFP_DMA32 allocation's
 * zonelist holds DMA32 alone, so the same rounds take nothing from Normal:
 * 1, 2, 5, 11 and, at priority 8, 23, 42 in all.
 */
static void test_direct_reclaim_zonelist(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	uint64_t *held, nheld, pfn, live[2];
	unsigned int zids[4];
	struct kfile *f;
	struct ksim *k;

	machine(&s, 1u << 13, 2);
	s.zonelist_order = MPM_ZONELIST_ORDER_ZONE;
	CHECK(run(&r, &c, "pagetest:size=1M,hold=0", &s, 2, false) == 0);
	k = r.k;
	REQUIRE(mpm_zonelist_zones(r.m, MPM_GFP_HIGHUSER_MOVABLE, 0, zids, 4) == 2);
	REQUIRE(zids[0] == 1 && zids[1] == 0);
	f = ksim_new_file(k, 3u << 12, 0);
	REQUIRE(f);
	ksim_read_file(k, f, 0, f->npages, 0, false);
	nheld = hold_all_pages(k->m, 0, &held);
	live[0] = lru_live(k, 0);
	live[1] = lru_live(k, 1);
	REQUIRE(live[0] && live[1] >= 32);
	REQUIRE(live[1] == 6145 && live[0] == 6143);
	pfn = ksim_alloc_page(k, MPM_GFP_HIGHUSER_MOVABLE, 0, 0);
	CHECK(pfn != MPM_NO_PFN);
	CHECK_EQ_U(k->c.direct_reclaimed, 39);
	CHECK_EQ_U(lru_live(k, 1), live[1] - 20);
	CHECK_EQ_U(lru_live(k, 0), live[0] - 19);
	if (pfn != MPM_NO_PFN)
		mpm_free_pages(k->m, pfn, 0, 0);
	release_held(k->m, held, nheld);
	live[0] = lru_live(k, 0);
	live[1] = lru_live(k, 1);
	nheld = hold_all_pages(k->m, 0, &held);
	pfn = ksim_alloc_page(k, MPM_GFP_KERNEL | MPM___GFP_DMA32, 0, 0);
	CHECK(pfn != MPM_NO_PFN);
	CHECK_EQ_U(k->c.direct_reclaimed, 39 + 42);
	CHECK_EQ_U(lru_live(k, 1), live[1]);
	CHECK_EQ_U(lru_live(k, 0), live[0] - 42);
	if (pfn != MPM_NO_PFN)
		mpm_free_pages(k->m, pfn, 0, 0);
	release_held(k->m, held, nheld);
	check_conservation(&r);
	mpm_run_fini(&r);
}

/* Is there a live LRU entry for @f's page @index at @pfn? */
static bool on_lru(const struct ksim *k, const struct kfile *f, uint32_t index, uint32_t pfn)
{
	for (unsigned int z = 0; z < k->nr_zones; z++)
		for (size_t i = 0; i < k->lru[z].len; i++) {
			struct klru_entry e = lru_at(k, z, i);

			if (e.file == f->id && e.index == index && e.pfn == pfn &&
			    f->pfn[index] == pfn)
				return true;
		}
	return false;
}

/*
 * A page-cache page that migration moves stays reclaimable: the new page
 * goes on its zone's LRU (putback_lru_page), the old entry is stale.
 */
static void test_migrated_cache_on_lru(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct kfile *f;
	uint64_t to;
	uint32_t from, owner, index, content;
	char msg[256];

	machine(&s, 1u << 13, 2);
	CHECK(run(&r, &c, "pagetest:size=1M,hold=0", &s, 2, false) == 0);
	f = ksim_new_file(r.k, 4, 0);
	REQUIRE(f);
	ksim_read_file(r.k, f, 0, 4, 0, false);
	from = f->pfn[1];
	REQUIRE(from != NO_PFN32 && on_lru(r.k, f, 1, from));
	to = mpm_alloc_pages(r.m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0);
	REQUIRE(to != MPM_NO_PFN);
	/* what evacuate.c does around the callback: the reverse map moves too */
	owner = mpm_rmap_get(r.m, from, &index, &content);
	REQUIRE(owner == f->id && index == 1);
	CHECK(ksim_migrate_page(r.k, owner, index, from, to) == 0);
	mpm_rmap_clear(r.m, from);
	REQUIRE(mpm_rmap_set(r.m, to, owner, index, content) == 0);
	mpm_free_pages(r.m, from, 0, 0);
	CHECK(!on_lru(r.k, f, 1, from));
	CHECK(on_lru(r.k, f, 1, (uint32_t)to));
	CHECK(ksim_check_owners(r.k, msg, sizeof(msg)) == 0);	/* the LRU counts too */
	check_conservation(&r);
	mpm_run_fini(&r);
}

/*
 * reclaim_clean (patch 35: evacuate_mem_region's aggression_control): the
 * simulator's callback drops a clean page-cache page instead of having it
 * moved -- the file forgets it, its LRU entry goes stale -- and answers 0
 * (move it) for a dirty page, an anonymous owner and a pfn the file no
 * longer holds at that index.  No workload here puts clean cache in a
 * region light enough to evacuate, so the callback is called by hand.
 */
static void test_reclaim_clean_cache(void)
{
	const struct mpm_migrate_ops *ops;
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct kfile *f;
	uint32_t clean, anon_owner = 0;
	uint64_t cached;
	char msg[256];

	machine(&s, 1u << 13, 2);
	REQUIRE(!mpm_policy_features("full", &s.features));
	CHECK(run(&r, &c, "pagetest:size=1M,hold=5", &s, 2, false) == 0);
	ops = &r.m->migrate_ops;
	REQUIRE(ops->reclaim_clean);
	f = ksim_new_file(r.k, 4, 0);
	REQUIRE(f);
	ksim_read_file(r.k, f, 0, 4, 0, false);
	ksim_write_file(r.k, f, 2, 3, 0);	/* page 2 dirty */
	cached = f->cached;
	clean = f->pfn[1];
	REQUIRE(clean != NO_PFN32 && on_lru(r.k, f, 1, clean));

	CHECK(ops->reclaim_clean(ops->arg, f->id, 2, f->pfn[2]) == 0);
	CHECK(ops->reclaim_clean(ops->arg, f->id, 3, f->pfn[0]) == 0);
	for (uint32_t o = 0; o < r.k->nr_owners; o++)
		if (r.k->owner_obj[o] && r.k->owner_kind[o] == OWNER_VMA)
			anon_owner = o;
	REQUIRE(anon_owner);
	CHECK(ops->reclaim_clean(ops->arg, anon_owner, 0, f->pfn[0]) == 0);
	CHECK_EQ_U(f->cached, cached);

	CHECK(ops->reclaim_clean(ops->arg, f->id, 1, clean) == 1);
	CHECK_EQ_U(f->pfn[1], NO_PFN32);
	CHECK_EQ_U(f->cached, cached - 1);
	CHECK(!on_lru(r.k, f, 1, clean));
	/* what evacuate.c does next: the page leaves the reverse map and is freed */
	CHECK(mpm_rmap_clear(r.m, clean) == 0);
	CHECK(mpm_free_pages(r.m, clean, 0, 0) == 0);
	CHECK(ksim_check_owners(r.k, msg, sizeof(msg)) == 0);	/* the LRU counts too */
	check_conservation(&r);
	mpm_run_fini(&r);
}

/*
 * kswapd, one per node: with every zone below its low watermark and page
 * cache on both nodes, each node's kswapd wakes, reclaims only its own
 * zones, and frees onto the pcp lists of a cpu of its node.
 */
static void test_kswapd_per_node(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	uint64_t frees[2][2], wakeups, *held, nheld;
	struct kfile *f;
	struct ksim *k;

	machine(&s, 1u << 13, 2);	/* 2 nodes x 32 MiB, a cpu each */
	CHECK(run(&r, &c, "pagetest:size=1M,hold=0", &s, 2, false) == 0);
	k = r.k;
	REQUIRE(k && k->nr_zones == 2);
	f = ksim_new_file(k, 3u << 12, 0);	/* 48 MiB: more than a node */
	REQUIRE(f);
	ksim_read_file(k, f, 0, f->npages, 0, false);
	REQUIRE(k->lru[0].len && k->lru[1].len);
	nheld = hold_all_pages(k->m, 0, &held);
	for (unsigned int z = 0; z < 2; z++)
		for (unsigned int cpu = 0; cpu < 2; cpu++)
			frees[z][cpu] = pcp_pgfree(&r.m->zones[z].pageset[cpu]);
	wakeups = k->c.kswapd_wakeups;
	ksim_kswapd(k);
	CHECK_EQ_U(k->c.kswapd_wakeups, wakeups + 2);
	for (unsigned int z = 0; z < 2; z++) {
		unsigned int own = k->zone_node[z];	/* cpu n is on node n */

		REQUIRE(mpm_cpu_to_node(r.m, own) == own);
		CHECK(pcp_pgfree(&r.m->zones[z].pageset[own]) > frees[z][own]);
		CHECK_EQ_U(pcp_pgfree(&r.m->zones[z].pageset[own ^ 1]), frees[z][own ^ 1]);
	}
	release_held(k->m, held, nheld);
	check_conservation(&r);
	CHECK(mpm_check(r.m, NULL, 0) == 0);
	mpm_run_fini(&r);
}

/* ksim_write_file and ksim_delete_file by hand, outside any workload. */
static void test_write_delete(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct kfile *f, *g;
	char msg[256];
	uint64_t used, lru;

	machine(&s, 1u << 13, 2);
	CHECK(run(&r, &c, "pagecache:size=64K,passes=1", &s, 10, false) == 0);
	f = ksim_new_file(r.k, 10, 0);
	g = ksim_new_file(r.k, 4, 1);
	REQUIRE(f && g);
	CHECK(ksim_write_file(r.k, f, 2, 6, 0) == 4 * r.k->p.read_ns_per_page);
	CHECK_EQ_U(f->cached, 4);
	CHECK(f->dirty[2] && f->dirty[5] && !f->dirty[6]);
	ksim_read_file(r.k, g, 0, 4, 1, false);
	CHECK(ksim_check_owners(r.k, msg, sizeof(msg)) == 0);
	check_conservation(&r);
	lru = lru_entries(r.k);
	used = mpm_used_pages(r.m);
	ksim_delete_file(r.k, f, 1);
	mpm_drain_all_pages(r.m);
	CHECK_EQ_U(mpm_used_pages(r.m) + 4, used);
	CHECK_EQ_U(lru_entries(r.k), lru);	/* stale entries stay, reclaim skips them */
	CHECK_EQ_U(r.k->c.files_deleted, 1);
	CHECK(ksim_check_owners(r.k, msg, sizeof(msg)) == 0);
	check_conservation(&r);
	CHECK(mpm_check(r.m, msg, sizeof(msg)) == 0);
	mpm_run_fini(&r);
}

/* Allocate on cpu 0 from zone 0 alone until its free pages are @target. */
static void take_zone0_to(struct ksim *k, uint64_t target)
{
	struct mpm_zone_info zi;

	for (mpm_zone_info(k->m, 0, &zi); zi.free_pages > target; mpm_zone_info(k->m, 0, &zi))
		REQUIRE(mpm_alloc_pages(k->m, MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_THISNODE, 0, 0) !=
			MPM_NO_PFN);
	REQUIRE(zi.free_pages == target);
}

/*
 * Allocate on a cpu of zone @z's node from that node alone, waking no
 * kswapd, until the zone has @target free (its node has no other zone).
 */
static void take_zone_quietly_to(struct ksim *k, unsigned int z, uint64_t target)
{
	unsigned int cpu = k->kswapd_cpu[k->zone_node[z]];
	struct mpm_zone_info zi;

	for (mpm_zone_info(k->m, z, &zi); zi.free_pages > target; mpm_zone_info(k->m, z, &zi))
		REQUIRE(mpm_alloc_pages(k->m, MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_THISNODE |
					MPM___GFP_NO_KSWAPD, 0, cpu) != MPM_NO_PFN);
	REQUIRE(zi.free_pages == target);
}

static void take_zone0_quietly_to(struct ksim *k, uint64_t target)
{
	take_zone_quietly_to(k, 0, target);
}

/* Run kswapd until node 0's goes back to sleep. */
static void settle_kswapd(struct ksim *k)
{
	for (int i = 0; i < 100 && (ksim_kswapd(k), k->kswapd[0].awake); i++)
		;
	REQUIRE(!k->kswapd[0].awake);
}

/*
 * A pagetest run on @s with page cache: a 48 MiB file (more than a node of
 * the machines here) read on cpu 0, and node 0's kswapd asleep after it.
 */
static struct ksim *run_with_cache(struct mpm_run *r, struct mpm_run_config *c,
				   const struct mpm_machine_spec *s)
{
	struct kfile *f;

	CHECK(run(r, c, "pagetest:size=1M,hold=0", s, 2, false) == 0);
	REQUIRE(r->k);
	f = ksim_new_file(r->k, 3u << 12, 0);
	REQUIRE(f);
	ksim_read_file(r->k, f, 0, f->npages, 0, false);
	settle_kswapd(r->k);
	return r->k;
}

/*
 * What wakes kswapd is the allocator's slow path (wakeup_kswapd for a zone
 * below its high mark), not a zone's free count: a zone taken below its
 * low mark by allocations that may not wake kswapd (__GFP_NO_KSWAPD) leaves
 * it asleep; the next allocation that may, failing the low mark on its one
 * zone (__GFP_THISNODE), wakes it once, and it balances the node -- above
 * the high mark -- and sleeps again.  2 nodes of 32 MiB (pcp batch 1),
 * page cache on both.
 */
static void test_kswapd_wakes(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct mpm_zone_info zi;
	struct ksim *k;
	uint64_t wakeups, runs, events;
	char msg[256];

	machine(&s, 1u << 13, 2);
	k = run_with_cache(&r, &c, &s);
	mpm_zone_info(k->m, 0, &zi);
	REQUIRE(k->lru[0].nr_pages && zi.free_pages > zi.wmark_low);
	REQUIRE(r.m->zones[0].pageset[0].batch == 1);

	take_zone0_quietly_to(k, zi.wmark_low);
	mpm_zone_info(k->m, 0, &zi);
	events = zi.kswapd_wakeups;
	wakeups = k->c.kswapd_wakeups;
	runs = k->c.kswapd_runs;
	ksim_kswapd(k);
	CHECK_EQ_U(k->c.kswapd_runs, runs);
	mpm_zone_info(k->m, 0, &zi);
	CHECK_EQ_U(zi.free_pages, zi.wmark_low);

	REQUIRE(mpm_alloc_pages(k->m, MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_THISNODE, 0, 0) !=
		MPM_NO_PFN);
	mpm_zone_info(k->m, 0, &zi);
	CHECK_EQ_U(zi.kswapd_wakeups, events + 1);
	ksim_kswapd(k);
	CHECK_EQ_U(k->c.kswapd_wakeups, wakeups + 1);
	CHECK_EQ_U(k->c.kswapd_runs, runs + 1);
	CHECK(!k->kswapd[0].awake);
	mpm_zone_info(k->m, 0, &zi);
	CHECK(zi.free_pages > zi.wmark_high);
	ksim_kswapd(k);
	CHECK_EQ_U(k->c.kswapd_runs, runs + 1);
	CHECK(ksim_check_owners(k, msg, sizeof(msg)) == 0);
	CHECK(mpm_check(r.m, msg, sizeof(msg)) == 0);
	mpm_run_fini(&r);
}

/*
 * kswapd sleeps only on a balanced node (kswapd_try_to_sleep), so a node it
 * cannot balance keeps it running, quantum after quantum, with no new
 * wake-up.  One page of page cache is such a case: no priority scans it
 * (1 >> priority is 0 down to priority 1), as in 3.12.  The zone holding
 * a one-page file is taken to its low mark and woken for.
 */
static void test_kswapd_stays_awake(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct mpm_zone_info zi;
	struct kfile *f;
	struct ksim *k;
	uint64_t wakeups, runs;
	unsigned int z, nid;

	machine(&s, 1u << 13, 2);
	CHECK(run(&r, &c, "pagetest:size=1M,hold=0", &s, 2, false) == 0);
	k = r.k;
	f = ksim_new_file(k, 1, 0);
	REQUIRE(f);
	ksim_read_file(k, f, 0, 1, 0, false);
	z = (unsigned int)mpm_pfn_to_zone(k->m, f->pfn[0]);
	nid = k->zone_node[z];
	REQUIRE(k->lru[z].nr_pages == 1 && !k->kswapd[nid].awake);
	mpm_zone_info(k->m, z, &zi);
	take_zone_quietly_to(k, z, zi.wmark_low);
	REQUIRE(mpm_alloc_pages(k->m, MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_THISNODE, 0,
				k->kswapd_cpu[nid]) != MPM_NO_PFN);
	wakeups = k->c.kswapd_wakeups;
	runs = k->c.kswapd_runs;
	ksim_kswapd(k);
	CHECK_EQ_U(k->c.kswapd_wakeups, wakeups + 1);
	CHECK_EQ_U(k->c.kswapd_runs, runs + 1);
	CHECK(k->kswapd[nid].awake);
	CHECK_EQ_U(k->lru[z].nr_pages, 1);
	ksim_kswapd(k);
	ksim_kswapd(k);
	CHECK_EQ_U(k->c.kswapd_wakeups, wakeups + 1);
	CHECK_EQ_U(k->c.kswapd_runs, runs + 3);
	CHECK_EQ_U(f->cached, 1);
	mpm_run_fini(&r);
}

/*
 * balance_pgdat's amounts, on a node of one zone with clean page cache
 * only: from priority 12 down, each round scans (and here frees) lru_pages
 * >> priority, the priority rising while a round scans fewer than
 * nr_to_reclaim = max(32, high mark) pages, until the zone is above its
 * high mark.  The expected figure is worked out round by round from the
 * zone's numbers before kswapd runs.  In this zone (min_free_kbytes 4096:
 * high mark 766; 6,143 cached pages, 637 free) seven rounds, priorities 12
 * to 6, free 1, 2, 5, 11, 23, 47 and 94 pages: 183, where passes of 32
 * pages until the zone is above its mark would free 160.
 */
static void test_kswapd_priorities(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct mpm_zone_info zi;
	struct ksim *k;
	uint64_t free, lru, reclaimed, expect = 0;
	int priority = 12;
	char msg[256];

	machine(&s, 1u << 13, 2);
	s.min_free_kbytes = 4096;	/* a high mark above 2 x SWAP_CLUSTER_MAX */
	k = run_with_cache(&r, &c, &s);
	mpm_zone_info(k->m, 0, &zi);
	take_zone0_quietly_to(k, zi.wmark_low);
	REQUIRE(mpm_alloc_pages(k->m, MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_THISNODE, 0, 0) !=
		MPM_NO_PFN);	/* the wake */

	mpm_zone_info(k->m, 0, &zi);
	free = zi.free_pages;
	lru = k->lru[0].nr_pages;
	REQUIRE(lru == lru_live(k, 0) && lru >= 1u << 11);	/* no stale entry, none dirty */
	REQUIRE(zi.wmark_high > 32 && free + lru > zi.wmark_high);
	do {
		uint64_t scan = lru >> priority;

		free += scan;
		lru -= scan;
		expect += scan;
		if (scan < zi.wmark_high || !scan)
			priority--;
	} while (priority >= 1 && free <= zi.wmark_high);

	reclaimed = k->c.kswapd_reclaimed;
	ksim_kswapd(k);
	CHECK_EQ_U(k->c.kswapd_reclaimed - reclaimed, expect);
	CHECK(priority < 12 && expect > 0);
	mpm_zone_info(k->m, 0, &zi);
	CHECK_EQ_U(zi.free_pages, free);
	CHECK_EQ_U(k->lru[0].nr_pages, lru);
	CHECK(ksim_check_owners(k, msg, sizeof(msg)) == 0);
	CHECK(mpm_check(r.m, msg, sizeof(msg)) == 0);
	mpm_run_fini(&r);
}

/*
 * One node of DMA32 and Normal, 32 MiB each, page cache in both; Normal at
 * its low mark and DMA32 at @above pages over its own high mark plus
 * balance gap plus lowmem reserve against Normal.  kswapd runs once
 * (forced awake, as if its last run had left the node unbalanced) and
 * balances Normal.  Returns the page cache DMA32 lost.
 */
static uint64_t dma32_shrunk(int64_t above)
{
	static struct mpm_zone_spec zones[2];
	static uint64_t held[1u << 14];
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct mpm_zone_info dma32, normal;
	uint64_t nheld = 0, lru, pfn, gap, mark;
	struct ksim *k;
	char msg[256];

	memset(&s, 0, sizeof(s));
	zones[0] = (struct mpm_zone_spec){ 0, MPM_ZONE_DMA32, 1, 1u << 13 };
	zones[1] = (struct mpm_zone_spec){ 0, MPM_ZONE_NORMAL, 1u << 13, 1u << 14 };
	s.nr_nodes = 1;
	s.nr_zones = 2;
	s.zones = zones;
	s.nr_cpus = 1;
	s.region_shift = 13;
	k = run_with_cache(&r, &c, &s);
	mpm_zone_info(k->m, 0, &dma32);
	/* min(low mark, 1 % of the zone rounded up) */
	gap = (dma32.managed + 99) / 100;
	if (gap > dma32.wmark_low)
		gap = dma32.wmark_low;
	mark = dma32.wmark_high + gap + dma32.lowmem_reserve[MPM_ZONE_NORMAL];
	REQUIRE(dma32.lowmem_reserve[MPM_ZONE_NORMAL] > 0 && gap > 0);
	/* Normal down to its low mark, then DMA32 to its target */
	for (mpm_zone_info(k->m, 1, &normal); normal.free_pages > normal.wmark_low;
	     mpm_zone_info(k->m, 1, &normal)) {
		pfn = mpm_alloc_pages(k->m, MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_NO_KSWAPD, 0, 0);
		REQUIRE(pfn != MPM_NO_PFN && nheld < sizeof(held) / sizeof(held[0]));
		held[nheld++] = pfn;
	}
	for (mpm_zone_info(k->m, 0, &dma32); (int64_t)(dma32.free_pages - mark) > above;
	     mpm_zone_info(k->m, 0, &dma32)) {
		pfn = mpm_alloc_pages(k->m, MPM_GFP_KERNEL | MPM___GFP_DMA32 | MPM___GFP_NO_KSWAPD,
				      0, 0);
		REQUIRE(pfn != MPM_NO_PFN && nheld < sizeof(held) / sizeof(held[0]));
		held[nheld++] = pfn;
	}
	for (uint64_t i = nheld; i-- > 0 && (int64_t)(dma32.free_pages - mark) < above;
	     mpm_zone_info(k->m, 0, &dma32))
		if (mpm_pfn_to_zone(k->m, held[i]) == 0) {
			REQUIRE(mpm_free_pages(k->m, held[i], 0, 0) == 0);
			held[i] = MPM_NO_PFN;
		}
	mpm_zone_info(k->m, 1, &normal);
	REQUIRE((int64_t)(dma32.free_pages - mark) == above &&
		normal.free_pages <= normal.wmark_low);
	lru = k->lru[0].nr_pages;
	REQUIRE(lru >= 1u << 12 && k->lru[1].nr_pages >= 1u << 10);

	k->kswapd[0].awake = true;
	ksim_kswapd(k);
	mpm_zone_info(k->m, 1, &normal);
	CHECK(normal.free_pages > normal.wmark_high);
	CHECK(!k->kswapd[0].awake);
	for (uint64_t i = 0; i < nheld; i++)
		if (held[i] != MPM_NO_PFN)
			REQUIRE(mpm_free_pages(k->m, held[i], 0, 0) == 0);
	CHECK(ksim_check_owners(k, msg, sizeof(msg)) == 0);
	check_conservation(&r);
	lru -= k->lru[0].nr_pages;
	mpm_run_fini(&r);
	return lru;
}

/*
 * kswapd puts equal pressure on every zone up to the highest unbalanced
 * one: a lower zone is shrunk too, though above its own high mark, unless
 * it is above that mark plus the balance gap (its low mark or 1 % of it,
 * whichever is smaller) plus its lowmem reserve against the unbalanced
 * zone.  At that sum DMA32 loses page cache; one page above it, none.
 */
static void test_kswapd_balance_gap(void)
{
	CHECK(dma32_shrunk(0) > 0);
	CHECK_EQ_U(dma32_shrunk(1), 0);
}

/*
 * Reclaimed pages go back cold (shrink_page_list: free_hot_cold_page_list
 * with cold 1), to the tail of the pcp list, where the next drain takes
 * them first and a hot allocation does not find them.  2 nodes of 128 MiB
 * (pcp high 42, batch 7; a zone under 32 MiB has high 0 and keeps no
 * list): a page freed hot on kswapd's cpu before it runs is still the
 * list's head after kswapd has reclaimed more than a list's worth, and a
 * cold allocation takes a page that was the file's.
 */
static void test_kswapd_frees_cold(void)
{
	static uint8_t was_file[1u << 17];
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct mpm_zone_info zi;
	uint64_t sentinel, hot, cold, wakeups, reclaimed;
	struct kfile *f;
	struct ksim *k;

	machine(&s, 1u << 15, 2);
	CHECK(run(&r, &c, "pagetest:size=1M,hold=0", &s, 2, false) == 0);
	k = r.k;
	f = ksim_new_file(k, 4096, 0);
	REQUIRE(f);
	ksim_read_file(k, f, 0, f->npages, 0, false);
	ksim_kswapd(k);
	REQUIRE(k->kswapd_cpu[0] == 0 && k->lru[0].len > 64);
	REQUIRE(r.m->zones[0].pageset[0].high == 42);
	sentinel = mpm_alloc_pages(k->m, MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_THISNODE, 0, 0);
	REQUIRE(sentinel != MPM_NO_PFN && mpm_pfn_to_zone(k->m, sentinel) == 0);
	for (uint32_t i = 0; i < f->npages; i++)
		if (f->pfn[i] != NO_PFN32) {
			REQUIRE(f->pfn[i] < sizeof(was_file));
			was_file[f->pfn[i]] = 1;
		}
	/*
	 * a batch below the low mark: refills take 7 pages at a time, and the
	 * sentinel's free may push the list over its high mark
	 */
	for (mpm_zone_info(k->m, 0, &zi); zi.free_pages + 7 > zi.wmark_low;
	     mpm_zone_info(k->m, 0, &zi))
		REQUIRE(mpm_alloc_pages(k->m, MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_THISNODE, 0, 0) !=
			MPM_NO_PFN);
	CHECK(mpm_free_pages(k->m, sentinel, 0, 0) == 0);
	mpm_zone_info(k->m, 0, &zi);
	REQUIRE(zi.free_pages <= zi.wmark_low);
	wakeups = k->c.kswapd_wakeups;
	reclaimed = k->c.kswapd_reclaimed;
	ksim_kswapd(k);
	REQUIRE(k->c.kswapd_wakeups > wakeups && k->c.kswapd_reclaimed > reclaimed + 42);
	hot = mpm_alloc_pages(k->m, MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_THISNODE, 0, 0);
	cold = mpm_alloc_pages(k->m, MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_THISNODE |
			       MPM___GFP_COLD, 0, 0);
	CHECK_EQ_U(hot, sentinel);
	REQUIRE(cold != MPM_NO_PFN && cold < sizeof(was_file));
	CHECK(cold != sentinel && was_file[cold]);
	mpm_run_fini(&r);
}

/*
 * kswapd takes a zone's page cache from the cold end of its LRU, oldest
 * first, and writes a dirty page back and rotates it instead of freeing it
 * (shrink_page_list: pageout, then the page goes round again).  A dirty
 * 64-page file written first, then a 48 MiB file read: when zone 0 fails
 * its low watermark, the dirty file, the oldest, keeps every page but has
 * some cleaned, and what the read file loses in zone 0 are its oldest
 * pages there.
 */
static void test_kswapd_lru_order(void)
{
	static int8_t zone_of[3u << 12];
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct mpm_zone_info zi;
	struct kfile *d, *f;
	struct ksim *k;
	unsigned int dirty0 = 0, cleaned = 0, lost = 0;
	uint32_t min_kept = UINT32_MAX, max_lost = 0;

	machine(&s, 1u << 13, 2);
	CHECK(run(&r, &c, "pagetest:size=1M,hold=0", &s, 2, false) == 0);
	k = r.k;
	d = ksim_new_file(k, 64, 0);
	f = ksim_new_file(k, 3u << 12, 0);
	REQUIRE(d && f);
	ksim_write_file(k, d, 0, 64, 0);
	ksim_read_file(k, f, 0, f->npages, 0, false);
	ksim_kswapd(k);
	REQUIRE(d->cached == 64);
	for (uint32_t i = 0; i < 64; i++) {
		REQUIRE(d->dirty[i]);	/* none cleaned yet: the count below is this pass's */
		dirty0 += mpm_pfn_to_zone(k->m, d->pfn[i]) == 0;
	}
	REQUIRE(dirty0 > 0);	/* the fair zone policy put some in each zone */
	for (uint32_t i = 0; i < f->npages; i++)
		zone_of[i] = f->pfn[i] == NO_PFN32 ? -1 : (int8_t)mpm_pfn_to_zone(k->m, f->pfn[i]);
	mpm_zone_info(k->m, 0, &zi);
	take_zone0_to(k, zi.wmark_low);
	ksim_kswapd(k);

	CHECK_EQ_U(d->cached, 64);
	for (uint32_t i = 0; i < 64; i++)
		cleaned += !d->dirty[i];
	CHECK(cleaned > 0 && cleaned <= dirty0);
	for (uint32_t i = 0; i < f->npages; i++) {
		if (zone_of[i] != 0)
			continue;
		if (f->pfn[i] != NO_PFN32) {
			if (i < min_kept)
				min_kept = i;
		} else {
			lost++;
			max_lost = i;
		}
	}
	CHECK(lost > 0);
	CHECK(max_lost < min_kept);	/* the oldest went, the newest stayed */
	mpm_run_fini(&r);
}

/*
 * kswapd is bound to its node's cpus and frees on the node's first cpu;
 * with two cpus per node that is cpu 0 for node 0 and cpu 2 for node 1.
 */
static void test_kswapd_cpu(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;

	machine(&s, 1u << 13, 4);
	CHECK(run(&r, &c, "pagetest:size=1M,hold=0", &s, 1, false) == 0);
	REQUIRE(mpm_cpu_to_node(r.m, 1) == 0 && mpm_cpu_to_node(r.m, 2) == 1);
	CHECK_EQ_U(r.k->kswapd_cpu[0], 0);
	CHECK_EQ_U(r.k->kswapd_cpu[1], 2);
	mpm_run_fini(&r);
}

/*
 * Deleting a file frees its page cache as truncate_inode_pages_range does:
 * a pagevec of up to 14 pages at a time, each through release_pages, last
 * page first, hot.  20 cached pages on a 512 MiB node (pcp high 186):
 * pages 0-13 are freed 13 down to 0, then 14-19 from 19 down, so cpu 0's
 * next movable pages are 14..19, then 0..13.
 */
static void test_delete_frees_by_pagevec(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct kfile *f;
	uint64_t got[20];
	uint32_t pfn[20];

	machine(&s, 1u << 17, 2);
	CHECK(run(&r, &c, "pagetest:size=1M,hold=5", &s, 2, false) == 0);
	REQUIRE(r.m->zones[0].pageset[0].high >= 20);
	f = ksim_new_file(r.k, 20, 0);
	REQUIRE(f);
	ksim_write_file(r.k, f, 0, 20, 0);
	for (int i = 0; i < 20; i++)
		pfn[i] = f->pfn[i];
	mpm_drain_all_pages(r.m);
	ksim_delete_file(r.k, f, 0);
	for (int i = 0; i < 20; i++)
		got[i] = mpm_alloc_pages(r.m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0);
	for (int i = 0; i < 20; i++) {
		CHECK_EQ_U(got[i], pfn[i < 6 ? 14 + i : i - 6]);
		if (got[i] != MPM_NO_PFN)
			CHECK_EQ_U(mpm_free_pages(r.m, got[i], 0, 0), 0);
	}
	check_conservation(&r);
	mpm_run_fini(&r);
}

static void test_determinism(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c1, c2;
	struct mpm_run r1, r2;
	const char *wl = "kernbench:files=20,headers=100,includes=20,heap=2M,cpu=10";

	machine(&s, 1u << 14, 2);
	CHECK(run(&r1, &c1, wl, &s, 60, false) == 0);
	CHECK(run(&r2, &c2, wl, &s, 60, false) == 0);
	CHECK_EQ_U(r1.nr_samples, r2.nr_samples);
	for (size_t i = 0; i < r1.nr_samples && i < r2.nr_samples; i++) {
		CHECK_EQ_U(r1.samples[i].free_regions, r2.samples[i].free_regions);
		CHECK_EQ_U(r1.samples[i].used_pages, r2.samples[i].used_pages);
		CHECK_EQ_U(r1.samples[i].cached_pages, r2.samples[i].cached_pages);
	}
	CHECK(!memcmp(&r1.counters, &r2.counters, sizeof(r1.counters)));
	CHECK(!memcmp(&r1.k->c, &r2.k->c, sizeof(r1.k->c)));
	mpm_run_fini(&r1);
	mpm_run_fini(&r2);
}

int main(void)
{
	test_kernbench(true, true);
	test_kernbench(false, false);
	test_kernbench_files();
	test_kernbench_pressure();
	test_pagecache();
	test_pagecache_readers();
	test_kswapd_per_node();
	test_kswapd_wakes();
	test_kswapd_stays_awake();
	test_kswapd_priorities();
	test_kswapd_balance_gap();
	test_kswapd_frees_cold();
	test_kswapd_lru_order();
	test_kswapd_cpu();
	test_migrated_cache_on_lru();
	test_reclaim_clean_cache();
	test_direct_reclaim_zonelist();
	test_write_delete();
	test_delete_frees_by_pagevec();
	test_determinism();
	return t_report("sim/workloads_fs");
}
