// SPDX-License-Identifier: MIT
/*
 * memblock's reservations before the allocator: the kernel image at
 * 16 MiB wherever node 0 has memory there (on x86 in DMA32, not in the
 * first zone), never across a hole, and each node's memmap at its top.
 */
#include "io/machine_spec.h"
#include "sim/boot_reserve.h"
#include "testlib.h"

#define IMAGE_START	0x1000u	/* 16 MiB */
#define IMAGE_END	0x2000u	/* 32 MiB */

static unsigned int count_image(const struct mpm_boot_reserve *r)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < r->n; i++)
		n += r->r[i].start_pfn == IMAGE_START && r->r[i].end_pfn == IMAGE_END;
	return n;
}

int main(void)
{
	struct mpm_spec_buf b;
	struct mpm_boot_reserve r;

	/* the cover-letter layout: DMA [1, 4096) first, the image in DMA32 */
	mpm_spec_buf_init(&b);
	REQUIRE(mpm_spec_x86(&b, 2, 64ull << 30, 0xc0000) == 0);
	CHECK_EQ_U(b.spec.zones[0].end_pfn, 4096);
	mpm_boot_reserve(&b.spec, &r);
	CHECK_EQ_U(count_image(&r), 1);
	CHECK_EQ_U(r.n, 3);	/* image + one memmap per node */
	CHECK(b.spec.reserved == r.r && b.spec.nr_reserved == r.n);
	/* memmap: 64 B per page at the top of each node, above the image */
	CHECK_EQ_U(r.r[1].end_pfn, b.spec.zones[2].end_pfn);
	CHECK_EQ_U(r.r[2].end_pfn, b.spec.zones[3].end_pfn);
	CHECK(r.r[1].start_pfn > IMAGE_END);
	/*
	 * and sized by the node's own present pages: node 0 loses DMA's
	 * pfn 0 and the PCI hole below 4 GiB, node 1 (all present) loses
	 * nothing -- node 0's holes are not node 1's
	 */
	CHECK_EQ_U(b.spec.nr_holes, 2);	/* the legacy hole in DMA, the PCI hole */
	CHECK_EQ_U(r.r[1].end_pfn - r.r[1].start_pfn,
		   ((64ull << 18) - 1 - (b.spec.holes[0].end_pfn - b.spec.holes[0].start_pfn)) *
			   64 / 4096);
	CHECK_EQ_U(r.r[2].end_pfn - r.r[2].start_pfn, (64ull << 18) * 64 / 4096);
	mpm_spec_buf_free(&b);

	/* one zone from pfn 0: the first zone holds the image */
	mpm_spec_buf_init(&b);
	b.spec.nr_nodes = 1;
	REQUIRE(mpm_spec_add_zone(&b, 0, MPM_ZONE_NORMAL, 0, 1u << 20) == 0);
	mpm_boot_reserve(&b.spec, &r);
	CHECK_EQ_U(count_image(&r), 1);
	mpm_spec_buf_free(&b);

	/* a hole across 16-32 MiB: no image there */
	mpm_spec_buf_init(&b);
	b.spec.nr_nodes = 1;
	REQUIRE(mpm_spec_add_zone(&b, 0, MPM_ZONE_NORMAL, 0, 1u << 20) == 0);
	REQUIRE(mpm_spec_add_hole(&b, 0x1800, 0x1900) == 0);
	mpm_boot_reserve(&b.spec, &r);
	CHECK_EQ_U(count_image(&r), 0);
	mpm_spec_buf_free(&b);

	/* node 0 ends below 32 MiB (a tiny machine): no image */
	mpm_spec_buf_init(&b);
	b.spec.nr_nodes = 1;
	REQUIRE(mpm_spec_add_zone(&b, 0, MPM_ZONE_NORMAL, 0, 0x1800) == 0);
	mpm_boot_reserve(&b.spec, &r);
	CHECK_EQ_U(count_image(&r), 0);
	mpm_spec_buf_free(&b);

	return t_report("test_boot_reserve");
}
