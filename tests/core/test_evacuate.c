// SPDX-License-Identifier: MIT
/*
 * Region evacuation (evacuate.c) with a toy owner: one address space whose
 * page index -> pfn table the callbacks keep.  Sorted lists fill regions
 * from the bottom; a few pages spill into region 5, room is freed in region
 * 2, and region 5 is evacuated: the abort rule, moving, reclaiming clean
 * pages, pinned pages, and the owner's view and content after every step.
 * Last, the owner-lock protocol: a page that its owner frees between
 * evacuation's unlocked read and the lock is skipped by the re-check.
 * Then, on machines of their own: reclaim frees cold, the worker's
 * re-check, the free-path triggers, migration freeing hot, huge pages
 * left in place, pages whose owner refuses the lock, and a hole at the
 * start of a MAX_ORDER window.
 */
#include <string.h>
#include <unistd.h>

#include "freelist.h"
#include "machines.h"
#include "mempower/kmempowerd.h"

#define OWNER		7u
#define NPAGES		(4 * 1024 + 10)

static uint64_t owner_pfn[NPAGES];
static uint8_t clean[NPAGES], pinned[NPAGES];

static uint32_t tag(uint32_t index)
{
	return 0x9e3779b9u * (index + 1);
}

static int move(void *arg, uint32_t owner, uint32_t index, uint64_t from, uint64_t to)
{
	(void)arg;
	REQUIRE(owner == OWNER && index < NPAGES && owner_pfn[index] == from);
	if (pinned[index])
		return -1;
	owner_pfn[index] = to;
	return 0;
}

static int reclaim(void *arg, uint32_t owner, uint32_t index, uint64_t pfn)
{
	(void)arg;
	REQUIRE(owner == OWNER && owner_pfn[index] == pfn);
	if (!clean[index])
		return 0;
	owner_pfn[index] = MPM_NO_PFN;
	return 1;
}

/*
 * The owner's lock, for the protocol phase.  A single thread plays the
 * other thread's part: at the first lock, the owner unmaps and frees
 * race_pfn -- the page evacuation read without the lock and is about to
 * lock for -- so the owner words it read are now list links.  (The
 * contract bars the allocator inside lock because evacuation might hold
 * a lock of its own; it holds none here, which is what this relies on.)
 */
/* The @n-th lowest owned pfn of region @rid, or MPM_NO_PFN. */
static uint64_t nth_owned_in_region(struct mpm_machine *m, int rid, unsigned int n)
{
	uint64_t below = 0, pfn = MPM_NO_PFN;

	while (n--) {
		pfn = MPM_NO_PFN;
		for (uint32_t i = 0; i < NPAGES; i++)
			if (owner_pfn[i] != MPM_NO_PFN && owner_pfn[i] >= below &&
			    mpm_pfn_to_region(m, owner_pfn[i]) == rid &&
			    (pfn == MPM_NO_PFN || owner_pfn[i] < pfn))
				pfn = owner_pfn[i];
		if (pfn == MPM_NO_PFN)
			return pfn;
		below = pfn + 1;
	}
	return pfn;
}

/* The toy owner unmaps and frees its page @i. */
static void free_owned(struct mpm_machine *m, uint32_t i)
{
	mpm_rmap_clear(m, owner_pfn[i]);
	CHECK_EQ_U(mpm_free_pages(m, owner_pfn[i], 0, 0), 0);
	owner_pfn[i] = MPM_NO_PFN;
}

/* Unmap and free @n owned pages of region @rid, then drain the pcp lists. */
static void free_owned_in_region(struct mpm_machine *m, int rid, unsigned int n)
{
	for (uint32_t i = 0, freed = 0; i < NPAGES && freed < n; i++)
		if (owner_pfn[i] != MPM_NO_PFN && mpm_pfn_to_region(m, owner_pfn[i]) == rid) {
			free_owned(m, i);
			freed++;
		}
	mpm_drain_all_pages(m);
}

static struct mpm_machine *race_m;
static uint64_t race_pfn = MPM_NO_PFN;
static unsigned int locks, unknown_ids;

static int lock(void *arg, uint32_t owner)
{
	(void)arg;
	if (owner != OWNER) {
		unknown_ids++;
		return -1;
	}
	if (!locks++ && race_pfn != MPM_NO_PFN) {
		for (uint32_t i = 0; i < NPAGES; i++)
			if (owner_pfn[i] == race_pfn)
				owner_pfn[i] = MPM_NO_PFN;
		mpm_rmap_clear(race_m, race_pfn);
		REQUIRE(mpm_free_pages(race_m, race_pfn, 0, 0) == 0);
	}
	return 0;
}

static void unlock(void *arg, uint32_t owner)
{
	(void)arg;
	REQUIRE(owner == OWNER);
}

/* Every page the owner holds is where it thinks, with its content. */
static int owner_consistent(struct mpm_machine *m)
{
	for (uint32_t i = 0; i < NPAGES; i++) {
		uint32_t index, content;

		if (owner_pfn[i] == MPM_NO_PFN)
			continue;
		if (mpm_rmap_get(m, owner_pfn[i], &index, &content) != OWNER ||
		    index != i || content != tag(i))
			return 0;
	}
	return 1;
}

