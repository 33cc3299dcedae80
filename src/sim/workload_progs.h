/* SPDX-License-Identifier: MIT */
/* Workload programs that run on ksim, and the idle system they run on. */
#ifndef MPM_SIM_WORKLOAD_PROGS_H
#define MPM_SIM_WORKLOAD_PROGS_H

#include "sim/ksim.h"
#include "sim/workload.h"

int mpm_pagetest_start(struct ksim *k, const struct mpm_pagetest_wl *p,
		       void (*on_exit)(struct ksim *, struct kprocess *));

/*
 * The system as it sits idle after boot: daemons with their anonymous
 * memory and the page cache and slab of what was read at boot, sized from
 * the machine (boot.c; figures in docs/sim-parameters.md).
 */
int mpm_boot_idle_system(struct ksim *k);

#endif /* MPM_SIM_WORKLOAD_PROGS_H */
