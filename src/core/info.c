// SPDX-License-Identifier: MIT
/*
 * Read-only queries of the public API: topology, regions, counters.  They
 * read counters without the zone locks; values are exact when no allocator
 * call runs concurrently, and a consistent-enough snapshot otherwise.
 */
#include <stdio.h>
#include <string.h>

#include "ralloc.h"
#include "mempower_work.h"

static const char *const zone_names[MPM_NR_ZONE_TYPES] = {
	"DMA", "DMA32", "Normal", "Movable"
};

static const char *const migratetype_names[MIGRATE_TYPES] = {
	"Unmovable", "Reclaimable", "Movable", "Reserve", "Isolate"
};

const char *mpm_version(void)
{
	return MPM_VERSION_STRING;
}

const char *mpm_zone_name(enum mpm_zone_type type)
{
	return (unsigned int)type < MPM_NR_ZONE_TYPES ? zone_names[type] : "?";
}

const char *mpm_migratetype_name(int mt)
{
	return mt >= 0 && mt < MIGRATE_TYPES ? migratetype_names[mt] : "?";
}

/* Policies of the design; the later stages arrive with their switches. */
static const struct {
	const char *name;
	bool available;
	unsigned long features;
} policies[] = {
	{ "mainline", true, MPM_FEATURE_NONE },
	{ "sorted", true, MPM_FEATURE_SORTED_FREELISTS | MPM_FEATURE_REGION_BIAS },
	{ "split", true, MPM_FEATURE_SORTED_FREELISTS | MPM_FEATURE_REGION_BIAS |
			 MPM_FEATURE_REGION_ALLOCATOR | MPM_FEATURE_RALLOC_BIAS |
			 MPM_FEATURE_NO_CLAIM | MPM_FEATURE_REGION_CACHE },
	{ "full", true, MPM_FEATURE_SORTED_FREELISTS | MPM_FEATURE_REGION_BIAS |
			MPM_FEATURE_REGION_ALLOCATOR | MPM_FEATURE_RALLOC_BIAS |
			MPM_FEATURE_NO_CLAIM | MPM_FEATURE_REGION_CACHE |
			MPM_FEATURE_EVAC_TRIGGERS | MPM_FEATURE_EVACUATION |
			MPM_FEATURE_RECLAIM_CLEAN },
};

int mpm_policy_features(const char *name, unsigned long *features)
{
	if (!name)
		return -1;
	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		if (strcmp(name, policies[i].name))
			continue;
		if (!policies[i].available)
			return -2;
		*features = policies[i].features;
		return 0;
	}
	return -1;
}

/* Feature switches by name, in bit order; named after the patches. */
static const char *const feature_names[] = {
	"sorted_freelists",
	"region_bias",
	"no_claim",
	"region_allocator",
	"ralloc_bias",
	"region_cache",
	"evac_triggers",
	"evacuation",
	"reclaim_clean",
	"evac_drain",
	"evac_trigger_alloc",
};

_Static_assert(sizeof(feature_names) / sizeof(feature_names[0]) ==
	       __builtin_popcountl(MPM_FEATURES_ALL), "a name for every feature bit");

int mpm_feature_by_name(const char *name, unsigned long *feature)
{
	if (!name)
		return -1;
	for (size_t i = 0; i < sizeof(feature_names) / sizeof(feature_names[0]); i++)
		if (!strcmp(name, feature_names[i])) {
			*feature = 1ul << i;
			return 0;
		}
	return -1;
}

/* Each switch that works only on top of another (mpm_machine_create refuses it alone). */
static const struct {
	unsigned long bit, needs;
} feature_deps[] = {
	{ MPM_FEATURE_REGION_BIAS, MPM_FEATURE_SORTED_FREELISTS },
	{ MPM_FEATURE_REGION_ALLOCATOR, MPM_FEATURE_SORTED_FREELISTS },
	{ MPM_FEATURE_RALLOC_BIAS, MPM_FEATURE_REGION_ALLOCATOR },
	{ MPM_FEATURE_REGION_CACHE, MPM_FEATURE_REGION_ALLOCATOR },
	{ MPM_FEATURE_EVAC_TRIGGERS, MPM_FEATURE_EVACUATION },
	{ MPM_FEATURE_RECLAIM_CLEAN, MPM_FEATURE_EVACUATION },
	{ MPM_FEATURE_EVAC_DRAIN, MPM_FEATURE_EVACUATION },
	{ MPM_FEATURE_EVAC_TRIGGER_ALLOC, MPM_FEATURE_EVAC_TRIGGERS },
	{ MPM_FEATURE_EVAC_TRIGGER_ALLOC, MPM_FEATURE_SORTED_FREELISTS },
};

