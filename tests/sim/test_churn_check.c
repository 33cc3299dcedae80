// SPDX-License-Identifier: MIT
/*
 * Churn with the invariant walker after every operation, on a machine small
 * enough for that to stay quick under ASan; plus what churn promises: it
 * reaches its occupancy target, exercises all mobility kinds, and its own
 * live list agrees with the allocator's count.
 */

#include "run_samples.h"
#include "sim/churn.h"
#include "sim_helpers.h"

int main(void)
{
	struct sim_case c;
	const struct mpm_churn *ch;
	const struct mpm_sample *last;
	struct mpm_zone_info zi;
	uint64_t managed = 0;
	unsigned long long target;

	if (sim_case_run(&c, "2x64M", "4M", "3",
			 "churn:ops=2000,occupancy=0.5", 4, 99, true)) {
		fprintf(stderr, "run failed: %s\n", c.err);
		sim_case_fini(&c);
		return 1;
	}
	ch = c.run.workload_state;
	REQUIRE(ch);
	CHECK_EQ_U(c.run.ops, 8000);
	CHECK_EQ_U(c.run.nr_samples, 5);
	CHECK(c.run.counters.allocs > 0 && c.run.counters.frees > 0);
	/* the allocator counts exactly what churn holds */
	CHECK_EQ_U(mpm_used_pages(c.run.m), ch->live_pages);
	for (unsigned int z = 0; z < mpm_nr_zones(c.run.m); z++) {
		mpm_zone_info(c.run.m, z, &zi);
		managed += zi.managed;
	}
	target = (unsigned long long)(0.5 * (double)managed);
	last = &c.run.samples[c.run.nr_samples - 1];
	CHECK(last->used_pages > target * 85 / 100 && last->used_pages < target * 115 / 100);
	if (!(last->used_pages > target * 85 / 100))
		fprintf(stderr, "used %llu, target %llu\n",
			(unsigned long long)last->used_pages, target);
	CHECK(c.run.free_regions_min <= c.run.free_regions_end);
	/*
	 * the minimum is taken after every operation, not only at the samples:
	 * between two samples this run dips below every sample
	 */
	CHECK(c.run.free_regions_min < samples_free_regions_min(&c.run));
	CHECK(c.run.free_regions_start == c.run.regions_total);
	CHECK(c.run.free_regions_end < c.run.free_regions_start);
	/* every mobility kind got pageblocks of its own */
	for (int mt = 0; mt < MPM_MIGRATE_PCPTYPES; mt++)
		CHECK(mpm_pageblocks_mt(c.run.m, mt) > 0);
	/* the samples' clock runs in whole virtual seconds */
	for (size_t i = 0; i < c.run.nr_samples; i++)
		CHECK(c.run.samples[i].t == (double)i);
	sim_case_fini(&c);

	/* workload none: the machine as after boot, one sample at t = 0 */
	REQUIRE(sim_case_run(&c, "64M", "4M", NULL, "none", 10, 1, true) == 0);
	CHECK_EQ_U(c.run.ops, 0);
	CHECK_EQ_U(c.run.nr_samples, 1);
	CHECK_EQ_U(c.run.free_regions_end, c.run.regions_total);
	CHECK_EQ_U(c.run.samples[0].used_pages, 0);
	sim_case_fini(&c);

	/* a fractional duration ends with a sample at that time */
	REQUIRE(sim_case_run(&c, "64M", "4M", NULL, "churn:ops=1000", 1.5, 1, false) == 0);
	CHECK_EQ_U(c.run.ops, 1500);
	CHECK_EQ_U(c.run.nr_samples, 3);
	CHECK(c.run.samples[2].t == 1.5);
	sim_case_fini(&c);
	return t_report("sim/test_churn_check");
}
