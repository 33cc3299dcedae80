// SPDX-License-Identifier: MIT
/*
 * Address spaces as Linux 3.12 builds and tears them down, for what the page
 * allocator sees: pgd/pud/pmd/pte pages (pgd_alloc, __pte_alloc:
 * PGALLOC_GFP, unmovable), anonymous faults (do_anonymous_page:
 * GFP_HIGHUSER_MOVABLE order 0; do_huge_pmd_anonymous_page: GFP_TRANSHUGE
 * order 9 with a deposited pte page, falling back to 4 KiB), munmap through
 * an mmu_gather (zap in address order, batch pages of GFP_NOWAIT, flushes
 * batch by batch through release_pages, hot, on the unmapping cpu; the
 * page-table pages through the same gather after the pages) and exit_mmap
 * (one gather for every vma, in address order).  mmap_sem: munmap holds it
 * for write; mmaps and faults of the other threads wait for it.
 */
#include "sim/ksim.h"

#include <stdlib.h>
#include <string.h>

#define PGALLOC_GFP	(MPM_GFP_KERNEL | MPM___GFP_NOTRACK | MPM___GFP_REPEAT | MPM___GFP_ZERO)
#define GATHER_GFP	(MPM_GFP_NOWAIT | MPM___GFP_NOWARN)
#define HPAGE_ORDER	9
#define PAGES_PER_GIB	(1u << 18)
#define GIB_PER_PUD	512u		/* a pud page maps 512 GiB (a pgd entry) */
/* x86_64's user address space, TASK_SIZE_MAX: 128 TiB less a page */
#define USER_GIB	(128u << 10)

static uint32_t alloc_pt_page(struct ksim *k, unsigned int cpu)
{
	uint64_t pfn = ksim_alloc_page(k, PGALLOC_GFP, 0, cpu);

	if (pfn == MPM_NO_PFN)
		return NO_PFN32;
	k->c.pte_pages++;
	return (uint32_t)pfn;
}

static void free_pt_page(struct ksim *k, uint32_t *pfn, unsigned int cpu)
{
	if (*pfn != NO_PFN32)
		ksim_free_pages(k, *pfn, 0, cpu);
	*pfn = NO_PFN32;
}

struct kprocess *ksim_fork(struct ksim *k, unsigned int max_threads, void *wl,
			   void (*on_exit)(struct ksim *, struct kprocess *))
{
	struct kprocess *p = calloc(1, sizeof(*p));
	struct kmm *mm = calloc(1, sizeof(*mm));
	/* copy_mm runs in the parent (or, in a workload's set-up, where the child will) */
	unsigned int cpu = k->current ? k->current->cpu : k->next_cpu % k->nr_cpus;

	if (p)
		p->threads = calloc(max_threads, sizeof(*p->threads));
	if (!p || !mm || !p->threads) {
		free(mm);
		if (p)
			free(p->threads);
		free(p);
		ksim_fail(k, "out of memory in the simulator");
		return NULL;
	}
	if (!ksim_grow(k->procs, k->nr_procs, k->procs_cap)) {
		ksim_fail(k, "out of memory in the simulator");
		free(mm);
		free(p->threads);
		free(p);
		return NULL;
	}
	k->procs[k->nr_procs++] = p;
	p->pid = k->next_pid;
	p->mm = mm;
	p->wl = wl;
	p->on_exit = on_exit;
	mm->pgd = alloc_pt_page(k, cpu);
	mm->slab_objs[0] = ksim_slab_alloc(k, SLAB_MM, cpu);
	mm->slab_objs[1] = ksim_slab_alloc(k, SLAB_FILES, cpu);
	mm->slab_objs[2] = ksim_slab_alloc(k, SLAB_SIGNAL, cpu);
	k->c.processes++;
	return p;
}

/* @npages rounded up to whole 2 MiB units, as mappings are placed */
static uint64_t va_span(uint64_t npages)
{
	return (npages + PAGES_PER_PMD - 1) & ~(uint64_t)(PAGES_PER_PMD - 1);
}

/*
 * First-fit from address 0 up, in 2 MiB units: freed ranges are reused.
 * mm->vmas is kept in address order, so one pass finds the lowest gap; its
 * index is where the new vma goes (*slot).
 */
static uint64_t find_va(const struct kmm *mm, uint32_t npages, size_t *slot)
{
	uint64_t va = 0, len = va_span(npages);
	size_t i;

	for (i = 0; i < mm->nr_vmas; i++) {
		const struct kvma *v = mm->vmas[i];

		if (v->va >= va + len)
			break;
		va = v->va + va_span(v->npages);
	}
	*slot = i;
	return va;
}

