// SPDX-License-Identifier: MIT
/*
 * Golden tests of the /proc printers: a small two-zone machine in a fixed
 * state is printed and compared byte for byte with files under golden/,
 * which were checked field by field against the format strings of Linux
 * 3.12's mm/vmstat.c and of the v4 patches 13/40 and 14/40 that add the
 * per-region lines (see docs/linux-3.12-rules.md).  Run with
 * MPM_UPDATE_GOLDEN=1 to rewrite them after an intended change.
 *
 * The region statistics are also checked against output written out by
 * hand for a machine small enough to work out (test_region_by_hand), for
 * internal consistency on a two-node machine with holes and allocations
 * (test_region_sums), and with the chunked counting fallback.
 */
#include <stdlib.h>
#include <string.h>

#include "machines.h"
#include "mmzone.h"
#include "vmstat_region.h"

static struct mpm_machine *golden_machine(void)
{
	static struct test_machine t;
	struct mpm_machine *m;

	tm_small_pc(&t, MPM_ZONE_DMA, MPM_ZONE_DMA32, 4096, 16384, 12);
	m = tm_create(&t);
	/* a movable page through cpu 0's pcp list, an unmovable order-3 block */
	REQUIRE(mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0) != MPM_NO_PFN);
	REQUIRE(mpm_alloc_pages(m, MPM_GFP_KERNEL, 3, 1) != MPM_NO_PFN);
	return m;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	REQUIRE(buf);
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

typedef void (*printer_fn)(const struct mpm_machine *, FILE *);

/* What @print writes for @m, NUL-terminated; the caller frees it. */
static char *print_str(struct mpm_machine *m, printer_fn print, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *mem = open_memstream(&buf, &n);

	REQUIRE(mem);
	print(m, mem);
	fclose(mem);
	if (len)
		*len = n;
	return buf;
}

