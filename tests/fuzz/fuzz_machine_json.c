// SPDX-License-Identifier: MIT
/*
 * Machine files (docs/machine-json.md), as `--machine FILE.json` reads them:
 * any bytes either load into a spec or are rejected with a message.  A spec
 * that loads and spans at most 1 GiB is then built under each policy, and
 * the allocator must keep its invariants through allocations of every order
 * on every zone type and CPU, frees and a drain: mpm_check() after each
 * phase, and the kernel-format reports must print with the allocations
 * live.  This is where odd layouts (holes, tiny zones, unaligned and
 * node-relative regions, many nodes) meet the core.
 */
#include <mempower/mempower.h>

#include "fuzz.h"
#include "io/machine_spec.h"
#include "outputs.h"

#define MAX_SPAN_PAGES	(1ull << 18)	/* 1 GiB: a fast machine per input */
#define NR_ALLOCS	48

static void check(struct mpm_machine *m, const char *policy, const char *phase)
{
	char msg[512];

	if (mpm_check(m, msg, sizeof(msg)))
		fuzz_fail("%s, %s: %s", policy, phase, msg);
}

static const mpm_gfp_t gfps[] = {
	MPM_GFP_KERNEL, MPM_GFP_HIGHUSER_MOVABLE, MPM_GFP_TEMPORARY,
	MPM_GFP_KERNEL | MPM___GFP_DMA32, MPM_GFP_KERNEL | MPM___GFP_DMA,
};

static void exercise(const struct mpm_machine_spec *spec, const char *policy)
{
	struct mpm_machine_spec s = *spec;
	unsigned int cpus = s.nr_cpus ? s.nr_cpus : 1;
	uint64_t pfns[NR_ALLOCS];
	struct mpm_machine *m;
	char err[512];

	if (mpm_policy_features(policy, &s.features))
		fuzz_fail("policy %s unknown", policy);
	m = mpm_machine_create(&s, err, sizeof(err));
	if (!m) {
		fuzz_require_message("mpm_machine_create", err);
		return;
	}
	check(m, policy, "boot");
	for (unsigned int i = 0; i < NR_ALLOCS; i++)
		pfns[i] = mpm_alloc_pages(m, gfps[i % 5], i % MPM_MAX_ORDER, i % cpus);
	check(m, policy, "allocations");
	fuzz_print_stats(m);
	for (unsigned int i = 0; i < NR_ALLOCS; i++)
		if (pfns[i] != MPM_NO_PFN && mpm_free_pages(m, pfns[i], i % MPM_MAX_ORDER, i % cpus))
			fuzz_fail("%s: free of an allocated block refused", policy);
	check(m, policy, "frees");
	mpm_drain_all_pages(m);
	check(m, policy, "drain");
	mpm_machine_destroy(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const policies[] = { "mainline", "sorted", "split", "full" };
	struct mpm_machine_opts o = { .machine = fuzz_write_file("machine", data, size) };
	struct mpm_spec_buf b;
	char err[512];

	mpm_spec_buf_init(&b);
	if (mpm_machine_spec_build(&o, &b, err, sizeof(err))) {
		fuzz_require_message("mpm_machine_spec_build", err);
	} else if (b.spec.zones[b.spec.nr_zones - 1].end_pfn - b.spec.zones[0].start_pfn <=
		   MAX_SPAN_PAGES) {
		for (unsigned int p = 0; p < 4; p++)
			exercise(&b.spec, policies[p]);
	}
	mpm_spec_buf_free(&b);
	unlink(o.machine);
	return 0;
}
