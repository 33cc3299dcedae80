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

int main(void)
{
	test_release_pages_order();
	test_gather_batch();
	test_exit_one_gather();
	test_mmap_waits_for_munmap();
	test_fork_stack_node();
	return t_report("sim/unmap");
}