static void golden(struct mpm_machine *m, const char *name, printer_fn print)
{
	char path[512], *got, *want;
	size_t got_len = 0, want_len = 0;

	got = print_str(m, print, &got_len);
	snprintf(path, sizeof(path), "%s/tests/core/golden/%s", MPM_SOURCE_DIR, name);
	if (getenv("MPM_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "wb");

		REQUIRE(f);
		fwrite(got, 1, got_len, f);
		fclose(f);
	}
	want = slurp(path, &want_len);
	CHECK(want != NULL);
	if (want && (want_len != got_len || memcmp(want, got, got_len))) {
		fprintf(stderr, "%s differs from the golden file; got:\n%s", name, got);
		CHECK(0);
	}
	free(want);
	free(got);
}

/* Byte-exact comparison with an expected text, showing both on failure. */
static void check_text(const char *what, const char *got, const char *want)
{
	CHECK(strcmp(got, want) == 0);
	if (strcmp(got, want)) {
		size_t i = 0;

		while (got[i] && got[i] == want[i])
			i++;
		fprintf(stderr, "%s: first difference at byte %zu\n--- got:\n%s--- want:\n%s",
			what, i, got, want);
	}
}

/* Format facts checked independently of the golden files. */
static void test_buddyinfo_shape(struct mpm_machine *m)
{
	char *out = print_str(m, mpm_print_buddyinfo, NULL);
	char zone[16], *line;
	unsigned long v[11];
	int region = -1;

	/*
	 * Patch 13: "Node %d, zone %8s \n" (23 chars), then per region
	 * "\t\t Region %6d " (17) + 11 x "%6lu " (77) + "\n", then "\n".
	 * DMA has one region, DMA32 four (the first a single pfn).
	 */
	CHECK_EQ_U(strlen(out), 2 * (23 + 1) + 5 * (17 + 77 + 1));
	CHECK(sscanf(out, "Node 0, zone %8s \n", zone) == 1);
	CHECK(strcmp(zone, "DMA") == 0);
	CHECK(strncmp(out, "Node 0, zone      DMA \n\t\t Region      0 ", 23 + 17) == 0);
	line = strchr(out, '\n') + 1;
	CHECK(sscanf(line, "\t\t Region %d %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu",
		     &region, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
		     &v[9], &v[10]) == 12);
	CHECK(region == 0);
	CHECK(strncmp(out + 23 + 95, "\nNode 0, zone    DMA32 \n", 24) == 0);
	free(out);
}

/*
 * A machine worked out by hand: one Normal zone [0, 16384), absolute 16 MiB
 * regions (4096 pages = 4 pageblocks of 1024), holes [9300, 9400) in region
 * 2 and [13312, 13400) in region 3.  Boot frees every present page, merging
 * into the largest aligned blocks:
 *   R0: 4 x order 10; pageblock 0 becomes the zone's one RESERVE block
 *       (min watermark 254 pages rounds up to one pageblock), 1-3 MOVABLE.
 *   R1: 4 x order 10, MOVABLE.
 *   R2: 8192, 10240, 11264 order 10; [9216, 9300) = 64 + 16 + 4 pages
 *       (orders 6, 4, 2); [9400, 10240) = 8 + 64 + 256 + 512 (orders
 *       3, 6, 8, 9); all MOVABLE (pageblock 9 starts with a present page).
 *   R3: 12288, 14336, 15360 order 10, MOVABLE; [13400, 14336) = 8 + 32 +
 *       128 + 256 + 512 (orders 3, 5, 7, 8, 9) on the UNMOVABLE lists:
 *       pageblock 13 begins in the hole, so it never became MOVABLE, and
 *       the block counts skip it (its sample pfn 13312 is a hole).
 * Present pages: 4096, 4096, 4096 - 100, 4096 - 88.
 */
#define C0 "     0 "
#define C1 "     1 "
#define C2 "     2 "
#define C3 "     3 "
#define C4 "     4 "
#define C0x5 C0 C0 C0 C0 C0
#define B0 "           0 "
#define B1 "           1 "
#define B3 "           3 "
#define B4 "           4 "

static const char hand_buddyinfo_boot[] =
	"Node 0, zone   Normal \n"
	"\t\t Region      0 " C0x5 C0x5 C4 "\n"
	"\t\t Region      1 " C0x5 C0x5 C4 "\n"
	"\t\t Region      2 " C0 C0 C1 C1 C1 C0 C2 C0 C1 C1 C3 "\n"
	"\t\t Region      3 " C0 C0 C0 C1 C0 C1 C0 C1 C1 C1 C3 "\n"
	"\n";

/*
 * After three allocations, each of which has exactly one candidate block:
 *   order 3 UNMOVABLE: the order-3 block 13400 (R3);
 *   order 4 UNMOVABLE: splits the order-5 block 13408, leaves 13424 order 4;
 *   order 2 MOVABLE (no pcp for order > 0): the order-2 block 9296 (R2).
 */
static const char hand_buddyinfo_after[] =
	"Node 0, zone   Normal \n"
	"\t\t Region      0 " C0x5 C0x5 C4 "\n"
	"\t\t Region      1 " C0x5 C0x5 C4 "\n"
	"\t\t Region      2 " C0 C0 C0 C1 C1 C0 C2 C0 C1 C1 C3 "\n"
	"\t\t Region      3 " C0 C0 C0 C0 C1 C0 C0 C1 C1 C1 C3 "\n"
	"\n";

static const char hand_pagetypeinfo_after[] =
	"Page block order: 10\n"
	"Pages per block:  1024\n"
	"\n"
	"Free pages count per migrate type at order  "
	"     0      1      2      3      4      5      6      7      8      9     10 \n"
	"Node    0, zone   Normal, type    Unmovable " C0 C0 C0 C0 C1 C0 C0 C1 C1 C1 C0 "\n"
	"Node    0, zone   Normal, type  Reclaimable " C0x5 C0x5 C0 "\n"
	"Node    0, zone   Normal, type      Movable " C0 C0 C0 C1 C1 C0 C2 C0 C1 C1 "    13 \n"
	"Node    0, zone   Normal, type      Reserve " C0x5 C0x5 C1 "\n"
	"Node    0, zone   Normal, type      Isolate " C0x5 C0x5 C0 "\n"
	"\n"
	"Node    0, zone   Normal, R  0    Unmovable " C0x5 C0x5 C0 "\n"
	"Node    0, zone   Normal, R  1    Unmovable " C0x5 C0x5 C0 "\n"
	"Node    0, zone   Normal, R  2    Unmovable " C0x5 C0x5 C0 "\n"
	"Node    0, zone   Normal, R  3    Unmovable " C0 C0 C0 C0 C1 C0 C0 C1 C1 C1 C0 "\n"
	"Node    0, zone   Normal, R  0  Reclaimable " C0x5 C0x5 C0 "\n"
	"Node    0, zone   Normal, R  1  Reclaimable " C0x5 C0x5 C0 "\n"
	"Node    0, zone   Normal, R  2  Reclaimable " C0x5 C0x5 C0 "\n"
	"Node    0, zone   Normal, R  3  Reclaimable " C0x5 C0x5 C0 "\n"
	"Node    0, zone   Normal, R  0      Movable " C0x5 C0x5 C3 "\n"
	"Node    0, zone   Normal, R  1      Movable " C0x5 C0x5 C4 "\n"
	"Node    0, zone   Normal, R  2      Movable " C0 C0 C0 C1 C1 C0 C2 C0 C1 C1 C3 "\n"
	"Node    0, zone   Normal, R  3      Movable " C0x5 C0x5 C3 "\n"
	"Node    0, zone   Normal, R  0      Reserve " C0x5 C0x5 C1 "\n"
	"Node    0, zone   Normal, R  1      Reserve " C0x5 C0x5 C0 "\n"
	"Node    0, zone   Normal, R  2      Reserve " C0x5 C0x5 C0 "\n"
	"Node    0, zone   Normal, R  3      Reserve " C0x5 C0x5 C0 "\n"
	"Node    0, zone   Normal, R  0      Isolate " C0x5 C0x5 C0 "\n"
	"Node    0, zone   Normal, R  1      Isolate " C0x5 C0x5 C0 "\n"
	"Node    0, zone   Normal, R  2      Isolate " C0x5 C0x5 C0 "\n"
	"Node    0, zone   Normal, R  3      Isolate " C0x5 C0x5 C0 "\n"
	"\n"
	"Number of blocks type         Unmovable  Reclaimable      Movable      Reserve      Isolate \n"
	"Node 0, zone   Normal      " B0 B0 "          14 " B1 B0 "\n"
	"\n"
	"Node 0, zone   Normal R  0 " B0 B0 B3 B1 B0 "\n"
	"Node 0, zone   Normal R  1 " B0 B0 B4 B0 B0 "\n"
	"Node 0, zone   Normal R  2 " B0 B0 B4 B0 B0 "\n"
	"Node 0, zone   Normal R  3 " B0 B0 B3 B0 B0 "\n";

/* zoneinfo from "managed" to the first zone item. */
static const char hand_zoneinfo_after[] =
	"        managed  16196\n"
	"\n"
	"Per-region page stats\t present\t free\n"
	"\n"
	"\tRegion      0 \t   4096 \t   4096\n"
	"\tRegion      1 \t   4096 \t   4096\n"
	"\tRegion      2 \t   3996 \t   3992\n"
	"\tRegion      3 \t   4008 \t   3984\n"
	"\n"
	"    nr_free_pages 16168\n";

static void test_region_by_hand(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	char *out, *from, *to;

	tm_flat(&t, 0, 16384, 1);
	t.holes[0] = (struct mpm_hole_spec){ 9300, 9400 };
	t.holes[1] = (struct mpm_hole_spec){ 13312, 13400 };
	t.spec.nr_holes = 2;
	t.spec.holes = t.holes;
	t.spec.region_shift = 12;
	t.spec.region_absolute = true;
	m = tm_create(&t);

	out = print_str(m, mpm_print_buddyinfo, NULL);
	check_text("buddyinfo at boot", out, hand_buddyinfo_boot);
	free(out);

	CHECK_EQ_U(mpm_alloc_pages(m, MPM_GFP_KERNEL, 3, 0), 13400);
	CHECK_EQ_U(mpm_alloc_pages(m, MPM_GFP_KERNEL, 4, 0), 13408);
	CHECK_EQ_U(mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 2, 0), 9296);
	CHECK(tm_check(m) == 0);

	out = print_str(m, mpm_print_buddyinfo, NULL);
	check_text("buddyinfo after", out, hand_buddyinfo_after);
	free(out);
	out = print_str(m, mpm_print_pagetypeinfo, NULL);
	check_text("pagetypeinfo after", out, hand_pagetypeinfo_after);
	free(out);
	out = print_str(m, mpm_print_zoneinfo, NULL);
	from = strstr(out, "        managed");
	to = from ? strstr(from, " 16168\n") : NULL;
	CHECK(to != NULL);
	if (!to)
		fprintf(stderr, "zoneinfo after:\n%s", out);
	if (to) {
		to[strlen(" 16168\n")] = '\0';
		check_text("zoneinfo after", from, hand_zoneinfo_after);
	}
	free(out);
	mpm_machine_destroy(m);
}

