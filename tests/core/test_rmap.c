// SPDX-License-Identifier: MIT
/* The reverse map: set/get round trip, and the checker refusing a freed
 * page that still has an owner. */
#include "machines.h"

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
	/* freed without clearing the owner: the checker must say so */
	CHECK(mpm_free_pages(m, pfn, 0, 0) == 0);
	CHECK(mpm_check(m, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "still has owner 7") != NULL);
	mpm_rmap_clear(m, pfn);
	CHECK(tm_check(m) == 0);
	mpm_machine_destroy(m);
	return t_report("core/rmap");
}
