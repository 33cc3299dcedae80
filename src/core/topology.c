// SPDX-License-Identifier: MIT
/*
 * Machine set-up: validate the spec, lay out the page array, the nodes, the
 * zones and their memory regions (init_node_memory_regions and
 * init_zone_memory_regions of patches 02-03), initialise pageblocks as
 * memmap_init_zone does, free every present page into the buddy lists as
 * free_all_bootmem does, then set watermarks and the migrate reserve.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ralloc.h"
#include "mempower_work.h"

#define DEFAULT_REGION_SHIFT	(29 - MPM_PAGE_SHIFT)	/* MEM_REGION_SHIFT: 512 MiB */

#include <stdarg.h>

int fail_msg(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int validate_spec(const struct mpm_machine_spec *s, char *err, size_t len)
{
	const char *name, *needs;
	unsigned int pbo = s->pageblock_order ? s->pageblock_order : MAX_ORDER - 1;
	unsigned int rs = s->region_shift ? s->region_shift : DEFAULT_REGION_SHIFT;

	if (s->nr_nodes == 0 || s->nr_nodes > MPM_MAX_NUMNODES)
		return fail_msg(err, len, "nr_nodes %u out of range 1..%d",
			        s->nr_nodes, MPM_MAX_NUMNODES);
	if (s->nr_zones == 0 || !s->zones)
		return fail_msg(err, len, "no zones");
	if (pbo < 1 || pbo > MAX_ORDER - 1)
		return fail_msg(err, len, "pageblock_order %u out of range 1..%d",
			        pbo, MAX_ORDER - 1);
	if (rs < pbo || rs > 40)
		return fail_msg(err, len,
			        "region size 2^%u pages is smaller than a pageblock (2^%u pages) or too large",
			        rs, pbo);
	if (s->features & ~MPM_FEATURES_ALL)
		return fail_msg(err, len, "unknown feature bits %#lx", s->features & ~MPM_FEATURES_ALL);
	if (mpm_feature_unmet_dep(s->features, &name, &needs))
		return fail_msg(err, len, "feature %s needs %s", name, needs);
	if (s->zonelist_order > MPM_ZONELIST_ORDER_ZONE)
		return fail_msg(err, len, "zonelist_order %u is not default (0), node (1) or zone (2)",
			        s->zonelist_order);
	if (s->nr_cpus > MPM_MAX_CPUS)
		return fail_msg(err, len, "nr_cpus %u exceeds %d", s->nr_cpus, MPM_MAX_CPUS);
	for (unsigned int i = 0; i < s->nr_zones; i++) {
		const struct mpm_zone_spec *z = &s->zones[i];

		if (z->node >= s->nr_nodes || z->type >= MPM_NR_ZONE_TYPES)
			return fail_msg(err, len, "zone %u: bad node or type (node %u)",
				        i, z->node);
		if (z->start_pfn >= z->end_pfn)
			return fail_msg(err, len, "zone %u: empty range (start pfn %llu)",
				        i, (unsigned long long)z->start_pfn);
		if (z->end_pfn > MPM_MAX_PFN)
			return fail_msg(err, len, "zone %u: end pfn %llu above the limit %llu",
				        i, (unsigned long long)z->end_pfn, MPM_MAX_PFN);
		if (i && (z->node < s->zones[i - 1].node ||
			  z->start_pfn < s->zones[i - 1].end_pfn))
			return fail_msg(err, len,
				        "zone %u overlaps or precedes zone %u (zones must be sorted by node and address)",
				        i, i - 1);
		if (i && z->node == s->zones[i - 1].node &&
		    z->type <= s->zones[i - 1].type)
			return fail_msg(err, len, "zone %u: node %u has its zone types out of order",
				        i, z->node);
	}
	for (unsigned int i = 0; i < s->nr_zones; i++) {
		unsigned int n = s->zones[i].node;

		/* a node's first zone: its start may lie below, never above */
		if ((!i || s->zones[i - 1].node != n) &&
		    s->node_start_pfn[n] > s->zones[i].start_pfn)
			return fail_msg(err, len, "node %u starts at pfn %llu, after its first zone (pfn %llu)",
				        n, (unsigned long long)s->node_start_pfn[n],
				        (unsigned long long)s->zones[i].start_pfn);
	}
	for (unsigned int i = 0; i < s->nr_reserved; i++)
		if (s->reserved[i].start_pfn >= s->reserved[i].end_pfn ||
		    s->reserved[i].end_pfn > MPM_MAX_PFN ||
		    (i && s->reserved[i].start_pfn < s->reserved[i - 1].end_pfn))
			return fail_msg(err, len,
				        "reserved range %u empty, overlapping, unsorted or above pfn %llu",
				        i, MPM_MAX_PFN);
	for (unsigned int i = 0; i < s->nr_holes; i++) {
		if (s->holes[i].start_pfn >= s->holes[i].end_pfn)
			return fail_msg(err, len, "hole %u: empty range (start pfn %llu)",
				        i, (unsigned long long)s->holes[i].start_pfn);
		if (s->holes[i].end_pfn > MPM_MAX_PFN)
			return fail_msg(err, len, "hole %u: end pfn %llu above the limit %llu",
				        i, (unsigned long long)s->holes[i].end_pfn, MPM_MAX_PFN);
		if (i && s->holes[i].start_pfn < s->holes[i - 1].end_pfn)
			return fail_msg(err, len,
				        "hole %u overlaps or precedes hole %u (holes must be sorted)",
				        i, i - 1);
	}
	return 0;
}

/* Pages of [start, end) covered by @nr ranges @r. */
static uint64_t pages_in_ranges(const struct mpm_hole_spec *r, unsigned int nr,
				uint64_t start, uint64_t end)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < nr; i++) {
		uint64_t a = r[i].start_pfn > start ? r[i].start_pfn : start;
		uint64_t b = r[i].end_pfn < end ? r[i].end_pfn : end;

		if (a < b)
			n += b - a;
	}
	return n;
}

