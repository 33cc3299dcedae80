// SPDX-License-Identifier: MIT
/*
 * /proc/buddyinfo, /proc/pagetypeinfo, /proc/zoneinfo and /proc/vmstat, in
 * the exact formats of Linux 3.12's mm/vmstat.c (frag_show_print,
 * pagetypeinfo_show*, zoneinfo_show_print, vmstat_show), for an x86_64
 * kernel with CONFIG_NUMA, ZONE_DMA, ZONE_DMA32, MIGRATION, COMPACTION,
 * HUGETLB_PAGE, TRANSPARENT_HUGEPAGE and SMP, without HIGHMEM, CMA and
 * NUMA_BALANCING.
 *
 * On top, the per-region statistics of the Memory Power Management patchset
 * (RFC v4 patches 13/40 and 14/40; vmstat_region.c), in every policy, so
 * that one ruler measures them all.  As in the patched kernel, buddyinfo
 * prints one line per zone region instead of the zone's line, pagetypeinfo
 * adds region tables after its zone tables (and widens the block-count
 * header and zone lines by six spaces), and zoneinfo adds a block after
 * "managed".
 *
 * The allocator knows its free pages, watermarks, pcp lists, allocation
 * batches and pgalloc/pgfree events; items it has no notion of (LRU lists,
 * slab, writeback, swap, reclaim scans) print 0, as on a kernel that never
 * did any of it.  Printers hold each zone's lock while printing that zone,
 * as walk_zones_in_node() does.
 */
#include <stdio.h>

#include "mmzone.h"
#include "vmstat_region.h"

/* Zone stat items of 3.12 with CONFIG_NUMA (enum zone_stat_item order). */
static const char *const zone_stat_text[] = {
	"nr_free_pages", "nr_alloc_batch", "nr_inactive_anon", "nr_active_anon",
	"nr_inactive_file", "nr_active_file", "nr_unevictable", "nr_mlock",
	"nr_anon_pages", "nr_mapped", "nr_file_pages", "nr_dirty",
	"nr_writeback", "nr_slab_reclaimable", "nr_slab_unreclaimable",
	"nr_page_table_pages", "nr_kernel_stack", "nr_unstable", "nr_bounce",
	"nr_vmscan_write", "nr_vmscan_immediate_reclaim", "nr_writeback_temp",
	"nr_isolated_anon", "nr_isolated_file", "nr_shmem", "nr_dirtied",
	"nr_written", "numa_hit", "numa_miss", "numa_foreign",
	"numa_interleave", "numa_local", "numa_other",
	"nr_anon_transparent_hugepages", "nr_free_cma",
};
#define NR_ZONE_STAT_ITEMS (sizeof(zone_stat_text) / sizeof(zone_stat_text[0]))

enum { NR_FREE_PAGES_ITEM, NR_ALLOC_BATCH_ITEM };

#define ZONES4(x) x "_dma", x "_dma32", x "_normal", x "_movable"

/* vm_event_item names of 3.12 for the configuration above. */
static const char *const vm_event_text[] = {
	"pgpgin", "pgpgout", "pswpin", "pswpout",
	ZONES4("pgalloc"),
	"pgfree", "pgactivate", "pgdeactivate", "pgfault", "pgmajfault",
	ZONES4("pgrefill"), ZONES4("pgsteal_kswapd"), ZONES4("pgsteal_direct"),
	ZONES4("pgscan_kswapd"), ZONES4("pgscan_direct"),
	"pgscan_direct_throttle", "zone_reclaim_failed", "pginodesteal",
	"slabs_scanned", "kswapd_inodesteal", "kswapd_low_wmark_hit_quickly",
	"kswapd_high_wmark_hit_quickly", "pageoutrun", "allocstall", "pgrotated",
	"pgmigrate_success", "pgmigrate_fail", "compact_migrate_scanned",
	"compact_free_scanned", "compact_isolated", "compact_stall",
	"compact_fail", "compact_success", "htlb_buddy_alloc_success",
	"htlb_buddy_alloc_fail", "unevictable_pgs_culled",
	"unevictable_pgs_scanned", "unevictable_pgs_rescued",
	"unevictable_pgs_mlocked", "unevictable_pgs_munlocked",
	"unevictable_pgs_cleared", "unevictable_pgs_stranded",
	"thp_fault_alloc", "thp_fault_fallback", "thp_collapse_alloc",
	"thp_collapse_alloc_failed", "thp_split", "thp_zero_page_alloc",
	"thp_zero_page_alloc_failed", "nr_tlb_remote_flush",
	"nr_tlb_remote_flush_received", "nr_tlb_local_flush_all",
	"nr_tlb_local_flush_one",
};
#define NR_VM_EVENTS (sizeof(vm_event_text) / sizeof(vm_event_text[0]))

