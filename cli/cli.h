/* SPDX-License-Identifier: MIT */
/* The mempower command: shared pieces of the subcommands. */
#ifndef MPM_CLI_H
#define MPM_CLI_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "io/errline.h"
#include "io/machine_spec.h"
#include "io/output.h"
#include "power/power.h"
#include "sim/run.h"

/* Exit status, the stable contract (README.md, "Exit status"). */
#define MPM_EXIT_OK	0
#define MPM_EXIT_FAIL	1
#define MPM_EXIT_USAGE	2

/* `run` and `stats` options, as given; NULL = not given. */
struct mpm_run_opts {
	struct mpm_machine_opts machine;
	const char *policy;
	const char *features;	/* --features LIST, applied to the policy */
	const char *workload;
	const char *duration;
	const char *seed;
	const char *json;
	const char *csv;
	const char *format;		/* stats only */
	const char *power;		/* --power MEMSPEC */
	const char *power_policy;	/* --power-policy key=value,... */
	bool check_every_op;
	bool help;
};

/* Parse argv[1..] of a subcommand; MPM_EXIT_USAGE after printing why. */
int mpm_cli_parse_run_opts(int argc, char **argv, bool stats,
			   struct mpm_run_opts *o);

int mpm_cmd_run(int argc, char **argv);
int mpm_cmd_stats(int argc, char **argv);
int mpm_cmd_compare(int argc, char **argv);
int mpm_cmd_power(int argc, char **argv);

/* power.c: --power and --power-policy; MPM_EXIT_* after printing why. */
#define MPM_DEFAULT_MEMSPEC	"ddr3-1600"
int mpm_cli_power_setup(const char *memspec, const char *policy, struct mpm_memspec *spec,
			struct mpm_power_policy *pol);
/* The stated whole-system power: --power-policy system_w, or 300 W per 128 GiB. */
double mpm_cli_system_w(const struct mpm_power_policy *pol, const struct mpm_machine *m);

void mpm_cli_usage(FILE *out);

/*
 * memory.c: how many runs on machines built from @spec
 * (mpm_run_bytes_estimate) fit at once in the memory a command may plan to
 * use (MEMPOWER_MEMORY_LIMIT, else MemAvailable), at most @want, into @fit
 * (may be NULL), and the table_limit of each (0: no budget known) into
 * *@table_limit; MPM_EXIT_FAIL after printing why if not even one fits or
 * the limit is malformed.
 */
int mpm_cli_runs_that_fit(const char *cmd, const struct mpm_machine_spec *spec,
			  unsigned int want, unsigned int *fit, uint64_t *table_limit);

/* One "mempower: ..." line on stderr; returns @status. */
__attribute__((format(printf, 2, 3)))
int mpm_cli_fail(int status, const char *fmt, ...);

/* mpm_cli_fail(MPM_EXIT_FAIL) with the message a callee wrote into @err. */
#define mpm_cli_fail_err(err)	mpm_cli_fail(MPM_EXIT_FAIL, "%s%s", err, MPM_ERR_CUT(err))

/* mpm_output_open() and _start() (io/output.h): MPM_EXIT_FAIL after printing why. */
static inline int mpm_cli_output_open(struct mpm_output *o, const char *path, const char *what)
{
	char err[PATH_MAX + 128];

	return mpm_output_open(o, path, what, err, sizeof(err)) ?
	       mpm_cli_fail_err(err) : MPM_EXIT_OK;
}

/*
 * Open --json and --csv (either may be NULL) and refuse two names for one
 * file or both on stdout: the second would overwrite or interleave the first.
 */
static inline int mpm_cli_outputs_open(struct mpm_output *json, const char *json_path,
				       struct mpm_output *csv, const char *csv_path)
{
	if (mpm_cli_output_open(json, json_path, "JSON") ||
	    mpm_cli_output_open(csv, csv_path, "CSV"))
		return MPM_EXIT_FAIL;
	if (mpm_output_same(json, csv))
		return mpm_cli_fail(MPM_EXIT_FAIL, "--json and --csv name the same file");
	return MPM_EXIT_OK;
}

static inline int mpm_cli_output_start(struct mpm_output *o)
{
	char err[PATH_MAX + 128];

	return mpm_output_start(o, err, sizeof(err)) ? mpm_cli_fail_err(err) :
						      MPM_EXIT_OK;
}

/*
 * Did everything written to stdout reach it?  A full disk or a closed pipe
 * can fail an earlier write whose buffer the final flush no longer holds.
 */
static inline bool mpm_cli_stdout_written(void)
{
	errno = 0;	/* an error flag set by an earlier write leaves no errno here */
	return !fflush(stdout) && !ferror(stdout);
}

void mpm_cli_summary(FILE *out, const char *machine, const struct mpm_run *run,
		     const struct mpm_power_result *power);

#endif /* MPM_CLI_H */
