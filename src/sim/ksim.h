/* SPDX-License-Identifier: MIT */
/*
 * ksim: the kernel around the allocator, as much of it as decides where
 * pages go.  Logical CPUs share time between runnable tasks in CFS-sized
 * slices; tasks run programs (workloads) that fault pages into address
 * spaces, copy, unmap and exit; the kernel side allocates what 3.12
 * allocates for that (page tables, mmu_gather batch pages, slab objects,
 * kernel stacks, page cache) and reclaims clean page cache under pressure,
 * killing the largest process when nothing else helps.
 *
 * Time is virtual, in nanoseconds.  The machine is driven through the
 * public API of src/core only.  Everything random draws from one generator.
 * Simulation is in quanta: each quantum every CPU runs its current task for
 * the quantum's length, CPU by CPU, so the allocator sees the CPUs' page
 * faults and frees interleaved at quantum granularity.
 */
#ifndef MPM_SIM_KSIM_H
#define MPM_SIM_KSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <mempower/mempower.h>

#include "sim/rng.h"

#define NSEC_PER_USEC	1000ull
#define NSEC_PER_MSEC	1000000ull
#define NSEC_PER_SEC	1000000000ull
#define PAGES_PER_PMD	512u		/* pages mapped by one PTE page */
#define NO_PFN32	UINT32_MAX
/* pfns below 2^31: tables keep them in 32 bits, GATHER_HUGE the top one */
#define KSIM_MAX_PFNS	(1ull << 31)

/* Model parameters; each default and its source is in docs/sim-parameters.md. */
struct ksim_params {
	bool thp;			/* transparent_hugepage=always */
	bool sched_cfs;			/* CFS's vruntime order (sched_fair.c); else round robin */
	uint64_t quantum_ns;		/* interleaving granularity */
	uint64_t sched_latency_ns;	/* sysctl_sched_latency, scaled */
	uint64_t sched_min_gran_ns;	/* sysctl_sched_min_granularity, scaled */
	uint64_t sched_wakeup_gran_ns;	/* sysctl_sched_wakeup_granularity, scaled */
	uint64_t fault_ns;		/* anonymous 4 KiB fault incl. clear_page */
	uint64_t thp_fault_ns;		/* anonymous 2 MiB fault incl. clearing */
	uint64_t copy_ns_per_page;	/* memcpy of 4 KiB on one core */
	uint64_t zap_ns_per_page;	/* munmap: unmap + free one page */
	uint64_t exit_ns_per_page;	/* exit_mmap, per page */
	uint64_t read_ns_per_page;	/* page cache read, hit */
	uint64_t readin_ns_per_page;	/* page cache read, miss (I/O) */
};

void ksim_default_params(struct ksim_params *p, unsigned int nr_cpus);

/* ---- owners: what a page belongs to (rmap owner ids) ---- */

enum owner_kind { OWNER_NONE, OWNER_VMA, OWNER_FILE };

/* ---- address spaces ---- */

struct kvma {
	uint64_t va;			/* first virtual page, 512-aligned */
	uint32_t id;			/* rmap owner id */
	uint32_t npages;
	uint32_t generation;		/* bumped per mapping: content tags differ */
	uint32_t *pfn;			/* [npages], NO_PFN32 = not present */
	uint32_t *pte;			/* [npages / 512 rounded up] PTE page pfns */
	uint8_t *huge;			/* [same] 1 = mapped by a THP */
	uint64_t rss;			/* pages present */
	struct kmm *mm;
	void *slab_objs[3];		/* vm_area_struct, anon_vma, anon_vma_chain */
	uint32_t zap_pos;		/* munmap in progress: the next page to zap */
};

#define MMU_GATHER_BUNDLE	8	/* the on-stack batch */
#define MAX_GATHER_BATCH	510	/* (PAGE_SIZE - 16) / sizeof(void *) */
#define MAX_GATHER_BATCH_COUNT	(10000u / MAX_GATHER_BATCH)
#define GATHER_HUGE		0x80000000u	/* a THP's head in pages[] */
#define PAGEVEC_SIZE		14		/* include/linux/pagevec.h */

/*
 * struct mmu_gather of the munmap or exit_mmap in progress in an mm (one
 * at a time: both hold mmap_sem): the pages zapped and not yet freed, in
 * the order they were gathered, and the batch pages holding them beyond
 * the on-stack bundle.
 */
