// SPDX-License-Identifier: MIT
#include "sim/run.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/churn.h"
#include "sim/ebizzy.h"
#include "sim/ksim.h"
#include "sim/size.h"
#include "sim/rng.h"
#include "sim/workload_progs.h"

static double host_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int take_sample_ideal(struct mpm_run *run, double t, const struct mpm_ideal *id);

/* Where region boundaries start on node @nid (topology.c's region_base_pfn). */
static uint64_t region_base(const struct mpm_machine_spec *s, unsigned int nid)
{
	uint64_t base = UINT64_MAX;

	if (s->region_absolute)
		return 0;
	for (unsigned int i = 0; i < s->nr_zones; i++)
		if (s->zones[i].node == nid && s->zones[i].start_pfn < base)
			base = s->zones[i].start_pfn;
	if (s->node_start_pfn[nid] && s->node_start_pfn[nid] < base)
		base = s->node_start_pfn[nid];
	return base == UINT64_MAX ? 0 : base;
}

/* Domains per region the pricing asks for: one controller policy per run. */
static unsigned int power_split(const struct mpm_run_config *cfg)
{
	unsigned int split = cfg->nr_pricing ? cfg->pricing[0].policy->split : 1;

	return split ? split : 1;
}

struct window_count {
	uint64_t present, used, reserved;
};

/*
 * With split, a region's pages by window of @wpages pages from @base:
 * @c[k] is window first + k.  Pages on pcp lists are used, as for regions.
 * The walk starts at a MAX_ORDER-1 boundary, so it meets only block heads,
 * and a block is spread over the windows it covers.
 */
static void count_windows(const struct mpm_machine *m, const struct mpm_region_info *ri,
			  uint64_t base, uint64_t wpages, struct window_count *c)
{
	uint64_t first = (ri->start_pfn - base) / wpages;
	uint64_t pfn = ri->start_pfn & ~(uint64_t)((1u << (MPM_MAX_ORDER - 1)) - 1);

	while (pfn < ri->end_pfn) {
		unsigned int order = 0;
		enum mpm_page_state st = mpm_page_state(m, pfn, &order);
		uint64_t n = (st == MPM_PAGE_FREE || st == MPM_PAGE_ALLOC) ? 1ull << order : 1;
		uint64_t lo = pfn > ri->start_pfn ? pfn : ri->start_pfn;
		uint64_t hi = pfn + n < ri->end_pfn ? pfn + n : ri->end_pfn;

		while (st != MPM_PAGE_HOLE && lo < hi) {
			uint64_t w = (lo - base) / wpages, wend = base + (w + 1) * wpages;
			uint64_t e = hi < wend ? hi : wend;
			struct window_count *x = &c[w - first];

			x->present += e - lo;
			if (st == MPM_PAGE_RESERVED)
				x->reserved += e - lo;
			if (st != MPM_PAGE_FREE)
				x->used += e - lo;
			lo = e;
		}
		pfn += n;
	}
}

/* Map the pageblocks of [@start, @end) to pregion @n where not yet mapped. */
static void map_pageblocks(struct mpm_run *run, unsigned int pbo, uint64_t start, uint64_t end,
			   unsigned int n)
{
	for (uint64_t b = start >> pbo; b <= (end - 1) >> pbo; b++)
		if (run->pb_region[b] == UINT_MAX)
			run->pb_region[b] = n;
}

/* A zone region's pregions: one, or with split one per window with present pages. */
static unsigned int add_pregions(struct mpm_run *run, const struct mpm_zone_info *zi,
				 const struct mpm_region_info *ri, unsigned int n,
				 struct window_count *c)
{
	uint64_t base = region_base(run->cfg->spec, zi->node), rpages = mpm_region_pages(run->m);
	unsigned int split = power_split(run->cfg), pbo = mpm_pageblock_order(run->m);
	uint64_t wpages = rpages / split, first = (ri->start_pfn - base) / wpages;
	unsigned int added = 0;

	if (split == 1) {
		run->pregions[n] = (struct mpm_power_region){ zi->node, first, ri->present,
							      ri->managed < ri->present };
		map_pageblocks(run, pbo, ri->start_pfn, ri->end_pfn, n);
		return 1;
	}
	memset(c, 0, split * sizeof(*c));
	count_windows(run->m, ri, base, wpages, c);
	for (unsigned int k = 0; k < split; k++) {
		uint64_t lo = base + (first + k) * wpages, hi = lo + wpages;

		if (!c[k].present)
			continue;
		run->pregions[n + added] = (struct mpm_power_region){ zi->node, first + k,
								      c[k].present,
								      c[k].reserved > 0 };
		map_pageblocks(run, pbo, lo > ri->start_pfn ? lo : ri->start_pfn,
			       hi < ri->end_pfn ? hi : ri->end_pfn, n + added);
		added++;
	}
	return added;
}

