/* SPDX-License-Identifier: MIT */
/*
 * What a run prints: the four kernel-format reports (`mempower stats`) and,
 * for a simulated run, the result JSON and the CSV series.  The targets
 * write them where nobody reads them, so that the printers meet every
 * layout and state the fuzzer reaches (holes, tiny zones, regions without
 * present pages, many nodes) under the sanitizers; a write that fails is a
 * broken contract.
 */
#ifndef MPM_TESTS_FUZZ_OUTPUTS_H
#define MPM_TESTS_FUZZ_OUTPUTS_H

#include <mempower/mempower.h>

#include "fuzz.h"

static inline FILE *fuzz_sink(void)
{
	static FILE *f;

	if (!f && !(f = fopen("/dev/null", "w")))
		fuzz_fail("cannot open /dev/null");
	return f;
}

static inline void fuzz_print_stats(const struct mpm_machine *m)
{
	FILE *f = fuzz_sink();

	mpm_print_buddyinfo(m, f);
	mpm_print_pagetypeinfo(m, f);
	mpm_print_zoneinfo(m, f);
	mpm_print_vmstat(m, f);
	if (fflush(f) || ferror(f))
		fuzz_fail("a stats printer could not write");
}

#endif /* MPM_TESTS_FUZZ_OUTPUTS_H */
