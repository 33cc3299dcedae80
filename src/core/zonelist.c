// SPDX-License-Identifier: MIT
/*
 * Zonelists: build_all_zonelists and the choice between its two orders.
 *
 * A zonelist is the order in which an allocation on a node tries zones.
 * 3.12 builds it in one of two orders (numa_zonelist_order):
 *
 *   node order  the local node's populated zones from the highest allowed
 *               down, then each other node's in turn;
 *   zone order  the highest allowed zone type of every node, nearest node
 *               first, then the next type down, "DMA last".
 *
 * The boot default ("default") is default_zonelist_order(), below.  With
 * the uniform remote distance of our machines find_next_best_node() visits
 * the other nodes in ascending order starting after the local one, so a
 * node's "node order" of nodes is nid, nid + 1, ... (mod nr_nodes).
 */
#include <stdlib.h>

#include "mmzone.h"

static bool populated_zone(const struct zone *z)
{
	return z && z->present_pages;
}

/*
 * A node's present pages in DMA/DMA32 (@low) and in all (@total); false if
 * its ZONE_NORMAL is not populated.
 */
static bool node_lowmem(const struct pglist_data *pgdat, uint64_t *low, uint64_t *total)
{
	*low = *total = 0;
	for (int t = 0; t < MAX_NR_ZONES; t++) {
		const struct zone *z = pgdat->node_zones[t];

		if (!populated_zone(z))
			continue;
		if (t < MPM_ZONE_NORMAL)
			*low += z->present_pages;
		*total += z->present_pages;
	}
	return populated_zone(pgdat->node_zones[MPM_ZONE_NORMAL]);
}

/*
 * default_zonelist_order (3.12, mm/page_alloc.c): zone order unless
 *  - some online node has no populated ZONE_NORMAL (kernel allocations
 *    there must stay local: node order);
 *  - there is no DMA/DMA32 memory, or it is over half of all memory;
 *  - some node larger than the average (total / (nodes with memory + 1))
 *    has over 70 % of its memory in DMA/DMA32.
 * On the cover-letter machine (2 x 64 GiB, 2 GiB of DMA32 on node 0) that
 * is zone order; on 2 x 4 GiB, where DMA32 is 3/4 of node 0, node order.
 * Later 64-bit kernels default to node order (the version is not pinned
 * down here).
 */
static unsigned int default_zonelist_order(const struct mpm_machine *m)
{
	uint64_t low = 0, total = 0, node_low, node_total, average;

	for (unsigned int nid = 0; nid < m->nr_nodes; nid++) {
		if (!node_lowmem(&m->node_data[nid], &node_low, &node_total))
			return MPM_ZONELIST_ORDER_NODE;
		low += node_low;
		total += node_total;
	}
	if (!low || low > total / 2)
		return MPM_ZONELIST_ORDER_NODE;

	/* every node has a populated Normal zone here: all are N_MEMORY */
	average = total / (m->nr_nodes + 1);
	for (unsigned int nid = 0; nid < m->nr_nodes; nid++) {
		node_lowmem(&m->node_data[nid], &node_low, &node_total);
		if (node_low && node_total > average && node_low > node_total * 70 / 100)
			return MPM_ZONELIST_ORDER_NODE;
	}
	return MPM_ZONELIST_ORDER_ZONE;
}

/* build_zonelists_node: one node's populated zones, @high down. */
static unsigned int build_zonelists_node(const struct pglist_data *pgdat,
					 struct zone **zl, unsigned int n,
					 int high)
{
	for (int t = high; t >= 0; t--) {
		struct zone *z = pgdat->node_zones[t];

		if (populated_zone(z))
			zl[n++] = z;
	}
	return n;
}

/* build_zonelists_in_zone_order: by type from @high down, nodes nearest first. */
static unsigned int build_zonelists_in_zone_order(const struct mpm_machine *m,
						  unsigned int nid, struct zone **zl,
						  int high)
{
	unsigned int n = 0;

	for (int t = high; t >= 0; t--)
		for (unsigned int i = 0; i < m->nr_nodes; i++) {
			struct zone *z = m->node_data[(nid + i) % m->nr_nodes].node_zones[t];

			if (populated_zone(z))
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
	if (thisnode) {
		/* build_thisnode_zonelists: the same in either order */
		n = build_zonelists_node(&m->node_data[nid], zl, 0, high);
	} else if (m->zonelist_order == MPM_ZONELIST_ORDER_ZONE) {
		n = build_zonelists_in_zone_order(m, nid, zl, high);
	} else {
		for (unsigned int i = 0; i < m->nr_nodes; i++)
			n = build_zonelists_node(&m->node_data[(nid + i) % m->nr_nodes],
						 zl, n, high);
	}
	zl[n] = NULL;
	return zl;
}

/*
 * @order is the spec's numa_zonelist_order: MPM_ZONELIST_ORDER_DEFAULT
 * resolves to default_zonelist_order() once the zones are populated.
 */
void build_all_zonelists(struct mpm_machine *m, unsigned int order)
{
	m->zonelist_order = order == MPM_ZONELIST_ORDER_DEFAULT ?
			    default_zonelist_order(m) : order;
	for (unsigned int nid = 0; nid < m->nr_nodes; nid++)
		for (int high = 0; high < MAX_NR_ZONES; high++) {
			m->node_data[nid].zonelists[0][high].zones =
				build_one(m, nid, high, false);
			m->node_data[nid].zonelists[1][high].zones =
				build_one(m, nid, high, true);
		}
}