/* Pages of [start, end) that fall into holes (__absent_pages_in_range). */
uint64_t absent_pages_in_range(const struct mpm_machine_spec *s, uint64_t start, uint64_t end)
{
	return pages_in_ranges(s->holes, s->nr_holes, start, end);
}

/*
 * Present pages of [start, end) reserved before the buddy allocator runs:
 * a memblock reservation may cover a hole too (memblock.reserved and
 * memblock.memory are separate lists), and the hole's pages are absent,
 * not reserved.
 */
static uint64_t reserved_pages_in_range(const struct mpm_machine_spec *s,
					uint64_t start, uint64_t end)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < s->nr_reserved; i++) {
		uint64_t a = s->reserved[i].start_pfn > start ? s->reserved[i].start_pfn : start;
		uint64_t b = s->reserved[i].end_pfn < end ? s->reserved[i].end_pfn : end;

		if (a < b)
			n += (b - a) - absent_pages_in_range(s, a, b);
	}
	return n;
}

uint32_t alloc_list_head(struct mpm_machine *m)
{
	uint32_t idx = m->next_sentinel++;

	WRITE_ONCE(m->pages[idx].flags, PG_sentinel);
	m->pages[idx].zone = NO_ZONE;
	return idx;
}

/* init_zone_memory_regions: the zone's share of each node region it meets. */
static int init_zone_memory_regions(struct mpm_machine *m, struct zone *z,
				    const struct mpm_machine_spec *s)
{
	uint64_t base = z->region_base_pfn, end = zone_end_pfn(z);
	uint64_t first = (z->zone_start_pfn - base) >> m->region_shift;
	uint64_t last = (end - 1 - base) >> m->region_shift;

	z->first_node_region = (unsigned int)first;
	z->nr_regions = (unsigned int)(last - first + 1);
	z->regions = calloc(z->nr_regions, sizeof(*z->regions));
	if (!z->regions)
		return -1;
	for (unsigned int i = 0; i < z->nr_regions; i++) {
		struct zone_mem_region *r = &z->regions[i];
		uint64_t rs = base + ((first + i) << m->region_shift);
		uint64_t re = rs + (1ull << m->region_shift);

		r->start_pfn = rs > z->zone_start_pfn ? rs : z->zone_start_pfn;
		r->end_pfn = re < end ? re : end;
		r->present_pages = (r->end_pfn - r->start_pfn) -
				   absent_pages_in_range(s, r->start_pfn, r->end_pfn);
		r->managed_pages = r->present_pages -
				   reserved_pages_in_range(s, r->start_pfn, r->end_pfn);
		if (r->present_pages)
			z->nr_present_regions++;
	}
	m->regions_total += z->nr_present_regions;
	m->metadata_bytes += z->nr_regions * sizeof(*z->regions);
	return 0;
}

