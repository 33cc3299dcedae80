// SPDX-License-Identifier: MIT
/*
 * Churn: allocations of orders 0..maxorder, mostly low orders (as in a
 * running kernel, where order-0 dominates and THP-sized requests are rare),
 * in all three mobility kinds, and frees in random order.  A proportional
 * controller holds occupancy around the target: 90 % allocations while more
 * than 5 % below it, 90 % frees while more than 5 % above, a straight line
 * in between, so memory fills at the start and then fluctuates at the
 * target, which is where fragmentation builds up.
 */
#include "sim/churn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mempower/alloc.h>
#include <mempower/gfp.h>

/* Relative frequency of each order, per mille, orders 0..10. */
static const unsigned int order_weight[MPM_MAX_ORDER] = {
	600, 120, 80, 60, 40, 30, 20, 15, 12, 12, 11,
};

#define CONTROL_BAND	0.05	/* +-5 % of the target */

static void build_cdf(struct mpm_churn *c)
{
	double sum = 0, acc = 0;

	for (unsigned int o = 0; o <= c->p.maxorder; o++)
		sum += order_weight[o];
	for (unsigned int o = 0; o < MPM_MAX_ORDER; o++) {
		if (o <= c->p.maxorder)
			acc += order_weight[o] / sum;
		c->order_cdf[o] = o < c->p.maxorder ? acc : 1.0;
	}
}

static uint64_t managed_pages(const struct mpm_machine *m)
{
	uint64_t managed = 0;

	for (unsigned int z = 0; z < mpm_nr_zones(m); z++) {
		struct mpm_zone_info zi;

		mpm_zone_info(m, z, &zi);
		managed += zi.managed;
	}
	return managed;
}

int mpm_churn_init(struct mpm_churn *c, const struct mpm_churn_params *p,
		   struct mpm_machine *m, struct mpm_rng *rng)
{
	uint64_t managed = managed_pages(m);

	memset(c, 0, sizeof(*c));
	c->p = *p;
	c->m = m;
	c->rng = rng;
	c->nr_cpus = mpm_nr_cpus(m);
	if (!c->nr_cpus)
		c->nr_cpus = 1;
	c->target_pages = (uint64_t)(p->occupancy * (double)managed);
	/* the default scales with memory, and a small machine still churns */
	c->ops_per_sec = p->ops;
	if (!p->ops)
		c->ops_per_sec = managed / 128 > 256 ? managed / 128 : 256;
	build_cdf(c);
	return 0;
}

void mpm_churn_fini(struct mpm_churn *c)
{
	free(c->live);
	c->live = NULL;
	c->nr_live = c->live_cap = 0;
}

static unsigned int pick_order(struct mpm_churn *c)
{
	double u = mpm_rng_double(c->rng);
	unsigned int o = 0;

	while (o < c->p.maxorder && u >= c->order_cdf[o])
		o++;
	return o;
}

static mpm_gfp_t pick_gfp(struct mpm_churn *c)
{
	double u = mpm_rng_double(c->rng);

	if (u < c->p.movable)
		return MPM_GFP_HIGHUSER_MOVABLE;
	if (u < c->p.movable + c->p.reclaimable)
		return MPM_GFP_TEMPORARY;
	return MPM_GFP_KERNEL;
}

static double alloc_probability(const struct mpm_churn *c)
{
	double band = CONTROL_BAND * (double)c->target_pages;
	double x;

	if (!c->nr_live)
		return 1.0;
	if (band < 1)
		band = 1;
	x = ((double)c->target_pages - (double)c->live_pages) / band;
	if (x > 1)
		x = 1;
	if (x < -1)
		x = -1;
	return 0.5 + 0.4 * x;
}

static int do_alloc(struct mpm_churn *c, unsigned int cpu)
{
	/* Draw both before the call so the stream does not depend on success. */
	unsigned int order = pick_order(c);
	mpm_gfp_t gfp = pick_gfp(c);
	uint64_t pfn;

	if (c->nr_live == c->live_cap) {
		size_t ncap = c->live_cap ? c->live_cap * 2 : 4096;
		struct mpm_churn_block *n = realloc(c->live, ncap * sizeof(*n));

		if (!n) {
			snprintf(c->error, sizeof(c->error), "out of memory in the simulator");
			return -1;
		}
		c->live = n;
		c->live_cap = ncap;
	}
	pfn = mpm_alloc_pages(c->m, gfp, order, cpu);
	if (pfn == MPM_NO_PFN) {
		c->failures++;
		return 0;
	}
	c->live[c->nr_live].pfn = pfn;
	c->live[c->nr_live].order = order;
	c->nr_live++;
	c->live_pages += 1ull << order;
	return 0;
}

static int do_free(struct mpm_churn *c, unsigned int cpu)
{
	size_t i = (size_t)mpm_rng_below(c->rng, c->nr_live);
	struct mpm_churn_block blk = c->live[i];

	c->live[i] = c->live[--c->nr_live];
	c->live_pages -= 1ull << blk.order;
	if (mpm_free_pages(c->m, blk.pfn, blk.order, cpu)) {
		/* The allocator refused a block it handed out: a real bug. */
		snprintf(c->error, sizeof(c->error),
			 "the allocator refused to free pfn %llu order %u that it allocated",
			 (unsigned long long)blk.pfn, blk.order);
		return -1;
	}
	return 0;
}

int mpm_churn_step(struct mpm_churn *c)
{
	unsigned int cpu = (unsigned int)mpm_rng_below(c->rng, c->nr_cpus);

	if (mpm_rng_double(c->rng) < alloc_probability(c))
		return do_alloc(c, cpu);
	return do_free(c, cpu);
}
