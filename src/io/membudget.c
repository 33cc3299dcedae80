// SPDX-License-Identifier: MIT
/* The memory budget of a command: see membudget.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "io/membudget.h"
#include "sim/size.h"

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
 * The budget in *@bytes (0 when unknown) and where it came from in
 * *@source, to end a sentence; -1 with the reason in @err for a bad limit.
 */
static int memory_budget(uint64_t *bytes, const char **source, char *err, size_t errlen)
{
	const char *env = getenv("MEMPOWER_MEMORY_LIMIT");

	if (env) {
		char why[192];

		if (mpm_parse_size(env, bytes, why, sizeof(why))) {
			snprintf(err, errlen, "MEMPOWER_MEMORY_LIMIT=%s: %s", env, why);
			return -1;
		}
		if (*bytes == 0) {
			snprintf(err, errlen, "MEMPOWER_MEMORY_LIMIT=%s: must be more than 0", env);
			return -1;
		}
		*source = "that MEMPOWER_MEMORY_LIMIT allows";
		return 0;
	}
	*bytes = mem_available();
	*source = "available on this host";
	return 0;
}

int mpm_memory_fits(uint64_t need, uint64_t *budget, char *err, size_t errlen)
{
	const char *source = "";
	char have[32], want[32];

	if (memory_budget(budget, &source, err, errlen))
		return -1;
	if (!*budget || need <= *budget)
		return 0;
	snprintf(err, errlen, "needs about %s of memory, more than the %s %s",
		 mpm_format_mem(need, want, sizeof(want)), mpm_format_mem(*budget, have, sizeof(have)),
		 source);
	return 1;
}
