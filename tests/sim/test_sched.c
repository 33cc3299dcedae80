// SPDX-License-Identifier: MIT
/*
 * Whose turn it is on a CPU (sched.c, sched_fair.c).  Three tasks that
 * always want the CPU share CPU 0 with a fourth that sleeps 50 ms and then
 * wants it too.  Round robin (the default) runs the woken task after the
 * running one's slice and every task queued before it; sched=cfs places
 * it half a sched_latency behind min_vruntime (place_entity), so that it
 * preempts the running task (check_preempt_wakeup) and runs in the quantum
 * it wakes in.  Under both, the busy tasks share the CPU evenly, and with
 * sched=cfs min_vruntime never goes back and a task created later starts
 * a slice above it (START_DEBIT) rather than at zero.  Last, ebizzy runs
 * with sched=cfs under the checkers.
 */
#include "ksim_helpers.h"

#define SLEEP_NS	(50 * NSEC_PER_MSEC)

struct sleeper {
	bool slept;
	uint64_t wake_due;	/* when it asked to be woken */
	uint64_t ran_at;	/* the quantum of its first step after that */
	uint64_t vruntime, min_vruntime;	/* its own and its CPU's, then */
};

static uint64_t busy_prog(struct ksim *k, struct ktask *t, uint64_t budget)
{
	(void)k;
	(void)t;
	return budget;
}

static uint64_t sleeper_prog(struct ksim *k, struct ktask *t, uint64_t budget)
{
	struct sleeper *s = t->prog;

	if (!s->slept) {
		s->slept = true;
		s->wake_due = k->now + SLEEP_NS;
		ksim_sleep(k, t, s->wake_due);
		return 1000;
	}
	if (!s->ran_at) {
		s->ran_at = k->now;
		s->vruntime = t->vruntime;
		s->min_vruntime = k->cpus[t->cpu].min_vruntime;
	}
	return budget;
}

/* A finished short workload: a kernel model with CPU 0 free, and @sched. */
static struct ksim *idle_model(struct mpm_run *r, struct mpm_run_config *c,
			       struct mpm_machine_spec *s, bool cfs)
{
	machine(s, 1u << 15, 2);
	REQUIRE(run_seeded(r, c, cfs ? "pagetest:size=4M,hold=0,sched=cfs" :
				       "pagetest:size=4M,hold=0,sched=rr", s, 5, false, 7) == 0);
	REQUIRE(r->k && r->k->p.sched_cfs == cfs);
	REQUIRE(r->k->cpus[0].nr == 0);
	return r->k;
}

/* Run @k for @ns, checking that CPU 0's min_vruntime only goes up. */
static void run_for(struct ksim *k, uint64_t ns)
{
	uint64_t end = k->now + ns, min = k->cpus[0].min_vruntime;

	while (k->now < end && !k->failed) {
		ksim_run_quantum(k);
		if (k->p.sched_cfs)
			CHECK((int64_t)(k->cpus[0].min_vruntime - min) >= 0);
		min = k->cpus[0].min_vruntime;
	}
}

/*
 * The woken task's wait for CPU 0 behind three busy tasks.  In @busy_ns
 * what they got: their CPU times with round robin, their vruntimes with
 * CFS (which is the CPU time each got on top of where START_DEBIT placed it).
 */
static uint64_t wakeup_latency(bool cfs, uint64_t busy_ns[3], struct sleeper *out)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct sleeper *sl = calloc(1, sizeof(*sl));	/* the task's prog: ksim frees it */
	struct ktask *busy[3], *t;
	struct kprocess *p;
	struct ksim *k = idle_model(&r, &c, &s, cfs);
	uint64_t late;

	p = ksim_fork(k, 4, NULL, NULL);
	REQUIRE(p);
	for (int i = 0; i < 3; i++)
		REQUIRE(busy[i] = ksim_spawn_on(k, p, busy_prog, NULL, 0));
	REQUIRE(sl);
	REQUIRE(t = ksim_spawn_on(k, p, sleeper_prog, sl, 0));
	run_for(k, SLEEP_NS + 200 * NSEC_PER_MSEC);
	CHECK(!k->failed);
	CHECK(sl->slept && sl->ran_at >= sl->wake_due);
	CHECK_EQ_U(t->nr_wakeups, 1);
	late = sl->ran_at - sl->wake_due;
	*out = *sl;
	for (int i = 0; i < 3; i++)
		busy_ns[i] = cfs ? busy[i]->vruntime : busy[i]->cpu_ns;
	for (int i = 0; i < 3; i++)
		ksim_exit_task(k, busy[i]);
	ksim_exit_task(k, t);
	CHECK(!k->failed);
	mpm_run_fini(&r);
	return late;
}

static void check_even(const uint64_t busy_ns[3], uint64_t slice)
{
	uint64_t lo = busy_ns[0], hi = busy_ns[0];

	for (int i = 1; i < 3; i++) {
		lo = busy_ns[i] < lo ? busy_ns[i] : lo;
		hi = busy_ns[i] > hi ? busy_ns[i] : hi;
	}
	CHECK(lo > 0);
	CHECK(hi - lo <= slice);
}

