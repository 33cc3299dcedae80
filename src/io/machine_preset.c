// SPDX-License-Identifier: MIT
/*
 * Named machines.  Kept few: each one is here because an experiment or a
 * published number refers to it.
 */
#include "io/machine_spec.h"

#include <string.h>

struct machine_preset {
	const char *name;
	const char *description;
	unsigned int nr_nodes;
	uint64_t node_bytes;
	uint64_t pci_hole_pfn;	/* the MMIO hole runs from here to 4 GiB */
	unsigned int cpus;
};

/*
 * sandybridge-128g is the machine of the 2013 cover letter: dual-socket quad
 * core with HT, 128 GiB, 512 MiB regions.  A 2 GiB MMIO hole below 4 GiB puts
 * node 0's ZONE_NORMAL at [4 GiB, 66 GiB) = 16,252,928 pages, the published
 * zoneinfo figure; node 1 is [66 GiB, 130 GiB).
 */
static const struct machine_preset presets[] = {
	{ "sandybridge-128g",
	  "2 nodes x 64G, 16 cpus, 2G MMIO hole: the 2013 cover-letter machine",
	  2, 64ull << 30, 0x80000, 16 },
	{ "server-2t",
	  "4 nodes x 512G, 64 cpus: the 2 TiB scale target",
	  4, 512ull << 30, 0xc0000, 64 },
};

int mpm_machine_preset(const char *name, struct mpm_spec_buf *b,
		       char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
		const struct machine_preset *p = &presets[i];

		if (strcmp(name, p->name))
			continue;
		if (mpm_spec_x86(b, p->nr_nodes, p->node_bytes, p->pci_hole_pfn)) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		b->src_cpus = p->cpus;
		b->src_region_bytes = MPM_DEFAULT_REGION_BYTES;
		snprintf(b->description, sizeof(b->description), "%s", p->name);
		return 1;
	}
	return 0;
}

void mpm_machine_presets_print(FILE *out)
{
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		fprintf(out, "  %-18s %s\n", presets[i].name, presets[i].description);
}
