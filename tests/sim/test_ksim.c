// SPDX-License-Identifier: MIT
/*
 * The kernel model end to end on small machines: ebizzy (4 KiB and THP, and
 * its main thread woken from pthread_join by the last worker's exit) and
 * pagetest runs with the allocator checker and the owner/content checker at
 * every sample; conservation (what the allocator counts as used equals what
 * the model holds); an out-of-memory run that the OOM killer resolves;
 * a task OOM-killed by its own fault in the middle of a bulk fault run,
 * and by its own mmap; no pcp drain after a reclaim round that freed nothing,
 * and one after a round whose attempt still fails; oom_badness (page tables
 * count, the first of equals dies); THP's deposited pte pages, and its
 * fallback to 4 KiB pages; the minimum of free regions between samples;
 * determinism of the sample series.
 */

#include "ksim_helpers.h"
#include "run_samples.h"

static int run(struct mpm_run *r, struct mpm_run_config *c, const char *wl,
	       const struct mpm_machine_spec *s, double duration, bool boot)
{
	return run_seeded(r, c, wl, s, duration, boot, 7);
}

static void test_ebizzy(bool thp)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	const char *wl = thp ? "ebizzy:s=8M,n=2,t=4,S=3,instances=2,thp=always" :
			       "ebizzy:s=8M,n=2,t=4,S=3,instances=2";

	machine(&s, 1u << 17, 4);	/* 2 x 512 MiB */
	CHECK(run(&r, &c, wl, &s, 60, true) == 0);
	CHECK(r.k->c.faults > 0);
	CHECK(thp ? r.k->c.thp_faults > 0 : r.k->c.thp_faults == 0);
	CHECK(r.k->c.pte_pages > 0 && r.k->c.stacks > 0);
	CHECK(r.end_t < 60);		/* stopped two seconds after the last exit */
	CHECK(r.workload_live == 0);
	check_conservation(&r);
	mpm_run_fini(&r);
}

/*
 * ebizzy's main thread blocks in pthread_join: the last worker's exit wakes
 * it, and alone on its CPU it exits in the next quantum -- not at the next
 * look of a poll.  (With other copies' threads on the CPU it waits for its
 * turn in the run queue: the model has no wake-up preemption.)
 */
static void test_ebizzy_join(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	unsigned int seen = 0;

	machine(&s, 1u << 17, 2);
	CHECK(run(&r, &c, "ebizzy:s=8M,n=2,t=4,S=2,instances=1", &s, 60, true) == 0);
	for (size_t i = 0; i < r.k->nr_procs; i++) {
		struct kprocess *p = r.k->procs[i];
		uint64_t last = 0;

		if (p->nr_threads != 5)
			continue;	/* not the ebizzy copy */
		seen++;
		for (unsigned int j = 1; j < p->nr_threads; j++) {
			CHECK(p->threads[j]->state == TASK_DEAD);
			if (p->threads[j]->exit_at > last)
				last = p->threads[j]->exit_at;
		}
		CHECK(p->threads[0]->state == TASK_DEAD);
		CHECK_EQ_U(p->threads[0]->exit_at - last, r.k->p.quantum_ns);
		/*
		 * Main slept twice, for the run's seconds and in the join, and
		 * was woken once from each: a join that polled would wake it
		 * again for every look it took while the workers finished.
		 */
		CHECK_EQ_U(p->threads[0]->nr_wakeups, 2);
	}
	CHECK_EQ_U(seen, 1);
	mpm_run_fini(&r);
}

static void test_pagetest_accounting(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	uint64_t used_before;

	machine(&s, 1u << 17, 2);
	CHECK(run(&r, &c, "pagetest:size=64M,hold=1", &s, 3, false) == 0);
	/* 16384 pages touched and held, 32 pte pages, pgd/pud/pmd, one stack */
	mpm_drain_all_pages(r.m);
	used_before = mpm_used_pages(r.m);
	CHECK(used_before >= 16384 + 32 + 3 + 2);
	CHECK_EQ_U(r.k->c.faults, 16384);
	check_conservation(&r);
	mpm_run_fini(&r);
}

