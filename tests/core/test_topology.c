// SPDX-License-Identifier: MIT
/* Topology: zones, holes, memory regions (patch 03), the cover-letter
 * machine's published layout, boot state, pcp sizing and watermarks. */
#include <stdio.h>
#include <unistd.h>

#include "machines.h"
#include "mmzone.h"

/* The zone's MIGRATE_RESERVE pageblocks, from the pageblock bitmap. */
static unsigned int zone_reserve_blocks(struct mpm_machine *m, struct zone *z)
{
	unsigned long nr = pageblock_nr_pages(m);
	unsigned int n = 0;

	for (uint64_t pfn = z->pageblock_base_pfn; pfn < zone_end_pfn(z); pfn += nr)
		n += get_pageblock_migratetype(m, z, pfn < z->zone_start_pfn ?
					       z->zone_start_pfn : pfn) == MIGRATE_RESERVE;
	return n;
}

static void test_sandybridge_regions(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	struct mpm_zone_info zi;
	struct mpm_region_info ri;

	tm_sandybridge(&t);
	m = tm_create(&t);
	CHECK_EQ_U(mpm_nr_zones(m), 4);

	/* Node 0 ZONE_NORMAL as the v4 results mail reports it. */
	mpm_zone_info(m, 2, &zi);
	CHECK_EQ_U(zi.node, 0);
	CHECK_EQ_U(zi.spanned, 16252928);
	CHECK_EQ_U(zi.present, 16252928);
	CHECK_EQ_U(zi.nr_regions, 125);
	mpm_region_info(m, 2, 0, &ri);
	CHECK_EQ_U(ri.present, 1);
	for (unsigned int r = 1; r <= 123; r++) {
		mpm_region_info(m, 2, r, &ri);
		CHECK_EQ_U(ri.present, 131072);
	}
	mpm_region_info(m, 2, 124, &ri);
	CHECK_EQ_U(ri.present, 131071);

	/* Node 1 starts on a region boundary of its own: 128 whole regions. */
	mpm_zone_info(m, 3, &zi);
	CHECK_EQ_U(zi.nr_regions, 128);
	/* DMA: pfn 0 absent, 640K-1M hole; DMA32: 2 GiB MMIO hole. */
	mpm_zone_info(m, 0, &zi);
	CHECK_EQ_U(zi.spanned, 4095);
	CHECK_EQ_U(zi.present, 3998);
	mpm_zone_info(m, 1, &zi);
	CHECK_EQ_U(zi.present, 0x80000 - 4096);
	CHECK_EQ_U(zi.nr_regions, 8);

	/* After boot every present page is free and every region is free. */
	CHECK_EQ_U(mpm_free_regions(m), mpm_regions_total(m));
	CHECK_EQ_U(mpm_used_pages(m), 0);
	CHECK_EQ_U(mpm_pcp_pages(m), 0);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

static void test_region_lookup(void)
{
	struct test_machine t;
	struct mpm_machine *m;

	tm_sandybridge(&t);
	t.spec.region_shift = 12;	/* 16 MiB: many regions, cheap brute force */
	m = tm_create(&t);
	for (unsigned int zid = 0; zid < mpm_nr_zones(m); zid++) {
		struct mpm_zone_info zi;

		mpm_zone_info(m, zid, &zi);
		for (unsigned int r = 0; r < zi.nr_regions; r++) {
			struct mpm_region_info ri;

			mpm_region_info(m, zid, r, &ri);
			CHECK(mpm_pfn_to_region(m, ri.start_pfn) == (int)r);
			CHECK(mpm_pfn_to_region(m, ri.end_pfn - 1) == (int)r);
			CHECK(mpm_pfn_to_zone(m, ri.start_pfn) == (int)zid);
			/* node-relative: boundaries at node start + k * 2^12 */
			if (r)
				CHECK_EQ_U((ri.start_pfn - (zi.node ? 0x1080000 : 1)) & 4095, 0);
		}
	}
	CHECK(mpm_pfn_to_zone(m, 0) == -1);
	CHECK(mpm_pfn_valid(m, 0x9f) == 0);
	CHECK(mpm_pfn_valid(m, 0x100) == 1);
	mpm_machine_destroy(m);

	t.spec.region_absolute = true;
	m = tm_create(&t);
	{
		struct mpm_region_info ri;

		mpm_region_info(m, 2, 1, &ri);
		CHECK_EQ_U(ri.start_pfn & 4095, 0);
	}
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

static void test_boot_pageblocks_and_pcp(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	struct zone *dma, *normal;

	tm_sandybridge(&t);
	m = tm_create(&t);
	dma = &m->zones[0];
	normal = &m->zones[2];
	/* memmap_init_zone: DMA's first block begins at pfn 0, outside the zone */
	CHECK(get_pageblock_migratetype(m, dma, 1) == MIGRATE_UNMOVABLE);
	CHECK(get_pageblock_migratetype(m, dma, 1024) != MIGRATE_UNMOVABLE);
	/* zone_batchsize: 31 / 186 for big zones, 1 / 0 for DMA */
	CHECK_EQ_U(normal->pageset[0].batch, 31);
	CHECK_EQ_U(normal->pageset[0].high, 186);
	CHECK_EQ_U(dma->pageset[3].batch, 1);
	CHECK_EQ_U(dma->pageset[3].high, 0);
	/* min_free_kbytes = int_sqrt(lowmem_kbytes * 16) = 45248 for 127.9 GiB */
	{
		uint64_t kb = mpm_total_pages(m) * 4, r = 0;

		while ((r + 1) * (r + 1) <= kb * 16)
			r++;
		CHECK_EQ_U(mpm_min_free_kbytes(m), r);
	}
	/* min wmark in whole pageblocks, at most 2: DMA 1, DMA32 1, Normal 2 */
	CHECK_EQ_U(zone_reserve_blocks(m, normal), 2);
	CHECK_EQ_U(zone_reserve_blocks(m, &m->zones[1]), 1);
	CHECK_EQ_U(mpm_pageblocks_mt(m, MIGRATE_RESERVE), 1 + 1 + 2 + 2);
	/* protection: DMA against MOVABLE equals against NORMAL (no Movable zone) */
	CHECK_EQ_U(dma->lowmem_reserve[MPM_ZONE_DMA32], 520192 / 256);
	CHECK_EQ_U(dma->lowmem_reserve[MPM_ZONE_NORMAL], (16252928 + 520192) / 256);
	CHECK_EQ_U(dma->lowmem_reserve[MPM_ZONE_MOVABLE], (16252928 + 520192) / 256);
	/* lowmem_reserve protects DMA32 from Normal-class allocations */
	CHECK(m->zones[1].lowmem_reserve[MPM_ZONE_NORMAL] ==
	      (long)(normal->managed_pages / 256));
	mpm_machine_destroy(m);
}

/*
 * The boot-time reserve in a held region (docs/patchset-rules.md): under
 * split, marking node 0 Normal's second reserve pageblock (pfn 0x100400,
 * region 1, held) pulls its region out of the region allocator as MOVABLE,
 * which writes MOVABLE over the mark, so the zone keeps one.  With THP on,
 * khugepaged's late_initcall runs setup_zone_migrate_reserve again; the
 * region is no longer held, the block is marked again and keeps it: two,
 * as mainline has.
 */
static void test_held_reserve_khugepaged(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	unsigned long f;

	REQUIRE(!mpm_policy_features("split", &f));
	for (int thp = 0; thp <= 1; thp++) {
		tm_sandybridge(&t);
		t.spec.features = f;
		t.spec.khugepaged = thp;
		m = tm_create(&t);
		CHECK_EQ_U(zone_reserve_blocks(m, &m->zones[2]), thp ? 2 : 1);
		CHECK(get_pageblock_migratetype(m, &m->zones[2], 0x100400) ==
		      (thp ? MIGRATE_RESERVE : MIGRATE_MOVABLE));
		CHECK(tm_check(m) == 0);
		mpm_machine_destroy(m);
	}
}

/*
 * A zone whose first node region is number 2^33 (found by an API probe):
 * regions of 64 pages from pfn 0 at pfn 2^39.  The zone keeps that number
 * in 32 bits, which every lookup uses modulo 2^32; the checker rebuilt the
 * regions' spans from it and reported a sound machine broken.
 */
static void test_region_number_past_32_bits(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	unsigned long f;
	uint64_t pfn;

	REQUIRE(!mpm_policy_features("full", &f));
	for (int pol = 0; pol <= 1; pol++) {
		tm_flat(&t, 1ull << 39, 8192, 1);
		t.spec.pageblock_order = 6;
		t.spec.region_shift = 6;
		t.spec.region_absolute = true;
		t.spec.features = pol ? f : 0;
		m = tm_create(&t);
		CHECK(tm_check(m) == 0);
		pfn = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 3, 0);
		CHECK(pfn != MPM_NO_PFN);
		CHECK_EQ_U(mpm_pfn_to_region(m, pfn), (pfn - (1ull << 39)) >> 6);
		CHECK_EQ_U(mpm_free_pages(m, pfn, 3, 0), 0);
		CHECK(tm_check(m) == 0);
		mpm_machine_destroy(m);
	}
}

/*
 * A memblock reservation over a hole (found by fuzz_layout): only its
 * present pages are reserved.  The hole's pages stay absent, and managed is
 * present less the reservation's present part, per zone and per region.
 */
static void test_reserved_over_hole(void)
{
	static struct mpm_hole_spec reserved[1] = { { 2000, 2400 } };
	struct test_machine t;
	struct mpm_machine *m;
	struct mpm_zone_info zi;
	struct mpm_region_info ri;
	char msg[256];

	tm_flat(&t, 1024, 4096, 2);		/* [1024, 5120) */
	t.holes[0] = (struct mpm_hole_spec){ 2100, 2140 };
	t.spec.holes = t.holes;
	t.spec.nr_holes = 1;
	t.spec.reserved = reserved;
	t.spec.nr_reserved = 1;
	t.spec.region_shift = 11;		/* [0, 2048), [2048, 4096), [4096, 6144) */
	t.spec.region_absolute = true;
	m = tm_create(&t);
	mpm_zone_info(m, 0, &zi);
	CHECK_EQ_U(zi.present, 4096 - 40);
	CHECK_EQ_U(zi.managed, 4096 - 40 - (400 - 40));
	CHECK_EQ_U(zi.free_pages, zi.managed);
	mpm_region_info(m, 0, 1, &ri);		/* [2048, 4096): 352 reserved, 40 absent */
	CHECK_EQ_U(ri.present, 2048 - 40);
	CHECK_EQ_U(ri.managed, 2048 - 40 - 352 + 40);
	CHECK(mpm_page_state(m, 2100, NULL) == MPM_PAGE_HOLE);
	CHECK(mpm_page_state(m, 2139, NULL) == MPM_PAGE_HOLE);
	CHECK(mpm_page_state(m, 2099, NULL) == MPM_PAGE_RESERVED);
	CHECK(mpm_page_state(m, 2140, NULL) == MPM_PAGE_RESERVED);
	CHECK(mpm_check(m, msg, sizeof(msg)) == 0);
	mpm_machine_destroy(m);
}

/*
 * mpm_metadata_bytes counts what the machine allocates for itself: at
 * least the machine struct (its nodes inside), each zone with its cpus'
 * pcp sets and pageblock bytes, and one 16-byte entry per page.
 */
static void test_metadata_bytes(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	size_t floor;

	tm_flat(&t, 0, 4096, 2);
	m = tm_create(&t);
	floor = sizeof(struct mpm_machine) + m->nr_zones * sizeof(struct zone) +
		m->nr_cpus * (sizeof(struct per_cpu_pages) + sizeof(*m->cpu_to_node)) +
		4096 * sizeof(struct mpm_page) + 4096 / pageblock_nr_pages(m);
	CHECK(mpm_metadata_bytes(m) >= floor);
	mpm_machine_destroy(m);
}

/* Resident set size of this process in bytes (/proc/self/statm). */
static uint64_t rss_bytes(void)
{
	unsigned long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	REQUIRE(f);
	REQUIRE(fscanf(f, "%lu %lu", &size, &resident) == 2);
	fclose(f);
	return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

/*
 * Two nodes 4 TiB apart, as a sparse NUMA firmware map has them: the page
 * array spans the gap (16 GiB of address space), but only the zones'
 * entries are written, so the machine costs what its 16,384 pages cost.
 * The gap's pfns are holes to every lookup, and nothing there can be
 * freed or merged with.
 */
static void test_gap_between_nodes(void)
{
	const uint64_t far = 1ull << 30;	/* pfn of 4 TiB */
	struct test_machine t;
	struct mpm_machine *m;
	uint64_t before, pfn;

	memset(&t, 0, sizeof(t));
	t.zones[0] = (struct mpm_zone_spec){ 0, MPM_ZONE_NORMAL, 1000, 1000 + 8192 };
	t.zones[1] = (struct mpm_zone_spec){ 1, MPM_ZONE_NORMAL, far, far + 8192 };
	tm_link(&t, 2, 2, 0);
	t.spec.nr_cpus = 2;
	CHECK_EQ_U(mpm_machine_spec_bytes(&t.spec), 2 * 8192 * 16);
	before = rss_bytes();
	m = tm_create(&t);
	CHECK(rss_bytes() < before + (256ull << 20));
	CHECK(mpm_metadata_bytes(m) < 16ull << 20);
	CHECK_EQ_U(mpm_max_pfn(m), far + 8192);

	for (uint64_t gap = 0; gap < 1000; gap += 333) {	/* before the first zone */
		CHECK(mpm_pfn_to_zone(m, gap) == -1);
		CHECK(mpm_page_state(m, gap, NULL) == MPM_PAGE_HOLE);
	}
	for (uint64_t gap = 9192; gap < far; gap += far / 7) {
		CHECK(mpm_pfn_to_zone(m, gap) == -1);
		CHECK(mpm_pfn_to_region(m, gap) == -1);
		CHECK(mpm_pfn_valid(m, gap) == 0);
		CHECK(mpm_page_state(m, gap, NULL) == MPM_PAGE_HOLE);
		CHECK(mpm_free_pages(m, gap, 0, 0) == -1);
	}
	CHECK(mpm_pfn_to_zone(m, 1000) == 0);
	CHECK(mpm_pfn_to_zone(m, far) == 1);
	CHECK(mpm_pfn_valid(m, far + 8191) == 1);

	/* node 1's zone starts MAX_ORDER-1 aligned: its blocks merge up to order 10 */
	pfn = mpm_alloc_pages_node(m, 1, MPM_GFP_KERNEL | MPM___GFP_THISNODE, 10, 1);
	CHECK(pfn >= far && pfn < far + 8192);
	CHECK(tm_check(m) == 0);
	CHECK(mpm_free_pages(m, pfn, 10, 1) == 0);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

static void test_bad_specs(void)
{
	struct test_machine t;
	char err[256];

	tm_flat(&t, 0, 4096, 1);
	t.spec.region_shift = 5;	/* smaller than a pageblock */
	CHECK(mpm_machine_create(&t.spec, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "smaller than a pageblock") != NULL);

	tm_sandybridge(&t);
	t.zones[1].start_pfn = 100;	/* overlaps DMA */
	CHECK(mpm_machine_create(&t.spec, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "overlaps") != NULL);

	tm_flat(&t, 0, 4096, 1);
	t.spec.nr_nodes = 0;
	CHECK(mpm_machine_create(&t.spec, err, sizeof(err)) == NULL);

	tm_flat(&t, 0, 4096, 1);
	t.spec.pageblock_order = 11;
	CHECK(mpm_machine_create(&t.spec, err, sizeof(err)) == NULL);

	/*
	 * Ranges at the top of the pfn space: the region and pageblock walks
	 * of set-up wrapped past 2^64 and wrote beyond the page array.
	 */
	tm_flat(&t, UINT64_MAX - 2049, 2048, 1);
	CHECK(mpm_machine_create(&t.spec, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "above the limit") != NULL);
	tm_flat(&t, MPM_MAX_PFN - 4096, 4096, 1);	/* the last pfns allowed */
	struct mpm_machine *top = mpm_machine_create(&t.spec, err, sizeof(err));
	CHECK(top != NULL);
	if (top) {
		CHECK(tm_check(top) == 0);
		mpm_machine_destroy(top);
	}
	tm_flat(&t, 0, 4096, 1);
	t.holes[0] = (struct mpm_hole_spec){ 100, MPM_MAX_PFN + 1 };
	tm_link(&t, 1, 1, 1);
	CHECK(mpm_machine_create(&t.spec, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "hole 0") != NULL);

	/* a node may start below its first zone, never after it */
	tm_flat(&t, 4096, 4096, 1);
	t.spec.node_start_pfn[0] = 4097;
	CHECK(mpm_machine_create(&t.spec, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "after its first zone") != NULL);
	t.spec.node_start_pfn[0] = 1;
	top = mpm_machine_create(&t.spec, err, sizeof(err));
	CHECK(top != NULL);
	mpm_machine_destroy(top);
}

/* @t is refused, with a message that contains @msg. */
static bool spec_refused(struct test_machine *t, const char *msg)
{
	char err[256] = "";
	struct mpm_machine *bad = mpm_machine_create(&t->spec, err, sizeof(err));

	if (bad) {
		mpm_machine_destroy(bad);
		return false;
	}
	if (!strstr(err, msg))
		fprintf(stderr, "expected '%s', got '%s'\n", msg, err);
	return strstr(err, msg) != NULL;
}

/* Each of validate_spec's refusals, one field wrong at a time. */
static void test_spec_messages(void)
{
	struct test_machine t;
	struct mpm_hole_spec reserved[2] = { { 100, 200 }, { 150, 300 } };

	tm_flat(&t, 0, 4096, 1);
	CHECK(!spec_refused(&t, ""));	/* the base spec is good */
	t.spec.nr_zones = 0;
	CHECK(spec_refused(&t, "no zones"));
	tm_flat(&t, 0, 4096, 1);
	t.spec.features = 1ul << 40;
	CHECK(spec_refused(&t, "unknown feature bits 0x10000000000"));
	tm_flat(&t, 0, 4096, 1);
	t.spec.features = MPM_FEATURE_REGION_ALLOCATOR;
	CHECK(spec_refused(&t, "needs"));
	tm_flat(&t, 0, 4096, 1);
	t.spec.zonelist_order = MPM_ZONELIST_ORDER_ZONE + 1;
	CHECK(spec_refused(&t, "zonelist_order 3"));
	tm_flat(&t, 0, 4096, MPM_MAX_CPUS + 1);
	CHECK(spec_refused(&t, "exceeds"));
	tm_flat(&t, 0, 4096, 1);
	t.zones[0].node = 1;
	CHECK(spec_refused(&t, "zone 0: bad node or type (node 1)"));
	tm_flat(&t, 0, 4096, 1);
	t.zones[0].type = MPM_NR_ZONE_TYPES;
	CHECK(spec_refused(&t, "zone 0: bad node or type"));
	tm_flat(&t, 4096, 4096, 1);
	t.zones[0].end_pfn = 4096;
	CHECK(spec_refused(&t, "zone 0: empty range (start pfn 4096)"));
	tm_sandybridge(&t);
	t.zones[2].type = MPM_ZONE_DMA32;	/* two DMA32 zones on node 0 */
	CHECK(spec_refused(&t, "zone 2: node 0 has its zone types out of order"));
	tm_sandybridge(&t);
	t.holes[1].end_pfn = t.holes[1].start_pfn;
	CHECK(spec_refused(&t, "hole 1: empty range"));
	tm_sandybridge(&t);
	t.holes[1] = (struct mpm_hole_spec){ 0x50, 0x60 };	/* below hole 0 */
	CHECK(spec_refused(&t, "hole 1 overlaps or precedes hole 0"));
	tm_flat(&t, 0, 4096, 1);
	t.spec.nr_reserved = 2;
	t.spec.reserved = reserved;
	CHECK(spec_refused(&t, "reserved range 1 empty, overlapping"));
	reserved[1].start_pfn = 200;
	CHECK(!spec_refused(&t, ""));
}

/* The feature names never end in half a name; unknown bits are dropped. */
static void test_feature_names(void)
{
	unsigned long full;
	char buf[64];

	REQUIRE(mpm_policy_features("full", &full) == 0);
	mpm_features_string(full, buf, sizeof(buf));
	CHECK(strncmp(buf, "sorted_freelists,", 17) == 0);
	mpm_features_string(full, buf, 20);	/* room for the first name only */
	CHECK(strcmp(buf, "sorted_freelists") == 0);
	mpm_features_string(full, buf, 5);
	CHECK(strcmp(buf, "") == 0);
	CHECK(mpm_features_valid(~0ul) == MPM_FEATURES_ALL);
	CHECK(mpm_features_valid(full | (1ul << 40)) == full);

	/*
	 * A removed switch takes along the switches that need it, as compare's
	 * "full-sorted_freelists" does; one added without its prerequisite stays
	 * for the machine's set-up to name.
	 */
	unsigned long f = full, sorted_bit, bias_bit;

	REQUIRE(!mpm_feature_by_name("sorted_freelists", &sorted_bit));
	REQUIRE(!mpm_feature_by_name("region_bias", &bias_bit));
	CHECK(!mpm_features_apply("-sorted_freelists", &f, buf, sizeof(buf)));
	CHECK(f == mpm_features_valid(full & ~sorted_bit));
	CHECK(!(f & bias_bit) && f != 0);
	f = full;
	CHECK(!mpm_features_apply("none,+region_bias", &f, buf, sizeof(buf)) && f == bias_bit);
	CHECK(!mpm_features_apply("-no_claim", &f, buf, sizeof(buf)) && f == bias_bit);
}

int main(void)
{
	test_feature_names();
	test_sandybridge_regions();
	test_region_lookup();
	test_boot_pageblocks_and_pcp();
	test_held_reserve_khugepaged();
	test_region_number_past_32_bits();
	test_reserved_over_hole();
	test_metadata_bytes();
	test_gap_between_nodes();
	test_bad_specs();
	test_spec_messages();
	return t_report("core/topology");
}