static bool wait_mmap_sem(struct ksim *k, struct ktask *t);

/* malloc's per-allocation overhead (glibc: one size word, 16-byte chunks) */
#define MALLOC_OVERHEAD		16

/* Host bytes of a vma's per-page tables: pfn, and pte + huge per 2 MiB */
static uint64_t vma_table_bytes(uint64_t npages)
{
	uint64_t chunks = (npages + PAGES_PER_PMD - 1) / PAGES_PER_PMD;

	return npages * sizeof(uint32_t) + chunks * (sizeof(uint32_t) + 1) + 3 * MALLOC_OVERHEAD;
}

/*
 * What outlives a vma's unmapping to the end of the run: its struct and
 * its slot on k->dead_vmas, and its owner id's entries (ksim_new_owner;
 * twice, as the table grows by doubling), so that many small mappings are
 * bounded as one large one is.
 */
#define VMA_RECORD_BYTES \
	(sizeof(struct kvma) + MALLOC_OVERHEAD + sizeof(void *) + 2 * (sizeof(void *) + 1))

/*
 * vm_mmap_pgoff: mmap_sem for write first (a munmap of another thread
 * holds it across quanta; the mapping itself takes no time here), then
 * mmap_region: the vm_area_struct is allocated (vm_area_alloc) before the
 * rest of the mapping is set up.  That allocation may OOM-kill the mapping
 * task itself, whose exit tears its mm down: then no mapping is made
 * (NULL, as for a run that failed), so no vma is left in a dead mm.
 */
struct kvma *ksim_mmap(struct ksim *k, struct ktask *t, uint32_t npages)
{
	uint32_t chunks = (npages + PAGES_PER_PMD - 1) / PAGES_PER_PMD;
	unsigned int cpu = t->cpu;
	struct kmm *mm = t->mm;
	struct kvma *v;
	void *vma_obj;
	size_t slot;

	if (wait_mmap_sem(k, t))
		return NULL;
	/* the simulator's own limit, not the kernel's (an 8T pagetest, say) */
	if (!ksim_charge_tables(k, vma_table_bytes(npages) + VMA_RECORD_BYTES,
				"the workload maps more memory, or more often,"))
		return NULL;
	vma_obj = ksim_slab_alloc(k, SLAB_VMA, cpu);
	if (!vma_obj) {
		k->table_bytes -= vma_table_bytes(npages) + VMA_RECORD_BYTES;
		return NULL;
	}
	v = calloc(1, sizeof(*v));
	if (!v || !(v->pfn = malloc(npages * sizeof(*v->pfn))) ||
	    !(v->pte = malloc(chunks * sizeof(*v->pte))) || !(v->huge = calloc(chunks, 1))) {
		if (v) {
			free(v->pfn);
			free(v->pte);
		}
		free(v);
		ksim_slab_free(k, vma_obj, cpu);
		ksim_fail(k, "out of memory in the simulator");
		return NULL;
	}
	memset(v->pfn, 0xff, npages * sizeof(*v->pfn));
	memset(v->pte, 0xff, chunks * sizeof(*v->pte));
	if (!ksim_grow(mm->vmas, mm->nr_vmas, mm->cap)) {
		ksim_fail(k, "out of memory in the simulator");
		free(v->pfn);
		free(v->pte);
		free(v->huge);
		free(v);
		ksim_slab_free(k, vma_obj, cpu);
		return NULL;
	}
	v->va = find_va(mm, npages, &slot);
	v->npages = npages;
	v->mm = mm;
	v->id = ksim_new_owner(k, OWNER_VMA, v);
	v->generation = (uint32_t)mpm_rng_next(k->rng);
	v->slab_objs[0] = vma_obj;
	memmove(&mm->vmas[slot + 1], &mm->vmas[slot], (mm->nr_vmas - slot) * sizeof(*mm->vmas));
	mm->vmas[slot] = v;
	mm->nr_vmas++;
	return v;
}

