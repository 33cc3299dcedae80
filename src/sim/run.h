/* SPDX-License-Identifier: MIT */
/*
 * One deterministic run: build the machine, drive a workload on a virtual
 * clock, sample once per virtual second.  Everything random comes from one
 * generator seeded with cfg->seed, so equal configs give equal runs.
 */
#ifndef MPM_SIM_RUN_H
#define MPM_SIM_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mempower/mempower.h>

#include "power/power.h"
#include "sim/rng.h"
#include "sim/workload.h"
#include "sim/sample.h"

#define MPM_MAX_DURATION	1000000.0	/* virtual seconds */
#define MPM_MAX_PRICING		3		/* memspecs priced per run */

/* One way to price a run with the DRAM power model (power/power.h). */
struct mpm_power_pricing {
	const struct mpm_memspec *spec;
	const struct mpm_power_policy *policy;
};

struct mpm_run_config {
	const struct mpm_machine_spec *spec;	/* features already set */
	const char *policy;			/* recorded as given */
	const char *workload_str;		/* recorded as given */
	struct mpm_workload workload;
	double duration;			/* virtual seconds, >= 0 */
	uint64_t seed;
	bool check_every_op;			/* mpm_check after every operation */
	bool check_samples;			/* mpm_check + owner check at every sample */
	bool boot_system;			/* ksim workloads: an idle system first */
	bool until_idle;			/* stop when the workload is done (+2 s) */
	/*
	 * Host bytes the address spaces' and files' per-page tables may take
	 * (ksim: table_limit), mpm_run_table_limit(); 0 = no limit.
	 */
	uint64_t table_limit;
	/* the DRAM power model, priced sample by sample; 0 = none */
	struct mpm_power_pricing pricing[MPM_MAX_PRICING];
	unsigned int nr_pricing;
	/*
	 * Leave the pricing open when the run ends, for mpm_run_price_close()
	 * to price the idle time up to a window shared with other runs.
	 */
	bool price_open;
	/* Called after each virtual second; may be NULL. */
	void (*progress)(void *arg, double t, double duration);
	void *progress_arg;
};

struct mpm_sample {
	double t;
	unsigned int free_regions;
	uint64_t used_pages;
	uint64_t pcp_pages;
	uint64_t free_mt[MPM_MIGRATE_TYPES];	/* buddy free pages per migratetype */
	unsigned int ideal_free_regions;	/* perfect packing of the same used pages */
	uint64_t cached_pages;			/* ksim: page cache */
	unsigned int mixed_regions;		/* movable + unmovable/reclaimable pageblocks */
};

struct mpm_run {
	const struct mpm_run_config *cfg;
	struct mpm_machine *m;		/* end state; kept for printing */
	unsigned long features;
	uint64_t ops;			/* operations performed */
	uint64_t ops_per_sec;
	unsigned int regions_total;
	unsigned int free_regions_start;
	unsigned int free_regions_end;
	unsigned int free_regions_min;	/* over every operation */
	struct mpm_counters counters;	/* at the end */
	struct mpm_sample *samples;
	size_t nr_samples, samples_cap;
	struct mpm_rng rng;		/* the run's one generator */
	double wall_seconds;		/* host time; not part of the result */
	void *workload_state;
	struct ksim *k;			/* ksim workloads */
	unsigned int workload_live;	/* ksim: workload processes not yet exited */
	double end_t;			/* virtual seconds at the end */
	double packing_min, packing_mean;	/* free / ideal over the samples */
	uint64_t owner_mismatches, content_mismatches;	/* ksim: at the end, must be 0 */
	/*
	 * The power model's input (power/power.h), priced at every sample and
	 * not kept: every zone region with present pages, its used pages at
	 * the last and this sample, and the accesses ksim recorded into it
	 * between them.
	 */
	struct mpm_power_region *pregions;
	unsigned int nr_pregions;
	unsigned int *pb_region;	/* pageblock -> pregion; UINT_MAX = none */
	size_t nr_pb;
	uint64_t *p_prev, *p_used, *p_rd, *p_wr, *p_lines;	/* [pregion] */
	void *p_windows;		/* with split: one region's counts per window */
	double p_prev_t;
	/*
	 * cfg->pricing[i] priced; complete once mpm_run_execute returns 0, or
	 * with cfg->price_open once mpm_run_price_close has
	 */
	struct mpm_power_result power[MPM_MAX_PRICING];
	unsigned int nr_power;
	bool priced;			/* the pricing is closed */
};

/*
 * The memory one run on a machine built from @spec may take: the page
 * array (mpm_machine_spec_bytes), half as much again for the simulator's
 * own per-page state -- a pfn for every page an address space maps or a
 * file caches -- and 64 MiB for everything else.  On a 16 GiB machine the
 * six workloads peak at 70-93 MB resident, 17.5-23.2 bytes per page;
 * this says 24 plus the 64 MiB.  Plus 16 bytes per pageblock from pfn 0
 * to the machine's end (the power model's pageblock map and ksim's access
 * counters), which matter only for memory far above 4 GiB: 4 GiB for a
 * zone just below 4 PiB.
 */
uint64_t mpm_run_bytes_estimate(const struct mpm_machine_spec *spec);
/*
 * What the per-page tables of a run's address spaces and files may take
 * (ksim's table_limit) when the run may hold @share bytes in all (0: no
 * budget known, no limit): the share less the page array and the
 * per-pageblock arrays, so at least the estimate's "half as much again"
 * and its 64 MiB -- on a small machine the
 * tables outgrow the half (the cover-letter ebizzy maps 8.5 MiB of them at
 * any scale).  A workload that maps or caches more fails its run with one
 * line instead of exhausting the host.
 */
uint64_t mpm_run_table_limit(const struct mpm_machine_spec *spec, uint64_t share);

/* 0 on success; -1 with a one-line reason.  mpm_run_fini() either way. */
int mpm_run_execute(const struct mpm_run_config *cfg, struct mpm_run *run,
		    char *err, size_t errlen);
/*
 * A run executed with cfg->price_open: price the machine idle at its end
 * state from the run's end to @window_s (nothing when the run reached it),
 * on the run's pricing grid, then close the pricing.  Once only.
 */
void mpm_run_price_close(struct mpm_run *run, double window_s);
void mpm_run_fini(struct mpm_run *run);

#endif /* MPM_SIM_RUN_H */