static void test_oom(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;

	/* 8 threads x 64 MiB copies + chunks on 256 MiB: someone must die */
	machine(&s, 1u << 15, 2);
	CHECK(run(&r, &c, "ebizzy:s=64M,n=1,t=8,S=3,instances=2", &s, 60, false) == 0);
	CHECK(r.k->c.oom_kills > 0);
	check_conservation(&r);
	mpm_run_fini(&r);
}

/*
 * One process faulting more than the machine has: a chunk's bulk allocation
 * comes back short, the next fault kills the faulting task itself, and its
 * exit must free the pages of that run too, without the fault path touching
 * the buried vma afterwards.
 */
static void test_oom_self_mid_run(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;

	machine(&s, 1u << 12, 2);	/* 2 x 16 MiB */
	CHECK(run(&r, &c, "pagetest:size=64M,hold=1", &s, 5, false) == 0);
	CHECK_EQ_U(r.k->c.oom_kills, 1);
	CHECK(r.k->c.faults > 0 && r.k->c.faults < 16384);
	CHECK_EQ_U(r.owner_mismatches + r.content_mismatches, 0);
	check_conservation(&r);
	mpm_run_fini(&r);
}

static uint64_t idle_prog(struct ksim *k, struct ktask *t, uint64_t budget)
{
	(void)k;
	(void)t;
	(void)budget;
	return 0;
}

/*
 * A kernel model to work in: @node_pages per node, two cpus, after a short
 * workload (pagetest's 4 MiB, which stays until the run ends).  @s and @c
 * are the caller's: the run keeps pointers to both.
 */
static struct ksim *after_pagetest(struct mpm_run *r, struct mpm_run_config *c,
				   struct mpm_machine_spec *s, uint64_t node_pages)
{
	machine(s, node_pages, 2);
	CHECK(run(r, c, "pagetest:size=4M,hold=0", s, 5, false) == 0);
	REQUIRE(r->k);
	return r->k;
}

/* A new process whose one task, idle, is current. */
static struct ktask *new_current_task(struct ksim *k)
{
	struct kprocess *p = ksim_fork(k, 1, NULL, NULL);
	struct ktask *t;

	REQUIRE(p);
	t = ksim_spawn(k, p, idle_prog, NULL);
	REQUIRE(t);
	k->current = t;
	return t;
}

/*
 * The end of an out-of-memory test: nothing current and the run not
 * failed; @pfn (unless MPM_NO_PFN) and the @nheld pages of @held given
 * back; the allocator sound.
 */
static void oom_test_end(struct mpm_run *r, uint64_t pfn, unsigned int cpu, uint64_t *held,
			 uint64_t nheld)
{
	struct ksim *k = r->k;

	k->current = NULL;
	CHECK(!k->failed);
	if (pfn != MPM_NO_PFN)
		mpm_free_pages(k->m, pfn, 0, cpu);
	release_held(k->m, held, nheld);
	CHECK_EQ_U(mpm_check(k->m, NULL, 0), 0);
	mpm_run_fini(r);
}

/*
 * A process whose one task is current, with 2048 pages of rss: more than
 * pagetest's 4 MiB, which stays until the run ends, so the OOM killer
 * picks it.
 */
static struct ktask *current_with_rss(struct ksim *k)
{
	struct ktask *t = new_current_task(k);
	struct kvma *v;
	uint32_t pos = 0;

	v = ksim_mmap(k, t, 2048);
	REQUIRE(v);
	ksim_fault_range(k, t, v, &pos, v->npages, 0, UINT64_MAX);
	CHECK_EQ_U(pos, 2048);
	return t;
}

/*
 * mmap's vm_area_struct allocation OOM-kills the mapping process itself:
 * the mapping must not be created in the mm that exit has just torn down.
 * The test holds every free page (not the OOM killer's to free) after
 * giving the process the only rss there is and filling the vma cache's
 * slabs, so the next vma object needs a page and the process is the victim.
 */
