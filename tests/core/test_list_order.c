// SPDX-License-Identifier: MIT
/*
 * Which end of a list a page goes to and comes from (Linux 3.12), each case
 * one rule a mutation of page_alloc.c or pcp.c showed no other test pinned
 * down: __free_one_page's tail heuristic and its order bound,
 * free_pcppages_bulk draining from the tails in a round robin that starts
 * after MIGRATE_UNMOVABLE, and __GFP_COLD allocations taking the tail of a
 * pcp list that a cold refill chained in order.  Machines with
 * min_free_kbytes 3; a 512 MiB zone has pcp batch 31 and high 186.
 */
#include "freelist.h"
#include "machines.h"

#define MOVABLE		MPM_GFP_HIGHUSER_MOVABLE
#define UNMOVABLE	MPM_GFP_KERNEL
#define RECLAIMABLE	MPM_GFP_TEMPORARY

/* The pfn @n entries after the head of list @head, or MPM_NO_PFN. */
static uint64_t list_pfn_at(struct mpm_machine *m, uint32_t head, unsigned int n)
{
	uint32_t p = m->pages[head].next;

	while (n-- && p != head)
		p = m->pages[p].next;
	return p == head ? MPM_NO_PFN : idx_to_pfn(m, p);
}

static uint64_t list_len(struct mpm_machine *m, uint32_t head)
{
	uint64_t n = 0;

	for (uint32_t p = m->pages[head].next; p != head; p = m->pages[p].next)
		n++;
	return n;
}

static void free_range(struct mpm_machine *m, uint64_t from, uint64_t to)
{
	for (uint64_t p = from; p < to; p++)
		CHECK_EQ_U(mpm_free_pages(m, p, 0, 0), 0);
	mpm_drain_all_pages(m);
}

/*
 * __free_one_page puts a block at the tail when its buddy one order up is
 * free -- for orders up to MAX_ORDER - 3 (order 8), never for order 9.
 * Order 8 at 2048 (the buddy one up busy) goes to the head; order 8 at 0,
 * whose order-9 buddy at 512 is free, behind it.  Order 9 at 4096, whose
 * order-10 buddy at 5120 is free, still goes to the head.
 */
static void test_tail_heuristic_bound(void)
{
	struct test_machine t;
	struct mpm_machine *m = tm_flat_nowmark(&t, 8192, 2);
	uint32_t head8 = m->zones[0].free_area[8].free_list[MIGRATE_MOVABLE];
	uint32_t head9 = m->zones[0].free_area[9].free_list[MIGRATE_MOVABLE];

	tm_allocate_all(m, MOVABLE);
	free_range(m, 2048, 2304);
	free_range(m, 512, 1024);
	free_range(m, 0, 256);
	CHECK_EQ_U(list_pfn_at(m, head8, 0), 2048);
	CHECK_EQ_U(list_pfn_at(m, head8, 1), 0);
	free_range(m, 5120, 6144);
	free_range(m, 7168, 7680);
	free_range(m, 4096, 4608);
	CHECK_EQ_U(list_pfn_at(m, head9, 0), 4096);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * free_pcppages_bulk takes from the list tails: 186 pages freed hot one
 * after the other reach high at the last, and the batch of 31 drained are
 * the first 31 freed, the coldest.
 */
static void test_drain_from_tail(void)
{
	struct test_machine t;
	struct mpm_machine *m = tm_flat_nowmark(&t, 131072, 2);
	const struct per_cpu_pages *pcp = &m->zones[0].pageset[0];
	uint64_t pfns[186];

	REQUIRE(pcp->batch == 31 && pcp->high == 186);
	for (int i = 0; i < 186; i++)
		pfns[i] = mpm_alloc_pages(m, MOVABLE, 0, 0);
	mpm_drain_local_pages(m, 0);
	for (int i = 0; i < 186; i++)
		CHECK_EQ_U(mpm_free_pages(m, pfns[i], 0, 0), 0);
	CHECK_EQ_U(pcp->count, 186 - 31);
	for (int i = 0; i < 186; i++)
		CHECK_EQ_U(mpm_page_state(m, pfns[i], NULL) == MPM_PAGE_PCP, i >= 31);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * The drain's round robin starts at ++migratetype from 0: RECLAIMABLE,
 * MOVABLE, UNMOVABLE, ...  62 pages of each type freed in turn: at the
 * 186th the batch of 31 takes 11 reclaimable, 10 movable and 10 unmovable.
 */
static void test_drain_round_robin(void)
{
	struct test_machine t;
	struct mpm_machine *m = tm_flat_nowmark(&t, 131072, 2);
	const struct per_cpu_pages *pcp = &m->zones[0].pageset[0];
	uint64_t u[62], r[62], v[62];

	for (int i = 0; i < 62; i++) {
		u[i] = mpm_alloc_pages(m, UNMOVABLE, 0, 0);
		r[i] = mpm_alloc_pages(m, RECLAIMABLE, 0, 0);
		v[i] = mpm_alloc_pages(m, MOVABLE, 0, 0);
	}
	mpm_drain_local_pages(m, 0);
	for (int i = 0; i < 62; i++) {
		CHECK_EQ_U(mpm_free_pages(m, u[i], 0, 0), 0);
		CHECK_EQ_U(mpm_free_pages(m, r[i], 0, 0), 0);
		CHECK_EQ_U(mpm_free_pages(m, v[i], 0, 0), 0);
	}
	CHECK_EQ_U(list_len(m, pcp->lists[MIGRATE_UNMOVABLE]), 52);
	CHECK_EQ_U(list_len(m, pcp->lists[MIGRATE_RECLAIMABLE]), 51);
	CHECK_EQ_U(list_len(m, pcp->lists[MIGRATE_MOVABLE]), 52);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * buffered_rmqueue: __GFP_COLD takes the pcp list's tail.  A hot refill
 * chains the batch so that the list runs in pfn order from the head (the
 * top block's lowest pages first); a cold allocation after it gets the
 * batch's last page.  A cold refill (rmqueue_bulk with cold = 1) chains
 * each page at the tail, so two cold allocations get the first two pages.
 */
static void test_cold_allocations(void)
{
	struct test_machine t;
	struct mpm_machine *m = tm_flat_nowmark(&t, 131072, 2);
	uint64_t a, b;

	a = mpm_alloc_pages(m, MOVABLE, 0, 0);
	b = mpm_alloc_pages(m, MOVABLE | MPM___GFP_COLD, 0, 0);
	CHECK_EQ_U(a, 130048);
	CHECK_EQ_U(b, 130048 + 30);
	mpm_machine_destroy(m);

	m = tm_flat_nowmark(&t, 131072, 2);
	a = mpm_alloc_pages(m, MOVABLE | MPM___GFP_COLD, 0, 0);
	b = mpm_alloc_pages(m, MOVABLE | MPM___GFP_COLD, 0, 0);
	CHECK_EQ_U(a, 130048);
	CHECK_EQ_U(b, 130049);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

int main(void)
{
	test_tail_heuristic_bound();
	test_drain_from_tail();
	test_drain_round_robin();
	test_cold_allocations();
	return t_report("core/list_order");
}
