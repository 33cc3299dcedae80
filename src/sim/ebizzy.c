// SPDX-License-Identifier: MIT
/*
 * ebizzy 0.3 (as in LTP), as the cover-letter experiment ran it:
 * `ebizzy -s SIZE -n CHUNKS -t THREADS -S SECONDS`.
 *
 * main: malloc (glibc: mmap, SIZE + the 4 KiB chunk header) and write_pattern
 * each chunk, start the threads, sleep SECONDS, clear threads_go, join, exit.
 * thread (search_mem): while threads_go: malloc a SIZE copy buffer (mmap),
 * memcpy a chunk into it (every destination page write-faulted, then copied),
 * bsearch a key, free it (munmap).  An iteration that has begun runs to its
 * end.  ebizzy's rand_num() state is uninitialised, so every thread copies
 * the same chunk each time -- which does not matter here, the source is
 * only read.
 */
#include "sim/ebizzy.h"

#include <math.h>
#include <stdlib.h>

/* bsearch over SIZE / 8 records: about 25 probes, each a cache miss */
#define SEARCH_NS	(25 * 100)

enum ebz_state { EBZ_START, EBZ_FILL, EBZ_SPAWN, EBZ_SLEEP, EBZ_JOIN,
		 EBZ_MMAP, EBZ_COPY, EBZ_SEARCH, EBZ_UNMAP, EBZ_DONE };

struct ebz_instance {
	const struct mpm_ebizzy_params *p;
	struct mpm_ebizzy_params params;
	struct kprocess *proc;
	uint64_t stop_at;		/* threads_go cleared */
	bool go;
	struct kvma *chunk[16];
	unsigned int nr_chunks, filled;
};

struct ebz_prog {
	struct ebz_instance *in;
	enum ebz_state state;
	struct kvma *buf;
	uint32_t pos;
	uint64_t debt;			/* CPU time of an atomic step not yet paid */
	uint64_t iterations;
	uint64_t copy_ns;		/* this iteration's memcpy, per page */
};

static uint32_t buffer_pages(const struct mpm_ebizzy_params *p)
{
	/* glibc's mmapped chunk: the request plus a page for the header */
	return (uint32_t)(p->size / MPM_PAGE_SIZE) + 1;
}

static uint64_t run_worker(struct ksim *k, struct ktask *t, uint64_t budget);

/*
 * The memcpy cost per page of the iteration about to start: the model's,
 * or with jitter (mpm_ebizzy_params) that times 1 + jitter * U(-1, 1).
 * Without jitter nothing is drawn, so the run does not depend on the seed.
 */
static uint64_t iteration_copy_ns(struct ksim *k, const struct mpm_ebizzy_params *p)
{
	double u;

	if (p->jitter == 0)
		return k->p.copy_ns_per_page;
	u = 2 * mpm_rng_double(k->rng) - 1;
	return (uint64_t)llround((double)k->p.copy_ns_per_page * (1 + p->jitter * u));
}

/*
 * The DRAM traffic beyond the faults' clear_page (which ksim_fault_range
 * records): pages [from, to) of @dst written once more (write_pattern, or
 * memcpy's stores), and of @src read (memcpy's loads).
 */
/* Runs of pages in one pageblock are counted at once: the loop is per page. */
static void touch_run(struct ksim *k, const uint32_t *pfn, uint32_t from, uint32_t to,
		      unsigned int what)
{
	uint64_t blk = UINT64_MAX, first = 0;
	uint32_t n = 0;

	for (uint32_t i = from; i < to; i++) {
		if (pfn[i] == NO_PFN32)
			continue;
		if (pfn[i] >> k->touch_shift != blk) {
			if (n)
				ksim_touch_n(k, first, what, n);
			blk = pfn[i] >> k->touch_shift;
			first = pfn[i];
			n = 0;
		}
		n++;
	}
	if (n)
		ksim_touch_n(k, first, what, n);
}

static void touch_copy(struct ksim *k, const struct kvma *dst, const struct kvma *src,
		       uint32_t from, uint32_t to)
{
	if (!dst->pfn)
		return;		/* killed: the vma is gone */
	touch_run(k, dst->pfn, from, to, TOUCH_PAGE_WR);
	if (src && src->pfn)
		touch_run(k, src->pfn, from, to < src->npages ? to : src->npages, TOUCH_PAGE_RD);
}

/* bsearch: SEARCH_NS worth of probes, each one line of the copy */
static void touch_search(struct ksim *k, const struct kvma *buf)
{
	for (uint32_t j = 0; j < SEARCH_NS / 100; j++) {
		uint32_t i = (uint32_t)((uint64_t)buf->npages * (2 * j + 1) / (2 * (SEARCH_NS / 100)));

		if (buf->pfn[i] != NO_PFN32)
			ksim_touch(k, buf->pfn[i], TOUCH_LINE);
	}
}

