// SPDX-License-Identifier: MIT
/*
 * --machine SPEC and its refining options: the x86_64 layouts, presets,
 * and every refusal.  Pure parsing; no machine is built here.
 */
#include <string.h>

#include "io/machine_spec.h"
#include "testlib.h"

static struct mpm_spec_buf b;
static char err[256];

static int build(const char *machine, const char *region, const char *align,
		 const char *pbo, const char *cpus)
{
	struct mpm_machine_opts o = {
		.machine = machine, .region_size = region, .region_align = align,
		.pageblock_order = pbo, .cpus = cpus,
	};

	mpm_spec_buf_free(&b);
	err[0] = '\0';
	return mpm_machine_spec_build(&o, &b, err, sizeof(err));
}

static int zone_is(unsigned int i, unsigned int node, enum mpm_zone_type t,
		   uint64_t s, uint64_t e)
{
	const struct mpm_zone_spec *z = &b.spec.zones[i];

	if (i >= b.spec.nr_zones)
		return 0;
	if (z->node == node && z->type == t && z->start_pfn == s && z->end_pfn == e)
		return 1;
	fprintf(stderr, "zone %u: node %u type %d [%#llx, %#llx)\n", i, z->node,
		z->type, (unsigned long long)z->start_pfn, (unsigned long long)z->end_pfn);
	return 0;
}

static int hole_is(unsigned int i, uint64_t s, uint64_t e)
{
	return i < b.spec.nr_holes && b.spec.holes[i].start_pfn == s &&
	       b.spec.holes[i].end_pfn == e;
}

/* Present pages implied by the spec: spans minus holes. */
static uint64_t present(void)
{
	uint64_t p = 0;

	for (unsigned int i = 0; i < b.spec.nr_zones; i++)
		p += b.spec.zones[i].end_pfn - b.spec.zones[i].start_pfn;
	for (unsigned int i = 0; i < b.spec.nr_holes; i++)
		p -= b.spec.holes[i].end_pfn - b.spec.holes[i].start_pfn;
	return p;
}

static void test_single_node(void)
{
	REQUIRE(build("16G", NULL, NULL, NULL, NULL) == 0);
	CHECK_EQ_U(b.spec.nr_nodes, 1);
	CHECK_EQ_U(b.spec.nr_zones, 3);
	CHECK(zone_is(0, 0, MPM_ZONE_DMA, 1, 4096));
	CHECK(zone_is(1, 0, MPM_ZONE_DMA32, 4096, 0x100000));
	CHECK(zone_is(2, 0, MPM_ZONE_NORMAL, 0x100000, 0x100000 + (13ull << 18)));
	CHECK_EQ_U(b.spec.nr_holes, 2);
	CHECK(hole_is(0, 0x9f, 0x100));
	CHECK(hole_is(1, 0xc0000, 0x100000));
	CHECK_EQ_U(present(), (16ull << 18) - 1 - 97);
	/* defaults */
	CHECK_EQ_U(b.spec.region_shift, 17);
	CHECK_EQ_U(b.region_bytes, 512ull << 20);
	CHECK(!b.spec.region_absolute);
	CHECK_EQ_U(b.spec.pageblock_order, 10);
	CHECK_EQ_U(b.spec.nr_cpus, 4);
	CHECK_EQ_U(b.spec.min_free_kbytes, 0);
	CHECK_EQ_U(b.spec.node_start_pfn[0], 0);

	/* exactly 3 GiB: DMA32 ends at the size, no hole, no Normal */
	REQUIRE(build("3G", NULL, NULL, NULL, NULL) == 0);
	CHECK_EQ_U(b.spec.nr_zones, 2);
	CHECK(zone_is(1, 0, MPM_ZONE_DMA32, 4096, 0xc0000));
	CHECK_EQ_U(b.spec.nr_holes, 1);
	CHECK_EQ_U(present(), (3ull << 18) - 98);

	/* 3 GiB + 4 KiB: the extra page lands at 4 GiB */
	REQUIRE(build("3145732K", NULL, NULL, NULL, NULL) == 0);
	CHECK(zone_is(2, 0, MPM_ZONE_NORMAL, 0x100000, 0x100001));

	/* 16 MiB and below: ZONE_DMA only */
	REQUIRE(build("16M", NULL, NULL, NULL, NULL) == 0);
	CHECK_EQ_U(b.spec.nr_zones, 1);
	CHECK(zone_is(0, 0, MPM_ZONE_DMA, 1, 4096));
	REQUIRE(build("4M", NULL, NULL, NULL, NULL) == 0);
	CHECK(zone_is(0, 0, MPM_ZONE_DMA, 1, 1024));
	CHECK_EQ_U(present(), 1024 - 98);
	REQUIRE(build("1G", NULL, NULL, NULL, NULL) == 0);
	CHECK(zone_is(1, 0, MPM_ZONE_DMA32, 4096, 1ull << 18));
}