static unsigned int pages_in_region(struct mpm_machine *m, int rid)
{
	unsigned int n = 0;

	for (uint32_t i = 0; i < NPAGES; i++)
		n += owner_pfn[i] != MPM_NO_PFN && mpm_pfn_to_region(m, owner_pfn[i]) == rid;
	return n;
}

static void reset_owner(void)
{
	for (uint32_t i = 0; i < NPAGES; i++)
		owner_pfn[i] = MPM_NO_PFN;
	memset(clean, 0, sizeof(clean));
	memset(pinned, 0, sizeof(pinned));
}

/*
 * A flat zone of @pages pages and @cpus cpus, absolute regions of 1024
 * pages, policy @policy, with the reverse map and the toy owner's @ops.
 */
static struct mpm_machine *owner_machine(uint64_t pages, unsigned int cpus, const char *policy,
					 const struct mpm_migrate_ops *ops)
{
	struct test_machine t;
	struct mpm_machine *m;

	tm_flat(&t, 0, pages, cpus);
	t.spec.region_shift = 10;
	t.spec.region_absolute = true;
	REQUIRE(!mpm_policy_features(policy, &t.spec.features));
	m = tm_create(&t);
	REQUIRE(!mpm_rmap_enable(m));
	mpm_set_migrate_ops(m, ops);
	return m;
}

/* Allocate owned pages into owner_pfn until one lands in region @rid, then @more. */
static void fill_to_region(struct mpm_machine *m, int rid, unsigned int more)
{
	for (uint32_t i = 0; i < NPAGES; i++) {
		owner_pfn[i] = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0);
		REQUIRE(owner_pfn[i] != MPM_NO_PFN);
		mpm_rmap_set(m, owner_pfn[i], OWNER, i, tag(i));
		if (mpm_pfn_to_region(m, owner_pfn[i]) >= rid && !more--)
			return;
	}
	REQUIRE(0);
}

/* Unmap and free the owned pages of pfns [@lo, @hi), then drain the pcp lists. */
static void free_owned_range(struct mpm_machine *m, uint64_t lo, uint64_t hi)
{
	for (uint32_t i = 0; i < NPAGES; i++)
		if (owner_pfn[i] >= lo && owner_pfn[i] < hi && owner_pfn[i] != MPM_NO_PFN)
			free_owned(m, i);
	mpm_drain_all_pages(m);
}

/*
 * An owned movable block of @order (order 9: a THP) in place of the owned
 * pages it covers from @pfn, which are freed first so that their buddy
 * block is the lowest of its order.  Owned as page @index of the toy owner.
 */
static uint64_t owned_block_at(struct mpm_machine *m, uint64_t pfn, unsigned int order,
			       uint32_t index)
{
	uint64_t got;

	free_owned_range(m, pfn, pfn + (1ull << order));
	got = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, order, 0);
	REQUIRE(got == pfn);
	REQUIRE(!mpm_rmap_set(m, got, OWNER, index, tag(index)));
	owner_pfn[index] = got;
	return got;
}

/*
 * An owned block of order > 0 (a huge page) is never moved: the walk
 * counts it failed and goes past it, as 3.12's isolate_migratepages_range
 * skips a PageTransHuge page.  Before any page is isolated the lru lock
 * is not held, and 3.12 goes on at the next pageblock, leaving the rest
 * of this one for a later pass; with a batch under way it steps over the
 * huge page alone.  Regions and pageblocks of 1024 pages.  In region 2 a
 * THP is the first half: its 512 order-0 neighbours stay.  In region 3
 * an order-8 block sits at 256, behind 246 owned pages (not a multiple of
 * 32, so a batch is under way when the walk meets it) and before 512 more;
 * all 758 move.
 */
