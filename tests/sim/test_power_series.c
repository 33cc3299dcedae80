// SPDX-License-Identifier: MIT
/*
 * The power model's input as the simulator builds it: one row per sample,
 * every zone region with present pages, used pages that agree with the
 * samples, and accesses that account for what the workload did (a 64 MiB
 * pagetest writes each of its pages at least once); regions in one window
 * share a domain; and the model prices it the same way twice.
 */
#include <math.h>

#include "sim_helpers.h"

#define PAGES_64M (64u << 8)

int main(void)
{
	struct sim_case c;
	struct mpm_power_input in;
	struct mpm_power_policy pol;
	struct mpm_power_result a, b;
	uint64_t wr = 0, rd = 0;

	if (sim_case_run(&c, "1G", "64M", "2", "pagetest:size=64M,hold=1", 4, 7, false)) {
		fprintf(stderr, "run failed: %s\n", c.err);
		return 1;
	}
	mpm_run_power_input(&c.run, &in);
	CHECK_EQ_U(in.nr_regions, mpm_regions_total(c.run.m));
	CHECK_EQ_U(in.nr_samples, c.run.nr_samples);
	CHECK(in.nr_samples >= 3);
	for (size_t s = 0; s < in.nr_samples; s++) {
		uint64_t used = 0;

		CHECK(in.t[s] == c.run.samples[s].t);
		for (unsigned int i = 0; i < in.nr_regions; i++) {
			used += in.used[s * in.nr_regions + i];
			CHECK(in.used[s * in.nr_regions + i] <= in.regions[i].present);
			if (s) {
				wr += in.wr[s * in.nr_regions + i];
				rd += in.rd[s * in.nr_regions + i];
			}
		}
		/* used = present - free: allocated + pcp + reserved pages */
		CHECK(used >= c.run.samples[s].used_pages + c.run.samples[s].pcp_pages);
	}
	CHECK(wr >= PAGES_64M);		/* every page of the mapping cleared */
	CHECK_EQ_U(rd, 0);		/* pagetest only writes */
	{
		bool windows_ok = true;

		for (unsigned int i = 1; i < in.nr_regions; i++)
			if (in.regions[i].node == in.regions[i - 1].node &&
			    in.regions[i].window < in.regions[i - 1].window)
				windows_ok = false;
		CHECK(windows_ok);
	}
	mpm_power_policy_default(&pol);
	REQUIRE(!mpm_power_compute(&in, mpm_memspec_preset("ddr3-1600"), &pol, &a));
	REQUIRE(!mpm_power_compute(&in, mpm_memspec_preset("ddr3-1600"), &pol, &b));
	CHECK(!memcmp(&a.dram_j, &b.dram_j, sizeof(a.dram_j)));
	CHECK(a.dram_j > 0 && isfinite(a.dram_j));
	CHECK(a.pages_wr == wr);
	/* 1 GiB in 64 MiB windows: 16 domains (DMA and DMA32 share the first) */
	CHECK_EQ_U(a.nr_domains, 16);
	{
		double t = 0;

		for (int st = 0; st < MPM_NR_PSTATES; st++)
			t += a.state_s[st];
		CHECK(fabs(t - a.duration_s * a.nr_domains) < 1e-6 * t);
	}
	mpm_power_result_fini(&a);
	mpm_power_result_fini(&b);
	sim_case_fini(&c);
	return t_report("test_power_series");
}
