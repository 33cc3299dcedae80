// SPDX-License-Identifier: MIT
/*
 * A machine too large for this host is refused with a line that says so
 * instead of ending in the OOM killer, and compare runs no more machines at
 * once than fit.  The budget is io/membudget.h's.
 */
#include <stdint.h>

#include "cli.h"
#include "io/membudget.h"

int mpm_cli_runs_that_fit(const char *cmd, uint64_t per_run, unsigned int want,
			  unsigned int *fit)
{
	const char *source = "";
	uint64_t budget, n;
	char err[256];

	if (fit)
		*fit = want;
	if (mpm_memory_budget(&budget, &source, err, sizeof(err)))
		return mpm_cli_fail(MPM_EXIT_FAIL, "%s", err);
	if (!budget)
		return 0;
	if (per_run > budget) {
		char need[32], have[32];

		return mpm_cli_fail(MPM_EXIT_FAIL,
				    "%s: the machine needs about %s of memory, more than the %s %s",
				    cmd, mpm_format_mem(per_run, need, sizeof(need)),
				    mpm_format_mem(budget, have, sizeof(have)), source);
	}
	n = budget / per_run;
	if (fit && n < want)
		*fit = (unsigned int)n;
	return 0;
}