struct kgather {
	uint32_t pages[MMU_GATHER_BUNDLE + MAX_GATHER_BATCH_COUNT * MAX_GATHER_BATCH];
	uint32_t nr;
	uint32_t batch[MAX_GATHER_BATCH_COUNT];
	unsigned int nr_batch;
};

struct kmm {
	struct kvma **vmas;
	size_t nr_vmas, cap;
	uint64_t rss;			/* anonymous pages mapped */
	uint64_t nr_ptes;		/* page-table pages */
	uint32_t pgd;			/* pgd page */
	uint32_t *pud;			/* [512 GiB of address space]: its pud page */
	uint32_t *pmd;			/* [GiB of address space]: its pmd page */
	uint32_t nr_pud, nr_pmd;	/* entries of each, grown on demand */
	struct ktask *mmap_writer;	/* holds mmap_sem for write (munmap) */
	struct kgather *tlb;		/* allocated at the first munmap or exit */
	void *slab_objs[4];		/* mm_struct & co. */
};

/* ---- tasks ---- */

enum task_state { TASK_RUNNABLE, TASK_SLEEPING, TASK_DEAD };

struct ktask;
struct ksim;
struct kmempowerd;

/*
 * A program runs its task for up to @budget ns of CPU and returns what it
 * used.  It may change t->state (sleep, exit) and return early.
 */
typedef uint64_t (*kprogram_fn)(struct ksim *k, struct ktask *t, uint64_t budget);

struct ktask {
	unsigned int pid;
	unsigned int cpu;
	enum task_state state;
	uint64_t wake_at;		/* when SLEEPING */
	struct kmm *mm;			/* NULL for kernel threads */
	struct kprocess *proc;
	kprogram_fn run;
	void *prog;			/* the program's state */
	uint64_t slice_used;
	uint64_t vruntime;		/* sched_cfs: CPU time, nice 0 (se.vruntime) */
	uint32_t stack;			/* kernel stack (order 1) */
	void *task_obj;			/* task_struct slab object */
	uint64_t cpu_ns;		/* CPU time used */
	uint64_t exit_at;		/* when TASK_DEAD: the quantum it exited in */
	uint64_t nr_wakeups;		/* schedstat's se.statistics.nr_wakeups */
	bool mmap_wait;			/* asleep on mmap_sem */
};

/* A process: an mm and its threads; the workload owns its program state. */
struct kprocess {
	unsigned int pid;
	struct kmm *mm;
	struct ktask **threads;
	unsigned int nr_threads, live_threads;
	bool killed;			/* by the OOM killer */
	void (*on_exit)(struct ksim *k, struct kprocess *p);	/* workload hook */
	void *wl;			/* workload instance */
};

struct kcpu {
	struct ktask **rq;		/* runnable tasks, in the order they joined */
	size_t nr, cap, cur;		/* rq[cur] runs */
	uint64_t overrun;		/* ns the last step ran past its quantum */
	uint64_t min_vruntime;		/* sched_cfs: cfs_rq->min_vruntime */
	bool need_resched;		/* sched_cfs: pick the leftmost task before the next step */
};

/* ---- slab ---- */

struct kslab_cache {
	const char *name;
	unsigned int size;		/* object size, bytes */
	unsigned int order;		/* slab order */
	unsigned int objs;		/* objects per slab */
	unsigned int min_partial;	/* an emptied slab stays while nr_partial <= this */
	mpm_gfp_t gfp;			/* UNMOVABLE or RECLAIMABLE */
	struct kslab *partial;		/* slabs with free objects */
	struct kslab *all;		/* every slab, for teardown */
	unsigned int nr_partial;	/* slabs on the partial list, empty ones included */
	uint64_t nr_slabs, nr_objs;
};

struct kslab {
	uint32_t pfn;
	unsigned int inuse;
	struct kslab *next, *prev;	/* partial list */
	struct kslab *all_next, *all_prev;	/* every slab of the cache */
	struct kslab_cache *cache;
	bool on_partial;
};

enum { SLAB_TASK, SLAB_MM, SLAB_VMA, SLAB_ANON_VMA, SLAB_AVC, SLAB_FILES,
       SLAB_SIGNAL, SLAB_DENTRY, SLAB_INODE, SLAB_FILP, NR_SLAB_CACHES };

