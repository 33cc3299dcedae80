// SPDX-License-Identifier: MIT
/*
 * mpm_alloc_pages_bulk() must decide exactly as the same number of
 * mpm_alloc_pages() calls: the same pfns in the same order, the same
 * counters, the same machine afterwards.  Two identical machines run one
 * seeded stream; on one every allocation request is a bulk call, on the
 * other a loop of single calls.  The stream crosses everything the bulk
 * path's runs must stop at: empty pcp lists (refills), the fair-zone batch
 * folding and running out (so the walk moves to the next zone and node),
 * the low watermark (slow path), failures, cold and thisnode requests,
 * other migratetypes and higher orders, and frees in between.
 */
#include <stdlib.h>

#include "machines.h"
#include "mmzone.h"

#define MAX_LIVE	(1u << 16)

struct block {
	uint64_t pfn;
	unsigned int order;
};

static struct block live_a[MAX_LIVE], live_b[MAX_LIVE];
static unsigned int nr_live;

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Two nodes: DMA32 + Normal on node 0, Normal on node 1; 4 cpus. */
static struct mpm_machine *bulk_machine(struct test_machine *t, unsigned long features)
{
	memset(t, 0, sizeof(*t));
	t->zones[0] = (struct mpm_zone_spec){ 0, MPM_ZONE_DMA32, 1, MiB_PAGES(64) };
	t->zones[1] = (struct mpm_zone_spec){ 0, MPM_ZONE_NORMAL, MiB_PAGES(64), MiB_PAGES(192) };
	t->zones[2] = (struct mpm_zone_spec){ 1, MPM_ZONE_NORMAL, MiB_PAGES(192), MiB_PAGES(320) };
	tm_link(t, 2, 3, 0);
	t->spec.nr_cpus = 4;
	t->spec.region_shift = 13;	/* 32 MiB regions */
	t->spec.features = features;
	return tm_create(t);
}

static char *print_state(const struct mpm_machine *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	REQUIRE(f);
	mpm_print_zoneinfo(m, f);
	mpm_print_vmstat(m, f);
	mpm_print_buddyinfo(m, f);
	mpm_print_pagetypeinfo(m, f);
	fclose(f);
	return buf;
}

static const mpm_gfp_t gfps[] = {
	MPM_GFP_HIGHUSER_MOVABLE,
	MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_COLD,
	MPM_GFP_KERNEL,
	MPM_GFP_TEMPORARY,
	MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_THISNODE,
	MPM_GFP_KERNEL | MPM_GFP_DMA32,
	MPM_GFP_ATOMIC,
};

static void alloc_both(struct mpm_machine *a, struct mpm_machine *b, unsigned int cpu)
{
	static uint64_t pa[512], pb[512];
	mpm_gfp_t gfp = gfps[rnd() % (sizeof(gfps) / sizeof(gfps[0]))];
	unsigned int order = rnd() % 8 ? 0 : (unsigned int)(rnd() % 4);
	size_t nr = 1 + rnd() % 512, got_a, got_b = 0;

	if (nr > MAX_LIVE - nr_live)
		nr = MAX_LIVE - nr_live;
	got_a = mpm_alloc_pages_bulk(a, gfp, order, cpu, nr, pa);
	while (got_b < nr) {
		pb[got_b] = mpm_alloc_pages(b, gfp, order, cpu);
		if (pb[got_b] == MPM_NO_PFN)
			break;
		got_b++;
	}
	CHECK_EQ_U(got_a, got_b);
	for (size_t i = 0; i < got_a && i < got_b; i++) {
		if (pa[i] != pb[i]) {
			CHECK_EQ_U(pa[i], pb[i]);
			break;
		}
		live_a[nr_live] = (struct block){ pa[i], order };
		live_b[nr_live++] = (struct block){ pb[i], order };
	}
}

static void free_both(struct mpm_machine *a, struct mpm_machine *b, unsigned int cpu)
{
	unsigned int n = 1 + (unsigned int)(rnd() % 600);

	while (n-- && nr_live) {
		unsigned int i = (unsigned int)(rnd() % nr_live);

		CHECK(mpm_free_pages(a, live_a[i].pfn, live_a[i].order, cpu) == 0);
		CHECK(mpm_free_pages(b, live_b[i].pfn, live_b[i].order, cpu) == 0);
		live_a[i] = live_a[--nr_live];
		live_b[i] = live_b[nr_live];
	}
}

static void run_stream(unsigned long features, uint64_t seed, unsigned int steps)
{
	struct test_machine ta, tb;
	struct mpm_machine *a = bulk_machine(&ta, features);
	struct mpm_machine *b = bulk_machine(&tb, features);
	uint64_t failures_before = 0;
	char *sa, *sb;

	rng_state = seed;
	nr_live = 0;
	for (unsigned int s = 0; s < steps && !t_failures; s++) {
		unsigned int cpu = (unsigned int)(rnd() % 4);

		/* allocate towards full, then drain back: every watermark is crossed */
		if ((s / 400) % 2 == 0 ? rnd() % 4 : rnd() % 4 == 0)
			alloc_both(a, b, cpu);
		else
			free_both(a, b, cpu);
		if (rnd() % 64 == 0) {
			mpm_drain_local_pages(a, cpu);
			mpm_drain_local_pages(b, cpu);
		}
		if (s % 256 == 0)
			CHECK(tm_check(a) == 0);
	}
	sa = print_state(a);
	sb = print_state(b);
	CHECK(strcmp(sa, sb) == 0);
	/* the stream did reach the paths the runs must stop at */
	for (unsigned int i = 0; i < a->nr_zones; i++)
		failures_before += a->zones[i].ev[ZEV_ALLOC_FAILURES] + a->zones[i].ev[ZEV_SLOWPATH];
	CHECK(failures_before > 0);
	CHECK(tm_check(a) == 0);
	free(sa);
	free(sb);
	mpm_machine_destroy(a);
	mpm_machine_destroy(b);
}

int main(void)
{
	unsigned long split;

	run_stream(MPM_FEATURE_NONE, 1, 4000);
	run_stream(MPM_FEATURE_NONE, 2, 4000);
	REQUIRE(mpm_policy_features("split", &split) == 0);
	run_stream(split, 3, 3000);
	return t_report("test_alloc_bulk");
}
