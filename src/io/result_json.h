/* SPDX-License-Identifier: MIT */
/*
 * Results as mempower.result/1 JSON (docs/result-json.md) and the sample series
 * as CSV.  Key order is fixed and numbers are printed the same way every
 * time, so equal runs give byte-identical files, except under "host", which
 * holds wall-clock figures.
 */
#ifndef MPM_IO_RESULT_JSON_H
#define MPM_IO_RESULT_JSON_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "io/machine_spec.h"
#include "power/power.h"
#include "sim/run.h"

#define MPM_RESULT_SCHEMA "mempower.result/1"

struct mpm_result_input {
	const char *machine;			/* --machine as given */
	const struct mpm_spec_buf *spec;
	const struct mpm_run *runs;		/* all on machines built from spec */
	size_t nr_runs;
	bool with_host;				/* false: leave "host" out */
	/*
	 * A run priced by the power model (run->nr_power > 0) gets "power"
	 * (its first pricing) and "power_other" (the rest); @saving, if not
	 * NULL, is [MPM_MAX_PRICING][nr_runs]: each against mainline.
	 */
	const struct mpm_power_saving *saving;
};

/* A new reference, or NULL on ENOMEM. */
json_t *mpm_result_build(const struct mpm_result_input *in);
/* 0 on success; -1 with a one-line reason. */
int mpm_result_write_json(FILE *f, const struct mpm_result_input *in,
			  char *err, size_t errlen);
int mpm_result_write_csv(FILE *f, const struct mpm_run *run,
			 char *err, size_t errlen);

#endif /* MPM_IO_RESULT_JSON_H */
