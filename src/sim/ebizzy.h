/* SPDX-License-Identifier: MIT */
/* The ebizzy workload (ebizzy.c). */
#ifndef MPM_SIM_EBIZZY_H
#define MPM_SIM_EBIZZY_H

#include "sim/ksim.h"

struct mpm_ebizzy_params {
	uint64_t size;			/* -s: chunk and copy size, bytes */
	unsigned int chunks;		/* -n */
	unsigned int threads;		/* -t */
	unsigned int seconds;		/* -S */
	unsigned int instances;		/* processes run side by side */
	/*
	 * Timing perturbation, not part of ebizzy: each search_mem iteration's
	 * memcpy costs copy_ns_per_page times 1 + jitter * U(-1, 1), drawn from
	 * the run's seeded generator, so that seeds give runs whose threads
	 * drift apart as real ones do.  0 (the default) draws nothing: every
	 * seed then gives the same run.
	 */
	double jitter;
};

/* Fork the instances; they run as the simulation advances. */
int mpm_ebizzy_start(struct ksim *k, const struct mpm_ebizzy_params *p,
		     void (*on_exit)(struct ksim *, struct kprocess *));

#endif /* MPM_SIM_EBIZZY_H */
