// SPDX-License-Identifier: MIT
/*
 * Specs brought to life: the core must see the layouts that the io layer
 * meant, down to the published region numbers of the cover-letter machine.
 */
#include <string.h>

#include <mempower/mempower.h>

#include "io/machine_spec.h"
#include "testlib.h"

static struct mpm_machine *create(const char *machine, const char *region)
{
	struct mpm_machine_opts o = { .machine = machine, .region_size = region };
	struct mpm_spec_buf b;
	struct mpm_machine *m;
	char err[256];

	if (mpm_machine_spec_build(&o, &b, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", machine, err);
		return NULL;
	}
	m = mpm_machine_create(&b.spec, err, sizeof(err));
	if (!m)
		fprintf(stderr, "%s: mpm_machine_create: %s\n", machine, err);
	mpm_spec_buf_free(&b);	/* the machine keeps no pointer into the spec */
	return m;
}

static void test_sandybridge(void)
{
	struct mpm_machine *m = create("sandybridge-128g", NULL);
	struct mpm_zone_info zi;
	struct mpm_region_info ri;

	REQUIRE(m);
	CHECK_EQ_U(mpm_nr_nodes(m), 2);
	CHECK_EQ_U(mpm_nr_cpus(m), 16);
	CHECK_EQ_U(mpm_nr_zones(m), 4);
	CHECK_EQ_U(mpm_region_pages(m), 131072);

	/* node 0 ZONE_NORMAL: [4 GiB, 66 GiB), as the cover letter's zoneinfo */
	mpm_zone_info(m, 2, &zi);
	CHECK_EQ_U(zi.node, 0);
	CHECK_EQ_U(zi.type, MPM_ZONE_NORMAL);
	CHECK_EQ_U(zi.start_pfn, 0x100000);
	CHECK_EQ_U(zi.spanned, 16252928);
	CHECK_EQ_U(zi.present, 16252928);
	CHECK_EQ_U(zi.nr_regions, 125);

	/* Node regions start at pfn 1, so the zone begins with a 1-page stub. */
	mpm_region_info(m, 2, 0, &ri);
	CHECK_EQ_U(ri.start_pfn, 0x100000);
	CHECK_EQ_U(ri.end_pfn, 0x100001);
	CHECK_EQ_U(ri.present, 1);
	for (unsigned int rid = 1; rid < 124; rid++) {
		mpm_region_info(m, 2, rid, &ri);
		if (ri.present != 131072 || ri.start_pfn != 0x100001 + (rid - 1) * 131072ull) {
			fprintf(stderr, "region %u: start %llu present %llu\n", rid,
				(unsigned long long)ri.start_pfn, (unsigned long long)ri.present);
			CHECK(0);
			break;
		}
	}
	mpm_region_info(m, 2, 124, &ri);
	CHECK_EQ_U(ri.present, 131071);
	CHECK_EQ_U(ri.end_pfn, 0x1080000);

	/* DMA32 holds 2 GiB of RAM below the MMIO hole. */
	mpm_zone_info(m, 1, &zi);
	CHECK_EQ_U(zi.type, MPM_ZONE_DMA32);
	CHECK_EQ_U(zi.present, 0x80000 - 4096);
	mpm_zone_info(m, 0, &zi);
	CHECK_EQ_U(zi.present, 4095 - 97);
	mpm_zone_info(m, 3, &zi);
	CHECK_EQ_U(zi.node, 1);
	CHECK_EQ_U(zi.start_pfn, 0x1080000);
	CHECK_EQ_U(zi.present, 64ull << 18);
	CHECK_EQ_U(mpm_total_pages(m), (128ull << 18) - 98);
	/* after boot every region with present pages is free */
	CHECK_EQ_U(mpm_free_regions(m), mpm_regions_total(m));
	mpm_machine_destroy(m);
}

static void test_sizes(void)
{
	static const char *const sizes[] = { "4M", "16M", "1G", "3G", "5G", "2x2G" };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct mpm_machine *m = create(sizes[i], "4M");
		struct mpm_machine_opts o = { .machine = sizes[i] };
		struct mpm_spec_buf b;
		uint64_t want = 0;
		char err[256];

		CHECK(m);
		if (!m)
			continue;
		REQUIRE(mpm_machine_spec_build(&o, &b, err, sizeof(err)) == 0);
		for (unsigned int z = 0; z < b.spec.nr_zones; z++)
			want += b.spec.zones[z].end_pfn - b.spec.zones[z].start_pfn;
		for (unsigned int h = 0; h < b.spec.nr_holes; h++)
			want -= b.spec.holes[h].end_pfn - b.spec.holes[h].start_pfn;
		CHECK_EQ_U(mpm_total_pages(m), want);
		CHECK_EQ_U(mpm_nr_zones(m), b.spec.nr_zones);
		CHECK_EQ_U(mpm_nr_nodes(m), b.spec.nr_nodes);
		mpm_spec_buf_free(&b);
		mpm_machine_destroy(m);
	}
}

int main(void)
{
	test_sizes();
	test_sandybridge();
	return t_report("io/test_machine_layout");
}
