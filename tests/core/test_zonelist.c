// SPDX-License-Identifier: MIT
/*
 * Zonelists: 3.12's default_zonelist_order() picks zone order on a
 * two-socket machine whose DMA/DMA32 is small, node order on the machines
 * its rules name, counting managed pages where 3.12 does; both orders are
 * built as build_zonelists builds them, nodes in find_next_best_node's
 * order; gfp_zone reads GFP_ZONE_TABLE; and the fair zone policy's refill
 * goes through the calling cpu's NR_ALLOC_BATCH differential, as
 * prepare_slowpath's mod_zone_page_state() does, so a small zone's refill
 * can wait in the differential -- waking no kswapd while the zones are
 * balanced.
 */
#include "gfp.h"
#include "machines.h"
#include "mmzone.h"

enum { DMA, DMA32, NORMAL0, NORMAL1 };	/* machine-wide zone ids below */

/*
 * Node 0: DMA [1, 4096), DMA32 [4096, 4096 + @dma32), Normal of @normal0
 * pages; node 1: Normal of @normal1 pages (none if 0).  16 cpus.
 */
static void two_socket(struct test_machine *t, uint64_t dma32, uint64_t normal0,
		       uint64_t normal1, unsigned int order)
{
	uint64_t a = 4096 + dma32, b = a + normal0;

	memset(t, 0, sizeof(*t));
	t->zones[0] = (struct mpm_zone_spec){ 0, MPM_ZONE_DMA, 1, 4096 };
	t->zones[1] = (struct mpm_zone_spec){ 0, MPM_ZONE_DMA32, 4096, a };
	t->zones[2] = (struct mpm_zone_spec){ 0, MPM_ZONE_NORMAL, a, b };
	t->zones[3] = (struct mpm_zone_spec){ 1, MPM_ZONE_NORMAL, b, b + normal1 };
	tm_link(t, 2, normal1 ? 4 : 3, 0);
	t->spec.nr_cpus = 16;
	t->spec.zonelist_order = order;
}

/* Does node @nid's zonelist up to type @high hold exactly zones @want? */
static bool zonelist_is(struct mpm_machine *m, unsigned int nid, int high, bool thisnode,
			const int *want, unsigned int n)
{
	struct zone **zl = m->node_data[nid].zonelists[thisnode][high].zones;

	for (unsigned int i = 0; i < n; i++)
		if (zl[i] != &m->zones[want[i]])
			return false;
	return zl[n] == NULL;
}

