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
 * a slice above it (START_DEBIT) rather than at zero.  Then the rules one
 * by one: a child's placement from its parent, the wakeup granularity,
 * a step that takes no time, and two orders of first runs that CFS
 * decides and round robin does not.  Then ebizzy runs with sched=cfs under the checkers.  Last,
 * vmstat_update's refresh on every cpu once a second, and what it drains.
 */
#include "ksim_helpers.h"
#include "mmzone.h"

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
 * task_fork_fair from a parent a lap ahead of its CPU: the child takes the
 * parent's lead over min_vruntime, rebased onto its own CPU; from a parent
 * with no lead, START_DEBIT puts it a slice above.
 */
static void test_fork_from_parent(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct ksim *k = idle_model(&r, &c, &s, true);
	struct ktask parent = { .cpu = 0 }, child = { .cpu = 1 };

	k->cpus[0].min_vruntime = 1000 * NSEC_PER_MSEC;
	k->cpus[1].min_vruntime = 10 * NSEC_PER_MSEC;
	parent.vruntime = k->cpus[0].min_vruntime + 50 * NSEC_PER_MSEC;
	k->current = &parent;
	task_fork_fair(k, &child);
	CHECK_EQ_U(child.vruntime, k->cpus[1].min_vruntime + 50 * NSEC_PER_MSEC);
	parent.vruntime = k->cpus[0].min_vruntime;
	task_fork_fair(k, &child);
	CHECK_EQ_U(child.vruntime, k->cpus[1].min_vruntime + ksim_sched_slice(k, 1));
	k->current = NULL;
	mpm_run_fini(&r);
}

/*
 * A step that takes no time (a task that finds nothing to do but stays
 * runnable) passes the CPU on in queue order, under CFS too, and the task
 * it passes to starts a fresh slice: never a turn offered no time at all.
 * The busy task runs alone first, so that when the other is picked its
 * slice is spent; a zero step then hands the CPU straight back to it.
 */
struct zero_step {
	bool stepped;		/* made its zero step */
	uint64_t min_offered;	/* the busy task: the least it was offered */
	uint64_t turns_after;	/* the busy task's turns after the zero step */
	struct zero_step *peer;
};

static uint64_t zero_step_prog(struct ksim *k, struct ktask *t, uint64_t budget)
{
	struct zero_step *z = t->prog;

	(void)k;
	if (!z->stepped) {
		z->stepped = true;
		return 0;
	}
	return budget;
}

static uint64_t offered_prog(struct ksim *k, struct ktask *t, uint64_t budget)
{
	struct zero_step *z = t->prog;

	(void)k;
	if (budget < z->min_offered)
		z->min_offered = budget;
	z->turns_after += z->peer->stepped;
	return budget;
}

static void test_cfs_zero_step(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct zero_step *busy_z = calloc(1, sizeof(*busy_z)), *zero_z = calloc(1, sizeof(*zero_z));
	struct ktask *busy, *zero;
	struct kprocess *p;
	struct ksim *k = idle_model(&r, &c, &s, true);

	REQUIRE(busy_z && zero_z);	/* the tasks' progs: ksim frees them */
	busy_z->min_offered = UINT64_MAX;
	busy_z->peer = zero_z;
	p = ksim_fork(k, 2, NULL, NULL);
	REQUIRE(p);
	REQUIRE(busy = ksim_spawn_on(k, p, offered_prog, busy_z, 0));
	run_for(k, 50 * NSEC_PER_MSEC);
	REQUIRE(zero = ksim_spawn_on(k, p, zero_step_prog, zero_z, 0));
	run_for(k, 200 * NSEC_PER_MSEC);
	CHECK(zero_z->stepped && busy_z->turns_after > 0);
	CHECK(busy_z->min_offered > 0);
	ksim_exit_task(k, busy);
	ksim_exit_task(k, zero);
	CHECK(!k->failed);
	mpm_run_fini(&r);
}

/* check_preempt_wakeup: strictly more than the wakeup granularity behind. */
static void test_wakeup_granularity(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct ksim *k = idle_model(&r, &c, &s, true);
	struct ktask curr = { .vruntime = 100 * NSEC_PER_MSEC }, woken = { 0 };
	struct ktask *rq[2] = { &curr, &woken };
	struct kcpu cpu = { .rq = rq, .nr = 2, .cur = 0 };
	uint64_t gran = k->p.sched_wakeup_gran_ns;

	CHECK_EQ_U(gran, 2 * NSEC_PER_MSEC);	/* 1 ms x (1 + ilog2(2 cpus)) */
	woken.vruntime = curr.vruntime - gran;
	check_preempt_wakeup(k, &cpu, &woken);
	CHECK(!cpu.need_resched);
	woken.vruntime = curr.vruntime - gran - 1;
	check_preempt_wakeup(k, &cpu, &woken);
	CHECK(cpu.need_resched);
	mpm_run_fini(&r);
}

/* Which task runs first, in the order the tasks ran first. */
static unsigned int first_runs[8], nr_first_runs;

struct logger {
	unsigned int id;
	uint64_t sleep_after;	/* CPU ns, then sleep for good; 0: never */
	bool logged;
};

static uint64_t logger_prog(struct ksim *k, struct ktask *t, uint64_t budget)
{
	struct logger *l = t->prog;

	if (!l->logged && nr_first_runs < 8) {
		l->logged = true;
		first_runs[nr_first_runs++] = l->id;
	}
	if (l->sleep_after && t->cpu_ns + budget >= l->sleep_after) {
		ksim_sleep(k, t, UINT64_MAX);
		return l->sleep_after - t->cpu_ns;
	}
	return budget;
}

