// SPDX-License-Identifier: MIT
/*
 * ksim's default model parameters.  Each value, its source and its status
 * (CODE, MEASURED, DERIVED, ESTIMATE) is in docs/sim-parameters.md; the
 * comments here name the row.
 */
#include "sim/ksim.h"

static unsigned int ilog2u(unsigned int x)
{
	return 31u - (unsigned int)__builtin_clz(x);
}

void ksim_default_params(struct ksim_params *p, unsigned int nr_cpus)
{
	/* CFS: factor 1 + ilog2(min(ncpus, 8)) (SCHED_TUNABLESCALING_LOG) */
	unsigned int factor = 1 + ilog2u(nr_cpus < 8 ? (nr_cpus ? nr_cpus : 1) : 8);

	p->thp = false;
	p->quantum_ns = 100 * NSEC_PER_USEC;		/* simulation granularity */
	p->sched_latency_ns = 6 * NSEC_PER_MSEC * factor;	/* CODE: 6 ms x factor */
	p->sched_min_gran_ns = 750 * NSEC_PER_USEC * factor;	/* CODE: 0.75 ms x factor */
	p->sched_wakeup_gran_ns = 1 * NSEC_PER_MSEC * factor;	/* CODE: 1 ms x factor */
	p->sched_cfs = false;		/* round robin unless the workload asks */
	/* MEASURED: 5,896 MB/s single-thread copy on a dual E5-2670 */
	p->copy_ns_per_page = 695;
	/* ESTIMATE: trap + handle_mm_fault + clear_page of 4 KiB at ~7 GB/s */
	p->fault_ns = 1000;
	/* DERIVED: clear_huge_page, 2 MiB at ~7 GB/s */
	p->thp_fault_ns = 300 * NSEC_PER_USEC;
	/* ESTIMATE (unknown): page_remove_rmap + release_pages + pcp free */
	p->zap_ns_per_page = 100;
	p->exit_ns_per_page = 100;
	/* ESTIMATE: a cached 4 KiB read (copy_to_user) and a miss (disk I/O) */
	p->read_ns_per_page = 695;
	p->readin_ns_per_page = 50 * NSEC_PER_USEC;
}