static void test_huge_pages_left(void)
{
	struct mpm_migrate_ops ops = { .move = move, .reclaim_clean = reclaim };
	struct mpm_evac_result res;
	struct mpm_machine *m;
	uint64_t thp, huge;

	reset_owner();
	m = owner_machine(8192, 1, "sorted", &ops);
	fill_to_region(m, 4, 0);	/* regions 1-3 full */
	thp = owned_block_at(m, 2 * 1024, 9, NPAGES - 1);
	huge = owned_block_at(m, 3 * 1024 + 256, 8, NPAGES - 2);
	/* the first 10 pages of region 3 stay allocated but are no LRU pages */
	for (uint32_t i = 0; i < NPAGES - 2; i++)
		if (owner_pfn[i] >= 3 * 1024 && owner_pfn[i] < 3 * 1024 + 10) {
			mpm_rmap_clear(m, owner_pfn[i]);
			owner_pfn[i] = MPM_NO_PFN;
		}
	free_owned_in_region(m, 1, 800);	/* room below */
	CHECK_EQ_U(pages_in_region(m, 2), 1 + 512);
	CHECK_EQ_U(pages_in_region(m, 3), 246 + 1 + 512);

	CHECK_EQ_U(mpm_evacuate_region(m, 0, 2, 0, false, &res), 0);
	CHECK(!res.aborted);
	CHECK_EQ_U(res.failed, 1);
	CHECK_EQ_U(res.migrated, 0);
	CHECK_EQ_U(res.scanned, 1);
	CHECK_EQ_U(pages_in_region(m, 2), 1 + 512);

	CHECK_EQ_U(mpm_evacuate_region(m, 0, 3, 0, false, &res), 0);
	CHECK(!res.aborted);
	CHECK_EQ_U(res.failed, 1);
	CHECK_EQ_U(res.migrated, 246 + 512);
	CHECK_EQ_U(pages_in_region(m, 3), 1);

	CHECK_EQ_U(mpm_rmap_get(m, thp, NULL, NULL), OWNER);
	CHECK_EQ_U(mpm_rmap_get(m, huge, NULL, NULL), OWNER);
	CHECK(owner_consistent(m));
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * Reclaimed pages are freed cold, as shrink_page_list frees them: to the
 * tail of the pcp list, lowest pfn first.  A 256 MiB zone, whose pcp high
 * (90) keeps them all on the list.
 */
static void test_reclaim_cold(void)
{
	struct mpm_migrate_ops ops = { .move = move, .reclaim_clean = reclaim };
	struct mpm_evac_result res;
	struct mpm_machine *m;
	const struct per_cpu_pages *pcp;
	uint32_t idx;
	int count;

	reset_owner();
	m = owner_machine(65536, 1, "sorted", &ops);
	fill_to_region(m, 3, 9);
	memset(clean, 1, sizeof(clean));
	mpm_drain_all_pages(m);
	pcp = &m->zones[0].pageset[0];
	count = pcp->count;
	CHECK_EQ_U(mpm_evacuate_region(m, 0, 3, 0, true, &res), 0);
	CHECK(!res.aborted);
	CHECK_EQ_U(res.migrated, 0);
	CHECK(res.reclaimed >= 2);
	CHECK_EQ_U(pages_in_region(m, 3), 0);
	CHECK_EQ_U(pcp->count, count + (int)res.reclaimed);
	/* from the tail back: the reclaimed pages, highest pfn first */
	idx = m->pages[pcp->lists[MIGRATE_MOVABLE]].prev;
	for (uint64_t i = 0, last = UINT64_MAX; i < res.reclaimed; i++) {
		uint64_t pfn = idx_to_pfn(m, idx);

		CHECK_EQ_U(mpm_pfn_to_region(m, pfn), 3);
		CHECK(pfn < last);
		CHECK_EQ_U(mpm_rmap_get(m, pfn, NULL, NULL), MPM_NO_OWNER);
		last = pfn;
		idx = m->pages[idx].prev;
	}
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

static int lock_none(void *arg, uint32_t owner)
{
	(void)arg;
	(void)owner;
	return 0;
}

static void unlock_none(void *arg, uint32_t owner)
{
	(void)arg;
	(void)owner;
}

/* The owner is going away (exiting): every lock fails. */
static int lock_exiting(void *arg, uint32_t owner)
{
	(void)arg;
	(void)owner;
	return -1;
}

/*
 * A page whose owner refuses the lock stays where it is and counts as
 * raced, not failed: the owner is tearing its address space down and
 * will free the page itself.  Region 5 holds 10 owned pages, region 2
 * has room for them.
 */
static void test_owner_going_away(void)
{
	struct mpm_migrate_ops ops = { .move = move, .reclaim_clean = reclaim,
				       .lock = lock_exiting, .unlock = unlock_none };
	struct mpm_evac_result res;
	struct mpm_machine *m;

	reset_owner();
	m = owner_machine(8192, 1, "sorted", &ops);
	fill_to_region(m, 5, 9);
	free_owned_in_region(m, 2, 100);
	CHECK_EQ_U(pages_in_region(m, 5), 10);
	CHECK_EQ_U(mpm_evacuate_region(m, 0, 5, 0, false, &res), 0);
	CHECK(!res.aborted);
	CHECK_EQ_U(res.raced, 10);
	CHECK_EQ_U(res.migrated, 0);
	CHECK_EQ_U(res.failed, 0);
	CHECK_EQ_U(pages_in_region(m, 5), 10);
	CHECK(owner_consistent(m));
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * kmempowerd asks should_evacuate_region again before each region (patch
 * 39): the region the last pages spilled into, queued by a free while it
 * had a few used pages, has more than 32 when the thread gets to it, and
 * is left alone.
 */
static void test_worker_recheck(void)
{
	struct mpm_migrate_ops ops = { .move = move, .reclaim_clean = reclaim,
				       .lock = lock_none, .unlock = unlock_none };
	struct mpm_kmempowerd_stats st;
	struct mpm_machine *m;
	const unsigned int cpus[1] = { 1 };
	uint32_t rids[8];
	int rid, tries = 0;

	reset_owner();
	m = owner_machine(8192, 2, "full", &ops);
	fill_to_region(m, 5, 9);
	rid = 5;
	free_owned_in_region(m, rid, 1);
	CHECK_EQ_U(mpm_mempower_work_take(m, 0, rids, 8), 1);
	CHECK_EQ_U(rids[0], rid);
	for (int i = 0; i < 50; i++)
		REQUIRE(mpm_pfn_to_region(m, mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0)) ==
			rid);
	CHECK(!mpm_should_evacuate_region(m, 0, (unsigned int)rid, mpm_evac_threshold(m)));
	REQUIRE(!mpm_kmempowerd_start(m, cpus));
	while (mpm_mempower_work_take(m, 0, rids, 8) > 0 && tries++ < 5000)
		usleep(1000);
	mpm_kmempowerd_stop(m);
	CHECK_EQ_U(mpm_mempower_work_take(m, 0, rids, 8), 0);
	mpm_kmempowerd_stats(m, &st);
	CHECK_EQ_U(st.evacuations, 0);
	CHECK_EQ_U(st.skipped, 1);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/* mpm_counters' evac_pending: regions in the queue now. */
static uint64_t evac_pending(const struct mpm_machine *m)
{
	struct mpm_counters c;

	mpm_counters(m, &c);
	return c.evac_pending;
}

/*
 * The trigger tests' machine: one zone of @type and @pages pages from pfn
 * 0, pageblocks of 512 pages, absolute regions of 2^@region_shift, policy
 * full, with every page it gives allocated movable into @pfns (@pages
 * long); *@n says how many.
 */
static struct mpm_machine *trigger_machine(enum mpm_zone_type type, uint64_t pages,
					   unsigned int region_shift, uint64_t *pfns,
					   unsigned int *n)
{
	struct test_machine t;
	struct mpm_machine *m;

	tm_flat(&t, 0, pages, 1);
	t.zones[0].type = type;
	t.spec.pageblock_order = 9;
	t.spec.region_shift = region_shift;
	t.spec.region_absolute = true;
	REQUIRE(!mpm_policy_features("full", &t.spec.features));
	m = tm_create(&t);
	for (*n = 0; *n < pages && (pfns[*n] = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0)) !=
				      MPM_NO_PFN; (*n)++)
		;
	return m;
}

/*
 * The trigger looks at the block add_to_freelist took, by its head page's
 * pageblock and region (patch 40).  Pageblocks of 512 pages, regions of
 * 2048: region 1's first MAX_ORDER-1 block has an UNMOVABLE first half and
 * a MOVABLE second half.  The free that makes that block whole is in the
 * MOVABLE half, its head in the UNMOVABLE one: nothing is queued.
 */
static void test_trigger_head(void)
{
	static uint64_t pfns[8192];
	struct mpm_machine *m;
	uint32_t rids[8];
	unsigned int n, kept = 0;
	int q;

	m = trigger_machine(MPM_ZONE_NORMAL, 8192, 11, pfns, &n);
	set_pageblock_migratetype(m, &m->zones[0], 2048, MIGRATE_UNMOVABLE);
	for (unsigned int i = 0; i < n; i++) {
		bool keep = pfns[i] == 2600;

		if (!keep && pfns[i] >= 3072 && pfns[i] < 4096 && kept < 10) {
			keep = true;
			kept++;
		}
		if (pfns[i] >= 2048 && pfns[i] < 4096 && !keep)
			CHECK_EQ_U(mpm_free_pages(m, pfns[i], 0, 0), 0);
	}
	mpm_drain_all_pages(m);
	CHECK_EQ_U(kept, 10);
	/* those frees queued region 1; clear the queue */
	CHECK_EQ_U(evac_pending(m), 1);
	q = mpm_mempower_work_take(m, 0, rids, 8);
	CHECK_EQ_U(q, 1);
	CHECK_EQ_U(evac_pending(m), 1);	/* taken, but queued until done() */
	mpm_mempower_work_done(m, 0, rids, (unsigned int)q);
	CHECK_EQ_U(evac_pending(m), 0);
	CHECK_EQ_U(mpm_free_pages(m, 2600, 0, 0), 0);
	mpm_drain_all_pages(m);
	CHECK_EQ_U(m->pages[pfn_to_idx(m, 2048)].order, MAX_ORDER - 1);	/* merged whole */
	CHECK(mpm_should_evacuate_region(m, 0, 1, mpm_evac_threshold(m)));
	CHECK_EQ_U(mpm_mempower_work_take(m, 0, rids, 8), 0);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * With more than 64 regions the queue's mask has two levels, and done()
 * must clear the summary bit with the last leaf bit of its word (the
 * checker walks the tree).  128 regions of 512 pages; all allocated, then
 * region 100 freed but for 10 pages: the frees queue it; take() copies
 * it, done() clears it, and the queue is empty and sound.
 */
static void test_trigger_two_levels(void)
{
	static uint64_t pfns[65536];
	struct mpm_machine *m;
	uint32_t rids[8];
	unsigned int n, kept = 0;

	m = trigger_machine(MPM_ZONE_NORMAL, 65536, 9, pfns, &n);
	REQUIRE(n > 60000);
	for (unsigned int i = 0; i < n; i++) {
		if (mpm_pfn_to_region(m, pfns[i]) != 100)
			continue;
		if (kept < 10)
			kept++;
		else
			CHECK_EQ_U(mpm_free_pages(m, pfns[i], 0, 0), 0);
	}
	mpm_drain_all_pages(m);
	CHECK_EQ_U(kept, 10);
	CHECK_EQ_U(evac_pending(m), 1);
	CHECK_EQ_U(tm_check(m), 0);
	CHECK_EQ_U(mpm_mempower_work_take(m, 0, rids, 8), 1);
	CHECK_EQ_U(rids[0], 100);
	CHECK_EQ_U(mpm_mempower_work_done(m, 0, rids, 1), 0);
	CHECK_EQ_U(evac_pending(m), 0);
	CHECK_EQ_U(mpm_mempower_work_take(m, 0, rids, 8), 0);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * evac_trigger_alloc: patch 40's trigger as coded, in add_to_freelist, so
 * also where an allocation's split puts halves back.  8 regions of 4096
 * pages; order-0 allocations fill region 0 (the region cache) and then
 * split a block of region 1 (a pcp refill), whose few used pages qualify it
 * (should_evacuate_region).  Nothing is freed: by default nothing is
 * queued; with the switch region 1 is, at that first split.
 */
static void test_trigger_alloc(void)
{
	for (int on = 0; on < 2; on++) {
		struct test_machine t;
		struct mpm_machine *m;
		uint32_t rids[8];
		uint64_t pfn;
		int q = 0;

		tm_flat(&t, 0, 32768, 1);
		t.spec.region_shift = 12;
		t.spec.region_absolute = true;
		REQUIRE(!mpm_policy_features("full", &t.spec.features));
		if (on)
			t.spec.features |= MPM_FEATURE_EVAC_TRIGGER_ALLOC;
		m = tm_create(&t);
		do {
			pfn = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0);
			REQUIRE(pfn != MPM_NO_PFN);
			q = mpm_mempower_work_take(m, 0, rids, 8);
		} while (!q && mpm_pfn_to_region(m, pfn) < 2);
		CHECK_EQ_U(q, on ? 1 : 0);
		if (on) {
			/* a pcp refill split it, maybe before a page of it was handed out */
			CHECK_EQ_U(rids[0], 1);
			CHECK(mpm_should_evacuate_region(m, 0, 1, mpm_evac_threshold(m)));
		}
		CHECK_EQ_U(tm_check(m), 0);
		mpm_machine_destroy(m);
	}
}

/*
 * evac_trigger_alloc where a block straddles two regions: node-relative
 * regions of 1024 pages on a node that starts at pfn 1 (as x86's DMA zone
 * does), so an order-10 block at pfn 1024 j has its head in region j - 1
 * and its other 1023 pages in region j.  Movable allocations of one page
 * (batch 1: a refill takes one) first take the lone page at the zone's end,
 * then split the first block the region allocator hands out and keep its
 * head.  The patch's add of the order-1 half still sees the head + 1, the
 * order-0 half not yet back, as used in region j: 1 page, so region j is
 * queued, though once every half is back it has none in use.
 */
static void test_trigger_alloc_straddle(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	uint32_t rids[8];
	uint64_t pfn = MPM_NO_PFN;
	int q = 0;

	tm_flat(&t, 1, 7168, 1);
	t.spec.region_shift = 10;
	REQUIRE(!mpm_policy_features("full", &t.spec.features));
	t.spec.features |= MPM_FEATURE_EVAC_TRIGGER_ALLOC;
	m = tm_create(&t);
	REQUIRE(m->zones[0].pageset[0].batch == 1);
	while (!q && (pfn = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0)) != MPM_NO_PFN)
		q = mpm_mempower_work_take(m, 0, rids, 8);
	CHECK_EQ_U(q, 1);
	CHECK_EQ_U(pfn % 1024, 0);
	CHECK_EQ_U(rids[0], mpm_pfn_to_region(m, pfn) + 1);
	CHECK(!mpm_should_evacuate_region(m, 0, rids[0], mpm_evac_threshold(m)));	/* 0 used now */
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * Free region 1 of trigger_machine(@type, 8192, 11) down to @keep used
 * pages, its four pageblocks of type @mt; how many regions the frees
 * queued (patch 40's trigger).
 */
static int queued_after(enum mpm_zone_type type, unsigned int keep, int mt)
{
	static uint64_t pfns[8192];
	struct mpm_machine *m;
	uint32_t rids[8];
	unsigned int n, kept = 0;
	int q;

	m = trigger_machine(type, 8192, 11, pfns, &n);
	for (uint64_t pb = 2048; pb < 4096; pb += 512)
		set_pageblock_migratetype(m, &m->zones[0], pb, mt);
	for (unsigned int i = 0; i < n; i++) {
		if (pfns[i] < 2048 || pfns[i] >= 4096)
			continue;
		if (kept < keep) {
			kept++;
			continue;
		}
		CHECK_EQ_U(mpm_free_pages(m, pfns[i], 0, 0), 0);
	}
	mpm_drain_all_pages(m);
	REQUIRE(kept == keep);
	CHECK_EQ_U(mpm_should_evacuate_region(m, 0, 1, mpm_evac_threshold(m)),
		   keep <= MPM_MAX_MEMPWR_MIGRATE_PAGES);
	q = mpm_mempower_work_take(m, 0, rids, 8);
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
	return q;
}

/*
 * region_is_evac_candidate (patch 40) and should_evacuate_region (39):
 * used <= 32 queues, 33 does not; a MOVABLE or RECLAIMABLE pageblock
 * queues, an UNMOVABLE one does not; a DMA zone never does; and nothing is
 * queued before the system runs -- boot freeing, here on node-relative
 * regions from pfn 1, whose MAX_ORDER-1 blocks straddle region edges, so
 * that the boot frees do pass regions with a few used pages.
 */
static void test_trigger_conditions(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	uint32_t rids[8];

	CHECK_EQ_U(queued_after(MPM_ZONE_NORMAL, 32, MIGRATE_MOVABLE), 1);
	CHECK_EQ_U(queued_after(MPM_ZONE_NORMAL, 33, MIGRATE_MOVABLE), 0);
	CHECK_EQ_U(queued_after(MPM_ZONE_NORMAL, 10, MIGRATE_RECLAIMABLE), 1);
	CHECK_EQ_U(queued_after(MPM_ZONE_NORMAL, 10, MIGRATE_UNMOVABLE), 0);
	CHECK_EQ_U(queued_after(MPM_ZONE_DMA, 10, MIGRATE_MOVABLE), 0);
	CHECK_EQ_U(queued_after(MPM_ZONE_DMA32, 10, MIGRATE_MOVABLE), 1);

	tm_flat(&t, 1, 8192, 1);
	t.spec.pageblock_order = 9;
	t.spec.region_shift = 11;
	REQUIRE(!mpm_policy_features("full", &t.spec.features));
	m = tm_create(&t);
	CHECK_EQ_U(mpm_mempower_work_take(m, 0, rids, 8), 0);
	mpm_machine_destroy(m);
}

/* The head of @cpu's movable pcp list, as a pfn (MPM_NO_PFN: empty). */
static uint64_t pcp_head(struct mpm_machine *m, unsigned int cpu)
{
	const struct per_cpu_pages *pcp = &m->zones[0].pageset[cpu];
	uint32_t head = pcp->lists[MIGRATE_MOVABLE], first = m->pages[head].next;

	return first == head ? MPM_NO_PFN : idx_to_pfn(m, first);
}

/* The lowest pfn on @cpu's movable pcp list. */
static uint64_t pcp_lowest(struct mpm_machine *m, unsigned int cpu)
{
	const struct per_cpu_pages *pcp = &m->zones[0].pageset[cpu];
	uint32_t head = pcp->lists[MIGRATE_MOVABLE];
	uint64_t low = MPM_NO_PFN;

	for (uint32_t i = m->pages[head].next; i != head; i = m->pages[i].next)
		if (idx_to_pfn(m, i) < low)
			low = idx_to_pfn(m, i);
	return low;
}

/*
 * Migration frees hot, as 3.12 does: a moved source through
 * putback_lru_page, a target left over at the end through
 * release_freepages -> __free_page; each goes to the head of the cpu's pcp
 * list, where the next allocation takes it.  A 256 MiB zone, whose pcp
 * high (90) keeps them all there; region 3 holds 10 owned pages.
 *  - No room below: the run aborts at its first target, and the 10
 *    targets, taken lowest pfn first, are freed last taken first: the
 *    first taken, the lowest, ends at the head.
 *  - Room in region 1: the 10 pages move, highest pfn first, so the last
 *    source freed, the lowest, ends at the head.
 */
static void test_free_hot(void)
{
	struct mpm_migrate_ops ops = { .move = move, .reclaim_clean = reclaim };
	struct mpm_evac_result res;
	struct mpm_machine *m;
	uint64_t low = MPM_NO_PFN;

	reset_owner();
	m = owner_machine(65536, 1, "sorted", &ops);
	fill_to_region(m, 3, 9);
	for (uint32_t i = 0; i < NPAGES; i++)
		if (owner_pfn[i] != MPM_NO_PFN && mpm_pfn_to_region(m, owner_pfn[i]) == 3 &&
		    owner_pfn[i] < low)
			low = owner_pfn[i];
	mpm_drain_all_pages(m);
	CHECK_EQ_U(pcp_head(m, 0), MPM_NO_PFN);

	CHECK_EQ_U(mpm_evacuate_region(m, 0, 3, 0, false, &res), 0);
	CHECK(res.aborted);
	CHECK_EQ_U(res.migrated, 0);
	CHECK_EQ_U(m->zones[0].pageset[0].count, 10);
	CHECK_EQ_U(mpm_pfn_to_region(m, pcp_head(m, 0)), 3);
	CHECK_EQ_U(pcp_head(m, 0), pcp_lowest(m, 0));

	free_owned_in_region(m, 1, 20);
	mpm_drain_all_pages(m);
	CHECK_EQ_U(mpm_evacuate_region(m, 0, 3, 0, false, &res), 0);
	CHECK(!res.aborted);
	CHECK_EQ_U(res.migrated, 10);
	CHECK_EQ_U(m->zones[0].pageset[0].count, 10);
	CHECK_EQ_U(pcp_head(m, 0), low);
	CHECK_EQ_U(mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0), low);
	CHECK(owner_consistent(m));
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

/*
 * pfn_valid at a MAX_ORDER window's first pfn is per 128 MiB section
 * (x86-64 sparsemem), as 3.12's isolate_migratepages_range asks it.  A
 * hole [2048, 2056) at the start of region 1 (regions of 2048 pages,
 * pageblocks of 512): its section has memory, so the walk goes on pfn by
 * pfn, skips the first pageblock (it starts in the hole, so it is not
 * MOVABLE) and moves the owned pages of the second.  A walk that took the
 * hole for an invalid window would pass over all 1024 pages of it.
 */
static void test_hole_at_window_start(void)
{
	const struct mpm_migrate_ops ops = { .move = move, .reclaim_clean = reclaim };
	struct test_machine t;
	struct mpm_evac_result res;
	struct mpm_machine *m;
	unsigned int kept = 0;

	reset_owner();
	tm_flat(&t, 0, 8192, 1);
	t.holes[0] = (struct mpm_hole_spec){ 2048, 2056 };
	t.spec.nr_holes = 1;
	t.spec.region_shift = 11;
	t.spec.region_absolute = true;
	t.spec.pageblock_order = 9;
	REQUIRE(!mpm_policy_features("full", &t.spec.features));
	m = tm_create(&t);
	REQUIRE(!mpm_rmap_enable(m));
	mpm_set_migrate_ops(m, &ops);
	/* region 0 full, region 1 up to its second pageblock and a little beyond */
	for (uint32_t i = 0; i < NPAGES; i++) {
		owner_pfn[i] = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0);
		REQUIRE(owner_pfn[i] != MPM_NO_PFN);
		mpm_rmap_set(m, owner_pfn[i], OWNER, i, tag(i));
		if (owner_pfn[i] >= 2560 && owner_pfn[i] < 3072 && ++kept == 5)
			break;
	}
	REQUIRE(kept == 5);
	/* keep those five; room for them in region 0 */
	for (uint32_t i = 0; i < NPAGES; i++)
		if (owner_pfn[i] != MPM_NO_PFN &&
		    ((owner_pfn[i] >= 2048 && owner_pfn[i] < 2560) ||
		     (owner_pfn[i] >= 1024 && owner_pfn[i] < 1100)))
			free_owned(m, i);
	mpm_drain_all_pages(m);
	REQUIRE(pages_in_region(m, 1) == 5);
	CHECK_EQ_U(mpm_evacuate_region(m, 0, 1, 0, false, &res), 0);
	CHECK_EQ_U(res.migrated, 5);
	CHECK_EQ_U(pages_in_region(m, 1), 0);
	CHECK(owner_consistent(m));
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
}

int main(void)
{
	struct mpm_migrate_ops ops = { .move = move, .reclaim_clean = reclaim };
	struct mpm_evac_result res;
	struct test_machine t;
	struct mpm_machine *m;
	uint32_t region5[16], n5 = 0;

	tm_flat(&t, 0, 8192, 1);
	t.spec.region_shift = 10;
	t.spec.region_absolute = true;
	REQUIRE(!mpm_policy_features("sorted", &t.spec.features));
	m = tm_create(&t);
	REQUIRE(!mpm_rmap_enable(m));
	CHECK_EQ_U(mpm_evacuate_region(m, 0, 5, 0, true, &res), -1);	/* no callbacks yet */
	mpm_set_migrate_ops(m, &ops);

	/* regions 1-4 fill up (region 0 is the reserve pageblock), 10 pages spill into 5 */
	for (uint32_t i = 0; i < NPAGES; i++) {
		owner_pfn[i] = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0);
		REQUIRE(owner_pfn[i] != MPM_NO_PFN);
		mpm_rmap_set(m, owner_pfn[i], OWNER, i, tag(i));
		if (mpm_pfn_to_region(m, owner_pfn[i]) == 5 &&
		    n5 < sizeof(region5) / sizeof(region5[0]))
			region5[n5++] = i;
	}
	REQUIRE(n5 == 10);	/* region5[] is indexed below */
	CHECK(mpm_should_evacuate_region(m, 0, 5, MPM_MAX_MEMPWR_MIGRATE_PAGES));
	CHECK(!mpm_should_evacuate_region(m, 0, 3, MPM_MAX_MEMPWR_MIGRATE_PAGES));	/* full */
	CHECK(!mpm_should_evacuate_region(m, 0, 6, MPM_MAX_MEMPWR_MIGRATE_PAGES));	/* empty */
	CHECK(!mpm_should_evacuate_region(m, 0, 0, UINT64_MAX));	/* never region 0 */

	/*
	 * No room below: the first target comes from region 5 or above, abort.
	 * The walk steps over every pfn of the region, free ones included.
	 */
	CHECK_EQ_U(mpm_evacuate_region(m, 0, 5, 0, true, &res), 0);
	CHECK(res.aborted);
	CHECK_EQ_U(res.migrated, 0);
	CHECK_EQ_U(res.scanned, 1024);
	CHECK_EQ_U(pages_in_region(m, 5), 10);
	CHECK(owner_consistent(m));
	CHECK_EQ_U(tm_check(m), 0);

	/*
	 * Room for 5 of the 10 below.  The two clean page-cache pages are
	 * reclaimed first, for the whole batch.  The other 8 ask for 8 targets
	 * at once: 5 from region 2, 3 from region 5, listed last taken first,
	 * so the first target tried is region 5's and nothing moves.
	 */
	free_owned_in_region(m, 2, 5);
	clean[region5[0]] = clean[region5[1]] = 1;
	CHECK_EQ_U(mpm_evacuate_region(m, 0, 5, 0, true, &res), 0);
	CHECK(res.aborted);
	CHECK_EQ_U(res.reclaimed, 2);
	CHECK_EQ_U(res.migrated, 0);
	CHECK_EQ_U(pages_in_region(m, 5), 8);
	mpm_drain_all_pages(m);
	CHECK_EQ_U(pages_in_region(m, 2), 1024 - 5);	/* the targets went back */
	CHECK(owner_consistent(m));
	CHECK_EQ_U(tm_check(m), 0);

	/* 100 free in region 2: 7 move, one pinned page stays */
	free_owned_in_region(m, 2, 95);
	pinned[region5[2]] = 1;
	CHECK_EQ_U(mpm_evacuate_region(m, 0, 5, 0, true, &res), 0);
	CHECK(!res.aborted);
	CHECK_EQ_U(res.migrated, 7);
	CHECK_EQ_U(res.reclaimed, 0);
	CHECK_EQ_U(res.failed, 1);
	CHECK_EQ_U(pages_in_region(m, 5), 1);
	CHECK_EQ_U(pages_in_region(m, 2), 1024 - 100 + 7);
	CHECK(owner_consistent(m));
	CHECK_EQ_U(tm_check(m), 0);

	/*
	 * Async compaction isolates from MOVABLE pageblocks only
	 * (migrate_async_suitable): with region 5's pageblock UNMOVABLE or
	 * RECLAIMABLE the walk ends at its first pfn that is not a free head,
	 * and the unpinned page stays.
	 */
	pinned[region5[2]] = 0;
	for (int mt = MIGRATE_UNMOVABLE; mt <= MIGRATE_RECLAIMABLE; mt++) {
		set_pageblock_migratetype(m, &m->zones[0], 5 * 1024, mt);
		CHECK_EQ_U(mpm_evacuate_region(m, 0, 5, 0, false, &res), 0);
		CHECK_EQ_U(res.migrated, 0);
		CHECK(res.scanned <= 2);
	}
	set_pageblock_migratetype(m, &m->zones[0], 5 * 1024, MIGRATE_MOVABLE);

	/* MOVABLE again, the last page moves; once the pcp lists drain, region 5 is free */
	CHECK_EQ_U(mpm_evacuate_region(m, 0, 5, 0, false, &res), 0);
	CHECK_EQ_U(res.migrated, 1);
	mpm_drain_all_pages(m);
	{
		struct mpm_region_info ri;

		mpm_region_info(m, 0, 5, &ri);
		CHECK_EQ_U(ri.nr_free, ri.present);
	}
	CHECK(owner_consistent(m));
	CHECK_EQ_U(tm_check(m), 0);

	/*
	 * The protocol: evacuating region 4 (full) isolates its first 32 owned
	 * pages and migrates them highest pfn first; the first of them is
	 * freed inside its own lock call, so the re-check finds it gone and
	 * skips it.  The run aborts once region 2's room is used up; what
	 * moved before is consistent.
	 */
	ops.lock = lock;
	ops.unlock = unlock;
	mpm_set_migrate_ops(m, &ops);
	race_m = m;
	race_pfn = nth_owned_in_region(m, 4, 32);
	REQUIRE(race_pfn != MPM_NO_PFN);
	CHECK_EQ_U(mpm_evacuate_region(m, 0, 4, 0, false, &res), 0);
	CHECK_EQ_U(res.raced, 1);
	CHECK_EQ_U(unknown_ids, 0);
	CHECK(res.migrated > 0);
	CHECK_EQ_U(locks, res.migrated + 1 + (res.aborted ? 1 : 0));
	CHECK_EQ_U(mpm_rmap_get(m, race_pfn, NULL, NULL), MPM_NO_OWNER);
	CHECK(owner_consistent(m));
	CHECK_EQ_U(tm_check(m), 0);
	mpm_machine_destroy(m);
	test_reclaim_cold();
	test_worker_recheck();
	test_trigger_head();
	test_trigger_two_levels();
	test_trigger_alloc();
	test_trigger_alloc_straddle();
	test_trigger_conditions();
	test_free_hot();
	test_huge_pages_left();
	test_owner_going_away();
	test_hole_at_window_start();
	return t_report("core/evacuate");
}