#define STRUCT_PAGE_SIZE	64			/* sizeof(struct page), x86_64 */
#define MAX_DMA_PFN		((16u << 20) >> MPM_PAGE_SHIFT)	/* x86: 16 MiB */

/*
 * calc_memmap_size: the pages of struct page (64 bytes each on x86_64)
 * that free_area_init_core takes off a zone's estimate of its managed
 * pages; counted over the present pages when holes make up more than a
 * sixteenth of the span (SPARSEMEM).
 */
static uint64_t calc_memmap_size(uint64_t spanned, uint64_t present)
{
	uint64_t pages = spanned > present + (present >> 4) ? present : spanned;

	return (pages * STRUCT_PAGE_SIZE + MPM_PAGE_SIZE - 1) >> MPM_PAGE_SHIFT;
}

/*
 * nr_free_pagecache_pages() when build_all_zonelists runs at boot, before
 * bootmem is freed and before any watermark is set: every zone's managed
 * pages as free_area_init_core estimates them -- present less the memmap,
 * and in ZONE_DMA less dma_reserve, the pages memblock holds below 16 MiB
 * (x86's set_dma_reserve) -- so that page_group_by_mobility_disabled is
 * decided on what 3.12 decides it on, not on the present pages.
 */
static uint64_t nr_free_pagecache_pages_at_boot(const struct mpm_machine *m,
						const struct mpm_machine_spec *s)
{
	uint64_t dma_reserve = reserved_pages_in_range(s, 0, MAX_DMA_PFN), total = 0;

	for (unsigned int i = 0; i < m->nr_zones; i++) {
		const struct zone *z = &m->zones[i];
		uint64_t freesize = z->present_pages;
		uint64_t memmap = calc_memmap_size(z->spanned_pages, z->present_pages);

		if (freesize >= memmap)
			freesize -= memmap;
		if (z->type == MPM_ZONE_DMA && freesize > dma_reserve)
			freesize -= dma_reserve;
		total += freesize;
	}
	return total;
}

/*
 * memmap_init_zone: every page of the zone span gets its zone; holes are
 * PG_reserved; a pageblock whose first pfn is a present page of the zone
 * starts MIGRATE_MOVABLE, any other (e.g. the DMA zone's first block, which
 * begins at pfn 0 outside the zone) stays MIGRATE_UNMOVABLE.
 */
static void memmap_init_zone(struct mpm_machine *m, struct zone *z,
			     const struct mpm_machine_spec *s)
{
	uint64_t start = z->zone_start_pfn, end = zone_end_pfn(z);
	unsigned long nr = pageblock_nr_pages(m);

	for (uint64_t pfn = start; pfn < end; pfn++) {
		struct mpm_page *page = &m->pages[pfn_to_idx(m, pfn)];

		page->zone = (uint8_t)z->id;
		WRITE_ONCE(page->flags, 0);
	}
	for (unsigned int i = 0; i < s->nr_holes; i++) {
		uint64_t a = s->holes[i].start_pfn > start ? s->holes[i].start_pfn : start;
		uint64_t b = s->holes[i].end_pfn < end ? s->holes[i].end_pfn : end;

		for (uint64_t pfn = a; pfn < b; pfn++)
			WRITE_ONCE(m->pages[pfn_to_idx(m, pfn)].flags, PG_reserved | PG_nomem);
	}
	/* a pageblock starting in a hole is skipped; reserved pages are valid */
	for (uint64_t pfn = (start + nr - 1) & ~(uint64_t)(nr - 1); pfn < end; pfn += nr)
		if (!(READ_ONCE(m->pages[pfn_to_idx(m, pfn)].flags) & PG_nomem))
			WRITE_ONCE(z->pageblock_flags[pfn_to_bitidx(m, z, pfn)], MIGRATE_MOVABLE);
	for (unsigned int i = 0; i < s->nr_reserved; i++) {
		uint64_t a = s->reserved[i].start_pfn > start ? s->reserved[i].start_pfn : start;
		uint64_t b = s->reserved[i].end_pfn < end ? s->reserved[i].end_pfn : end;

		for (uint64_t pfn = a; pfn < b; pfn++) {
			struct mpm_page *page = &m->pages[pfn_to_idx(m, pfn)];

			if (!(READ_ONCE(page->flags) & PG_nomem))	/* a hole stays absent */
				WRITE_ONCE(page->flags, PG_reserved);
		}
	}
}

