/* SPDX-License-Identifier: MIT */
/*
 * Shared by the kernel-model tests: a small two-node machine, a run of a
 * workload string with every checker on at every sample, and the
 * conservation check.
 */
#ifndef MPM_TEST_KSIM_HELPERS_H
#define MPM_TEST_KSIM_HELPERS_H

#include <string.h>

#include "sim/ksim.h"
#include "sim/run.h"
#include "testlib.h"

static struct mpm_zone_spec kh_zones[2];

/* Node 0: DMA32 [1, node_pages); node 1: Normal; 32 MiB regions. */
static inline void machine(struct mpm_machine_spec *s, uint64_t node_pages, unsigned int cpus)
{
	memset(s, 0, sizeof(*s));
	kh_zones[0] = (struct mpm_zone_spec){ 0, MPM_ZONE_DMA32, 1, node_pages };
	kh_zones[1] = (struct mpm_zone_spec){ 1, MPM_ZONE_NORMAL, node_pages, 2 * node_pages };
	s->nr_nodes = 2;
	s->nr_zones = 2;
	s->zones = kh_zones;
	s->nr_cpus = cpus;
	s->region_shift = 13;
}

static inline int run_seeded(struct mpm_run *r, struct mpm_run_config *c, const char *wl,
			     const struct mpm_machine_spec *s, double duration, bool boot,
			     uint64_t seed)
{
	char err[256];

	memset(c, 0, sizeof(*c));
	c->spec = s;
	c->policy = "mainline";
	c->workload_str = wl;
	REQUIRE(mpm_workload_parse(wl, &c->workload, err, sizeof(err)) == 0);
	c->duration = duration;
	c->seed = seed;
	c->boot_system = boot;
	c->until_idle = true;
	c->check_samples = true;
	if (mpm_run_execute(c, r, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", wl, err);
		return -1;
	}
	return 0;
}

/*
 * Take every page an order-0 GFP_KERNEL allocation on @cpu can get,
 * draining the pcp lists when one fails, so that none is left there: a
 * machine with no free page.  The pfns, malloc()ed, go to *@held; give
 * them back with release_held().
 */
static inline uint64_t hold_all_pages(struct mpm_machine *m, unsigned int cpu, uint64_t **held)
{
	uint64_t n = 0, pfn;

	*held = malloc(mpm_total_pages(m) * sizeof(**held));
	REQUIRE(*held);
	for (;;) {
		pfn = mpm_alloc_pages(m, MPM_GFP_KERNEL, 0, cpu);
		if (pfn == MPM_NO_PFN) {
			mpm_drain_all_pages(m);
			pfn = mpm_alloc_pages(m, MPM_GFP_KERNEL, 0, cpu);
			if (pfn == MPM_NO_PFN)
				break;
		}
		(*held)[n++] = pfn;
	}
	return n;
}

static inline void release_held(struct mpm_machine *m, uint64_t *held, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		mpm_free_pages(m, held[i], 0, 0);
	free(held);
}

/* With the pcp lists drained, used pages == what the model holds. */
static inline void check_conservation(struct mpm_run *r)
{
	mpm_drain_all_pages(r->m);
	CHECK_EQ_U(mpm_used_pages(r->m), ksim_accounted_pages(r->k));
}

#endif
