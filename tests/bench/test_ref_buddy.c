// SPDX-License-Identifier: MIT
/*
 * ref-buddy correctness.  The benchmark's reference must be a correct buddy
 * allocator or its timings mean nothing, so this test drives it with random
 * alloc/free streams and, from outside, recounts its free lists against an
 * independent model of what is allocated:
 *   - every page is either on exactly one free block or in exactly one live
 *     allocation (no overlap, no leak);
 *   - free blocks are aligned, in range, on the list of their order, and
 *     only their head page carries REF_PG_BUDDY;
 *   - nr_free and free_pages agree with the walk;
 *   - no two free buddies of the same order are left unmerged;
 *   - an allocation fails only when no block of that order or above is free.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

/*
 * The test executables link core + io + sim but not the bench library, so
 * the reference allocator is compiled in here (it is one self-contained file).
 */
#include "../../bench/ref_buddy.c"

enum { PG_UNSEEN, PG_LIVE, PG_FREE };

struct model {
	struct ref_buddy *rb;
	uint64_t npages;
	uint8_t *live;		/* 1 where the model says the page is allocated */
	uint8_t *seen;		/* scratch for recount */
	uint64_t *blk_pfn;	/* live blocks */
	uint8_t *blk_order;
	uint64_t nr_blk;
	uint64_t live_pages;
	uint64_t rng;
};

static uint64_t rnd(struct model *md)
{
	/* xorshift64*: enough for picking ops; independent of the bench RNG. */
	md->rng ^= md->rng >> 12;
	md->rng ^= md->rng << 25;
	md->rng ^= md->rng >> 27;
	return md->rng * 2685821657736338717ull;
}

static void model_init(struct model *md, uint64_t npages, uint64_t seed)
{
	memset(md, 0, sizeof(*md));
	md->npages = npages;
	md->rb = ref_buddy_create(npages);
	REQUIRE(md->rb);
	md->live = calloc(npages, 1);
	md->seen = calloc(npages, 1);
	md->blk_pfn = calloc(npages, sizeof(*md->blk_pfn));
	md->blk_order = calloc(npages, 1);
	REQUIRE(md->live && md->seen && md->blk_pfn && md->blk_order);
	md->rng = seed * 0x9e3779b97f4a7c15ull + 1;
}

static void model_fini(struct model *md)
{
	ref_buddy_destroy(md->rb);
	free(md->live);
	free(md->seen);
	free(md->blk_pfn);
	free(md->blk_order);
}

/* Walk one free list; returns 0 on the first inconsistency. */
static int walk_list(struct model *md, unsigned int order, uint64_t *pages)
{
	const struct ref_buddy *rb = md->rb;
	uint32_t prev = REF_NIL, pfn;
	uint64_t n = 0, size = 1ull << order;

	for (pfn = rb->area[order].head; pfn != REF_NIL; pfn = rb->pages[pfn].next) {
		const struct ref_page *pg = &rb->pages[pfn];

		CHECK(pfn < md->npages);
		if (pfn >= md->npages || n > md->npages)
			return 0;
		CHECK(pg->flags & REF_PG_BUDDY);
		CHECK_EQ_U(pg->order, order);
		CHECK_EQ_U(pg->prev, prev);
		CHECK_EQ_U(pfn & (size - 1), 0);
		CHECK(pfn + size <= md->npages);
		for (uint64_t p = pfn; p < pfn + size && p < md->npages; p++) {
			if (md->seen[p] != PG_UNSEEN || md->live[p]) {
				CHECK(!"free block overlaps another block");
				return 0;
			}
			md->seen[p] = PG_FREE;
		}
		prev = pfn;
		n++;
	}
	CHECK_EQ_U(n, rb->area[order].nr_free);
	*pages += n * size;
	return 1;
}

/* True when the free block (pfn, order) has a free buddy of the same order. */
static int unmerged(const struct model *md, uint64_t pfn, unsigned int order)
{
	uint64_t buddy = pfn ^ (1ull << order);
	uint64_t size = 1ull << order;

	if (order == REF_MAX_ORDER - 1 || buddy + size > md->npages)
		return 0;
	/* buddy wholly free per the recount and headed as one block of @order */
	for (uint64_t p = buddy; p < buddy + size; p++)
		if (md->seen[p] != PG_FREE)
			return 0;
	return (md->rb->pages[buddy].flags & REF_PG_BUDDY) &&
	       md->rb->pages[buddy].order == order;
}

