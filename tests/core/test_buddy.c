// SPDX-License-Identifier: MIT
/*
 * Scenario tests, one per rule of the 3.12 buddy allocator: expand order,
 * merging, the tail heuristic, pcp refill order and drain, each fallback and
 * pageblock-claiming rule, MIGRATE_RESERVE as last resort, watermarks and
 * the lowmem reserve, the fair zone policy, and bad frees.
 */
#include "machines.h"
#include "mmzone.h"

#define MOVABLE MPM_GFP_HIGHUSER_MOVABLE
#define UNMOVABLE MPM_GFP_KERNEL
#define RECLAIMABLE MPM_GFP_TEMPORARY

static unsigned long nr_free_area(struct mpm_machine *m, unsigned int zid, unsigned int o)
{
	return m->zones[zid].free_area[o].nr_free;
}

static uint64_t list_pfn_at(struct mpm_machine *m, uint32_t head, unsigned int n)
{
	uint32_t p = m->pages[head].next;

	while (n-- && p != head)
		p = m->pages[p].next;
	return p == head ? MPM_NO_PFN : idx_to_pfn(m, p);
}

static uint64_t mpm_zone_info_free(struct mpm_machine *m)
{
	struct mpm_zone_info zi;

	mpm_zone_info(m, 0, &zi);
	return zi.free_pages;
}

static uint64_t free_pages_on(struct mpm_machine *m, unsigned int zid, int mt)
{
	uint64_t n = 0;

	for (unsigned int o = 0; o < MAX_ORDER; o++) {
		uint32_t head = m->zones[zid].free_area[o].free_list[mt];

		for (uint32_t p = m->pages[head].next; p != head; p = m->pages[p].next)
			n += 1ull << o;
	}
	return n;
}

/*
 * A flat zone with zero watermarks (min_free_kbytes 3 -> 0 pages): no
 * reserve.  At least 5120 pages, or 3.12 disables grouping by mobility.
 */
static struct mpm_machine *flat(struct test_machine *t, uint64_t pages)
{
	tm_flat(t, 0, pages, 2);
	t->spec.min_free_kbytes = 3;
	return tm_create(t);
}

