// SPDX-License-Identifier: MIT
/*
 * The options of `mempower run`, validated as the command validates them
 * and, where they describe a small machine and a short run, run: the input
 * is lines of
 *
 *   machine, region size, region alignment, pageblock order, cpus,
 *   policy, feature switches, workload, duration (virtual seconds),
 *   and optionally memspec (a preset) and power policy
 *
 * (an empty line leaves the option unset).  Rejections must carry a
 * message; runs must end with the allocator's invariants whole and with no
 * page lost or misplaced (owner and content mismatches 0), and the DRAM
 * power model's figures for the run finite, non-negative, and each
 * domain's state times adding up to the run; then the run's reports, result
 * JSON and CSV must print (outputs.h).  A machine or memspec that
 * could name a file is dropped, and so are machines over 64 MiB, runs
 * over 3 s and workloads sized past 256 MiB: a fuzzer wants many quick
 * runs, and the full-size paths have their own tests.
 */
#include <stdlib.h>
#include <string.h>

#include <mempower/mempower.h>

#include "fuzz.h"
#include "io/machine_spec.h"
#include "io/memspec_json.h"
#include "io/result_json.h"
#include "outputs.h"
#include "power_check.h"
#include "sim/run.h"
#include "sim/workload.h"

enum { F_MACHINE, F_REGION, F_ALIGN, F_PAGEBLOCK, F_CPUS, F_POLICY, F_FEATURES,
       F_WORKLOAD, F_DURATION, F_MEMSPEC, F_POWER_POLICY, NR_FIELDS };

#define MAX_SPAN_PAGES	(64ull << 8)		/* 64 MiB */
#define MAX_WL_BYTES	(256ull << 20)
#define MAX_SECONDS	3.0
#define MAX_CHURN_OPS	200000

/* The fields, up to the duration at least; the power fields may be absent. */
static int split_fields(char *buf, char **f)
{
	static char empty[1];
	int n = 0;

	while (n < NR_FIELDS && buf) {
		f[n++] = buf;
		buf = strchr(buf, '\n');
		if (buf)
			*buf++ = '\0';
	}
	if (n <= F_DURATION)
		return -1;
	while (n < NR_FIELDS)
		f[n++] = empty;
	return 0;
}

static const char *opt(const char *field)
{
	return *field ? field : NULL;
}

static bool workload_small(const struct mpm_workload *w)
{
	switch (w->kind) {
	case MPM_WORKLOAD_CHURN:
		return w->churn.ops <= MAX_CHURN_OPS;
	case MPM_WORKLOAD_EBIZZY:
		return w->ebizzy.size * (w->ebizzy.instances ? w->ebizzy.instances : 1) <=
		       MAX_WL_BYTES;
	case MPM_WORKLOAD_PAGETEST:
		return w->pagetest.size <= MAX_WL_BYTES;
	case MPM_WORKLOAD_PAGECACHE:
		return w->pagecache.size * w->pagecache.files <= MAX_WL_BYTES;
	case MPM_WORKLOAD_KERNBENCH:
		return w->kernbench.heap <= MAX_WL_BYTES && w->kernbench.files <= 2000;
	default:
		return true;
	}
}

static void check_power(const struct mpm_power_result *p)
{
	fuzz_require_physical("power: DRAM J", p->dram_j);
	fuzz_require_physical("power: exit J", p->exit_j);
	fuzz_check_power_states(p);
	fuzz_check_power_uses(p);
}

/* Everything `run --json --csv` and `stats --format all` would write. */
static void print_outputs(const struct mpm_spec_buf *b, const struct mpm_run *r)
{
	struct mpm_result_input in = {
		.machine = "fuzz", .spec = b, .runs = r, .nr_runs = 1, .with_host = false,
	};
	char err[256];

	fuzz_print_stats(r->m);
	if (mpm_result_write_json(fuzz_sink(), &in, err, sizeof(err)))
		fuzz_fail("result JSON: %s", err);
	if (mpm_result_write_csv(fuzz_sink(), r, err, sizeof(err)))
		fuzz_fail("CSV: %s", err);
}

