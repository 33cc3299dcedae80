// SPDX-License-Identifier: MIT
/*
 * The find_prev_region bench.  A free list's region bitmap starts half full;
 * each step toggles a random region: a region's first block arriving asks
 * find_prev_region where to link it (as add_to_freelist does) and sets the
 * bit, a region's last block leaving clears it.  The word searches are
 * counted in a first pass and the time taken in a second, uncounted pass
 * over the same steps.
 */
#include <stdlib.h>
#include <time.h>

#include "bench_bitmap.h"
#include "core/region_bitmap.h"

static const uint64_t bb_sizes[BITMAP_BENCH_SIZES] = { 64, 256, 4096, 262144 };

#define STEPS	(1u << 20)

static uint64_t bb_next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double bb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* One step: a region's first block arrives (set, after the search) or its last leaves. */
static inline long bb_step(struct region_bitmap *b, uint64_t id, unsigned int *searches)
{
	long prev = 0;

	if (region_bit_test(b, id)) {
		clear_region_bit(b, id);
	} else {
		prev = __find_prev_region(b, id, searches);
		set_region_bit(b, id);
	}
	return prev;
}

static void fill_half(struct region_bitmap *b, uint64_t *mem, uint64_t words, uint64_t nbits)
{
	for (uint64_t i = 0; i < words; i++)
		mem[i] = 0;
	region_bitmap_init(b, mem, nbits);
	for (uint64_t i = 0; i < nbits; i += 2)
		set_region_bit(b, i);
}

static int bench_one(uint64_t nbits, uint64_t seed, struct bitmap_bench *r)
{
	uint64_t words = region_bitmap_words(nbits, &r->levels);
	uint64_t *mem = calloc(words, sizeof(*mem));
	uint32_t *ids = malloc(STEPS * sizeof(*ids));
	struct region_bitmap b;
	uint64_t total = 0, inserts = 0, s = seed;
	long sink = 0;
	double t0;

	if (!mem || !ids) {
		free(mem);
		free(ids);
		return -1;
	}
	for (unsigned int i = 0; i < STEPS; i++)
		ids[i] = (uint32_t)(bb_next_rand(&s) % nbits);
	r->regions = nbits;
	r->max_searches = 0;
	fill_half(&b, mem, words, nbits);
	for (unsigned int i = 0; i < STEPS; i++) {
		unsigned int searches = 0;

		inserts += !region_bit_test(&b, ids[i]);
		sink += bb_step(&b, ids[i], &searches);
		total += searches;
		if (searches > r->max_searches)
			r->max_searches = searches;
	}
	r->insertions = inserts;
	r->mean_searches = inserts ? (double)total / (double)inserts : 0;
	/* the same steps again from the same bitmap, timed, without counting */
	fill_half(&b, mem, words, nbits);
	t0 = bb_now_ns();
	for (unsigned int i = 0; i < STEPS; i++)
		sink += bb_step(&b, ids[i], NULL);
	r->ns = (bb_now_ns() - t0) / STEPS;
	r->checksum = (uint64_t)sink;
	free(mem);
	free(ids);
	return 0;
}

int bench_find_prev_region(uint64_t seed, struct bitmap_bench *out)
{
	for (unsigned int i = 0; i < BITMAP_BENCH_SIZES; i++)
		if (bench_one(bb_sizes[i], seed + i, &out[i]))
			return -1;
	return 0;
}
