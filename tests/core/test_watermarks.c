// SPDX-License-Identifier: MIT
/*
 * The watermark decisions of Linux 3.12 at their edges, each case one rule
 * a mutation of watermark.c or alloc.c showed no other test pinned down:
 * __zone_watermark_ok's per-order loop, min_free_kbytes' floor, the fast
 * path skipping a zone whose NR_ALLOC_BATCH is 0, __GFP_NOMEMALLOC keeping
 * an atomic caller from ALLOC_HARDER, wakeup_kswapd waking below the high
 * watermark, and __GFP_THISNODE having no slow path.
 */
#include "freelist.h"
#include "machines.h"

#define MOVABLE		MPM_GFP_HIGHUSER_MOVABLE

static uint64_t zone_free(struct mpm_machine *m)
{
	struct mpm_zone_info zi;

	mpm_zone_info(m, 0, &zi);
	return zi.free_pages;
}

/*
 * 8192 pages, min_free_kbytes 1024: min 256.  Everything allocated (past
 * the watermarks), then free: 100 lone pages, @n1 order-1 blocks and @k
 * order-3 blocks.
 */
static struct mpm_machine *shaped(unsigned int n1, unsigned int k)
{
	struct test_machine t;
	struct mpm_machine *m;

	tm_flat(&t, 0, 8192, 1);
	t.spec.min_free_kbytes = 1024;
	m = tm_create(&t);
	tm_allocate_all(m, MPM_GFP_KERNEL | MPM___GFP_MEMALLOC);
	for (unsigned int i = 0; i < 100; i++)
		CHECK_EQ_U(mpm_free_pages(m, 1024 + 2 * i, 0, 0), 0);
	for (unsigned int i = 0; i < n1; i++) {
		CHECK_EQ_U(mpm_free_pages(m, 2048 + 4 * i, 0, 0), 0);
		CHECK_EQ_U(mpm_free_pages(m, 2048 + 4 * i + 1, 0, 0), 0);
	}
	for (unsigned int i = 0; i < k; i++)
		for (unsigned int j = 0; j < 8; j++)
			CHECK_EQ_U(mpm_free_pages(m, 4096 + 16 * i + j, 0, 0), 0);
	mpm_drain_all_pages(m);
	REQUIRE(zone_free(m) == 100 + 2 * n1 + 8 * k);
	return m;
}

/*
 * __zone_watermark_ok for an order-2 GFP_KERNEL request, decided at the min
 * watermark in the slow path: free - 3 > 256, then per order o below 2 the
 * pages of order o leave (nr_free << o) and min halves:
 * free - 3 - n0 > 128, free - 3 - n0 - 2 n1 > 64.
 *  - n1 = 40, k = 10 (free 260): 257, 157, 77: granted.
 *  - n1 = 60, k = 6 (free 268): 265, 165, 45: refused; order 1 is granted
 *    (free - 1: 267 > 256, 167 > 128).
 */
