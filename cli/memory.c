// SPDX-License-Identifier: MIT
/*
 * A machine too large for this host is refused with a line that says so
 * instead of ending in the OOM killer, and compare runs no more machines at
 * once than fit.  What is left of each run's share bounds its workload's
 * page tables (mpm_run_table_limit).  The budget is io/membudget.h's.
 */
#include <stdint.h>

#include "cli.h"
#include "io/membudget.h"
#include "sim/run.h"

int mpm_cli_runs_that_fit(const char *cmd, const struct mpm_machine_spec *spec,
			  unsigned int want, unsigned int *fit, uint64_t *table_limit)
{
	uint64_t per_run = mpm_run_bytes_estimate(spec), budget, n;
	char err[256];
	int r;

	if (fit)
		*fit = want;
	r = mpm_memory_fits(per_run, &budget, err, sizeof(err));
	if (r < 0)
		return mpm_cli_fail_err(err);
	if (r > 0)
		return mpm_cli_fail(MPM_EXIT_FAIL, "%s: the machine %s%s", cmd, err, MPM_ERR_CUT(err));
	n = budget ? budget / per_run : want;
	if (n > want)
		n = want;
	if (fit)
		*fit = (unsigned int)n;
	*table_limit = n ? mpm_run_table_limit(spec, budget / n) : 0;
	return 0;
}