static void test_multi_node(void)
{
	REQUIRE(build("2x64G", NULL, NULL, NULL, NULL) == 0);
	CHECK_EQ_U(b.spec.nr_nodes, 2);
	CHECK_EQ_U(b.spec.nr_zones, 4);
	CHECK(zone_is(2, 0, MPM_ZONE_NORMAL, 0x100000, 0x100000 + (61ull << 18)));
	CHECK(zone_is(3, 1, MPM_ZONE_NORMAL, 0x100000 + (61ull << 18),
		      0x100000 + (125ull << 18)));
	CHECK_EQ_U(present(), (128ull << 18) - 98);

	REQUIRE(build("4X1G", NULL, NULL, NULL, NULL) == 0);
	CHECK_EQ_U(b.spec.nr_nodes, 4);
	CHECK(zone_is(2, 1, MPM_ZONE_NORMAL, 1ull << 18, 2ull << 18));
	CHECK(zone_is(4, 3, MPM_ZONE_NORMAL, 3ull << 18, 4ull << 18));

	CHECK(build("64x1G", NULL, NULL, NULL, NULL) == 0);
	CHECK(build("65x1G", NULL, NULL, NULL, NULL) == -1 && strstr(err, "1..64"));
	CHECK(build("0x1G", NULL, NULL, NULL, NULL) == -1);
	CHECK(build("x1G", NULL, NULL, NULL, NULL) == -1);
	CHECK(build("2x", NULL, NULL, NULL, NULL) == -1);
	CHECK(build("2x1Gx3", NULL, NULL, NULL, NULL) == -1);
	CHECK(build("99999999999999999999x1G", NULL, NULL, NULL, NULL) == -1);
	CHECK(build("64x1P", NULL, NULL, NULL, NULL) == -1 && strstr(err, "maximum"));
}

static void test_presets(void)
{
	REQUIRE(build("sandybridge-128g", NULL, NULL, NULL, NULL) == 0);
	CHECK_EQ_U(b.spec.nr_nodes, 2);
	CHECK_EQ_U(b.spec.nr_cpus, 16);
	CHECK_EQ_U(b.spec.region_shift, 17);
	CHECK(zone_is(0, 0, MPM_ZONE_DMA, 1, 4096));
	CHECK(zone_is(1, 0, MPM_ZONE_DMA32, 4096, 0x100000));
	CHECK(zone_is(2, 0, MPM_ZONE_NORMAL, 0x100000, 0x1080000));
	CHECK(zone_is(3, 1, MPM_ZONE_NORMAL, 0x1080000, 0x2080000));
	CHECK(hole_is(0, 0x9f, 0x100));
	CHECK(hole_is(1, 0x80000, 0x100000));
	CHECK_EQ_U(b.spec.zones[2].end_pfn - b.spec.zones[2].start_pfn, 16252928);

	/* options override the preset */
	REQUIRE(build("sandybridge-128g", "1G", "absolute", "9", "2") == 0);
	CHECK_EQ_U(b.spec.region_shift, 18);
	CHECK(b.spec.region_absolute);
	CHECK_EQ_U(b.spec.pageblock_order, 9);
	CHECK_EQ_U(b.spec.nr_cpus, 2);

	REQUIRE(build("server-2t", NULL, NULL, NULL, NULL) == 0);
	CHECK_EQ_U(b.spec.nr_nodes, 4);
	CHECK_EQ_U(present(), (2ull << 28) - 98);

	/* the default machine is the cover-letter machine */
	REQUIRE(build(NULL, NULL, NULL, NULL, NULL) == 0);
	CHECK_EQ_U(b.spec.nr_cpus, 16);
	CHECK(build("Sandybridge-128g", NULL, NULL, NULL, NULL) == -1);
}

