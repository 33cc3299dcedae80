// SPDX-License-Identifier: MIT
/*
 * The reverse map: set/get round trip; a page that still has an owner
 * cannot be freed; owner and index sit in the page's link words, and
 * clearing leaves them behind, stale, which no reader may see; the checker
 * refuses a free page still marked owned.
 */
#include "machines.h"
#include "mmzone.h"

int main(void)
{
	struct test_machine t;
	struct mpm_machine *m;
	uint64_t pfn;
	uint32_t index = 0, content = 0;
	char msg[256];

	tm_flat(&t, 0, 8192, 1);
	m = tm_create(&t);
	CHECK(!mpm_rmap_enabled(m));
	CHECK(mpm_rmap_enable(m) == 0);
	CHECK(mpm_rmap_enable(m) == 0);
	pfn = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0);
	mpm_rmap_set(m, pfn, 7, 42, 0xabcd);
	CHECK_EQ_U(mpm_rmap_get(m, pfn, &index, &content), 7);
	CHECK_EQ_U(index, 42);
	CHECK_EQ_U(content, 0xabcd);
	CHECK(tm_check(m) == 0);
	/* still mapped: a bad free, nothing touched */
	CHECK(mpm_free_pages(m, pfn, 0, 0) == -1);
	CHECK(mpm_page_state(m, pfn, NULL) == MPM_PAGE_ALLOC);
	CHECK(tm_check(m) == 0);
	/* the owner and index live in the page's link words while allocated */
	CHECK_EQ_U(m->pages[pfn_to_idx(m, pfn)].next, 7);
	CHECK_EQ_U(m->pages[pfn_to_idx(m, pfn)].prev, 42);
	/* cleared: the stale words stay until the free links the page, unseen */
	mpm_rmap_clear(m, pfn);
	CHECK_EQ_U(m->pages[pfn_to_idx(m, pfn)].next, 7);
	CHECK_EQ_U(mpm_rmap_get(m, pfn, &index, &content), MPM_NO_OWNER);
	CHECK(tm_check(m) == 0);
	CHECK(mpm_free_pages(m, pfn, 0, 0) == 0);
	CHECK(tm_check(m) == 0);
	CHECK_EQ_U(mpm_rmap_get(m, pfn, NULL, NULL), MPM_NO_OWNER);
	/* a free page marked owned is damage, and the checker names it */
	m->pages[pfn_to_idx(m, pfn)].flags |= PG_owned;
	CHECK(mpm_check(m, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "still marked owned") != NULL);
	m->pages[pfn_to_idx(m, pfn)].flags &= ~PG_owned;
	CHECK(tm_check(m) == 0);
	/* setting "no owner" is clearing */
	pfn = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, 0);
	mpm_rmap_set(m, pfn, 9, 1, 2);
	mpm_rmap_set(m, pfn, MPM_NO_OWNER, 0, 0);
	CHECK_EQ_U(mpm_rmap_get(m, pfn, NULL, NULL), MPM_NO_OWNER);
	CHECK(mpm_free_pages(m, pfn, 0, 0) == 0);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
	return t_report("core/rmap");
}