/* ---- page cache ---- */

struct kfile {
	uint32_t id;			/* rmap owner id */
	uint32_t npages;
	uint32_t *pfn;			/* [npages] cached page or NO_PFN32 */
	uint8_t *dirty;
	uint64_t cached;
	void *inode_obj, *dentry_obj;
};

/*
 * A zone's LRU of page cache pages: a FIFO ring of (file, index, pfn),
 * oldest first.  An entry whose file no longer has that pfn at that index
 * (truncated, or reclaimed and read again elsewhere) is stale.
 */
struct klru_entry {
	uint32_t file;
	uint32_t index;
	uint32_t pfn;
};

struct klru {
	struct klru_entry *ring;
	size_t head, len, cap;
	uint64_t nr_pages;	/* entries that are not stale: the zone's page cache */
};

/* ---- counters shown in results ---- */

struct ksim_counters {
	uint64_t faults, thp_faults, thp_fallbacks;
	uint64_t pte_pages, gather_pages;
	uint64_t slab_pages_allocated, slab_pages_freed;
	uint64_t stacks;
	uint64_t cache_reads, cache_misses;
	uint64_t cache_writes, files_deleted;
	uint64_t kswapd_wakeups, kswapd_runs, kswapd_reclaimed, direct_reclaimed;
	uint64_t oom_kills;
	uint64_t alloc_failures;
	uint64_t mmap_sem_waits;
	uint64_t processes, threads;
	/* kmempowerd (kmempowerd.c) */
	uint64_t evac_run, evac_aborted, evac_scanned;
	/* queued, then passed over by the worker's should_evacuate_region */
	uint64_t evac_skipped_free, evac_skipped_used;
	uint64_t migrated, reclaimed, migrate_failed;
	uint64_t evac_drained;		/* pages evac_drain returned to the buddy lists */
	uint64_t kmempowerd_ns;
};

struct ksim {
	struct mpm_machine *m;
	struct ksim_params p;
	struct mpm_rng *rng;
	uint64_t now;			/* virtual ns */
	/*
	 * skip_idle() stops short of this time as of the next whole second:
	 * the power model's next pricing tick, so that an idle stretch is
	 * not priced together with the busy one before it (0: none).
	 */
	uint64_t skip_limit;
	unsigned int nr_cpus;
	struct kcpu *cpus;
	struct ktask **tasks;		/* every task ever created, for freeing */
	size_t nr_tasks, tasks_cap;
	struct ktask **sleepers;	/* tasks asleep, unordered */
	size_t nr_sleepers, sleepers_cap;
	size_t nr_live_tasks;		/* not yet dead */
	struct kprocess **procs;
	size_t nr_procs, procs_cap;
	unsigned int next_pid;
	unsigned int next_cpu;		/* fork balancing: round robin */

	/* rmap owners: id -> object */
	void **owner_obj;
	uint8_t *owner_kind;
	uint32_t nr_owners, owners_cap;

	struct kslab_cache slab[NR_SLAB_CACHES];
	struct kfile **files;
	size_t nr_files, files_cap;
	struct kvma **dead_vmas;	/* unmapped; freed at the end (workloads may hold them) */
	size_t nr_dead_vmas, dead_cap;
	/*
	 * Host bytes the per-page tables of the live vmas (pfn, pte, huge),
	 * the records of every vma mapped so far (mm.c: VMA_RECORD_BYTES) and
	 * the files' tables (pfn, dirty) take, and the most they may (0 = no
	 * limit): a mapping or a file past it fails the run rather than the
	 * host (ksim_charge_tables, mpm_run_table_limit).
	 */
	uint64_t table_bytes, table_limit;
	struct klru *lru;		/* [zone id]: one LRU per zone, as 3.12's lruvec */
	unsigned int nr_zones;
	unsigned int *zone_node;	/* [zone id] */
	unsigned int *kswapd_cpu;	/* [node]: where the node's kswapd frees */
	struct kswapd_state {
		uint64_t wakeups_seen;	/* the node's zones' slow-path wakeups, at its last look */
		bool awake;		/* not balanced when its last balance_pgdat ended */
		unsigned int nr_zones;	/* the node's zones, lowest first */
		unsigned int zids[MPM_NR_ZONE_TYPES];
	} *kswapd;			/* [node] */

