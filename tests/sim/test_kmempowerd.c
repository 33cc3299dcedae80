// SPDX-License-Identifier: MIT
/*
 * kmempowerd in the kernel model (policy full): ebizzy on a small machine
 * with every checker at every sample; the free path queues regions, the
 * thread evacuates them, pages move and no owned page is lost; and the end-
 * of-run mismatch count does see a corrupted reverse map; the time the thread
 * charges, and the cpu it runs on.  With evac_drain
 * (not the patchset) kmempowerd drains its cpu's pcp lists after a round.
 */
#include "ksim_helpers.h"

static void first_owned(struct mpm_run *r, uint64_t *pfn)
{
	for (size_t p = 0; p < r->k->nr_procs; p++) {
		struct kmm *mm = r->k->procs[p]->mm;

		for (size_t v = 0; mm && v < mm->nr_vmas; v++)
			for (uint32_t i = 0; i < mm->vmas[v]->npages; i++)
				if (mm->vmas[v]->pfn[i] != NO_PFN32) {
					*pfn = mm->vmas[v]->pfn[i];
					return;
				}
	}
	*pfn = MPM_NO_PFN;
}

/*
 * The time kmempowerd charges (kmempowerd.c's ESTIMATEs): 2 ns per pfn
 * walked, 2 us plus the machine's 4 KiB copy per page migrated, 0.5 us per
 * page reclaimed; and where it runs: one thread per node, on the node's
 * last cpu, whose CPU time is that charge.  Its threads are the model's
 * only tasks without a process.
 */
static void check_kmempowerd_charge(const struct ksim *k)
{
	uint64_t cpu_ns = 0;
	unsigned int threads = 0;

	CHECK_EQ_U(k->c.kmempowerd_ns, k->c.evac_scanned * 2 +
		   k->c.migrated * (2000 + k->p.copy_ns_per_page) + k->c.reclaimed * 500);
	CHECK(k->c.migrated > 0 && k->p.copy_ns_per_page > 0);
	for (size_t i = 0; i < k->nr_tasks; i++) {
		const struct ktask *t = k->tasks[i];

		if (t->proc)
			continue;
		threads++;
		cpu_ns += t->cpu_ns;
		for (unsigned int c = t->cpu + 1; c < k->nr_cpus; c++)
			CHECK(mpm_cpu_to_node(k->m, c) != mpm_cpu_to_node(k->m, t->cpu));
	}
	CHECK_EQ_U(threads, mpm_nr_nodes(k->m));
	CHECK_EQ_U(cpu_ns, k->c.kmempowerd_ns);
}

int main(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	uint64_t owner_bad, content_bad, pfn;
	uint32_t owner, index, content;

	machine(&s, 1u << 17, 4);	/* 2 x 512 MiB, 32 MiB regions */
	REQUIRE(!mpm_policy_features("full", &s.features));
	CHECK(run_seeded(&r, &c, "ebizzy:s=8M,n=2,t=4,S=4,instances=3", &s, 60, true, 3) == 0);
	CHECK(r.counters.evac_queued > 0);
	CHECK_EQ_U(r.counters.evacuations, r.k->c.evac_run);
	/* every region queued was evacuated, passed over, or is still queued */
	CHECK_EQ_U(r.counters.evac_queued, r.k->c.evac_run + r.k->c.evac_skipped_free +
					   r.k->c.evac_skipped_used + r.counters.evac_pending);
	CHECK(r.counters.evacuations > 0);
	CHECK(r.counters.migrated > 0);
	CHECK_EQ_U(r.k->c.migrated, r.counters.migrated);
	CHECK(r.k->c.kmempowerd_ns > 0);
	check_kmempowerd_charge(r.k);
	CHECK_EQ_U(r.owner_mismatches, 0);
	CHECK_EQ_U(r.content_mismatches, 0);
	check_conservation(&r);
	printf("sim/kmempowerd: queued %llu, runs %llu (aborted %llu), migrated %llu, reclaimed %llu, "
	       "failed %llu, %.6f s of CPU\n", (unsigned long long)r.counters.evac_queued,
	       (unsigned long long)r.counters.evacuations,
	       (unsigned long long)r.counters.evac_aborted,
	       (unsigned long long)r.counters.migrated, (unsigned long long)r.counters.reclaimed,
	       (unsigned long long)r.counters.migrate_failed, r.k->c.kmempowerd_ns / 1e9);

	/* the end-of-run proof sees a page whose content or owner changed */
	first_owned(&r, &pfn);
	if (pfn != MPM_NO_PFN) {
		owner = mpm_rmap_get(r.m, pfn, &index, &content);
		mpm_rmap_set(r.m, pfn, owner, index, content + 1);
		ksim_count_mismatches(r.k, &owner_bad, &content_bad);
		CHECK_EQ_U(content_bad, 1);
		CHECK_EQ_U(owner_bad, 0);
		mpm_rmap_set(r.m, pfn, owner, index + 1, content);
		ksim_count_mismatches(r.k, &owner_bad, &content_bad);
		CHECK_EQ_U(owner_bad, 1);
		mpm_rmap_set(r.m, pfn, owner, index, content);
	}
	mpm_run_fini(&r);

	/*
	 * evac_drain: the same run, but kmempowerd drains its cpu's lists
	 * after each round; the drains return pages (its sources and what the
	 * workload freed on that cpu), and no owned page is lost
	 */
	s.features |= MPM_FEATURE_EVAC_DRAIN;
	CHECK(run_seeded(&r, &c, "ebizzy:s=8M,n=2,t=4,S=4,instances=3", &s, 60, true, 3) == 0);
	CHECK(r.counters.evacuations > 0);
	CHECK(r.counters.migrated > 0);
	CHECK(r.k->c.evac_drained > 0);
	CHECK_EQ_U(r.owner_mismatches, 0);
	CHECK_EQ_U(r.content_mismatches, 0);
	check_conservation(&r);
	printf("sim/kmempowerd: with evac_drain, migrated %llu, drained %llu\n",
	       (unsigned long long)r.counters.migrated, (unsigned long long)r.k->c.evac_drained);
	mpm_run_fini(&r);
	return t_report("sim/kmempowerd");
}
