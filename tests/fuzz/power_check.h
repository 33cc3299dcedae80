/* SPDX-License-Identifier: MIT */
/*
 * What every priced power result must be, for the fuzz targets that price
 * one (fuzz_power, fuzz_run_options): physical figures, each domain's
 * state times adding up to the run, and by_use adding up to the run's
 * domain-seconds and self-refresh time.
 */
#ifndef MPM_TESTS_FUZZ_POWER_CHECK_H
#define MPM_TESTS_FUZZ_POWER_CHECK_H

#include <math.h>

#include "fuzz.h"
#include "power/power.h"

static inline void fuzz_require_physical(const char *what, double v)
{
	if (!isfinite(v) || v < 0)
		fuzz_fail("%s = %g", what, v);
}

/* Each domain's state times: physical, and adding up to the duration. */
static inline void fuzz_check_power_states(const struct mpm_power_result *r)
{
	for (unsigned int i = 0; i < r->nr_domains; i++) {
		double sum = 0;

		for (int s = 0; s < MPM_NR_PSTATES; s++) {
			fuzz_require_physical(mpm_pstate_names[s], r->domains[i].state_s[s]);
			sum += r->domains[i].state_s[s];
		}
		if (fabs(sum - r->duration_s) > 1e-6 * r->duration_s + 1e-9)
			fuzz_fail("power: domain %u: states add up to %.9g s of %.9g", i, sum,
				  r->duration_s);
	}
}

/* by_use: each domain-interval once, and all the self-refresh time. */
static inline void fuzz_check_power_uses(const struct mpm_power_result *r)
{
	double sum = 0, sr = 0, all = r->nr_domains * r->duration_s;

	for (int u = 0; u < MPM_NR_USES; u++) {
		fuzz_require_physical(mpm_power_use_names[u], r->use_s[u]);
		fuzz_require_physical(mpm_power_use_names[u], r->use_sr_s[u]);
		sum += r->use_s[u];
		sr += r->use_sr_s[u];
	}
	if (fabs(sum - all) > 1e-6 * all + 1e-9)
		fuzz_fail("power: by_use adds up to %.9g domain-s of %.9g", sum, all);
	if (fabs(sr - r->state_s[MPM_PS_SR]) > 1e-6 * all + 1e-9)
		fuzz_fail("power: by_use self-refresh %.9g s of %.9g", sr, r->state_s[MPM_PS_SR]);
}

#endif /* MPM_TESTS_FUZZ_POWER_CHECK_H */
