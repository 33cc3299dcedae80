// SPDX-License-Identifier: MIT
/* The human summary of a run, printed when no --json goes to stdout. */
#include "cli.h"
#include "sim/size.h"
#include "sim/ksim.h"

void mpm_cli_summary(FILE *out, const char *machine, const struct mpm_run *run,
		     const struct mpm_power_result *p)
{
	const struct mpm_run_config *c = run->cfg;
	const struct mpm_counters *k = &run->counters;
	uint64_t pages = mpm_total_pages(run->m);
	char rs[32];

	fprintf(out, "machine   %s: %u node%s, %.2f GiB present (%llu pages), %u cpus, %s regions\n",
		machine, mpm_nr_nodes(run->m), mpm_nr_nodes(run->m) == 1 ? "" : "s",
		(double)(pages * MPM_PAGE_SIZE) / (double)(1ull << 30),
		(unsigned long long)pages, mpm_nr_cpus(run->m),
		mpm_format_size(mpm_region_pages(run->m) * MPM_PAGE_SIZE, rs, sizeof(rs)));
	fprintf(out, "policy    %s\n", c->policy);
	if (c->workload.kind == MPM_WORKLOAD_NONE)
		fprintf(out, "workload  none: the state after boot (one sample, t = 0)\n");
	else if (run->k)
		fprintf(out, "workload  %s: seed %llu, ended at %g of at most %g virtual s\n",
			c->workload_str, (unsigned long long)c->seed, run->end_t, c->duration);
	else
		fprintf(out, "workload  %s: seed %llu, %g virtual s, %llu ops\n", c->workload_str,
			(unsigned long long)c->seed, c->duration, (unsigned long long)run->ops);
	fprintf(out, "regions   free: start %u, end %u, min %u of %u\n",
		run->free_regions_start, run->free_regions_end, run->free_regions_min,
		run->regions_total);
	fprintf(out, "counters  allocs %llu, frees %llu, failures %llu, fallbacks %llu, pageblock claims %llu\n",
		(unsigned long long)k->allocs, (unsigned long long)k->frees,
		(unsigned long long)k->alloc_failures, (unsigned long long)k->fallbacks,
		(unsigned long long)k->pageblock_claims);
	if (run->k)
		fprintf(out, "kernel    %llu processes, %llu faults (%llu THP), %llu page-table pages, "
			"%llu OOM kills, %llu pages reclaimed\n",
			(unsigned long long)run->k->c.processes,
			(unsigned long long)run->k->c.faults,
			(unsigned long long)run->k->c.thp_faults,
			(unsigned long long)run->k->c.pte_pages,
			(unsigned long long)run->k->c.oom_kills,
			(unsigned long long)(run->k->c.kswapd_reclaimed + run->k->c.direct_reclaimed));
	if (p) {
		double t = p->duration_s > 0 ? p->duration_s : 1;

		double dt = t * (p->nr_domains ? p->nr_domains : 1);

		fprintf(out, "power     %s: DRAM %.1f J over %g s = %.3f W in %u domains; "
			"self-refresh %.1f %%, power-down %.1f %%, standby %.1f %%, off %.1f %% "
			"of domain time; migration %.3f J\n", p->spec.name, p->dram_j, p->duration_s,
			p->dram_avg_w, p->nr_domains, 100 * p->state_s[MPM_PS_SR] / dt,
			100 * p->state_s[MPM_PS_PRE_PD] / dt,
			100 * (p->state_s[MPM_PS_PRE_STBY] + p->state_s[MPM_PS_ACT_STBY]) / dt,
			100 * p->state_s[MPM_PS_OFF] / dt, p->migration_j);
	}
	fprintf(out, "wall      %.3f s\n", run->wall_seconds);
}