static void test_refusals(void)
{
	CHECK(build("", NULL, NULL, NULL, NULL) == -1 && err[0]);
	CHECK(build("lots", NULL, NULL, NULL, NULL) == -1 && strstr(err, "malformed machine spec"));
	CHECK(build("-16G", NULL, NULL, NULL, NULL) == -1 && strstr(err, "malformed"));
	CHECK(build("16Q", NULL, NULL, NULL, NULL) == -1 && strstr(err, "malformed"));
	CHECK(build("16G ", NULL, NULL, NULL, NULL) == -1);
	CHECK(build("2M", NULL, NULL, NULL, NULL) == -1 && strstr(err, "minimum of 4M"));
	CHECK(build("0", NULL, NULL, NULL, NULL) == -1 && strstr(err, "minimum"));
	CHECK(build("4194305", NULL, NULL, NULL, NULL) == -1 && strstr(err, "multiple of 4K"));
	CHECK(build("8P", NULL, NULL, NULL, NULL) == -1 && strstr(err, "maximum"));

	CHECK(build("16G", "384M", NULL, NULL, NULL) == -1 && strstr(err, "power of two"));
	CHECK(build("16G", "2M", NULL, NULL, NULL) == -1 && strstr(err, "smaller than a pageblock"));
	CHECK(build("16G", "2M", NULL, "9", NULL) == 0 && b.spec.region_shift == 9);
	CHECK(build("16G", "1M", NULL, "9", NULL) == -1 && strstr(err, "pageblock"));
	CHECK(build("16G", "0", NULL, NULL, NULL) == -1);
	CHECK(build("16G", "8P", NULL, NULL, NULL) == -1 && strstr(err, "larger"));
	CHECK(build("16G", "huge", NULL, NULL, NULL) == -1 && strstr(err, "malformed size"));
	CHECK(build("16G", NULL, "page", NULL, NULL) == -1 && strstr(err, "alignment"));
	CHECK(build("16G", NULL, NULL, "11", NULL) == -1 && strstr(err, "pageblock order"));
	CHECK(build("16G", NULL, NULL, "", NULL) == -1);
	/* counts are decimals with any leading zeros, as --cpus takes them */
	CHECK(build("16G", NULL, NULL, "09", "04") == 0 && b.spec.pageblock_order == 9 &&
	      b.spec.nr_cpus == 4);
	CHECK(build("16G", NULL, NULL, "9.0", NULL) == -1 && strstr(err, "pageblock order"));
	CHECK(build("16G", NULL, NULL, NULL, "0") == -1 && strstr(err, "cpu count"));
	CHECK(build("16G", NULL, NULL, NULL, "1025") == -1);
	CHECK(build("16G", NULL, NULL, NULL, "4x") == -1);
	CHECK(build("16G", NULL, NULL, NULL, "1024") == 0 && b.spec.nr_cpus == 1024);
	/* a failed build leaves nothing behind */
	CHECK(build("lots", NULL, NULL, NULL, NULL) == -1 && !b.zones && !b.spec.nr_zones);
}

int main(void)
{
	test_single_node();
	test_multi_node();
	test_presets();
	test_refusals();
	mpm_spec_buf_free(&b);
	return t_report("io/test_machine_spec");
}
