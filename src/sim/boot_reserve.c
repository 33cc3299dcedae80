// SPDX-License-Identifier: MIT
#include "sim/boot_reserve.h"

#define KERNEL_LOAD_PFN		0x1000u		/* CONFIG_PHYSICAL_START 16 MiB */
#define KERNEL_IMAGE_PAGES	0x1000u		/* 16 MiB: text, data, bss (estimate) */
#define STRUCT_PAGE_BYTES	64

/* Pages of holes within [@start, @end). */
static uint64_t hole_pages_in(const struct mpm_machine_spec *s, uint64_t start, uint64_t end)
{
	uint64_t pages = 0;

	for (unsigned int h = 0; h < s->nr_holes; h++) {
		uint64_t hs = s->holes[h].start_pfn > start ? s->holes[h].start_pfn : start;
		uint64_t he = s->holes[h].end_pfn < end ? s->holes[h].end_pfn : end;

		if (hs < he)
			pages += he - hs;
	}
	return pages;
}

/*
 * Present pages of node @n (its zones' spans less the holes inside them)
 * and, in *@end, the node's last pfn + 1: the size and the top of its
 * memmap.  A hole counts only inside the node's own zones -- the PCI hole
 * below 4 GiB is node 0's, not every node's.
 */
static uint64_t node_present(const struct mpm_machine_spec *s, unsigned int n,
			     uint64_t *end)
{
	uint64_t pages = 0;

	*end = 0;
	for (unsigned int i = 0; i < s->nr_zones; i++) {
		uint64_t zs = s->zones[i].start_pfn, ze = s->zones[i].end_pfn;

		if (s->zones[i].node != n)
			continue;
		pages += ze - zs - hole_pages_in(s, zs, ze);
		*end = ze;
	}
	return pages;
}

/*
 * The image is loaded at CONFIG_PHYSICAL_START where node 0 has memory all
 * through [16 MiB, 32 MiB): one zone covers the range and no hole cuts it.
 * On x86 that zone is DMA32 -- DMA ends at 16 MiB, so the first zone alone
 * never holds the image.
 */
static bool kernel_image_fits(const struct mpm_machine_spec *s)
{
	const uint64_t start = KERNEL_LOAD_PFN, end = KERNEL_LOAD_PFN + KERNEL_IMAGE_PAGES;

	if (hole_pages_in(s, start, end))
		return false;
	for (unsigned int i = 0; i < s->nr_zones; i++)
		if (s->zones[i].node == 0 && s->zones[i].start_pfn <= start &&
		    s->zones[i].end_pfn >= end)
			return true;
	return false;
}

void mpm_boot_reserve(struct mpm_machine_spec *spec, struct mpm_boot_reserve *res)
{
	res->n = 0;
	if (kernel_image_fits(spec))
		res->r[res->n++] = (struct mpm_hole_spec){ KERNEL_LOAD_PFN,
							   KERNEL_LOAD_PFN + KERNEL_IMAGE_PAGES };
	for (unsigned int n = 0; n < spec->nr_nodes && n < MPM_MAX_NUMNODES; n++) {
		uint64_t end, memmap = node_present(spec, n, &end) * STRUCT_PAGE_BYTES / MPM_PAGE_SIZE;

		if (memmap && end > memmap &&
		    (!res->n || end - memmap >= res->r[res->n - 1].end_pfn))
			res->r[res->n++] = (struct mpm_hole_spec){ end - memmap, end };
	}
	spec->reserved = res->r;
	spec->nr_reserved = res->n;
}