static void test_expand_and_merge(void)
{
	struct test_machine t;
	struct mpm_machine *m = flat(&t, 8192);
	uint64_t pfn = mpm_alloc_pages(m, MOVABLE, 1, 0);

	/* the highest order-10 block (freed last at boot, LIFO) is split:
	 * its first two pages go out, halves of 2..512 pages stay free */
	CHECK_EQ_U(pfn, 7168);
	CHECK_EQ_U(nr_free_area(m, 0, 10), 7);
	for (unsigned int o = 1; o <= 9; o++)
		CHECK_EQ_U(nr_free_area(m, 0, o), 1);
	CHECK_EQ_U(list_pfn_at(m, m->zones[0].free_area[9].free_list[MIGRATE_MOVABLE], 0),
		   7168 + 512);
	CHECK(tm_check(m) == 0);
	CHECK(mpm_free_pages(m, pfn, 1, 0) == 0);
	CHECK_EQ_U(nr_free_area(m, 0, 10), 8);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

/*
 * Allocate every page.  The watermark is checked before the pcp list is
 * looked at, so pages left on the list when free memory hits the watermark
 * need a drain and another round.
 */
static uint64_t alloc_all_order0(struct mpm_machine *m)
{
	uint64_t n = 0, got;

	do {
		for (got = 0; mpm_alloc_pages(m, MOVABLE, 0, 0) != MPM_NO_PFN; got++)
			;
		mpm_drain_all_pages(m);
		n += got;
	} while (got);
	return n;
}

/* Free one order-0 page all the way into the buddy lists. */
static void free_to_buddy(struct mpm_machine *m, uint64_t pfn)
{
	CHECK(mpm_free_pages(m, pfn, 0, 0) == 0);
	mpm_drain_local_pages(m, 0);
}

static void test_tail_heuristic(void)
{
	struct test_machine t;
	struct mpm_machine *m = flat(&t, 8192);
	uint32_t head;

	CHECK_EQ_U(alloc_all_order0(m), 8192);
	free_to_buddy(m, 0);	/* buddy 1 busy, order-1 buddy 2 busy: head */
	free_to_buddy(m, 18);
	free_to_buddy(m, 19);	/* merges: 18/order 1 */
	free_to_buddy(m, 16);	/* buddy 17 busy, order-1 buddy 18 free: tail */
	head = m->zones[0].free_area[0].free_list[MIGRATE_MOVABLE];
	CHECK_EQ_U(list_pfn_at(m, head, 0), 0);
	CHECK_EQ_U(list_pfn_at(m, head, 1), 16);
	free_to_buddy(m, 20);	/* nothing free nearby: head */
	CHECK_EQ_U(list_pfn_at(m, head, 0), 20);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

static void test_pcp_refill_and_drain(void)
{
	struct test_machine t;
	struct mpm_machine *m = flat(&t, 131072);
	struct per_cpu_pages *pcp = &m->zones[0].pageset[0];
	uint64_t first = mpm_alloc_pages(m, MOVABLE, 0, 0), pfns[200], batch[31];

	/* rmqueue_bulk took 31 pages in physical order from the highest block
	 * (boot frees low to high, LIFO), the head page went out */
	CHECK_EQ_U(pcp->batch, 31);
	CHECK_EQ_U(first, 131072 - 1024);
	CHECK_EQ_U(pcp->count, 30);
	for (int i = 1; i < 31; i++) {
		batch[i] = mpm_alloc_pages(m, MOVABLE, 0, 0);
		CHECK_EQ_U(batch[i], first + (uint64_t)i);
	}
	CHECK_EQ_U(pcp->count, 0);
	CHECK_EQ_U(mpm_zone_info_free(m), 131072 - 31);
	/* freeing: hot pages go to the head, the 186th free drains a batch */
	pfns[0] = first;
	for (int i = 1; i < 186; i++)
		pfns[i] = mpm_alloc_pages(m, MOVABLE, 0, 0);
	CHECK(tm_check(m) == 0);
	{
		int expected = pcp->count, drains = 0;

		for (int i = 0; i < 186; i++) {
			mpm_free_pages(m, pfns[i], 0, 0);
			if (++expected >= 186) {
				expected -= 31;
				drains++;
			}
			CHECK_EQ_U(pcp->count, expected);
		}
		CHECK(drains == 1);
	}
	CHECK(tm_check(m) == 0);
	for (int i = 1; i < 31; i++)
		mpm_free_pages(m, batch[i], 0, 1);	/* freed on another cpu */
	mpm_drain_all_pages(m);
	CHECK_EQ_U(pcp->count, 0);
	CHECK_EQ_U(nr_free_area(m, 0, 10), 128);	/* everything merged back */
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

/*
 * Fragment a 512 MiB zone: every page allocated movable, then every
 * @stride-th page freed, all pcp lists drained.  Only order-0 free blocks
 * remain, all on the MOVABLE lists.
 */
static struct mpm_machine *fragmented(struct test_machine *t, unsigned int stride)
{
	struct mpm_machine *m = flat(t, 131072);

	CHECK_EQ_U(alloc_all_order0(m), 131072);
	for (uint64_t pfn = 0; pfn < 131072; pfn += stride)
		mpm_free_pages(m, pfn, 0, 0);
	mpm_drain_all_pages(m);
	CHECK_EQ_U(nr_free_area(m, 0, 0), 131072 / stride);
	return m;
}

static void test_fallback_claims_whole_block(void)
{
	struct test_machine t;
	struct mpm_machine *m = flat(&t, 131072);
	struct mpm_counters c;
	uint64_t pfn = mpm_alloc_pages(m, UNMOVABLE, 0, 0);

	/* order 10 >= pageblock_order: the unmovable request owns the block */
	mpm_counters(m, &c);
	CHECK_EQ_U(c.fallbacks, 1);
	CHECK_EQ_U(c.pageblock_claims, 1);
	CHECK(get_pageblock_migratetype(m, &m->zones[0], pfn) == MIGRATE_UNMOVABLE);
	/* the rest of the batch came from the now-unmovable remainder */
	CHECK_EQ_U(free_pages_on(m, 0, MIGRATE_UNMOVABLE), 1024 - 31);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

/*
 * An unmovable refill that only borrowed: @fallbacks fallbacks, all
 * fragmenting, no pageblock claimed (@pfn's block stays MOVABLE), and
 * @left pages of the loans still free on the UNMOVABLE lists.  Destroys @m.
 */
static void check_loans(struct mpm_machine *m, uint64_t pfn, uint64_t fallbacks,
			uint64_t left)
{
	struct mpm_counters c;

	mpm_counters(m, &c);
	CHECK_EQ_U(c.fallbacks, fallbacks);
	CHECK_EQ_U(c.fragmenting_fallbacks, fallbacks);
	CHECK_EQ_U(c.pageblock_claims, 0);
	CHECK(get_pageblock_migratetype(m, &m->zones[0], pfn) == MIGRATE_MOVABLE);
	CHECK_EQ_U(free_pages_on(m, 0, MIGRATE_UNMOVABLE), left);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

static void test_fallback_small_unmovable_loans(void)
{
	struct test_machine t;
	struct mpm_machine *m = fragmented(&t, 2);
	uint64_t pfn = mpm_alloc_pages(m, UNMOVABLE, 0, 0);

	/* order 0 < pageblock_order / 2 and not RECLAIMABLE: no move, no claim */
	check_loans(m, pfn, 31, 0);
}

/*
 * A fallback that splits a larger block without taking the pageblock
 * lends the whole remainder to the allocating type (3.12.0's "Borrow the
 * excess buddy pages as well"): free order-2 blocks only, so each of the
 * refill's fallbacks splits one and the next three allocations are served
 * from the loaned pieces -- 8 fallbacks for a batch of 31, the 32nd page
 * left on the UNMOVABLE list of a pageblock that stays MOVABLE.  Handing
 * the remainder back to the fallback type instead (later kernels) takes
 * 31 fallbacks.
 */
static void test_fallback_remainder_loaned(void)
{
	struct test_machine t;
	struct mpm_machine *m = flat(&t, 131072);
	uint64_t pfn;

	CHECK_EQ_U(alloc_all_order0(m), 131072);
	for (pfn = 0; pfn < 131072; pfn += 8)
		for (uint64_t p = pfn; p < pfn + 4; p++)
			mpm_free_pages(m, p, 0, 0);
	mpm_drain_all_pages(m);
	CHECK_EQ_U(nr_free_area(m, 0, 2), 131072 / 8);
	pfn = mpm_alloc_pages(m, UNMOVABLE, 0, 0);
	check_loans(m, pfn, 8, 1);
}

static void test_fallback_reclaimable_moves_and_claims(void)
{
	struct test_machine t;
	struct mpm_machine *m = fragmented(&t, 2);
	struct mpm_counters c;
	uint64_t pfn = mpm_alloc_pages(m, RECLAIMABLE, 0, 0);

	/* RECLAIMABLE always moves the block's free pages; 512 of 1024 free
	 * is "over half" by 3.12's >= test, so it claims the block */
	mpm_counters(m, &c);
	CHECK_EQ_U(c.fallbacks, 1);
	CHECK_EQ_U(c.pageblock_claims, 1);
	CHECK(get_pageblock_migratetype(m, &m->zones[0], pfn) == MIGRATE_RECLAIMABLE);
	CHECK_EQ_U(free_pages_on(m, 0, MIGRATE_RECLAIMABLE), 512 - 31);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);

	/* a quarter free: the pages move but the block is not claimed */
	m = fragmented(&t, 4);
	pfn = mpm_alloc_pages(m, RECLAIMABLE, 0, 0);
	mpm_counters(m, &c);
	CHECK_EQ_U(c.pageblock_claims, 0);
	CHECK(get_pageblock_migratetype(m, &m->zones[0], pfn) == MIGRATE_MOVABLE);
	CHECK_EQ_U(free_pages_on(m, 0, MIGRATE_RECLAIMABLE), 256 - 31);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

static void test_reserve_is_last_resort(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	struct mpm_counters c;
	uint64_t last = MPM_NO_PFN, pfn, n = 0, got;
	long min;

	tm_flat(&t, 0, 8192, 1);	/* min_free_kbytes 128: min 32, 1 reserve block */
	m = tm_create(&t);
	CHECK_EQ_U(mpm_min_free_kbytes(m), 724);	/* int_sqrt(32768 KiB * 16) */
	CHECK_EQ_U(m->zones[0].watermark[WMARK_MIN], 181);
	CHECK_EQ_U(mpm_pageblocks_mt(m, MIGRATE_RESERVE), 1);
	CHECK(get_pageblock_migratetype(m, &m->zones[0], 0) == MIGRATE_RESERVE);
	do {
		got = 0;
		while ((pfn = mpm_alloc_pages(m, MPM_GFP_ATOMIC | MPM___GFP_MOVABLE, 0, 0)) != MPM_NO_PFN) {
			last = pfn;
			got++;
		}
		mpm_drain_all_pages(m);
		n += got;
	} while (got);
	mpm_counters(m, &c);
	CHECK(c.reserve_allocs > 0);
	CHECK(last < 1024);			/* the last pages came from the reserve */
	/* GFP_ATOMIC: ALLOC_HIGH halves min, ALLOC_HARDER takes a quarter more;
	 * allocation stops once free pages are no longer above that */
	min = 181;
	min -= min / 2;
	min -= min / 4;
	CHECK_EQ_U(mpm_zone_info_free(m), min);
	CHECK_EQ_U(n, 8192 - min);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

/*
 * __GFP_MEMALLOC (without __GFP_NOMEMALLOC) takes ALLOC_NO_WATERMARKS: when
 * the min watermark stops an allocation, __alloc_pages_high_priority walks
 * once more with no watermark, down to the last free page.
 */
static void test_memalloc_ignores_watermarks(void)
{
	const mpm_gfp_t memalloc = MPM_GFP_KERNEL | MPM___GFP_MEMALLOC;
	struct test_machine t;
	struct mpm_machine *m;
	uint64_t n = 0;

	tm_flat(&t, 0, 8192, 1);	/* min watermark 181 pages */
	m = tm_create(&t);
	while (mpm_alloc_pages(m, MPM_GFP_KERNEL, 0, 0) != MPM_NO_PFN)
		;
	mpm_drain_all_pages(m);
	CHECK(mpm_zone_info_free(m) >= 181);
	/* __GFP_NOMEMALLOC wins, as in gfp_to_alloc_flags */
	CHECK(mpm_alloc_pages(m, memalloc | MPM___GFP_NOMEMALLOC, 0, 0) == MPM_NO_PFN);
	while (mpm_alloc_pages(m, memalloc, 0, 0) != MPM_NO_PFN)
		n++;
	CHECK(n >= 181);
	mpm_drain_all_pages(m);
	while (mpm_alloc_pages(m, memalloc, 0, 0) != MPM_NO_PFN)
		;
	CHECK_EQ_U(mpm_zone_info_free(m), 0);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

static void test_watermark_and_lowmem_reserve(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	struct mpm_zone_info dma, dma32, normal;
	struct mpm_counters c;

	memset(&t, 0, sizeof(t));
	t.zones[0] = (struct mpm_zone_spec){ 0, MPM_ZONE_DMA, 1, 4096 };
	t.zones[1] = (struct mpm_zone_spec){ 0, MPM_ZONE_DMA32, 4096, GiB_PAGES(1) };
	t.zones[2] = (struct mpm_zone_spec){ 0, MPM_ZONE_NORMAL, GiB_PAGES(1), GiB_PAGES(5) };
	tm_link(&t, 1, 3, 0);
	t.spec.nr_cpus = 1;
	m = tm_create(&t);
	while (mpm_alloc_pages(m, MOVABLE, 0, 0) != MPM_NO_PFN)
		;
	mpm_zone_info(m, 0, &dma);
	mpm_zone_info(m, 1, &dma32);
	mpm_zone_info(m, 2, &normal);
	mpm_counters(m, &c);
	/* DMA's lowmem_reserve against NORMAL, (DMA32 + Normal) / 256 = 5104
	 * pages, exceeds all of DMA: it stays untouched */
	CHECK_EQ_U(dma.free_pages, dma.present);
	/* the others end at their min watermark (+ reserve) */
	CHECK(normal.free_pages <= normal.wmark_min + 1);
	CHECK(dma32.free_pages <= dma32.wmark_min + 1 +
	      (uint64_t)m->zones[1].lowmem_reserve[MPM_ZONE_NORMAL]);
	CHECK(c.slowpath > 0 && c.kswapd_wakeups > 0 && c.alloc_failures == 1);
	/* an explicit DMA request may use DMA */
	CHECK(mpm_alloc_pages(m, MPM_GFP_KERNEL | MPM___GFP_DMA, 0, 0) != MPM_NO_PFN);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

static void test_fair_zone_policy_spreads_over_nodes(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	uint64_t per_zone[2] = { 0, 0 };

	memset(&t, 0, sizeof(t));
	t.zones[0] = (struct mpm_zone_spec){ 0, MPM_ZONE_NORMAL, 0, GiB_PAGES(1) };
	t.zones[1] = (struct mpm_zone_spec){ 1, MPM_ZONE_NORMAL, GiB_PAGES(1), GiB_PAGES(2) };
	tm_link(&t, 2, 2, 0);
	t.spec.nr_cpus = 2;
	m = tm_create(&t);
	for (int i = 0; i < 100000; i++) {
		uint64_t pfn = mpm_alloc_pages(m, MOVABLE, 0, 0);	/* cpu 0: node 0 */

		per_zone[mpm_pfn_to_zone(m, pfn)]++;
	}
	/* 3.12.0, zone_reclaim_mode 0: round-robin by NR_ALLOC_BATCH over both */
	CHECK(per_zone[1] > 30000 && per_zone[0] > 30000);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

static void test_remote_pcp_expiry(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	uint64_t pfns[64];
	struct zone *z1;
	int before;

	memset(&t, 0, sizeof(t));
	t.zones[0] = (struct mpm_zone_spec){ 0, MPM_ZONE_NORMAL, 0, GiB_PAGES(1) };
	t.zones[1] = (struct mpm_zone_spec){ 1, MPM_ZONE_NORMAL, GiB_PAGES(1), GiB_PAGES(2) };
	tm_link(&t, 2, 2, 0);
	t.spec.nr_cpus = 2;		/* cpu 0 on node 0, cpu 1 on node 1 */
	m = tm_create(&t);
	z1 = &m->zones[1];
	/* cpu 0 frees node-1 pages: they sit on cpu 0's pcp list of zone 1 */
	for (int i = 0; i < 64; i++)
		pfns[i] = mpm_alloc_pages_node(m, 1, MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_THISNODE,
					       0, 0);
	for (int i = 0; i < 64; i++)
		mpm_free_pages(m, pfns[i], 0, 0);
	before = z1->pageset[0].count;
	CHECK(before > 0);
	mpm_refresh_cpu_vm_stats(m, 0);		/* activity: expire = 3, then 2 */
	mpm_refresh_cpu_vm_stats(m, 0);		/* 1 */
	CHECK_EQ_U(z1->pageset[0].count, before);
	mpm_refresh_cpu_vm_stats(m, 0);		/* 0: one batch goes */
	CHECK_EQ_U(z1->pageset[0].count, before - (before < 31 ? before : 31));
	mpm_refresh_cpu_vm_stats(m, 0);		/* expired: nothing more */
	CHECK_EQ_U(z1->pageset[0].count, before - (before < 31 ? before : 31));
	/* a node the machine does not have */
	CHECK(mpm_alloc_pages_node(m, 2, MPM_GFP_HIGHUSER_MOVABLE, 0, 0) == MPM_NO_PFN);
	CHECK(mpm_alloc_pages_node(m, UINT32_MAX, MPM_GFP_KERNEL, 0, 0) == MPM_NO_PFN);
	/* the local zone's pcp pages are never drained this way */
	pfns[0] = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 1);
	mpm_free_pages(m, pfns[0], 0, 1);
	for (int i = 0; i < 6; i++)
		mpm_refresh_cpu_vm_stats(m, 1);
	CHECK(z1->pageset[1].count > 0);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

static void test_bad_frees(void)
{
	struct test_machine t;
	struct mpm_machine *m = flat(&t, 4096);
	uint64_t a = mpm_alloc_pages(m, MOVABLE, 2, 0);

	CHECK(mpm_free_pages(m, a, 1, 0) == -1);	/* wrong order */
	CHECK(mpm_free_pages(m, a + 1, 0, 0) == -1);	/* not a head */
	CHECK(mpm_free_pages(m, 1u << 30, 0, 0) == -1);	/* outside the machine */
	CHECK(mpm_free_pages(m, a, 2, 7) == -1);	/* no such cpu */
	CHECK(mpm_free_pages(m, a, 2, 0) == 0);
	CHECK(mpm_free_pages(m, a, 2, 0) == -1);	/* double free */
	CHECK(mpm_alloc_pages(m, MOVABLE, 11, 0) == MPM_NO_PFN);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

/*
 * The checker sees per-cpu state that disagrees with the lists and the
 * rules: a pcp count the lists do not hold, an NR_ALLOC_BATCH differential
 * past either fold threshold, a cpu threshold not the zone's.
 */
static void test_checker_sees_pcp_damage(void)
{
	struct test_machine t;
	struct mpm_machine *m = flat(&t, 8192);
	struct per_cpu_pages *pcp = &m->zones[0].pageset[0];
	uint64_t pfn = mpm_alloc_pages(m, MOVABLE, 0, 0);
	char msg[256];
	long diff = pcp->alloc_batch_diff;

	CHECK(pfn != MPM_NO_PFN && tm_check(m) == 0);
	CHECK(diff < 0 && diff >= -pcp->stat_threshold);
	pcp->count++;
	CHECK(mpm_check(m, msg, sizeof(msg)) != 0 && strstr(msg, "pcp count"));
	pcp->count--;
	pcp->alloc_batch_diff = -pcp->stat_threshold - 1;
	CHECK(mpm_check(m, msg, sizeof(msg)) != 0 && strstr(msg, "NR_ALLOC_BATCH"));
	pcp->alloc_batch_diff = pcp->stat_threshold + 1;
	CHECK(mpm_check(m, msg, sizeof(msg)) != 0 && strstr(msg, "NR_ALLOC_BATCH"));
	pcp->alloc_batch_diff = pcp->stat_threshold;	/* a refill may leave it there */
	CHECK(tm_check(m) == 0);
	pcp->alloc_batch_diff = diff;
	pcp->stat_threshold++;
	CHECK(mpm_check(m, msg, sizeof(msg)) != 0 && strstr(msg, "threshold"));
	pcp->stat_threshold--;
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

/*
 * set_buddy_hint: a block linked onto a free list names, in its private
 * word, the entry two on at that moment; a block deleted from the middle
 * later leaves the hint one short but still an entry of the page array,
 * and allocation order never depends on it.  The checker refuses a hint
 * outside the page array.
 */
static void test_buddy_prefetch_hint(void)
{
	struct test_machine t;
	struct mpm_machine *m = flat(&t, 8192);
	struct mpm_page *pg = m->pages;
	uint32_t head = m->zones[0].free_area[2].free_list[MIGRATE_MOVABLE];
	uint64_t a[8];
	uint32_t i0, i2, i4;
	char msg[256];

	for (int i = 0; i < 8; i++)
		a[i] = mpm_alloc_pages(m, MOVABLE, 2, 0);
	CHECK(a[0] != MPM_NO_PFN && a[7] == a[0] + 28);
	CHECK(list_empty(pg, head));
	/* buddies a[1], a[3], a[5] allocated: no merge, each at the head */
	CHECK(mpm_free_pages(m, a[0], 2, 0) == 0);
	CHECK(mpm_free_pages(m, a[2], 2, 0) == 0);
	CHECK(mpm_free_pages(m, a[4], 2, 0) == 0);
	i0 = pfn_to_idx(m, a[0]);
	i2 = pfn_to_idx(m, a[2]);
	i4 = pfn_to_idx(m, a[4]);
	CHECK(pg[head].next == i4 && pg[i4].next == i2 && pg[i2].next == i0 && pg[i0].next == head);
	CHECK(pg[i4].private == i0);	/* two on from a[4] */
	CHECK(pg[i2].private == head);	/* two on from a[2]: the list head */
	CHECK(pg[i0].private == i0);	/* alone: its next (the head) has it next */
	CHECK(tm_check(m) == 0);
	/* freeing a[3] merges a[2] out of the middle: a[4]'s hint is one short */
	CHECK(mpm_free_pages(m, a[3], 2, 0) == 0);
	CHECK(pg[i4].next == i0 && pg[i4].private == i0);
	CHECK(tm_check(m) == 0);
	CHECK(mpm_alloc_pages(m, MOVABLE, 2, 0) == a[4]);
	CHECK(mpm_alloc_pages(m, MOVABLE, 2, 0) == a[0]);
	/* a hint outside the page array is damage */
	CHECK(mpm_free_pages(m, a[0], 2, 0) == 0);
	pg[i0].private = (uint32_t)m->nr_entries;
	CHECK(mpm_check(m, msg, sizeof(msg)) != 0 && strstr(msg, "prefetch hint"));
	pg[i0].private = i0;
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

/* The entry @n on from @idx in its list (the head sentinel counts). */
static uint32_t entry_on(const struct mpm_machine *m, uint32_t idx, unsigned int n)
{
	while (n--)
		idx = m->pages[idx].next;
	return idx;
}

/*
 * push_buddy_hint: a block pushed on a plain order-0 list names the entry
 * BUDDY_HINT_RING on, or the list's head where the list is shorter; a pop
 * off the head and a merge that unlinks the top block keep the ring on the
 * list's top, so later pushes are exact again.
 */
static void test_buddy_hint_ring(void)
{
	struct test_machine t;
	struct mpm_machine *m = flat(&t, 8192);
	struct mpm_page *pg = m->pages;
	uint32_t head = m->zones[0].free_area[0].free_list[MIGRATE_MOVABLE];
	const unsigned int n = BUDDY_HINT_RING + 4;
	uint32_t top;

	CHECK_EQ_U(alloc_all_order0(m), 8192);
	CHECK(list_empty(pg, head));
	/* pfn 4i: buddy 4i+1 and order-1 buddy 4i+2 busy, so no merge and no
	 * tail add: each is pushed on the head */
	for (unsigned int i = 0; i < n; i++)
		free_to_buddy(m, 4 * i);
	for (unsigned int i = 0; i < n; i++) {
		uint32_t idx = pfn_to_idx(m, 4 * i);

		CHECK_EQ_U(pg[idx].private,
			   i < BUDDY_HINT_RING ? head : pfn_to_idx(m, 4 * (i - BUDDY_HINT_RING)));
	}
	CHECK(tm_check(m) == 0);
	/* pfn 4(n-1), the top, merges with its buddy and leaves the ring */
	free_to_buddy(m, 4 * (n - 1) + 1);
	free_to_buddy(m, 4 * n);
	top = pfn_to_idx(m, 4 * n);
	CHECK_EQ_U(pg[head].next, top);
	CHECK_EQ_U(pg[top].private, entry_on(m, top, BUDDY_HINT_RING));
	/* refills pop blocks off the head (a batch of one in this small
	 * zone); the next push is exact again */
	CHECK(mpm_alloc_pages(m, MOVABLE, 0, 0) == 4 * n);
	CHECK(mpm_alloc_pages(m, MOVABLE, 0, 0) == 4 * (n - 2));
	CHECK(mpm_alloc_pages(m, MOVABLE, 0, 0) == 4 * (n - 3));
	CHECK_EQ_U(m->zones[0].pageset[0].count, 0);
	free_to_buddy(m, 4 * (n + 1));
	top = pfn_to_idx(m, 4 * (n + 1));
	CHECK_EQ_U(pg[head].next, top);
	CHECK_EQ_U(pg[top].private, entry_on(m, top, BUDDY_HINT_RING));
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
}

/*
 * start_isolate_page_range's set_migratetype_isolate for the pageblock of
 * @pfn, as 3.12 does it once the pcp lists are drained: the block's type
 * becomes ISOLATE and its free pages move to the ISOLATE lists and out of
 * NR_FREE_PAGES.  The library has no isolation API; this is the state it
 * would leave.
 */
static void isolate_pageblock(struct mpm_machine *m, struct zone *z, uint64_t pfn)
{
	int moved;

	mpm_drain_all_pages(m);
	set_pageblock_migratetype(m, z, pfn, MIGRATE_ISOLATE);
	moved = move_freepages_block(m, z, pfn, MIGRATE_ISOLATE);
	z->vm_free_pages -= moved;
}

/*
 * An order-0 page of an isolated pageblock skips the pcp lists and goes
 * straight to the buddy lists, on the ISOLATE list and not counted free
 * (free_hot_cold_page, free_one_page).  The checker accepts the ISOLATE
 * lists' pages outside NR_FREE_PAGES, and only those.
 */
static void test_isolated_pageblock_free(void)
{
	struct test_machine t;
	struct mpm_machine *m = flat(&t, 8192);
	struct zone *z = &m->zones[0];
	uint64_t pfn = mpm_alloc_pages(m, MOVABLE, 0, 0);
	char msg[512];
	long free_before;
	int pcp_before;

	CHECK(pfn != MPM_NO_PFN);
	isolate_pageblock(m, z, pfn);
	CHECK(tm_check(m) == 0);
	free_before = z->vm_free_pages;
	pcp_before = z->pageset[0].count;
	CHECK(mpm_free_pages(m, pfn, 0, 0) == 0);
	CHECK_EQ_U(z->pageset[0].count, pcp_before);
	CHECK(z->vm_free_pages == free_before);
	/* merged with its free buddies: the whole pageblock, on the ISOLATE list */
	CHECK_EQ_U(free_pages_on(m, 0, MIGRATE_ISOLATE), pageblock_nr_pages(m));
	CHECK(tm_check(m) == 0);
	/* a free page counted as NR_FREE_PAGES would be one too many */
	z->vm_free_pages++;
	CHECK(mpm_check(m, msg, sizeof(msg)) != 0);
	CHECK(strstr(msg, "isolated not counted") != NULL);
	z->vm_free_pages--;
	mpm_machine_destroy(m);
}

int main(void)
{
	test_expand_and_merge();
	test_tail_heuristic();
	test_pcp_refill_and_drain();
	test_fallback_claims_whole_block();
	test_fallback_small_unmovable_loans();
	test_fallback_remainder_loaned();
	test_fallback_reclaimable_moves_and_claims();
	test_reserve_is_last_resort();
	test_memalloc_ignores_watermarks();
	test_watermark_and_lowmem_reserve();
	test_fair_zone_policy_spreads_over_nodes();
	test_remote_pcp_expiry();
	test_bad_frees();
	test_checker_sees_pcp_damage();
	test_buddy_prefetch_hint();
	test_buddy_hint_ring();
	test_isolated_pageblock_free();
	return t_report("core/buddy");
}
