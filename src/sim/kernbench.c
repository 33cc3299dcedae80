// SPDX-License-Identifier: MIT
/*
 * kernbench: `make -jJOBS` of a kernel tree, as kernbench 0.42 times it
 * (the tree cached by a `cat` of every file first, then the build).
 *
 * The tree is files .c files and headers .h files on disk; make stats every
 * prerequisite, so each has its inode and dentry from the start and no page
 * cached until read.  make (one process) builds its graph in a small heap,
 * optionally reads the whole tree, then keeps up to jobs compiles running,
 * starting one each time a child exits (wait(2): the child's exit wakes it).
 * A compile is one process for kbuild's rule_cc_o_c: exec of gcc, cc1 and as
 * (their text read through the page cache, shared by every compile), read
 * its .c file and includes headers (most-included headers more often), grow
 * the cc1 heap over its CPU time (both in proportion to the size of the .c
 * file, so that the jobs drift apart; the means are heap and cpu), write the -MD dependency file and the
 * object, fixdep (read the .d file, write .cmd, rm -f the .d file) and exit,
 * exit_mmap freeing the heap.  The build ends when every unit is compiled.
 * Sizes and their sources: docs/sim-parameters.md section 9.
 */
#include "sim/workload_progs.h"

#include <stdlib.h>

#define TOOL_PAGES	2048	/* gcc + cc1 + as pages touched per compile: 8 MiB */
#define MAKE_HEAP_PAGES	512	/* make's graph: 2 MiB */
#define FORK_NS		(200 * NSEC_PER_USEC)	/* make: fork + exec of a job */
#define DEP_BYTES	50	/* one .d / .cmd line per dependency */
#define SRC_PAGES_MAX	8	/* .c sizes 1..8 pages: mean 4.5 = 18 KiB */
#define HDR_PAGES_MAX	2	/* .h sizes 1..2 pages: mean 1.5 = 6 KiB */
#define COMPILE_STEP_PAGES	16	/* heap pages faulted between CPU bursts */

enum mk_state { MK_HEAP, MK_PRIME, MK_RUN, MK_DONE };
enum cc_state { CC_EXEC, CC_SOURCE, CC_HEADERS, CC_MMAP, CC_COMPILE, CC_DEPFILE,
		CC_OBJECT, CC_FIXDEP, CC_EXIT, CC_DONE };

struct kb_make {
	struct mpm_kernbench_wl p;	/* jobs resolved */
	struct ktask *task;
	enum mk_state state;
	struct kvma *heap;
	uint32_t heap_pos;
	uint32_t cc_heap_pages, dep_pages;
	uint64_t cc_ns_per_page;	/* cc1 CPU time per heap page grown */
	uint64_t debt;
	unsigned int prime_pos;		/* next file to cat */
	unsigned int next, running, done, killed;
	struct kfile *tool;
	struct kfile **src, **hdr;
	struct kfile *files[];		/* src[files] then hdr[headers] */
};

struct kb_cc {
	struct kb_make *mk;
	enum cc_state state;
	unsigned int unit, inc;
	struct kvma *heap;
	uint32_t pos;
	uint64_t debt;
	struct kfile *dep;
};

/* Headers by popularity: index headers * u^3, so linux/kernel.h & co. first. */
static struct kfile *pick_header(struct ksim *k, struct kb_make *mk)
{
	double u = mpm_rng_double(k->rng);
	uint64_t i = (uint64_t)((double)mk->p.headers * u * u * u);

	return mk->hdr[i < mk->p.headers ? i : mk->p.headers - 1];
}

