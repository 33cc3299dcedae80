// SPDX-License-Identifier: MIT
/*
 * CPUs and time sharing.  With equal weights CFS hands each runnable task a
 * slice of sched_latency / nr_running, but not less than
 * sched_min_granularity (__sched_period, sched_slice).  New tasks go to
 * CPUs round robin (fork balancing to the idlest CPU, which for a burst of
 * forks is the next one); tasks do not migrate afterwards.
 *
 * Whose turn it is has two models.  By default each CPU runs its tasks in
 * turn, round robin, and a woken task joins the back of its CPU's queue,
 * where CFS would place it by vruntime and let it preempt (place_entity,
 * check_preempt_wakeup): a known departure that moves the cover-letter
 * run's trough and mainline's end (docs/experiments.md, "How much the
 * figures depend on the scheduler's wake-ups").  With sched_cfs
 * (`sched=cfs` on the workload) the turns follow CFS's vruntime order,
 * sched_fair.c.  Round robin stays the default: the docs' figures were
 * measured with it, and under CFS, where a woken thread catches up with
 * its siblings instead of falling behind them, the cover-letter run's 640
 * threads seem to fill their copy buffers in lockstep, and the OOM killer
 * takes five ebizzy copies, as nothing in the model spreads them apart.
 */
#include "sim/ksim.h"

#include <stdlib.h>

#define THREAD_SIZE_ORDER	1	/* 8 KiB kernel stacks on x86_64 in 3.12 */
#define THREADINFO_GFP		(MPM_GFP_KERNEL | MPM___GFP_NOTRACK | MPM___GFP_ZERO)

static int rq_add(struct kcpu *c, struct ktask *t)
{
	if (!ksim_grow(c->rq, c->nr, c->cap))
		return -1;
	c->rq[c->nr++] = t;
	return 0;
}

static void rq_del(struct kcpu *c, const struct ktask *t)
{
	for (size_t i = 0; i < c->nr; i++) {
		if (c->rq[i] != t)
			continue;
		/* the running task left: with sched_cfs, pick the leftmost next */
		if (i == c->cur)
			c->need_resched = true;
		/* keep the round-robin order: shift the tail down */
		for (size_t j = i + 1; j < c->nr; j++)
			c->rq[j - 1] = c->rq[j];
		c->nr--;
		if (c->cur > i)
			c->cur--;
		if (c->cur >= c->nr)
			c->cur = 0;
		return;
	}
}

/*
 * activate_task + check_preempt_curr: @t joins its CPU's queue and, with
 * sched_cfs, may preempt the task that runs there.
 */
static void enqueue_task(struct ksim *k, struct ktask *t)
{
	struct kcpu *c = &k->cpus[t->cpu];

	if (rq_add(c, t))
		ksim_fail(k, "out of memory in the simulator");
	else if (k->p.sched_cfs)
		check_preempt_wakeup(k, c, t);
}

static int push_task(struct ksim *k, struct ktask *t)
{
	if (!ksim_grow(k->tasks, k->nr_tasks, k->tasks_cap))
		return -1;
	k->tasks[k->nr_tasks++] = t;
	return 0;
}

/*
 * The child's allocations may have failed the run, or OOM-killed the
 * parent or the process the child joins.  copy_process gives up when the
 * parent has a fatal signal pending, so no thread starts in a torn-down mm;
 * a thread of a killed process would also revive its live count.
 */
static bool fork_fails(const struct ksim *k, const struct kprocess *proc)
{
	return k->failed || (proc && proc->killed) ||
	       (k->current && k->current->state == TASK_DEAD);
}

/*
 * Undo ksim_spawn_on's child: its stack and task_struct go back, and a
 * process created for it alone (no thread yet) loses its mm, as fork's
 * failure path drops it (mmput).  The task stays in k->tasks, dead.
 */
static void discard_child(struct ksim *k, struct ktask *t, struct kprocess *proc,
			  unsigned int cpu)
{
	if (t->stack != NO_PFN32)
		ksim_free_pages(k, t->stack, THREAD_SIZE_ORDER, cpu);
	t->stack = NO_PFN32;
	ksim_slab_free(k, t->task_obj, cpu);
	t->task_obj = NULL;
	t->prog = NULL;		/* the caller's again */
	t->state = TASK_DEAD;
	t->exit_at = k->now;
	k->nr_live_tasks--;
	if (proc && !proc->nr_threads)
		ksim_exit_mm(k, proc, cpu);
}

