// SPDX-License-Identifier: MIT
/*
 * What mpm_run_execute refuses by itself, for a caller of the library that
 * has not gone through the command line's checks: a kernel-model workload
 * for a fractional duration (it steps and samples whole seconds, so 1.5
 * would run 2), and a pricing interval under a second for a workload that
 * is priced once a second.  Each refusal says why and leaves a run that
 * mpm_run_fini takes; the same configuration with a whole duration or a
 * whole-second interval runs.
 */
#include <string.h>

#include "power/power.h"
#include "sim_helpers.h"

static struct mpm_power_policy pol;

/* @workload for @duration, priced every @interval_ms (0: not priced). */
static int try_run(struct sim_case *c, const char *workload, double duration,
		   unsigned int interval_ms)
{
	REQUIRE(!sim_case_init(c, "64M", "4M", "1", workload, duration, 1));
	c->cfg.until_idle = true;
	if (interval_ms) {
		mpm_power_policy_default(&pol);
		pol.interval_ms = interval_ms;
		c->cfg.pricing[0] = (struct mpm_power_pricing){ mpm_memspec_preset("ddr3-1600"),
								&pol };
		c->cfg.nr_pricing = 1;
	}
	return mpm_run_execute(&c->cfg, &c->run, c->err, sizeof(c->err));
}

static void expect_refusal(const char *workload, double duration, unsigned int interval_ms,
			   const char *why)
{
	struct sim_case c;

	CHECK(try_run(&c, workload, duration, interval_ms) == -1);
	CHECK(strstr(c.err, why) != NULL);
	if (!strstr(c.err, why))
		fprintf(stderr, "%s: '%s'\n", workload, c.err);
	CHECK(c.run.m == NULL && c.run.nr_samples == 0);
	sim_case_fini(&c);
}

static void expect_run(const char *workload, double duration, unsigned int interval_ms)
{
	struct sim_case c;

	CHECK(try_run(&c, workload, duration, interval_ms) == 0);
	if (c.err[0])
		fprintf(stderr, "%s: %s\n", workload, c.err);
	sim_case_fini(&c);
}

int main(void)
{
	expect_refusal("pagetest:size=4M,hold=0", 1.5, 0,
		       "duration 1.5: a kernel-model workload runs whole seconds");
	expect_run("pagetest:size=4M,hold=0", 2, 0);
	expect_run("churn:ops=100", 1.5, 0);	/* churn takes any duration */

	expect_refusal("churn:ops=100", 2, 100,
		       "--power-policy interval_ms: workload churn is priced per second only");
	expect_refusal("none", 2, 100,
		       "--power-policy interval_ms: workload none is priced per second only");
	expect_run("churn:ops=100", 2, 1000);
	expect_run("pagetest:size=4M,hold=0", 2, 100);
	return t_report("sim/run_refusals");
}
