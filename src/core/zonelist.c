// SPDX-License-Identifier: MIT
/*
 * Zonelists and the GFP mask -> (highest zone, migratetype) mapping.
 *
 * build_all_zonelists: node order, as 3.12 picks on x86_64 NUMA machines
 * (default_zonelist_order): the local node's populated zones from the
 * highest allowed down, then each other node's in turn.  With the uniform
 * remote distance of our machines find_next_best_node() visits the other
 * nodes in ascending order starting after the local one.
 */
#include <stdlib.h>

#include "mmzone.h"

static unsigned int build_zonelists_node(const struct pglist_data *pgdat,
					 struct zone **zl, unsigned int n,
					 int high)
{
	for (int t = high; t >= 0; t--) {
		struct zone *z = pgdat->node_zones[t];

		if (z && z->present_pages)
			zl[n++] = z;
	}
	return n;
}

static struct zone **build_one(struct mpm_machine *m, unsigned int nid, int high,
			       bool thisnode)
{
	struct zone **zl = calloc((size_t)m->nr_zones + 1, sizeof(*zl));
	unsigned int n = 0;

	if (!zl)
		return NULL;
	m->metadata_bytes += ((size_t)m->nr_zones + 1) * sizeof(*zl);
	n = build_zonelists_node(&m->node_data[nid], zl, n, high);
	for (unsigned int i = 1; !thisnode && i < m->nr_nodes; i++)
		n = build_zonelists_node(&m->node_data[(nid + i) % m->nr_nodes],
					 zl, n, high);
	zl[n] = NULL;
	return zl;
}

void build_all_zonelists(struct mpm_machine *m)
{
	for (unsigned int nid = 0; nid < m->nr_nodes; nid++)
		for (int high = 0; high < MAX_NR_ZONES; high++) {
			m->node_data[nid].zonelists[0][high].zones =
				build_one(m, nid, high, false);
			m->node_data[nid].zonelists[1][high].zones =
				build_one(m, nid, high, true);
		}
}