struct ktask *ksim_spawn(struct ksim *k, struct kprocess *proc, kprogram_fn run,
			 void *prog)
{
	return ksim_spawn_on(k, proc, run, prog, k->next_cpu++ % k->nr_cpus);
}

/* A task on @cpu, outside the round robin of ksim_spawn (kernel threads). */
struct ktask *ksim_spawn_on(struct ksim *k, struct kprocess *proc, kprogram_fn run,
			    void *prog, unsigned int cpu)
{
	struct ktask *t = calloc(1, sizeof(*t));
	unsigned int fork_cpu;
	uint64_t stack;

	if (!t || push_task(k, t)) {
		free(t);
		ksim_fail(k, "out of memory in the simulator");
		return NULL;
	}
	k->nr_live_tasks++;
	t->pid = k->next_pid++;
	t->cpu = cpu;
	t->state = TASK_RUNNABLE;
	t->proc = proc;
	t->mm = proc ? proc->mm : NULL;
	t->run = run;
	t->prog = prog;
	/*
	 * dup_task_struct runs in the parent, on its cpu: task_struct from
	 * slab and the stack pages on the parent's node (tsk_fork_get_node:
	 * numa_node_id()).  Without a parent task (the workload's set-up) the
	 * child's cpu stands in.
	 */
	fork_cpu = k->current ? k->current->cpu : cpu;
	t->stack = NO_PFN32;
	t->task_obj = ksim_slab_alloc(k, SLAB_TASK, fork_cpu);
	/* each allocation may kill the parent: the next one is not made then */
	if (!fork_fails(k, proc)) {
		stack = ksim_alloc_page(k, THREADINFO_GFP, THREAD_SIZE_ORDER, fork_cpu);
		t->stack = stack == MPM_NO_PFN ? NO_PFN32 : (uint32_t)stack;
	}
	if (fork_fails(k, proc)) {
		discard_child(k, t, proc, fork_cpu);
		return NULL;
	}
	k->c.stacks += t->stack != NO_PFN32;
	k->c.threads++;
	if (proc) {
		proc->threads[proc->nr_threads++] = t;
		proc->live_threads++;
	}
	if (k->p.sched_cfs)
		task_fork_fair(k, t);
	enqueue_task(k, t);		/* wake_up_new_task */
	return t;
}

void ksim_sleep(struct ksim *k, struct ktask *t, uint64_t until)
{
	if (t->state != TASK_RUNNABLE)
		return;
	if (!ksim_grow(k->sleepers, k->nr_sleepers, k->sleepers_cap)) {
		ksim_fail(k, "out of memory in the simulator");
		return;
	}
	rq_del(&k->cpus[t->cpu], t);
	t->state = TASK_SLEEPING;
	t->wake_at = until;
	k->sleepers[k->nr_sleepers++] = t;
}

/*
 * wake_up_process: a sleeping @t runs again from the next quantum's
 * wake-up pass, whatever time it was to sleep until.
 */
void ksim_wake_up(struct ksim *k, struct ktask *t)
{
	if (t->state == TASK_SLEEPING)
		t->wake_at = k->now;
}

static void wake(struct ksim *k, struct ktask *t)
{
	t->state = TASK_RUNNABLE;
	t->slice_used = 0;
	t->nr_wakeups++;
	if (k->p.sched_cfs)
		place_entity(k, &k->cpus[t->cpu], t);
	enqueue_task(k, t);
}

void ksim_exit_task(struct ksim *k, struct ktask *t)
{
	struct kprocess *p = t->proc;

	if (t->state == TASK_DEAD)
		return;
	if (t->state == TASK_RUNNABLE)
		rq_del(&k->cpus[t->cpu], t);
	t->state = TASK_DEAD;		/* a sleeper entry is dropped at the next wake-up pass */
	t->exit_at = k->now;
	k->nr_live_tasks--;
	/* do_exit: exit_mm first (the last thread tears the mm down) */
	if (p && --p->live_threads == 0) {
		ksim_exit_mm(k, p, t->cpu);
		if (p->on_exit)
			p->on_exit(k, p);
	}
	/* then the stack and task_struct, when the task is reaped (free_task) */
	if (t->stack != NO_PFN32)
		ksim_free_pages(k, t->stack, THREAD_SIZE_ORDER, t->cpu);
	t->stack = NO_PFN32;
	ksim_slab_free(k, t->task_obj, t->cpu);
	t->task_obj = NULL;
}

