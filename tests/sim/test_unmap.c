// SPDX-License-Identifier: MIT
/*
 * The order in which the process model frees and allocates, against 3.12:
 * tlb_flush_mmu frees the gather batch by batch, and release_pages each
 * pagevec of a batch last page first; the mmu_gather asks
 * for its first batch page with the 8th page gathered; exit_mmap uses one
 * gather in address order; mmap waits for mmap_sem; fork allocates the
 * child's stack on the parent's cpu.
 */
#include "ksim_helpers.h"

struct fixture {
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct ksim *k;
	struct kprocess *p;
	struct ktask *t;
};

static uint64_t idle_prog(struct ksim *k, struct ktask *t, uint64_t budget)
{
	(void)k;
	(void)t;
	(void)budget;
	return 0;
}

/*
 * A kernel model after a short run, and a process whose task is current.
 * @nodes 2: 2 nodes x 128 MiB, a cpu each; 1: one node and zone of 128 MiB
 * and 2 cpus, where every allocation has one zone's pcp list to take from
 * (pcp high 42 either way).
 */
static void setup(struct fixture *f, unsigned int nodes)
{
	machine(&f->s, 1u << 15, 2);
	if (nodes == 1) {
		kh_zones[0] = (struct mpm_zone_spec){ 0, MPM_ZONE_NORMAL, 1, 1u << 15 };
		f->s.nr_nodes = 1;
		f->s.nr_zones = 1;
	}
	REQUIRE(run_seeded(&f->r, &f->c, "pagetest:size=4M,hold=0", &f->s, 5, false, 7) == 0);
	f->k = f->r.k;
	REQUIRE(f->k);
	f->p = ksim_fork(f->k, 2, NULL, NULL);
	REQUIRE(f->p);
	f->t = ksim_spawn_on(f->k, f->p, idle_prog, NULL, 0);
	REQUIRE(f->t);
	f->k->current = f->t;
}

static void teardown(struct fixture *f)
{
	f->k->current = NULL;
	CHECK(!f->k->failed);
	CHECK_EQ_U(mpm_check(f->k->m, NULL, 0), 0);
	mpm_run_fini(&f->r);
}

/* Map and fault @n pages, then munmap them whole. */
static void map_unmap(struct fixture *f, uint32_t n, uint32_t *pfns)
{
	struct kvma *v = ksim_mmap(f->k, f->t, n);
	uint32_t pos = 0;
	bool done = false;

	REQUIRE(v);
	ksim_fault_range(f->k, f->t, v, &pos, n, 0, UINT64_MAX);
	REQUIRE(pos == n);
	for (uint32_t i = 0; pfns && i < n; i++)
		pfns[i] = v->pfn[i];
	mpm_drain_all_pages(f->k->m);
	ksim_munmap(f->k, f->t, v, UINT64_MAX, &done);
	REQUIRE(done);
}

/*
 * 14 pages: tlb_flush_mmu frees the bundle's 8 and then the first batch's
 * 6, each as a pagevec freed hot, last first.  Pages 8-13 end at the head
 * of the pcp list, in mapping order, then pages 0-7: the next allocations
 * take them in that order.
 */
static void test_release_pages_order(void)
{
	static const unsigned int order[14] = { 8, 9, 10, 11, 12, 13, 0, 1, 2, 3, 4, 5, 6, 7 };
	struct fixture f;
	uint32_t pfns[14];

	setup(&f, 1);
	map_unmap(&f, 14, pfns);
	for (unsigned int i = 0; i < 14; i++) {
		uint64_t pfn = mpm_alloc_pages(f.k->m, MPM_GFP_HIGHUSER_MOVABLE, 0, f.t->cpu);

		CHECK_EQ_U(pfn, pfns[order[i]]);
		mpm_free_pages(f.k->m, pfn, 0, 1);	/* out of the way, on the other cpu */
	}
	teardown(&f);
}

/*
 * The 8th page gathered fills the on-stack bundle: one batch page.  The
 * pte page goes through the gather too (pte_free_tlb), after the data
 * pages: 6 pages and it make 7, 7 and it make 8.
 */
static void test_gather_batch(void)
{
	struct fixture f;
	uint64_t before;

	setup(&f, 1);
	before = f.k->c.gather_pages;
	map_unmap(&f, 6, NULL);
	CHECK_EQ_U(f.k->c.gather_pages, before);
	map_unmap(&f, 7, NULL);
	CHECK_EQ_U(f.k->c.gather_pages, before + 1);
	teardown(&f);
}