	struct ksim_counters c;
	struct kmempowerd **kmpd;	/* per node, with the evacuation feature */
	unsigned int nr_kmpd;
	/*
	 * DRAM accesses for the power model, per pageblock since the last
	 * sample: [3 * (pfn >> touch_shift) + TOUCH_*].  O(1) per touch.
	 */
	uint32_t *touch;		/* folded and cleared every sample */
	size_t nr_touch;		/* pageblocks covered */
	unsigned int touch_shift;
	void *owner;			/* the run driving this simulation */
	struct ktask *current;		/* the task whose program is running */
	/*
	 * mempower run --check-every-op: the invariant checker after every
	 * call that changes the allocator's state (ksim_allocator_call_done)
	 */
	bool check_every_op;
	uint64_t checked_calls;		/* allocator calls checked so far */
	char error[200];
	bool failed;
};

/*
 * Make room for one more element in a growable array (doubling, 16 at
 * first); false, with the array untouched, when memory runs out.
 */
#define ksim_grow(arr, nr, cap) __extension__ ({				\
	bool __ok = true;							\
	if ((nr) == (cap)) {							\
		size_t __c = (cap) ? 2 * (cap) : 16;				\
		void *__n = realloc((arr), __c * sizeof(*(arr)));		\
		if (__n) {							\
			(arr) = __n;						\
			(cap) = __c;						\
		} else {							\
			__ok = false;						\
		}								\
	}									\
	__ok;									\
})

/* ksim.c */
int ksim_init(struct ksim *k, struct mpm_machine *m, const struct ksim_params *p,
	      struct mpm_rng *rng);
void ksim_fini(struct ksim *k);
/* Run all CPUs until @until (virtual ns). */
void ksim_run_until(struct ksim *k, uint64_t until);
/* Nothing runnable and nothing asleep: every workload has finished. */
bool ksim_idle(const struct ksim *k);
uint32_t ksim_new_owner(struct ksim *k, enum owner_kind kind, void *obj);
/* kmempowerd.c: the owners' migration callbacks, and kmempowerd per node if evacuating. */
int ksim_start_kmempowerd(struct ksim *k);
/*
 * The move callback (mpm_migrate_ops): the owner of a moving page (@arg:
 * the ksim) learns its new pfn; -1 if it no longer holds it there.
 */
int ksim_migrate_page(void *arg, uint32_t owner, uint32_t index, uint64_t from, uint64_t to);
/* Fail the run with a one-line reason (the first failure is kept); cold. */
void ksim_fail(struct ksim *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), cold));
/*
 * Charge @bytes of per-page tables, which @what (the start of a sentence)
 * is about to allocate, against k->table_limit; false after failing the
 * run when they do not fit.  bytes are given back by subtracting them
 * from k->table_bytes.
 */
bool ksim_charge_tables(struct ksim *k, uint64_t bytes, const char *what);
/*
 * Pages the model says are in use: mapped anonymous pages, page-table pages,
 * mmu_gather batch pages, kernel stacks, slab pages, page cache.  With the
 * pcp lists drained it must equal the allocator's used pages.
 */
uint64_t ksim_accounted_pages(const struct ksim *k);
/* Verify every owned page: rmap and content agree with the owner. */
int ksim_check_owners(struct ksim *k, char *msg, size_t len);
/*
 * kmempowerd.c: no node's kmempowerd sleeps, unwoken, while a region of
 * its node is queued (queue_mempower_work always (re)queues the work).
 */
int ksim_check_kmempowerd(struct ksim *k, char *msg, size_t len);
void ksim_check_allocator(struct ksim *k);
/*
 * Every call the simulator makes that changes the allocator's state (an
 * allocation, a free, a drain, a reverse-map update, an evacuation) is
 * followed by this: with check_every_op, mpm_check() runs, and a broken
 * invariant fails the run.  The owner checker needs the owner's own
 * tables to be up to date as well, which they are only between programs'
 * steps: the run driver checks owners after every quantum instead.
 */
static inline void ksim_allocator_call_done(struct ksim *k)
{
	if (__builtin_expect(k->check_every_op, 0))
		ksim_check_allocator(k);
}

