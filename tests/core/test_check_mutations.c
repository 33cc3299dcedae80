// SPDX-License-Identifier: MIT
/*
 * mpm_check against damaged state.  Each case builds a fresh machine, runs a
 * few hundred mixed allocations and frees, checks that the state passes,
 * then damages one field (or a field and its copies) the way a bug could (a count off by one, a stale
 * bit, an index out of range, a cached value gone wrong) and requires
 * mpm_check to report it, naming the invariant.  The checker must also
 * survive damage that would crash or hang a walk: an order past
 * MAX_ORDER, a region span that does not advance, an index outside the
 * page array.  Each damaged field is restored before the machine is
 * destroyed.
 */
#include <string.h>

#include "freelist.h"
#include "machines.h"
#include "mempower_work.h"
#include "pcp.h"
#include "ralloc.h"

#include <mempower/rmap.h>

enum kind { MAINLINE, SORTED, SPLIT, SPLIT_NOBIAS, SPLIT_128, FULL };

static unsigned long policy(const char *name)
{
	unsigned long f = 0;

	REQUIRE(!mpm_policy_features(name, &f));
	return f;
}

/* One zone, 2 cpus; 4096-page absolute regions (8 or 16), or 128 of 1024. */
static struct mpm_machine *machine(enum kind k)
{
	struct test_machine t;

	tm_flat(&t, 0, k == MAINLINE || k == SORTED ? 65536 : k == SPLIT_128 ? 131072 : 32768, 2);
	t.spec.region_shift = k == SPLIT_128 ? 10 : 12;
	t.spec.region_absolute = true;
	if (k == SORTED)
		t.spec.features = policy("sorted");
	else if (k == FULL)
		t.spec.features = policy("full");
	else if (k != MAINLINE)
		t.spec.features = policy("split");
	if (k == SPLIT_NOBIAS)
		t.spec.features &= ~MPM_FEATURE_RALLOC_BIAS;
	return tm_create(&t);
}

#define NR_LIVE 330
static uint64_t live[NR_LIVE];
static unsigned int live_order[NR_LIVE];

/* Orders 0, 3 and 5 of two types on both cpus; every third freed again. */
static void workload(struct mpm_machine *m)
{
	for (unsigned int i = 0; i < NR_LIVE; i++) {
		bool kernel = (i >= 200 && i < 300) || i >= 320;

		live_order[i] = i < 300 ? 0 : i < 320 ? 3 : 5;
		live[i] = mpm_alloc_pages(m, kernel ? MPM_GFP_KERNEL : MPM_GFP_HIGHUSER_MOVABLE,
					  live_order[i], i & 1);
		REQUIRE(live[i] != MPM_NO_PFN);
	}
	for (unsigned int i = 0; i < NR_LIVE; i += 3) {
		REQUIRE(!mpm_free_pages(m, live[i], live_order[i], i & 1));
		live[i] = MPM_NO_PFN;
	}
}

static uint64_t live_of_order(unsigned int order)
{
	for (unsigned int i = 0; i < NR_LIVE; i++)
		if (live[i] != MPM_NO_PFN && live_order[i] == order)
			return live[i];
	return MPM_NO_PFN;
}

/* The damage: up to three words, each saved for the restore. */
static struct {
	void *at;
	uint64_t was;
	size_t size;
} saved[3];
static unsigned int nr_saved;

#define DAMAGE(lvalue, value) do { \
	REQUIRE(nr_saved < 3); \
	saved[nr_saved].at = &(lvalue); \
	saved[nr_saved].size = sizeof(lvalue); \
	memcpy(&saved[nr_saved].was, &(lvalue), sizeof(lvalue)); \
	nr_saved++; \
	(lvalue) = (value); \
} while (0)

static void restore(void)
{
	while (nr_saved--)
		memcpy(saved[nr_saved].at, &saved[nr_saved].was, saved[nr_saved].size);
	nr_saved = 0;
}