/*
 * The power model's regions: every zone region with present pages (with
 * split, every window of one), in the order mpm_regions_total counts them,
 * with its physical window; and the map from pageblocks to them that folds
 * ksim's access counters.
 */
static int power_regions_init(struct mpm_run *run)
{
	const struct mpm_machine *m = run->m;
	unsigned int pbo = mpm_pageblock_order(m), n = 0, split = power_split(run->cfg);
	size_t cap = (size_t)(run->regions_total ? run->regions_total : 1) * split;

	if (mpm_region_pages(m) / split < 1ull << pbo)
		return -2;
	run->pregions = calloc(cap, sizeof(*run->pregions));
	run->p_windows = calloc(split, sizeof(struct window_count));
	run->nr_pb = (size_t)(mpm_max_pfn(m) >> pbo) + 1;
	run->pb_region = malloc(run->nr_pb * sizeof(*run->pb_region));
	if (!run->pregions || !run->pb_region || !run->p_windows)
		return -1;
	{
		uint64_t **rows[] = { &run->p_prev, &run->p_used, &run->p_rd, &run->p_wr,
				      &run->p_lines };

		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
			if (!(*rows[i] = calloc(cap, sizeof(uint64_t))))
				return -1;
	}
	memset(run->pb_region, 0xff, run->nr_pb * sizeof(*run->pb_region));
	for (unsigned int z = 0; z < mpm_nr_zones(m); z++) {
		struct mpm_zone_info zi;

		mpm_zone_info(m, z, &zi);
		for (unsigned int r = 0; r < zi.nr_regions; r++) {
			struct mpm_region_info ri;

			mpm_region_info(m, z, r, &ri);
			if (ri.present)
				n += add_pregions(run, &zi, &ri, n, run->p_windows);
		}
	}
	run->nr_pregions = n;
	return 0;
}

/* Used pages now, per pregion: the regions' counters, or with split a walk. */
static void power_used(struct mpm_run *run)
{
	unsigned int n = 0, split = power_split(run->cfg);
	struct window_count *c = run->p_windows;

	for (unsigned int z = 0; z < mpm_nr_zones(run->m); z++) {
		struct mpm_zone_info zi;

		mpm_zone_info(run->m, z, &zi);
		for (unsigned int r = 0; r < zi.nr_regions; r++) {
			struct mpm_region_info ri;
			uint64_t base, wpages;

			mpm_region_info(run->m, z, r, &ri);
			if (!ri.present)
				continue;
			if (split == 1) {	/* pcp pages are not free: they count as used */
				run->p_used[n++] = ri.present - ri.nr_free;
				continue;
			}
			base = region_base(run->cfg->spec, zi.node);
			wpages = mpm_region_pages(run->m) / split;
			memset(c, 0, split * sizeof(*c));
			count_windows(run->m, &ri, base, wpages, c);
			for (unsigned int k = 0; k < split; k++)
				if (c[k].present)
					run->p_used[n++] = c[k].used;
		}
	}
}

/* This sample's row: used pages now, accesses since the last sample. */
static void power_row(struct mpm_run *run)
{
	memset(run->p_rd, 0, run->nr_pregions * sizeof(uint64_t));
	memset(run->p_wr, 0, run->nr_pregions * sizeof(uint64_t));
	memset(run->p_lines, 0, run->nr_pregions * sizeof(uint64_t));
	power_used(run);
	if (!run->k)
		return;
	for (size_t b = 0; b < run->nr_pb && b < run->k->nr_touch; b++) {
		uint32_t *c = &run->k->touch[NR_TOUCH * b];
		unsigned int i = run->pb_region[b];

		if (i != UINT_MAX) {
			run->p_rd[i] += c[TOUCH_PAGE_RD];
			run->p_wr[i] += c[TOUCH_PAGE_WR];
			run->p_lines[i] += c[TOUCH_LINE];
		}
		c[TOUCH_PAGE_RD] = c[TOUCH_PAGE_WR] = c[TOUCH_LINE] = 0;
	}
}

static void power_fini(struct mpm_run *run)
{
	for (unsigned int i = 0; i < run->nr_power; i++)
		mpm_power_result_fini(&run->power[i]);
	run->nr_power = 0;
}