static uint64_t run_cc(struct ksim *k, struct ktask *t, uint64_t budget)
{
	struct kb_cc *g = t->prog;
	struct kb_make *mk = g->mk;
	uint64_t used = 0;

	while (used < budget && t->state == TASK_RUNNABLE && !k->failed) {
		uint64_t io = 0;
		struct kfile *f;

		if (ksim_pay_debt(&g->debt, budget, &used))
			continue;
		switch (g->state) {
		case CC_EXEC:
			g->debt = wl_read_file(k, t, mk->tool, 0, mk->tool->npages, &io);
			g->state = CC_SOURCE;
			break;
		case CC_SOURCE:
			f = mk->src[g->unit];
			g->debt = wl_read_file(k, t, f, 0, f->npages, &io);
			g->state = CC_HEADERS;
			break;
		case CC_HEADERS:
			if (g->inc == mk->p.includes) {
				g->state = CC_MMAP;
				break;
			}
			g->inc++;
			f = pick_header(k, mk);
			g->debt = wl_read_file(k, t, f, 0, f->npages, &io);
			break;
		case CC_MMAP: {
			/* heap and CPU time scale with the unit's source size; mean kept */
			uint64_t pages = (uint64_t)mk->cc_heap_pages * 2 * mk->src[g->unit]->npages /
					 (SRC_PAGES_MAX + 1);

			g->heap = ksim_mmap(k, t, pages ? (uint32_t)pages : 1);
			if (!g->heap)
				return used;
			g->state = CC_COMPILE;
			break;
		}
		case CC_COMPILE: {	/* the heap grows as cc1 works */
			/*
			 * A few pages at a time, each followed by its share of
			 * cc1's CPU time as debt: paid exactly, where a large
			 * per-page cost inside ksim_fault_range would overshoot
			 * the budget by up to a page each call.
			 */
			uint32_t from = g->pos, to = g->pos + COMPILE_STEP_PAGES;

			used += ksim_fault_range(k, t, g->heap, &g->pos,
						 to < g->heap->npages ? to : g->heap->npages,
						 0, budget - used);
			g->debt = (uint64_t)(g->pos - from) * mk->cc_ns_per_page;
			if (t->state != TASK_RUNNABLE)
				return used;
			if (g->pos == g->heap->npages)
				g->state = CC_DEPFILE;
			break;
		}
		case CC_DEPFILE:	/* -Wp,-MD,$(depfile) */
			g->dep = ksim_new_file(k, mk->dep_pages, t->cpu);
			if (!g->dep)
				return used;
			g->debt = ksim_write_file(k, g->dep, 0, g->dep->npages, t->cpu);
			g->state = CC_OBJECT;
			break;
		case CC_OBJECT:		/* as writes the object, the size of the source */
			f = ksim_new_file(k, mk->src[g->unit]->npages, t->cpu);
			if (!f)
				return used;
			g->debt = ksim_write_file(k, f, 0, f->npages, t->cpu);
			g->state = CC_FIXDEP;
			break;
		case CC_FIXDEP:		/* fixdep > .tmp; rm -f $(depfile); mv .tmp .cmd */
			g->debt = wl_read_file(k, t, g->dep, 0, g->dep->npages, &io);
			f = ksim_new_file(k, mk->dep_pages, t->cpu);
			if (!f)
				return used;
			g->debt += ksim_write_file(k, f, 0, f->npages, t->cpu);
			ksim_delete_file(k, g->dep, t->cpu);
			g->dep = NULL;
			g->state = CC_EXIT;
			break;
		case CC_EXIT:		/* exit_mmap of the heap, then the task goes */
			g->debt = k->p.exit_ns_per_page * (g->heap ? g->heap->rss : 0);
			g->state = CC_DONE;
			break;
		case CC_DONE:
			ksim_exit_task(k, t);
			return used;
		}
		if (io)
			ksim_sleep(k, t, k->now + io);
	}
	return used;
}

/* A compile has exited (or was OOM-killed): make's wait(2) returns. */
static void cc_exit(struct ksim *k, struct kprocess *p)
{
	struct kb_cc *g = p->threads[0]->prog;
	struct kb_make *mk = g->mk;

	mk->running--;
	mk->done++;
	mk->killed += p->killed;
	ksim_wake_up(k, mk->task);
}

static int start_cc(struct ksim *k, struct kb_make *mk)
{
	struct kb_cc *g = calloc(1, sizeof(*g));
	struct kprocess *p;

	if (!g) {
		ksim_fail(k, "out of memory in the simulator");
		return -1;
	}
	g->mk = mk;
	g->unit = mk->next;
	p = ksim_fork(k, 1, NULL, cc_exit);
	if (!p || !ksim_spawn(k, p, run_cc, g)) {
		free(g);
		return -1;
	}
	mk->next++;
	mk->running++;
	return 0;
}