#define Z(m)	(&(m)->zones[0])

static uint32_t first_held(struct mpm_machine *m)
{
	for (uint32_t r = 0; r < Z(m)->nr_regions; r++)
		if (Z(m)->ralloc->region[r].nr_free)
			return r;
	REQUIRE(0);
}

static uint32_t first_unheld_with_blocks(struct mpm_machine *m)
{
	for (uint32_t r = 0; r < Z(m)->nr_regions; r++)
		if (!Z(m)->ralloc->region[r].nr_free && Z(m)->ralloc->region[r].nr_blocks)
			return r;
	REQUIRE(0);
}

static uint32_t idx_of(struct mpm_machine *m, uint64_t pfn)
{
	REQUIRE(pfn != MPM_NO_PFN);
	return pfn_to_idx(m, pfn);
}

/* -- per-cpu lists, hints, list heads -- */
static void d_pcp_batch(struct mpm_machine *m) { DAMAGE(Z(m)->pageset[0].batch, 0); }
static void d_pcp_high(struct mpm_machine *m) { DAMAGE(Z(m)->pageset[1].high, 0); }
static void d_stat_threshold(struct mpm_machine *m)
{
	DAMAGE(Z(m)->stat_threshold, Z(m)->stat_threshold + 1);
}

static void d_pcp_order(struct mpm_machine *m)
{
	uint32_t head = Z(m)->pageset[0].lists[MIGRATE_MOVABLE];

	REQUIRE(m->pages[head].next != head);
	DAMAGE(m->pages[m->pages[head].next].order, 3);
}

static void d_hint_ring(struct mpm_machine *m)
{
	DAMAGE(Z(m)->hint_ring[MIGRATE_MOVABLE].slot[3], (uint32_t)m->nr_entries);
}

static void d_list_head(struct mpm_machine *m)
{
	DAMAGE(Z(m)->free_area[3].free_list[MIGRATE_MOVABLE], 0xfffffff0u);
}

/* -- regions, zone sizes, the pfn walk -- */
static void d_region_end(struct mpm_machine *m) { DAMAGE(Z(m)->regions[0].end_pfn, Z(m)->regions[0].end_pfn - 8); }
static void d_region_empty(struct mpm_machine *m) { DAMAGE(Z(m)->regions[0].end_pfn, Z(m)->regions[0].start_pfn); }

/* the region of an allocated block looks free once that block is freed */
static void d_region_present(struct mpm_machine *m)
{
	struct zone_mem_region *r = &Z(m)->regions[pfn_zone_region_id(m, Z(m), live_of_order(3))];

	DAMAGE(r->present_pages, r->nr_free + 8);
}

static void d_region_managed(struct mpm_machine *m) { DAMAGE(Z(m)->regions[1].managed_pages, Z(m)->regions[1].managed_pages - 1); }
static void d_zone_present(struct mpm_machine *m) { DAMAGE(Z(m)->present_pages, Z(m)->present_pages + 100); }
static void d_alloc_order(struct mpm_machine *m) { DAMAGE(m->pages[idx_of(m, live_of_order(5))].order, 200); }

static void d_free_order(struct mpm_machine *m)
{
	for (uint32_t i = 0; i < m->nr_pfns; i++)
		if (m->pages[i].flags == PG_buddy && m->pages[i].order == MAX_ORDER - 1) {
			DAMAGE(m->pages[i].order, MAX_ORDER);
			return;
		}
	REQUIRE(0);
}

static void d_wmark_min(struct mpm_machine *m) { DAMAGE(Z(m)->watermark[WMARK_MIN], 0); }
static void d_lowmem_reserve(struct mpm_machine *m) { DAMAGE(Z(m)->lowmem_reserve[0], 1l << 40); }

