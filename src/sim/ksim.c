// SPDX-License-Identifier: MIT
/*
 * ksim set-up, the owner table, the main loop and the owner checker.
 */
#include "sim/ksim.h"
#include "sim/size.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ksim_fail(struct ksim *k, const char *fmt, ...)
{
	va_list ap;

	if (k->failed)
		return;
	k->failed = true;
	va_start(ap, fmt);
	vsnprintf(k->error, sizeof(k->error), fmt, ap);
	va_end(ap);
}

bool ksim_charge_tables(struct ksim *k, uint64_t bytes, const char *what)
{
	uint64_t need = k->table_bytes + bytes;
	char want[32], have[32];

	if (k->table_limit && need > k->table_limit) {
		ksim_fail(k, "%s than this host can simulate: its tables would need %s, "
			  "more than the %s left for them", what,
			  mpm_format_mem_round(need, 1, want, sizeof(want)),
			  mpm_format_mem_round(k->table_limit, -1, have, sizeof(have)));
		return false;
	}
	k->table_bytes = need;
	return true;
}

uint32_t ksim_new_owner(struct ksim *k, enum owner_kind kind, void *obj)
{
	if (k->nr_owners == k->owners_cap) {
		uint32_t cap = k->owners_cap ? 2 * k->owners_cap : 1024;
		void **o = realloc(k->owner_obj, cap * sizeof(*o));
		uint8_t *kd;

		if (o)
			k->owner_obj = o;	/* keep what grew, even if the next fails */
		kd = o ? realloc(k->owner_kind, cap) : NULL;
		if (!kd) {
			ksim_fail(k, "out of memory in the simulator");
			return MPM_NO_OWNER;
		}
		k->owner_kind = kd;
		k->owners_cap = cap;
	}
	k->owner_obj[k->nr_owners] = obj;
	k->owner_kind[k->nr_owners] = (uint8_t)kind;
	return k->nr_owners++;
}

/* One access counter triple per pageblock of the pfn span. */
static int touch_init(struct ksim *k)
{
	k->touch_shift = mpm_pageblock_order(k->m);
	k->nr_touch = (size_t)((mpm_max_pfn(k->m) >> k->touch_shift) + 1);
	k->touch = calloc(NR_TOUCH * k->nr_touch, sizeof(*k->touch));
	return k->touch ? 0 : -1;
}

int ksim_init(struct ksim *k, struct mpm_machine *m, const struct ksim_params *p,
	      struct mpm_rng *rng)
{
	memset(k, 0, sizeof(*k));
	k->m = m;
	k->p = *p;
	k->rng = rng;
	k->nr_cpus = mpm_nr_cpus(m);
	k->cpus = calloc(k->nr_cpus, sizeof(*k->cpus));
	k->next_pid = 1;
	if (!k->cpus || mpm_rmap_enable(m) || touch_init(k) || ksim_reclaim_init(k))
		return -1;
	ksim_new_owner(k, OWNER_NONE, NULL);	/* id 0 = MPM_NO_OWNER */
	ksim_slab_init(k);
	if (ksim_start_kmempowerd(k))
		return -1;
	return k->failed ? -1 : 0;
}

static void free_vma(struct kvma *v)
{
	free(v->pfn);
	free(v->pte);
	free(v->huge);
	free(v);
}

void ksim_fini(struct ksim *k)
{
	free(k->touch);
	k->touch = NULL;
	for (size_t i = 0; i < k->nr_procs; i++) {
		struct kprocess *p = k->procs[i];

		if (p->mm) {
			for (size_t v = 0; v < p->mm->nr_vmas; v++)
				free_vma(p->mm->vmas[v]);
			free(p->mm->vmas);
			free(p->mm->pud);
			free(p->mm->pmd);
			free(p->mm->tlb);
			free(p->mm);
		}
		free(p->threads);
		free(p->wl);
		free(p);
	}
	for (size_t i = 0; i < k->nr_tasks; i++) {
		free(k->tasks[i]->prog);
		free(k->tasks[i]);
	}
	free(k->kmpd);		/* its entries were the tasks' prog */
	for (size_t i = 0; i < k->nr_files; i++) {
		free(k->files[i]->pfn);
		free(k->files[i]->dirty);
		free(k->files[i]);
	}
	for (unsigned int c = 0; c < k->nr_cpus; c++)
		free(k->cpus[c].rq);
	for (int s = 0; s < NR_SLAB_CACHES; s++) {
		struct kslab *sl = k->slab[s].all;

		while (sl) {
			struct kslab *n = sl->all_next;

			free(sl);
			sl = n;
		}
	}
	for (size_t i = 0; i < k->nr_dead_vmas; i++)
		free(k->dead_vmas[i]);
	free(k->dead_vmas);
	free(k->files);
	ksim_reclaim_fini(k);
	free(k->procs);
	free(k->tasks);
	free(k->sleepers);
	free(k->cpus);
	free(k->owner_obj);
	free(k->owner_kind);
	memset(k, 0, sizeof(*k));
}

void ksim_run_until(struct ksim *k, uint64_t until)
{
	while (k->now < until && !k->failed)
		ksim_run_quantum(k);
}

bool ksim_idle(const struct ksim *k)
{
	return k->nr_live_tasks == 0;
}

void ksim_check_allocator(struct ksim *k)
{
	char msg[160];

	if (k->failed)
		return;
	k->checked_calls++;
	if (mpm_check(k->m, msg, sizeof(msg)))
		ksim_fail(k, "invariant broken after allocator call %llu: %s",
			  (unsigned long long)k->checked_calls, msg);
}