/*
 * Two nodes, three zones, regions of 8192 pages from each node's start:
 * node 0 begins at pfn 1, so DMA32's region boundaries are out of step with
 * its pageblocks and its region 0 is [4096, 8193); region 2 of DMA32 is
 * partly a hole, region 1 of node 1's Normal zone wholly one, and node 1
 * has memblock-reserved pages.  Allocations of every pcp and buddy kind,
 * some freed again, leave non-trivial counts.
 */
static struct mpm_machine *region_machine(void)
{
	static struct test_machine t;
	static struct mpm_hole_spec reserved[1];
	static uint64_t small[64];
	struct mpm_machine *m;
	uint64_t pfn, big[4];

	memset(&t, 0, sizeof(t));
	t.zones[0] = (struct mpm_zone_spec){ 0, MPM_ZONE_DMA, 1, 4096 };
	t.zones[1] = (struct mpm_zone_spec){ 0, MPM_ZONE_DMA32, 4096, 40960 };
	t.zones[2] = (struct mpm_zone_spec){ 1, MPM_ZONE_NORMAL, 40960, 90112 };
	t.holes[0] = (struct mpm_hole_spec){ 0x9f, 0x100 };
	t.holes[1] = (struct mpm_hole_spec){ 20000, 23000 };
	t.holes[2] = (struct mpm_hole_spec){ 49152, 57344 };
	reserved[0] = (struct mpm_hole_spec){ 41000, 41100 };
	tm_link(&t, 2, 3, 3);
	t.spec.nr_reserved = 1;
	t.spec.reserved = reserved;
	t.spec.nr_cpus = 4;
	t.spec.region_shift = 13;
	m = tm_create(&t);

