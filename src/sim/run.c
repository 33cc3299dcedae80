// SPDX-License-Identifier: MIT
#include "sim/run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/churn.h"
#include "sim/rng.h"

static double host_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int take_sample(struct mpm_run *run, double t)
{
	struct mpm_sample *s;

	if (run->nr_samples == run->samples_cap) {
		size_t ncap = run->samples_cap ? run->samples_cap * 2 : 64;
		struct mpm_sample *n = realloc(run->samples, ncap * sizeof(*n));

		if (!n)
			return -1;
		run->samples = n;
		run->samples_cap = ncap;
	}
	s = &run->samples[run->nr_samples++];
	s->t = t;
	s->free_regions = mpm_free_regions(run->m);
	s->used_pages = mpm_used_pages(run->m);
	s->pcp_pages = mpm_pcp_pages(run->m);
	for (int mt = 0; mt < MPM_MIGRATE_TYPES; mt++)
		s->free_mt[mt] = mpm_free_pages_mt(run->m, mt);
	return 0;
}

static int check(struct mpm_run *run, char *err, size_t errlen)
{
	char msg[256];

	if (!mpm_check(run->m, msg, sizeof(msg)))
		return 0;
	snprintf(err, errlen, "invariant broken after %llu operations: %s",
		 (unsigned long long)run->ops, msg);
	return -1;
}

static void note_free_regions(struct mpm_run *run)
{
	unsigned int fr = mpm_free_regions(run->m);

	if (fr < run->free_regions_min)
		run->free_regions_min = fr;
}

/* Drive churn for cfg->duration virtual seconds, sampling each second. */
static int drive_churn(struct mpm_run *run, char *err, size_t errlen)
{
	const struct mpm_run_config *cfg = run->cfg;
	struct mpm_churn *c = calloc(1, sizeof(*c));
	uint64_t total;

	if (!c)
		goto nomem;
	run->workload_state = c;
	mpm_churn_init(c, &cfg->workload.churn, run->m, &run->rng);
	run->ops_per_sec = c->ops_per_sec;
	total = (uint64_t)llround(cfg->duration * (double)c->ops_per_sec);
	for (uint64_t sec = 1; run->ops < total; sec++) {
		uint64_t stop = sec * c->ops_per_sec;
		double t = (double)sec;

		if (stop >= total) {
			stop = total;
			t = cfg->duration;
		}
		while (run->ops < stop) {
			if (mpm_churn_step(c)) {
				snprintf(err, errlen, "%s", c->error);
				return -1;
			}
			run->ops++;
			note_free_regions(run);
			if (cfg->check_every_op && check(run, err, errlen))
				return -1;
		}
		if (take_sample(run, t))
			goto nomem;
		if (cfg->progress)
			cfg->progress(cfg->progress_arg, t, cfg->duration);
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory in the simulator");
	return -1;
}

int mpm_run_execute(const struct mpm_run_config *cfg, struct mpm_run *run,
		    char *err, size_t errlen)
{
	double t0 = host_seconds();
	char msg[256];

	memset(run, 0, sizeof(*run));
	run->cfg = cfg;
	mpm_rng_seed(&run->rng, cfg->seed);
	run->m = mpm_machine_create(cfg->spec, msg, sizeof(msg));
	if (!run->m) {
		snprintf(err, errlen, "cannot build the machine: %s", msg);
		return -1;
	}
	run->features = mpm_features(run->m);
	run->regions_total = mpm_regions_total(run->m);
	run->free_regions_start = mpm_free_regions(run->m);
	run->free_regions_min = run->free_regions_start;
	if (cfg->check_every_op && check(run, err, errlen))
		return -1;
	if (take_sample(run, 0)) {
		snprintf(err, errlen, "out of memory in the simulator");
		return -1;
	}
	if (cfg->workload.kind == MPM_WORKLOAD_CHURN &&
	    drive_churn(run, err, errlen))
		return -1;
	run->free_regions_end = mpm_free_regions(run->m);
	mpm_counters(run->m, &run->counters);
	run->wall_seconds = host_seconds() - t0;
	return 0;
}

void mpm_run_fini(struct mpm_run *run)
{
	struct mpm_churn *c = run->workload_state;

	if (c) {
		mpm_churn_fini(c);
		free(c);
	}
	if (run->m)
		mpm_machine_destroy(run->m);
	free(run->samples);
	memset(run, 0, sizeof(*run));
}
