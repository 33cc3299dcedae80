// SPDX-License-Identifier: MIT
/*
 * mpm_check: recount everything from scratch and compare with what the
 * allocator believes.  It walks every free list and pcp list (links,
 * membership, order, alignment), then every pfn of every zone (each present
 * page is covered exactly once by a free block, a pcp page or an allocated
 * block), and checks buddy merging, per-area, per-zone and per-region
 * counts, free regions, pageblock migratetypes and watermarks.  It reports
 * the first broken invariant with its values.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mempower_work.h"
#include "ralloc.h"

struct check {
	struct mpm_machine *m;
	char *msg;
	size_t len;
	uint64_t *region_free;		/* recount per region of the zone */
	uint64_t *region_present;	/* present pages per region (not holes) */
	uint64_t *region_managed;	/* present pages less the reserved ones */
	uint32_t *region_blocks;	/* sorted lists: blocks per region in one list */
	uint32_t *region_last;		/* sorted lists: each region's last block */
	uint64_t inner_owned;		/* owned inner pages of allocated blocks */
};

__attribute__((format(printf, 3, 4)))
static int bad(struct check *c, const struct zone *z, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (!c->msg || !c->len)
		return -1;
	if (z)
		n = snprintf(c->msg, c->len, "Node %u zone %s: ", z->node,
			     mpm_zone_name(z->type));
	if (n < 0 || (size_t)n >= c->len)
		return -1;
	va_start(ap, fmt);
	vsnprintf(c->msg + n, c->len - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Walk one list: links consistent, no cycle; calls @fn per entry. */
static int walk_list(struct check *c, const struct zone *z, uint32_t head,
		     const char *what, int (*fn)(struct check *, const struct zone *,
						  uint32_t, void *), void *arg,
		     uint64_t *count)
{
	const struct mpm_page *pg = c->m->pages;
	uint64_t n = 0;

	/* a list head is a sentinel entry past the pfns */
	if (head < c->m->nr_pfns || head >= c->m->nr_entries)
		return bad(c, z, "%s: head %u is not a sentinel entry", what, head);
	for (uint32_t p = pg[head].next, prev = head; p != head; prev = p, p = pg[p].next) {
		if (p >= c->m->nr_pfns)
			return bad(c, z, "%s: link to entry %u outside the page array", what, p);
		if (pg[p].prev != prev)
			return bad(c, z, "%s: pfn %llu has prev %u, expected %u", what,
				   (unsigned long long)idx_to_pfn(c->m, p), pg[p].prev, prev);
		if (++n > c->m->nr_pfns)
			return bad(c, z, "%s: list does not terminate", what);
		if (fn(c, z, p, arg))
			return -1;
	}
	*count = n;
	return 0;
}

struct free_entry_arg {
	unsigned int order;
	int mt;
};

/*
 * No free page, in a free block or on a pcp list, may still have an owner:
 * PG_owned (rmap.c).  Owner and index were in the page's link words, which
 * the free has overwritten with list links, so the message cannot name the
 * owner; it names the page.
 */
static int check_no_owner(struct check *c, const struct zone *z, uint32_t idx)
{
	const struct mpm_page *page = &c->m->pages[idx];

	if (!(READ_ONCE(page->flags) & PG_owned))
		return 0;
	return bad(c, z, "free pfn %llu is still marked owned (PG_owned)",
		   (unsigned long long)idx_to_pfn(c->m, idx));
}

static int check_free_entry(struct check *c, const struct zone *z, uint32_t p, void *arg)
{
	const struct free_entry_arg *a = arg;
	const struct mpm_page *page = &c->m->pages[p];
	uint64_t pfn = idx_to_pfn(c->m, p);

	if (check_no_owner(c, z, p))
		return -1;
	if (READ_ONCE(page->flags) != PG_buddy || READ_ONCE(page->order) != a->order ||
	    page->freepage_mt != a->mt || page->zone != z->id)
		return bad(c, z, "pfn %llu on free_list[order %u][%s] has flags %#x order %u mt %u zone %u",
			   (unsigned long long)pfn, a->order, mpm_migratetype_name(a->mt),
			   READ_ONCE(page->flags), READ_ONCE(page->order), page->freepage_mt, page->zone);
	/* set_buddy_hint(): __rmqueue_smallest prefetches the entry it names */
	if (page->private >= c->m->nr_entries)
		return bad(c, z, "free block pfn %llu: prefetch hint %u is not an entry of the page array",
			   (unsigned long long)pfn, page->private);
	if (pfn & ((1ull << a->order) - 1))
		return bad(c, z, "free block pfn %llu misaligned for order %u",
			   (unsigned long long)pfn, a->order);
	if (pfn + (1ull << a->order) > zone_end_pfn(z))
		return bad(c, z, "free block pfn %llu order %u runs past the zone end %llu",
			   (unsigned long long)pfn, a->order,
			   (unsigned long long)zone_end_pfn(z));
	return 0;
}

static int check_pcp_entry(struct check *c, const struct zone *z, uint32_t p, void *arg)
{
	int list_mt = *(const int *)arg;
	const struct mpm_page *page = &c->m->pages[p];

	if (check_no_owner(c, z, p))
		return -1;
	/* the pcp paths take an entry's order as 0 without looking */
	if (READ_ONCE(page->flags) != PG_pcp || READ_ONCE(page->order) || page->zone != z->id)
		return bad(c, z, "pfn %llu on a pcp list has flags %#x order %u zone %u",
			   (unsigned long long)idx_to_pfn(c->m, p), READ_ONCE(page->flags),
			   READ_ONCE(page->order), page->zone);
	if (page->freepage_mt != list_mt &&
	    !(list_mt == MIGRATE_MOVABLE && page->freepage_mt >= MIGRATE_PCPTYPES))
		return bad(c, z, "pfn %llu on pcp list %s has freepage migratetype %s",
			   (unsigned long long)idx_to_pfn(c->m, p),
			   mpm_migratetype_name(list_mt),
			   mpm_migratetype_name(page->freepage_mt));
	return 0;
}

/*
 * high and batch are set once, from the zone's managed pages
 * (setup_zone_pageset), and decide every refill and drain: batch 0 would
 * refill nothing, a negative one would move the whole zone to one list.
 */
static int check_pcp_batch(struct check *c, const struct zone *z, unsigned int cpu,
			   const struct per_cpu_pages *pcp)
{
	int batch = zone_batchsize(z);

	if (pcp->high != 6 * batch || pcp->batch != (batch > 1 ? batch : 1))
		return bad(c, z, "cpu %u pcp high %d batch %d, the zone's size gives %d and %d",
			   cpu, pcp->high, pcp->batch, 6 * batch, batch > 1 ? batch : 1);
	return 0;
}

/* The order-0 hint rings (freelist.h) name entries that are prefetched. */
static int check_hint_rings(struct check *c, const struct zone *z)
{
	for (int mt = 0; mt < MIGRATE_TYPES; mt++)
		for (unsigned int i = 0; i < BUDDY_HINT_RING; i++)
			if (z->hint_ring[mt].slot[i] >= c->m->nr_entries)
				return bad(c, z, "%s hint ring slot %u is %u, not an entry of the page array",
					   mpm_migratetype_name(mt), i, z->hint_ring[mt].slot[i]);
	return 0;
}

static int check_lists(struct check *c, const struct zone *z, uint64_t *free_lists,
		       uint64_t *pcp_pages)
{
	uint64_t n = 0;

	uint64_t per_mt[MIGRATE_TYPES] = { 0 };

	*free_lists = 0;
	for (unsigned int o = 0; o < MAX_ORDER; o++) {
		uint64_t blocks = 0;

		for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
			struct free_entry_arg a = { o, mt };

			if (walk_list(c, z, z->free_area[o].free_list[mt], "free_list",
				      check_free_entry, &a, &n))
				return -1;
			blocks += n;
			per_mt[mt] += n << o;
		}
		if (blocks != READ_ONCE(((struct zone *)z)->free_area[o].nr_free))
			return bad(c, z, "free_area[%u].nr_free is %lu, lists hold %llu blocks",
				   o, READ_ONCE(((struct zone *)z)->free_area[o].nr_free),
				   (unsigned long long)blocks);
		*free_lists += blocks << o;
	}
	for (int mt = 0; mt < MIGRATE_TYPES; mt++)
		if (per_mt[mt] != (uint64_t)READ_ONCE(((struct zone *)z)->nr_free_mt[mt]))
			return bad(c, z, "%s free pages counted %ld, lists hold %llu",
				   mpm_migratetype_name(mt),
				   READ_ONCE(((struct zone *)z)->nr_free_mt[mt]),
				   (unsigned long long)per_mt[mt]);
	*pcp_pages = 0;
	for (unsigned int cpu = 0; cpu < c->m->nr_cpus; cpu++) {
		const struct per_cpu_pages *pcp = &z->pageset[cpu];
		uint64_t total = 0;

		for (int mt = 0; mt < MIGRATE_PCPTYPES; mt++) {
			if (walk_list(c, z, pcp->lists[mt], "pcp list", check_pcp_entry,
				      &mt, &n))
				return -1;
			total += n;
		}
		if (total != (uint64_t)pcp->count)
			return bad(c, z, "cpu %u pcp count is %d, lists hold %llu pages",
				   cpu, pcp->count, (unsigned long long)total);
		/*
		 * A free drains one batch once count reaches high; a refill
		 * adds up to batch to a list that is empty.  Refills of the
		 * other types' empty lists can follow one another with no free
		 * in between (3.12 does not check count there), so each of the
		 * MIGRATE_PCPTYPES lists may add a batch on top of high - 1.
		 */
		if (check_pcp_batch(c, z, cpu, pcp))
			return -1;
		if (pcp->count > pcp->high - 1 + MIGRATE_PCPTYPES * pcp->batch && pcp->high)
			return bad(c, z, "cpu %u pcp count %d above high %d - 1 + %d x batch %d",
				   cpu, pcp->count, pcp->high, MIGRATE_PCPTYPES, pcp->batch);
		if (pcp->stat_threshold != z->stat_threshold)
			return bad(c, z, "cpu %u stat threshold %ld, the zone's %d",
				   cpu, pcp->stat_threshold, z->stat_threshold);
		/* the fair-zone differential folds before passing either bound */
		if (pcp->alloc_batch_diff < -pcp->stat_threshold ||
		    pcp->alloc_batch_diff > pcp->stat_threshold)
			return bad(c, z, "cpu %u NR_ALLOC_BATCH differential %ld outside [-%ld, %ld]",
				   cpu, pcp->alloc_batch_diff, pcp->stat_threshold,
				   pcp->stat_threshold);
		*pcp_pages += total;
	}
	return 0;
}

/*
 * Each zone region's span is its node region's, cut at the zone's edges
 * (init_zone_regions); the walks below index regions by pfn through it.
 */
static int check_region_spans(struct check *c, const struct zone *z)
{
	uint64_t end = zone_end_pfn(z);
	/*
	 * The node region of the zone's first page, from the pfn: the zone
	 * keeps it in 32 bits (first_node_region), which every lookup uses
	 * modulo 2^32, but a zone past 2^32 regions from its base overflows it.
	 */
	uint64_t first = (z->zone_start_pfn - z->region_base_pfn) >> c->m->region_shift;

	for (unsigned int r = 0; r < z->nr_regions; r++) {
		uint64_t rs = z->region_base_pfn + ((first + r) << c->m->region_shift);
		uint64_t re = rs + (1ull << c->m->region_shift);

		rs = rs > z->zone_start_pfn ? rs : z->zone_start_pfn;
		re = re < end ? re : end;
		if (z->regions[r].start_pfn != rs || z->regions[r].end_pfn != re)
			return bad(c, z, "region %u spans pfns [%llu, %llu), its place says [%llu, %llu)",
				   r, (unsigned long long)z->regions[r].start_pfn,
				   (unsigned long long)z->regions[r].end_pfn,
				   (unsigned long long)rs, (unsigned long long)re);
	}
	return 0;
}

/* Add the pages of a free block to the per-region recount. */
static void recount_region(struct check *c, const struct zone *z, uint64_t pfn,
			   unsigned int order)
{
	uint64_t end = pfn + (1ull << order);

	/* check_region_spans: every region ends above its first pfn */
	while (pfn < end) {
		unsigned int rid = pfn_zone_region_id(c->m, z, pfn);
		uint64_t stop = z->regions[rid].end_pfn < end ? z->regions[rid].end_pfn : end;

		c->region_free[rid] += stop - pfn;
		pfn = stop;
	}
}

/* A page present in the zone (not a hole): @managed unless memblock-reserved. */
static void recount_present(struct check *c, const struct zone *z, uint64_t pfn,
			    uint64_t nr, bool managed)
{
	unsigned int rid = pfn_zone_region_id(c->m, z, pfn);
	uint64_t stop = pfn + nr;

	for (; pfn < stop; rid++) {
		uint64_t end = z->regions[rid].end_pfn < stop ? z->regions[rid].end_pfn : stop;

		c->region_present[rid] += end - pfn;
		if (managed)
			c->region_managed[rid] += end - pfn;
		pfn = end;
	}
}

/*
 * The inner pages of a block are plain present pages of the same zone; an
 * allocated block's may be owned (@owned: PG_owned allowed), a free
 * block's may not (check_no_owner names that damage).
 */
static int check_block_body(struct check *c, const struct zone *z, uint64_t pfn,
			    unsigned int order, const char *what, bool owned)
{
	uint8_t allowed = owned ? PG_owned : 0;

	for (uint64_t p = pfn + 1; p < pfn + (1ull << order); p++) {
		uint32_t idx = pfn_to_idx(c->m, p);
		const struct mpm_page *page = &c->m->pages[idx];

		if (!owned && check_no_owner(c, z, idx))
			return -1;
		if ((READ_ONCE(page->flags) & ~allowed) || page->zone != z->id)
			return bad(c, z, "%s at pfn %llu order %u overlaps pfn %llu (flags %#x)",
				   what, (unsigned long long)pfn, order,
				   (unsigned long long)p, READ_ONCE(page->flags));
		if (READ_ONCE(page->flags) & PG_owned) {
			if (!READ_LINK_ONCE(page->next))
				return bad(c, z, "inner pfn %llu of the block at pfn %llu is marked owned (PG_owned) with no owner",
					   (unsigned long long)p, (unsigned long long)pfn);
			c->inner_owned++;
		}
	}
	return 0;
}

static int check_buddy_merged(struct check *c, const struct zone *z, uint64_t pfn,
			      unsigned int order)
{
	const struct mpm_page *buddy;

	if (order >= MAX_ORDER - 1)
		return 0;
	buddy = &c->m->pages[pfn_to_idx(c->m, pfn ^ (1ull << order))];
	if ((READ_ONCE(buddy->flags) & PG_buddy) && READ_ONCE(buddy->order) == order && buddy->zone == z->id)
		return bad(c, z, "free buddies pfn %llu and %llu of order %u left unmerged",
			   (unsigned long long)pfn,
			   (unsigned long long)(pfn ^ (1ull << order)), order);
	return 0;
}

struct walk_totals {
	uint64_t free, pcp, alloc, present;
};

static int walk_pfns(struct check *c, const struct zone *z, struct walk_totals *t)
{
	uint64_t pfn = z->zone_start_pfn, end = zone_end_pfn(z);

	while (pfn < end) {
		const struct mpm_page *page = &c->m->pages[pfn_to_idx(c->m, pfn)];
		unsigned int order = READ_ONCE(page->order);

		if (page->zone != z->id)
			return bad(c, z, "pfn %llu has zone %u", (unsigned long long)pfn,
				   page->zone);
		switch (READ_ONCE(page->flags)) {
		case PG_reserved:
			recount_present(c, z, pfn, 1, false);
			t->present++;
			/* fall through */
		case PG_reserved | PG_nomem:
			pfn++;
			continue;
		case PG_buddy:
			if (order >= MAX_ORDER || pfn & ((1ull << order) - 1) ||
			    pfn + (1ull << order) > end)
				return bad(c, z, "free block pfn %llu order %u misplaced",
					   (unsigned long long)pfn, order);
			if (check_block_body(c, z, pfn, order, "free block", false) ||
			    check_buddy_merged(c, z, pfn, order))
				return -1;
			recount_region(c, z, pfn, order);
			t->free += 1ull << order;
			break;
		case PG_pcp:
			order = 0;
			t->pcp++;
			break;
		case PG_alloc | PG_owned:
			if (!READ_LINK_ONCE(page->next))
				return bad(c, z, "allocated pfn %llu is marked owned (PG_owned) with no owner",
					   (unsigned long long)pfn);
			/* fall through */
		case PG_alloc:
			if (order >= MAX_ORDER || pfn & ((1ull << order) - 1) ||
			    pfn + (1ull << order) > end)
				return bad(c, z, "allocated block pfn %llu order %u misplaced",
					   (unsigned long long)pfn, order);
			if (check_block_body(c, z, pfn, order, "allocated block", true))
				return -1;
			t->alloc += 1ull << order;
			break;
		default:
			return bad(c, z, "pfn %llu (flags %#x) is neither free, on a pcp list nor allocated",
				   (unsigned long long)pfn, READ_ONCE(page->flags));
		}
		recount_present(c, z, pfn, 1ull << order, true);
		t->present += 1ull << order;
		pfn += 1ull << order;
	}
	return 0;
}

static int check_regions(struct check *c, const struct zone *z)
{
	unsigned int free_regions = 0;

	for (unsigned int r = 0; r < z->nr_regions; r++) {
		const struct zone_mem_region *reg = &z->regions[r];

		/* present_pages decides whether a region is free (region.h) */
		if (c->region_present[r] != reg->present_pages ||
		    c->region_managed[r] != reg->managed_pages)
			return bad(c, z, "region %u present %llu managed %llu, recount %llu and %llu", r,
				   (unsigned long long)reg->present_pages,
				   (unsigned long long)reg->managed_pages,
				   (unsigned long long)c->region_present[r],
				   (unsigned long long)c->region_managed[r]);

		if (c->region_free[r] != reg->nr_free)
			return bad(c, z, "region %u nr_free is %llu, recount %llu", r,
				   (unsigned long long)reg->nr_free,
				   (unsigned long long)c->region_free[r]);
		if (reg->nr_free > reg->present_pages)
			return bad(c, z, "region %u nr_free %llu exceeds present %llu", r,
				   (unsigned long long)reg->nr_free,
				   (unsigned long long)reg->present_pages);
		free_regions += reg->present_pages && reg->nr_free == reg->present_pages;
	}
	if (free_regions != READ_ONCE(((struct zone *)z)->free_regions))
		return bad(c, z, "free_regions is %u, recount %u",
			   READ_ONCE(((struct zone *)z)->free_regions), free_regions);
	return 0;
}

static int check_pageblocks(struct check *c, const struct zone *z)
{
	unsigned long nr = pageblock_nr_pages(c->m);
	int reserve = 0;

	for (uint64_t pfn = z->pageblock_base_pfn; pfn < zone_end_pfn(z); pfn += nr) {
		int mt = get_pageblock_migratetype(c->m, z, pfn);

		if (mt >= MIGRATE_TYPES)
			return bad(c, z, "pageblock at pfn %llu has migratetype %d",
				   (unsigned long long)pfn, mt);
		reserve += mt == MIGRATE_RESERVE;
	}
	if (reserve > 2)
		return bad(c, z, "%d MIGRATE_RESERVE pageblocks (at most 2)", reserve);
	return 0;
}

/*
 * The bitmap tree (region_bitmap.h) named @what: as many levels as the
 * zone's regions need, no bit past the last region or word, and each bit
 * of a level says whether its word below is non-zero.
 */
static int check_region_bitmap(struct check *c, const struct zone *z,
			       const struct region_bitmap *b, const char *what)
{
	uint64_t bits = z->nr_regions ? z->nr_regions : 1;
	unsigned int levels;

	region_bitmap_words(z->nr_regions, &levels);
	if (b->levels != levels)
		return bad(c, z, "%s: bitmap of %u levels, %u regions need %u",
			   what, b->levels, z->nr_regions, levels);
	for (unsigned int l = 0; l < b->levels; l++) {
		uint64_t words = (bits + 63) / 64;

		if (bits % 64 && b->level[l][words - 1] >> (bits % 64))
			return bad(c, z, "%s: level %u bitmap has bits beyond %llu",
				   what, l, (unsigned long long)bits);
		for (uint64_t w = 0; l + 1 < b->levels && w < words; w++) {
			int up = (int)((b->level[l + 1][w / 64] >> (w % 64)) & 1);

			if (up != (b->level[l][w] != 0))
				return bad(c, z, "%s: level %u bit %llu is %d, word below %s",
					   what, l + 1, (unsigned long long)w, up,
					   b->level[l][w] ? "non-zero" : "zero");
		}
		bits = words;
	}
	return 0;
}

/* The first pfn in @z of the MAX_ORDER-1 window that holds @pfn. */
static uint64_t max_order_window(const struct zone *z, uint64_t pfn)
{
	uint64_t first = pfn & ~((1ull << (MAX_ORDER - 1)) - 1);

	return first < z->zone_start_pfn ? z->zone_start_pfn : first;
}

/*
 * Region-sorted free lists (sorted.h): blocks in non-decreasing region
 * order, every mem_region_list's count and last block, the bitmap tree and
 * next_region agree with a walk of the list.
 */
static int check_sorted_list(struct check *c, const struct zone *z, unsigned int o, int mt)
{
	const struct sorted_free_lists *s = z->sorted;
	const struct free_list_regions *fl = &s->fl[o][mt];
	const struct mpm_page *pg = c->m->pages;
	uint32_t head = z->free_area[o].free_list[mt], prev_rid = 0;
	uint32_t next_region = NO_REGION;

	memset(c->region_blocks, 0, z->nr_regions * sizeof(*c->region_blocks));
	for (uint32_t p = pg[head].next; p != head; p = pg[p].next) {
		uint64_t pfn = idx_to_pfn(c->m, p);
		/* the head page's region, in every policy */
		uint32_t rid = pfn_zone_region_id(c->m, z, pfn);

		if (rid != block_region(s, p))
			return bad(c, z, "block_region of pfn %llu is %u, its region by the rule %u",
				   (unsigned long long)pfn, block_region(s, p), rid);
		/* a held region's own windows are all held: a piece on a list is another's */
		if (z->ralloc && z->ralloc->region[rid].nr_free &&
		    pfn_zone_region_id(c->m, z, max_order_window(z, pfn)) == rid)
			return bad(c, z, "held region %u: pfn %llu of its own MAX_ORDER-1 window is on free_list[%u][%s]",
				   rid, (unsigned long long)pfn, o, mpm_migratetype_name(mt));
		if (next_region == NO_REGION)
			next_region = rid;
		else if (rid < prev_rid)
			return bad(c, z, "free_list[%u][%s] not sorted: region %u after region %u at pfn %llu",
				   o, mpm_migratetype_name(mt), rid, prev_rid,
				   (unsigned long long)idx_to_pfn(c->m, p));
		c->region_blocks[rid]++;
		c->region_last[rid] = p;
		prev_rid = rid;
	}
	if (s->next_region[mt][o] != next_region)
		return bad(c, z, "free_list[%u][%s] next_region is %d, head block in region %d",
			   o, mpm_migratetype_name(mt), (int)s->next_region[mt][o], (int)next_region);
	for (unsigned int r = 0; r < z->nr_regions; r++) {
		const struct mem_region_list *mr = mr_list_of(s, o, mt, r);
		uint32_t last = c->region_blocks[r] ? c->region_last[r] : NO_BLOCK;

		if (mr->nr_free != c->region_blocks[r] || mr->page_block != last)
			return bad(c, z, "free_list[%u][%s] region %u: nr_free %u page_block %d, list has %u blocks, last %d",
				   o, mpm_migratetype_name(mt), r, mr->nr_free, (int)mr->page_block,
				   c->region_blocks[r], (int)last);
		if (region_bit_test(&fl->map, r) != (c->region_blocks[r] != 0))
			return bad(c, z, "free_list[%u][%s] region %u: bitmap bit %d, %u blocks",
				   o, mpm_migratetype_name(mt), r, region_bit_test(&fl->map, r),
				   c->region_blocks[r]);
	}
	{
		char what[48];

		snprintf(what, sizeof(what), "free_list[%u][%s]", o, mpm_migratetype_name(mt));
		return check_region_bitmap(c, z, &fl->map, what);
	}
}

/* bias_order against a scan of next_region, as region_bias would do it. */
static int check_bias_order(struct check *c, const struct zone *z, int mt)
{
	const struct sorted_free_lists *s = z->sorted;

	/* refresh_bias_order runs from bias_stale down: it must be an order, or -1 */
	if (s->bias_stale[mt] < -1 || s->bias_stale[mt] >= MAX_ORDER)
		return bad(c, z, "%s bias_stale is %d, not an order or -1",
			   mpm_migratetype_name(mt), s->bias_stale[mt]);
	/* orders up to bias_stale are refreshed when an allocation needs them */
	for (unsigned int o = (unsigned int)(s->bias_stale[mt] + 1); o < MAX_ORDER; o++) {
		unsigned int best = o;

		for (unsigned int k = o + 1; k < MAX_ORDER; k++)
			if (s->next_region[mt][k] < s->next_region[mt][best])
				best = k;
		if (s->bias_order[mt][o] != best)
			return bad(c, z, "%s bias_order[%u] is %u, next_region says %u",
				   mpm_migratetype_name(mt), o, s->bias_order[mt][o], best);
	}
	return 0;
}

/* Whether the pageblocks of the MAX_ORDER-1 block at @pfn are all @mt. */
static bool block_pageblocks_are(const struct check *c, const struct zone *z, uint64_t pfn,
				 int mt)
{
	uint64_t per_block = 1ull << (MAX_ORDER - 1 - c->m->pageblock_order);
	unsigned long first = pfn_to_bitidx(c->m, z, pfn);

	for (uint64_t i = 0; i < per_block; i++)
		if (READ_ONCE(z->pageblock_flags[first + i]) != mt)
			return false;
	return true;
}

/*
 * A region's cached pageblock type (ra_region.pb_mt) is what its blocks'
 * pageblocks hold: claim_region_blocks skips its stores on that word.  The
 * blocks are the held ones, or the contiguous run of a region not held; a
 * sparse region not held is not checked (its blocks are known only held).
 */
static int check_pb_mt(struct check *c, const struct zone *z, uint32_t r)
{
	const struct ra_region *rr = &z->ralloc->region[r];
	const struct mpm_page *pg = c->m->pages;
	uint64_t pfn = 0;
	bool ok = true;

	if (rr->pb_mt == PB_MT_UNKNOWN || !rr->nr_blocks)
		return 0;
	if (rr->nr_free)
		for (uint32_t p = pg[rr->list].next; ok && p != rr->list; p = pg[p].next)
			ok = block_pageblocks_are(c, z, pfn = idx_to_pfn(c->m, p), rr->pb_mt);
	else if (!rr->sparse)
		for (uint32_t b = 0; ok && b < rr->nr_blocks; b++)
			ok = block_pageblocks_are(c, z,
						  pfn = rr->first_block + ((uint64_t)b << (MAX_ORDER - 1)),
						  rr->pb_mt);
	return ok ? 0 : bad(c, z, "region %u: cached pageblock type %s, but the block at pfn %llu has another",
			    r, mpm_migratetype_name(rr->pb_mt), (unsigned long long)pfn);
}

/* One held region's list: MAX_ORDER-1 blocks of the region, of its type. */
static int check_held_list(struct check *c, const struct zone *z, uint32_t r, uint32_t *n)
{
	const struct ra_region *rr = &z->ralloc->region[r];
	const struct mpm_page *pg = c->m->pages;
	uint32_t list = rr->list;

	*n = 0;
	if (list < c->m->nr_pfns || list >= c->m->nr_entries)
		return bad(c, z, "region allocator list of region %u: head %u is not a sentinel entry",
			   r, list);
	for (uint32_t p = pg[list].next; rr->nr_free && p != list; p = pg[p].next) {
		if (p >= c->m->nr_pfns || pg[p].next >= c->m->nr_entries ||
		    pg[pg[p].next].prev != p)
			return bad(c, z, "region allocator list of region %u is broken at entry %u", r, p);
		if (READ_ONCE(pg[p].flags) != PG_buddy || READ_ONCE(pg[p].order) != MAX_ORDER - 1 ||
		    pg[p].zone != z->id || block_region(z->sorted, p) != r)
			return bad(c, z, "region allocator region %u holds pfn %llu (flags %#x order %u)",
				   r, (unsigned long long)idx_to_pfn(c->m, p),
				   READ_ONCE(pg[p].flags), READ_ONCE(pg[p].order));
		if (pg[p].freepage_mt != rr->mt)
			return bad(c, z, "held region %u: pfn %llu has freepage migratetype %s, region %s",
				   r, (unsigned long long)idx_to_pfn(c->m, p),
				   mpm_migratetype_name(pg[p].freepage_mt),
				   mpm_migratetype_name(rr->mt));
		if (++*n > rr->nr_free)
			return bad(c, z, "region allocator region %u: nr_free %u, its list holds more",
				   r, rr->nr_free);
	}
	if (*n != rr->nr_free)
		return bad(c, z, "region allocator region %u: nr_free %u, list holds %u",
			   r, rr->nr_free, *n);
	return 0;
}

/*
 * Without ralloc_bias the held regions form a stack, latest last, whose
 * top is handed out next: each held region exactly once.
 */
static int check_ralloc_stack(struct check *c, const struct zone *z, uint64_t held)
{
	const struct region_allocator *ra = z->ralloc;
	bool bias = c->m->features & MPM_FEATURE_RALLOC_BIAS;

	if (ra->nr_stack != (bias ? 0 : held))
		return bad(c, z, "region allocator stack holds %u regions, %llu held%s",
			   ra->nr_stack, (unsigned long long)held, bias ? " (ralloc_bias: none)" : "");
	memset(c->region_blocks, 0, z->nr_regions * sizeof(*c->region_blocks));
	for (uint32_t i = 0; i < ra->nr_stack; i++) {
		uint32_t r = ra->stack[i];

		if (r >= z->nr_regions || !ra->region[r].nr_free || c->region_blocks[r]++)
			return bad(c, z, "region allocator stack entry %u is region %u: %s", i, r,
				   r >= z->nr_regions ? "no such region" :
				   !ra->region[r].nr_free ? "not held" : "held twice");
	}
	return 0;
}

/*
 * The region allocator (ralloc.h): each held region's list holds exactly
 * its nr_free MAX_ORDER-1 blocks of that region, which are all of the
 * region's blocks (as ra_region_geometry counts them); no MAX_ORDER-1 block
 * headed in the region is left in a buddy list, and a smaller one only as
 * a piece of the straddling block headed in the region below
 * (check_sorted_list); the mask, the stack and the page count agree, and
 * next_region is the lowest held region (ralloc_bias) or the latest
 * returned.  Uses c->region_blocks as scratch.
 */
static int check_ralloc(struct check *c, const struct zone *z)
{
	const struct region_allocator *ra = z->ralloc;
	uint64_t pages = 0, held = 0;
	long expect;

	for (uint32_t r = 0; r < z->nr_regions; r++) {
		const struct ra_region *rr = &ra->region[r];
		struct ra_region g = { 0 };
		uint32_t n;

		/* boot's count (region_allocator_init), redone from the page flags */
		ra_region_geometry(c->m, z, r, &g);
		if (rr->first_block != g.first_block || rr->nr_blocks != g.nr_blocks ||
		    rr->sparse != g.sparse)
			return bad(c, z, "region allocator region %u: %u blocks from pfn %llu%s, the zone has %u from pfn %llu%s",
				   r, rr->nr_blocks, (unsigned long long)rr->first_block,
				   rr->sparse ? " (sparse)" : "", g.nr_blocks,
				   (unsigned long long)g.first_block, g.sparse ? " (sparse)" : "");
		if (check_held_list(c, z, r, &n))
			return -1;
		if (region_bit_test(&ra->mask, r) != (n != 0))
			return bad(c, z, "ralloc_mask bit of region %u is %d with %u blocks held",
				   r, region_bit_test(&ra->mask, r), n);
		if (check_pb_mt(c, z, r))
			return -1;
		if (!n)
			continue;
		held++;
		pages += (uint64_t)n << (MAX_ORDER - 1);
		if (n != rr->nr_blocks)
			return bad(c, z, "held region %u: %u of its %u MAX_ORDER-1 blocks held",
				   r, n, rr->nr_blocks);
		/*
		 * Its MAX_ORDER-1 blocks are all held, so none is on a list;
		 * pieces of a block headed in the region below that straddles
		 * into it may be, filed under it by their heads (block_region).
		 */
		for (int mt = 0; mt < MIGRATE_TYPES; mt++)
			if (mr_list_of(z->sorted, MAX_ORDER - 1, mt, r)->nr_free)
				return bad(c, z, "held region %u also has blocks on free_list[%u][%s]",
					   r, MAX_ORDER - 1, mpm_migratetype_name(mt));
	}
	if (check_region_bitmap(c, z, &ra->mask, "ralloc_mask"))
		return -1;
	if (pages != READ_ONCE(ra->nr_pages) || held != READ_ONCE(ra->nr_held))
		return bad(c, z, "region allocator holds %llu pages in %llu regions, counts say %llu in %u",
			   (unsigned long long)pages, (unsigned long long)held,
			   (unsigned long long)READ_ONCE(ra->nr_pages), READ_ONCE(ra->nr_held));
	if (check_ralloc_stack(c, z, held))
		return -1;
	expect = (c->m->features & MPM_FEATURE_RALLOC_BIAS) ? find_first_region(&ra->mask) :
		 ra->nr_stack ? (long)ra->stack[ra->nr_stack - 1] : -1;
	if (ra->next_region != expect)
		return bad(c, z, "region allocator next_region is %ld, expected %ld",
			   ra->next_region, expect);
	return 0;
}

/*
 * mempower_work (mempower_work.h): the mask tree is sound, and nr_queued,
 * which mpm_mempower_work_take() tests before reading the mask, counts its
 * bits.  Taken under the work's lock, inside the zone's as the free path
 * nests them.
 */
static int check_mempower_work(struct check *c, struct zone *z)
{
	struct mempower_work *w = z->mpw;
	uint64_t bits = 0;
	int ret;

	if (!w)
		return 0;
	spin_lock(&w->lock);
	ret = check_region_bitmap(c, z, &w->mask, "mempower_mask");
	for (uint32_t r = 0; !ret && r < z->nr_regions; r++)
		bits += (uint64_t)region_bit_test(&w->mask, r);
	if (!ret && bits != READ_ONCE(w->nr_queued))
		ret = bad(c, z, "mempower_work: %llu regions queued in the mask, nr_queued %u",
			  (unsigned long long)bits, READ_ONCE(w->nr_queued));
	spin_unlock(&w->lock);
	return ret;
}

static int check_sorted(struct check *c, const struct zone *z)
{
	for (unsigned int o = 0; o < MAX_ORDER; o++)
		for (int mt = 0; mt < MIGRATE_TYPES; mt++)
			if (check_sorted_list(c, z, o, mt))
				return -1;
	for (int mt = 0; mt < MIGRATE_TYPES; mt++)
		if (check_bias_order(c, z, mt))
			return -1;
	return 0;
}

/* The pfn walk's totals against the lists' and the zone's counters. */
static int check_totals(struct check *c, const struct zone *z, const struct walk_totals *t,
			uint64_t free_lists, uint64_t pcp_pages)
{
	uint64_t isolated;
	long allocated = 0;

	for (unsigned int cpu = 0; cpu < c->m->nr_cpus; cpu++)
		allocated += (long)(pcp_pgalloc(&z->pageset[cpu]) - pcp_pgfree(&z->pageset[cpu]));
	if (t->free != free_lists)
		return bad(c, z, "free blocks found by pfn walk hold %llu pages, free lists %llu",
			   (unsigned long long)t->free, (unsigned long long)free_lists);
	/*
	 * Free pages of isolated pageblocks are not NR_FREE_PAGES
	 * (__mod_zone_freepage_state skips MIGRATE_ISOLATE); check_lists()
	 * has recounted the ISOLATE lists against nr_free_mt.
	 */
	isolated = (uint64_t)READ_ONCE(((struct zone *)z)->nr_free_mt[MIGRATE_ISOLATE]);
	if (t->free - isolated != (uint64_t)READ_ONCE(((struct zone *)z)->vm_free_pages))
		return bad(c, z, "NR_FREE_PAGES is %ld, recount %llu (%llu isolated not counted)",
			   READ_ONCE(((struct zone *)z)->vm_free_pages),
			   (unsigned long long)(t->free - isolated),
			   (unsigned long long)isolated);
	if (t->pcp != pcp_pages)
		return bad(c, z, "pcp pages by pfn walk %llu, on lists %llu",
			   (unsigned long long)t->pcp, (unsigned long long)pcp_pages);
	if (t->alloc != (uint64_t)allocated)
		return bad(c, z, "allocated pages by pfn walk %llu, counters say %ld",
			   (unsigned long long)t->alloc, allocated);
	if (t->free + t->pcp + t->alloc != z->managed_pages)
		return bad(c, z, "free %llu + pcp %llu + allocated %llu != managed %llu",
			   (unsigned long long)t->free, (unsigned long long)t->pcp,
			   (unsigned long long)t->alloc, (unsigned long long)z->managed_pages);
	/* the zonelists and the watermarks were built from present_pages */
	if (t->present != z->present_pages)
		return bad(c, z, "present_pages is %llu, the pfn walk finds %llu",
			   (unsigned long long)z->present_pages, (unsigned long long)t->present);
	return 0;
}

/*
 * What boot set up and every allocation reads: the watermarks from
 * min_free_kbytes, the lowmem reserves, the vmstat threshold
 * (watermark.c computes them, for boot and for this check alike).
 */
static int check_setup(struct check *c, const struct zone *z)
{
	unsigned long wmark[NR_WMARK];

	zone_wmarks(c->m, z, wmark);
	if (memcmp(wmark, z->watermark, sizeof(wmark)))
		return bad(c, z, "watermarks %lu %lu %lu, min_free_kbytes %lu gives %lu %lu %lu",
			   z->watermark[WMARK_MIN], z->watermark[WMARK_LOW],
			   z->watermark[WMARK_HIGH], c->m->min_free_kbytes,
			   wmark[WMARK_MIN], wmark[WMARK_LOW], wmark[WMARK_HIGH]);
	for (int j = 0; j < MAX_NR_ZONES; j++)
		if (z->lowmem_reserve[j] != zone_lowmem_reserve(c->m, z, j))
			return bad(c, z, "lowmem_reserve[%d] is %ld, the zones' sizes give %ld",
				   j, z->lowmem_reserve[j], zone_lowmem_reserve(c->m, z, j));
	if (z->stat_threshold != calculate_normal_threshold(c->m, z))
		return bad(c, z, "stat threshold %d, the zone's size gives %d",
			   z->stat_threshold, calculate_normal_threshold(c->m, z));
	return 0;
}

static int check_zone(struct check *c, struct zone *z)
{
	struct walk_totals t = { 0 };
	uint64_t free_lists = 0, pcp_pages = 0;

	if (check_region_spans(c, z) || check_hint_rings(c, z) ||
	    check_lists(c, z, &free_lists, &pcp_pages) ||
	    (z->ralloc && check_ralloc(c, z)) || check_mempower_work(c, z))
		return -1;
	/* pages held by the region allocator are free pages outside the lists */
	if (z->ralloc)
		free_lists += READ_ONCE(z->ralloc->nr_pages);
	if (walk_pfns(c, z, &t) || check_totals(c, z, &t, free_lists, pcp_pages))
		return -1;
	if (check_setup(c, z) || check_regions(c, z) || (z->sorted && check_sorted(c, z)))
		return -1;
	return check_pageblocks(c, z);
}

/* The per-region recounts of one zone, zeroed. */
static int alloc_region_counts(struct check *c, unsigned int nr)
{
	size_t n = nr ? nr : 1;

	c->region_free = calloc(n, sizeof(*c->region_free));
	c->region_present = calloc(n, sizeof(*c->region_present));
	c->region_managed = calloc(n, sizeof(*c->region_managed));
	c->region_blocks = calloc(n, sizeof(*c->region_blocks));
	c->region_last = calloc(n, sizeof(*c->region_last));
	return c->region_free && c->region_present && c->region_managed &&
	       c->region_blocks && c->region_last ? 0 : -1;
}

static void free_region_counts(struct check *c)
{
	free(c->region_free);
	free(c->region_present);
	free(c->region_managed);
	free(c->region_blocks);
	free(c->region_last);
}

int mpm_check(struct mpm_machine *m, char *msg, size_t len)
{
	struct check c = { .m = m, .msg = msg, .len = len };
	int ret = 0;

	if (msg && len)
		msg[0] = '\0';
	for (unsigned int i = 0; i < m->nr_zones && !ret; i++) {
		struct zone *z = &m->zones[i];

		if (alloc_region_counts(&c, z->nr_regions)) {
			free_region_counts(&c);
			return bad(&c, z, "out of memory in the checker");
		}
		spin_lock(&z->lock);
		ret = check_zone(&c, z);
		spin_unlock(&z->lock);
		free_region_counts(&c);
	}
	if (!ret && c.inner_owned != atomic_load(&m->inner_owned))
		ret = bad(&c, NULL, "%llu inner pages have an owner, counted %llu",
			  (unsigned long long)c.inner_owned,
			  (unsigned long long)atomic_load(&m->inner_owned));
	return ret;
}