/*
 * After a free of @nr blocks from @pfns by the simulator (@ret: the free's
 * return), the check above.  The models free only what they allocated and
 * unmapped: a refused free is a page the model lost track of, and fails
 * the run.
 */
static inline void ksim_freed(struct ksim *k, int ret, const uint64_t *pfns, unsigned int nr)
{
	if (__builtin_expect(ret, 0))
		ksim_fail(k, "the allocator refused to free %spfn %llu",
			  nr > 1 ? "a page of a list from " : "",
			  (unsigned long long)pfns[0]);
	ksim_allocator_call_done(k);
}

/* mpm_free_pages() by the simulator, and ksim_freed(). */
static inline void ksim_free_pages(struct ksim *k, uint64_t pfn, unsigned int order,
				   unsigned int cpu)
{
	ksim_freed(k, mpm_free_pages(k->m, pfn, order, cpu), &pfn, 1);
}

/* mpm_rmap_set() by the simulator: the page was just allocated, so a refusal fails the run. */
static inline void ksim_rmap_set(struct ksim *k, uint64_t pfn, uint32_t owner, uint32_t index,
				 uint32_t content)
{
	if (__builtin_expect(mpm_rmap_set(k->m, pfn, owner, index, content), 0))
		ksim_fail(k, "the reverse map refused owner %u for pfn %llu", owner,
			  (unsigned long long)pfn);
	ksim_allocator_call_done(k);
}
void ksim_count_mismatches(struct ksim *k, uint64_t *owner_bad, uint64_t *content_bad);
/*
 * A content tag: what an owner wrote into its page (a hash, never 0).
 * Inline: every fault writes one and the end-of-run proof checks each.
 */
static inline uint32_t content_tag(uint32_t owner, uint32_t index, uint32_t generation)
{
	uint64_t x = ((uint64_t)owner << 32 | index) ^ ((uint64_t)generation * 0x9E3779B97F4A7C15ull);

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (uint32_t)x | 1u;
}

/*
 * A program's atomic step (a search, a file read, a compile) costs more CPU
 * than one turn may hold: it keeps the rest as debt and pays it first on
 * its next turns.  Pays what @budget allows into *@used; true while debt
 * was left to pay (the caller loops again instead of starting a step).
 */
static inline bool ksim_pay_debt(uint64_t *debt, uint64_t budget, uint64_t *used)
{
	uint64_t n;

	if (!*debt)
		return false;
	n = *debt < budget - *used ? *debt : budget - *used;
	*debt -= n;
	*used += n;
	return true;
}

/* What a touch moved: a 4 KiB page read or written, or one 64-byte line. */
enum { TOUCH_PAGE_RD, TOUCH_PAGE_WR, TOUCH_LINE, NR_TOUCH };

/* The workload or the kernel touched @pfn (docs/power-model.md, "Accesses"). */
static inline void ksim_touch_n(struct ksim *k, uint64_t pfn, unsigned int what, uint32_t n)
{
	size_t b = (size_t)(pfn >> k->touch_shift);

	if (__builtin_expect(b < k->nr_touch, 1))
		k->touch[NR_TOUCH * b + what] += n;
}

static inline void ksim_touch(struct ksim *k, uint64_t pfn, unsigned int what)
{
	ksim_touch_n(k, pfn, what, 1);
}

/* sched.c */
uint64_t ksim_sched_slice(const struct ksim *k, size_t nr_running);
/*
 * A new task of @proc, queued.  NULL when the run failed, or when the
 * child's own allocations OOM-killed its parent or @proc (fork gives up:
 * nothing of the child is left, and k->failed stays false).
 */
struct ktask *ksim_spawn_on(struct ksim *k, struct kprocess *proc, kprogram_fn run,
			    void *prog, unsigned int cpu);
struct ktask *ksim_spawn(struct ksim *k, struct kprocess *proc, kprogram_fn run,
			 void *prog);
void ksim_sleep(struct ksim *k, struct ktask *t, uint64_t until);
void ksim_wake_up(struct ksim *k, struct ktask *t);
void ksim_exit_task(struct ksim *k, struct ktask *t);
void ksim_run_quantum(struct ksim *k);