static void test_watermark_orders(void)
{
	struct mpm_machine *m = shaped(40, 10);

	CHECK(mpm_alloc_pages(m, MPM_GFP_KERNEL, 2, 0) != MPM_NO_PFN);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
	m = shaped(60, 6);
	CHECK_EQ_U(mpm_alloc_pages(m, MPM_GFP_KERNEL, 2, 0), MPM_NO_PFN);
	CHECK(mpm_alloc_pages(m, MPM_GFP_KERNEL, 1, 0) != MPM_NO_PFN);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * init_per_zone_wmark_min: int_sqrt(lowmem_kbytes * 16), at least 128 and
 * at most 65536.  512 pages: int_sqrt(2048 * 16) = 181; 200 pages:
 * int_sqrt(800 * 16) = 113, raised to 128.
 */
static void test_min_free_kbytes_floor(void)
{
	struct test_machine t;
	struct mpm_machine *m;

	tm_flat(&t, 0, 512, 1);
	m = tm_create(&t);
	CHECK_EQ_U(mpm_min_free_kbytes(m), 181);
	mpm_machine_destroy(m);
	tm_flat(&t, 0, 200, 1);
	m = tm_create(&t);
	CHECK_EQ_U(mpm_min_free_kbytes(m), 128);
	mpm_machine_destroy(m);
}

/*
 * khugepaged's set_recommended_min_free_kbytes, after the boot watermarks.
 * One 4 GiB zone: boot int_sqrt(4194304 * 16) = 8192 KiB; with THP on,
 * 1024 * 1 zone * (2 + 3 * 3) = 11264 pages = 45056 KiB, all of it the
 * zone's min, and NR_ALLOC_BATCH reset to high - low = 11264 / 4.
 */
static void test_khugepaged_raise(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	struct mpm_zone_info zi;

	tm_flat(&t, 0, GiB_PAGES(4), 1);
	m = tm_create(&t);
	CHECK_EQ_U(mpm_min_free_kbytes(m), 8192);
	mpm_machine_destroy(m);
	t.spec.khugepaged = true;
	m = tm_create(&t);
	CHECK_EQ_U(mpm_min_free_kbytes(m), 45056);
	mpm_zone_info(m, 0, &zi);
	CHECK_EQ_U(zi.wmark_min, 11264);
	CHECK_EQ_U(zi.wmark_high - zi.wmark_low, 11264 / 4);
	CHECK_EQ_U(READ_ONCE(m->zones[0].vm_alloc_batch), 11264 / 4);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * The raise is capped at 5 % of nr_free_buffer_pages() as it is at the
 * late_initcall: the managed pages of the zones below ZONE_MOVABLE, less
 * their boot high watermarks.  Normal [0, 64K) and Movable [64K, 2M) with
 * a 2 GiB hole: boot min_free_kbytes int_sqrt(262144 * 16) = 2048 KiB,
 * 512 pages split over both zones' 1,572,864 managed pages, Normal's
 * share 21, its high 31; the cap (65536 - 31) / 20 = 3275 pages, 13100
 * KiB (5 % of the managed pages alone would be 13104).  Without the hole
 * Normal's high is 24, and the cap the same.
 */
static void test_khugepaged_cap(void)
{
	struct test_machine t;
	struct mpm_machine *m;

	memset(&t, 0, sizeof(t));
	t.zones[0] = (struct mpm_zone_spec){ 0, MPM_ZONE_NORMAL, 0, 0x10000 };
	t.zones[1] = (struct mpm_zone_spec){ 0, MPM_ZONE_MOVABLE, 0x10000, 0x200000 };
	t.holes[0] = (struct mpm_hole_spec){ 0x100000, 0x180000 };
	tm_link(&t, 1, 2, 1);
	t.spec.nr_cpus = 1;
	t.spec.khugepaged = true;
	m = tm_create(&t);
	CHECK_EQ_U(mpm_min_free_kbytes(m), 13100);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
	tm_link(&t, 1, 2, 0);
	m = tm_create(&t);
	CHECK_EQ_U(mpm_min_free_kbytes(m), 13100);
	mpm_machine_destroy(m);
}

/*
 * With min_free_kbytes 3 the watermarks are 0, so high - low and with it
 * NR_ALLOC_BATCH are 0: the fast path skips the zone (batch <= 0) and every
 * allocation goes through the slow path.
 */
static void test_zero_batch_skips_fast_path(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	struct mpm_counters c;

	m = tm_flat_nowmark(&t, 8192, 1);
	for (int i = 0; i < 10; i++)
		REQUIRE(mpm_alloc_pages(m, MOVABLE, 0, 0) != MPM_NO_PFN);
	mpm_counters(m, &c);
	CHECK_EQ_U(c.slowpath, 10);
	mpm_machine_destroy(m);
}

/*
 * gfp_to_alloc_flags: an atomic caller gets ALLOC_HARDER (min less a
 * quarter) unless __GFP_NOMEMALLOC; ALLOC_HIGH (min halved) stays.  min
 * 181 on 8192 pages: GFP_ATOMIC | __GFP_NOMEMALLOC allocates down to
 * 181 - 181 / 2 = 91 free pages and no further.
 */
static void test_nomemalloc_not_harder(void)
{
	struct test_machine t;
	struct mpm_machine *m;

	tm_flat(&t, 0, 8192, 1);
	m = tm_create(&t);
	tm_allocate_all(m, MPM_GFP_ATOMIC | MPM___GFP_NOMEMALLOC | MPM___GFP_MOVABLE);
	CHECK_EQ_U(zone_free(m), 181 - 181 / 2);
	mpm_machine_destroy(m);
}

/*
 * wakeup_kswapd wakes kswapd for a zone that is not balanced: below its
 * high watermark for the order (zone_balanced), not only below low.
 * min_free_kbytes 1024 on 8192 pages: min 256, low 320, high 384; every
 * slow-path entry with 320 < free <= 384 counts a wakeup.
 */
static void test_kswapd_wakes_below_high(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	struct mpm_counters c0, c1;
	unsigned int entries = 0, woke = 0;

	tm_flat(&t, 0, 8192, 1);
	t.spec.min_free_kbytes = 1024;
	m = tm_create(&t);
	while (zone_free(m) > 320) {
		uint64_t f = zone_free(m);

		mpm_counters(m, &c0);
		if (mpm_alloc_pages(m, MOVABLE, 0, 0) == MPM_NO_PFN)
			break;
		mpm_counters(m, &c1);
		if (c1.slowpath > c0.slowpath && f <= 384) {
			entries++;
			woke += c1.kswapd_wakeups > c0.kswapd_wakeups;
		}
	}
	CHECK(entries > 0);
	CHECK_EQ_U(woke, entries);
	mpm_machine_destroy(m);
}

/*
 * __GFP_THISNODE (with __GFP_NORETRY and __GFP_NOWARN, GFP_THISNODE) has no
 * slow path: once the fair batch is spent the allocation fails with memory
 * free, no kswapd woken, one failure counted.
 */
static void test_thisnode_no_slow_path(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	struct mpm_counters c;
	uint64_t n = 0;

	tm_flat(&t, 0, 8192, 1);
	m = tm_create(&t);
	while (mpm_alloc_pages(m, MPM_GFP_KERNEL | MPM___GFP_THISNODE | MPM___GFP_NOWARN |
			       MPM___GFP_NORETRY | MPM___GFP_MOVABLE, 0, 0) != MPM_NO_PFN)
		n++;
	mpm_counters(m, &c);
	CHECK(n > 0);
	CHECK(zone_free(m) > 181 * 5 / 4);	/* stopped well above the low watermark */
	CHECK_EQ_U(c.kswapd_wakeups, 0);
	CHECK_EQ_U(c.slowpath, 1);	/* the miss is counted, nothing more is tried */
	CHECK_EQ_U(c.alloc_failures, 1);
	mpm_machine_destroy(m);
}

int main(void)
{
	test_watermark_orders();
	test_min_free_kbytes_floor();
	test_khugepaged_raise();
	test_khugepaged_cap();
	test_zero_batch_skips_fast_path();
	test_nomemalloc_not_harder();
	test_kswapd_wakes_below_high();
	test_thisnode_no_slow_path();
	return t_report("core/watermarks");
}
