// SPDX-License-Identifier: MIT
/*
 * pagetest (the v1/v2 experiments): one process allocates SIZE, touches
 * every page, holds it for HOLD seconds, then frees it (free=1) and exits,
 * or keeps it to the end of the run (free=0).
 */
#include "sim/workload_progs.h"

#include <stdlib.h>

enum pt_state { PT_MMAP, PT_TOUCH, PT_HOLD, PT_FREE, PT_DONE };

struct pt_prog {
	const struct mpm_pagetest_wl *p;
	enum pt_state state;
	struct kvma *buf;
	uint32_t pos;
};

static uint64_t run_pagetest(struct ksim *k, struct ktask *t, uint64_t budget)
{
	struct pt_prog *g = t->prog;
	uint64_t used = 0;
	bool done;

	while (used < budget && t->state == TASK_RUNNABLE && !k->failed) {
		switch (g->state) {
		case PT_MMAP:
			g->buf = ksim_mmap(k, t, (uint32_t)(g->p->size / MPM_PAGE_SIZE));
			if (!g->buf)
				return used;
			g->state = PT_TOUCH;
			break;
		case PT_TOUCH:
			used += ksim_fault_range(k, t, g->buf, &g->pos, g->buf->npages, 0,
						 budget - used);
			if (t->state == TASK_RUNNABLE && g->pos == g->buf->npages) {
				g->state = g->p->free ? PT_FREE : PT_DONE;
				ksim_sleep(k, t, k->now + g->p->hold * NSEC_PER_SEC);
			}
			return used;
		case PT_FREE:
			used += ksim_munmap(k, t, g->buf, budget - used, &done);
			if (done) {
				g->state = PT_DONE;
				ksim_exit_task(k, t);
			}
			return used;
		case PT_DONE:	/* free=0: keep the memory to the end of the run */
			ksim_sleep(k, t, UINT64_MAX - 1);
			return used;
		default:
			return used;
		}
	}
	return used;
}

int mpm_pagetest_start(struct ksim *k, const struct mpm_pagetest_wl *p,
		       void (*on_exit)(struct ksim *, struct kprocess *))
{
	struct pt_prog *g = calloc(1, sizeof(*g));
	struct kprocess *proc;

	if (!g)
		return -1;
	g->p = p;
	proc = ksim_fork(k, 1, NULL, on_exit);
	if (!proc) {
		free(g);
		return -1;
	}
	if (!ksim_spawn(k, proc, run_pagetest, g)) {
		free(g);	/* a failed spawn leaves @g the caller's */
		return -1;
	}
	return k->failed ? -1 : 0;
}