/* sched_fair.c: CFS's vruntime rules, with sched_cfs */
void task_fork_fair(struct ksim *k, struct ktask *p);
void place_entity(struct ksim *k, struct kcpu *c, struct ktask *t);
void check_preempt_wakeup(struct ksim *k, struct kcpu *c, const struct ktask *p);
void update_curr(struct kcpu *c, struct ktask *curr, uint64_t delta_exec);
size_t pick_next_entity(const struct kcpu *c);

/* mm.c */
struct kprocess *ksim_fork(struct ksim *k, unsigned int max_threads, void *wl,
			   void (*on_exit)(struct ksim *, struct kprocess *));
/*
 * mmap of @npages anonymous pages by @t.  NULL if the mapping task must
 * first wait for mmap_sem (it sleeps: call again when it runs), or was
 * OOM-killed by the vm_area_struct's allocation.
 */
struct kvma *ksim_mmap(struct ksim *k, struct ktask *t, uint32_t npages);
/*
 * Fault in pages of @vma from *@pos on, each costing the fault plus
 * @per_page_extra_ns, until @to or @budget ns are used; advances *@pos and
 * returns the ns used.  Waits (returns 0, task asleep) while another thread
 * holds mmap_sem for write; stops when the task is killed.
 */
uint64_t ksim_fault_range(struct ksim *k, struct ktask *t, struct kvma *vma,
			  uint32_t *pos, uint32_t to, uint64_t per_page_extra_ns,
			  uint64_t budget);
/*
 * munmap of a whole vma, as much as @budget allows; *@done once the vma is
 * gone.  Holds mmap_sem for write from the first step to the last.
 */
uint64_t ksim_munmap(struct ksim *k, struct ktask *t, struct kvma *vma,
		     uint64_t budget, bool *done);
void ksim_exit_mm(struct ksim *k, struct kprocess *p, unsigned int cpu);

/* slab.c */
void ksim_slab_init(struct ksim *k);
void *ksim_slab_alloc(struct ksim *k, int cache, unsigned int cpu);
void ksim_slab_free(struct ksim *k, void *obj, unsigned int cpu);

/* reclaim.c */
uint64_t ksim_alloc_page(struct ksim *k, mpm_gfp_t gfp, unsigned int order,
			 unsigned int cpu);
uint64_t ksim_alloc_page_failed(struct ksim *k, mpm_gfp_t gfp, unsigned int order,
				unsigned int cpu);
struct kfile *ksim_new_file(struct ksim *k, uint32_t npages, unsigned int cpu);
uint64_t ksim_read_file(struct ksim *k, struct kfile *f, uint32_t from, uint32_t to,
			unsigned int cpu, bool dirty);
/*
 * write(2) of whole pages [from, to): pages not cached are allocated without
 * I/O (hot, as grab_cache_page_write_begin does), every page is dirtied;
 * returns the copy time.  Stops early if the allocation fails (the writer
 * was OOM-killed or the run failed).
 */
uint64_t ksim_write_file(struct ksim *k, struct kfile *f, uint32_t from, uint32_t to,
			 unsigned int cpu);
/*
 * unlink of the last name: truncate_inode_pages frees every cached page
 * (hot, on @cpu), dirty or not; the inode and dentry go back to slab and
 * the file leaves k->files.  LRU entries of the file become stale (its
 * owner slot is cleared) and reclaim skips them.  @f is freed.
 */
void ksim_delete_file(struct ksim *k, struct kfile *f, unsigned int cpu);
/*
 * release_pages of one pagevec (@n <= PAGEVEC_SIZE pfns; GATHER_HUGE marks
 * a THP head): each page leaves the reverse map (the LRU) and is freed,
 * order-0 pages last first, hot, onto @cpu's pcp lists.
 */
void ksim_release_pages(struct ksim *k, const uint32_t *pages, unsigned int n, unsigned int cpu);
int ksim_reclaim_init(struct ksim *k);
void ksim_lru_add(struct ksim *k, uint32_t file, uint32_t index, uint32_t pfn);
/* The page at @pfn leaves the page cache: its LRU entry goes stale. */
void ksim_lru_del(struct ksim *k, uint64_t pfn);
void ksim_reclaim_fini(struct ksim *k);
void ksim_kswapd(struct ksim *k);
uint64_t ksim_cached_pages(const struct ksim *k);

#endif /* MPM_SIM_KSIM_H */