static void recount(struct model *md)
{
	const struct ref_buddy *rb = md->rb;
	uint64_t free_pages = 0, heads = 0;
	unsigned int order;

	memset(md->seen, PG_UNSEEN, md->npages);
	for (order = 0; order < REF_MAX_ORDER; order++)
		if (!walk_list(md, order, &free_pages))
			return;

	CHECK_EQ_U(free_pages, rb->free_pages);
	CHECK_EQ_U(free_pages, ref_buddy_free_pages(rb));
	CHECK_EQ_U(free_pages + md->live_pages, md->npages);

	for (uint64_t p = 0; p < md->npages; p++) {
		/* every page accounted for exactly once */
		CHECK(md->live[p] ? md->seen[p] == PG_UNSEEN : md->seen[p] == PG_FREE);
		if (!(rb->pages[p].flags & REF_PG_BUDDY))
			continue;
		heads++;
		if (md->seen[p] != PG_FREE || md->live[p]) {
			CHECK(!"REF_PG_BUDDY on a page that is not free");
			continue;
		}
		if (unmerged(md, p, rb->pages[p].order)) {
			fprintf(stderr, "unmerged buddies at pfn %llu order %u\n",
				(unsigned long long)p, rb->pages[p].order);
			CHECK(!"free buddies left unmerged");
		}
	}
	/* stale BUDDY flags inside blocks would make a later merge wrong */
	{
		uint64_t listed = 0;

		for (order = 0; order < REF_MAX_ORDER; order++)
			listed += rb->area[order].nr_free;
		CHECK_EQ_U(heads, listed);
	}
}

/* After a failure at @order no free block of order >= @order may exist. */
static void check_failure(struct model *md, unsigned int order)
{
	for (unsigned int o = order; o < REF_MAX_ORDER; o++) {
		CHECK_EQ_U(md->rb->area[o].nr_free, 0);
		CHECK(md->rb->area[o].head == REF_NIL);
	}
}

/* The head of the lowest non-empty list of order >= @order, or REF_NIL. */
static uint32_t best_fit_head(const struct ref_buddy *rb, unsigned int order)
{
	for (unsigned int cur = order; cur < REF_MAX_ORDER; cur++)
		if (rb->area[cur].head != REF_NIL)
			return rb->area[cur].head;
	return REF_NIL;
}

static int do_alloc(struct model *md, unsigned int order)
{
	/* the header's policy: that list's first block, split down */
	uint32_t want = best_fit_head(md->rb, order);
	uint64_t pfn = ref_buddy_alloc(md->rb, order);
	uint64_t size = 1ull << order;

	if (pfn == REF_NO_PFN) {
		check_failure(md, order);
		return 0;
	}
	CHECK_EQ_U(pfn, want);
	CHECK(pfn + size <= md->npages);
	CHECK_EQ_U(pfn & (size - 1), 0);
	if (pfn + size > md->npages)
		return 0;
	for (uint64_t p = pfn; p < pfn + size; p++) {
		if (md->live[p]) {
			CHECK(!"allocation overlaps a live block");
			break;
		}
		md->live[p] = 1;
	}
	md->blk_pfn[md->nr_blk] = pfn;
	md->blk_order[md->nr_blk] = (uint8_t)order;
	md->nr_blk++;
	md->live_pages += size;
	return 1;
}

static void do_free(struct model *md, uint64_t idx)
{
	uint64_t pfn = md->blk_pfn[idx];
	unsigned int order = md->blk_order[idx];

	for (uint64_t p = pfn; p < pfn + (1ull << order); p++)
		md->live[p] = 0;
	ref_buddy_free(md->rb, pfn, order);
	md->live_pages -= 1ull << order;
	md->nr_blk--;
	md->blk_pfn[idx] = md->blk_pfn[md->nr_blk];
	md->blk_order[idx] = md->blk_order[md->nr_blk];
}

/* Orders skewed low, like real traffic, but every order gets exercised. */
static unsigned int pick_order(struct model *md)
{
	unsigned int order = 0;

	while (order < REF_MAX_ORDER - 1 && (rnd(md) & 1))
		order++;
	return order;
}

