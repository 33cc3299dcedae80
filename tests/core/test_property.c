// SPDX-License-Identifier: MIT
/*
 * Property test: random operation streams -- allocations of every order,
 * migratetype and zone modifier, frees in random order, hot and cold, on
 * random cpus, bulk frees, pcp drains -- on small machines with holes,
 * several nodes, node-relative and absolute tiny regions and pageblock
 * orders 5, 9 and 10.  mpm_check runs after every operation in the debug
 * preset (MPM_CHECK_EVERY_OP) and every 997 operations otherwise.  At the
 * end everything is freed and the machine must be as after boot.
 *
 * Usage: core_test_property [total_ops]  (default 1,000,000)
 */
#include <stdlib.h>

#include "machines.h"

#ifndef MPM_CHECK_EVERY_OP
#define MPM_CHECK_EVERY_OP 0
#endif

struct block {
	uint64_t pfn;
	unsigned int order;
};

struct stream {
	struct mpm_machine *m;
	struct block *live;
	size_t nr_live, cap;
	uint64_t live_pages, total_pages;
	uint64_t rng;
	uint64_t ops, checks;
	int failed;
};

static uint64_t rnd(struct stream *s)
{
	/* xorshift64*: reproducible from the seed printed on failure */
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 0x2545F4914F6CDD1Dull;
}

static unsigned int pick_order(struct stream *s)
{
	unsigned int r = (unsigned int)(rnd(s) % 100);

	if (r < 70)
		return 0;
	if (r < 80)
		return 1;
	if (r < 85)
		return 2;
	if (r < 90)
		return 3;
	return 4 + (unsigned int)(rnd(s) % 7);
}

static const mpm_gfp_t gfps[] = {
	MPM_GFP_HIGHUSER_MOVABLE, MPM_GFP_HIGHUSER_MOVABLE, MPM_GFP_KERNEL,
	MPM_GFP_TEMPORARY, MPM_GFP_ATOMIC, MPM_GFP_KERNEL | MPM___GFP_DMA,
	MPM_GFP_KERNEL | MPM___GFP_DMA32, MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_COLD,
	MPM_GFP_KERNEL | MPM___GFP_THISNODE, MPM_GFP_ATOMIC | MPM___GFP_RECLAIMABLE,
};

static void op_alloc(struct stream *s)
{
	unsigned int order = pick_order(s);
	mpm_gfp_t gfp = gfps[rnd(s) % (sizeof(gfps) / sizeof(gfps[0]))];
	unsigned int cpu = (unsigned int)(rnd(s) % mpm_nr_cpus(s->m));
	uint64_t pfn = mpm_alloc_pages(s->m, gfp, order, cpu);

	if (pfn == MPM_NO_PFN)
		return;
	if (pfn & ((1ull << order) - 1)) {
		fprintf(stderr, "misaligned block %llu order %u\n",
			(unsigned long long)pfn, order);
		s->failed = 1;
	}
	if (s->nr_live == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->live = realloc(s->live, s->cap * sizeof(*s->live));
		REQUIRE(s->live);
	}
	s->live[s->nr_live++] = (struct block){ pfn, order };
	s->live_pages += 1ull << order;
}

static struct block take_random(struct stream *s)
{
	size_t i = rnd(s) % s->nr_live;
	struct block b = s->live[i];

	s->live[i] = s->live[--s->nr_live];
	s->live_pages -= 1ull << b.order;
	return b;
}

static void op_free(struct stream *s)
{
	struct block b;
	unsigned int cpu = (unsigned int)(rnd(s) % mpm_nr_cpus(s->m));
	int ret;

	if (!s->nr_live)
		return;
	b = take_random(s);
	if (b.order == 0 && (rnd(s) & 3) == 0)
		ret = mpm_free_cold_page(s->m, b.pfn, cpu);
	else
		ret = mpm_free_pages(s->m, b.pfn, b.order, cpu);
	if (ret) {
		fprintf(stderr, "free of a live block %llu order %u refused\n",
			(unsigned long long)b.pfn, b.order);
		s->failed = 1;
	}
}