/* Wake the sleepers that are due, in the order they fell asleep. */
static void wake_sleepers(struct ksim *k, uint64_t now)
{
	size_t kept = 0;

	for (size_t i = 0; i < k->nr_sleepers; i++) {
		struct ktask *t = k->sleepers[i];

		if (t->state != TASK_SLEEPING)
			continue;		/* killed while asleep */
		if (t->wake_at <= now)
			wake(k, t);
		else
			k->sleepers[kept++] = t;
	}
	k->nr_sleepers = kept;
}

uint64_t ksim_sched_slice(const struct ksim *k, size_t nr_running)
{
	uint64_t slice = k->p.sched_latency_ns / (nr_running ? nr_running : 1);

	return slice > k->p.sched_min_gran_ns ? slice : k->p.sched_min_gran_ns;
}

/* Run one CPU for @budget ns. */
static void run_cpu(struct ksim *k, unsigned int cpu, uint64_t budget)
{
	struct kcpu *c = &k->cpus[cpu];
	bool cfs = k->p.sched_cfs;
	unsigned int idle_turns = 0;

	/* a step that ran past the last quantum is paid from this one */
	if (c->overrun >= budget) {
		c->overrun -= budget;
		return;
	}
	budget -= c->overrun;
	c->overrun = 0;

	while (budget && c->nr && !k->failed && idle_turns <= c->nr) {
		struct ktask *t;
		uint64_t slice, left, used;

		if (cfs && c->need_resched) {
			/* schedule(): the leftmost task runs, its slice counted afresh */
			c->need_resched = false;
			c->cur = pick_next_entity(c);
			c->rq[c->cur]->slice_used = 0;
		}
		t = c->rq[c->cur];
		slice = ksim_sched_slice(k, c->nr);
		left = slice > t->slice_used ? slice - t->slice_used : 0;

		k->current = t;
		used = t->run(k, t, left < budget ? left : budget);
		k->current = NULL;

		t->slice_used += used;
		t->cpu_ns += used;
		if (cfs)
			update_curr(c, t, used);
		if (used > budget)
			c->overrun = used - budget;
		budget -= used < budget ? used : budget;
		idle_turns = used ? 0 : idle_turns + 1;
		if (t->state != TASK_RUNNABLE)
			continue;	/* it left the run queue itself */
		if (cfs && t->slice_used >= slice) {
			c->need_resched = true;	/* check_preempt_tick */
		} else if (t->slice_used >= slice || !used) {
			/* the next in queue order: round robin, or a step without time */
			t->slice_used = 0;
			c->cur = (c->cur + 1) % c->nr;
			if (cfs)
				c->rq[c->cur]->slice_used = 0;
		}
	}
}

/*
 * Nothing runnable anywhere: nothing can change before the next wake-up,
 * so jump to just before it -- or before the next whole second, where
 * vmstat_update and the sampler run, or the power model's next pricing
 * tick (skip_limit) -- instead of idling quantum by quantum.
 */
static void skip_idle(struct ksim *k)
{
	uint64_t q = k->p.quantum_ns;
	uint64_t next = (k->now / NSEC_PER_SEC + 1) * NSEC_PER_SEC;

	if (k->skip_limit > k->now && k->skip_limit < next)
		next = k->skip_limit;

	for (unsigned int cpu = 0; cpu < k->nr_cpus; cpu++)
		if (k->cpus[cpu].nr)
			return;
	for (size_t i = 0; i < k->nr_sleepers; i++)
		if (k->sleepers[i]->state == TASK_SLEEPING && k->sleepers[i]->wake_at < next)
			next = k->sleepers[i]->wake_at;
	next -= next % q;
	if (next > k->now + q)
		k->now = next - q;
}

void ksim_run_quantum(struct ksim *k)
{
	uint64_t q = k->p.quantum_ns;

	wake_sleepers(k, k->now);
	skip_idle(k);
	for (unsigned int cpu = 0; cpu < k->nr_cpus && !k->failed; cpu++)
		run_cpu(k, cpu, q);
	ksim_kswapd(k);
	k->now += q;
	/* vmstat_update: every cpu once a second (sysctl_stat_interval = HZ) */
	if (k->now / NSEC_PER_SEC != (k->now - q) / NSEC_PER_SEC)
		for (unsigned int cpu = 0; cpu < k->nr_cpus; cpu++) {
			mpm_refresh_cpu_vm_stats(k->m, cpu);
			ksim_allocator_call_done(k);
		}
}