static void test_zone_order_by_default(void)
{
	static const int n0[] = { NORMAL0, NORMAL1, DMA32, DMA };
	static const int n1[] = { NORMAL1, NORMAL0, DMA32, DMA };
	static const int n0_dma32[] = { DMA32, DMA };
	static const int n0_this[] = { NORMAL0, DMA32, DMA };
	static const int n1_this[] = { NORMAL1 };
	struct test_machine t;
	struct mpm_machine *m;

	/* 256 MiB of DMA/DMA32 in 4.25 GiB, 11 % of node 0: zone order */
	two_socket(&t, MiB_PAGES(240), GiB_PAGES(2), GiB_PAGES(2), MPM_ZONELIST_ORDER_DEFAULT);
	m = tm_create(&t);
	CHECK(mpm_zonelist_order(m) == MPM_ZONELIST_ORDER_ZONE);
	CHECK(zonelist_is(m, 0, MPM_ZONE_MOVABLE, false, n0, 4));
	CHECK(zonelist_is(m, 0, MPM_ZONE_NORMAL, false, n0, 4));
	CHECK(zonelist_is(m, 1, MPM_ZONE_MOVABLE, false, n1, 4));
	CHECK(zonelist_is(m, 0, MPM_ZONE_DMA32, false, n0_dma32, 2));
	CHECK(zonelist_is(m, 1, MPM_ZONE_DMA32, false, n0_dma32, 2));
	/* __GFP_THISNODE lists are the node's own zones in either order */
	CHECK(zonelist_is(m, 0, MPM_ZONE_MOVABLE, true, n0_this, 3));
	CHECK(zonelist_is(m, 1, MPM_ZONE_MOVABLE, true, n1_this, 1));
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

static void test_node_order_asked_for(void)
{
	static const int n0[] = { NORMAL0, DMA32, DMA, NORMAL1 };
	static const int n1[] = { NORMAL1, NORMAL0, DMA32, DMA };
	struct test_machine t;
	struct mpm_machine *m;

	two_socket(&t, MiB_PAGES(240), GiB_PAGES(2), GiB_PAGES(2), MPM_ZONELIST_ORDER_NODE);
	m = tm_create(&t);
	CHECK(mpm_zonelist_order(m) == MPM_ZONELIST_ORDER_NODE);
	CHECK(zonelist_is(m, 0, MPM_ZONE_MOVABLE, false, n0, 4));
	CHECK(zonelist_is(m, 1, MPM_ZONE_MOVABLE, false, n1, 4));
	mpm_machine_destroy(m);
}

/* default_zonelist_order's reasons for node order, one machine each. */
static void test_default_picks_node_order(void)
{
	struct test_machine t;
	struct mpm_machine *m;

	/* node 1 has no Normal zone (memory only in Movable) */
	two_socket(&t, MiB_PAGES(240), GiB_PAGES(2), GiB_PAGES(2), 0);
	t.zones[3].type = MPM_ZONE_MOVABLE;
	m = tm_create(&t);
	CHECK(mpm_zonelist_order(m) == MPM_ZONELIST_ORDER_NODE);
	mpm_machine_destroy(m);

	/* DMA/DMA32 is over half of all memory */
	two_socket(&t, GiB_PAGES(3), MiB_PAGES(512), MiB_PAGES(512), 0);
	m = tm_create(&t);
	CHECK(mpm_zonelist_order(m) == MPM_ZONELIST_ORDER_NODE);
	mpm_machine_destroy(m);

	/* just under half, but 3 GiB of node 0's 3.5 are DMA32 (> 70 %) */
	two_socket(&t, GiB_PAGES(3) - 4096, MiB_PAGES(512), GiB_PAGES(3), 0);
	m = tm_create(&t);
	CHECK(mpm_zonelist_order(m) == MPM_ZONELIST_ORDER_NODE);
	mpm_machine_destroy(m);
	/* ... and 60 % of node 0 is zone order again */
	two_socket(&t, GiB_PAGES(3) - 4096, GiB_PAGES(2), GiB_PAGES(3), 0);
	m = tm_create(&t);
	CHECK(mpm_zonelist_order(m) == MPM_ZONELIST_ORDER_ZONE);
	mpm_machine_destroy(m);

	/* exactly half is not over half: one node, DMA32 and Normal alike */
	memset(&t, 0, sizeof(t));
	t.zones[0] = (struct mpm_zone_spec){ 0, MPM_ZONE_DMA32, 0, 65536 };
	t.zones[1] = (struct mpm_zone_spec){ 0, MPM_ZONE_NORMAL, 65536, 131072 };
	tm_link(&t, 1, 2, 0);
	t.spec.nr_cpus = 1;
	m = tm_create(&t);
	CHECK(mpm_zonelist_order(m) == MPM_ZONELIST_ORDER_ZONE);
	mpm_machine_destroy(m);

	/* no DMA or DMA32 at all */
	tm_flat(&t, GiB_PAGES(4), GiB_PAGES(1), 2);
	t.zones[1] = (struct mpm_zone_spec){ 1, MPM_ZONE_NORMAL, GiB_PAGES(5), GiB_PAGES(6) };
	tm_link(&t, 2, 2, 0);
	m = tm_create(&t);
	CHECK(mpm_zonelist_order(m) == MPM_ZONELIST_ORDER_NODE);
	mpm_machine_destroy(m);

	/* a value that is no order is refused by name */
	two_socket(&t, MiB_PAGES(240), GiB_PAGES(2), GiB_PAGES(2), 3);
	{
		char err[256] = "";

		CHECK(mpm_machine_create(&t.spec, err, sizeof(err)) == NULL);
		CHECK(strstr(err, "zonelist_order") != NULL);
	}
}

/*
 * default_zonelist_order's "DMA/DMA32 is big" test counts managed pages,
 * as 3.12's first pass does: DMA/DMA32 just over half of the present
 * pages, but 2000 of them memblock-reserved, is under half of the managed
 * pages, and node 0's 67 % DMA32 is under the 70 % rule: zone order.
 */
static void test_default_counts_managed_pages(void)
{
	static struct mpm_hole_spec reserved[1];
	struct test_machine t;
	struct mpm_machine *m;
	uint64_t normal = GiB_PAGES(1), dma32 = 2 * normal + 1000 - 4095;

	two_socket(&t, dma32, normal, normal, MPM_ZONELIST_ORDER_DEFAULT);
	m = tm_create(&t);
	CHECK(mpm_zonelist_order(m) == MPM_ZONELIST_ORDER_NODE);	/* present: over half */
	mpm_machine_destroy(m);

	reserved[0] = (struct mpm_hole_spec){ 8192, 8192 + 2000 };
	t.spec.reserved = reserved;
	t.spec.nr_reserved = 1;
	m = tm_create(&t);
	CHECK(mpm_zonelist_order(m) == MPM_ZONELIST_ORDER_ZONE);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

/*
 * gfp_zone over all sixteen zone-modifier combinations: GFP_ZONE_TABLE of
 * x86_64 (no highmem: HIGHMEM alone is NORMAL), and zone 0, DMA, for the
 * eight that GFP_ZONE_BAD lists.
 */
static void test_gfp_zone_table(void)
{
	static const unsigned int want[16] = {
		MPM_ZONE_NORMAL, MPM_ZONE_DMA, MPM_ZONE_NORMAL, MPM_ZONE_DMA,	/* 3: BAD */
		MPM_ZONE_DMA32, MPM_ZONE_DMA, MPM_ZONE_DMA, MPM_ZONE_DMA,	/* 5-7: BAD */
		MPM_ZONE_NORMAL, MPM_ZONE_DMA, MPM_ZONE_MOVABLE, MPM_ZONE_DMA,	/* b: BAD */
		MPM_ZONE_DMA32, MPM_ZONE_DMA, MPM_ZONE_DMA, MPM_ZONE_DMA,	/* d-f: BAD */
	};

	for (mpm_gfp_t g = 0; g < 16; g++)
		CHECK_EQ_U(gfp_zone(g | MPM_GFP_KERNEL), want[g]);
}

/* @nodes nodes of one Normal zone of 64 MiB each, @cpus cpus, node order. */
static struct mpm_machine *normal_nodes(struct test_machine *t, unsigned int nodes,
					unsigned int cpus)
{
	memset(t, 0, sizeof(*t));
	for (unsigned int n = 0; n < nodes; n++)
		t->zones[n] = (struct mpm_zone_spec){ n, MPM_ZONE_NORMAL,
						      GiB_PAGES(4) + n * MiB_PAGES(64),
						      GiB_PAGES(4) + (n + 1) * MiB_PAGES(64) };
	tm_link(t, nodes, nodes, 0);
	t->spec.nr_cpus = cpus;
	return tm_create(t);
}

/*
 * find_next_best_node with uniform distances: every node with cpus gives
 * nid, nid + 1, ...; with cpus on nodes 0 and 2 only, the headless nodes
 * 1 and 3 come before a node with cpus at the same distance, the node
 * below the local one pays one more, and node_load, kept across the
 * nodes' builds, breaks ties -- the orders worked out by hand from the
 * 3.12 code.
 */
static void test_node_order_prefers_headless_nodes(void)
{
	static const int all_cpus[4][4] = { { 0, 1, 2, 3 }, { 1, 2, 3, 0 },
					    { 2, 3, 0, 1 }, { 3, 0, 1, 2 } };
	static const int two_cpus[4][4] = { { 0, 1, 3, 2 }, { 1, 3, 2, 0 },
					    { 2, 3, 1, 0 }, { 3, 1, 0, 2 } };
	static const int five_nodes[5][5] = { { 0, 1, 3, 4, 2 }, { 1, 3, 4, 2, 0 },
					      { 2, 4, 3, 1, 0 }, { 3, 4, 1, 0, 2 },
					      { 4, 1, 3, 0, 2 } };
	struct test_machine t;
	struct mpm_machine *m;

	m = normal_nodes(&t, 4, 4);
	CHECK(mpm_zonelist_order(m) == MPM_ZONELIST_ORDER_NODE);	/* no DMA/DMA32 */
	for (unsigned int nid = 0; nid < 4; nid++)
		CHECK(zonelist_is(m, nid, MPM_ZONE_NORMAL, false, all_cpus[nid], 4));
	mpm_machine_destroy(m);

	m = normal_nodes(&t, 4, 2);
	REQUIRE(mpm_cpu_to_node(m, 0) == 0 && mpm_cpu_to_node(m, 1) == 2);
	for (unsigned int nid = 0; nid < 4; nid++)
		CHECK(zonelist_is(m, nid, MPM_ZONE_NORMAL, false, two_cpus[nid], 4));
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);

	/*
	 * Five nodes, cpus on 0 and 2: node 1's build loads node 3, so node 2
	 * takes headless node 4 before node 3 -- the one pick of these orders
	 * that node_load, kept from the builds before, decides (without it,
	 * 2, 3, 4, 1, 0).
	 */
	m = normal_nodes(&t, 5, 2);
	REQUIRE(mpm_cpu_to_node(m, 0) == 0 && mpm_cpu_to_node(m, 1) == 2);
	for (unsigned int nid = 0; nid < 5; nid++)
		CHECK(zonelist_is(m, nid, MPM_ZONE_NORMAL, false, five_nodes[nid], 5));
	mpm_machine_destroy(m);
}

/*
 * Where the fast path goes once node 0's Normal zone has used its fair
 * batch: node 1's Normal in zone order, DMA32 in node order.
 */
static unsigned int first_zone_after_normal0(unsigned int order)
{
	struct test_machine t;
	struct mpm_machine *m;
	unsigned int zid = NORMAL0;

	two_socket(&t, MiB_PAGES(240), GiB_PAGES(2), GiB_PAGES(2), order);
	m = tm_create(&t);
	for (int i = 0; i < 100000 && zid == NORMAL0; i++) {
		uint64_t pfn = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0);

		REQUIRE(pfn != MPM_NO_PFN);
		zid = (unsigned int)mpm_pfn_to_zone(m, pfn);
	}
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
	return zid;
}