/* The name of the one switch in @bit. */
static const char *feature_name(unsigned long bit)
{
	return feature_names[__builtin_ctzl(bit)];
}

/* The first entry of feature_deps that @f has without its prerequisite, or -1. */
static int first_unmet_dep(unsigned long f)
{
	for (size_t i = 0; i < sizeof(feature_deps) / sizeof(feature_deps[0]); i++)
		if ((f & feature_deps[i].bit) && !(f & feature_deps[i].needs))
			return (int)i;
	return -1;
}

int mpm_feature_unmet_dep(unsigned long f, const char **name, const char **needs)
{
	int i = first_unmet_dep(f);

	if (i < 0)
		return 0;
	*name = feature_name(feature_deps[i].bit);
	*needs = feature_name(feature_deps[i].needs);
	return 1;
}

/* Drop each switch that lacks its prerequisite, until none does. */
unsigned long mpm_features_valid(unsigned long f)
{
	f &= MPM_FEATURES_ALL;
	for (int i; (i = first_unmet_dep(f)) >= 0;)
		f &= ~feature_deps[i].bit;
	return f;
}

/*
 * @f less @bit and the switches that needed it, but not a switch that was
 * already short of its prerequisite: that one was added so, and the
 * machine's set-up names what it lacks.
 */
static unsigned long features_remove(unsigned long f, unsigned long bit)
{
	unsigned long unmet = f & ~mpm_features_valid(f);
	unsigned long g = f & ~bit;

	return g & (mpm_features_valid(g) | unmet);
}

int mpm_features_apply(const char *list, unsigned long *features, char *err, size_t errlen)
{
	unsigned long f = *features;
	const char *p = list;

	if (!list)
		return fail_msg(err, errlen, "no switch list");
	do {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char name[64];
		unsigned long bit;
		int sign = 1;

		if (len && (*p == '+' || *p == '-')) {
			sign = *p == '-' ? -1 : 1;
			p++;
			len--;
		}
		if (!len || len >= sizeof(name))
			return fail_msg(err, errlen, "empty or overlong switch name in '%s'",
					list);
		memcpy(name, p, len);
		name[len] = '\0';
		if (!strcmp(name, "none") && sign > 0) {
			f = 0;
		} else if (mpm_feature_by_name(name, &bit)) {
			char all[256];

			mpm_features_string(MPM_FEATURES_ALL, all, sizeof(all));
			return fail_msg(err, errlen,
					"unknown switch '%s' (expected one of %s, or none)",
					name, all);
		} else if (sign > 0) {
			f |= bit;
		} else {
			f = features_remove(f, bit);
		}
		p = end ? end + 1 : NULL;
	} while (p);
	*features = f;
	return 0;
}

void mpm_features_string(unsigned long features, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(feature_names) / sizeof(feature_names[0]); i++) {
		int n;

		if (!(features & (1ul << i)))
			continue;
		n = snprintf(buf + used, len - used, "%s%s", used ? "," : "", feature_names[i]);
		if (n < 0 || (size_t)n >= len - used) {
			buf[used] = '\0';	/* no half name */
			return;
		}
		used += (size_t)n;
	}
}

unsigned int mpm_nr_nodes(const struct mpm_machine *m) { return m->nr_nodes; }
unsigned int mpm_nr_cpus(const struct mpm_machine *m) { return m->nr_cpus; }
unsigned int mpm_nr_zones(const struct mpm_machine *m) { return m->nr_zones; }
uint64_t mpm_total_pages(const struct mpm_machine *m) { return m->total_present; }

uint64_t mpm_max_pfn(const struct mpm_machine *m)
{
	uint64_t end = 0;

	for (unsigned int z = 0; z < m->nr_zones; z++)
		if (zone_end_pfn(&m->zones[z]) > end)
			end = zone_end_pfn(&m->zones[z]);
	return end;
}
uint64_t mpm_region_pages(const struct mpm_machine *m) { return 1ull << m->region_shift; }
unsigned int mpm_pageblock_order(const struct mpm_machine *m) { return m->pageblock_order; }
enum mpm_zonelist_order mpm_zonelist_order(const struct mpm_machine *m)
{
	return (enum mpm_zonelist_order)m->zonelist_order;
}
unsigned long mpm_features(const struct mpm_machine *m) { return m->features; }
unsigned long mpm_min_free_kbytes(const struct mpm_machine *m) { return m->min_free_kbytes; }
uint64_t mpm_evac_threshold(const struct mpm_machine *m) { return m->evac_threshold; }
unsigned int mpm_regions_total(const struct mpm_machine *m) { return m->regions_total; }
size_t mpm_metadata_bytes(const struct mpm_machine *m) { return m->metadata_bytes; }