/*
 * Price the interval since the last sample.  The first sample (again after
 * drive_ksim restarts the series at the idle system) begins the pricing.
 */
static int power_sample(struct mpm_run *run, double t)
{
	const struct mpm_run_config *cfg = run->cfg;
	uint64_t *x;

	if (!cfg->nr_pricing)
		return 0;
	power_row(run);
	if (!run->nr_samples) {
		power_fini(run);
		for (unsigned int i = 0; i < cfg->nr_pricing && i < MPM_MAX_PRICING; i++) {
			run->nr_power++;
			if (mpm_power_begin(&run->power[i], run->pregions, run->nr_pregions,
					    MPM_PAGE_SIZE, cfg->pricing[i].spec, cfg->pricing[i].policy))
				return -1;
		}
	} else {
		for (unsigned int i = 0; i < run->nr_power; i++)
			mpm_power_interval(&run->power[i], t - run->p_prev_t, run->p_prev,
					   run->p_used, run->p_rd, run->p_wr, run->p_lines);
	}
	x = run->p_prev;
	run->p_prev = run->p_used;
	run->p_used = x;
	run->p_prev_t = t;
	return 0;
}

/* The end of the pricing: the migrations and kmempowerd's CPU time. */
static void power_end(struct mpm_run *run)
{
	for (unsigned int i = 0; i < run->nr_power; i++)
		mpm_power_end(&run->power[i], run->counters.migrated,
			      run->k ? (double)run->k->c.kmempowerd_ns / 1e9 : 0);
	run->priced = true;
}

static int take_sample_ideal(struct mpm_run *run, double t, const struct mpm_ideal *id)
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
	if (power_sample(run, t))
		return -1;
	s = &run->samples[run->nr_samples++];
	s->t = t;
	s->free_regions = mpm_free_regions(run->m);
	s->used_pages = mpm_used_pages(run->m);
	s->pcp_pages = mpm_pcp_pages(run->m);
	for (int mt = 0; mt < MPM_MIGRATE_TYPES; mt++)
		s->free_mt[mt] = mpm_free_pages_mt(run->m, mt);
	s->ideal_free_regions = id ? mpm_ideal_free_regions(id, run->m) : 0;
	s->cached_pages = run->k ? ksim_cached_pages(run->k) : 0;
	s->mixed_regions = mpm_mixed_regions(run->m);
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
static int drive_churn(struct mpm_run *run, const struct mpm_ideal *id, char *err,
		       size_t errlen)
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
		if (take_sample_ideal(run, t, id))
			goto nomem;
		if (cfg->progress)
			cfg->progress(cfg->progress_arg, t, cfg->duration);
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory in the simulator");
	return -1;
}

static void workload_exit(struct ksim *k, struct kprocess *p)
{
	struct mpm_run *run = k->owner;

	(void)p;
	run->workload_live--;
}

static int start_workload(struct mpm_run *run)
{
	const struct mpm_workload *w = &run->cfg->workload;
	struct ksim *k = run->k;

	if (w->kind == MPM_WORKLOAD_PAGETEST) {
		run->workload_live = 1;
		return mpm_pagetest_start(k, &w->pagetest, workload_exit);
	}
	if (w->kind == MPM_WORKLOAD_KERNBENCH) {
		run->workload_live = 1;		/* make; it outlives its compiles */
		return mpm_kernbench_start(k, &w->kernbench, workload_exit);
	}
	if (w->kind == MPM_WORKLOAD_PAGECACHE) {
		run->workload_live = w->pagecache.files;
		return mpm_pagecache_start(k, &w->pagecache, workload_exit);
	}
	run->workload_live = w->ebizzy.instances;
	{
		struct mpm_ebizzy_params p = { w->ebizzy.size, w->ebizzy.chunks,
					       w->ebizzy.threads, w->ebizzy.seconds,
					       w->ebizzy.instances, w->ebizzy.jitter };

		return mpm_ebizzy_start(k, &p, workload_exit);
	}
}

static int check_sample(struct mpm_run *run, double t, char *err, size_t errlen)
{
	char msg[256];

	if (mpm_check(run->m, msg, sizeof(msg)) ||
	    ksim_check_owners(run->k, msg, sizeof(msg)) ||
	    ksim_check_kmempowerd(run->k, msg, sizeof(msg))) {
		snprintf(err, errlen, "invariant broken at t=%.0f s: %s", t, msg);
		return -1;
	}
	return 0;
}