static void test_oom_self_in_mmap(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct kprocess *p;
	struct ktask *t;
	uint64_t *held, nheld;
	struct ksim *k;

	k = after_pagetest(&r, &c, &s, 1u << 12);	/* 2 x 16 MiB */
	t = current_with_rss(k);
	p = t->proc;
	/* no vma object left without a new slab page */
	while (k->slab[SLAB_VMA].partial)
		REQUIRE(ksim_slab_alloc(k, SLAB_VMA, t->cpu));
	nheld = hold_all_pages(k->m, t->cpu, &held);
	CHECK(ksim_mmap(k, t, 16) == NULL);
	CHECK_EQ_U(k->c.oom_kills, 1);
	CHECK(t->state == TASK_DEAD);
	CHECK_EQ_U(p->mm->nr_vmas, 0);
	CHECK_EQ_U(p->mm->rss, 0);
	oom_test_end(&r, MPM_NO_PFN, t->cpu, held, nheld);
}

/*
 * __alloc_pages_direct_reclaim drains the pcp lists only after a round of
 * reclaim that freed something.  With no page cache to reclaim, pages
 * sitting on another cpu's pcp list do not save the allocation: it goes
 * to the OOM killer, and the faulting process, the only one with rss, dies.
 */
static void test_oom_without_drain(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct ktask *t;
	uint64_t *held, nheld, pfn;
	unsigned int other;
	struct ksim *k;

	k = after_pagetest(&r, &c, &s, 1u << 15);	/* 2 x 128 MiB: pcp high 42 */
	REQUIRE(ksim_cached_pages(k) == 0);
	t = current_with_rss(k);
	nheld = hold_all_pages(k->m, t->cpu, &held);
	/* four pages onto the other cpu's pcp list, below its high mark */
	other = t->cpu ^ 1;
	for (unsigned int i = 0; i < 4; i++)
		mpm_free_pages(k->m, held[--nheld], 0, other);
	pfn = ksim_alloc_page(k, MPM_GFP_HIGHUSER_MOVABLE, 0, t->cpu);
	CHECK(pfn == MPM_NO_PFN);
	CHECK_EQ_U(k->c.direct_reclaimed, 0);
	CHECK_EQ_U(k->c.oom_kills, 1);
	CHECK(t->state == TASK_DEAD);
	oom_test_end(&r, pfn, t->cpu, held, nheld);
}

/*
 * A read's readahead allocation may fail but not OOM-kill
 * (page_cache_alloc_readahead's __GFP_NORETRY): with no page cache to
 * reclaim it fails, counted, and the page the read needs comes from
 * page_cache_alloc_cold, an ordinary allocation, which goes to the OOM
 * killer; the reader, the only process with rss, dies and reads nothing.
 */
static void test_readahead_noretry(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct kfile *f;
	struct ktask *t;
	uint64_t *held, nheld;
	struct ksim *k;

	k = after_pagetest(&r, &c, &s, 1u << 15);
	REQUIRE(ksim_cached_pages(k) == 0);
	t = current_with_rss(k);
	f = ksim_new_file(k, 4, t->cpu);
	REQUIRE(f);
	nheld = hold_all_pages(k->m, t->cpu, &held);
	REQUIRE(k->c.alloc_failures == 0 && k->c.oom_kills == 0);
	ksim_read_file(k, f, 0, 4, t->cpu, false);
	CHECK_EQ_U(k->c.alloc_failures, 1);
	CHECK_EQ_U(k->c.oom_kills, 1);
	CHECK(t->state == TASK_DEAD);
	CHECK_EQ_U(f->cached, 0);
	CHECK_EQ_U(k->c.direct_reclaimed, 0);
	oom_test_end(&r, MPM_NO_PFN, t->cpu, held, nheld);
}

/*
 * __alloc_pages_direct_reclaim drains every pcp list when the attempt after
 * a round that freed something fails.  Reclaim frees its pages onto the
 * reclaiming cpu's pcp list (cold), where the zone's watermark test, which
 * counts only the buddy lists' pages, does not see them: the attempt fails,
 * the drain puts them in the buddy lists, and the second attempt takes one.
 * One round, no OOM kill.  Without the drain every round would leave its
 * pages on the list until the list reached its high mark.
 *
 * The round is try_to_free_pages by priority.  cpu 1's zonelist is node 1's
 * Normal (297 pages of the file on its LRU), then node 0's DMA32 (215).
 * Each priority scans lru_size >> priority of each zone, all clean here:
 * nothing down to priority 9, then Normal / DMA32 give 1 / 0 (priority 8),
 * 2 / 1, 4 / 3, 9 / 6 and 17 / 12 (priority 4), where the total, 55,
 * passes SWAP_CLUSTER_MAX.  Stopping at the first 32 pages would have
 * taken them all from Normal.
 */