enum { EV_PGALLOC_DMA = 4, EV_PGFREE = 8 };

/* The zone counter as kept, possibly negative (NR_ALLOC_BATCH carries debt). */
static long zone_page_state_raw(const struct zone *z, unsigned int item)
{
	if (item == NR_FREE_PAGES_ITEM)
		return READ_ONCE(((struct zone *)z)->vm_free_pages);
	if (item == NR_ALLOC_BATCH_ITEM)
		return READ_ONCE(((struct zone *)z)->vm_alloc_batch);
	return 0;
}

/* Negative drift reads as 0, as on SMP. */
static unsigned long clamp_state(long x)
{
	return x < 0 ? 0 : (unsigned long)x;
}

/* zone_page_state(): the zone counter, clamped. */
static unsigned long zone_page_state(const struct zone *z, unsigned int item)
{
	return clamp_state(zone_page_state_raw(z, item));
}

static uint64_t zone_pgalloc_sum(const struct mpm_machine *m, const struct zone *z)
{
	uint64_t n = 0;

	for (unsigned int cpu = 0; cpu < m->nr_cpus; cpu++)
		n += pcp_pgalloc(&z->pageset[cpu]);
	return n;
}

/*
 * PGFREE: the frees of every cpu, and the zone's boot frees.  3.12's
 * free_all_bootmem frees each managed page through __free_pages_bootmem ->
 * __free_pages, whose __free_pages_ok and free_hot_cold_page count PGFREE,
 * so a freshly booted kernel shows pgfree equal to its managed pages.  The
 * boot frees are not in the pcp counts, whose difference is the pages
 * allocated (pcp_pgalloc - pcp_pgfree).
 */
static uint64_t zone_pgfree_sum(const struct mpm_machine *m, const struct zone *z)
{
	uint64_t n = z->managed_pages;

	for (unsigned int cpu = 0; cpu < m->nr_cpus; cpu++)
		n += pcp_pgfree(&z->pageset[cpu]);
	return n;
}

/* Populated zones of node @nid, lowest first (walk_zones_in_node). */
#define for_each_populated_zone_in_node(m, nid, z)				\
	for (int __t = 0; __t < MAX_NR_ZONES; __t++)				\
		if (((z) = (m)->node_data[nid].node_zones[__t]) && (z)->present_pages)

/* frag_show_print of patch 13: the zone's free blocks, one line per region. */
void mpm_print_buddyinfo(const struct mpm_machine *m, FILE *out)
{
	struct zone *z;

	for (unsigned int nid = 0; nid < m->nr_nodes; nid++)
		for_each_populated_zone_in_node(m, nid, z) {
			spin_lock(&z->lock);
			fprintf(out, "Node %u, zone %8s \n", nid, mpm_zone_name(z->type));
			frag_show_region_print(m, z, out);
			fputc('\n', out);
			spin_unlock(&z->lock);
		}
}

static unsigned long list_count(const struct mpm_machine *m, uint32_t head)
{
	unsigned long n = 0;

	for (uint32_t p = m->pages[head].next; p != head; p = m->pages[p].next)
		n++;
	return n;
}

static void pagetypeinfo_showfree(const struct mpm_machine *m, unsigned int nid,
				  FILE *out)
{
	struct zone *z;

	fprintf(out, "%-43s ", "Free pages count per migrate type at order");
	for (int o = 0; o < MAX_ORDER; o++)
		fprintf(out, "%6d ", o);
	fputc('\n', out);
	for_each_populated_zone_in_node(m, nid, z) {
		spin_lock(&z->lock);
		for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
			fprintf(out, "Node %4u, zone %8s, type %12s ", nid,
				mpm_zone_name(z->type), mpm_migratetype_name(mt));
			for (int o = 0; o < MAX_ORDER; o++)
				fprintf(out, "%6lu ",
					list_count(m, z->free_area[o].free_list[mt]));
			fputc('\n', out);
		}
		spin_unlock(&z->lock);
	}
	/* patch 14: then the same per region */
	fputc('\n', out);
	for_each_populated_zone_in_node(m, nid, z) {
		spin_lock(&z->lock);
		pagetypeinfo_showfree_region_print(m, nid, z, out);
		spin_unlock(&z->lock);
	}
}