/* Grow the page-table page array *@tab of *@nr entries to cover index @i. */
static bool pt_table_cover(struct ksim *k, uint32_t **tab, uint32_t *nr, uint32_t i)
{
	uint32_t want = *nr ? *nr : 8, *t;

	if (i < *nr)
		return true;
	while (want <= i)
		want *= 2;
	if (!(t = realloc(*tab, want * sizeof(**tab)))) {
		ksim_fail(k, "out of memory in the simulator");
		return false;
	}
	memset(t + *nr, 0xff, (want - *nr) * sizeof(*t));	/* NO_PFN32 */
	*tab = t;
	*nr = want;
	return true;
}

/* The pmd page covering @va (and the pud above it), allocated on demand. */
static bool ensure_pmd(struct ksim *k, struct kmm *mm, uint64_t va, unsigned int cpu)
{
	uint32_t gib = (uint32_t)(va / PAGES_PER_GIB), pud = gib / GIB_PER_PUD;

	/* the workloads' limits keep mappings below it; past it the run fails */
	if (va / PAGES_PER_GIB >= USER_GIB) {
		ksim_fail(k, "address space above 128 TiB (x86_64's user space)");
		return false;
	}
	if (!pt_table_cover(k, &mm->pud, &mm->nr_pud, pud) ||
	    !pt_table_cover(k, &mm->pmd, &mm->nr_pmd, gib))
		return false;
	if (mm->pud[pud] == NO_PFN32 && (mm->pud[pud] = alloc_pt_page(k, cpu)) == NO_PFN32)
		return false;
	if (mm->pmd[gib] == NO_PFN32 && (mm->pmd[gib] = alloc_pt_page(k, cpu)) == NO_PFN32)
		return false;
	return true;
}

/*
 * The allocations of the first fault in a 2 MiB range, each in the order
 * 3.12 makes them (see ksim_fault_range).  Any of them may fail by
 * OOM-killing this task, whose exit buries @v and frees its mm's page
 * tables: nothing more may be allocated for either then, so each failure
 * ends the fault at once.
 */

/* anon_vma_prepare, on the vma's first fault: the anon_vma_chain, then the anon_vma. */
static bool anon_vma_prepare(struct ksim *k, struct kvma *v, unsigned int cpu)
{
	if (v->slab_objs[1])
		return true;
	if (!v->slab_objs[2] && !(v->slab_objs[2] = ksim_slab_alloc(k, SLAB_AVC, cpu)))
		return false;
	return (v->slab_objs[1] = ksim_slab_alloc(k, SLAB_ANON_VMA, cpu)) != NULL;
}

/* __pte_alloc (or pte_alloc_one for a THP's deposit): the chunk's pte page. */
static bool pte_alloc(struct ksim *k, struct kvma *v, uint32_t chunk, unsigned int cpu)
{
	uint32_t pte = alloc_pt_page(k, cpu);

	if (pte == NO_PFN32)
		return false;
	v->pte[chunk] = pte;
	v->mm->nr_ptes++;
	ksim_touch(k, pte, TOUCH_PAGE_WR);	/* a page-table page is cleared */
	return true;
}

static void map_page(struct ksim *k, struct kvma *v, uint32_t i, uint64_t pfn)
{
	v->pfn[i] = (uint32_t)pfn;
	ksim_rmap_set(k, pfn, v->id, i, content_tag(v->id, i, v->generation));
}

/*
 * do_huge_pmd_anonymous_page, after anon_vma_prepare: the huge page, then
 * its pte page to deposit (__do_huge_pmd_anonymous_page), then the
 * mapping.  1: mapped; 0: no huge page, fall back to 4 KiB pages; -1: the
 * pte page could not be had (VM_FAULT_OOM: the huge page goes back).
 */
static int fault_huge(struct ksim *k, struct kvma *v, uint32_t chunk, unsigned int cpu)
{
	uint64_t pfn = mpm_alloc_pages(k->m, MPM_GFP_TRANSHUGE, HPAGE_ORDER, cpu);

	ksim_allocator_call_done(k);
	if (pfn == MPM_NO_PFN) {
		k->c.thp_fallbacks++;
		return 0;
	}
	if (!pte_alloc(k, v, chunk, cpu)) {
		ksim_free_pages(k, pfn, HPAGE_ORDER, cpu);	/* not mapped: @v may be gone */
		return -1;
	}
	for (uint32_t j = 0; j < PAGES_PER_PMD; j++) {
		map_page(k, v, chunk * PAGES_PER_PMD + j, pfn + j);
		ksim_touch(k, pfn + j, TOUCH_PAGE_WR);	/* clear_huge_page */
	}
	v->huge[chunk] = 1;
	v->rss += PAGES_PER_PMD;
	v->mm->rss += PAGES_PER_PMD;
	k->c.thp_faults++;
	return 1;
}

