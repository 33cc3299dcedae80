// SPDX-License-Identifier: MIT
/*
 * Watermarks and the lowmem reserve, as Linux 3.12 sets them up at boot
 * (init_per_zone_wmark_min -> __setup_per_zone_wmarks,
 * setup_per_zone_lowmem_reserve) and checks them (__zone_watermark_ok),
 * plus the vmstat per-cpu threshold and NR_ALLOC_BATCH of the fair zone
 * allocation policy that 3.12 introduced.
 */
#include "mmzone.h"

/* sysctl_lowmem_reserve_ratio: DMA 256, DMA32 256, Normal 32 (x86_64). */
static const int sysctl_lowmem_reserve_ratio[MAX_NR_ZONES - 1] = { 256, 256, 32 };

static unsigned long int_sqrt(unsigned long x)
{
	unsigned long r = 0, bit = 1ul << (sizeof(long) * 8 - 2);

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

static int fls_ul(unsigned long x)
{
	return x ? (int)(sizeof(long) * 8) - __builtin_clzl(x) : 0;
}

/*
 * nr_free_buffer_pages() at boot: managed pages of the zones a GFP_USER
 * allocation may use (everything but ZONE_MOVABLE), minus their high
 * watermarks (still zero when min_free_kbytes is first computed).
 */
static unsigned long nr_free_buffer_pages(const struct mpm_machine *m)
{
	unsigned long sum = 0;

	for (unsigned int i = 0; i < m->nr_zones; i++) {
		const struct zone *z = &m->zones[i];

		if (z->type != MPM_ZONE_MOVABLE && z->managed_pages > z->watermark[WMARK_HIGH])
			sum += z->managed_pages - z->watermark[WMARK_HIGH];
	}
	return sum;
}

/*
 * calculate_normal_threshold: how far a per-cpu differential may drift
 * before it is folded into the zone counter.
 */
int calculate_normal_threshold(const struct mpm_machine *m, const struct zone *z)
{
	unsigned long mem = z->managed_pages >> (27 - MPM_PAGE_SHIFT); /* 128 MiB units */
	int threshold = 2 * fls_ul(m->nr_cpus) * (1 + fls_ul(mem));

	return threshold < 125 ? threshold : 125;
}

/*
 * setup_per_zone_lowmem_reserve, for one zone and classzone @j: a lower
 * zone keeps back, from allocations whose classzone is j, the managed pages
 * of the zones above it up to j, divided by its ratio.  Empty zone types
 * take part with 0 pages, which is why DMA's protection against MOVABLE
 * equals that against NORMAL on a machine without ZONE_MOVABLE.  0 for
 * its own type and those below.
 */
long zone_lowmem_reserve(const struct mpm_machine *m, const struct zone *z, int j)
{
	struct zone *const *zones = m->node_data[z->node].node_zones;
	unsigned long managed = 0;
	int ratio;

	if (j <= (int)z->type)
		return 0;
	for (int k = (int)z->type + 1; k <= j; k++)
		if (zones[k])
			managed += zones[k]->managed_pages;
	ratio = sysctl_lowmem_reserve_ratio[z->type];
	return (long)(managed / (unsigned long)(ratio < 1 ? 1 : ratio));
}

static void setup_per_zone_lowmem_reserve(struct mpm_machine *m)
{
	for (unsigned int i = 0; i < m->nr_zones; i++)
		for (int j = 0; j < MAX_NR_ZONES; j++)
			m->zones[i].lowmem_reserve[j] = zone_lowmem_reserve(m, &m->zones[i], j);
}

/*
 * __setup_per_zone_wmarks for one zone: min_free_kbytes split over the
 * zones by managed pages; low and high are min + 1/4 and min + 1/2 of the
 * zone's share.
 */
void zone_wmarks(const struct mpm_machine *m, const struct zone *z,
		 unsigned long wmark[NR_WMARK])
{
	unsigned long pages_min = m->min_free_kbytes >> (MPM_PAGE_SHIFT - 10);
	unsigned long lowmem_pages = 0, tmp;

	for (unsigned int i = 0; i < m->nr_zones; i++)
		lowmem_pages += m->zones[i].managed_pages;
	tmp = lowmem_pages ?
	      (unsigned long)((unsigned __int128)pages_min * z->managed_pages / lowmem_pages) : 0;
	wmark[WMARK_MIN] = tmp;
	wmark[WMARK_LOW] = tmp + (tmp >> 2);
	wmark[WMARK_HIGH] = tmp + (tmp >> 1);
}

static void setup_per_zone_wmarks(struct mpm_machine *m)
{
	for (unsigned int i = 0; i < m->nr_zones; i++) {
		struct zone *z = &m->zones[i];
		unsigned long wmark[NR_WMARK];

		zone_wmarks(m, z, wmark);
		spin_lock(&z->lock);
		z->watermark[WMARK_MIN] = wmark[WMARK_MIN];
		z->watermark[WMARK_LOW] = wmark[WMARK_LOW];
		z->watermark[WMARK_HIGH] = wmark[WMARK_HIGH];
		/*
		 * __mod_zone_page_state on the cpu running the initcall, the
		 * boot cpu: at init_per_zone_wmark_min the per-cpu stat
		 * thresholds are still 0 (refresh_zone_stat_thresholds runs
		 * after this), so the delta folds into the zone at once; at
		 * khugepaged's late_initcall a delta within cpu 0's threshold
		 * stays in its differential, where the fast path, which reads
		 * the zone's counter, does not see it.
		 */
		reset_zone_alloc_batch(z, 0);
		setup_zone_migrate_reserve(m, z);
		spin_unlock(&z->lock);
	}
}

/*
 * refresh_zone_stat_thresholds for one zone: the threshold also goes to
 * every cpu's pageset, next to the differential it bounds, as the kernel's
 * per_cpu_pageset carries its own stat_threshold.
 */
static void refresh_zone_stat_threshold(struct mpm_machine *m, struct zone *z)
{
	z->stat_threshold = calculate_normal_threshold(m, z);
	for (unsigned int cpu = 0; cpu < m->nr_cpus; cpu++)
		z->pageset[cpu].stat_threshold = z->stat_threshold;
}

/*
 * set_recommended_min_free_kbytes (mm/huge_memory.c), khugepaged's
 * late_initcall: room for two pageblocks per populated zone for
 * MIGRATE_RESERVE and, per zone, a pageblock "almost free of another type"
 * for each pair of the MIGRATE_PCPTYPES, but at most 5 % of
 * nr_free_buffer_pages() -- managed pages above the boot high watermarks
 * by now.  A raise resets the watermarks (setup_per_zone_wmarks, which
 * also reruns setup_zone_migrate_reserve); the lowmem reserves and the
 * stat thresholds do not depend on min_free_kbytes and stay.
 */
static void set_recommended_min_free_kbytes(struct mpm_machine *m)
{
	unsigned long nr_zones = 0, recommended_min, cap = nr_free_buffer_pages(m) / 20;

	for (unsigned int i = 0; i < m->nr_zones; i++)
		nr_zones += m->zones[i].present_pages != 0;	/* populated_zone */
	/* Make sure at least 2 hugepages are free for MIGRATE_RESERVE */
	recommended_min = pageblock_nr_pages(m) * nr_zones * 2;
	recommended_min += pageblock_nr_pages(m) * nr_zones *
			   MIGRATE_PCPTYPES * MIGRATE_PCPTYPES;
	/* don't ever allow to reserve more than 5% of the lowmem */
	if (recommended_min > cap)
		recommended_min = cap;
	recommended_min <<= MPM_PAGE_SHIFT - 10;
	if (recommended_min > m->min_free_kbytes) {
		m->min_free_kbytes = recommended_min;
		setup_per_zone_wmarks(m);
	}
}

/*
 * init_per_zone_wmark_min: min_free_kbytes = sqrt(lowmem_kbytes * 16),
 * clamped to [128, 65536], unless the machine spec set it; then, with
 * transparent huge pages on, khugepaged's raise.
 */
void init_per_zone_wmark_min(struct mpm_machine *m)
{
	if (!m->min_free_kbytes) {
		unsigned long lowmem_kbytes = nr_free_buffer_pages(m) * (MPM_PAGE_SIZE >> 10);
		unsigned long mfk = int_sqrt(lowmem_kbytes * 16);

		if (mfk < 128)
			mfk = 128;
		if (mfk > 65536)
			mfk = 65536;
		m->min_free_kbytes = mfk;
	}
	setup_per_zone_wmarks(m);
	for (unsigned int i = 0; i < m->nr_zones; i++)
		refresh_zone_stat_threshold(m, &m->zones[i]);
	setup_per_zone_lowmem_reserve(m);
	if (m->khugepaged)
		set_recommended_min_free_kbytes(m);
}

/*
 * __zone_watermark_ok: enough free pages above @mark plus the lowmem reserve
 * for @classzone_idx, and at each lower order enough left once the pages of
 * that order are discounted (each step halves the requirement).
 */
bool __zone_watermark_ok(const struct zone *z, unsigned int order,
			 unsigned long mark, unsigned int classzone_idx,
			 int alloc_flags)
{
	long free_pages = READ_ONCE(((struct zone *)z)->vm_free_pages);
	long min = (long)mark;
	long lowmem_reserve = z->lowmem_reserve[classzone_idx];

	free_pages -= (1l << order) - 1;
	if (alloc_flags & ALLOC_HIGH)
		min -= min / 2;
	if (alloc_flags & ALLOC_HARDER)
		min -= min / 4;
	if (free_pages <= min + lowmem_reserve)
		return false;
	for (unsigned int o = 0; o < order; o++) {
		/* At the next order, this order's pages become unavailable */
		free_pages -= (long)(READ_ONCE(((struct zone *)z)->free_area[o].nr_free) << o);
		/* Require fewer higher order pages to be free */
		min >>= 1;
		if (free_pages <= min)
			return false;
	}
	return true;
}
