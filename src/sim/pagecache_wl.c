// SPDX-License-Identifier: MIT
/*
 * pagecache: streaming reads of files larger than memory, `cat FILE >
 * /dev/null` or `dd bs=128k` passes times per file, one reader process per
 * file.  Each read(2) is 128 KiB (the readahead window, VM_MAX_READAHEAD):
 * the misses are read in (the reader sleeps for the disk) into cold pages,
 * the copy to the reader's buffer is CPU time.  Nothing frees the cache but
 * reclaim: kswapd once the allocator's slow path finds a zone below its
 * high watermark, direct reclaim when an allocation fails.  The files stay
 * (with what is still cached) after the readers exit.  Sources:
 * docs/sim-parameters.md section 10.
 */
#include "sim/workload_progs.h"

#include <stdlib.h>

#define CHUNK_PAGES	32	/* VM_MAX_READAHEAD 128 KiB; also the read size */

enum pc_state { PC_BUF, PC_READ, PC_DONE };

struct pc_prog {
	struct kfile *f;
	unsigned int passes, pass;
	enum pc_state state;
	struct kvma *buf;
	uint32_t bpos, pos;
	uint64_t debt;
};

static uint64_t run_reader(struct ksim *k, struct ktask *t, uint64_t budget)
{
	struct pc_prog *g = t->prog;
	uint64_t used = 0;

	while (used < budget && t->state == TASK_RUNNABLE && !k->failed) {
		uint64_t io = 0;
		uint32_t to;

		if (ksim_pay_debt(&g->debt, budget, &used))
			continue;
		switch (g->state) {
		case PC_BUF:		/* the read buffer, written by every read */
			if (!g->buf && !(g->buf = ksim_mmap(k, t, CHUNK_PAGES)))
				return used;
			used += ksim_fault_range(k, t, g->buf, &g->bpos, g->buf->npages, 0,
						 budget - used);
			if (t->state != TASK_RUNNABLE)
				return used;
			if (g->bpos == g->buf->npages)
				g->state = PC_READ;
			break;
		case PC_READ:
			if (g->pos >= g->f->npages) {
				g->pos = 0;
				if (++g->pass == g->passes) {
					g->state = PC_DONE;
					ksim_exit_task(k, t);
					return used;
				}
				break;
			}
			to = g->pos + CHUNK_PAGES < g->f->npages ? g->pos + CHUNK_PAGES :
								  g->f->npages;
			g->debt = wl_read_file(k, t, g->f, g->pos, to, &io);
			g->pos = to;
			break;
		default:
			return used;
		}
		if (io)
			ksim_sleep(k, t, k->now + io);
	}
	return used;
}

int mpm_pagecache_start(struct ksim *k, const struct mpm_pagecache_wl *p,
			void (*on_exit)(struct ksim *, struct kprocess *))
{
	uint64_t pages = p->size ? p->size / MPM_PAGE_SIZE : mpm_total_pages(k->m) * 5 / 4;

	if (pages > UINT32_MAX - 1)
		pages = UINT32_MAX - 1;
	for (unsigned int i = 0; i < p->files; i++) {
		struct pc_prog *g = calloc(1, sizeof(*g));
		struct kprocess *proc;

		if (!g) {
			ksim_fail(k, "out of memory in the simulator");
			return -1;
		}
		g->passes = p->passes;
		g->f = ksim_new_file(k, (uint32_t)pages, i % k->nr_cpus);
		proc = g->f ? ksim_fork(k, 1, NULL, on_exit) : NULL;
		if (!proc || !ksim_spawn(k, proc, run_reader, g)) {
			free(g);
			return -1;
		}
	}
	return k->failed ? -1 : 0;
}