static bool wait_mmap_sem(struct ksim *k, struct ktask *t)
{
	struct kmm *mm = t->mm;

	if (!mm->mmap_writer || mm->mmap_writer == t)
		return false;
	t->mmap_wait = true;
	k->c.mmap_sem_waits++;
	ksim_sleep(k, t, UINT64_MAX);
	return true;
}

#define FAULT_BATCH	32

/*
 * How many of the next faults fit: the pages up to @to and to the end of
 * the 2 MiB chunk (the next chunk needs its page-table page first), and
 * the faults that start before @used reaches @budget at @cost each.
 */
static uint32_t faults_ahead(uint32_t i, uint32_t to, uint64_t used, uint64_t budget,
			     uint64_t cost)
{
	uint64_t n = to - i;
	uint32_t chunk_end = (i / PAGES_PER_PMD + 1) * PAGES_PER_PMD;

	if (chunk_end - i < n)
		n = chunk_end - i;
	if (cost && (budget - used - 1) / cost + 1 < n)
		n = (budget - used - 1) / cost + 1;
	return n < FAULT_BATCH ? (uint32_t)n : FAULT_BATCH;
}

/*
 * Map the @got pages of a fault run at *@pos of @v (do_anonymous_page for
 * each: clear_page, set_pte) and move *@pos past them; returns their time.
 */
static uint64_t map_faulted(struct ksim *k, struct kvma *v, uint32_t *pos,
			    const uint64_t *pfns, size_t got, uint64_t cost)
{
	uint32_t i = *pos;

	if (!got)
		return 0;
	for (size_t j = 0; j < got; j++) {
		map_page(k, v, i + (uint32_t)j, pfns[j]);
		ksim_touch(k, pfns[j], TOUCH_PAGE_WR);		/* clear_page */
	}
	/* set_pte: a line of the run's page-table page per fault */
	ksim_touch_n(k, v->pte[i / PAGES_PER_PMD], TOUCH_LINE, (uint32_t)got);
	v->rss += got;
	v->mm->rss += got;
	k->c.faults += got;
	*pos += (uint32_t)got;
	return got * cost;
}

/*
 * Fault pages [*pos, to) of @v in order, while the budget lasts.  The
 * order-0 faults of one chunk take their pages in one bulk allocation,
 * which decides exactly as one allocation per fault would: nothing else
 * allocates or frees between them.
 */
uint64_t ksim_fault_range(struct ksim *k, struct ktask *t, struct kvma *v,
			  uint32_t *pos, uint32_t to, uint64_t extra, uint64_t budget)
{
	unsigned int cpu = t->cpu;
	uint64_t cost = k->p.fault_ns + extra;
	uint64_t used = 0;

	if (wait_mmap_sem(k, t))
		return 0;
	while (*pos < to && used < budget && t->state == TASK_RUNNABLE && !k->failed) {
		uint32_t i = *pos, chunk = i / PAGES_PER_PMD;
		uint64_t pfns[FAULT_BATCH];
		size_t n, got;

		if (v->pte[chunk] == NO_PFN32) {
			/*
			 * __handle_mm_fault: pud_alloc, pmd_alloc; for a THP
			 * do_huge_pmd_anonymous_page (anon_vma_prepare, the huge
			 * page, its pte page); else, or if it falls back,
			 * __pte_alloc and do_anonymous_page's anon_vma_prepare.
			 */
			if (!ensure_pmd(k, v->mm, v->va + (uint64_t)chunk * PAGES_PER_PMD, cpu))
				break;
			if (k->p.thp && i % PAGES_PER_PMD == 0 && i + PAGES_PER_PMD <= v->npages) {
				int huge;

				if (!anon_vma_prepare(k, v, cpu))
					break;
				huge = fault_huge(k, v, chunk, cpu);
				if (huge < 0)
					break;
				if (huge) {
					*pos += PAGES_PER_PMD;
					used += k->p.thp_fault_ns + PAGES_PER_PMD * extra;
					continue;
				}
			}
			if (!pte_alloc(k, v, chunk, cpu) || !anon_vma_prepare(k, v, cpu))
				break;
		}
		n = faults_ahead(i, to, used, budget, cost);
		got = mpm_alloc_pages_bulk(k->m, MPM_GFP_HIGHUSER_MOVABLE, 0, cpu, n, pfns);
		ksim_allocator_call_done(k);
		used += map_faulted(k, v, pos, pfns, got, cost);
		if (got == n)
			continue;
		/*
		 * The fault after the run fails.  The run's pages are mapped
		 * first, as one fault at a time would have them when this one
		 * reclaims or OOM-kills: the victim's rss counts them, and if
		 * the victim is this task, exit frees them with its vmas (v is
		 * buried then: nothing below may touch it).
		 */
		pfns[0] = ksim_alloc_page_failed(k, MPM_GFP_HIGHUSER_MOVABLE, 0, cpu);
		if (pfns[0] == MPM_NO_PFN)
			break;		/* killed, or the run failed */
		used += map_faulted(k, v, pos, pfns, 1, cost);
	}
	return used;
}

