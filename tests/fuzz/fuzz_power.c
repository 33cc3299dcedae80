// SPDX-License-Identifier: MIT
/*
 * The DRAM power model's inputs: the first line is a --power-policy string,
 * the rest a memspec file (docs/power-model.md).  Each is either accepted
 * or rejected with a message.  A memspec that loads and a policy that
 * parses then price a small fixed series -- three domains, one of them
 * holding kernel memory, with use rising and falling and accesses in
 * bursts -- and the result must be physical: every derived figure and
 * energy finite and non-negative, and each domain's state times adding up
 * to the run's duration.
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "io/memspec_json.h"
#include "power/power.h"

#define NR_REGIONS	3
#define NR_SAMPLES	6
#define REGION_PAGES	4096

static const char *memspec_path(void)
{
	static char path[64];

	if (!path[0]) {
		const char *dir = getenv("TMPDIR");

		snprintf(path, sizeof(path), "%s/mpm-fuzz-memspec-%d.json",
			 dir && strlen(dir) < 32 ? dir : "/tmp", (int)getpid());
	}
	return path;
}

static void require_physical(const char *what, double v)
{
	if (!isfinite(v) || v < 0)
		fuzz_fail("%s = %g", what, v);
}

static void check_derived(const struct mpm_memspec_power *d)
{
	require_physical("tck_s", d->tck_s);
	require_physical("act_stby_w", d->act_stby_w);
	require_physical("pre_stby_w", d->pre_stby_w);
	require_physical("pre_pd_w", d->pre_pd_w);
	require_physical("sr_w", d->sr_w);
	require_physical("refresh_w", d->refresh_w);
	require_physical("act_j", d->act_j);
	require_physical("page_rd_j", d->page_rd_j);
	require_physical("page_wr_j", d->page_wr_j);
	require_physical("line_j", d->line_j);
	if (!d->device_bytes)
		fuzz_fail("a device of 0 bytes");
}

static void price(const struct mpm_memspec *spec, const struct mpm_power_policy *pol)
{
	static const struct mpm_power_region regions[NR_REGIONS] = {
		{ 0, 0, REGION_PAGES, true }, { 0, 1, REGION_PAGES, false },
		{ 1, 2, REGION_PAGES / 2, false },
	};
	static const double t[NR_SAMPLES] = { 0, 1, 2, 2.5, 4, 10 };
	static const uint64_t used[NR_SAMPLES][NR_REGIONS] = {
		{ 100, 0, 0 }, { 4000, 10, 0 }, { 4096, 4096, 2048 },
		{ 50, 4096, 0 }, { 50, 0, 0 }, { 50, 0, 0 },
	};
	static const uint64_t rd[NR_SAMPLES][NR_REGIONS] = {
		{ 0 }, { 9000, 10, 0 }, { 1, 100000, 3 }, { 0, 0, 0 }, { 7, 0, 0 }, { 0 },
	};
	struct mpm_power_input in = {
		.nr_regions = NR_REGIONS, .regions = regions, .page_size = 4096,
		.nr_samples = NR_SAMPLES, .t = t, .used = &used[0][0], .rd = &rd[0][0],
		.wr = &rd[0][0], .lines = &rd[0][0], .migrated_pages = 10,
		.kmempowerd_cpu_s = 0.5,
	};
	struct mpm_power_result r;

	if (mpm_power_compute(&in, spec, pol, &r))
		fuzz_fail("out of memory pricing three domains");
	require_physical("dram_j", r.dram_j);
	require_physical("dram_avg_w", r.dram_avg_w);
	require_physical("refresh_j", r.refresh_j);
	require_physical("access_j", r.access_j);
	require_physical("exit_j", r.exit_j);
	require_physical("kmempowerd_cpu_j", r.kmempowerd_cpu_j);
	require_physical("exit_latency_s", r.exit_latency_s);
	for (unsigned int i = 0; i < r.nr_domains; i++) {
		double sum = 0;

		for (int s = 0; s < MPM_NR_PSTATES; s++) {
			require_physical("state_s", r.domains[i].state_s[s]);
			sum += r.domains[i].state_s[s];
		}
		if (fabs(sum - r.duration_s) > 1e-6 * r.duration_s + 1e-9)
			fuzz_fail("domain %u: states add up to %.9g s of %.9g", i, sum,
				  r.duration_s);
	}
	mpm_power_result_fini(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t plen = nl ? (size_t)(nl - data) : size;
	struct mpm_memspec spec;
	struct mpm_memspec_power d;
	struct mpm_power_policy pol;
	char policy[256], err[512];
	const char *path = memspec_path();
	FILE *f;

	if (plen >= sizeof(policy) || memchr(data, '\0', plen))
		return 0;
	memcpy(policy, data, plen);
	policy[plen] = '\0';
	mpm_power_policy_default(&pol);
	if (plen && mpm_power_policy_parse(policy, &pol, err, sizeof(err))) {
		fuzz_require_message("mpm_power_policy_parse", err);
		return 0;
	}
	f = fopen(path, "wb");
	if (!f)
		fuzz_fail("cannot write %s", path);
	if (nl)
		fwrite(nl + 1, 1, size - plen - 1, f);
	if (fclose(f))
		fuzz_fail("cannot write %s", path);
	if (mpm_memspec_load(path, &spec, err, sizeof(err))) {
		fuzz_require_message("mpm_memspec_load", err);
	} else {
		mpm_memspec_derive(&spec, &d);
		check_derived(&d);
		price(&spec, &pol);
	}
	unlink(path);
	return 0;
}
