// SPDX-License-Identifier: MIT
/*
 * How much memory a command may plan to use, so that a machine too large
 * for this host is refused with a line that says so instead of ending in
 * the OOM killer, and compare runs no more machines at once than fit.
 *
 * The budget is MEMPOWER_MEMORY_LIMIT (a size, e.g. "8G") when it is set,
 * else MemAvailable of /proc/meminfo: what the kernel thinks can be
 * allocated without swapping.  Without either there is no check.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "io/size.h"

/* MemAvailable in bytes, or 0 if /proc/meminfo does not say. */
static uint64_t mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	uint64_t kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %" SCNu64 " kB", &kb) == 1)
			break;
	fclose(f);
	return kb > UINT64_MAX / 1024 ? UINT64_MAX : kb * 1024;
}

/*
 * The budget: MEMPOWER_MEMORY_LIMIT, else MemAvailable; 0 when unknown (no
 * check).  MPM_EXIT_FAIL after printing why for a malformed limit; @source
 * names where it came from.
 */
static int memory_budget(uint64_t *bytes, const char **source)
{
	const char *env = getenv("MEMPOWER_MEMORY_LIMIT");
	char err[256];

	if (env) {
		if (mpm_parse_size(env, bytes, err, sizeof(err)))
			return mpm_cli_fail(MPM_EXIT_FAIL, "MEMPOWER_MEMORY_LIMIT=%s: %s", env, err);
		if (*bytes == 0)
			return mpm_cli_fail(MPM_EXIT_FAIL, "MEMPOWER_MEMORY_LIMIT=%s: must be more than 0",
					    env);
		*source = "that MEMPOWER_MEMORY_LIMIT allows";
		return 0;
	}
	*bytes = mem_available();
	*source = "available on this host";
	return 0;
}

/* "90.1 GiB", or "70 MiB" below a GiB */
static const char *human(uint64_t bytes, char *buf, size_t len)
{
	if (bytes >= 1ull << 30)
		snprintf(buf, len, "%.1f GiB", (double)bytes / (double)(1ull << 30));
	else
		snprintf(buf, len, "%.0f MiB", (double)bytes / (double)(1ull << 20));
	return buf;
}

int mpm_cli_runs_that_fit(const char *cmd, uint64_t per_run, unsigned int want,
			  unsigned int *fit)
{
	const char *source = "";
	uint64_t budget, n;

	if (fit)
		*fit = want;
	if (memory_budget(&budget, &source))
		return MPM_EXIT_FAIL;
	if (!budget)
		return 0;
	if (per_run > budget) {
		char need[32], have[32];

		return mpm_cli_fail(MPM_EXIT_FAIL,
				    "%s: the machine needs about %s of memory, more than the %s %s",
				    cmd, human(per_run, need, sizeof(need)),
				    human(budget, have, sizeof(have)), source);
	}
	n = budget / per_run;
	if (fit && n < want)
		*fit = (unsigned int)n;
	return 0;
}