static void bury_vma(struct ksim *k, struct kvma *v)
{
	struct kmm *mm = v->mm;

	for (size_t i = 0; i < mm->nr_vmas; i++)
		if (mm->vmas[i] == v) {
			/* keep the address order find_va relies on */
			memmove(&mm->vmas[i], &mm->vmas[i + 1],
				(--mm->nr_vmas - i) * sizeof(*mm->vmas));
			break;
		}
	free(v->pfn);
	free(v->pte);
	free(v->huge);
	k->table_bytes -= vma_table_bytes(v->npages);	/* the record stays charged */
	v->pfn = v->pte = NULL;
	v->huge = NULL;
	k->owner_obj[v->id] = NULL;
	if (!ksim_grow(k->dead_vmas, k->nr_dead_vmas, k->dead_cap)) {
		/* a workload or a fault in progress may still hold @v: leak it */
		ksim_fail(k, "out of memory in the simulator");
		return;
	}
	k->dead_vmas[k->nr_dead_vmas++] = v;
}

/*
 * How far ahead tlb_flush starts loading a page's metadata: more than a
 * pagevec.  The pages are gathered in a few instructions each and then
 * freed a pagevec at a time, so a prefetch issued only 8 pages ahead has
 * barely started when its page is freed; 16 ahead it was issued during the
 * previous pagevec's free.  Measured against 8 (docs/benchmarks-log.md): 0.95x
 * the user time at scale 0.125, 0.97x at full scale.  Since an unmap no
 * longer loads the reverse map's line (PG_owned), one line per page is in
 * flight instead of two, and 32 ahead beats 16: 0.985x at 0.125, 0.984x at
 * full scale; 64 is no better than 32.
 */
#define PREFETCH_AHEAD	32
_Static_assert(PREFETCH_AHEAD > PAGEVEC_SIZE, "prefetch a pagevec ahead");

/*
 * tlb_gather_mmu: the mm's gather, empty, or the one of a munmap in
 * progress that exit takes over.  tlb_gather_done lets it go once a munmap
 * or exit has finished with it: it holds 39 KB.
 */
static struct kgather *tlb_gather_mmu(struct ksim *k, struct kmm *mm)
{
	if (!mm->tlb) {
		mm->tlb = malloc(sizeof(*mm->tlb));
		if (!mm->tlb) {
			ksim_fail(k, "out of memory in the simulator");
			return NULL;
		}
		mm->tlb->nr = 0;
		mm->tlb->nr_batch = 0;
	}
	return mm->tlb;
}

static void tlb_gather_done(struct kmm *mm)
{
	free(mm->tlb);
	mm->tlb = NULL;
}

/*
 * release_pages, one pagevec of @n entries: a THP goes at once, in order
 * (put_page of a compound page frees it past the pcp lists); order-0 pages
 * are list_add()ed to pages_to_free, which free_hot_cold_page_list(list, 0)
 * frees from the head: last page first, hot.
 */
void ksim_release_pages(struct ksim *k, const uint32_t *pages, unsigned int n, unsigned int cpu)
{
	uint64_t vec[PAGEVEC_SIZE];
	unsigned int nr = 0;

	for (unsigned int i = 0; i < n; i++) {
		uint32_t pfn = pages[i] & ~GATHER_HUGE;

		/* off the LRU (see zap_one), as release_pages takes it */
		if (pages[i] & GATHER_HUGE) {
			for (uint32_t j = 0; j < PAGES_PER_PMD; j++)
				mpm_rmap_clear(k->m, pfn + j);
			ksim_free_pages(k, pfn, HPAGE_ORDER, cpu);
		} else {
			mpm_rmap_clear(k->m, pfn);
			vec[PAGEVEC_SIZE - 1 - nr++] = pfn;
		}
	}
	if (nr)
		ksim_freed(k, mpm_free_page_list(k->m, vec + PAGEVEC_SIZE - nr, nr, cpu, 0),
			   vec + PAGEVEC_SIZE - nr, nr);
}

