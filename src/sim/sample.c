// SPDX-License-Identifier: MIT
/*
 * The bound every policy is scored against: ideal_free_regions, the free
 * regions a perfect packing of the same used pages would leave.  Per zone,
 * used pages can be moved anywhere except onto reserved pages, so the best
 * packing frees the most regions by emptying the smallest first: sort the
 * zone's regions without reserved pages by present pages and count how many
 * the zone's free pages can cover whole.  Pages on pcp lists are not free,
 * as for the free-region count itself.
 */
#include "sim/sample.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int mpm_ideal_init(struct mpm_ideal *id, const struct mpm_machine *m)
{
	unsigned int nz = mpm_nr_zones(m);

	id->nr_zones = nz;
	id->sizes = calloc(nz, sizeof(*id->sizes));
	id->nr = calloc(nz, sizeof(*id->nr));
	if (!id->sizes || !id->nr)
		return -1;
	for (unsigned int z = 0; z < nz; z++) {
		struct mpm_zone_info zi;

		mpm_zone_info(m, z, &zi);
		id->sizes[z] = calloc(zi.nr_regions ? zi.nr_regions : 1, sizeof(uint64_t));
		if (!id->sizes[z])
			return -1;
		for (unsigned int r = 0; r < zi.nr_regions; r++) {
			struct mpm_region_info ri;

			mpm_region_info(m, z, r, &ri);
			if (ri.present && ri.managed == ri.present)
				id->sizes[z][id->nr[z]++] = ri.present;
		}
		qsort(id->sizes[z], id->nr[z], sizeof(uint64_t), cmp_u64);
	}
	return 0;
}

void mpm_ideal_fini(struct mpm_ideal *id)
{
	for (unsigned int z = 0; id->sizes && z < id->nr_zones; z++)
		free(id->sizes[z]);
	free(id->sizes);
	free(id->nr);
}

unsigned int mpm_ideal_free_regions(const struct mpm_ideal *id, const struct mpm_machine *m)
{
	unsigned int n = 0;

	for (unsigned int z = 0; z < id->nr_zones; z++) {
		struct mpm_zone_info zi;
		uint64_t left;

		mpm_zone_info(m, z, &zi);
		left = zi.free_pages;
		for (unsigned int i = 0; i < id->nr[z] && id->sizes[z][i] <= left; i++) {
			left -= id->sizes[z][i];
			n++;
		}
	}
	return n;
}

static void count_allocated(const struct mpm_machine *m, uint64_t pfn, uint64_t n,
			    const uint8_t *owner_kind, struct mpm_region_usage *u)
{
	for (uint64_t p = pfn; p < pfn + n; p++) {
		uint32_t owner = mpm_rmap_get(m, p, NULL, NULL);

		if (owner != MPM_NO_OWNER && owner_kind && owner_kind[owner] == 1)
			u->anon++;
		else if (owner != MPM_NO_OWNER && owner_kind && owner_kind[owner] == 2)
			u->file++;
		else
			u->kernel++;
	}
}

void mpm_region_usage(const struct mpm_machine *m, unsigned int zid, unsigned int rid,
		      const uint8_t *owner_kind, struct mpm_region_usage *u)
{
	struct mpm_region_info ri;
	uint64_t pfn;

	memset(u, 0, sizeof(*u));
	mpm_region_info(m, zid, rid, &ri);
	/* a block may start before the region: find the first head at or before */
	pfn = ri.start_pfn & ~(uint64_t)((1u << (MPM_MAX_ORDER - 1)) - 1);
	while (pfn < ri.end_pfn) {
		unsigned int order = 0;
		enum mpm_page_state st = mpm_page_state(m, pfn, &order);
		uint64_t n = (st == MPM_PAGE_FREE || st == MPM_PAGE_ALLOC) ? 1ull << order : 1;
		uint64_t lo = pfn > ri.start_pfn ? pfn : ri.start_pfn;
		uint64_t hi = pfn + n < ri.end_pfn ? pfn + n : ri.end_pfn;

		if (hi > lo) {
			if (st == MPM_PAGE_FREE)
				u->free += hi - lo;
			else if (st == MPM_PAGE_ALLOC)
				count_allocated(m, lo, hi - lo, owner_kind, u);
			else if (st == MPM_PAGE_PCP)
				u->pcp += hi - lo;
			else if (st == MPM_PAGE_RESERVED)
				u->reserved += hi - lo;
		}
		pfn += n;
	}
}