static void test_direct_reclaim_drains(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct kfile *f;
	struct ktask *t;
	uint64_t *held, nheld, pfn;
	struct ksim *k;

	k = after_pagetest(&r, &c, &s, 1u << 15);	/* 2 x 128 MiB: pcp high 42 */
	t = new_current_task(k);
	f = ksim_new_file(k, 512, t->cpu);
	REQUIRE(f);
	ksim_read_file(k, f, 0, 512, t->cpu, false);
	REQUIRE(f->cached == 512);
	nheld = hold_all_pages(k->m, t->cpu, &held);
	REQUIRE(t->cpu == 1 && k->lru[1].nr_pages == 297 && k->lru[0].nr_pages == 215);
	pfn = ksim_alloc_page(k, MPM_GFP_HIGHUSER_MOVABLE, 0, t->cpu);
	CHECK(pfn != MPM_NO_PFN);
	CHECK_EQ_U(k->c.direct_reclaimed, 55);
	CHECK_EQ_U(k->lru[1].nr_pages, 297 - 33);
	CHECK_EQ_U(k->lru[0].nr_pages, 215 - 22);
	CHECK_EQ_U(k->c.oom_kills, 0);
	CHECK_EQ_U(f->cached, 512 - 55);
	oom_test_end(&r, pfn, t->cpu, held, nheld);
}

/*
 * try_to_free_pages that frees nothing still reports progress while a zone
 * of the zonelist is reclaimable ("top priority shrink_zones still had more
 * to do? don't OOM, then").  The file's one page is dirty: the first round
 * writes it back (priority 0 scans the whole LRU) and frees nothing, so the
 * slow path tries again instead of killing; the second round frees it, and
 * that page, one above the min watermark hold_all_pages left, is the one
 * the allocation gets.  No OOM kill: had no progress been reported, the
 * process would have died with its page cache still there.
 */
static void test_direct_reclaim_dirty_progress(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct kfile *f;
	struct ktask *t;
	uint64_t *held, nheld, pfn;
	struct ksim *k;

	k = after_pagetest(&r, &c, &s, 1u << 15);
	REQUIRE(ksim_cached_pages(k) == 0);
	t = current_with_rss(k);
	f = ksim_new_file(k, 1, t->cpu);
	REQUIRE(f);
	ksim_write_file(k, f, 0, 1, t->cpu);
	REQUIRE(f->cached == 1 && f->dirty[0]);
	nheld = hold_all_pages(k->m, t->cpu, &held);
	pfn = ksim_alloc_page(k, MPM_GFP_HIGHUSER_MOVABLE, 0, t->cpu);
	CHECK(pfn != MPM_NO_PFN);
	CHECK_EQ_U(k->c.direct_reclaimed, 1);
	CHECK_EQ_U(f->cached, 0);
	CHECK_EQ_U(k->c.oom_kills, 0);
	CHECK(t->state != TASK_DEAD);
	oom_test_end(&r, pfn, t->cpu, held, nheld);
}

/*
 * The run's minimum of free regions is taken after every quantum, not only
 * at the samples: pagetest maps, touches and unmaps its 64 MiB within the
 * first second, so no sample sees it at its height (the samples read 8,
 * then 4: what the pcp lists and the kernel's pages hold after it).
 */
static void test_free_regions_min_between_samples(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;

	machine(&s, 1u << 15, 2);	/* 2 x 128 MiB in 32 MiB regions */
	CHECK(run(&r, &c, "pagetest:size=64M,hold=0,free=1", &s, 5, false) == 0);
	CHECK(r.nr_samples >= 2);
	CHECK(r.free_regions_min < samples_free_regions_min(&r));
	mpm_run_fini(&r);
}

