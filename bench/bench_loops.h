/* SPDX-License-Identifier: MIT */
/*
 * The benchmark loops, written once and instantiated once per allocator by
 * bench.c (the way mimalloc includes page-queue.c into page.c).  Every
 * allocator call in a timed loop is a direct call, so neither side pays an
 * indirect call per operation; the loops are identical by construction.
 *
 * The includer defines:
 *   BL_SHORT			short name, pasted into the function names
 *   BL_CTX			the allocator's handle type
 *   BL_ALLOC(c, order)		-> pfn or UINT64_MAX
 *   BL_FREE(c, pfn, order)	-> 0, or non-zero when the allocator refused
 *
 * Functions are named timed_<short>_<what> (only the measured loops) and
 * setup_<short>_<what> (warm-up and preparation), and are never inlined, so
 * that `valgrind --tool=callgrind --toggle-collect='timed_*'` counts exactly
 * the instructions that the timings cover.
 */
#ifndef MPM_BENCH_IN_BENCH_C
#error "bench_loops.h is a template for bench.c only"
#endif

#define BL_CAT_(a, b, c)	a##_##b##_##c
#define BL_CAT(a, b, c)		BL_CAT_(a, b, c)
#define BL_TIMED(what)		BL_CAT(timed, BL_SHORT, what)
#define BL_SETUP(what)		BL_CAT(setup, BL_SHORT, what)

/* alloc + free of one order-0 page, @n times; returns failures. */
static inline __attribute__((always_inline))
uint64_t BL_CAT(body, BL_SHORT, pair)(BL_CTX *c, uint64_t n)
{
	uint64_t fail = 0, pfn;

	for (uint64_t i = 0; i < n; i++) {
		pfn = BL_ALLOC(c, 0);
		if (pfn == UINT64_MAX)
			fail++;
		else
			fail += BL_FREE(c, pfn, 0) != 0;
	}
	return fail;
}

/* Allocate order-0 pages into @pfns until @n or the first failure. */
static inline __attribute__((always_inline))
uint64_t BL_CAT(body, BL_SHORT, fill)(BL_CTX *c, uint64_t *pfns, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		pfns[i] = BL_ALLOC(c, 0);
		if (pfns[i] == UINT64_MAX)
			break;
	}
	return i;
}

/* Free @pfns[0..n) newest first; returns refusals. */
static inline __attribute__((always_inline))
uint64_t BL_CAT(body, BL_SHORT, unfill)(BL_CTX *c, const uint64_t *pfns, uint64_t n)
{
	uint64_t fail = 0;

	while (n--)
		fail += BL_FREE(c, pfns[n], 0) != 0;
	return fail;
}

/*
 * Run a mixed op stream (see mixed_stream_build() in bench.c).  @live holds
 * pfn << 4 | order per live block, UINT64_MAX for an allocation that failed,
 * so that the stream's free indices stay meaningful after a failure.
 */
static inline __attribute__((always_inline))
uint64_t BL_CAT(body, BL_SHORT, mixed)(BL_CTX *c, const uint32_t *ops, uint64_t nops,
				       uint64_t *live, uint64_t *nlive)
{
	uint64_t fail = 0, n = *nlive, v, pfn;

	for (uint64_t i = 0; i < nops; i++) {
		uint32_t op = ops[i];

		if (op & MIXED_FREE) {
			uint32_t idx = op & ~MIXED_FREE;

			v = live[idx];
			live[idx] = live[--n];
			if (v != UINT64_MAX)
				fail += BL_FREE(c, v >> 4, (unsigned int)(v & 15)) != 0;
			continue;
		}
		pfn = BL_ALLOC(c, op);
		fail += pfn == UINT64_MAX;
		live[n++] = pfn == UINT64_MAX ? UINT64_MAX : pfn << 4 | op;
	}
	*nlive = n;
	return fail;
}

static __attribute__((noinline)) uint64_t
BL_TIMED(pair)(void *c, uint64_t n)
{
	return BL_CAT(body, BL_SHORT, pair)(c, n);
}

static __attribute__((noinline)) uint64_t
BL_SETUP(pair)(void *c, uint64_t n)
{
	return BL_CAT(body, BL_SHORT, pair)(c, n);
}

static __attribute__((noinline)) uint64_t
BL_TIMED(fill)(void *c, uint64_t *pfns, uint64_t n)
{
	return BL_CAT(body, BL_SHORT, fill)(c, pfns, n);
}

static __attribute__((noinline)) uint64_t
BL_SETUP(fill)(void *c, uint64_t *pfns, uint64_t n)
{
	return BL_CAT(body, BL_SHORT, fill)(c, pfns, n);
}

static __attribute__((noinline)) uint64_t
BL_TIMED(unfill)(void *c, const uint64_t *pfns, uint64_t n)
{
	return BL_CAT(body, BL_SHORT, unfill)(c, pfns, n);
}

static __attribute__((noinline)) uint64_t
BL_SETUP(unfill)(void *c, const uint64_t *pfns, uint64_t n)
{
	return BL_CAT(body, BL_SHORT, unfill)(c, pfns, n);
}

/* Free, in array order, the pages of @pfns whose pfn is odd. */
static __attribute__((noinline)) uint64_t
BL_SETUP(free_odd)(void *c, const uint64_t *pfns, uint64_t n)
{
	uint64_t fail = 0;

	for (uint64_t i = 0; i < n; i++)
		if (pfns[i] & 1)
			fail += BL_FREE((BL_CTX *)c, pfns[i], 0) != 0;
	return fail;
}

static __attribute__((noinline)) uint64_t
BL_TIMED(mixed)(void *c, const uint32_t *ops, uint64_t nops, uint64_t *live,
		uint64_t *nlive)
{
	return BL_CAT(body, BL_SHORT, mixed)(c, ops, nops, live, nlive);
}

static __attribute__((noinline)) uint64_t
BL_SETUP(mixed)(void *c, const uint32_t *ops, uint64_t nops, uint64_t *live,
		uint64_t *nlive)
{
	return BL_CAT(body, BL_SHORT, mixed)(c, ops, nops, live, nlive);
}

static const struct bench_impl BL_CAT(impl, BL_SHORT, loops) = {
	.timed_pair = BL_TIMED(pair),
	.setup_pair = BL_SETUP(pair),
	.timed_fill = BL_TIMED(fill),
	.setup_fill = BL_SETUP(fill),
	.timed_unfill = BL_TIMED(unfill),
	.setup_unfill = BL_SETUP(unfill),
	.setup_free_odd = BL_SETUP(free_odd),
	.timed_mixed = BL_TIMED(mixed),
	.setup_mixed = BL_SETUP(mixed),
};

#undef BL_TIMED
#undef BL_SETUP
#undef BL_CAT
#undef BL_CAT_