static uint64_t run_main(struct ksim *k, struct ktask *t, uint64_t budget)
{
	struct ebz_prog *g = t->prog;
	struct ebz_instance *in = g->in;
	uint64_t used = 0;

	while (used < budget && t->state == TASK_RUNNABLE && !k->failed) {
		switch (g->state) {
		case EBZ_START:
			if (in->filled == in->nr_chunks) {
				g->state = EBZ_SPAWN;
				break;
			}
			g->buf = ksim_mmap(k, t, buffer_pages(in->p));
			if (!g->buf)
				return used;
			in->chunk[in->filled] = g->buf;
			g->pos = 0;
			g->state = EBZ_FILL;
			break;
		case EBZ_FILL: {	/* write_pattern: fault and write every page */
			uint32_t from = g->pos;

			used += ksim_fault_range(k, t, g->buf, &g->pos, g->buf->npages,
						 k->p.copy_ns_per_page, budget - used);
			touch_copy(k, g->buf, NULL, from, g->pos);
			if (g->pos == g->buf->npages) {
				in->filled++;
				g->state = EBZ_START;
			}
			if (t->state != TASK_RUNNABLE)
				return used;
			break;
		}
		case EBZ_SPAWN:
			for (unsigned int i = 0; i < in->p->threads; i++) {
				struct ebz_prog *w = calloc(1, sizeof(*w));

				if (!w) {
					ksim_fail(k, "out of memory in the simulator");
					return used;
				}
				w->in = in;
				w->state = EBZ_MMAP;
				if (!ksim_spawn(k, in->proc, run_worker, w)) {
					free(w);	/* main, or the run, is gone */
					return used;
				}
			}
			in->go = true;
			in->stop_at = k->now + in->p->seconds * NSEC_PER_SEC;
			g->state = EBZ_SLEEP;
			ksim_sleep(k, t, in->stop_at);
			return used;
		case EBZ_SLEEP:
			in->go = false;
			g->state = EBZ_JOIN;
			break;
		case EBZ_JOIN:
			if (in->proc->live_threads == 1) {
				g->state = EBZ_DONE;
				ksim_exit_task(k, t);
				return used;
			}
			/* pthread_join: the last worker's exit wakes it (worker_exit) */
			ksim_sleep(k, t, UINT64_MAX);
			return used;
		default:
			return used;
		}
	}
	return used;
}

/*
 * A worker leaves search_mem() and exits.  Its exit clears the thread id and
 * wakes the futex that main sleeps on in pthread_join (CLONE_CHILD_CLEARTID,
 * mm_release); main joins the threads in order, so it runs on once the last
 * one has gone -- at the next quantum here.  The earlier joins' wake-ups
 * cost main a few microseconds of CPU each, which are not modelled.  The
 * one thread left is main (threads[0], spawned first): workers leave only
 * through here or with the whole process (oom_kill), and once they see
 * threads_go cleared main has gone on to EBZ_JOIN, where it is asleep or
 * about to look at live_threads itself.
 */
static void worker_exit(struct ksim *k, struct ktask *t, struct ebz_instance *in)
{
	ksim_exit_task(k, t);
	if (in->proc->live_threads == 1)
		ksim_wake_up(k, in->proc->threads[0]);
}

static uint64_t run_worker(struct ksim *k, struct ktask *t, uint64_t budget)
{
	struct ebz_prog *g = t->prog;
	uint64_t used = 0;

	while (used < budget && t->state == TASK_RUNNABLE && !k->failed) {
		bool done;

		if (ksim_pay_debt(&g->debt, budget, &used))
			continue;
		switch (g->state) {
		case EBZ_MMAP:
			if (!g->in->go) {
				g->state = EBZ_DONE;
				worker_exit(k, t, g->in);
				return used;
			}
			g->buf = ksim_mmap(k, t, buffer_pages(g->in->p));
			if (!g->buf)
				return used;
			g->pos = 0;
			g->copy_ns = iteration_copy_ns(k, g->in->p);
			g->state = EBZ_COPY;
			break;
		case EBZ_COPY: {
			uint32_t from = g->pos;

			used += ksim_fault_range(k, t, g->buf, &g->pos, g->buf->npages,
						 g->copy_ns, budget - used);
			/* ebizzy's unseeded rand_num: always the first chunk */
			touch_copy(k, g->buf, g->in->chunk[0], from, g->pos);
			if (t->state != TASK_RUNNABLE)
				return used;
			if (g->pos == g->buf->npages)
				g->state = EBZ_SEARCH;
			break;
		}
		case EBZ_SEARCH:
			touch_search(k, g->buf);
			g->debt = SEARCH_NS;
			g->state = EBZ_UNMAP;
			break;
		case EBZ_UNMAP:
			used += ksim_munmap(k, t, g->buf, budget - used, &done);
			if (t->state != TASK_RUNNABLE)
				return used;
			if (done) {
				g->buf = NULL;
				g->iterations++;
				g->state = EBZ_MMAP;
			}
			break;
		default:
			return used;
		}
	}
	return used;
}

int mpm_ebizzy_start(struct ksim *k, const struct mpm_ebizzy_params *p,
		     void (*on_exit)(struct ksim *, struct kprocess *))
{
	for (unsigned int i = 0; i < p->instances; i++) {
		struct ebz_instance *in = calloc(1, sizeof(*in));
		struct ebz_prog *g = calloc(1, sizeof(*g));

		if (!in || !g) {
			free(in);
			free(g);
			return -1;
		}
		in->params = *p;
		in->p = &in->params;
		in->nr_chunks = p->chunks;
		in->proc = ksim_fork(k, p->threads + 1, in, on_exit);
		if (!in->proc) {
			free(g);
			return -1;
		}
		g->in = in;
		g->state = EBZ_START;
		if (!ksim_spawn(k, in->proc, run_main, g)) {
			free(g);	/* a failed spawn leaves @g the caller's */
			return -1;
		}
	}
	return k->failed ? -1 : 0;
}