static void run(const struct mpm_spec_buf *b, struct mpm_run_config *c)
{
	struct mpm_run r;
	char err[512];

	memset(&r, 0, sizeof(r));
	c->seed = 1;
	c->check_samples = true;	/* ksim: allocator and owners at every sample */
	c->check_every_op = c->workload.kind == MPM_WORKLOAD_CHURN;
	c->until_idle = true;
	if (mpm_run_execute(c, &r, err, sizeof(err))) {
		/* a run may fail (the model out of memory, nothing to kill), never the checker */
		fuzz_require_message("mpm_run_execute", err);
		if (strstr(err, "invariant broken"))
			fuzz_fail("%s", err);
	} else {
		if (r.owner_mismatches || r.content_mismatches)
			fuzz_fail("%llu owner and %llu content mismatches",
				  (unsigned long long)r.owner_mismatches,
				  (unsigned long long)r.content_mismatches);
		if (mpm_check(r.m, err, sizeof(err)))
			fuzz_fail("at the end: %s", err);
		for (unsigned int i = 0; i < r.nr_power; i++)
			check_power(&r.power[i]);
		print_outputs(b, &r);
	}
	mpm_run_fini(&r);
}

static void validate_and_run(char **f)
{
	struct mpm_machine_opts o = {
		.machine = f[F_MACHINE], .region_size = opt(f[F_REGION]),
		.region_align = opt(f[F_ALIGN]), .pageblock_order = opt(f[F_PAGEBLOCK]),
		.cpus = opt(f[F_CPUS]),
	};
	struct mpm_run_config c = { .policy = f[F_POLICY], .workload_str = f[F_WORKLOAD] };
	const struct mpm_zone_spec *z;
	struct mpm_memspec memspec;
	struct mpm_power_policy pol;
	struct mpm_spec_buf b;
	char err[512], *end;

	mpm_spec_buf_init(&b);
	if (mpm_machine_spec_build(&o, &b, err, sizeof(err))) {
		fuzz_require_message("mpm_machine_spec_build", err);
		goto out;
	}
	if (mpm_policy_features(f[F_POLICY], &b.spec.features))
		goto out;
	if (*f[F_FEATURES] && mpm_features_apply(f[F_FEATURES], &b.spec.features, err,
						 sizeof(err))) {
		fuzz_require_message("mpm_features_apply", err);
		goto out;
	}
	if (mpm_workload_parse(f[F_WORKLOAD], &c.workload, err, sizeof(err))) {
		fuzz_require_message("mpm_workload_parse", err);
		goto out;
	}
	if (mpm_memspec_resolve(*f[F_MEMSPEC] ? f[F_MEMSPEC] : "ddr3-1600", &memspec, err,
				sizeof(err))) {
		fuzz_require_message("mpm_memspec_resolve", err);
		goto out;
	}
	mpm_power_policy_default(&pol);
	if (*f[F_POWER_POLICY] && mpm_power_policy_parse(f[F_POWER_POLICY], &pol, err,
							 sizeof(err))) {
		fuzz_require_message("mpm_power_policy_parse", err);
		goto out;
	}
	c.pricing[0] = (struct mpm_power_pricing){ &memspec, &pol };
	c.nr_pricing = 1;
	c.duration = strtod(f[F_DURATION], &end);
	z = b.spec.zones;
	if (*end || !(c.duration >= 0 && c.duration <= MAX_SECONDS) ||
	    z[b.spec.nr_zones - 1].end_pfn - z[0].start_pfn > MAX_SPAN_PAGES ||
	    b.spec.nr_cpus > 16 || !workload_small(&c.workload))
		goto out;
	c.spec = &b.spec;
	run(&b, &c);
out:
	mpm_spec_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *f[NR_FIELDS];

	if (memchr(data, '\0', size))
		return 0;
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	/* a machine or memspec that could name a file (a .json, a path) is not ours to read */
	if (!split_fields(buf, f) && !strpbrk(f[F_MACHINE], "./") && !strpbrk(f[F_MEMSPEC], "./"))
		validate_and_run(f);
	free(buf);
	return 0;
}
