/* SPDX-License-Identifier: MIT */
/*
 * The bitmap radix tree of patch 11 (v3 13/35, "A new optimized O(log n)
 * sorting algo to speed up buddy-sorting"): one bit per zone region that has
 * blocks in a free list, and above it one bit per non-zero word of the level
 * below, up to a single root word.  find_prev_region() -- the populated
 * region just below a given one, where add_to_freelist() links a region's
 * first block -- then costs one masked word search per level on the way up
 * and one __fls per level on the way down.
 *
 * The patch has exactly two levels (a root word over up to 64 leaf words:
 * 4096 regions, 2 TiB of 512 MiB regions).  Region counts here are sized at
 * run time, so the tree grows as many levels as it needs: ceil(log64(n)),
 * never a linear scan.  With 4096 regions or fewer it is the patch's tree.
 */
#ifndef MPM_CORE_REGION_BITMAP_H
#define MPM_CORE_REGION_BITMAP_H

#include <stdint.h>

#define RB_MAX_LEVELS	6	/* 64^6 bits: more than any uint32_t region id */

struct region_bitmap {
	unsigned int levels;			/* 1: one word covers all regions */
	uint64_t *level[RB_MAX_LEVELS];		/* [0]: leaf, one bit per region */
};

/* __fls: index of the highest set bit of a non-zero word (0-based). */
static inline unsigned int __fls64(uint64_t w)
{
	return 63u - (unsigned int)__builtin_clzll(w);
}

/* Words needed at each level for @nbits leaf bits; returns the total. */
static inline uint64_t region_bitmap_words(uint64_t nbits, unsigned int *levels)
{
	uint64_t total = 0, bits = nbits ? nbits : 1;
	unsigned int l = 0;

	do {
		uint64_t words = (bits + 63) / 64;

		total += words;
		bits = words;
		l++;
	} while (bits > 1);
	if (levels)
		*levels = l;
	return total;
}

/* Lay the levels out in @words (zeroed, region_bitmap_words() long). */
static inline void region_bitmap_init(struct region_bitmap *b, uint64_t *words,
				      uint64_t nbits)
{
	uint64_t bits = nbits ? nbits : 1;

	b->levels = 0;
	do {
		uint64_t nw = (bits + 63) / 64;

		b->level[b->levels++] = words;
		words += nw;
		bits = nw;
	} while (bits > 1);
}

/* set_region_bit: the region has its first block in the list. */
static inline void set_region_bit(struct region_bitmap *b, uint64_t id)
{
	if (b->levels == 1) {	/* up to 64 regions: one word */
		b->level[0][0] |= 1ull << id;
		return;
	}
	for (unsigned int l = 0; l < b->levels; l++) {
		uint64_t *w = &b->level[l][id / 64];
		uint64_t was = *w;

		*w = was | (1ull << (id % 64));
		if (was)	/* the parent bit is already set */
			return;
		id /= 64;
	}
}

/* clear_region_bit: the region's last block left the list. */
static inline void clear_region_bit(struct region_bitmap *b, uint64_t id)
{
	if (b->levels == 1) {
		b->level[0][0] &= ~(1ull << id);
		return;
	}
	for (unsigned int l = 0; l < b->levels; l++) {
		uint64_t *w = &b->level[l][id / 64];

		*w &= ~(1ull << (id % 64));
		if (*w)		/* the word is still non-zero: parents unchanged */
			return;
		id /= 64;
	}
}

static inline int region_bit_test(const struct region_bitmap *b, uint64_t id)
{
	return (int)((b->level[0][id / 64] >> (id % 64)) & 1);
}

/*
 * find_prev_region: the highest populated region below @id, or -1.  Climb
 * while the word holding @id has no set bit below it (one masked search per
 * level), then descend through known non-zero words.  @searches, if not
 * NULL, counts the masked word searches (the patch's "bitmask-searches").
 */
static inline long __find_prev_region(const struct region_bitmap *b, uint64_t id,
				      unsigned int *searches)
{
	unsigned int l;
	uint64_t pos = id;

	if (b->levels == 1 && !searches) {
		uint64_t w = b->level[0][0] & ((1ull << id) - 1);

		return w ? (long)__fls64(w) : -1;
	}
	for (l = 0; l < b->levels; l++) {
		uint64_t w = b->level[l][pos / 64] & ((1ull << (pos % 64)) - 1);

		if (searches)
			(*searches)++;
		if (w) {
			pos = (pos & ~63ull) + __fls64(w);
			goto descend;
		}
		pos /= 64;
	}
	return -1;
descend:
	while (l-- > 0)
		pos = pos * 64 + __fls64(b->level[l][pos]);
	return (long)pos;
}

static inline long find_prev_region(const struct region_bitmap *b, uint64_t id)
{
	return __find_prev_region(b, id, (unsigned int *)0);
}

/* find_first_bit: the lowest set region, or -1; one __ffs per level. */
static inline long find_first_region(const struct region_bitmap *b)
{
	uint64_t pos = 0;

	if (!b->level[b->levels - 1][0])
		return -1;
	for (unsigned int l = b->levels; l-- > 0;)
		pos = pos * 64 + (uint64_t)__builtin_ctzll(b->level[l][pos]);
	return (long)pos;
}

#endif /* MPM_CORE_REGION_BITMAP_H */