static uint64_t run_make(struct ksim *k, struct ktask *t, uint64_t budget)
{
	struct kb_make *mk = t->prog;
	uint64_t used = 0;

	while (used < budget && t->state == TASK_RUNNABLE && !k->failed) {
		uint64_t io = 0;
		struct kfile *f;

		if (ksim_pay_debt(&mk->debt, budget, &used))
			continue;
		switch (mk->state) {
		case MK_HEAP:		/* read the Makefiles, build the graph */
			if (!mk->heap &&
			    !(mk->heap = ksim_mmap(k, t, MAKE_HEAP_PAGES)))
				return used;
			used += ksim_fault_range(k, t, mk->heap, &mk->heap_pos, mk->heap->npages,
						 0, budget - used);
			if (t->state != TASK_RUNNABLE)
				return used;
			if (mk->heap_pos == mk->heap->npages)
				mk->state = mk->p.prime ? MK_PRIME : MK_RUN;
			break;
		case MK_PRIME:		/* for i in `find -type f`; do cat $i > /dev/null; done */
			if (mk->prime_pos == mk->p.files + mk->p.headers) {
				mk->state = MK_RUN;
				break;
			}
			f = mk->files[mk->prime_pos++];
			mk->debt = wl_read_file(k, t, f, 0, f->npages, &io);
			break;
		case MK_RUN:
			if (mk->running < mk->p.jobs && mk->next < mk->p.files) {
				if (start_cc(k, mk))
					return used;
				mk->debt = FORK_NS;
				break;
			}
			if (!mk->running && mk->next == mk->p.files) {
				mk->state = MK_DONE;
				ksim_exit_task(k, t);
				return used;
			}
			ksim_sleep(k, t, UINT64_MAX);	/* until a child exits */
			return used;
		default:
			return used;
		}
		if (io)
			ksim_sleep(k, t, k->now + io);
	}
	return used;
}

int mpm_kernbench_start(struct ksim *k, const struct mpm_kernbench_wl *p,
			void (*on_exit)(struct ksim *, struct kprocess *))
{
	size_t n = (size_t)p->files + p->headers;
	struct kb_make *mk = calloc(1, sizeof(*mk) + n * sizeof(mk->files[0]));
	struct kprocess *proc;
	uint64_t dep_bytes = (uint64_t)p->includes * DEP_BYTES;

	if (!mk) {
		ksim_fail(k, "out of memory in the simulator");
		return -1;
	}
	mk->p = *p;
	if (!mk->p.jobs)
		mk->p.jobs = 2 * k->nr_cpus;
	mk->cc_heap_pages = (uint32_t)(p->heap / MPM_PAGE_SIZE);
	mk->cc_ns_per_page = (uint64_t)p->cpu_ms * NSEC_PER_MSEC / mk->cc_heap_pages;
	mk->dep_pages = (uint32_t)((dep_bytes + MPM_PAGE_SIZE - 1) / MPM_PAGE_SIZE);
	if (!mk->dep_pages)
		mk->dep_pages = 1;
	mk->src = mk->files;
	mk->hdr = mk->files + p->files;
	/* the tree on disk, every file stat'ed by make: inodes and dentries */
	mk->tool = ksim_new_file(k, TOOL_PAGES, 0);
	for (size_t i = 0; i < n && !k->failed; i++) {
		uint32_t max = i < p->files ? SRC_PAGES_MAX : HDR_PAGES_MAX;
		uint32_t pages = 1 + (uint32_t)mpm_rng_below(k->rng, max);

		mk->files[i] = ksim_new_file(k, pages, (unsigned int)(i % k->nr_cpus));
	}
	if (k->failed) {
		free(mk);
		return -1;
	}
	proc = ksim_fork(k, 1, NULL, on_exit);
	if (!proc || !(mk->task = ksim_spawn(k, proc, run_make, mk))) {
		free(mk);
		return -1;
	}
	return k->failed ? -1 : 0;
}