	/* order-0 movable pages through cpu 0's pcp lists; every other freed hot */
	REQUIRE(mpm_alloc_pages_bulk(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0, 64, small) == 64);
	for (int i = 0; i < 64; i += 2)
		REQUIRE(mpm_free_pages(m, small[i], 0, 0) == 0);
	/* unmovable and reclaimable blocks on both nodes, one freed again */
	for (int i = 0; i < 3; i++)
		REQUIRE(mpm_alloc_pages(m, MPM_GFP_KERNEL, 3, 1) != MPM_NO_PFN);
	REQUIRE((pfn = mpm_alloc_pages(m, MPM_GFP_KERNEL, 3, 1)) != MPM_NO_PFN);
	REQUIRE(mpm_free_pages(m, pfn, 3, 1) == 0);
	for (int i = 0; i < 2; i++)
		REQUIRE(mpm_alloc_pages(m, MPM_GFP_TEMPORARY, 5, 2) != MPM_NO_PFN);
	/* huge-page sized movable blocks on node 1, one freed */
	for (int i = 0; i < 4; i++)
		REQUIRE((big[i] = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 9, 3)) !=
			MPM_NO_PFN);
	REQUIRE(mpm_free_pages(m, big[1], 9, 3) == 0);
	/* a DMA block */
	REQUIRE(mpm_alloc_pages(m, MPM_GFP_KERNEL | MPM_GFP_DMA, 2, 0) != MPM_NO_PFN);
	/* cpu 0's pcp pages back to the buddy lists, freed order-0 pages among them */
	mpm_drain_local_pages(m, 0);
	return m;
}