static void d_zone_threshold(struct mpm_machine *m)
{
	/* zone and every cpu's copy alike: the copies' own check agrees */
	DAMAGE(Z(m)->stat_threshold, Z(m)->stat_threshold + 1);
	DAMAGE(Z(m)->pageset[0].stat_threshold, Z(m)->pageset[0].stat_threshold + 1);
	DAMAGE(Z(m)->pageset[1].stat_threshold, Z(m)->pageset[1].stat_threshold + 1);
}

/* -- owners -- */
static void d_owner_head(struct mpm_machine *m)
{
	uint64_t pfn = live_of_order(3);

	REQUIRE(!mpm_rmap_enable(m) && !mpm_rmap_set(m, pfn, 7, 1, 0));
	DAMAGE(m->pages[idx_of(m, pfn)].next, MPM_NO_OWNER);
}

static void d_owner_inner(struct mpm_machine *m)
{
	uint64_t pfn = live_of_order(3) + 1;

	REQUIRE(!mpm_rmap_enable(m) && !mpm_rmap_set(m, pfn, 7, 1, 0));
	DAMAGE(m->pages[idx_of(m, pfn)].next, MPM_NO_OWNER);
}

/* -- sorted lists -- */
static void d_bias_stale_low(struct mpm_machine *m) { DAMAGE(Z(m)->sorted->bias_stale[MIGRATE_MOVABLE], -2); }
static void d_bias_stale_high(struct mpm_machine *m) { DAMAGE(Z(m)->sorted->bias_stale[MIGRATE_MOVABLE], MAX_ORDER); }
static void d_map_levels(struct mpm_machine *m) { DAMAGE(Z(m)->sorted->fl[2][MIGRATE_MOVABLE].map.levels, 9); }

/* -- the region allocator -- */
static void d_ra_mask_beyond(struct mpm_machine *m)
{
	DAMAGE(Z(m)->ralloc->mask.level[0][0], Z(m)->ralloc->mask.level[0][0] | 1ull << 40);
}

/* 128 regions: a level-1 bit for the third leaf word, which has no region */
static void d_ra_mask_upper(struct mpm_machine *m)
{
	REQUIRE(Z(m)->ralloc->mask.levels == 2);
	DAMAGE(Z(m)->ralloc->mask.level[1][0], Z(m)->ralloc->mask.level[1][0] | 1ull << 2);
}

static void d_ra_stack_dup(struct mpm_machine *m)
{
	struct region_allocator *ra = Z(m)->ralloc;

	REQUIRE(ra->nr_stack >= 2);
	DAMAGE(ra->stack[0], ra->stack[ra->nr_stack - 1]);
}

static void d_ra_nr_stack(struct mpm_machine *m) { DAMAGE(Z(m)->ralloc->nr_stack, Z(m)->ralloc->nr_stack + 1); }

static void d_ra_first_block(struct mpm_machine *m)
{
	struct ra_region *r = &Z(m)->ralloc->region[first_held(m)];

	DAMAGE(r->first_block, r->first_block + 2048);
}

static void d_ra_nr_blocks(struct mpm_machine *m)
{
	struct ra_region *r = &Z(m)->ralloc->region[first_unheld_with_blocks(m)];

	DAMAGE(r->nr_blocks, r->nr_blocks + 1);
}

static void d_ra_sparse(struct mpm_machine *m) { DAMAGE(Z(m)->ralloc->region[first_held(m)].sparse, true); }
static void d_ra_list(struct mpm_machine *m) { DAMAGE(Z(m)->ralloc->region[first_held(m)].list, 0xfffffff0u); }

static void d_ra_link(struct mpm_machine *m)
{
	uint32_t list = Z(m)->ralloc->region[first_held(m)].list;

	DAMAGE(m->pages[m->pages[list].next].next, 0xfffffff0u);
}

static void d_ra_pb_mt(struct mpm_machine *m)
{
	struct ra_region *r = &Z(m)->ralloc->region[first_held(m)];

	/* boot leaves the held regions' pageblocks Movable */
	REQUIRE(r->mt == MIGRATE_MOVABLE);
	DAMAGE(r->pb_mt, MIGRATE_UNMOVABLE);
}