static int init_zone(struct mpm_machine *m, struct zone *z,
		     const struct mpm_zone_spec *zs, const struct mpm_machine_spec *s)
{
	uint64_t nr_blocks;

	z->node = zs->node;
	z->type = zs->type;
	z->zone_start_pfn = zs->start_pfn;
	z->spanned_pages = zs->end_pfn - zs->start_pfn;
	z->present_pages = z->spanned_pages -
			   absent_pages_in_range(s, zs->start_pfn, zs->end_pfn);
	z->managed_pages = z->present_pages -
			   reserved_pages_in_range(s, zs->start_pfn, zs->end_pfn);
	z->region_base_pfn = m->region_absolute ? 0 :
			     m->node_data[zs->node].node_start_pfn;

	z->pageblock_base_pfn = zs->start_pfn & ~(uint64_t)(pageblock_nr_pages(m) - 1);
	nr_blocks = ((zs->end_pfn - 1 - z->pageblock_base_pfn) >> m->pageblock_order) + 1;
	z->pageblock_flags = calloc(nr_blocks, 1);
	z->pageset = aligned_alloc(64, m->nr_cpus * sizeof(*z->pageset));
	if (!z->pageblock_flags || !z->pageset)
		return -1;
	memset(z->pageset, 0, m->nr_cpus * sizeof(*z->pageset));
	m->metadata_bytes += nr_blocks + m->nr_cpus * sizeof(*z->pageset);

	for (unsigned int o = 0; o < MAX_ORDER; o++)
		for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
			uint32_t head = alloc_list_head(m);

			list_init(m->pages, head);
			z->free_area[o].free_list[mt] = head;
			/* an empty list's entries on are its head: see push_buddy_hint() */
			if (o == 0)
				for (unsigned int i = 0; i < BUDDY_HINT_RING; i++)
					z->hint_ring[mt].slot[i] = head;
		}
	memmap_init_zone(m, z, s);
	setup_zone_pageset(m, z);
	if (init_zone_memory_regions(m, z, s))
		return -1;
	if ((m->features & MPM_FEATURE_SORTED_FREELISTS) && sorted_free_lists_init(m, z))
		return -1;
	if ((m->features & MPM_FEATURE_REGION_ALLOCATOR) && region_allocator_init(m, z))
		return -1;
	if (m->features & MPM_FEATURE_EVACUATION)
		return mempower_work_init(m, z);
	return 0;
}

/* Free the present pages of [start, end) in maximal aligned blocks. */
static void free_range_bootmem(struct mpm_machine *m, struct zone *z,
			       uint64_t pfn, uint64_t end)
{
	while (pfn < end) {
		unsigned int order = MAX_ORDER - 1;

		while (order && ((pfn & ((1ull << order) - 1)) ||
				 pfn + (1ull << order) > end))
			order--;
		__free_one_page(m, z, pfn_to_idx(m, pfn), order,
				get_pageblock_migratetype(m, z, pfn));
		ADD_ONCE(z->vm_free_pages, 1l << order);
		pfn += 1ull << order;
	}
}

/* free_all_bootmem: every present range of the zone, low to high. */
static void free_all_bootmem_zone(struct mpm_machine *m, struct zone *z)
{
	uint64_t pfn = z->zone_start_pfn, end = zone_end_pfn(z);

	while (pfn < end) {
		uint64_t stop;

		while (pfn < end && (READ_ONCE(m->pages[pfn_to_idx(m, pfn)].flags) & PG_reserved))
			pfn++;
		stop = pfn;
		while (stop < end && !(READ_ONCE(m->pages[pfn_to_idx(m, stop)].flags) & PG_reserved))
			stop++;
		free_range_bootmem(m, z, pfn, stop);
		pfn = stop;
	}
	/* boot-time merges are not allocator activity */
	WRITE_ONCE(z->ev[ZEV_MERGES], 0);
}