static unsigned long sum_line(const char *line, int skip, int n, unsigned long *v)
{
	unsigned long total = 0;
	const char *p = line + skip;

	for (int i = 0; i < n; i++) {
		char *end;

		v[i] = strtoul(p, &end, 10);
		CHECK(end != p);
		p = end;
		total += v[i];
	}
	return total;
}

/*
 * On the two-node machine: every zone's region lines add up to what the
 * stock per-zone figures say (free_area nr_free per order, the zone's
 * pagetypeinfo lines, its free pages), and zoneinfo's present column adds
 * up to the zone's present pages.
 */
static void test_region_sums(struct mpm_machine *m)
{
	char *bi = print_str(m, mpm_print_buddyinfo, NULL);
	char *pt = print_str(m, mpm_print_pagetypeinfo, NULL);
	char *zi = print_str(m, mpm_print_zoneinfo, NULL);

	for (unsigned int zid = 0; zid < m->nr_zones; zid++) {
		struct zone *z = &m->zones[zid];
		const char *name = mpm_zone_name(z->type);
		unsigned long sum[MAX_ORDER] = { 0 }, v[MAX_ORDER], blocks[MIGRATE_TYPES] = { 0 };
		unsigned long present = 0, free_pages = 0, zone_blocks = 0, region_blocks = 0;
		char key[64];
		const char *p;

		/* buddyinfo: the zone's header, then one line per region */
		snprintf(key, sizeof(key), "Node %u, zone %8s \n", z->node, name);
		p = strstr(bi, key);
		CHECK(p != NULL);
		if (!p)
			continue;
		p += strlen(key);
		for (unsigned int r = 0; r < z->nr_regions; r++) {
			char want[32];

			snprintf(want, sizeof(want), "\t\t Region %6u ", r);
			CHECK(strncmp(p, want, strlen(want)) == 0);
			sum_line(p, (int)strlen(want), MAX_ORDER, v);
			for (int o = 0; o < MAX_ORDER; o++)
				sum[o] += v[o];
			p = strchr(p, '\n') + 1;
		}
		CHECK(*p == '\n');
		for (int o = 0; o < MAX_ORDER; o++)
			CHECK_EQ_U(sum[o], READ_ONCE(z->free_area[o].nr_free));

		/* pagetypeinfo: region free lines per migratetype add up to the zone's */
		for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
			unsigned long zone_v[MAX_ORDER];

			snprintf(key, sizeof(key), "Node %4u, zone %8s, type %12s ", z->node, name,
				 mpm_migratetype_name(mt));
			p = strstr(pt, key);
			CHECK(p != NULL);
			if (!p)
				continue;
			sum_line(p, (int)strlen(key), MAX_ORDER, zone_v);
			memset(sum, 0, sizeof(sum));
			for (unsigned int r = 0; r < z->nr_regions; r++) {
				snprintf(key, sizeof(key), "Node %4u, zone %8s, R%3u %12s ", z->node,
					 name, r, mpm_migratetype_name(mt));
				p = strstr(pt, key);
				CHECK(p != NULL);
				if (!p)
					continue;
				sum_line(p, (int)strlen(key), MAX_ORDER, v);
				for (int o = 0; o < MAX_ORDER; o++)
					sum[o] += v[o];
			}
			for (int o = 0; o < MAX_ORDER; o++)
				CHECK_EQ_U(sum[o], zone_v[o]);
		}

		/* pagetypeinfo: region pageblock lines add up to the zone line */
		snprintf(key, sizeof(key), "Node %u, zone %8s      ", z->node, name);
		p = strstr(pt, key);
		CHECK(p != NULL);
		if (p)
			zone_blocks = sum_line(p, (int)strlen(key), MIGRATE_TYPES, blocks);
		for (unsigned int r = 0; r < z->nr_regions; r++) {
			unsigned long rb[MIGRATE_TYPES];

			snprintf(key, sizeof(key), "Node %u, zone %8s R%3u ", z->node, name, r);
			p = strstr(pt, key);
			CHECK(p != NULL);
			if (!p)
				continue;
			region_blocks += sum_line(p, (int)strlen(key), MIGRATE_TYPES, rb);
			for (int mt = 0; mt < MIGRATE_TYPES; mt++)
				blocks[mt] -= rb[mt];
		}
		CHECK(zone_blocks > 0);
		CHECK_EQ_U(region_blocks, zone_blocks);
		for (int mt = 0; mt < MIGRATE_TYPES; mt++)
			CHECK_EQ_U(blocks[mt], 0);

		/* zoneinfo: the region block right after "managed" */
		snprintf(key, sizeof(key), "Node %u, zone %8s\n", z->node, name);
		p = strstr(zi, key);
		CHECK(p != NULL);
		if (!p)
			continue;
		p = strstr(p, "        managed  ");
		REQUIRE(p);
		p = strchr(p, '\n');
		CHECK(strncmp(p, "\n\nPer-region page stats\t present\t free\n\n", 40) == 0);
		p += 40;
		for (unsigned int r = 0; r < z->nr_regions; r++) {
			unsigned int id;
			unsigned long pr, fr;

			CHECK(sscanf(p, "\tRegion %u \t %lu \t %lu\n", &id, &pr, &fr) == 3);
			CHECK_EQ_U(id, r);
			CHECK_EQ_U(pr, z->regions[r].present_pages);
			CHECK(fr <= pr);
			present += pr;
			free_pages += fr;
			p = strchr(p, '\n') + 1;
		}
		CHECK(strncmp(p, "\n    nr_free_pages ", 19) == 0);
		CHECK_EQ_U(present, z->present_pages);
		CHECK_EQ_U(free_pages, (unsigned long)READ_ONCE(z->vm_free_pages));
	}
	free(bi);
	free(pt);
	free(zi);
}