static void test_determinism(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c1, c2;
	struct mpm_run r1, r2;

	machine(&s, 1u << 17, 4);
	CHECK(run(&r1, &c1, "ebizzy:s=8M,n=2,t=4,S=2,instances=2", &s, 60, true) == 0);
	CHECK(run(&r2, &c2, "ebizzy:s=8M,n=2,t=4,S=2,instances=2", &s, 60, true) == 0);
	CHECK_EQ_U(r1.nr_samples, r2.nr_samples);
	for (size_t i = 0; i < r1.nr_samples && i < r2.nr_samples; i++) {
		CHECK_EQ_U(r1.samples[i].free_regions, r2.samples[i].free_regions);
		CHECK_EQ_U(r1.samples[i].used_pages, r2.samples[i].used_pages);
	}
	CHECK(!memcmp(&r1.counters, &r2.counters, sizeof(r1.counters)));
	mpm_run_fini(&r1);
	mpm_run_fini(&r2);
}

/*
 * oom_badness scores every process it may kill at least 1: one with no
 * rss and no page tables is still a victim, where "nothing left to kill"
 * would fail the run.
 */
static void test_oom_victim_without_rss(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct kprocess *p;
	struct ktask *t;
	uint64_t *held, *held2, *held3, nheld, nheld2, nheld3, pfn, pfn2, failures;
	struct ksim *k;

	k = after_pagetest(&r, &c, &s, 1u << 12);	/* 2 x 16 MiB */
	t = new_current_task(k);
	p = t->proc;
	REQUIRE(p->mm->rss == 0 && p->mm->nr_ptes == 0);
	/* the first victim is pagetest's process, with its 4 MiB of rss */
	nheld = hold_all_pages(k->m, t->cpu, &held);
	pfn = ksim_alloc_page(k, MPM_GFP_HIGHUSER_MOVABLE, 0, t->cpu);
	CHECK(pfn != MPM_NO_PFN && !p->killed);
	CHECK_EQ_U(k->c.oom_kills, 1);
	/* then the process with nothing, the only one left */
	nheld2 = hold_all_pages(k->m, t->cpu, &held2);
	CHECK(ksim_alloc_page(k, MPM_GFP_HIGHUSER_MOVABLE, 0, t->cpu) == MPM_NO_PFN);
	CHECK(!k->failed);
	CHECK_EQ_U(k->c.oom_kills, 2);
	CHECK(p->killed && t->state == TASK_DEAD);
	/*
	 * the victim allocating again (TIF_MEMDIE), with what its death freed
	 * held down to the watermark too: the reserves below it serve it, with
	 * no reclaim and no other victim sought (there is none: the run would
	 * fail)
	 */
	nheld3 = hold_all_pages(k->m, t->cpu, &held3);
	failures = k->c.alloc_failures;
	pfn2 = ksim_alloc_page(k, MPM_GFP_KERNEL, 0, t->cpu);
	CHECK(pfn2 != MPM_NO_PFN);
	CHECK(!k->failed);
	CHECK_EQ_U(k->c.oom_kills, 2);
	CHECK_EQ_U(k->c.alloc_failures, failures);
	if (pfn2 != MPM_NO_PFN)
		mpm_free_pages(k->m, pfn2, 0, t->cpu);
	release_held(k->m, held3, nheld3);
	k->current = NULL;
	if (pfn != MPM_NO_PFN)
		mpm_free_pages(k->m, pfn, 0, t->cpu);
	release_held(k->m, held, nheld);
	release_held(k->m, held2, nheld2);
	CHECK_EQ_U(mpm_check(k->m, NULL, 0), 0);
	mpm_run_fini(&r);
}

/*
 * A process of @runs runs of @run pages each, faulted at a stride of 512
 * pages (one page table's reach) in one vma: the same rss in more page
 * tables as @run shrinks.
 */
static struct kprocess *proc_with_runs(struct ksim *k, uint32_t runs, uint32_t run)
{
	struct ktask *t = new_current_task(k);
	struct kvma *v;

	v = ksim_mmap(k, t, runs * 512);
	REQUIRE(v);
	for (uint32_t i = 0; i < runs; i++) {
		uint32_t pos = i * 512;

		ksim_fault_range(k, t, v, &pos, i * 512 + run, 0, UINT64_MAX);
		REQUIRE(pos == i * 512 + run);
	}
	k->current = NULL;
	return t->proc;
}