/*
 * --check-every-op on a kernel model: the allocator was checked after each
 * of its calls (ksim_allocator_call_done); the owners, whose tables are
 * whole only between the programs' steps, and kmempowerd's queue, after each
 * scheduler quantum.
 */
static int check_quantum(struct mpm_run *run, uint64_t t0)
{
	char msg[160];

	if (!ksim_check_owners(run->k, msg, sizeof(msg)) &&
	    !ksim_check_kmempowerd(run->k, msg, sizeof(msg)))
		return 0;
	ksim_fail(run->k, "kernel-model check failed at t=%.4f s: %s",
		  (double)(run->k->now - t0) / 1e9, msg);
	return -1;
}

/* packing_efficiency = free / ideal regions, min and running sum per sample */
static void note_packing(struct mpm_run *run, double *sum, size_t *n)
{
	const struct mpm_sample *s = &run->samples[run->nr_samples - 1];
	double eff = s->ideal_free_regions ?
		     (double)s->free_regions / s->ideal_free_regions : 1.0;

	if (!*n || eff < run->packing_min)
		run->packing_min = eff;
	*sum += eff;
	(*n)++;
}

/*
 * The pricing interval in ns: --power-policy interval_ms, when it is
 * shorter than the one-second samples; otherwise (or unpriced) a second.
 */
static uint64_t pricing_interval_ns(const struct mpm_run_config *cfg)
{
	unsigned int ms = cfg->nr_pricing ? cfg->pricing[0].policy->interval_ms : 1000;

	return ms && ms < 1000 ? ms * NSEC_PER_MSEC : NSEC_PER_SEC;
}

/*
 * Price the power model between samples when its interval is shorter
 * than a second: at the first quantum boundary at or past each tick.  An
 * idle machine skips time (skip_idle) only up to the next tick
 * (skip_limit), so that a burst's accesses stay in the interval they fell
 * in, and each idle interval after it passes in one jump.  @next is that
 * limit, the next tick.  The second's own sample prices the rest.
 */
static int price_ticks(struct mpm_run *run, uint64_t t0, uint64_t until, uint64_t tick,
		       uint64_t *next)
{
	uint64_t now = run->k->now;

	if (now < *next || now >= until)
		return 0;
	*next = t0 + ((now - t0) / tick + 1) * tick;
	return power_sample(run, (double)(now - t0) / 1e9);
}

/*
 * Drive a ksim workload second by second: optionally an idle system first,
 * then the workload, sampled each virtual second, until the duration or
 * (until_idle) two seconds after its last process exited.
 */
static int drive_ksim(struct mpm_run *run, char *err, size_t errlen)
{
	const struct mpm_run_config *cfg = run->cfg;
	struct ksim_params p;
	struct mpm_ideal id = { 0 };
	double t = 0, eff_sum = 0;
	uint64_t settle_until = UINT64_MAX, t0, tick = pricing_interval_ns(cfg);
	size_t eff_n = 0;
	int ret = -1;

	run->k = calloc(1, sizeof(*run->k));
	if (!run->k)
		goto nomem;
	ksim_default_params(&p, mpm_nr_cpus(run->m));
	p.thp = cfg->workload.thp;
	p.sched_cfs = cfg->workload.sched_cfs;
	if (ksim_init(run->k, run->m, &p, &run->rng) || mpm_ideal_init(&id, run->m))
		goto nomem;
	run->k->owner = run;
	run->k->check_every_op = cfg->check_every_op;
	run->k->table_limit = cfg->table_limit;
	if (cfg->boot_system && mpm_boot_idle_system(run->k))
		goto fail;
	/* t = 0 is the idle system, not the bare machine sampled at creation */
	t0 = run->k->now;
	run->free_regions_start = mpm_free_regions(run->m);
	run->free_regions_min = run->free_regions_start;
	run->nr_samples = 0;
	if (take_sample_ideal(run, 0, &id) || start_workload(run))
		goto fail;
	while (t < cfg->duration) {
		uint64_t until = t0 + (uint64_t)llround((t + 1) * 1e9);

		/* the second's first pricing tick, which price_ticks() moves on */
		if (tick < NSEC_PER_SEC)
			run->k->skip_limit = t0 + (uint64_t)llround(t * 1e9) + tick;
		while (run->k->now < until && !run->k->failed) {
			ksim_run_quantum(run->k);
			note_free_regions(run);
			if (cfg->check_every_op && check_quantum(run, t0))
				goto fail;
			if (tick < NSEC_PER_SEC &&
			    price_ticks(run, t0, until, tick, &run->k->skip_limit))
				goto nomem;
		}
		if (run->k->failed)
			goto fail;
		t += 1;
		if (take_sample_ideal(run, t, &id))
			goto nomem;
		note_packing(run, &eff_sum, &eff_n);
		if (cfg->check_samples && check_sample(run, t, err, errlen))
			goto out;
		if (cfg->progress)
			cfg->progress(cfg->progress_arg, t, cfg->duration);
		/* two more samples after the first that sees the workload gone */
		if (cfg->until_idle && !run->workload_live && settle_until == UINT64_MAX)
			settle_until = run->k->now + 2 * NSEC_PER_SEC;
		if (run->k->now >= settle_until)
			break;
	}
	run->end_t = t;
	/* a run of 0 s has only its t = 0 sample: the packing it shows */
	if (!eff_n)
		note_packing(run, &eff_sum, &eff_n);
	run->packing_mean = eff_sum / (double)eff_n;
	ret = 0;
	goto out;
fail:
	snprintf(err, errlen, "%s", run->k && run->k->failed ? run->k->error : "simulation failed");
	goto out;
nomem:
	/* the model's own reason first: a machine too small for its boot allocations */
	if (run->k && run->k->failed)
		goto fail;
	snprintf(err, errlen, "out of memory in the simulator");
out:
	mpm_ideal_fini(&id);
	return ret;
}