/*
 * The batch page is asked for with GFP_NOWAIT: an atomic allocation, which
 * __alloc_pages_slowpath lets a quarter below the min watermark
 * (ALLOC_HARDER).  With every page a GFP_KERNEL allocation can have held,
 * the munmap still gets its batch page; a sleeping allocation would not,
 * and the gather would be flushed instead.
 */
static void test_gather_batch_atomic(void)
{
	struct fixture f;
	struct kvma *v;
	uint64_t before, *held, nheld;
	uint32_t pos = 0;
	bool done = false;

	setup(&f, 1);
	v = ksim_mmap(f.k, f.t, 16);
	REQUIRE(v);
	ksim_fault_range(f.k, f.t, v, &pos, 16, 0, UINT64_MAX);
	REQUIRE(pos == 16);
	nheld = hold_all_pages(f.k->m, f.t->cpu, &held);
	REQUIRE(mpm_alloc_pages(f.k->m, MPM_GFP_KERNEL, 0, f.t->cpu) == MPM_NO_PFN);
	before = f.k->c.gather_pages;
	ksim_munmap(f.k, f.t, v, UINT64_MAX, &done);
	REQUIRE(done);
	CHECK_EQ_U(f.k->c.gather_pages, before + 1);
	release_held(f.k->m, held, nheld);
	teardown(&f);
}

/*
 * exit_mmap: one gather for the whole mm, vmas zapped in address order.
 * B (mapped second, at 2 MiB) and C (mapped third, at 0, where A was) hold
 * 6 pages each: C0-C5 and B0-B1 fill the bundle, which asks for a batch
 * page (two gathers of 7 would not); B2-B5 follow in the batch with the
 * pte pages, the pmd and the pud.  Freed bundle first, each pagevec last
 * page first, the movable pcp list then reads B2-B5, C0-C5, B0-B1.
 */
static void test_exit_one_gather(void)
{
	struct fixture f;
	struct kvma *a, *b, *c;
	uint32_t pb[6], pc[6], pos = 0;
	uint64_t before;
	bool done = false;

	setup(&f, 1);
	a = ksim_mmap(f.k, f.t, 6);
	b = ksim_mmap(f.k, f.t, 6);
	REQUIRE(a && b);
	ksim_munmap(f.k, f.t, a, UINT64_MAX, &done);
	REQUIRE(done);
	c = ksim_mmap(f.k, f.t, 6);
	REQUIRE(c && c->va < b->va);
	ksim_fault_range(f.k, f.t, b, &pos, 6, 0, UINT64_MAX);
	pos = 0;
	ksim_fault_range(f.k, f.t, c, &pos, 6, 0, UINT64_MAX);
	for (unsigned int i = 0; i < 6; i++) {
		pb[i] = b->pfn[i];
		pc[i] = c->pfn[i];
	}
	mpm_drain_all_pages(f.k->m);
	before = f.k->c.gather_pages;
	f.k->current = NULL;
	ksim_exit_task(f.k, f.t);
	CHECK_EQ_U(f.k->c.gather_pages, before + 1);
	for (unsigned int i = 0; i < 12; i++) {
		uint64_t want = i < 4 ? pb[2 + i] : i < 10 ? pc[i - 4] : pb[i - 10];
		uint64_t pfn = mpm_alloc_pages(f.k->m, MPM_GFP_HIGHUSER_MOVABLE, 0, f.t->cpu);

		CHECK_EQ_U(pfn, want);
		mpm_free_pages(f.k->m, pfn, 0, 1);
	}
	teardown(&f);
}

/*
 * mmap takes mmap_sem for write: while one thread's munmap holds it, another
 * thread's mmap waits (asleep, no mapping made) and is woken when the munmap
 * is done.
 */