/*
 * oom_badness scores rss + nr_ptes, and select_bad_process keeps the first
 * of equal scores ("points > chosen_points").  Two processes with 1536
 * pages of rss each, more than pagetest's 4 MiB: with the same layout the
 * first dies; with the second's rss spread over twice the page tables,
 * the second.  The allocating task is a third process with nothing.
 */
static void test_oom_badness(bool spread)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct kprocess *p1, *p2;
	struct ktask *t;
	uint64_t *held, nheld, pfn;
	struct ksim *k;

	k = after_pagetest(&r, &c, &s, 1u << 15);
	p1 = proc_with_runs(k, 3, 512);
	p2 = spread ? proc_with_runs(k, 6, 256) : proc_with_runs(k, 3, 512);
	REQUIRE(p1->mm->rss == 1536 && p2->mm->rss == 1536);
	if (spread)
		REQUIRE(p2->mm->nr_ptes >= 2 * p1->mm->nr_ptes);
	else
		REQUIRE(p2->mm->nr_ptes == p1->mm->nr_ptes);
	t = new_current_task(k);
	nheld = hold_all_pages(k->m, t->cpu, &held);
	pfn = ksim_alloc_page(k, MPM_GFP_HIGHUSER_MOVABLE, 0, t->cpu);
	CHECK(pfn != MPM_NO_PFN);
	CHECK_EQ_U(k->c.oom_kills, 1);
	CHECK(p1->killed == !spread);
	CHECK(p2->killed == spread);
	oom_test_end(&r, pfn, t->cpu, held, nheld);
}

/*
 * SLUB's __slab_free discards a slab whose last object goes when the
 * partial list -- partly used and empty slabs, this one included -- holds
 * more than min_partial (5 for the 64-byte anon_vma_chain cache), and keeps
 * it otherwise, however few of the slabs on it are empty.  Emptied on a
 * list of its own, a slab stays; emptied on a list of 8, it goes back to
 * the page allocator.
 */
static void test_slab_empty_kept_by_partial_count(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct kslab_cache *sc;
	void *slab[8];
	uint64_t freed;
	struct ksim *k;

	k = after_pagetest(&r, &c, &s, 1u << 12);
	sc = &k->slab[SLAB_AVC];
	REQUIRE(sc->min_partial == 5 && sc->objs == 64);
	while (sc->partial)
		REQUIRE(ksim_slab_alloc(k, SLAB_AVC, 0));
	for (int i = 0; i < 8; i++)
		for (unsigned int j = 0; j < sc->objs; j++) {
			void *o = ksim_slab_alloc(k, SLAB_AVC, 0);

			REQUIRE(o && (j == 0 || o == slab[i]));
			slab[i] = o;
		}
	REQUIRE(sc->nr_partial == 0);
	freed = k->c.slab_pages_freed;
	for (unsigned int j = 0; j < sc->objs; j++)
		ksim_slab_free(k, slab[0], 0);
	CHECK_EQ_U(k->c.slab_pages_freed, freed);	/* kept: 1 slab on the list */
	CHECK_EQ_U(sc->nr_partial, 1);
	for (int i = 1; i < 7; i++)
		ksim_slab_free(k, slab[i], 0);
	CHECK_EQ_U(sc->nr_partial, 7);
	for (unsigned int j = 0; j < sc->objs; j++)
		ksim_slab_free(k, slab[7], 0);
	CHECK_EQ_U(k->c.slab_pages_freed, freed + 1);	/* discarded: 8 on the list */
	CHECK_EQ_U(sc->nr_partial, 7);
	mpm_run_fini(&r);
}

/*
 * do_huge_pmd_anonymous_page maps a THP only where the whole 2 MiB range
 * lies inside the vma: a 4 MiB mapping (on a 2 MiB boundary, as every
 * mapping here) takes two THP faults; one page more, and the extra page
 * is an order-0 fault; one page less, and only the first 2 MiB are huge
 * (k->c.faults counts the order-0 faults, thp_faults the huge ones).
 */
