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
 * The boot default ("default") is default_zonelist_order(), below.  The
 * order of nodes is find_next_best_node()'s, with the distances of our
 * machines: 10 local, 20 to every other node.  When every node has cpus
 * that is nid, nid + 1, ... (mod nr_nodes); a node without cpus is
 * preferred over one with cpus at the same distance.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mmzone.h"

static bool populated_zone(const struct zone *z)
{
	return z && z->present_pages;
}

/*
 * A node's pages in DMA/DMA32 (@low) and in all (@total), managed pages
 * with @managed, else present pages; false if its ZONE_NORMAL is not
 * populated.
 */
static bool node_lowmem(const struct pglist_data *pgdat, bool managed, uint64_t *low,
			uint64_t *total)
{
	*low = *total = 0;
	for (int t = 0; t < MAX_NR_ZONES; t++) {
		const struct zone *z = pgdat->node_zones[t];
		uint64_t pages;

		if (!populated_zone(z))
			continue;
		pages = managed ? z->managed_pages : z->present_pages;
		if (t < MPM_ZONE_NORMAL)
			*low += pages;
		*total += pages;
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
 * The first two tests count managed pages, the last present pages, as
 * 3.12 does.  On the cover-letter machine (2 x 64 GiB, 2 GiB of DMA32 on
 * node 0) that is zone order; on 2 x 4 GiB, where DMA32 is 3/4 of node 0,
 * node order.
 * Later 64-bit kernels default to node order (the version is not pinned
 * down here).
 */
static unsigned int default_zonelist_order(const struct mpm_machine *m)
{
	uint64_t low = 0, total = 0, node_low, node_total, average;

	for (unsigned int nid = 0; nid < m->nr_nodes; nid++) {
		if (!node_lowmem(&m->node_data[nid], true, &node_low, &node_total))
			return MPM_ZONELIST_ORDER_NODE;
		low += node_low;
		total += node_total;
	}
	if (!low || low > total / 2)
		return MPM_ZONELIST_ORDER_NODE;

	/* every node has a populated Normal zone here: all are N_MEMORY */
	average = total / (m->nr_nodes + 1);
	for (unsigned int nid = 0; nid < m->nr_nodes; nid++) {
		node_lowmem(&m->node_data[nid], false, &node_low, &node_total);
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

/* build_zonelists_in_zone_order: by type from @high down, nodes in @node_order. */
static unsigned int build_zonelists_in_zone_order(const struct mpm_machine *m,
						  const int *node_order, unsigned int nr,
						  struct zone **zl, int high)
{
	unsigned int n = 0;

	for (int t = high; t >= 0; t--)
		for (unsigned int i = 0; i < nr; i++) {
			struct zone *z = m->node_data[node_order[i]].node_zones[t];

			if (populated_zone(z))
				zl[n++] = z;
		}
	return n;
}

#define LOCAL_DISTANCE			10
#define REMOTE_DISTANCE			20
#define PENALTY_FOR_NODE_WITH_CPUS	1

/* node_distance: our machines have no SLIT, so every remote node is at 20. */
static int node_distance(unsigned int a, unsigned int b)
{
	return a == b ? LOCAL_DISTANCE : REMOTE_DISTANCE;
}

/* What find_next_best_node asks of a node: N_MEMORY, and cpumask_of_node. */
struct node_states {
	bool memory[MPM_MAX_NUMNODES];	/* present pages in some zone */
	bool cpus[MPM_MAX_NUMNODES];	/* some cpu on the node */
};

static void node_states_init(const struct mpm_machine *m, struct node_states *ns)
{
	memset(ns, 0, sizeof(*ns));
	for (unsigned int nid = 0; nid < m->nr_nodes; nid++)
		for (int t = 0; t < MAX_NR_ZONES; t++)
			ns->memory[nid] |= populated_zone(m->node_data[nid].node_zones[t]);
	for (unsigned int cpu = 0; cpu < m->nr_cpus; cpu++)
		ns->cpus[m->cpu_to_node[cpu]] = true;
}

/*
 * find_next_best_node (3.12): the local node first, then the nearest node
 * with memory not yet used, penalizing nodes below @node ("prefer the next
 * node") and nodes with cpus ("preference to headless nodes"); node_load
 * breaks ties, its weight (MAX_NODE_LOAD * MAX_NUMNODES) above any load.
 */
static int find_next_best_node(const struct mpm_machine *m, const struct node_states *ns,
			       unsigned int node, bool *used, const int *node_load)
{
	long min_val = LONG_MAX;
	int best_node = -1;

	if (!used[node]) {
		used[node] = true;
		return (int)node;
	}
	for (unsigned int n = 0; n < m->nr_nodes; n++) {
		long val;

		if (used[n] || !ns->memory[n])
			continue;
		val = node_distance(node, n);
		val += n < node;
		if (ns->cpus[n])
			val += PENALTY_FOR_NODE_WITH_CPUS;
		val *= (long)m->nr_nodes * MPM_MAX_NUMNODES;
		val += node_load[n];
		if (val < min_val) {
			min_val = val;
			best_node = (int)n;
		}
	}
	if (best_node >= 0)
		used[best_node] = true;
	return best_node;
}

/*
 * build_zonelists' order of nodes for @local: find_next_best_node until
 * none is left, the first node of each new distance getting a load (so
 * that equally distant nodes take turns being first).  @node_load lives
 * across the nodes' calls, as the kernel's static node_load[] does within
 * one __build_all_zonelists.  Returns the number of nodes in @node_order.
 */
static unsigned int build_node_order(const struct mpm_machine *m, const struct node_states *ns,
				     unsigned int local, int *node_load, int *node_order)
{
	bool used[MPM_MAX_NUMNODES] = { false };
	int load = (int)m->nr_nodes, node;
	unsigned int prev = local, j = 0;

	while ((node = find_next_best_node(m, ns, local, used, node_load)) >= 0) {
		if (node_distance(local, (unsigned int)node) != node_distance(local, prev))
			node_load[node] = load;
		prev = (unsigned int)node;
		load--;
		node_order[j++] = node;
	}
	return j;
}

static struct zone **build_one(struct mpm_machine *m, unsigned int nid, const int *node_order,
			       unsigned int nr, int high, bool thisnode)
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
		n = build_zonelists_in_zone_order(m, node_order, nr, zl, high);
	} else {
		for (unsigned int i = 0; i < nr; i++)
			n = build_zonelists_node(&m->node_data[node_order[i]], zl, n, high);
	}
	zl[n] = NULL;
	return zl;
}

/*
 * @order is the spec's numa_zonelist_order: MPM_ZONELIST_ORDER_DEFAULT
 * resolves to default_zonelist_order() once the zones are populated.
 * cpu_to_node must be set: the order of nodes depends on it.
 */
void build_all_zonelists(struct mpm_machine *m, unsigned int order)
{
	int node_load[MPM_MAX_NUMNODES] = { 0 };
	struct node_states ns;

	m->zonelist_order = order == MPM_ZONELIST_ORDER_DEFAULT ?
			    default_zonelist_order(m) : order;
	node_states_init(m, &ns);
	for (unsigned int nid = 0; nid < m->nr_nodes; nid++) {
		int node_order[MPM_MAX_NUMNODES];
		unsigned int nr = build_node_order(m, &ns, nid, node_load, node_order);

		for (int high = 0; high < MAX_NR_ZONES; high++) {
			m->node_data[nid].zonelists[0][high].zones =
				build_one(m, nid, node_order, nr, high, false);
			m->node_data[nid].zonelists[1][high].zones =
				build_one(m, nid, node_order, nr, high, true);
		}
	}
}