static void test_fast_path_follows_the_order(void)
{
	CHECK_EQ_U(first_zone_after_normal0(MPM_ZONELIST_ORDER_ZONE), NORMAL1);
	CHECK_EQ_U(first_zone_after_normal0(MPM_ZONELIST_ORDER_NODE), DMA32);
	CHECK_EQ_U(first_zone_after_normal0(MPM_ZONELIST_ORDER_DEFAULT), NORMAL1);
}

/*
 * prepare_slowpath refills NR_ALLOC_BATCH through cpu 0's differential.
 * A 64 MiB DMA32's refill (high - low) is within its stat threshold, so
 * the first refill waits in the differential and DMA32 sits out the next
 * fair round entirely; the second refill passes the threshold and folds.
 */
static void test_batch_refill_through_differential(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	struct zone *z, *first;
	struct per_cpu_pages *pcp;
	long refill, batch = 0, diff = 0;
	uint64_t slow, in_dma32 = 0;
	struct mpm_counters c;
	int rounds = 0;

	two_socket(&t, MiB_PAGES(48), GiB_PAGES(2), GiB_PAGES(2), 0);
	m = tm_create(&t);
	z = &m->zones[DMA32];
	first = &m->zones[NORMAL0];
	pcp = &z->pageset[0];
	refill = (long)(z->watermark[WMARK_HIGH] - z->watermark[WMARK_LOW]);
	/* the scenario needs one refill within the threshold, two past it */
	REQUIRE(refill > 0 && refill <= pcp->stat_threshold && 2 * refill > pcp->stat_threshold);
	slow = first->ev[ZEV_SLOWPATH];
	for (int i = 0; i < 1000000 && rounds < 2; i++) {
		uint64_t pfn;

		batch = READ_ONCE(z->vm_alloc_batch);
		diff = pcp->alloc_batch_diff;
		pfn = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0);
		REQUIRE(pfn != MPM_NO_PFN);
		if (rounds == 1 && mpm_pfn_to_zone(m, pfn) == DMA32)
			in_dma32++;
		if (first->ev[ZEV_SLOWPATH] == slow)
			continue;
		slow = first->ev[ZEV_SLOWPATH];
		if (++rounds == 1) {
			/* DMA32 used its batch: the zone's counter is at or below 0 */
			CHECK(batch <= 0);
			CHECK(READ_ONCE(z->vm_alloc_batch) == batch);
			CHECK(pcp->alloc_batch_diff == diff + refill);
		} else {
			/* the second refill folds: the zone sees both */
			CHECK(READ_ONCE(z->vm_alloc_batch) == batch + diff + refill);
			CHECK(READ_ONCE(z->vm_alloc_batch) > 0);
			CHECK(pcp->alloc_batch_diff == 0);
		}
		CHECK(tm_check(m) == 0);
	}
	CHECK(rounds == 2);
	CHECK(in_dma32 == 0);		/* no fast-path page from DMA32 that round */
	/*
	 * Both slow paths came from spent fair batches, with every zone far
	 * above its high watermark: wakeup_kswapd finds each zone balanced.
	 */
	mpm_counters(m, &c);
	CHECK_EQ_U(c.slowpath, 2);
	CHECK_EQ_U(c.kswapd_wakeups, 0);
	mpm_machine_destroy(m);
}

int main(void)
{
	test_zone_order_by_default();
	test_node_order_asked_for();
	test_default_picks_node_order();
	test_default_counts_managed_pages();
	test_gfp_zone_table();
	test_node_order_prefers_headless_nodes();
	test_fast_path_follows_the_order();
	test_batch_refill_through_differential();
	return t_report("core/zonelist");
}