/*
 * tlb_flush_mmu: every page gathered goes, one batch at a time (the bundle
 * of 8 on the stack, then each batch page's 510): free_pages_and_swap_cache
 * hands a batch to release_pages a pagevec (14) at a time.
 */
static void tlb_flush_mmu(struct ksim *k, struct kgather *tlb, unsigned int cpu)
{
	for (uint32_t start = 0; start < tlb->nr;) {
		uint32_t end = start < MMU_GATHER_BUNDLE ? MMU_GATHER_BUNDLE : start + MAX_GATHER_BATCH;

		if (end > tlb->nr)
			end = tlb->nr;
		for (uint32_t i = start; i < end; i += PAGEVEC_SIZE) {
			unsigned int n = end - i < PAGEVEC_SIZE ? end - i : PAGEVEC_SIZE;

			for (uint32_t j = i + PREFETCH_AHEAD; j < i + PREFETCH_AHEAD + n && j < tlb->nr; j++)
				if (!(tlb->pages[j] & GATHER_HUGE))
					mpm_prefetch_page(k->m, tlb->pages[j]);
			ksim_release_pages(k, tlb->pages + i, n, cpu);
		}
		start = end;
	}
	tlb->nr = 0;
}

/*
 * tlb_remove_page: gather a page.  The page that fills the active batch
 * (the bundle, then each batch page's 510) moves the gather to the next
 * batch page, asking for a new one (GFP_NOWAIT, up to
 * MAX_GATHER_BATCH_COUNT) when there is none; without one the gather is
 * flushed, this page included.
 */
static void tlb_remove_page(struct ksim *k, struct kgather *tlb, uint32_t entry,
			    unsigned int cpu)
{
	uint32_t next;

	tlb->pages[tlb->nr++] = entry;
	if (tlb->nr < MMU_GATHER_BUNDLE || (tlb->nr - MMU_GATHER_BUNDLE) % MAX_GATHER_BATCH)
		return;
	next = (tlb->nr - MMU_GATHER_BUNDLE) / MAX_GATHER_BATCH;
	if (next < tlb->nr_batch)
		return;				/* kept from before the last flush */
	if (next < MAX_GATHER_BATCH_COUNT) {
		uint64_t pfn = mpm_alloc_pages(k->m, GATHER_GFP, 0, cpu);

		ksim_allocator_call_done(k);
		if (pfn != MPM_NO_PFN) {
			tlb->batch[tlb->nr_batch++] = (uint32_t)pfn;
			k->c.gather_pages++;
			return;
		}
	}
	tlb_flush_mmu(k, tlb, cpu);
}

/* tlb_finish_mmu: the last flush, then the batch pages, in chain order. */
static void tlb_finish_mmu(struct ksim *k, struct kgather *tlb, unsigned int cpu)
{
	tlb_flush_mmu(k, tlb, cpu);
	for (unsigned int g = 0; g < tlb->nr_batch; g++)
		ksim_free_pages(k, tlb->batch[g], 0, cpu);
	tlb->nr_batch = 0;
}

/*
 * Zap one page or one huge pmd at v->zap_pos into the gather
 * (zap_pte_range, zap_huge_pmd): the mapping and rss go now, the page at
 * the flush.  Until then it keeps its reverse-map entry, which here stands
 * for PageLRU: release_pages takes a page off the LRU, so compaction can
 * still isolate a gathered page, and its migration fails (the gather holds
 * a reference; here the owner no longer maps it).  Clearing the entry at
 * the flush also touches each page's metadata once, not twice.
 */
static void zap_one(struct ksim *k, struct kvma *v, struct kgather *tlb, unsigned int cpu)
{
	uint32_t i = v->zap_pos, chunk = i / PAGES_PER_PMD;

	if (v->huge[chunk] && i % PAGES_PER_PMD == 0) {
		uint32_t head = v->pfn[i];

		for (uint32_t j = 0; j < PAGES_PER_PMD; j++)
			v->pfn[i + j] = NO_PFN32;
		v->huge[chunk] = 0;
		v->rss -= PAGES_PER_PMD;
		v->mm->rss -= PAGES_PER_PMD;
		tlb_remove_page(k, tlb, head | GATHER_HUGE, cpu);
		/* then the deposited pte page (the chunk's) goes at once: pte_free */
		free_pt_page(k, &v->pte[chunk], cpu);
		v->mm->nr_ptes--;
		return;
	}
	if (v->pfn[i] == NO_PFN32)
		return;
	tlb_remove_page(k, tlb, v->pfn[i], cpu);
	v->pfn[i] = NO_PFN32;
	v->rss--;
	v->mm->rss--;
}