/*
 * The bare machine's sample at t = 0 (a kernel-model workload takes its own
 * after booting the idle system), then churn, if that is the workload: each
 * sample with the ideal packing of its used pages.
 */
static int take_sample_idle_or_churn(struct mpm_run *run, char *err, size_t errlen)
{
	struct mpm_ideal id;
	int r = 0;

	if (mpm_ideal_init(&id, run->m) || take_sample_ideal(run, 0, &id)) {
		snprintf(err, errlen, "out of memory in the simulator");
		r = -1;
	} else if (run->cfg->workload.kind == MPM_WORKLOAD_CHURN) {
		r = drive_churn(run, &id, err, errlen);
	}
	mpm_ideal_fini(&id);
	return r;
}

/* One past the machine's highest pfn: the per-pageblock arrays reach it from pfn 0. */
static uint64_t spec_end_pfn(const struct mpm_machine_spec *spec)
{
	uint64_t end = 0;

	for (unsigned int i = 0; i < spec->nr_zones; i++)
		if (spec->zones[i].end_pfn > end)
			end = spec->zones[i].end_pfn;
	return end;
}

/*
 * What a run holds whatever its workload does: the page array, and per
 * pageblock from pfn 0 the power model's pb_region and ksim's access
 * counters (the kernel models' only; counted for every run).
 */
static uint64_t fixed_bytes(const struct mpm_machine_spec *spec)
{
	uint64_t pages = mpm_machine_spec_bytes(spec);
	unsigned int pbo = spec->pageblock_order ? spec->pageblock_order : MPM_MAX_ORDER - 1;
	uint64_t per_pb = sizeof(unsigned int) + NR_TOUCH * sizeof(uint32_t);
	uint64_t pbs = (spec_end_pfn(spec) >> pbo) + 1;

	/* saturating, as mpm_machine_spec_bytes: each term at most a quarter */
	if (pages > UINT64_MAX / 4 || pbs > UINT64_MAX / 4 / per_pb)
		return UINT64_MAX / 2;
	return pages + pbs * per_pb;
}

uint64_t mpm_run_bytes_estimate(const struct mpm_machine_spec *spec)
{
	uint64_t fixed = fixed_bytes(spec);

	if (fixed >= UINT64_MAX / 2)
		return UINT64_MAX;
	/* half the page array again for the per-page state, and 64 MiB */
	return fixed + mpm_machine_spec_bytes(spec) / 2 + (64ull << 20);
}

uint64_t mpm_run_table_limit(const struct mpm_machine_spec *spec, uint64_t share)
{
	uint64_t fixed = fixed_bytes(spec);

	if (!share)
		return 0;
	/* the estimate's per-page half and 64 MiB, and what the share has over them */
	return share > fixed ? share - fixed : 1;
}