unsigned int mpm_cpu_to_node(const struct mpm_machine *m, unsigned int cpu)
{
	return cpu < m->nr_cpus ? m->cpu_to_node[cpu] : 0;
}

int mpm_zone_info(const struct mpm_machine *m, unsigned int zid, struct mpm_zone_info *info)
{
	struct zone *z;

	if (zid >= m->nr_zones)
		return -1;
	z = &m->zones[zid];
	info->node = z->node;
	info->type = z->type;
	info->name = zone_names[z->type];
	info->start_pfn = z->zone_start_pfn;
	info->spanned = z->spanned_pages;
	info->present = z->present_pages;
	info->managed = z->managed_pages;
	info->free_pages = (uint64_t)READ_ONCE(z->vm_free_pages);
	info->wmark_min = z->watermark[WMARK_MIN];
	info->wmark_low = z->watermark[WMARK_LOW];
	info->wmark_high = z->watermark[WMARK_HIGH];
	for (int j = 0; j < MPM_NR_ZONE_TYPES; j++)
		info->lowmem_reserve[j] = (uint64_t)z->lowmem_reserve[j];
	info->kswapd_wakeups = READ_ONCE(z->ev[ZEV_KSWAPD_WAKEUPS]);
	info->nr_regions = z->nr_regions;
	info->nr_present_regions = z->nr_present_regions;
	info->free_regions = READ_ONCE(z->free_regions);
	return 0;
}

int mpm_region_info(const struct mpm_machine *m, unsigned int zid, unsigned int rid,
		    struct mpm_region_info *info)
{
	const struct zone_mem_region *r;

	if (!zone_region_valid(m, zid, rid))
		return -1;
	r = &m->zones[zid].regions[rid];
	info->start_pfn = r->start_pfn;
	info->end_pfn = r->end_pfn;
	info->present = r->present_pages;
	info->managed = r->managed_pages;
	info->nr_free = REGION_NR_FREE(r);
	return 0;
}

unsigned int mpm_free_regions(const struct mpm_machine *m)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < m->nr_zones; i++)
		n += READ_ONCE(m->zones[i].free_regions);
	return n;
}

int mpm_pfn_to_zone(const struct mpm_machine *m, uint64_t pfn)
{
	const struct zone *z = pfn_zone(m, pfn);

	return z ? (int)z->id : -1;
}

int mpm_pfn_to_region(const struct mpm_machine *m, uint64_t pfn)
{
	int zid = mpm_pfn_to_zone(m, pfn);

	return zid < 0 ? -1 : (int)pfn_zone_region_id(m, &m->zones[zid], pfn);
}

int mpm_pfn_valid(const struct mpm_machine *m, uint64_t pfn)
{
	return mpm_pfn_to_zone(m, pfn) >= 0 &&
	       !(READ_ONCE(m->pages[pfn_to_idx(m, pfn)].flags) & PG_nomem);
}

