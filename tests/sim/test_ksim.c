// SPDX-License-Identifier: MIT
/*
 * The kernel model end to end on small machines: ebizzy (4 KiB and THP) and
 * pagetest runs with the allocator checker and the owner/content checker at
 * every sample; conservation (what the allocator counts as used equals what
 * the model holds); an out-of-memory run that the OOM killer resolves;
 * a task OOM-killed by its own fault in the middle of a bulk fault run;
 * determinism of the sample series.
 */
#include "ksim_helpers.h"

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

int main(void)
{
	test_ebizzy(false);
	test_ebizzy(true);
	test_pagetest_accounting();
	test_oom();
	test_oom_self_mid_run();
	test_determinism();
	return t_report("sim/ksim");
}