static void test_mmap_waits_for_munmap(void)
{
	struct fixture f;
	struct ktask *t2;
	struct kvma *v;
	uint32_t pos = 0;
	bool done = false;

	setup(&f, 1);
	t2 = ksim_spawn_on(f.k, f.p, idle_prog, NULL, 1);
	REQUIRE(t2);
	v = ksim_mmap(f.k, f.t, 64);
	REQUIRE(v);
	ksim_fault_range(f.k, f.t, v, &pos, 64, 0, UINT64_MAX);
	ksim_munmap(f.k, f.t, v, 1, &done);	/* one page's worth: still holding it */
	REQUIRE(!done);
	f.k->current = t2;
	CHECK(ksim_mmap(f.k, t2, 16) == NULL);
	CHECK(t2->state == TASK_SLEEPING && t2->mmap_wait);
	CHECK_EQ_U(f.p->mm->nr_vmas, 1);
	f.k->current = f.t;
	ksim_munmap(f.k, f.t, v, UINT64_MAX, &done);
	REQUIRE(done);
	CHECK(!t2->mmap_wait && t2->wake_at == f.k->now);
	teardown(&f);
}

/* dup_task_struct runs on the parent's cpu: the stack is on its node. */
static void test_fork_stack_node(void)
{
	struct fixture f;
	struct ktask *child;
	struct mpm_zone_info zi;

	setup(&f, 2);
	REQUIRE(mpm_cpu_to_node(f.k->m, 0) == 0 && mpm_cpu_to_node(f.k->m, 1) == 1);
	child = ksim_spawn_on(f.k, f.p, idle_prog, NULL, 1);
	REQUIRE(child && child->stack != NO_PFN32);
	mpm_zone_info(f.k->m, (unsigned int)mpm_pfn_to_zone(f.k->m, child->stack), &zi);
	CHECK_EQ_U(zi.node, 0);
	teardown(&f);
}

static void check_vmas_in_address_order(const struct kmm *mm)
{
	for (size_t i = 1; i < mm->nr_vmas; i++)
		CHECK(mm->vmas[i - 1]->va < mm->vmas[i]->va);
}

/*
 * mmap places first-fit from address 0 in 2 MiB units, freed ranges
 * reused; mm->vmas stays in address order for the one-pass search.
 */
static void test_vma_first_fit(void)
{
	struct fixture f;
	struct kvma *a, *b, *c, *d, *e;
	uint64_t b_va;
	bool done = false;

	setup(&f, 1);
	a = ksim_mmap(f.k, f.t, 6);		/* one 2 MiB unit */
	b = ksim_mmap(f.k, f.t, 600);		/* two */
	c = ksim_mmap(f.k, f.t, 6);
	REQUIRE(a && b && c);
	CHECK_EQ_U(a->va, 0);
	CHECK_EQ_U(b->va, 512);
	CHECK_EQ_U(c->va, 3 * 512);
	b_va = b->va;
	ksim_munmap(f.k, f.t, b, UINT64_MAX, &done);
	REQUIRE(done);
	check_vmas_in_address_order(f.p->mm);
	e = ksim_mmap(f.k, f.t, 1100);		/* three units: past c */
	d = ksim_mmap(f.k, f.t, 1000);		/* two: b's old place */
	REQUIRE(d && e);
	CHECK_EQ_U(e->va, 4 * 512);
	CHECK_EQ_U(d->va, b_va);
	CHECK_EQ_U(f.p->mm->nr_vmas, 4);
	check_vmas_in_address_order(f.p->mm);
	teardown(&f);
}

/*
 * Past 512 GiB a mapping needs a second pud page (another pgd entry), and
 * its GiB a pmd page of its own; exit frees all of them.  The second
 * mapping is moved up by hand: a real one that high would need 512 GiB
 * of mappings below it.
 */
static void test_page_tables_past_512_gib(void)
{
	const uint64_t high = 600ull << 18;	/* 600 GiB, in pages */
	struct fixture f;
	struct kvma *a, *b;
	uint64_t pt_before;
	uint32_t pos = 0;
	struct kmm *mm;

	setup(&f, 1);
	mm = f.p->mm;
	a = ksim_mmap(f.k, f.t, 1);
	b = ksim_mmap(f.k, f.t, 1);
	REQUIRE(a && b);
	b->va = high;
	pt_before = f.k->c.pte_pages;
	ksim_fault_range(f.k, f.t, a, &pos, 1, 0, UINT64_MAX);
	pos = 0;
	ksim_fault_range(f.k, f.t, b, &pos, 1, 0, UINT64_MAX);
	REQUIRE(pos == 1 && !f.k->failed);
	/* pud, pmd and pte page for each */
	CHECK_EQ_U(f.k->c.pte_pages - pt_before, 6);
	REQUIRE(mm->nr_pud > 1 && mm->nr_pmd > 600);
	CHECK(mm->pud[0] != NO_PFN32 && mm->pud[1] != NO_PFN32);
	CHECK(mm->pmd[0] != NO_PFN32 && mm->pmd[600] != NO_PFN32);
	f.k->current = NULL;
	ksim_exit_task(f.k, f.t);
	for (uint32_t i = 0; i < mm->nr_pud; i++)
		CHECK(mm->pud[i] == NO_PFN32);
	for (uint32_t i = 0; i < mm->nr_pmd; i++)
		CHECK(mm->pmd[i] == NO_PFN32);
	teardown(&f);
}