void mpm_counters(const struct mpm_machine *m, struct mpm_counters *c)
{
	memset(c, 0, sizeof(*c));
	for (unsigned int i = 0; i < m->nr_zones; i++) {
		struct zone *z = &m->zones[i];

		for (unsigned int cpu = 0; cpu < m->nr_cpus; cpu++) {
			struct per_cpu_pages *pcp = &z->pageset[cpu];

			c->allocs += READ_ONCE(pcp->ev[PCP_ALLOCS]);
			c->frees += READ_ONCE(pcp->ev[PCP_FREES]);
			c->pgalloc += pcp_pgalloc(pcp);
			c->pgfree += pcp_pgfree(pcp);
		}
		c->alloc_failures += READ_ONCE(z->ev[ZEV_ALLOC_FAILURES]);
		c->slowpath += READ_ONCE(z->ev[ZEV_SLOWPATH]);
		c->kswapd_wakeups += READ_ONCE(z->ev[ZEV_KSWAPD_WAKEUPS]);
		c->fallbacks += READ_ONCE(z->ev[ZEV_FALLBACKS]);
		c->fragmenting_fallbacks += READ_ONCE(z->ev[ZEV_FRAGMENTING]);
		c->pageblock_claims += READ_ONCE(z->ev[ZEV_PAGEBLOCK_CLAIMS]);
		c->reserve_allocs += READ_ONCE(z->ev[ZEV_RESERVE_ALLOCS]);
		c->region_bias_splits += READ_ONCE(z->ev[ZEV_REGION_BIAS]);
		c->evacuations += READ_ONCE(z->ev[ZEV_EVAC_RUN]);
		c->evac_aborted += READ_ONCE(z->ev[ZEV_EVAC_ABORTED]);
		c->migrated += READ_ONCE(z->ev[ZEV_MIGRATED]);
		c->reclaimed += READ_ONCE(z->ev[ZEV_RECLAIMED]);
		c->migrate_failed += READ_ONCE(z->ev[ZEV_MIGRATE_FAILED]);
		if (z->mpw) {
			c->evac_queued += READ_ONCE(z->mpw->ev[MPW_QUEUED]);
			c->evac_pending += READ_ONCE(z->mpw->nr_queued);
		}
		if (z->ralloc) {
			struct region_allocator *ra = z->ralloc;

			c->pa_to_ra += READ_ONCE(ra->ev[RA_PA_TO_RA]);
			c->ra_to_pa += READ_ONCE(ra->ev[RA_RA_TO_PA]);
			c->ra_cache_hits += READ_ONCE(ra->ev[RA_CACHE_HITS]);
			c->ra_move_freepages += READ_ONCE(ra->ev[RA_MOVE_FREEPAGES]);
			c->ra_pages += READ_ONCE(ra->nr_pages);
			c->ra_regions += READ_ONCE(ra->nr_held);
		}
		c->pcp_refills += READ_ONCE(z->ev[ZEV_PCP_REFILLS]);
		c->pcp_drains += READ_ONCE(z->ev[ZEV_PCP_DRAINS]);
		c->buddy_merges += READ_ONCE(z->ev[ZEV_MERGES]);
		c->buddy_splits += READ_ONCE(z->ev[ZEV_SPLITS]);
	}
}

uint64_t mpm_pcp_pages(const struct mpm_machine *m)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < m->nr_zones; i++)
		for (unsigned int cpu = 0; cpu < m->nr_cpus; cpu++)
			n += (uint64_t)PCP_COUNT(&m->zones[i].pageset[cpu]);
	return n;
}

uint64_t mpm_used_pages(const struct mpm_machine *m)
{
	long n = 0;

	for (unsigned int i = 0; i < m->nr_zones; i++)
		for (unsigned int cpu = 0; cpu < m->nr_cpus; cpu++)
			n += (long)(pcp_pgalloc(&m->zones[i].pageset[cpu]) -
				    pcp_pgfree(&m->zones[i].pageset[cpu]));
	return (uint64_t)n;
}

uint64_t mpm_free_pages_mt(const struct mpm_machine *m, int mt)
{
	uint64_t n = 0;

	if (mt < 0 || mt >= MIGRATE_TYPES)
		return 0;
	for (unsigned int i = 0; i < m->nr_zones; i++)
		n += (uint64_t)READ_ONCE(m->zones[i].nr_free_mt[mt]);
	return n;
}

uint64_t mpm_pageblocks_mt(const struct mpm_machine *m, int mt)
{
	uint64_t n = 0;
	unsigned long nr = pageblock_nr_pages(m);

	for (unsigned int i = 0; i < m->nr_zones; i++) {
		const struct zone *z = &m->zones[i];

		for (uint64_t pfn = z->pageblock_base_pfn; pfn < zone_end_pfn(z); pfn += nr)
			n += get_pageblock_migratetype(m, z, pfn) == mt;
	}
	return n;
}

enum mpm_page_state mpm_page_state(const struct mpm_machine *m, uint64_t pfn,
				   unsigned int *order)
{
	const struct mpm_page *page;
	uint8_t flags;

	if (!pfn_zone(m, pfn))		/* outside every zone */
		return MPM_PAGE_HOLE;
	page = &m->pages[pfn_to_idx(m, pfn)];
	flags = READ_ONCE(((struct mpm_page *)page)->flags);
	if (order)
		*order = READ_ONCE(((struct mpm_page *)page)->order);
	if (flags & PG_reserved)
		return flags & PG_nomem ? MPM_PAGE_HOLE : MPM_PAGE_RESERVED;
	if (flags & PG_buddy)
		return MPM_PAGE_FREE;
	if (flags & PG_pcp)
		return MPM_PAGE_PCP;
	if (flags & PG_alloc)
		return MPM_PAGE_ALLOC;
	return MPM_PAGE_TAIL;
}
