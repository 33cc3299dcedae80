// SPDX-License-Identifier: MIT
// The public headers from C++: every declaration has C linkage, so a C++
// program links against the C library (the build compiles this only where
// a C++ compiler is found).
#include <cstdio>

#include <mempower/mempower.h>

int main()
{
	mpm_zone_spec zone = { 0, MPM_ZONE_NORMAL, 0, 1u << 16 };
	mpm_machine_spec spec = {};
	char err[256];

	spec.nr_nodes = 1;
	spec.nr_zones = 1;
	spec.zones = &zone;
	spec.nr_cpus = 1;
	spec.region_shift = 12;
	mpm_machine *m = mpm_machine_create(&spec, err, sizeof(err));
	if (!m) {
		std::fprintf(stderr, "lib_cxx: %s\n", err);
		return 1;
	}
	uint64_t pfn = mpm_alloc_pages(m, MPM_GFP_KERNEL, 0, 0);
	int bad = pfn == MPM_NO_PFN || mpm_free_pages(m, pfn, 0, 0) ||
		  mpm_check(m, err, sizeof(err));
	mpm_machine_destroy(m);
	if (bad) {
		std::fprintf(stderr, "lib_cxx: allocation, free or check failed\n");
		return 1;
	}
	std::printf("lib_cxx: ok (%s)\n", mpm_version());
	return 0;
}
