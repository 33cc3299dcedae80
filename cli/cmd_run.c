// SPDX-License-Identifier: MIT
/*
 * `mempower run` and `mempower stats`: validate every input, open every
 * output, and only then run, so a typo or an unwritable path costs nothing.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mempower/mempower.h>

#include "cli.h"
#include "io/result_json.h"
#include "sim/size.h"
#include "sim/workload.h"

#define DEFAULT_WORKLOAD	"churn"
#define DEFAULT_DURATION	10.0
#define DEFAULT_SEED		1

struct job {
	struct mpm_run_opts o;
	struct mpm_spec_buf spec;
	struct mpm_run_config cfg;
	struct mpm_run run;
	struct mpm_output json, csv;
	unsigned int stats_mask;
	struct mpm_memspec memspec;
	struct mpm_power_policy power_policy;
};

enum { STATS_BUDDY = 1, STATS_PAGETYPE = 2, STATS_ZONE = 4, STATS_VMSTAT = 8 };

static int set_policy(struct job *j)
{
	const char *p = j->o.policy ? j->o.policy : "mainline";
	unsigned long features = 0;
	int r = mpm_policy_features(p, &features);

	j->cfg.policy = p;
	if (r == 0) {
		char err[320];

		if (j->o.features && mpm_features_apply(j->o.features, &features, err, sizeof(err)))
			return mpm_cli_fail(MPM_EXIT_FAIL, "--features: %s%s", err, MPM_ERR_CUT(err));
		j->spec.spec.features = features;
		return 0;
	}
	if (r == -2)
		return mpm_cli_fail(MPM_EXIT_FAIL, "policy '%s' is not available yet", p);
	return mpm_cli_fail(MPM_EXIT_FAIL,
			    "unknown policy '%s' (expected mainline, sorted, split or full)", p);
}

/* Non-negative decimal seconds: "10", "0.5"; no signs, exponents or blanks. */
static int parse_duration(const char *s, double *out)
{
	const char *p = s;
	int digits = 0, dots = 0;

	for (; *p; p++) {
		if (isdigit((unsigned char)*p))
			digits++;
		else if (*p == '.' && !dots)
			dots++;
		else
			return -1;
	}
	if (!digits)
		return -1;
	*out = strtod(s, NULL);
	return (isfinite(*out) && *out <= MPM_MAX_DURATION) ? 0 : -1;
}

static int parse_stats_format(struct job *j)
{
	static const struct { const char *name; unsigned int mask; } fmts[] = {
		{ "buddyinfo", STATS_BUDDY }, { "pagetypeinfo", STATS_PAGETYPE },
		{ "zoneinfo", STATS_ZONE }, { "vmstat", STATS_VMSTAT },
		{ "all", STATS_BUDDY | STATS_PAGETYPE | STATS_ZONE | STATS_VMSTAT },
	};
	const char *f = j->o.format ? j->o.format : "buddyinfo";

	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		if (!strcmp(f, fmts[i].name)) {
			j->stats_mask = fmts[i].mask;
			return 0;
		}
	}
	return mpm_cli_fail(MPM_EXIT_FAIL,
			    "unknown stats format '%s' (expected buddyinfo, pagetypeinfo, zoneinfo, vmstat or all)",
			    f);
}

static int validate(struct job *j, bool stats)
{
	struct mpm_run_config *c = &j->cfg;
	const char *w = j->o.workload ? j->o.workload : DEFAULT_WORKLOAD;
	uint64_t seed = DEFAULT_SEED;
	char err[512];

	if (stats && parse_stats_format(j))
		return MPM_EXIT_FAIL;
	if (mpm_machine_spec_build(&j->o.machine, &j->spec, err, sizeof(err)))
		return mpm_cli_fail_err(err);
	if (set_policy(j))
		return MPM_EXIT_FAIL;
	if (mpm_workload_parse(w, &c->workload, err, sizeof(err)))
		return mpm_cli_fail_err(err);
	c->workload_str = w;
	/*
	 * transparent_hugepage=always starts khugepaged, whose
	 * set_recommended_min_free_kbytes raises min_free_kbytes at boot (as
	 * compare --thp always does for its machines)
	 */
	j->spec.spec.khugepaged = c->workload.thp;
	c->duration = DEFAULT_DURATION;
	if (j->o.duration && parse_duration(j->o.duration, &c->duration))
		return mpm_cli_fail(MPM_EXIT_FAIL,
				    "invalid duration '%s' (expected seconds, 0..%.0f)",
				    j->o.duration, MPM_MAX_DURATION);
	/* the kernel model samples, and so ends, on whole virtual seconds */
	if (mpm_workload_is_kernel_model(c->workload.kind) && c->duration != floor(c->duration))
		return mpm_cli_fail(MPM_EXIT_FAIL,
				    "invalid duration '%s' for workload %s (expected whole seconds)",
				    j->o.duration, w);
	/* The result stores the seed as a JSON integer: keep it below 2^63. */
	if (j->o.seed && (mpm_parse_u64(j->o.seed, &seed) || seed > INT64_MAX))
		return mpm_cli_fail(MPM_EXIT_FAIL,
				    "invalid seed '%s' (expected an integer 0..2^63-1)", j->o.seed);
	c->seed = seed;
	c->spec = &j->spec.spec;
	c->check_every_op = j->o.check_every_op;
	/* ksim workloads check at every sample: a whole system per operation is too slow */
	c->check_samples = j->o.check_every_op;
	/* a ksim workload ends its run two samples after the first that
	 * follows its last process's exit */
	c->until_idle = true;
	if (mpm_cli_power_setup(j->o.power, j->o.power_policy, &j->memspec, &j->power_policy))
		return MPM_EXIT_FAIL;
	c->pricing[0] = (struct mpm_power_pricing){ &j->memspec, &j->power_policy };
	c->nr_pricing = 1;
	/* last: a malformed option is reported as such, whatever the machine */
	return mpm_cli_runs_that_fit(stats ? "stats" : "run", c->spec, 1, NULL,
				     &c->table_limit);
}