int mpm_run_execute(const struct mpm_run_config *cfg, struct mpm_run *run,
		    char *err, size_t errlen)
{
	double t0 = host_seconds();
	char msg[256];
	int r;

	memset(run, 0, sizeof(*run));
	run->cfg = cfg;
	/* drive_ksim() steps and samples whole seconds: 1.5 would run 2 */
	if (mpm_workload_is_kernel_model(cfg->workload.kind) &&
	    cfg->duration != floor(cfg->duration)) {
		snprintf(err, errlen, "duration %g: a kernel-model workload runs whole seconds",
			 cfg->duration);
		return -1;
	}
	/* ksim keeps pfns in 32 bits, the top one marking a THP (GATHER_HUGE) */
	if (mpm_workload_is_kernel_model(cfg->workload.kind) &&
	    spec_end_pfn(cfg->spec) > KSIM_MAX_PFNS) {
		char end[32];

		snprintf(err, errlen, "the kernel-model workloads simulate memory below 8T "
			 "(pfn 2^31); this machine's ends at %s",
			 mpm_format_size(spec_end_pfn(cfg->spec) << 12, end, sizeof(end)));
		return -1;
	}
	if (pricing_interval_ns(cfg) < NSEC_PER_SEC && !mpm_workload_is_kernel_model(cfg->workload.kind)) {
		/* they are sampled, and priced, once a second (drive_churn) */
		snprintf(err, errlen, "--power-policy interval_ms: workload %s is priced per second "
			 "only (the kernel-model workloads take interval_ms)",
			 cfg->workload.kind == MPM_WORKLOAD_NONE ? "none" : "churn");
		return -1;
	}
	mpm_rng_seed(&run->rng, cfg->seed);
	run->m = mpm_machine_create(cfg->spec, msg, sizeof(msg));
	if (!run->m) {
		snprintf(err, errlen, "cannot build the machine: %s", msg);
		return -1;
	}
	run->features = mpm_features(run->m);
	run->regions_total = mpm_regions_total(run->m);
	r = power_regions_init(run);
	if (r == -2) {
		snprintf(err, errlen, "--power-policy split=%u: a domain would be smaller than a pageblock",
			 power_split(cfg));
		return -1;
	}
	if (r) {
		snprintf(err, errlen, "out of memory in the simulator");
		return -1;
	}
	run->free_regions_start = mpm_free_regions(run->m);
	run->free_regions_min = run->free_regions_start;
	if (cfg->check_every_op && check(run, err, errlen))
		return -1;
	if (take_sample_idle_or_churn(run, err, errlen))
		return -1;
	if (mpm_workload_is_kernel_model(cfg->workload.kind) && drive_ksim(run, err, errlen))
		return -1;
	run->free_regions_end = mpm_free_regions(run->m);
	note_free_regions(run);		/* the end too: a run of no quantum */
	mpm_counters(run->m, &run->counters);
	if (!cfg->price_open)
		power_end(run);
	/* no page lost: every owned page where its owner thinks, as written */
	if (run->k) {
		ksim_count_mismatches(run->k, &run->owner_mismatches, &run->content_mismatches);
		if (run->owner_mismatches || run->content_mismatches) {
			snprintf(err, errlen, "%llu owner and %llu content mismatches at the end",
				 (unsigned long long)run->owner_mismatches,
				 (unsigned long long)run->content_mismatches);
			return -1;
		}
	}
	run->wall_seconds = host_seconds() - t0;
	return 0;
}

void mpm_run_price_close(struct mpm_run *run, double window_s)
{
	uint64_t tick = pricing_interval_ns(run->cfg);
	uint64_t t = (uint64_t)llround(run->p_prev_t * 1e9);
	uint64_t to = window_s > run->p_prev_t ? (uint64_t)llround(window_s * 1e9) : t;

	if (run->priced)
		return;
	/* p_prev: the used pages of the last sample, the run's end state */
	while (run->nr_power && t < to) {
		uint64_t next = to - t > tick ? t + tick : to;

		for (unsigned int i = 0; i < run->nr_power; i++)
			mpm_power_tail(&run->power[i], (double)(next - t) / 1e9, run->p_prev);
		t = next;
	}
	power_end(run);
}

void mpm_run_fini(struct mpm_run *run)
{
	struct mpm_churn *c = run->workload_state;

	if (c) {
		mpm_churn_fini(c);
		free(c);
	}
	if (run->k) {
		ksim_fini(run->k);
		free(run->k);
	}
	if (run->m)
		mpm_machine_destroy(run->m);
	free(run->samples);
	power_fini(run);
	free(run->pregions);
	free(run->pb_region);
	free(run->p_windows);
	free(run->p_prev);
	free(run->p_used);
	free(run->p_rd);
	free(run->p_wr);
	free(run->p_lines);
	memset(run, 0, sizeof(*run));
}