/* -- mempower_work -- */
static void d_mpw_nr_queued(struct mpm_machine *m) { DAMAGE(Z(m)->mpw->nr_queued, Z(m)->mpw->nr_queued + 1); }

static void d_mpw_mask(struct mpm_machine *m)
{
	DAMAGE(Z(m)->mpw->mask.level[0][0], Z(m)->mpw->mask.level[0][0] | 1ull << 40);
}

/* -- counts against the lists and the pfn walk -- */
static void d_nr_free(struct mpm_machine *m) { DAMAGE(Z(m)->free_area[3].nr_free, Z(m)->free_area[3].nr_free + 1); }
static void d_nr_free_mt(struct mpm_machine *m)
{
	DAMAGE(Z(m)->nr_free_mt[MIGRATE_MOVABLE], Z(m)->nr_free_mt[MIGRATE_MOVABLE] + 1);
}
static void d_region_nr_free(struct mpm_machine *m) { DAMAGE(Z(m)->regions[1].nr_free, Z(m)->regions[1].nr_free + 1); }
static void d_free_regions(struct mpm_machine *m) { DAMAGE(Z(m)->free_regions, Z(m)->free_regions + 1); }
static void d_pgalloc(struct mpm_machine *m)
{
	DAMAGE(Z(m)->pageset[1].ev[PCP_ALLOCS], Z(m)->pageset[1].ev[PCP_ALLOCS] + 1);
}

/* The lowest order whose Movable free list has blocks. */
static unsigned int lowest_free_order(struct mpm_machine *m)
{
	for (unsigned int o = 0; o < MAX_ORDER; o++) {
		uint32_t head = Z(m)->free_area[o].free_list[MIGRATE_MOVABLE];

		if (m->pages[head].next != head)
			return o;
	}
	REQUIRE(0);
}

/* The first block of that list, past its sentinel. */
static uint32_t first_free_block(struct mpm_machine *m)
{
	return m->pages[Z(m)->free_area[lowest_free_order(m)].free_list[MIGRATE_MOVABLE]].next;
}

static void d_list_prev(struct mpm_machine *m)
{
	uint32_t p = first_free_block(m);

	DAMAGE(m->pages[p].prev, p);	/* the first block's prev is the sentinel */
}
static void d_page_zone(struct mpm_machine *m) { DAMAGE(m->pages[idx_of(m, live_of_order(3))].zone, 1); }
static void d_inner_owned(struct mpm_machine *m) { DAMAGE(m->inner_owned, 1); }

/* -- pageblocks -- */
static void d_pageblock_type(struct mpm_machine *m)
{
	DAMAGE(Z(m)->pageblock_flags[pfn_to_bitidx(m, Z(m), 5 * 1024)], MIGRATE_TYPES);
}
static void d_reserve_blocks(struct mpm_machine *m)
{
	/* a machine this size has one; three more make four */
	for (uint64_t pfn = 60 * 1024; pfn < 63 * 1024; pfn += 1024)
		DAMAGE(Z(m)->pageblock_flags[pfn_to_bitidx(m, Z(m), pfn)], MIGRATE_RESERVE);
}

/* -- sorted lists -- */
static void d_next_region(struct mpm_machine *m)
{
	uint32_t *nr = &Z(m)->sorted->next_region[MIGRATE_MOVABLE][lowest_free_order(m)];

	DAMAGE(*nr, *nr + 1);
}
static void d_mr_nr_free(struct mpm_machine *m)
{
	unsigned int o = lowest_free_order(m);
	struct mem_region_list *mr = mr_list_of(Z(m)->sorted, o, MIGRATE_MOVABLE,
						Z(m)->sorted->next_region[MIGRATE_MOVABLE][o]);

	DAMAGE(mr->nr_free, mr->nr_free + 1);
}
static void d_region_bit(struct mpm_machine *m)
{
	uint64_t *w = &Z(m)->sorted->fl[0][MIGRATE_MOVABLE].map.level[0][0];

	DAMAGE(*w, *w ^ (1ull << 15));	/* the last region: no order-0 block */
}
static void d_bias_order(struct mpm_machine *m)
{
	REQUIRE(Z(m)->sorted->bias_stale[MIGRATE_MOVABLE] < MAX_ORDER - 1);
	DAMAGE(Z(m)->sorted->bias_order[MIGRATE_MOVABLE][MAX_ORDER - 1], 0);
}