/* The chunked count (no table for the whole zone) prints the same. */
static void test_region_chunks(struct mpm_machine *m)
{
	char *bi = print_str(m, mpm_print_buddyinfo, NULL);
	char *pt = print_str(m, mpm_print_pagetypeinfo, NULL);
	char *bi2, *pt2;

	region_table_chunk = 2;
	bi2 = print_str(m, mpm_print_buddyinfo, NULL);
	pt2 = print_str(m, mpm_print_pagetypeinfo, NULL);
	region_table_chunk = 0;
	check_text("buddyinfo in chunks", bi2, bi);
	check_text("pagetypeinfo in chunks", pt2, pt);
	free(bi);
	free(pt);
	free(bi2);
	free(pt2);
}

/* The value of the /proc/vmstat line @key in @text, or -1. */
static long long vmstat_value(const char *text, const char *key)
{
	size_t len = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, len) && p[len] == ' ')
			return strtoll(p + len + 1, NULL, 10);
	return -1;
}

/*
 * /proc/vmstat's global items against the zones': nr_alloc_batch is the sum
 * of the zones' batches clamped once (global_page_state), so a zone
 * overdrawn by a large allocation lowers it; pgfree counts the boot frees
 * of free_all_bootmem, one per managed page, and the frees since.
 */
