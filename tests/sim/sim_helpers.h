/* SPDX-License-Identifier: MIT */
/* Shared by the sim tests: a small machine and a run on it. */
#ifndef MPM_TEST_SIM_HELPERS_H
#define MPM_TEST_SIM_HELPERS_H

#include <string.h>

#include <jansson.h>

#include "io/machine_spec.h"
#include "io/result_json.h"
#include "sim/run.h"
#include "testlib.h"

struct sim_case {
	struct mpm_spec_buf spec;
	struct mpm_run_config cfg;
	struct mpm_run run;
	char err[512];
};

/*
 * The machine spec and a mainline run's configuration, not yet run, for a
 * caller to add to (pricing, until_idle); 0, or -1 with c->err.
 */
static inline int sim_case_init(struct sim_case *c, const char *machine,
				const char *region, const char *cpus,
				const char *workload, double duration, uint64_t seed)
{
	struct mpm_machine_opts o = {
		.machine = machine, .region_size = region, .cpus = cpus,
	};

	memset(c, 0, sizeof(*c));
	if (mpm_machine_spec_build(&o, &c->spec, c->err, sizeof(c->err)))
		return -1;
	if (mpm_workload_parse(workload, &c->cfg.workload, c->err, sizeof(c->err)))
		return -1;
	c->cfg.spec = &c->spec.spec;
	c->cfg.policy = "mainline";
	c->cfg.workload_str = workload;
	c->cfg.duration = duration;
	c->cfg.seed = seed;
	return 0;
}

/* 0 on success; the run's machine stays alive until sim_case_fini(). */
static inline int sim_case_run(struct sim_case *c, const char *machine,
			       const char *region, const char *cpus,
			       const char *workload, double duration,
			       uint64_t seed, bool check)
{
	if (sim_case_init(c, machine, region, cpus, workload, duration, seed))
		return -1;
	c->cfg.check_every_op = check;
	return mpm_run_execute(&c->cfg, &c->run, c->err, sizeof(c->err));
}

static inline void sim_case_fini(struct sim_case *c)
{
	mpm_run_fini(&c->run);
	mpm_spec_buf_free(&c->spec);
}

/* The result document as text, with or without the "host" keys. */
static inline char *sim_case_json(struct sim_case *c, const char *machine,
				  bool with_host)
{
	struct mpm_result_input in = {
		.machine = machine, .spec = &c->spec, .runs = &c->run,
		.nr_runs = 1, .with_host = with_host,
	};
	json_t *root = mpm_result_build(&in);
	char *s;

	REQUIRE(root);
	s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	REQUIRE(s);
	return s;
}

#endif /* MPM_TEST_SIM_HELPERS_H */
