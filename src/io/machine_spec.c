// SPDX-License-Identifier: MIT
/*
 * --machine SPEC and its refining options -> struct mpm_machine_spec.
 *
 * A plain size lays out one x86_64 node the way a BIOS e820 map and Linux
 * 3.12 would show it:
 *
 *   pfn 0            not present (the BIOS data area; Linux never uses it)
 *   ZONE_DMA         [1, 4096)          with the legacy hole [0x9f, 0x100)
 *                                       (640 KiB - 1 MiB: VGA, option ROMs)
 *   ZONE_DMA32       [4096, 0x100000)   with the PCI hole [3 GiB, 4 GiB)
 *   ZONE_NORMAL      [4 GiB, ...)       the RAM that the PCI hole displaced
 *
 * so that "16G" means 16 GiB worth of page frames, of which pfn 0 and the 97
 * legacy-hole pfns are simply missing.  Smaller machines stop early: below
 * 3 GiB there is no ZONE_NORMAL and DMA32 ends at the size, and up to 16 MiB
 * there is only ZONE_DMA.
 */
#include "io/machine_spec.h"
#include "io/argv.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim/size.h"

#define PFN_DMA_END		0x1000ull	/* 16 MiB */
#define PFN_LEGACY_HOLE		0x9full		/* 636 KiB */
#define PFN_LEGACY_HOLE_END	0x100ull	/* 1 MiB */
#define PFN_4G			0x100000ull
#define PFN_3G			0xc0000ull
#define MAX_REGION_SHIFT	40		/* 4 PiB regions: one per machine */

void mpm_spec_buf_init(struct mpm_spec_buf *b)
{
	memset(b, 0, sizeof(*b));
	b->src_region_absolute = -1;
}

void mpm_spec_buf_free(struct mpm_spec_buf *b)
{
	free(b->zones);
	free(b->holes);
	mpm_spec_buf_init(b);
}