/* The index of @pfn in @pfns[@n], or -1. */
static int index_of(const uint32_t *pfns, unsigned int n, uint64_t pfn)
{
	for (unsigned int j = 0; j < n; j++)
		if (pfns[j] == pfn)
			return (int)j;
	return -1;
}

/*
 * Pagevecs hold 14 pages.  38 pages: the bundle's 8 are one pagevec, the
 * first batch's 30 data pages three -- 8-21, 22-35, and 36, 37 (with the
 * pte page, which goes to the unmovable list) -- each freed last first, so
 * the next movable allocations take 36, 37, 22-35, then 8-21.
 *
 * The list does not then run 0-7.  pcp->count counts all three lists, and
 * the unmovable one also holds the spare pages of the refill that gave the
 * gather its batch page, so count reaches high (42) within the pagevec
 * 22-35, and free_pcppages_bulk gives a batch (7) back from the lists'
 * tails, round robin from MIGRATE_MOVABLE two at a time: 7, 6, an
 * unmovable page, 5, 4, another, 3.  The list keeps 0-2; its refill takes
 * the order-0 list first, newest first -- 3, then two order-0 pages that
 * are not the mapping's -- and then splits the order-2 block 4-7 that the
 * four frees merged.
 */
static void test_pagevec_size(void)
{
	struct fixture f;
	uint32_t pfns[38];
	int want[40], n = 0;

	want[n++] = 36;
	want[n++] = 37;
	for (int i = 22; i < 36; i++)
		want[n++] = i;
	for (int i = 8; i < 22; i++)
		want[n++] = i;
	for (int i = 0; i < 4; i++)
		want[n++] = i;
	want[n++] = -1;
	want[n++] = -1;
	for (int i = 4; i < 8; i++)
		want[n++] = i;
	setup(&f, 1);		/* pcp high 42, batch 7 */
	map_unmap(&f, 38, pfns);
	for (int i = 0; i < n; i++) {
		uint64_t pfn = mpm_alloc_pages(f.k->m, MPM_GFP_HIGHUSER_MOVABLE, 0, f.t->cpu);

		CHECK_EQ_U(index_of(pfns, 38, pfn), want[i]);
		mpm_free_pages(f.k->m, pfn, 0, 1);	/* out of the way, on the other cpu */
	}
	teardown(&f);
}

/*
 * Page-cache reads allocate cold (page_cache_alloc_readahead: __GFP_COLD),
 * from the tail of the pcp list; a full-page write allocates hot (the
 * mapping's gfp), from the head.  After a 14-page munmap the list runs
 * 8-13, 0-7: a read takes page 7, a write page 8.
 */
static void test_page_cache_hot_and_cold(void)
{
	struct fixture f;
	uint32_t pfns[14];
	struct kfile *r, *w;

	setup(&f, 1);
	map_unmap(&f, 14, pfns);
	r = ksim_new_file(f.k, 1, f.t->cpu);
	w = ksim_new_file(f.k, 1, f.t->cpu);
	REQUIRE(r && w);
	ksim_read_file(f.k, r, 0, 1, f.t->cpu, false);
	ksim_write_file(f.k, w, 0, 1, f.t->cpu);
	CHECK_EQ_U(index_of(pfns, 14, r->pfn[0]), 7);
	CHECK_EQ_U(index_of(pfns, 14, w->pfn[0]), 8);
	teardown(&f);
}

int main(void)
{
	test_release_pages_order();
	test_pagevec_size();
	test_page_cache_hot_and_cold();
	test_gather_batch();
	test_gather_batch_atomic();
	test_exit_one_gather();
	test_mmap_waits_for_munmap();
	test_fork_stack_node();
	test_vma_first_fit();
	test_page_tables_past_512_gib();
	return t_report("sim/unmap");
}