/* The boot layout: order-10 blocks then the remainder's binary digits. */
static void check_boot_layout(struct model *md, int fresh)
{
	uint64_t n = md->npages;

	for (unsigned int o = 0; o < REF_MAX_ORDER - 1; o++)
		CHECK_EQ_U(md->rb->area[o].nr_free, (n >> o) & 1);
	CHECK_EQ_U(md->rb->area[REF_MAX_ORDER - 1].nr_free, n >> (REF_MAX_ORDER - 1));
	/* at boot the lowest block is first: early allocations come from low pfns */
	if (fresh && n >= 1024)
		CHECK_EQ_U(md->rb->area[REF_MAX_ORDER - 1].head, 0);
}

static void test_random_stream(uint64_t npages, uint64_t seed, unsigned int nops,
			       unsigned int check_every)
{
	struct model md;

	model_init(&md, npages, seed);
	recount(&md);
	check_boot_layout(&md, 1);
	for (unsigned int i = 0; i < nops; i++) {
		/* drift between full and empty so both merging and failure happen */
		int phase_fill = (i / 2000) & 1;
		uint64_t r = rnd(&md) % 100;

		if (md.nr_blk && r < (phase_fill ? 30u : 70u))
			do_free(&md, rnd(&md) % md.nr_blk);
		else
			do_alloc(&md, pick_order(&md));
		if (i % check_every == 0)
			recount(&md);
	}
	recount(&md);
	while (md.nr_blk)
		do_free(&md, rnd(&md) % md.nr_blk);
	recount(&md);
	/* everything back: must be exactly the boot layout again */
	check_boot_layout(&md, 0);
	CHECK_EQ_U(ref_buddy_free_pages(md.rb), npages);
	model_fini(&md);
}

/* The textbook split: one order-0 allocation from an order-10 block. */
static void test_split_shape(void)
{
	struct model md;

	model_init(&md, 1024, 1);
	CHECK_EQ_U(ref_buddy_alloc(md.rb, 0), 0);
	for (unsigned int o = 0; o < REF_MAX_ORDER - 1; o++) {
		CHECK_EQ_U(md.rb->area[o].nr_free, 1);
		CHECK_EQ_U(md.rb->area[o].head, 1u << o);
	}
	CHECK_EQ_U(md.rb->area[REF_MAX_ORDER - 1].nr_free, 0);
	CHECK_EQ_U(ref_buddy_free_pages(md.rb), 1023);
	ref_buddy_free(md.rb, 0, 0);
	check_boot_layout(&md, 1);
	recount(&md);
	model_fini(&md);
}

/* Fill with order 0, free the odd pfns (50% fragmented), then the evens. */
static void test_fragment_and_heal(uint64_t npages)
{
	struct model md;
	uint64_t got = 0;

	model_init(&md, npages, 7);
	while (do_alloc(&md, 0))
		got++;
	CHECK_EQ_U(got, npages);
	CHECK_EQ_U(ref_buddy_free_pages(md.rb), 0);
	check_failure(&md, 0);
	recount(&md);

	/* model blocks are in allocation order; pick by pfn parity */
	for (uint64_t i = 0; i < md.nr_blk;) {
		if (md.blk_pfn[i] & 1)
			do_free(&md, i);
		else
			i++;
	}
	recount(&md);
	CHECK_EQ_U(md.rb->area[0].nr_free, npages / 2);
	CHECK_EQ_U(ref_buddy_alloc(md.rb, 1), REF_NO_PFN);	/* nothing merged */
	while (md.nr_blk)
		do_free(&md, md.nr_blk - 1);
	recount(&md);
	check_boot_layout(&md, 0);
	model_fini(&md);
}

static void test_limits(void)
{
	CHECK(ref_buddy_create(0) == NULL);
	CHECK(ref_buddy_create(REF_NIL) == NULL);
	CHECK_EQ_U(sizeof(struct ref_page), 16);
}

int main(void)
{
	static const uint64_t sizes[] = { 1, 3, 1000, 1024, 1025, 4096 + 512 + 7, 1u << 15 };

	test_limits();
	test_split_shape();
	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		test_random_stream(sizes[i], i + 1, 20000, 97);
		test_fragment_and_heal(sizes[i]);
	}
	/* a bigger zone, checked less often */
	test_random_stream(1u << 18, 42, 200000, 20011);
	return t_report("test_ref_buddy");
}
