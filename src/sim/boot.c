// SPDX-License-Identifier: MIT
/*
 * An idle server after boot.  The kernel image and the memmap never reach
 * the page allocator (they are reserved ranges of the machine spec, see
 * experiment.c).  What does: the page cache of the files read at boot
 * (binaries, libraries, configuration), their dentries and inodes, and the
 * daemons that stay resident with their anonymous memory, stacks and page
 * tables.  No published /proc/meminfo of the 2013 machine exists, so the
 * sizes are estimates, stated in docs/sim-parameters.md, and scale with
 * memory: 1 daemon and 4 MiB of boot page cache per GiB.
 */
#include "sim/workload_progs.h"

#include <stdlib.h>

#define DAEMON_ANON_PAGES	512	/* 2 MiB of heap and stack each */
#define CACHE_PAGES_PER_GIB	1024	/* 4 MiB of page cache per GiB */
#define FILE_PAGES		64	/* files of 256 KiB */

struct daemon_prog {
	struct kvma *heap;
	uint32_t pos;
};

/* A daemon touches its memory once, then sleeps for the rest of the run. */
static uint64_t run_daemon(struct ksim *k, struct ktask *t, uint64_t budget)
{
	struct daemon_prog *g = t->prog;
	uint64_t used;

	if (!g->heap && !(g->heap = ksim_mmap(k, t, DAEMON_ANON_PAGES)))
		return 0;
	used = ksim_fault_range(k, t, g->heap, &g->pos, g->heap->npages, 0, budget);
	if (t->state == TASK_RUNNABLE && g->pos == g->heap->npages)
		ksim_sleep(k, t, UINT64_MAX - 1);
	return used;
}

int mpm_boot_idle_system(struct ksim *k)
{
	uint64_t gib = mpm_total_pages(k->m) >> 18;
	uint64_t cache = gib * CACHE_PAGES_PER_GIB;
	unsigned int daemons = (unsigned int)(gib ? gib : 1);

	/* boot reads files on whichever cpu runs init; spread them round robin */
	for (uint64_t done = 0, i = 0; done < cache && !k->failed; done += FILE_PAGES, i++) {
		struct kfile *f = ksim_new_file(k, FILE_PAGES, (unsigned int)(i % k->nr_cpus));

		if (f)
			ksim_read_file(k, f, 0, FILE_PAGES, (unsigned int)(i % k->nr_cpus), false);
	}
	for (unsigned int d = 0; d < daemons && !k->failed; d++) {
		struct daemon_prog *g = calloc(1, sizeof(*g));
		struct kprocess *p = ksim_fork(k, 1, NULL, NULL);

		if (!g || !p) {
			free(g);
			return -1;
		}
		ksim_spawn(k, p, run_daemon, g);
	}
	/* let them fault their memory in */
	ksim_run_until(k, k->now + 2 * NSEC_PER_SEC);
	return k->failed ? -1 : 0;
}
