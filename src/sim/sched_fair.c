// SPDX-License-Identifier: MIT
/*
 * CFS's order of turns, with the ksim_params.sched_cfs switch
 * (`sched=cfs` on a kernel-model workload; off, each CPU takes its tasks
 * round robin, sched.c).  The rules are 3.12's kernel/sched/fair.c for
 * tasks of nice 0, whose vruntime advances by the CPU time they use:
 *
 *  - update_curr / update_min_vruntime: after each step the running task's
 *    vruntime grows by the time it used, and the CPU's min_vruntime moves
 *    up to the least vruntime of that task and the queued ones, never down;
 *  - task_fork_fair + place_entity(initial): a new task starts at its
 *    parent's vruntime or at min_vruntime plus one slice (START_DEBIT),
 *    whichever is later, relative to the parent's CPU, then rebased onto
 *    its own CPU's min_vruntime (wake_up_new_task's enqueue);
 *  - place_entity(wakeup): a woken task keeps its vruntime unless it lags
 *    min_vruntime by more than half of sched_latency (GENTLE_FAIR_SLEEPERS),
 *    in which case it is moved up to that;
 *  - check_preempt_wakeup: a woken (or new) task preempts the running one
 *    when it lies more than sched_wakeup_granularity behind it
 *    (wakeup_preempt_entity);
 *  - pick_next_entity: the task with the least vruntime runs next.
 *
 * Left out: the buddies (a task that preempts on wakeup becomes the next
 * buddy and the preempted one the last, and pick_next_entity prefers them
 * to the leftmost while they lie within the wakeup granularity of it);
 * check_preempt_tick's early switch when the running task gets a slice
 * ahead of the leftmost; the tick (a slice ends exactly when it is used
 * up, as with round robin); load balancing (tasks never change CPU); and
 * update_curr before a fork or a wakeup check, so the parent's and the
 * running task's vruntime lack the step in progress (a quantum at most).
 * A step that uses no CPU time passes the turn in queue order, as with
 * round robin (sched.c, run_cpu).  vruntimes are compared by signed
 * difference, as the kernel does, so they may wrap.
 */
#include "sim/ksim.h"

/* entity_before: @a's vruntime is less than @b's. */
static bool entity_before(const struct ktask *a, const struct ktask *b)
{
	return (int64_t)(a->vruntime - b->vruntime) < 0;
}

static uint64_t max_vruntime(uint64_t max, uint64_t vruntime)
{
	return (int64_t)(vruntime - max) > 0 ? vruntime : max;
}

static uint64_t min_vruntime(uint64_t min, uint64_t vruntime)
{
	return (int64_t)(vruntime - min) < 0 ? vruntime : min;
}

/* The least vruntime of @curr and the tasks queued on @c: the CFS tree's leftmost. */
static void update_min_vruntime(struct kcpu *c, const struct ktask *curr)
{
	uint64_t vruntime = curr->vruntime;

	for (size_t i = 0; i < c->nr; i++)
		vruntime = min_vruntime(vruntime, c->rq[i]->vruntime);
	c->min_vruntime = max_vruntime(c->min_vruntime, vruntime);
}

/* @curr ran @delta_exec ns on @c (it may have left the queue in that step). */
void update_curr(struct kcpu *c, struct ktask *curr, uint64_t delta_exec)
{
	curr->vruntime += delta_exec;
	update_min_vruntime(c, curr);
}

/* Index in @c's queue of the task with the least vruntime; the earliest queued on a tie. */
size_t pick_next_entity(const struct kcpu *c)
{
	size_t left = 0;

	for (size_t i = 1; i < c->nr; i++)
		if (entity_before(c->rq[i], c->rq[left]))
			left = i;
	return left;
}

/*
 * task_fork_fair: @p, not yet queued on its CPU, takes the vruntime of the
 * running task (its parent; none while a workload is set up) or
 * min_vruntime plus the slice it would get on the parent's CPU, whichever
 * is later; then the same distance above its own CPU's min_vruntime.
 */
void task_fork_fair(struct ksim *k, struct ktask *p)
{
	const struct ktask *parent = k->current;
	const struct kcpu *pc = &k->cpus[parent ? parent->cpu : p->cpu];
	/* place_entity(initial), START_DEBIT: sched_vslice with @p counted in */
	uint64_t vruntime = pc->min_vruntime + ksim_sched_slice(k, pc->nr + 1);

	if (parent)
		vruntime = max_vruntime(vruntime, parent->vruntime);
	p->vruntime = vruntime - pc->min_vruntime + k->cpus[p->cpu].min_vruntime;
}

/* place_entity for a wakeup: at least min_vruntime less half of sched_latency. */
void place_entity(struct ksim *k, struct kcpu *c, struct ktask *t)
{
	uint64_t vruntime = c->min_vruntime - (k->p.sched_latency_ns >> 1);

	t->vruntime = max_vruntime(t->vruntime, vruntime);
}

/*
 * check_preempt_wakeup: @p has just joined @c's queue; the task that runs
 * there is preempted before its next step if @p lies more than the wakeup
 * granularity behind it (wakeup_preempt_entity() == 1).
 */
void check_preempt_wakeup(struct ksim *k, struct kcpu *c, const struct ktask *p)
{
	const struct ktask *curr = c->rq[c->cur];

	if (curr == p)
		return;
	if ((int64_t)(curr->vruntime - p->vruntime) > (int64_t)k->p.sched_wakeup_gran_ns)
		c->need_resched = true;
}