/* -- the region allocator -- */
static void d_ra_nr_pages(struct mpm_machine *m) { DAMAGE(Z(m)->ralloc->nr_pages, Z(m)->ralloc->nr_pages + 1024); }
static void d_ra_next_region(struct mpm_machine *m)
{
	DAMAGE(Z(m)->ralloc->next_region, Z(m)->ralloc->next_region + 1);
}
static void d_ra_mask_bit(struct mpm_machine *m)
{
	uint64_t *w = &Z(m)->ralloc->mask.level[0][0];

	DAMAGE(*w, *w & ~(1ull << first_held(m)));
}

struct damage {
	const char *name;
	enum kind kind;
	void (*damage)(struct mpm_machine *m);
	const char *expect;	/* in the checker's message */
};

static const struct damage cases[] = {
	{ "pcp batch 0", MAINLINE, d_pcp_batch, "cpu 0 pcp high 90 batch 0, the zone's size gives 90 and 15" },
	{ "pcp high 0", MAINLINE, d_pcp_high, "cpu 1 pcp high 0 batch 15" },
	{ "zone stat threshold", MAINLINE, d_stat_threshold, "stat threshold" },
	{ "pcp page of order 3", MAINLINE, d_pcp_order, "on a pcp list has flags 0x2 order 3" },
	{ "hint ring slot", MAINLINE, d_hint_ring, "Movable hint ring slot 3" },
	{ "list head", MAINLINE, d_list_head, "head 4294967280 is not a sentinel entry" },
	{ "region end 8 short", MAINLINE, d_region_end, "region 0 spans pfns [0, 4088), its place says [0, 4096)" },
	{ "region end at start", MAINLINE, d_region_empty, "region 0 spans pfns [0, 0)" },
	{ "region present", MAINLINE, d_region_present, "present" },
	{ "region managed", MAINLINE, d_region_managed, "region 1 present 4096 managed 4095, recount 4096 and 4096" },
	{ "zone present", MAINLINE, d_zone_present, "present_pages is 65636, the pfn walk finds 65536" },
	{ "allocated order 200", MAINLINE, d_alloc_order, "order 200 misplaced" },
	{ "free order MAX_ORDER", MAINLINE, d_free_order, "order 11" },
	{ "min watermark 0", MAINLINE, d_wmark_min, "watermarks 0 " },
	{ "lowmem reserve", MAINLINE, d_lowmem_reserve, "lowmem_reserve[0] is 1099511627776, the zones' sizes give 0" },
	{ "zone and cpu thresholds", MAINLINE, d_zone_threshold, "stat threshold 13, the zone's size gives 12" },
	{ "owned head, no owner", MAINLINE, d_owner_head, "is marked owned (PG_owned) with no owner" },
	{ "owned inner, no owner", MAINLINE, d_owner_inner, "is marked owned (PG_owned) with no owner" },
	{ "bias_stale -2", SORTED, d_bias_stale_low, "Movable bias_stale is -2" },
	{ "bias_stale MAX_ORDER", SORTED, d_bias_stale_high, "Movable bias_stale is 11" },
	{ "bitmap levels", SORTED, d_map_levels, "free_list[2][Movable]: bitmap of 9 levels, 16 regions need 1" },
	{ "ralloc_mask bit past the regions", SPLIT, d_ra_mask_beyond, "ralloc_mask: level 0 bitmap has bits beyond 8" },
	{ "ralloc_mask upper bit", SPLIT_128, d_ra_mask_upper, "ralloc_mask: level 1 bitmap has bits beyond 2" },
	{ "ralloc stack duplicate", SPLIT_NOBIAS, d_ra_stack_dup, "held twice" },
	{ "ralloc nr_stack", SPLIT_NOBIAS, d_ra_nr_stack, "region allocator stack holds" },
	{ "ralloc first_block", SPLIT, d_ra_first_block, "the zone has 4 from pfn" },
	{ "ralloc nr_blocks", SPLIT, d_ra_nr_blocks, "5 blocks from pfn" },
	{ "ralloc sparse", SPLIT, d_ra_sparse, "(sparse), the zone has" },
	{ "ralloc list head", SPLIT, d_ra_list, "head 4294967280 is not a sentinel entry" },
	{ "ralloc list link", SPLIT, d_ra_link, "is broken at entry" },
	{ "ralloc pb_mt", SPLIT, d_ra_pb_mt, "cached pageblock type Unmovable, but the block at pfn" },
	{ "mempower_work nr_queued", FULL, d_mpw_nr_queued, "mempower_work: 0 regions queued in the mask, nr_queued 1" },
	{ "mempower_mask bit past the regions", FULL, d_mpw_mask, "mempower_mask: level 0 bitmap has bits beyond 8" },
	{ "free_area nr_free", MAINLINE, d_nr_free, "free_area[3].nr_free is" },
	{ "nr_free_mt", MAINLINE, d_nr_free_mt, "Movable free pages counted" },
	{ "region nr_free", MAINLINE, d_region_nr_free, "region 1 nr_free is" },
	{ "free_regions", MAINLINE, d_free_regions, "free_regions is" },
	{ "pcp alloc event", MAINLINE, d_pgalloc, "allocated pages by pfn walk" },
	{ "free list prev link", MAINLINE, d_list_prev, "free_list: pfn" },
	{ "page zone", MAINLINE, d_page_zone, "has zone 1" },
	{ "inner_owned count", MAINLINE, d_inner_owned, "inner pages have an owner, counted 1" },
	{ "pageblock type", MAINLINE, d_pageblock_type, "pageblock at pfn 5120 has migratetype" },
	{ "reserve pageblocks", MAINLINE, d_reserve_blocks, "MIGRATE_RESERVE pageblocks (at most 2)" },
	{ "sorted next_region", SORTED, d_next_region, "[Movable] next_region is" },
	{ "sorted region nr_free", SORTED, d_mr_nr_free, "[Movable] region" },
	{ "sorted region bit", SORTED, d_region_bit, "free_list[0][Movable] region 15: bitmap bit 1, 0 blocks" },
	{ "sorted bias_order", SORTED, d_bias_order, "Movable bias_order[10] is 0" },
	{ "ralloc nr_pages", SPLIT, d_ra_nr_pages, "region allocator holds" },
	{ "ralloc next_region", SPLIT, d_ra_next_region, "region allocator next_region is" },
	{ "ralloc_mask bit of a held region", SPLIT, d_ra_mask_bit, "ralloc_mask bit of region" },
};

static void run_case(const struct damage *d)
{
	struct mpm_machine *m = machine(d->kind);
	char msg[512];
	int ret;

	workload(m);
	REQUIRE(!mpm_check(m, msg, sizeof(msg)));
	d->damage(m);
	ret = mpm_check(m, msg, sizeof(msg));
	printf("%-36s %s\n", d->name, ret ? msg : "(not detected)");
	CHECK(ret == -1);
	CHECK(strstr(msg, d->expect) != NULL);
	restore();
	CHECK(!mpm_check(m, msg, sizeof(msg)));
	mpm_machine_destroy(m);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	return t_report("test_check_mutations");
}
