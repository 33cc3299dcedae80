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
};

/* Fork the instances; they run as the simulation advances. */
int mpm_ebizzy_start(struct ksim *k, const struct mpm_ebizzy_params *p,
		     void (*on_exit)(struct ksim *, struct kprocess *));

#endif /* MPM_SIM_EBIZZY_H */