/*
 * Every present page of an owner's pfn array: the reverse map names this
 * owner and index, and the page holds what the owner wrote.
 */
static int check_owned(struct ksim *k, const char *what, uint32_t id,
		       const uint32_t *pfn, uint32_t npages, uint32_t generation,
		       char *msg, size_t len)
{
	for (uint32_t i = 0; i < npages; i++) {
		uint32_t index, content, owner, want;

		if (pfn[i] == NO_PFN32)
			continue;
		owner = mpm_rmap_get(k->m, pfn[i], &index, &content);
		want = content_tag(id, i, generation);
		if (owner != id || index != i || content != want) {
			snprintf(msg, len,
				 "%s %u page %u at pfn %u: rmap says owner %u index %u, content %#x (expected %#x)",
				 what, id, i, pfn[i], owner, index, content, want);
			return -1;
		}
	}
	return 0;
}

/*
 * Count every owned page whose reverse map names another owner or index
 * (@owner_bad) or whose content is not what the owner wrote (@content_bad):
 * the "no page lost" proof at the end of every run.
 */
void ksim_count_mismatches(struct ksim *k, uint64_t *owner_bad, uint64_t *content_bad)
{
	*owner_bad = *content_bad = 0;
	for (size_t i = 0; i < k->nr_files; i++) {
		const struct kfile *f = k->files[i];

		for (uint32_t p = 0; p < f->npages; p++) {
			uint32_t index, content, owner;

			if (f->pfn[p] == NO_PFN32)
				continue;
			owner = mpm_rmap_get(k->m, f->pfn[p], &index, &content);
			*owner_bad += owner != f->id || index != p;
			*content_bad += owner == f->id && index == p &&
					content != content_tag(f->id, p, 0);
		}
	}
	for (size_t i = 0; i < k->nr_procs; i++) {
		struct kmm *mm = k->procs[i]->mm;

		for (size_t v = 0; mm && v < mm->nr_vmas; v++) {
			struct kvma *vma = mm->vmas[v];

			for (uint32_t p = 0; p < vma->npages; p++) {
				uint32_t index, content, owner;

				if (vma->pfn[p] == NO_PFN32)
					continue;
				owner = mpm_rmap_get(k->m, vma->pfn[p], &index, &content);
				*owner_bad += owner != vma->id || index != p;
				*content_bad += owner == vma->id && index == p &&
						content != content_tag(vma->id, p, vma->generation);
			}
		}
	}
}

/*
 * Each zone's LRU count is its page cache: the pages of every file that
 * lie in the zone (a page can also have a stale entry of its own on the
 * LRU, left by an earlier stay; it counts once).
 */
static int check_lru_counts(struct ksim *k, char *msg, size_t len)
{
	uint64_t *n = calloc(k->nr_zones, sizeof(*n));

	if (!n) {
		snprintf(msg, len, "out of memory in the simulator's checker");
		return -1;
	}
	for (size_t i = 0; i < k->nr_files; i++)
		for (uint32_t p = 0; p < k->files[i]->npages; p++)
			if (k->files[i]->pfn[p] != NO_PFN32)
				n[mpm_pfn_to_zone(k->m, k->files[i]->pfn[p])]++;
	for (unsigned int z = 0; z < k->nr_zones; z++)
		if (n[z] != k->lru[z].nr_pages) {
			snprintf(msg, len, "zone %u: %llu page-cache pages on its LRU counted, %llu cached",
				 z, (unsigned long long)k->lru[z].nr_pages, (unsigned long long)n[z]);
			free(n);
			return -1;
		}
	free(n);
	return 0;
}

int ksim_check_owners(struct ksim *k, char *msg, size_t len)
{
	for (size_t i = 0; i < k->nr_procs; i++) {
		struct kmm *mm = k->procs[i]->mm;

		for (size_t v = 0; mm && v < mm->nr_vmas; v++)
			if (check_owned(k, "vma", mm->vmas[v]->id, mm->vmas[v]->pfn,
					mm->vmas[v]->npages, mm->vmas[v]->generation, msg, len))
				return -1;
	}
	for (size_t i = 0; i < k->nr_files; i++)
		if (check_owned(k, "file", k->files[i]->id, k->files[i]->pfn,
				k->files[i]->npages, 0, msg, len))
			return -1;
	return check_lru_counts(k, msg, len);
}

static uint64_t mm_pages(const struct kmm *mm)
{
	uint64_t n = mm->rss + mm->nr_ptes;

	n += mm->pgd != NO_PFN32;
	for (uint32_t i = 0; i < mm->nr_pud; i++)
		n += mm->pud[i] != NO_PFN32;
	for (uint32_t i = 0; i < mm->nr_pmd; i++)
		n += mm->pmd[i] != NO_PFN32;
	if (mm->tlb) {
		n += mm->tlb->nr_batch;
		for (uint32_t i = 0; i < mm->tlb->nr; i++)
			n += mm->tlb->pages[i] & GATHER_HUGE ? 1u << 9 : 1;
	}
	return n;
}

uint64_t ksim_accounted_pages(const struct ksim *k)
{
	uint64_t n = ksim_cached_pages(k);

	for (size_t i = 0; i < k->nr_procs; i++)
		if (k->procs[i]->mm)
			n += mm_pages(k->procs[i]->mm);
	for (size_t i = 0; i < k->nr_tasks; i++)
		if (k->tasks[i]->stack != NO_PFN32)
			n += 2;		/* THREAD_SIZE_ORDER 1 */
	for (int c = 0; c < NR_SLAB_CACHES; c++)
		n += k->slab[c].nr_slabs << k->slab[c].order;
	return n;
}