static void progress(void *arg, double t, double duration)
{
	fprintf(stderr, "\rmempower: t = %.0f / %.0f s", t, duration);
	fflush(stderr);
}

static int write_outputs(struct job *j)
{
	struct mpm_result_input in = {
		.machine = j->o.machine.machine ? j->o.machine.machine : MPM_DEFAULT_MACHINE,
		.spec = &j->spec, .runs = &j->run, .nr_runs = 1, .with_host = true,
	};
	char err[256];

	if (j->json.f && mpm_result_write_json(j->json.f, &in, err, sizeof(err)))
		return mpm_cli_fail(MPM_EXIT_FAIL, "%s: %s%s", j->json.path, err,
				    MPM_ERR_CUT(err));
	if (j->csv.f && mpm_result_write_csv(j->csv.f, &j->run, err, sizeof(err)))
		return mpm_cli_fail(MPM_EXIT_FAIL, "%s: %s%s", j->csv.path, err,
				    MPM_ERR_CUT(err));
	return 0;
}

static void print_stats(struct job *j)
{
	const struct mpm_machine *m = j->run.m;

	if (j->stats_mask & STATS_BUDDY)
		mpm_print_buddyinfo(m, stdout);
	if (j->stats_mask & STATS_PAGETYPE)
		mpm_print_pagetypeinfo(m, stdout);
	if (j->stats_mask & STATS_ZONE)
		mpm_print_zoneinfo(m, stdout);
	if (j->stats_mask & STATS_VMSTAT)
		mpm_print_vmstat(m, stdout);
}

static int execute(struct job *j, bool stats)
{
	char err[512];
	int r;

	if (mpm_cli_outputs_open(&j->json, j->o.json, &j->csv, j->o.csv))
		return MPM_EXIT_FAIL;
	/* "-", or a name for the file stdout writes (output.c) */
	if (stats && (j->json.f == stdout || j->csv.f == stdout))
		return mpm_cli_fail(MPM_EXIT_FAIL, "stats prints to stdout; give --%s a file name",
				    j->json.f == stdout ? "json" : "csv");
	if (isatty(STDERR_FILENO)) {
		j->cfg.progress = progress;
		j->cfg.progress_arg = j;
	}
	r = mpm_run_execute(&j->cfg, &j->run, err, sizeof(err));
	/* the progress line goes, however the run ended (a workload may end early) */
	if (j->cfg.progress)
		fputs("\r\033[K", stderr);
	if (r)
		return mpm_cli_fail_err(err);
	if (mpm_cli_output_start(&j->json) || mpm_cli_output_start(&j->csv) || write_outputs(j))
		return MPM_EXIT_FAIL;
	if (stats)
		print_stats(j);
	else if (j->json.f != stdout && j->csv.f != stdout)	/* that file alone */
		mpm_cli_summary(stdout, j->o.machine.machine ? j->o.machine.machine :
				MPM_DEFAULT_MACHINE, &j->run, j->run.nr_power ? &j->run.power[0] : NULL);
	return MPM_EXIT_OK;
}

static int run_or_stats(int argc, char **argv, bool stats)
{
	struct job *j = calloc(1, sizeof(*j));
	int r;

	if (!j)
		return mpm_cli_fail(MPM_EXIT_FAIL, "out of memory");
	r = mpm_cli_parse_run_opts(argc, argv, stats, &j->o);
	if (r == MPM_EXIT_OK && j->o.help) {
		mpm_cli_usage(stdout);
	} else if (r == MPM_EXIT_OK) {
		r = validate(j, stats);
		if (r == MPM_EXIT_OK)
			r = execute(j, stats);
		/* the summary and the stats went to stdout too: a full disk is a failure */
		if (mpm_output_close(&j->json, r != 0) | mpm_output_close(&j->csv, r != 0) |
		    (mpm_cli_stdout_written() ? 0 : -1)) {
			if (r == MPM_EXIT_OK)
				r = mpm_cli_fail(MPM_EXIT_FAIL, "cannot write the outputs: %s",
						 strerror(errno));
		}
	}
	mpm_run_fini(&j->run);
	mpm_spec_buf_free(&j->spec);
	free(j);
	return r;
}

int mpm_cmd_run(int argc, char **argv)
{
	return run_or_stats(argc, argv, false);
}

int mpm_cmd_stats(int argc, char **argv)
{
	return run_or_stats(argc, argv, true);
}