static void pagetypeinfo_showblockcount(const struct mpm_machine *m,
					unsigned int nid, FILE *out)
{
	struct zone *z;

	/* patch 14 widens the header and the zone lines by six spaces */
	fprintf(out, "\n%-23s", "Number of blocks type      ");
	for (int mt = 0; mt < MIGRATE_TYPES; mt++)
		fprintf(out, "%12s ", mpm_migratetype_name(mt));
	fputc('\n', out);
	for_each_populated_zone_in_node(m, nid, z) {
		unsigned long count[MIGRATE_TYPES] = { 0 };

		spin_lock(&z->lock);
		for (uint64_t pfn = z->zone_start_pfn; pfn < zone_end_pfn(z);
		     pfn += pageblock_nr_pages(m)) {
			if (blockcount_pfn_valid(m, pfn))
				count[get_pageblock_migratetype(m, z, pfn)]++;
		}
		spin_unlock(&z->lock);
		fprintf(out, "Node %u, zone %8s      ", nid, mpm_zone_name(z->type));
		for (int mt = 0; mt < MIGRATE_TYPES; mt++)
			fprintf(out, "%12lu ", count[mt]);
		fputc('\n', out);
	}
	/* patch 14: then the same per region */
	fputc('\n', out);
	for_each_populated_zone_in_node(m, nid, z) {
		spin_lock(&z->lock);
		pagetypeinfo_showblockcount_region_print(m, nid, z, out);
		spin_unlock(&z->lock);
	}
}

void mpm_print_pagetypeinfo(const struct mpm_machine *m, FILE *out)
{
	for (unsigned int nid = 0; nid < m->nr_nodes; nid++) {
		if (!m->node_data[nid].nr_zones)
			continue;	/* memoryless node */
		fprintf(out, "Page block order: %u\n", m->pageblock_order);
		fprintf(out, "Pages per block:  %lu\n", pageblock_nr_pages(m));
		fputc('\n', out);
		pagetypeinfo_showfree(m, nid, out);
		pagetypeinfo_showblockcount(m, nid, out);
	}
}

static unsigned int int_sqrt_u(unsigned int x)
{
	unsigned int r = 0;

	while ((r + 1) * (r + 1) <= x)
		r++;
	return r;
}

/* calculate_zone_inactive_ratio: sqrt(10 * GiB), 1 below a GiB. */
static unsigned int zone_inactive_ratio(const struct zone *z)
{
	unsigned int gb = (unsigned int)(z->managed_pages >> (30 - MPM_PAGE_SHIFT));

	return gb ? int_sqrt_u(10 * gb) : 1;
}

static void zoneinfo_show_print(const struct mpm_machine *m, unsigned int nid,
				struct zone *z, FILE *out)
{
	fprintf(out, "Node %u, zone %8s", nid, mpm_zone_name(z->type));
	fprintf(out,
		"\n  pages free     %lu"
		"\n        min      %lu"
		"\n        low      %lu"
		"\n        high     %lu"
		"\n        scanned  %lu"
		"\n        spanned  %lu"
		"\n        present  %lu"
		"\n        managed  %lu",
		zone_page_state(z, NR_FREE_PAGES_ITEM), z->watermark[WMARK_MIN],
		z->watermark[WMARK_LOW], z->watermark[WMARK_HIGH], 0ul,
		(unsigned long)z->spanned_pages, (unsigned long)z->present_pages,
		(unsigned long)z->managed_pages);
	zoneinfo_show_region_print(z, out);	/* patch 13 */
	for (unsigned int i = 0; i < NR_ZONE_STAT_ITEMS; i++)
		fprintf(out, "\n    %-12s %lu", zone_stat_text[i], zone_page_state(z, i));
	fprintf(out, "\n        protection: (%lu", (unsigned long)z->lowmem_reserve[0]);
	for (int i = 1; i < MAX_NR_ZONES; i++)
		fprintf(out, ", %lu", (unsigned long)z->lowmem_reserve[i]);
	fprintf(out, ")\n  pagesets");
	for (unsigned int cpu = 0; cpu < m->nr_cpus; cpu++) {
		const struct per_cpu_pages *pcp = &z->pageset[cpu];

		fprintf(out,
			"\n    cpu: %i"
			"\n              count: %i"
			"\n              high:  %i"
			"\n              batch: %i",
			(int)cpu, PCP_COUNT(pcp), pcp->high, pcp->batch);
		fprintf(out, "\n  vm stats threshold: %d", z->stat_threshold);
	}
	/* !zone_reclaimable(): no LRU pages here, so pages_scanned 0 < 0 fails */
	fprintf(out,
		"\n  all_unreclaimable: %u"
		"\n  start_pfn:         %lu"
		"\n  inactive_ratio:    %u",
		1u, (unsigned long)z->zone_start_pfn, zone_inactive_ratio(z));
	fputc('\n', out);
}