static void test_wakeup(void)
{
	struct sleeper sl_rr, sl_cfs;
	uint64_t busy_rr[3], busy_cfs[3];
	uint64_t rr = wakeup_latency(false, busy_rr, &sl_rr);
	uint64_t cfs = wakeup_latency(true, busy_cfs, &sl_cfs);
	/* 2 CPUs: sched_latency 12 ms, slices of 3 ms among four tasks, 4 among three */
	uint64_t q = 100 * NSEC_PER_USEC, slice = 3 * NSEC_PER_MSEC;
	uint64_t latency = 12 * NSEC_PER_MSEC;

	/* round robin: behind the running slice and the tasks queued before it */
	CHECK(rr >= slice);
	/* CFS: it preempts at once, so it runs in the quantum it wakes in */
	CHECK(cfs < q);
	/* placed half a sched_latency below min_vruntime: it slept far longer */
	CHECK(sl_cfs.min_vruntime > latency);
	CHECK_EQ_U(sl_cfs.vruntime, sl_cfs.min_vruntime - latency / 2);
	check_even(busy_rr, 4 * NSEC_PER_MSEC);
	check_even(busy_cfs, 4 * NSEC_PER_MSEC);
}

/*
 * START_DEBIT: a task created by a task running on CPU 0 starts a slice
 * above min_vruntime, or at its parent's vruntime if that is later -- not
 * at zero, where it would have the CPU to itself for as long as the others
 * had run.
 */
#define SPAWN_AFTER	NSEC_PER_SEC	/* half a second of CPU for each of two tasks */

struct spawner {
	uint64_t at;		/* when to spawn */
	struct ktask *child;
};

static uint64_t spawner_prog(struct ksim *k, struct ktask *t, uint64_t budget)
{
	struct spawner *sp = t->prog;

	if (!sp->child && k->now >= sp->at)
		sp->child = ksim_spawn_on(k, t->proc, busy_prog, NULL, 0);
	return budget;
}

static void test_fork_placement(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct spawner *sp = calloc(1, sizeof(*sp));	/* the task's prog: ksim frees it */
	struct ktask *child, *busy, *spawner;
	struct kprocess *p;
	struct ksim *k = idle_model(&r, &c, &s, true);
	uint64_t min, slice;

	p = ksim_fork(k, 3, NULL, NULL);
	REQUIRE(p);
	REQUIRE(busy = ksim_spawn_on(k, p, busy_prog, NULL, 0));
	REQUIRE(sp);
	sp->at = k->now + SPAWN_AFTER;
	REQUIRE(spawner = ksim_spawn_on(k, p, spawner_prog, sp, 0));
	/* run until the spawner has made its child */
	while (!sp->child && !k->failed && k->now < sp->at + NSEC_PER_SEC)
		ksim_run_quantum(k);
	REQUIRE(child = sp->child);
	min = k->cpus[0].min_vruntime;
	slice = ksim_sched_slice(k, 3);
	CHECK(min > 400 * NSEC_PER_MSEC);
	/* the spawner's vruntime then lacked the step it spawned in (a quantum) */
	CHECK((int64_t)(child->vruntime - min) >= (int64_t)(slice - k->p.quantum_ns));
	CHECK((int64_t)(child->vruntime + k->p.quantum_ns - spawner->vruntime) >= 0);
	/* and it then gets its third of the CPU, not the whole of it */
	run_for(k, 300 * NSEC_PER_MSEC);
	CHECK(child->cpu_ns > 60 * NSEC_PER_MSEC && child->cpu_ns < 140 * NSEC_PER_MSEC);
	ksim_exit_task(k, busy);
	ksim_exit_task(k, spawner);
	ksim_exit_task(k, child);
	CHECK(!k->failed);
	mpm_run_fini(&r);
}

/*
 * ebizzy end to end with sched=cfs, the checkers on at every sample: the
 * same pages and owners as any other order of turns would keep, and a run
 * that ends with every copy gone.
 */
static void test_ebizzy_cfs(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;

	machine(&s, 1u << 17, 4);	/* 2 x 512 MiB */
	CHECK(run_seeded(&r, &c, "ebizzy:s=8M,n=2,t=4,S=3,instances=2,sched=cfs", &s, 60, true,
			 7) == 0);
	CHECK(r.k->p.sched_cfs);
	CHECK(r.k->c.faults > 0);
	CHECK(r.end_t < 60);
	CHECK(r.workload_live == 0);
	CHECK_EQ_U(r.owner_mismatches + r.content_mismatches, 0);
	check_conservation(&r);
	mpm_run_fini(&r);
}

int main(void)
{
	test_wakeup();
	test_fork_placement();
	test_ebizzy_cfs();
	return t_report("sim/sched");
}