static int grow(void **arr, unsigned int *cap, unsigned int need, size_t elem)
{
	unsigned int ncap = *cap ? *cap * 2 : 8;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, (size_t)ncap * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

int mpm_spec_add_zone(struct mpm_spec_buf *b, unsigned int node,
		      enum mpm_zone_type type, uint64_t start_pfn,
		      uint64_t end_pfn)
{
	struct mpm_zone_spec *z;

	if (grow((void **)&b->zones, &b->zones_cap, b->spec.nr_zones + 1,
		 sizeof(*b->zones)))
		return -1;
	z = &b->zones[b->spec.nr_zones++];
	z->node = node;
	z->type = type;
	z->start_pfn = start_pfn;
	z->end_pfn = end_pfn;
	b->spec.zones = b->zones;
	if (node + 1 > b->spec.nr_nodes)
		b->spec.nr_nodes = node + 1;
	return 0;
}

int mpm_spec_add_hole(struct mpm_spec_buf *b, uint64_t start_pfn,
		      uint64_t end_pfn)
{
	struct mpm_hole_spec *h;

	if (grow((void **)&b->holes, &b->holes_cap, b->spec.nr_holes + 1,
		 sizeof(*b->holes)))
		return -1;
	h = &b->holes[b->spec.nr_holes++];
	h->start_pfn = start_pfn;
	h->end_pfn = end_pfn;
	b->spec.holes = b->holes;
	return 0;
}

/* Node 0's low zones; returns the pfn where node 0 ends, 0 on ENOMEM. */
static uint64_t x86_node0(struct mpm_spec_buf *b, uint64_t pages,
			  uint64_t pci_hole_pfn)
{
	uint64_t end;

	if (mpm_spec_add_zone(b, 0, MPM_ZONE_DMA, 1,
			      pages < PFN_DMA_END ? pages : PFN_DMA_END) ||
	    mpm_spec_add_hole(b, PFN_LEGACY_HOLE, PFN_LEGACY_HOLE_END))
		return 0;
	if (pages <= PFN_DMA_END)
		return pages;
	if (pages <= pci_hole_pfn) {
		if (mpm_spec_add_zone(b, 0, MPM_ZONE_DMA32, PFN_DMA_END, pages))
			return 0;
		return pages;
	}
	end = PFN_4G + (pages - pci_hole_pfn);
	if (mpm_spec_add_zone(b, 0, MPM_ZONE_DMA32, PFN_DMA_END, PFN_4G) ||
	    mpm_spec_add_hole(b, pci_hole_pfn, PFN_4G) ||
	    mpm_spec_add_zone(b, 0, MPM_ZONE_NORMAL, PFN_4G, end))
		return 0;
	return end;
}

int mpm_spec_x86(struct mpm_spec_buf *b, unsigned int nr_nodes,
		 uint64_t node_bytes, uint64_t pci_hole_pfn)
{
	uint64_t pages = node_bytes >> MPM_PAGE_SHIFT;
	uint64_t end = x86_node0(b, pages, pci_hole_pfn);

	if (!end)
		return -1;
	for (unsigned int nid = 1; nid < nr_nodes; nid++) {
		if (mpm_spec_add_zone(b, nid, MPM_ZONE_NORMAL, end, end + pages))
			return -1;
		end += pages;
	}
	return 0;
}

/* "16G" or "2x64G": sizes must be page multiples and within limits. */
static int parse_sized(const char *s, struct mpm_spec_buf *b,
		       char *err, size_t errlen)
{
	const char *x = strpbrk(s, "xX"), *spec = s;	/* s: the size, past any "Nx" */
	uint64_t nodes = 1, bytes;
	char sz[32];

	if (x) {
		char num[24];
		size_t n = (size_t)(x - s);

		if (!n || n >= sizeof(num))
			goto malformed;
		memcpy(num, s, n);
		num[n] = '\0';
		if (mpm_parse_u64(num, &nodes))
			goto malformed;
		s = x + 1;
	}
	/* the whole form first: "99xbox" is no size spec, and may name a file */
	if (mpm_parse_size(s, &bytes, err, errlen))
		goto malformed;
	if (nodes < 1 || nodes > MPM_MAX_NUMNODES) {
		snprintf(err, errlen, "machine '%s': node count must be 1..%d", spec,
			 MPM_MAX_NUMNODES);
		return -1;
	}
	if (bytes % MPM_PAGE_SIZE) {
		snprintf(err, errlen, "machine size '%s' is not a multiple of 4K", spec);
		return -1;
	}
	if (bytes < MPM_MIN_MACHINE_BYTES) {
		snprintf(err, errlen, "machine size '%s' is below the minimum of %s",
			 spec, mpm_format_size(MPM_MIN_MACHINE_BYTES, sz, sizeof(sz)));
		return -1;
	}
	if (bytes > MPM_MAX_MACHINE_BYTES / nodes) {
		snprintf(err, errlen, "machine '%s' exceeds the maximum of %s in all",
			 spec, mpm_format_size(MPM_MAX_MACHINE_BYTES, sz, sizeof(sz)));
		return -1;
	}
	if (mpm_spec_x86(b, (unsigned int)nodes, bytes, PFN_3G)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
malformed:
	return -2;
}

/*
 * --machine: a name ending in ".json" is a file; else a preset, else a
 * size spec, and only what is neither may be a file by another name
 * ("./64M"), so a file in the working directory never shadows a size or a
 * preset (as --power's presets are never shadowed either).  *@from_file
 * says which it was.
 */
static int load_source(const char *s, struct mpm_spec_buf *b, bool *from_file,
		       char *err, size_t errlen)
{
	int r;

	*from_file = false;
	if (!*s) {
		snprintf(err, errlen, "empty machine spec");
		return -1;
	}
	if (mpm_arg_is_json_name(s)) {
		*from_file = true;
		return mpm_machine_json_load(s, b, err, errlen);
	}
	r = mpm_machine_preset(s, b, err, errlen);
	if (r)
		return r > 0 ? 0 : -1;
	r = parse_sized(s, b, err, errlen);
	if (r == -2 && mpm_arg_is_regular_file(s)) {
		*from_file = true;
		return mpm_machine_json_load(s, b, err, errlen);
	}
	if (r == -2)
		snprintf(err, errlen,
			 "malformed machine spec '%s' (expected SIZE, NxSIZE, a preset or a .json file)",
			 s);
	else if (r == 0)
		snprintf(b->description, sizeof(b->description), "%s", s);
	return r ? -1 : 0;
}

int mpm_parse_region_align(const char *s, bool *absolute)
{
	if (!strcmp(s, "node"))
		*absolute = false;
	else if (!strcmp(s, "absolute"))
		*absolute = true;
	else
		return -1;
	return 0;
}

/* numa_zonelist_order: default, node or zone (the whole word, any case). */
int mpm_parse_zonelist_order(const char *s, unsigned int *order)
{
	static const char *const names[] = { "default", "node", "zone" };

	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i])) {
			*order = i;
			return 0;
		}
	return -1;
}

const char *mpm_zonelist_order_name(unsigned int order)
{
	return order == MPM_ZONELIST_ORDER_ZONE ? "zone" :
	       order == MPM_ZONELIST_ORDER_NODE ? "node" : "default";
}

/* A decimal as every other count takes it (so "09" too): 9 or 10. */
int mpm_parse_pageblock_order(const char *s, unsigned int *order)
{
	uint64_t v;

	if (mpm_parse_u64(s, &v) || (v != 9 && v != 10))
		return -1;
	*order = (unsigned int)v;
	return 0;
}