/* free_pte_range for @v's chunk @c: its pte page into the gather (pte_free_tlb). */
static void free_pte_page(struct ksim *k, struct kvma *v, uint32_t c, struct kgather *tlb,
			  unsigned int cpu)
{
	if (v->pte[c] == NO_PFN32)
		return;
	tlb_remove_page(k, tlb, v->pte[c], cpu);
	v->pte[c] = NO_PFN32;
	v->mm->nr_ptes--;
}

/* free_pte_range over every chunk of @v (munmap). */
static void free_pte_pages(struct ksim *k, struct kvma *v, struct kgather *tlb, unsigned int cpu)
{
	uint32_t chunks = (v->npages + PAGES_PER_PMD - 1) / PAGES_PER_PMD;

	for (uint32_t c = 0; c < chunks; c++)
		free_pte_page(k, v, c, tlb, cpu);
}

/*
 * unlink_anon_vmas: put_anon_vma frees the vma's own anon_vma, then the
 * anon_vma_chain object goes.
 */
static void unlink_anon_vmas(struct ksim *k, struct kvma *v, unsigned int cpu)
{
	ksim_slab_free(k, v->slab_objs[1], cpu);
	ksim_slab_free(k, v->slab_objs[2], cpu);
	v->slab_objs[1] = v->slab_objs[2] = NULL;
}

/* remove_vma: the vm_area_struct goes, after the last flush. */
static void remove_vma(struct ksim *k, struct kvma *v, unsigned int cpu)
{
	ksim_slab_free(k, v->slab_objs[0], cpu);
	v->slab_objs[0] = NULL;
	bury_vma(k, v);
}

/*
 * The rest of unmap_region once every page is zapped: free_pgtables
 * (unlink_anon_vmas, the pte pages into the gather; the pmd and pud pages
 * stay, see docs/sim-parameters.md §5), tlb_finish_mmu, remove_vma.
 */
static void finish_unmap(struct ksim *k, struct kvma *v, struct kgather *tlb, unsigned int cpu)
{
	unlink_anon_vmas(k, v, cpu);
	free_pte_pages(k, v, tlb, cpu);
	tlb_finish_mmu(k, tlb, cpu);
	remove_vma(k, v, cpu);
}

static void release_mmap_sem(struct ksim *k, struct kprocess *p)
{
	p->mm->mmap_writer = NULL;
	for (unsigned int i = 0; i < p->nr_threads; i++) {
		struct ktask *t = p->threads[i];

		if (t->state == TASK_SLEEPING && t->mmap_wait) {
			t->mmap_wait = false;
			ksim_wake_up(k, t);
		}
	}
}

uint64_t ksim_munmap(struct ksim *k, struct ktask *t, struct kvma *v,
		     uint64_t budget, bool *done)
{
	struct kgather *tlb;
	uint64_t used = 0;

	*done = false;
	if (wait_mmap_sem(k, t))
		return 0;
	if (!(tlb = tlb_gather_mmu(k, v->mm)))
		return 0;
	t->mm->mmap_writer = t;
	while (v->zap_pos < v->npages && used < budget) {
		uint32_t chunk = v->zap_pos / PAGES_PER_PMD;
		bool huge = v->huge[chunk];

		zap_one(k, v, tlb, t->cpu);
		v->zap_pos += huge ? PAGES_PER_PMD : 1;
		used += k->p.zap_ns_per_page;	/* a huge pmd zaps as one entry */
	}
	if (v->zap_pos >= v->npages) {
		finish_unmap(k, v, tlb, t->cpu);
		tlb_gather_done(t->mm);
		release_mmap_sem(k, t->proc);
		*done = true;
	}
	return used;
}

/* One past @v's last page, as vm_end. */
static uint64_t vma_end(const struct kvma *v)
{
	return v->va + v->npages;
}