/* release_pages(): a batch of order-0 pages through one cpu. */
static void op_free_list(struct stream *s)
{
	uint64_t pfns[16];
	size_t n = 0;
	unsigned int cpu = (unsigned int)(rnd(s) % mpm_nr_cpus(s->m));

	for (size_t i = 0; i < s->nr_live && n < 16; ) {
		if (s->live[i].order == 0) {
			pfns[n++] = s->live[i].pfn;
			s->live[i] = s->live[--s->nr_live];
			s->live_pages--;
		} else {
			i++;
		}
	}
	if (mpm_free_page_list(s->m, pfns, n, cpu, (int)(rnd(s) & 1))) {
		fprintf(stderr, "bulk free refused\n");
		s->failed = 1;
	}
}

static void step(struct stream *s)
{
	unsigned int r = (unsigned int)(rnd(s) % 100);
	bool full = s->live_pages * 10 > s->total_pages * 9;

	if (r < 50 && !full)
		op_alloc(s);
	else if (r < 92)
		op_free(s);
	else if (r < 95)
		op_free_list(s);
	else if (r < 99)
		mpm_drain_local_pages(s->m, (unsigned int)(rnd(s) % mpm_nr_cpus(s->m)));
	else
		mpm_drain_all_pages(s->m);
	s->ops++;
}

static void check(struct stream *s, const char *when)
{
	char msg[512];

	s->checks++;
	if (mpm_check(s->m, msg, sizeof(msg))) {
		fprintf(stderr, "%s after op %llu: %s\n", when,
			(unsigned long long)s->ops, msg);
		s->failed = 1;
	}
}

/* What the streams exercised, summed: the test fails if a rule never ran. */
static struct mpm_counters seen;
static unsigned long features;	/* the policy under test */

static void add_counters(struct mpm_machine *m)
{
	struct mpm_counters c;

	mpm_counters(m, &c);
	seen.allocs += c.allocs;
	seen.fallbacks += c.fallbacks;
	seen.fragmenting_fallbacks += c.fragmenting_fallbacks;
	seen.pageblock_claims += c.pageblock_claims;
	seen.reserve_allocs += c.reserve_allocs;
	seen.region_bias_splits += c.region_bias_splits;
	seen.pa_to_ra += c.pa_to_ra;
	seen.ra_to_pa += c.ra_to_pa;
	seen.ra_move_freepages += c.ra_move_freepages;
	seen.alloc_failures += c.alloc_failures;
	seen.pcp_drains += c.pcp_drains;
	seen.buddy_merges += c.buddy_merges;
}

static int run_stream(struct test_machine *t, uint64_t seed, uint64_t nr_ops,
		      uint64_t *checks)
{
	struct stream s = { .rng = seed | 1 };

	t->spec.features = features;
	s.m = tm_create(t);
	s.total_pages = mpm_total_pages(s.m);
	while (s.ops < nr_ops && !s.failed) {
		step(&s);
		if (MPM_CHECK_EVERY_OP || s.ops % 997 == 0)
			check(&s, "random stream");
	}
	add_counters(s.m);
	while (s.nr_live && !s.failed) {
		struct block b = take_random(&s);

		if (mpm_free_pages(s.m, b.pfn, b.order, 0))
			s.failed = 1;
	}
	mpm_drain_all_pages(s.m);
	check(&s, "teardown");
	if (mpm_free_regions(s.m) != mpm_regions_total(s.m) || mpm_used_pages(s.m)) {
		fprintf(stderr, "after freeing everything: %u of %u regions free, %llu used\n",
			mpm_free_regions(s.m), mpm_regions_total(s.m),
			(unsigned long long)mpm_used_pages(s.m));
		s.failed = 1;
	}
	if (s.failed)
		fprintf(stderr, "failing stream: seed %llu\n", (unsigned long long)seed);
	*checks += s.checks;
	free(s.live);
	mpm_machine_destroy(s.m);
	return s.failed;
}

