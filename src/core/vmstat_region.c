// SPDX-License-Identifier: MIT
/*
 * Per-region statistics of the Memory Power Management patchset, in the
 * exact formats that RFC v4 adds to mm/vmstat.c:
 *
 *  - patch 13/40 "mm: Print memory region statistics to understand the
 *    buddy allocator behavior" (20130925231642.26184.60271.stgit@...):
 *    the region lines of /proc/buddyinfo, which replace the per-zone counts,
 *    and the "Per-region page stats" block of /proc/zoneinfo;
 *  - patch 14/40 "mm: Enable per-memory-region fragmentation stats in
 *    pagetypeinfo" (20130925231658.26184.52456.stgit@...): free blocks per
 *    migratetype, order and region, and pageblocks per migratetype and
 *    region, each after the per-zone table.
 *
 * Regions are the zone's regions (zone->regions[], numbered from 0 in each
 * zone), as the patches print them.  The kernel reads its block counts from
 * the region-sorted free lists (free_list.mr_list[i].nr_free); we count them
 * on the lists, so that the same printers describe every policy, mainline
 * included.  A block belongs to the region of its head page, as in mr_list,
 * even when it straddles a region boundary; /proc/zoneinfo's free pages are
 * zone_mem_region.nr_free, which counts each page in its own region
 * (region.c).
 */
#include <stdlib.h>
#include <string.h>

#include "vmstat_region.h"
#include "ralloc.h"

/*
 * Block counts of up to @cap regions by order: cnt[region * MAX_ORDER +
 * order].  The table normally holds the whole zone, so that each free list
 * is walked once; should it not be allocatable, the zone is counted in
 * chunks of REGION_CHUNK regions on the stack, one walk of the lists each.
 */
#define REGION_CHUNK 32

unsigned int region_table_chunk;

struct region_table {
	unsigned long *cnt;
	unsigned int cap;
	unsigned long chunk[REGION_CHUNK * MAX_ORDER];
};

static void region_table_init(struct region_table *t, const struct zone *z)
{
	t->cnt = NULL;
	if (!region_table_chunk)
		t->cnt = calloc((size_t)z->nr_regions * MAX_ORDER, sizeof(*t->cnt));
	t->cap = z->nr_regions;
	if (!t->cnt) {
		t->cnt = t->chunk;
		t->cap = REGION_CHUNK;
		if (region_table_chunk && region_table_chunk < REGION_CHUNK)
			t->cap = region_table_chunk;
	}
}

static void region_table_free(struct region_table *t)
{
	if (t->cnt != t->chunk)
		free(t->cnt);
}

/*
 * Count the blocks on the free lists of migratetypes [@mt_lo, @mt_hi) whose
 * head page lies in regions [@first, @first + @nr): one walk of each list.
 */
static void region_table_count(struct region_table *t, const struct mpm_machine *m,
			       const struct zone *z, int mt_lo, int mt_hi,
			       unsigned int first, unsigned int nr)
{
	memset(t->cnt, 0, (size_t)nr * MAX_ORDER * sizeof(*t->cnt));
	for (int o = 0; o < MAX_ORDER; o++)
		for (int mt = mt_lo; mt < mt_hi; mt++) {
			uint32_t head = z->free_area[o].free_list[mt];

			for (uint32_t p = m->pages[head].next; p != head;
			     p = m->pages[p].next) {
				unsigned int r = pfn_zone_region_id(m, z, idx_to_pfn(m, p)) - first;

				if (r < nr)
					t->cnt[(size_t)r * MAX_ORDER + o]++;
			}
		}
}

static void print_orders(const unsigned long *cnt, FILE *out)
{
	for (int o = 0; o < MAX_ORDER; o++)
		fprintf(out, "%6lu ", cnt[o]);
	fputc('\n', out);
}

void frag_show_region_print(const struct mpm_machine *m, const struct zone *z,
			    FILE *out)
{
	struct region_table t;

	region_table_init(&t, z);
	for (unsigned int first = 0; first < z->nr_regions; first += t.cap) {
		unsigned int nr = z->nr_regions - first < t.cap ? z->nr_regions - first : t.cap;

		/* free blocks of every migratetype */
		region_table_count(&t, m, z, 0, MIGRATE_TYPES, first, nr);
		for (unsigned int i = 0; i < nr; i++) {
			/* patch 23: the region allocator's blocks count too */
			if (z->ralloc)
				t.cnt[(size_t)i * MAX_ORDER + MAX_ORDER - 1] +=
					z->ralloc->region[first + i].nr_free;
			fprintf(out, "\t\t Region %6d ", (int)(first + i));
			print_orders(&t.cnt[(size_t)i * MAX_ORDER], out);
		}
	}
	region_table_free(&t);
}

void pagetypeinfo_showfree_region_print(const struct mpm_machine *m, unsigned int nid,
					const struct zone *z, FILE *out)
{
	struct region_table t;

	region_table_init(&t, z);
	for (int mt = 0; mt < MIGRATE_TYPES; mt++)
		for (unsigned int first = 0; first < z->nr_regions; first += t.cap) {
			unsigned int nr = z->nr_regions - first < t.cap ?
					  z->nr_regions - first : t.cap;

			region_table_count(&t, m, z, mt, mt + 1, first, nr);
			for (unsigned int i = 0; i < nr; i++) {
				fprintf(out, "Node %4d, zone %8s, R%3d %12s ", (int)nid,
					mpm_zone_name(z->type), (int)(first + i),
					mpm_migratetype_name(mt));
				print_orders(&t.cnt[(size_t)i * MAX_ORDER], out);
			}
		}
	region_table_free(&t);
}

/*
 * Which region a pageblock counts in.  We walk the zone line's sample pfns
 * (blockcount_pfn_valid: zone_start_pfn + k * pageblock_nr_pages, holes
 * skipped) and count each sample in the region that holds it, so every
 * pageblock counts once and a zone's region lines add up to its zone line.
 * The patch walks each region from its own start_pfn in pageblock steps.
 * Where the regions start in step with the zone's walk (absolute regions,
 * or node-relative ones in the node's first zone) both walks take the same
 * samples and agree.  Where they do not (node-relative boundaries inside a
 * later zone, x86's DMA32 and Normal on node 0), the patch counts a
 * pageblock that straddles a boundary in both regions, or in the later one
 * only; we count it once, in the region of the zone's sample: the region
 * of its first pfn when the zone starts on a pageblock boundary, as these
 * zones do.
 */
void pagetypeinfo_showblockcount_region_print(const struct mpm_machine *m,
					      unsigned int nid, const struct zone *z,
					      FILE *out)
{
	for (unsigned int i = 0; i < z->nr_regions; i++) {
		uint64_t count[MIGRATE_TYPES];

		/* the same sample rule as the homogeneity measure (homogeneity.c) */
		mpm_region_pageblocks(m, z->id, i, count);
		fprintf(out, "Node %d, zone %8s R%3d ", (int)nid, mpm_zone_name(z->type), (int)i);
		for (int mt = 0; mt < MIGRATE_TYPES; mt++)
			fprintf(out, "%12lu ", (unsigned long)count[mt]);
		fputc('\n', out);
	}
}

void zoneinfo_show_region_print(const struct zone *z, FILE *out)
{
	fprintf(out, "\n\nPer-region page stats\t present\t free\n\n");
	for (unsigned int i = 0; i < z->nr_regions; i++)
		fprintf(out, "\tRegion %6d \t %6lu \t %6lu\n", (int)i,
			(unsigned long)z->regions[i].present_pages,
			(unsigned long)REGION_NR_FREE(&z->regions[i]));
}