static void test_vmstat_globals(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	long long batch = 0, managed = 0;
	char *text;
	uint64_t pfn;

	/* two 1 GiB zones: an order-9 allocation overdraws Normal's batch */
	tm_small_pc(&t, MPM_ZONE_DMA32, MPM_ZONE_NORMAL, 262144, 524288, 18);
	t.spec.nr_cpus = 1;
	m = tm_create(&t);
	text = print_str(m, mpm_print_vmstat, NULL);
	for (unsigned int i = 0; i < m->nr_zones; i++)
		managed += (long long)m->zones[i].managed_pages;
	CHECK(managed > 0);
	CHECK_EQ_U(vmstat_value(text, "pgfree"), managed);
	free(text);

	pfn = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 9, 0);
	REQUIRE(pfn != MPM_NO_PFN);
	for (unsigned int i = 0; i < m->nr_zones; i++)
		batch += m->zones[i].vm_alloc_batch;
	CHECK(m->zones[1].vm_alloc_batch < 0);	/* the case under test */
	text = print_str(m, mpm_print_vmstat, NULL);
	CHECK_EQ_U(vmstat_value(text, "nr_alloc_batch"), batch < 0 ? 0 : batch);
	free(text);

	REQUIRE(mpm_free_pages(m, pfn, 9, 0) == 0);
	text = print_str(m, mpm_print_vmstat, NULL);
	CHECK_EQ_U(vmstat_value(text, "pgfree"), managed + 512);
	free(text);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

/*
 * Two formulas whose results the golden files do not reach:
 * global_dirtyable_memory() returns free + reclaimable + 1, so on 8192
 * pages with 8184 free and no watermark nr_dirty_threshold is
 * (8184 + 1) * 20 / 100 = 1637; calculate_zone_inactive_ratio is
 * int_sqrt(10 * GiB) for a zone of a GiB or more, so a 4 GiB zone prints
 * 6 (the golden zones are smaller and print 1).
 */
static void test_dirty_threshold_and_inactive_ratio(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	char *text;

	m = tm_flat_nowmark(&t, 8192, 1);
	REQUIRE(mpm_alloc_pages(m, MPM_GFP_KERNEL, 3, 0) != MPM_NO_PFN);
	text = print_str(m, mpm_print_vmstat, NULL);
	CHECK_EQ_U(vmstat_value(text, "nr_free_pages"), 8184);
	CHECK_EQ_U(vmstat_value(text, "nr_dirty_threshold"), 1637);
	free(text);
	mpm_machine_destroy(m);

	tm_flat(&t, 0, GiB_PAGES(4), 1);
	m = tm_create(&t);
	text = print_str(m, mpm_print_zoneinfo, NULL);
	CHECK(strstr(text, "\n  inactive_ratio:    6\n") != NULL);
	free(text);
	mpm_machine_destroy(m);
}

int main(void)
{
	struct mpm_machine *m = golden_machine();

	CHECK(tm_check(m) == 0);
	golden(m, "buddyinfo.txt", mpm_print_buddyinfo);
	golden(m, "pagetypeinfo.txt", mpm_print_pagetypeinfo);
	golden(m, "zoneinfo.txt", mpm_print_zoneinfo);
	golden(m, "vmstat.txt", mpm_print_vmstat);
	test_buddyinfo_shape(m);
	mpm_machine_destroy(m);

	test_region_by_hand();
	test_vmstat_globals();
	test_dirty_threshold_and_inactive_ratio();

	m = region_machine();
	CHECK(tm_check(m) == 0);
	golden(m, "regions_buddyinfo.txt", mpm_print_buddyinfo);
	golden(m, "regions_pagetypeinfo.txt", mpm_print_pagetypeinfo);
	golden(m, "regions_zoneinfo.txt", mpm_print_zoneinfo);
	test_region_sums(m);
	test_region_chunks(m);
	mpm_machine_destroy(m);
	return t_report("core/printers");
}