/* pmd_free_tlb of every pmd page below GiB @upto not yet freed. */
static void free_pmd_pages(struct ksim *k, struct kmm *mm, uint32_t *gib_done, uint32_t upto,
			   struct kgather *tlb, unsigned int cpu)
{
	for (; *gib_done < upto && *gib_done < mm->nr_pmd; (*gib_done)++)
		if (mm->pmd[*gib_done] != NO_PFN32) {
			tlb_remove_page(k, tlb, mm->pmd[*gib_done], cpu);
			mm->pmd[*gib_done] = NO_PFN32;
		}
}

/*
 * free_pgtables over every vma, in address order: vmas less than a pmd
 * apart are one call down free_pgd_range (unlink_anon_vmas of each first).
 * It walks the call's range a GiB (pud entry) at a time: the pte pages
 * of the GiB, then its pmd page, which free_pmd_range frees only when the
 * next vma does not reach into that GiB (its ceiling).  After the last
 * call, the pud page.
 */
static void free_pgtables(struct ksim *k, struct kmm *mm, struct kvma **vmas, size_t nr,
			  struct kgather *tlb, unsigned int cpu)
{
	uint32_t gib_done = 0;

	for (size_t i = 0; i < nr;) {
		size_t last = i;

		while (last + 1 < nr && vmas[last + 1]->va <= vma_end(vmas[last]) + PAGES_PER_PMD)
			last++;
		for (size_t j = i; j <= last; j++)
			unlink_anon_vmas(k, vmas[j], cpu);
		for (size_t j = i; j <= last; j++) {
			struct kvma *v = vmas[j];
			uint32_t chunks = (v->npages + PAGES_PER_PMD - 1) / PAGES_PER_PMD;

			for (uint32_t c = 0; c < chunks; c++) {
				/* a GiB below this chunk's is done: its pmd page goes */
				free_pmd_pages(k, mm, &gib_done,
					       (uint32_t)((v->va + (uint64_t)c * PAGES_PER_PMD) /
							  PAGES_PER_GIB), tlb, cpu);
				free_pte_page(k, v, c, tlb, cpu);
			}
		}
		free_pmd_pages(k, mm, &gib_done,
			       last + 1 < nr ? (uint32_t)(vmas[last + 1]->va / PAGES_PER_GIB) :
					       UINT32_MAX,
			       tlb, cpu);
		i = last + 1;
	}
	free_pmd_pages(k, mm, &gib_done, UINT32_MAX, tlb, cpu);
	/* the pud pages last, low to high (below 512 GiB there is one) */
	for (uint32_t i = 0; i < mm->nr_pud; i++)
		if (mm->pud[i] != NO_PFN32) {
			tlb_remove_page(k, tlb, mm->pud[i], cpu);
			mm->pud[i] = NO_PFN32;
		}
}

/*
 * exit_mmap: one gather for the whole mm: unmap_vmas over every vma in
 * address order, free_pgtables, tlb_finish_mmu, then remove_vma of each;
 * mmdrop then frees the pgd and the mm's objects.
 */
void ksim_exit_mm(struct ksim *k, struct kprocess *p, unsigned int cpu)
{
	struct kmm *mm = p->mm;
	struct kgather *tlb = tlb_gather_mmu(k, mm);
	struct kvma **vmas = NULL;
	size_t nr = mm->nr_vmas;

	if (!tlb)
		return;
	if (nr && !(vmas = malloc(nr * sizeof(*vmas)))) {
		ksim_fail(k, "out of memory in the simulator");
		return;
	}
	/* a copy, as remove_vma takes each out of mm->vmas (in address order) */
	if (nr)
		memcpy(vmas, mm->vmas, nr * sizeof(*vmas));
	for (size_t i = 0; i < nr; i++)
		while (vmas[i]->zap_pos < vmas[i]->npages) {
			bool huge = vmas[i]->huge[vmas[i]->zap_pos / PAGES_PER_PMD];

			zap_one(k, vmas[i], tlb, cpu);
			vmas[i]->zap_pos += huge ? PAGES_PER_PMD : 1;
		}
	free_pgtables(k, mm, vmas, nr, tlb, cpu);
	tlb_finish_mmu(k, tlb, cpu);
	tlb_gather_done(mm);
	for (size_t i = 0; i < nr; i++)
		remove_vma(k, vmas[i], cpu);
	free(vmas);
	free_pt_page(k, &mm->pgd, cpu);
	for (int i = 0; i < 4; i++)
		ksim_slab_free(k, mm->slab_objs[i], cpu);
	memset(mm->slab_objs, 0, sizeof(mm->slab_objs));
	mm->mmap_writer = NULL;
}
