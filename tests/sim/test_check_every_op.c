// SPDX-License-Identifier: MIT
/*
 * mempower run --check-every-op on a kernel model: mpm_check() after every
 * call the simulator makes into the allocator (ksim_allocator_call_done),
 * the owner checker after every quantum.  The checks see a broken invariant
 * at the next call, and they change nothing in the result.  With or without
 * the flag, a free or an owner the allocator refuses fails the run.
 */
#include "mmzone.h"
#include "sim/ksim.h"
#include "sim_helpers.h"

#define MACHINE	"32M"
/* forks, exits, page tables, slab and anonymous faults, in about 9,000 calls */
#define WORKLOAD "kernbench:jobs=2,files=20,headers=10,includes=5,heap=1M,cpu=1"

static char *run_json(struct sim_case *c, bool check, uint64_t *checked)
{
	char *json;

	if (sim_case_run(c, MACHINE, "4M", "2", WORKLOAD, 3, 7, check)) {
		fprintf(stderr, "run failed: %s\n", c->err);
		REQUIRE(0);
	}
	REQUIRE(c->run.k);
	*checked = c->run.k->checked_calls;
	json = sim_case_json(c, MACHINE, false);
	return json;
}

/* The flag checks: many calls, and the same result as without it. */
static void test_checks_change_nothing(void)
{
	struct sim_case a, b;
	uint64_t with, without;
	char *ja = run_json(&a, true, &with);
	char *jb = run_json(&b, false, &without);

	CHECK_EQ_U(without, 0);
	/* at least one check per allocation */
	CHECK(with >= a.run.counters.allocs);
	CHECK(a.run.counters.allocs > 1000);
	CHECK(strcmp(ja, jb) == 0);
	free(ja);
	free(jb);
	sim_case_fini(&a);
	sim_case_fini(&b);
}

/* A counter broken between two calls fails the run at the next call. */
static void test_next_call_sees_damage(void)
{
	struct sim_case c;
	struct ksim *k;
	struct zone *z;
	uint64_t with, pfn;
	char *json = run_json(&c, true, &with);

	free(json);
	k = c.run.k;
	z = &k->m->zones[mpm_nr_zones(k->m) - 1];
	pfn = ksim_alloc_page(k, MPM_GFP_KERNEL, 0, 0);
	CHECK(pfn != MPM_NO_PFN && !k->failed);
	CHECK_EQ_U(k->checked_calls, with + 1);
	z->vm_free_pages++;
	mpm_free_pages(k->m, pfn, 0, 0);
	CHECK(!k->failed);	/* only the simulator's own calls are checked */
	pfn = ksim_alloc_page(k, MPM_GFP_KERNEL, 0, 0);
	CHECK(k->failed);
	CHECK(strstr(k->error, "invariant broken after allocator call") != NULL);
	CHECK(strstr(k->error, "NR_FREE_PAGES") != NULL);
	z->vm_free_pages--;
	if (pfn != MPM_NO_PFN)
		mpm_free_pages(k->m, pfn, 0, 0);
	sim_case_fini(&c);
}

/* A free or an owner the allocator refuses is a page the model lost: the run fails. */
static void test_refusals_fail_the_run(void)
{
	struct sim_case c;
	struct ksim *k;
	uint64_t with, pfn;
	char *json = run_json(&c, false, &with);

	free(json);
	k = c.run.k;
	pfn = ksim_alloc_page(k, MPM_GFP_HIGHUSER_MOVABLE, 0, 0);
	REQUIRE(pfn != MPM_NO_PFN);
	ksim_rmap_set(k, pfn, 1, 0, 1);
	CHECK(!k->failed);
	mpm_rmap_clear(k->m, pfn);
	ksim_free_pages(k, pfn, 0, 0);
	CHECK(!k->failed);
	ksim_rmap_set(k, pfn, 1, 0, 1);		/* on a pcp page now */
	CHECK(k->failed);
	CHECK(strstr(k->error, "reverse map refused") != NULL);
	k->failed = false;
	ksim_free_pages(k, pfn, 0, 0);		/* twice */
	CHECK(k->failed);
	CHECK(strstr(k->error, "refused to free pfn") != NULL);
	sim_case_fini(&c);
}

int main(void)
{
	test_checks_change_nothing();
	test_next_call_sees_damage();
	test_refusals_fail_the_run();
	return t_report("sim/check_every_op");
}