static struct ktask *spawn_logger(struct ksim *k, struct kprocess *p, unsigned int id,
				  uint64_t sleep_after)
{
	struct logger *l = calloc(1, sizeof(*l));	/* the task's prog: ksim frees it */
	struct ktask *t;

	REQUIRE(l);
	l->id = id;
	l->sleep_after = sleep_after;
	REQUIRE(t = ksim_spawn_on(k, p, logger_prog, l, 0));
	return t;
}

/*
 * Two orders CFS decides and round robin does not.  Task 1 runs alone on
 * CPU 0 and is then put a lap (20 ms) ahead; task 2, made next, lies more
 * than the wakeup granularity behind it and preempts at once
 * (wake_up_new_task's check), where round robin lets task 1 finish its
 * slice.  Then task 3 runs alone, tasks 4 and 5 join (5 a slice of 4 ms
 * above min_vruntime, 4 one of 6 ms), and task 3 goes to sleep: CFS runs
 * the leftmost, 5, where round robin runs the next in the queue, 4.
 */
static void first_run_order(bool cfs, unsigned int *nr_fork, unsigned int sleep_order[3])
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct ksim *k = idle_model(&r, &c, &s, cfs);
	struct kprocess *p = ksim_fork(k, 8, NULL, NULL);
	struct ktask *t[5];

	REQUIRE(p);
	nr_first_runs = 0;
	t[0] = spawn_logger(k, p, 1, 0);
	run_for(k, k->p.quantum_ns);
	t[0]->vruntime += 20 * NSEC_PER_MSEC;
	t[1] = spawn_logger(k, p, 2, 1);
	run_for(k, k->p.quantum_ns);
	*nr_fork = nr_first_runs;	/* 2 if task 2 ran in the quantum after it was made */
	ksim_exit_task(k, t[0]);
	run_for(k, 10 * NSEC_PER_MSEC);

	nr_first_runs = 0;
	t[2] = spawn_logger(k, p, 3, NSEC_PER_MSEC);
	run_for(k, k->p.quantum_ns);
	t[3] = spawn_logger(k, p, 4, 0);
	t[4] = spawn_logger(k, p, 5, 0);
	run_for(k, 20 * NSEC_PER_MSEC);
	CHECK_EQ_U(nr_first_runs, 3);
	memcpy(sleep_order, first_runs, 3 * sizeof(*first_runs));
	for (int i = 1; i < 5; i++)
		ksim_exit_task(k, t[i]);
	CHECK(!k->failed);
	mpm_run_fini(&r);
}

static void test_first_run_order(void)
{
	unsigned int fork_rr, sleep_rr[3], fork_cfs, sleep_cfs[3];

	first_run_order(false, &fork_rr, sleep_rr);
	first_run_order(true, &fork_cfs, sleep_cfs);
	CHECK_EQ_U(fork_rr, 1);
	CHECK_EQ_U(fork_cfs, 2);
	CHECK(sleep_rr[0] == 3 && sleep_rr[1] == 4 && sleep_rr[2] == 5);
	CHECK(sleep_cfs[0] == 3 && sleep_cfs[1] == 5 && sleep_cfs[2] == 4);
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

/* Run quanta until the clock passes the next whole second. */
static void run_to_next_second(struct ksim *k)
{
	uint64_t sec = k->now / NSEC_PER_SEC;

	while (k->now / NSEC_PER_SEC == sec)
		ksim_run_quantum(k);
}

/*
 * vmstat_update runs on every cpu once a second (sysctl_stat_interval):
 * pages cpu 0 freed onto its list of node 1's zone go back one batch at
 * the third refresh after the frees (expire = 3, counted down from that
 * refresh on), and no more after; its list of its own node's zone is
 * never drained this way.
 */
static void test_vmstat_update(void)
{
	struct mpm_machine_spec s;
	struct mpm_run_config c;
	struct mpm_run r;
	struct per_cpu_pages *remote, *local;
	uint64_t pfns[64], pfn;
	struct ksim *k = idle_model(&r, &c, &s, false);
	int before, local_before;

	REQUIRE(mpm_cpu_to_node(k->m, 0) == 0 && mpm_pfn_to_zone(k->m, 1u << 15) == 1);
	remote = &r.m->zones[1].pageset[0];
	local = &r.m->zones[0].pageset[0];
	for (int i = 0; i < 64; i++)
		REQUIRE((pfns[i] = mpm_alloc_pages_node(k->m, 1, MPM_GFP_HIGHUSER_MOVABLE |
							MPM___GFP_THISNODE, 0, 0)) != MPM_NO_PFN);
	for (int i = 0; i < 64; i++)
		mpm_free_pages(k->m, pfns[i], 0, 0);
	pfn = mpm_alloc_pages_node(k->m, 0, MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_THISNODE, 0, 0);
	REQUIRE(pfn != MPM_NO_PFN);
	mpm_free_pages(k->m, pfn, 0, 0);
	before = remote->count;
	local_before = local->count;
	REQUIRE(before > remote->batch && local_before > 0);
	run_to_next_second(k);		/* activity: expire 3, counted down to 2 */
	run_to_next_second(k);		/* 1 */
	CHECK_EQ_U(remote->count, before);
	run_to_next_second(k);		/* 0: one batch goes */
	CHECK_EQ_U(remote->count, before - remote->batch);
	for (int i = 0; i < 3; i++)
		run_to_next_second(k);
	CHECK_EQ_U(remote->count, before - remote->batch);
	CHECK_EQ_U(local->count, local_before);
	CHECK(!k->failed);
	mpm_run_fini(&r);
}

int main(void)
{
	test_wakeup();
	test_fork_placement();
	test_fork_from_parent();
	test_wakeup_granularity();
	test_cfs_zero_step();
	test_first_run_order();
	test_ebizzy_cfs();
	test_vmstat_update();
	return t_report("sim/sched");
}