void mpm_print_zoneinfo(const struct mpm_machine *m, FILE *out)
{
	struct zone *z;

	for (unsigned int nid = 0; nid < m->nr_nodes; nid++)
		for_each_populated_zone_in_node(m, nid, z) {
			spin_lock(&z->lock);
			zoneinfo_show_print(m, nid, z, out);
			spin_unlock(&z->lock);
		}
}

/*
 * calculate_totalreserve_pages -> dirty_balance_reserve, and
 * global_dirty_limits(): vm_dirty_ratio 20 %, dirty_background_ratio 10 %
 * of the dirtyable memory (free + file LRU, less that reserve, plus one).
 */
static void dirty_limits(const struct mpm_machine *m, unsigned long free_pages,
			 unsigned long *dirty, unsigned long *background)
{
	unsigned long reserve = 0, x;

	for (unsigned int i = 0; i < m->nr_zones; i++) {
		const struct zone *z = &m->zones[i];
		unsigned long max = 0;

		for (int j = z->type; j < MAX_NR_ZONES; j++)
			if ((unsigned long)z->lowmem_reserve[j] > max)
				max = (unsigned long)z->lowmem_reserve[j];
		max += z->watermark[WMARK_HIGH];
		reserve += max < z->managed_pages ? max : z->managed_pages;
	}
	x = free_pages - (free_pages < reserve ? free_pages : reserve) + 1;
	*dirty = x * 20 / 100;
	*background = x * 10 / 100;
	if (*background >= *dirty)
		*background = *dirty / 2;
}

void mpm_print_vmstat(const struct mpm_machine *m, FILE *out)
{
	long global[NR_ZONE_STAT_ITEMS] = { 0 };
	uint64_t events[NR_VM_EVENTS] = { 0 };
	unsigned long dirty, background;

	/*
	 * global_page_state(): vm_stat[] takes every zone's folds, so it is the
	 * sum of the zones' own values, clamped once; a zone whose fair-zone
	 * batch is overdrawn (negative) lowers the total, where clamping each
	 * zone first would not.
	 */
	for (unsigned int i = 0; i < m->nr_zones; i++) {
		const struct zone *z = &m->zones[i];

		for (unsigned int it = 0; it < NR_ZONE_STAT_ITEMS; it++)
			global[it] += zone_page_state_raw(z, it);
		events[EV_PGALLOC_DMA + z->type] += zone_pgalloc_sum(m, z);
		events[EV_PGFREE] += zone_pgfree_sum(m, z);
	}
	for (unsigned int it = 0; it < NR_ZONE_STAT_ITEMS; it++)
		fprintf(out, "%s %lu\n", zone_stat_text[it], clamp_state(global[it]));
	dirty_limits(m, clamp_state(global[NR_FREE_PAGES_ITEM]), &dirty, &background);
	fprintf(out, "nr_dirty_threshold %lu\n", dirty);
	fprintf(out, "nr_dirty_background_threshold %lu\n", background);
	for (unsigned int e = 0; e < NR_VM_EVENTS; e++)
		fprintf(out, "%s %llu\n", vm_event_text[e], (unsigned long long)events[e]);
}