/*
 * The per-pfn arrays (the page array, 16 bytes a page: 4 GiB for a 1 TiB
 * machine; the reverse map) are anonymous memory with transparent huge pages
 * asked for: one fault per 2 MiB instead of one per 4 KiB, which is most of
 * the set-up time of a large machine, and one TLB entry per 2 MiB for the
 * scattered accesses a fragmented machine makes to them.  Zero-filled.
 */
void *mpm_alloc_pfn_array(size_t bytes)
{
	/*
	 * MAP_NORESERVE: the gaps between zones are never written, so they
	 * must not count against the commit limit (overcommit_memory 0 would
	 * refuse an array larger than RAM + swap for pages it never touches)
	 */
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, bytes, MADV_HUGEPAGE);
#endif
	return p;
}

/* The page array over the zones' span: 0, -1 past 2^32 entries, -2 if mmap fails. */
static int layout_page_array(struct mpm_machine *m, const struct mpm_machine_spec *s)
{
	uint64_t lo = s->zones[0].start_pfn, hi = s->zones[s->nr_zones - 1].end_pfn;
	uint64_t align = 1ull << (MAX_ORDER - 1);
	uint64_t sentinels = (uint64_t)s->nr_zones *
		(MAX_ORDER * MIGRATE_TYPES + (uint64_t)m->nr_cpus * MIGRATE_PCPTYPES);

	if (s->features & MPM_FEATURE_REGION_ALLOCATOR)
		sentinels += region_allocator_sentinels(s, m->region_shift);

	m->pfn_base = lo & ~(align - 1);
	m->nr_pfns = ((hi + align - 1) & ~(align - 1)) - m->pfn_base;
	m->nr_entries = m->nr_pfns + sentinels;
	if (m->nr_entries >= UINT32_MAX)
		return -1;
	m->pages = mpm_alloc_pfn_array(m->nr_entries * sizeof(*m->pages));
	if (!m->pages)
		return -2;
	m->next_sentinel = (uint32_t)m->nr_pfns;
	/*
	 * Only the zones' spans are written (memmap_init_zone).  The entries
	 * of pfns outside every zone -- the gaps between nodes, and the
	 * pieces before the first zone and after the last that alignment
	 * adds -- stay the mmap's zero pages: a gap of terabytes costs
	 * address space, not time or memory, as it costs nothing under
	 * SPARSEMEM.  Nothing believes such an entry: the pfn lookups test
	 * the zone's span (pfn_zone()), and its zero flags are neither
	 * PG_alloc (a free is refused) nor PG_buddy (never a buddy to merge).
	 */
	m->metadata_bytes += (m->nr_entries - m->nr_pfns) * sizeof(*m->pages) +
			     mpm_machine_spec_bytes(s);
	return 0;
}

static void init_nodes(struct mpm_machine *m, const struct mpm_machine_spec *s)
{
	for (unsigned int n = 0; n < m->nr_nodes; n++) {
		struct pglist_data *pgdat = &m->node_data[n];

		pgdat->node_id = n;
		pgdat->node_start_pfn = UINT64_MAX;
		for (unsigned int i = 0; i < s->nr_zones; i++) {
			if (s->zones[i].node != n)
				continue;
			if (pgdat->node_start_pfn == UINT64_MAX)
				pgdat->node_start_pfn = s->zones[i].start_pfn;
			pgdat->node_end_pfn = s->zones[i].end_pfn;
		}
		if (s->node_start_pfn[n] && s->node_start_pfn[n] < pgdat->node_start_pfn)
			pgdat->node_start_pfn = s->node_start_pfn[n];
	}
	for (unsigned int c = 0; c < m->nr_cpus; c++)
		m->cpu_to_node[c] = (unsigned int)((uint64_t)c * m->nr_nodes / m->nr_cpus);
}