static void test_thp_whole_pmds(void)
{
	static const struct { const char *wl; uint64_t thp, faults; } runs[] = {
		{ "pagetest:size=4M,hold=5,thp=always", 2, 0 },
		{ "pagetest:size=4100K,hold=5,thp=always", 2, 1 },
		{ "pagetest:size=4092K,hold=5,thp=always", 1, 511 },
	};

	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	uint64_t pte_pages;

	for (unsigned int i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		machine(&s, 1u << 17, 2);
		CHECK(run(&r, &c, runs[i].wl, &s, 2, false) == 0);
		CHECK_EQ_U(r.k->c.thp_faults, runs[i].thp);
		CHECK_EQ_U(r.k->c.faults, runs[i].faults);
		CHECK_EQ_U(r.k->c.thp_fallbacks, 0);
		mpm_run_fini(&r);
	}
	/*
	 * A THP fault deposits the pte page its chunk would have had
	 * (pgtable_trans_huge_deposit), so the run allocates as many page-table
	 * pages as without THP.
	 */
	machine(&s, 1u << 17, 2);
	CHECK(run(&r, &c, "pagetest:size=4M,hold=5", &s, 2, false) == 0);
	pte_pages = r.k->c.pte_pages;
	CHECK(pte_pages >= 2);
	mpm_run_fini(&r);
	machine(&s, 1u << 17, 2);
	CHECK(run(&r, &c, runs[0].wl, &s, 2, false) == 0);
	CHECK_EQ_U(r.k->c.pte_pages, pte_pages);
	mpm_run_fini(&r);
}

/*
 * Where no order-9 block is to be had, a THP fault falls back to 4 KiB
 * pages (do_huge_pmd_anonymous_page: THP_FAULT_FALLBACK, then the pte
 * fault): once per 2 MiB chunk, since the fallback's pte page makes the
 * pmd present and the chunk's other pages fault as order-0 pages.  The
 * upper half of each node has a one-page hole every MiB, so it holds no
 * order-9 block: a 160 MiB mapping takes what huge pages the lower halves
 * give and falls back for the rest of its 80 chunks, with as many
 * page-table pages as without THP and nothing OOM-killed.
 */
static void test_thp_fallback(void)
{
	static struct mpm_hole_spec holes[128];
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	uint64_t pte_pages = 0;

	for (int thp = 0; thp < 2; thp++) {
		machine(&s, 1u << 15, 2);
		for (unsigned int h = 0; h < 128; h++) {
			uint64_t pfn = (h < 64 ? 1u << 14 : 3u << 14) + 256 * (h % 64);

			holes[h] = (struct mpm_hole_spec){ pfn, pfn + 1 };
		}
		s.holes = holes;
		s.nr_holes = 128;
		CHECK(run(&r, &c, thp ? "pagetest:size=160M,hold=5,thp=always" :
				       "pagetest:size=160M,hold=5", &s, 8, false) == 0);
		CHECK_EQ_U(r.k->c.oom_kills, 0);
		if (!thp) {
			pte_pages = r.k->c.pte_pages;
			CHECK_EQ_U(r.k->c.thp_fallbacks, 0);
		} else {
			CHECK(r.k->c.thp_faults > 0 && r.k->c.thp_fallbacks > 0);
			CHECK_EQ_U(r.k->c.thp_faults + r.k->c.thp_fallbacks, 80);
			CHECK_EQ_U(r.k->c.faults, r.k->c.thp_fallbacks * 512);
			CHECK_EQ_U(r.k->c.pte_pages, pte_pages);
		}
		check_conservation(&r);
		mpm_run_fini(&r);
	}
}

int main(void)
{
	test_slab_empty_kept_by_partial_count();
	test_thp_whole_pmds();
	test_thp_fallback();
	test_ebizzy(false);
	test_ebizzy(true);
	test_ebizzy_join();
	test_pagetest_accounting();
	test_oom();
	test_oom_self_mid_run();
	test_oom_self_in_mmap();
	test_oom_without_drain();
	test_readahead_noretry();
	test_oom_victim_without_rss();
	test_oom_badness(false);
	test_oom_badness(true);
	test_direct_reclaim_drains();
	test_direct_reclaim_dirty_progress();
	test_free_regions_min_between_samples();
	test_determinism();
	return t_report("sim/ksim");
}
