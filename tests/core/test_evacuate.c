// SPDX-License-Identifier: MIT
/*
 * Region evacuation (evacuate.c) with a toy owner: one address space whose
 * page index -> pfn table the callbacks keep.  Sorted lists fill regions
 * from the bottom; a few pages spill into region 5, room is freed in region
 * 2, and region 5 is evacuated: the abort rule, moving, reclaiming clean
 * pages, pinned pages, and the owner's view and content after every step.
 * Last, the owner-lock protocol: a page that its owner frees between
 * evacuation's unlocked read and the lock is skipped by the re-check.
 */
#include "machines.h"

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
		if (mpm_pfn_to_region(m, owner_pfn[i]) == 5)
			region5[n5++] = i;
	}
	CHECK_EQ_U(n5, 10);
	CHECK(mpm_should_evacuate_region(m, 0, 5, MPM_MAX_MEMPWR_MIGRATE_PAGES));
	CHECK(!mpm_should_evacuate_region(m, 0, 3, MPM_MAX_MEMPWR_MIGRATE_PAGES));	/* full */
	CHECK(!mpm_should_evacuate_region(m, 0, 6, MPM_MAX_MEMPWR_MIGRATE_PAGES));	/* empty */
	CHECK(!mpm_should_evacuate_region(m, 0, 0, UINT64_MAX));	/* never region 0 */

	/* no room below: the first target comes from region 5 or above, abort */
	CHECK_EQ_U(mpm_evacuate_region(m, 0, 5, 0, true, &res), 0);
	CHECK(res.aborted);
	CHECK_EQ_U(res.migrated, 0);
	CHECK_EQ_U(pages_in_region(m, 5), 10);
	CHECK(owner_consistent(m));
	CHECK_EQ_U(tm_check(m), 0);

	/* free 100 pages of region 2 back to the buddy lists */
	for (uint32_t i = 0, freed = 0; i < NPAGES && freed < 100; i++)
		if (mpm_pfn_to_region(m, owner_pfn[i]) == 2) {
			mpm_rmap_clear(m, owner_pfn[i]);
			CHECK_EQ_U(mpm_free_pages(m, owner_pfn[i], 0, 0), 0);
			owner_pfn[i] = MPM_NO_PFN;
			freed++;
		}
	mpm_drain_all_pages(m);

	/* two clean page-cache pages are dropped, one pinned page stays */
	clean[region5[0]] = clean[region5[1]] = 1;
	pinned[region5[2]] = 1;
	CHECK_EQ_U(mpm_evacuate_region(m, 0, 5, 0, true, &res), 0);
	CHECK(!res.aborted);
	CHECK_EQ_U(res.migrated, 7);
	CHECK_EQ_U(res.reclaimed, 2);
	CHECK_EQ_U(res.failed, 1);
	CHECK_EQ_U(pages_in_region(m, 5), 1);
	CHECK_EQ_U(pages_in_region(m, 2), 1024 - 100 + 7);
	CHECK(owner_consistent(m));
	CHECK_EQ_U(tm_check(m), 0);

	/* unpinned, the last page moves; once the pcp lists drain, region 5 is free */
	pinned[region5[2]] = 0;
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
	 * The protocol: evacuating region 4 (full) locks its pages in pfn
	 * order; the first one is freed inside its own lock call, so the
	 * re-check finds it gone and skips it.  The run aborts once region 2's
	 * room is used up; what moved before is consistent.
	 */
	ops.lock = lock;
	ops.unlock = unlock;
	mpm_set_migrate_ops(m, &ops);
	race_m = m;
	for (uint32_t i = 0; i < NPAGES; i++)
		if (owner_pfn[i] != MPM_NO_PFN && mpm_pfn_to_region(m, owner_pfn[i]) == 4 &&
		    (race_pfn == MPM_NO_PFN || owner_pfn[i] < race_pfn))
			race_pfn = owner_pfn[i];
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
	return t_report("core/evacuate");
}