struct mpm_machine *mpm_machine_create(const struct mpm_machine_spec *s,
				       char *err, size_t errlen)
{
	struct mpm_machine *m;
	int r;

	if (!s || validate_spec(s, err, errlen))
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		goto nomem;
	m->nr_nodes = s->nr_nodes;
	m->nr_cpus = s->nr_cpus ? s->nr_cpus : 1;
	m->nr_zones = s->nr_zones;
	m->pageblock_order = s->pageblock_order ? s->pageblock_order : MAX_ORDER - 1;
	m->region_shift = s->region_shift ? s->region_shift : DEFAULT_REGION_SHIFT;
	m->region_absolute = s->region_absolute;
	m->min_free_kbytes = s->min_free_kbytes;
	m->khugepaged = s->khugepaged;
	m->features = s->features;
	m->evac_threshold = s->evac_threshold ? s->evac_threshold : MPM_MAX_MEMPWR_MIGRATE_PAGES;
	m->zones = calloc(m->nr_zones, sizeof(*m->zones));
	m->cpu_to_node = calloc(m->nr_cpus, sizeof(*m->cpu_to_node));
	if (!m->zones || !m->cpu_to_node)
		goto nomem;
	/* the machine itself (its nodes included), its zones and cpu map */
	m->metadata_bytes = sizeof(*m) + m->nr_zones * sizeof(*m->zones) +
			    m->nr_cpus * sizeof(*m->cpu_to_node);
	for (unsigned int i = 0; i < m->nr_zones; i++)
		spin_lock_init(&m->zones[i].lock);
	r = layout_page_array(m, s);
	if (r) {
		if (r == -1)
			fail_msg(err, errlen, "machine too large: %llu page entries (limit %u)",
			     (unsigned long long)m->nr_entries, UINT32_MAX - 1);
		else
			fail_msg(err, errlen, "cannot map the page array (%llu MiB): %s",
			     (unsigned long long)(m->nr_entries * sizeof(*m->pages) >> 20),
			     strerror(errno));
		mpm_machine_destroy(m);
		return NULL;
	}
	prefault_page_array(m, s);
	init_nodes(m, s);

	for (unsigned int i = 0; i < m->nr_zones; i++) {
		struct zone *z = &m->zones[i];

		z->id = i;
		if (init_zone(m, z, &s->zones[i], s))
			goto nomem;
		m->node_data[z->node].node_zones[z->type] = z;
		m->node_data[z->node].nr_zones++;
		m->total_present += z->present_pages;
	}
	/* build_all_zonelists: too little memory to group by mobility */
	m->page_group_by_mobility_disabled =
		nr_free_pagecache_pages_at_boot(m, s) < pageblock_nr_pages(m) * MIGRATE_TYPES;
	build_all_zonelists(m, s->zonelist_order);
	for (unsigned int n = 0; n < m->nr_nodes; n++)
		for (int t = 0; t < MAX_NR_ZONES; t++)
			if (!m->node_data[n].zonelists[0][t].zones ||
			    !m->node_data[n].zonelists[1][t].zones)
				goto nomem;

	for (unsigned int i = 0; i < m->nr_zones; i++)
		free_all_bootmem_zone(m, &m->zones[i]);
	init_per_zone_wmark_min(m);
	m->system_running = true;
	return m;

nomem:
	fail_msg(err, errlen, "out of memory setting up the machine");
	mpm_machine_destroy(m);
	return NULL;
}

uint64_t mpm_machine_spec_bytes(const struct mpm_machine_spec *s)
{
	const uint64_t max = UINT64_MAX / sizeof(struct mpm_page);
	uint64_t pfns = 0;

	/* saturating: the spec has not been validated yet */
	for (unsigned int i = 0; s && i < s->nr_zones; i++) {
		uint64_t a = s->zones[i].start_pfn, b = s->zones[i].end_pfn;

		if (b > a)
			pfns = b - a > max - pfns ? max : pfns + (b - a);
	}
	return pfns * sizeof(struct mpm_page);
}

void mpm_machine_destroy(struct mpm_machine *m)
{
	if (!m)
		return;
	kmempowerd_destroy(m);
	for (unsigned int n = 0; n < MPM_MAX_NUMNODES; n++)
		for (int t = 0; t < MAX_NR_ZONES; t++) {
			free(m->node_data[n].zonelists[0][t].zones);
			free(m->node_data[n].zonelists[1][t].zones);
		}
	for (unsigned int i = 0; m->zones && i < m->nr_zones; i++) {
		struct zone *z = &m->zones[i];

		mempower_work_destroy(z);
		region_allocator_destroy(z);
		sorted_free_lists_destroy(z);
		free(z->regions);
		free(z->pageblock_flags);
		free(z->pageset);
	}
	free(m->zones);
	free(m->cpu_to_node);
	if (m->pages)
		munmap(m->pages, m->nr_entries * sizeof(*m->pages));
	free(m);
}