int mpm_parse_cpus(const char *s, unsigned int *cpus)
{
	uint64_t v;

	if (mpm_parse_u64(s, &v) || v < 1 || v > MPM_MAX_CPUS)
		return -1;
	*cpus = (unsigned int)v;
	return 0;
}

int mpm_check_region_bytes(uint64_t bytes, unsigned int pageblock_order,
			   char *err, size_t errlen)
{
	uint64_t pb = MPM_PAGE_SIZE << pageblock_order;
	char a[32], c[32];

	mpm_format_size(bytes, a, sizeof(a));
	if (!bytes || (bytes & (bytes - 1))) {
		snprintf(err, errlen, "region size %s is not a power of two", a);
		return -1;
	}
	if (bytes < pb) {
		snprintf(err, errlen,
			 "region size %s is smaller than a pageblock (%s at pageblock order %u)",
			 a, mpm_format_size(pb, c, sizeof(c)), pageblock_order);
		return -1;
	}
	if (bytes > (MPM_PAGE_SIZE << MAX_REGION_SHIFT)) {
		snprintf(err, errlen, "region size %s is larger than %s", a,
			 mpm_format_size(MPM_PAGE_SIZE << MAX_REGION_SHIFT, c, sizeof(c)));
		return -1;
	}
	return 0;
}

static unsigned int log2_u64(uint64_t v)
{
	unsigned int s = 0;

	while (v >>= 1)
		s++;
	return s;
}

/*
 * Options win over what the source said; the source wins over defaults.
 * @file: the machine file the source was, or NULL; a region_size of its own
 * that the final pageblock order refuses is reported as its field.
 */
static int apply_options(const struct mpm_machine_opts *o, const char *file,
			 struct mpm_spec_buf *b, char *err, size_t errlen)
{
	struct mpm_machine_spec *sp = &b->spec;
	uint64_t region = b->src_region_bytes ? b->src_region_bytes :
			  MPM_DEFAULT_REGION_BYTES;
	unsigned int pbo = b->src_pageblock_order ? b->src_pageblock_order :
			   MPM_DEFAULT_PAGEBLOCK_ORDER;
	unsigned int cpus = b->src_cpus ? b->src_cpus : MPM_DEFAULT_CPUS;
	bool absolute = b->src_region_absolute > 0;
	unsigned int zonelist_order = b->src_zonelist_order;

	if (o->pageblock_order && mpm_parse_pageblock_order(o->pageblock_order, &pbo)) {
		snprintf(err, errlen, "invalid pageblock order '%s' (expected 9 or 10)",
			 o->pageblock_order);
		return -1;
	}
	if (o->region_size && mpm_parse_size(o->region_size, &region, err, errlen))
		return -1;
	if (mpm_check_region_bytes(region, pbo, err, errlen)) {
		if (file && !o->region_size && b->src_region_bytes) {
			char why[256];	/* mpm_check_region_bytes' reasons: under 100 */

			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "%s: region_size: %s", file, why);
		}
		return -1;
	}
	if (o->region_align && mpm_parse_region_align(o->region_align, &absolute)) {
		snprintf(err, errlen, "invalid region alignment '%s' (expected node or absolute)",
			 o->region_align);
		return -1;
	}
	if (o->cpus && mpm_parse_cpus(o->cpus, &cpus)) {
		snprintf(err, errlen, "invalid cpu count '%s' (expected 1..%d)",
			 o->cpus, MPM_MAX_CPUS);
		return -1;
	}
	if (o->zonelist_order && mpm_parse_zonelist_order(o->zonelist_order, &zonelist_order)) {
		snprintf(err, errlen, "invalid zonelist order '%s' (expected default, node or zone)",
			 o->zonelist_order);
		return -1;
	}
	sp->region_shift = log2_u64(region >> MPM_PAGE_SHIFT);
	sp->region_absolute = absolute;
	sp->pageblock_order = pbo;
	sp->nr_cpus = cpus;
	sp->min_free_kbytes = 0;
	sp->zonelist_order = zonelist_order;
	sp->features = 0;
	b->region_bytes = region;
	return 0;
}

int mpm_machine_spec_build(const struct mpm_machine_opts *o,
			   struct mpm_spec_buf *b, char *err, size_t errlen)
{
	const char *s = o->machine ? o->machine : MPM_DEFAULT_MACHINE;
	bool from_file;

	mpm_spec_buf_init(b);
	if (load_source(s, b, &from_file, err, errlen) ||
	    apply_options(o, from_file ? s : NULL, b, err, errlen)) {
		mpm_spec_buf_free(b);
		return -1;
	}
	return 0;
}
