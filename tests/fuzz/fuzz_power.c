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
#include <string.h>

#include <jansson.h>

#include "io/memspec_json.h"
#include "power_check.h"

#define NR_REGIONS	3
#define NR_SAMPLES	6
#define REGION_PAGES	4096

static void check_derived(const struct mpm_memspec_power *d)
{
	fuzz_require_physical("tck_s", d->tck_s);
	fuzz_require_physical("act_stby_w", d->act_stby_w);
	fuzz_require_physical("pre_stby_w", d->pre_stby_w);
	fuzz_require_physical("pre_pd_w", d->pre_pd_w);
	fuzz_require_physical("sr_w", d->sr_w);
	fuzz_require_physical("refresh_w", d->refresh_w);
	fuzz_require_physical("act_j", d->act_j);
	fuzz_require_physical("page_rd_j", d->page_rd_j);
	fuzz_require_physical("page_wr_j", d->page_wr_j);
	fuzz_require_physical("line_j", d->line_j);
	fuzz_require_physical("sr_entry_j", d->sr_entry_j);
	fuzz_require_physical("pd_exit_s", d->pd_exit_s);
	fuzz_require_physical("sr_exit_s", d->sr_exit_s);
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
	fuzz_require_physical("dram_j", r.dram_j);
	fuzz_require_physical("dram_avg_w", r.dram_avg_w);
	fuzz_require_physical("refresh_j", r.refresh_j);
	fuzz_require_physical("access_j", r.access_j);
	fuzz_require_physical("exit_j", r.exit_j);
	fuzz_require_physical("kmempowerd_cpu_j", r.kmempowerd_cpu_j);
	fuzz_require_physical("exit_latency_s", r.exit_latency_s);
	fuzz_check_power_states(&r);
	fuzz_check_power_uses(&r);
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
	const char *path;

	if (plen >= sizeof(policy) || memchr(data, '\0', plen))
		return 0;
	memcpy(policy, data, plen);
	policy[plen] = '\0';
	mpm_power_policy_default(&pol);
	if (plen && mpm_power_policy_parse(policy, &pol, err, sizeof(err))) {
		fuzz_require_message("mpm_power_policy_parse", err);
		return 0;
	}
	path = nl ? fuzz_write_file("memspec", nl + 1, size - plen - 1) :
		    fuzz_write_file("memspec", "", 0);
	if (mpm_memspec_load(path, &spec, err, sizeof(err))) {
		fuzz_require_message("mpm_memspec_load", err);
	} else {
		/*
		 * The name (a memoryId or the path) is cut to fit between
		 * characters: jansson refuses a cut character, and the result
		 * JSON would have written it as U+FFFD (src/io/utf8.h).
		 */
		json_t *name = json_string(spec.name);

		if (!name)
			fuzz_fail("memspec name '%s' is not UTF-8", spec.name);
		json_decref(name);
		mpm_memspec_derive(&spec, &d);
		check_derived(&d);
		price(&spec, &pol);
	}
	unlink(path);
	return 0;
}
