// SPDX-License-Identifier: MIT
/*
 * A program linked against the installed static library that defines
 * functions named like the library's internals (mm/page_alloc.c's names):
 * the library must neither call them nor clash with them.  Before the
 * archive was prelinked with its hidden symbols made local, the library's
 * machine set-up called this build_all_zonelists and failed.
 */
#include <stdio.h>
#include <stdlib.h>

#include <mempower/mempower.h>

static int called;

/* same names as functions of src/core, other meanings */
void build_all_zonelists(void);
int __rmqueue(int);
void free_one_page(void);
void __free_one_page(void);

void build_all_zonelists(void) { called++; }
int __rmqueue(int x) { called++; return x; }
void free_one_page(void) { called++; }
void __free_one_page(void) { called++; }

static int fail(const char *what)
{
	fprintf(stderr, "lib_collide: %s\n", what);
	return 1;
}

int main(void)
{
	struct mpm_zone_spec zone = { 0, MPM_ZONE_NORMAL, 0, 1u << 16 };
	struct mpm_machine_spec spec = { .nr_nodes = 1, .nr_zones = 1, .zones = &zone,
					 .region_shift = 12, .nr_cpus = 1 };
	char err[256];
	struct mpm_machine *m;
	uint64_t pfn[4];

	if (mpm_policy_features("full", &spec.features))
		return fail("no policy full");
	m = mpm_machine_create(&spec, err, sizeof(err));
	if (!m)
		return fprintf(stderr, "lib_collide: %s\n", err), 1;
	for (unsigned int i = 0; i < 4; i++)
		if ((pfn[i] = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, i, 0)) == MPM_NO_PFN)
			return fail("allocation failed");
	for (unsigned int i = 0; i < 4; i++)
		if (mpm_free_pages(m, pfn[i], i, 0))
			return fail("free refused");
	if (mpm_check(m, err, sizeof(err)))
		return fprintf(stderr, "lib_collide: %s\n", err), 1;
	mpm_machine_destroy(m);
	/* the program's own functions still work, and were never called */
	if (called || __rmqueue(7) != 7 || called != 1)
		return fail("the library called the program's functions");
	puts("lib_collide: ok");
	return 0;
}