/* Two nodes, DMA/DMA32/Normal with holes, 4 MiB node-relative regions. */
static void machine_numa_holes(struct test_machine *t, unsigned int pbo)
{
	memset(t, 0, sizeof(*t));
	t->zones[0] = (struct mpm_zone_spec){ 0, MPM_ZONE_DMA, 1, 1500 };
	t->zones[1] = (struct mpm_zone_spec){ 0, MPM_ZONE_DMA32, 1500, 4608 };
	t->zones[2] = (struct mpm_zone_spec){ 0, MPM_ZONE_NORMAL, 4608, 7000 };
	t->zones[3] = (struct mpm_zone_spec){ 1, MPM_ZONE_NORMAL, 7000, 10240 };
	t->holes[0] = (struct mpm_hole_spec){ 0x9f, 0x100 };
	t->holes[1] = (struct mpm_hole_spec){ 3000, 3333 };
	t->holes[2] = (struct mpm_hole_spec){ 9000, 9001 };
	tm_link(t, 2, 4, 3);
	t->spec.nr_cpus = 4;
	t->spec.pageblock_order = pbo;
	t->spec.region_shift = pbo;	/* regions as small as a pageblock */
}

int main(int argc, char **argv)
{
	uint64_t total = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000;
	const char *policy = argc > 2 ? argv[2] : "mainline";

	char err[320];

	if (mpm_policy_features(policy, &features)) {
		fprintf(stderr, "core/property: unknown policy '%s'\n", policy);
		return 2;
	}
	/* argv[3]: switches on top of the policy, as mempower run --features */
	if (argc > 3 && mpm_features_apply(argv[3], &features, err, sizeof(err))) {
		fprintf(stderr, "core/property: %s\n", err);
		return 2;
	}
	uint64_t per = total / 4, checks = 0;
	struct test_machine t;
	int failed = 0;

	machine_numa_holes(&t, 5);
	failed |= run_stream(&t, 1, per, &checks);
	machine_numa_holes(&t, 9);
	t.spec.region_absolute = true;
	failed |= run_stream(&t, 2, per, &checks);
	machine_numa_holes(&t, 10);
	t.spec.region_shift = 11;
	failed |= run_stream(&t, 3, per, &checks);
	tm_flat(&t, 1, 6143, 3);	/* one zone starting off alignment, pbo 10 */
	t.spec.region_shift = 10;
	failed |= run_stream(&t, 4, total - 3 * per, &checks);

	CHECK(!failed);
	/* regions went both ways between the page and region allocators */
	CHECK((seen.pa_to_ra > 0 && seen.ra_to_pa > 0) ==
	      !!(features & MPM_FEATURE_REGION_ALLOCATOR));
	/* the bias must have had lower regions to prefer */
	CHECK((seen.region_bias_splits > 0) == !!(features & MPM_FEATURE_REGION_BIAS));
	CHECK(seen.fallbacks > 0);
	CHECK(seen.fragmenting_fallbacks > 0);
	/* no_claim: fallbacks loan pages and never change a pageblock's type */
	if (features & MPM_FEATURE_NO_CLAIM)
		CHECK_EQ_U(seen.pageblock_claims, 0);
	else
		CHECK(seen.pageblock_claims > 0);
	CHECK(seen.reserve_allocs > 0);
	CHECK(seen.alloc_failures > 0);
	CHECK(seen.pcp_drains > 0);
	printf("core/property: allocs %llu fallbacks %llu (fragmenting %llu) claims %llu "
	       "reserve %llu failures %llu\n", (unsigned long long)seen.allocs,
	       (unsigned long long)seen.fallbacks,
	       (unsigned long long)seen.fragmenting_fallbacks,
	       (unsigned long long)seen.pageblock_claims,
	       (unsigned long long)seen.reserve_allocs,
	       (unsigned long long)seen.alloc_failures);
	printf("core/property: policy %s, %llu operations, %llu full checks, %llu region_bias splits, "
	       "regions PA->RA %llu RA->PA %llu (move_freepages %llu)\n",
	       policy, (unsigned long long)total, (unsigned long long)checks,
	       (unsigned long long)seen.region_bias_splits, (unsigned long long)seen.pa_to_ra,
	       (unsigned long long)seen.ra_to_pa, (unsigned long long)seen.ra_move_freepages);
	return t_report("core/property");
}
