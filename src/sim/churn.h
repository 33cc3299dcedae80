/* SPDX-License-Identifier: MIT */
/*
 * The churn workload: one operation at a time, each an allocation or a free
 * on a CPU drawn from the run's generator.  It keeps the list of live blocks
 * (pfn, order) itself, so frees can be drawn uniformly from it.
 */
#ifndef MPM_SIM_CHURN_H
#define MPM_SIM_CHURN_H

#include <stdint.h>

#include <mempower/machine.h>

#include "sim/rng.h"
#include "sim/workload.h"

struct mpm_churn_block {
	uint64_t pfn;
	unsigned int order;
};

struct mpm_churn {
	struct mpm_churn_params p;
	struct mpm_machine *m;
	struct mpm_rng *rng;
	unsigned int nr_cpus;
	uint64_t ops_per_sec;
	uint64_t target_pages;		/* occupancy * managed pages */
	uint64_t live_pages;
	uint64_t failures;		/* allocations that got MPM_NO_PFN */
	double order_cdf[MPM_MAX_ORDER];
	struct mpm_churn_block *live;
	size_t nr_live, live_cap;
	char error[160];		/* why mpm_churn_step() failed */
};

int mpm_churn_init(struct mpm_churn *c, const struct mpm_churn_params *p,
		   struct mpm_machine *m, struct mpm_rng *rng);
/* One operation; -1 with c->error set on ENOMEM or an allocator bug. */
int mpm_churn_step(struct mpm_churn *c);
void mpm_churn_fini(struct mpm_churn *c);

#endif /* MPM_SIM_CHURN_H */
