/* SPDX-License-Identifier: MIT */
/*
 * From the command line's --machine SPEC (and the options that refine it)
 * to a struct mpm_machine_spec.  SPEC is one of
 *
 *   16G            one node with an x86_64 memory map (see machine_spec.c)
 *   2x64G          N nodes of SIZE each; node 0 carries the low zones
 *   sandybridge-128g   a named preset (mpm_machine_presets_print lists them)
 *   box.json       a machine file (docs/machine-json.md)
 *
 * The spec points into arrays owned by struct mpm_spec_buf; release them
 * with mpm_spec_buf_free().
 */
#ifndef MPM_IO_MACHINE_SPEC_H
#define MPM_IO_MACHINE_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <mempower/machine.h>

#define MPM_DEFAULT_MACHINE		"sandybridge-128g"
#define MPM_DEFAULT_REGION_BYTES	(512ull << 20)
#define MPM_DEFAULT_PAGEBLOCK_ORDER	10u
#define MPM_DEFAULT_CPUS		4u
/* Smallest machine: one pageblock of order 10 above the legacy hole. */
#define MPM_MIN_MACHINE_BYTES		(4ull << 20)
/* 52 bits of physical address, as x86_64 with 4-level paging allows. */
#define MPM_MAX_MACHINE_BYTES		(1ull << 52)

struct mpm_spec_buf {
	struct mpm_machine_spec spec;	/* zones/holes point below */
	struct mpm_zone_spec *zones;
	unsigned int zones_cap;
	struct mpm_hole_spec *holes;
	unsigned int holes_cap;
	/* What the source (preset, JSON file) asked for; 0 / -1 = nothing. */
	uint64_t src_region_bytes;
	int src_region_absolute;
	unsigned int src_pageblock_order;
	unsigned int src_cpus;
	unsigned int src_zonelist_order;	/* MPM_ZONELIST_ORDER_DEFAULT = nothing */
	/* Resolved values, for reports. */
	uint64_t region_bytes;
	char description[128];
};

/* The strings as given on the command line; NULL = not given. */
struct mpm_machine_opts {
	const char *machine;
	const char *region_size;
	const char *region_align;
	const char *pageblock_order;
	const char *cpus;
	const char *zonelist_order;
};

/*
 * Parse and validate everything.  0 on success; -1 with a one-line reason
 * in @err (no "mempower:" prefix) and @b left empty.
 */
int mpm_machine_spec_build(const struct mpm_machine_opts *o,
			   struct mpm_spec_buf *b, char *err, size_t errlen);
void mpm_spec_buf_free(struct mpm_spec_buf *b);

/* One line per preset: "  name   description". */
void mpm_machine_presets_print(FILE *out);

/* ---- builders shared by the spec sources (io-internal) ---- */

void mpm_spec_buf_init(struct mpm_spec_buf *b);
int mpm_spec_add_zone(struct mpm_spec_buf *b, unsigned int node,
		      enum mpm_zone_type type, uint64_t start_pfn,
		      uint64_t end_pfn);
int mpm_spec_add_hole(struct mpm_spec_buf *b, uint64_t start_pfn,
		      uint64_t end_pfn);
/*
 * N nodes of @node_bytes each, x86_64 style, with the PCI/MMIO hole from
 * @pci_hole_pfn up to 4 GiB.  Sizes were checked by the caller.
 */
int mpm_spec_x86(struct mpm_spec_buf *b, unsigned int nr_nodes,
		 uint64_t node_bytes, uint64_t pci_hole_pfn);

/* Presets: 1 if @name is one (and @b is filled), 0 if not, -1 on error. */
int mpm_machine_preset(const char *name, struct mpm_spec_buf *b,
		       char *err, size_t errlen);
/* A machine file; -1 with "PATH: field: reason" in @err. */
int mpm_machine_json_load(const char *path, struct mpm_spec_buf *b,
			  char *err, size_t errlen);

/* Validators shared with the JSON loader (same rules, same words). */
int mpm_check_region_bytes(uint64_t bytes, unsigned int pageblock_order,
			   char *err, size_t errlen);
int mpm_parse_region_align(const char *s, bool *absolute);
int mpm_parse_pageblock_order(const char *s, unsigned int *order);
int mpm_parse_cpus(const char *s, unsigned int *cpus);
int mpm_parse_zonelist_order(const char *s, unsigned int *order);
/* "default", "node" or "zone" */
const char *mpm_zonelist_order_name(unsigned int order);

#endif /* MPM_IO_MACHINE_SPEC_H */
