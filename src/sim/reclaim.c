// SPDX-License-Identifier: MIT
/*
 * Page cache and memory pressure.  Files hold page cache pages
 * (GFP_HIGHUSER_MOVABLE, cold for reads), kept on one LRU, oldest first.
 * kswapd: when a zone falls below its low watermark it reclaims clean page
 * cache until every zone is above its high watermark (balance_pgdat),
 * dirty pages being written back and rotated (pageout).  An allocation
 * that fails goes through direct reclaim (SWAP_CLUSTER_MAX pages a round,
 * all pcp lists drained as __alloc_pages_direct_reclaim does) and, for
 * orders up to PAGE_ALLOC_COSTLY_ORDER without __GFP_NORETRY, the OOM
 * killer: the process with most rss + page tables dies.  There is no swap.
 */
#include "sim/ksim.h"

#include <stdlib.h>
#include <string.h>

#define SWAP_CLUSTER_MAX	32
#define PAGE_ALLOC_COSTLY_ORDER	3

uint64_t ksim_cached_pages(const struct ksim *k)
{
	uint64_t n = 0;

	for (size_t i = 0; i < k->nr_files; i++)
		n += k->files[i]->cached;
	return n;
}

static void lru_push(struct ksim *k, uint32_t file, uint32_t index)
{
	if (k->lru_len == k->lru_cap) {
		size_t cap = k->lru_cap ? 2 * k->lru_cap : 4096;
		struct klru_entry *n = malloc(cap * sizeof(*n));

		if (!n) {
			ksim_fail(k, "out of memory in the simulator");
			return;
		}
		for (size_t i = 0; i < k->lru_len; i++)
			n[i] = k->lru[(k->lru_head + i) % k->lru_cap];
		free(k->lru);
		k->lru = n;
		k->lru_head = 0;
		k->lru_cap = cap;
	}
	k->lru[(k->lru_head + k->lru_len++) % k->lru_cap] = (struct klru_entry){ file, index };
}

/* Reclaim up to @nr clean page cache pages from the LRU's cold end. */
static uint64_t shrink_page_cache(struct ksim *k, uint64_t nr, unsigned int cpu)
{
	uint64_t freed = 0, scanned = 0, budget = k->lru_len;

	while (freed < nr && k->lru_len && scanned++ < budget) {
		struct klru_entry e = k->lru[k->lru_head];
		struct kfile *f;
		uint64_t pfn;

		k->lru_head = (k->lru_head + 1) % k->lru_cap;
		k->lru_len--;
		f = k->owner_obj[e.file];
		if (!f || f->pfn[e.index] == NO_PFN32)
			continue;		/* truncated since */
		if (f->dirty[e.index]) {
			f->dirty[e.index] = 0;	/* written back; rotated */
			lru_push(k, e.file, e.index);
			continue;
		}
		pfn = f->pfn[e.index];
		mpm_rmap_clear(k->m, pfn);
		ksim_freed(k, mpm_free_cold_page(k->m, pfn, cpu), &pfn, 1);
		f->pfn[e.index] = NO_PFN32;
		f->cached--;
		freed++;
	}
	return freed;
}

static bool zone_below(const struct mpm_machine *m, bool low)
{
	for (unsigned int z = 0; z < mpm_nr_zones(m); z++) {
		struct mpm_zone_info zi;

		mpm_zone_info(m, z, &zi);
		if (zi.present && zi.free_pages < (low ? zi.wmark_low : zi.wmark_high))
			return true;
	}
	return false;
}

/* balance_pgdat, run at a quantum boundary: below low -> reclaim to high. */
void ksim_kswapd(struct ksim *k, unsigned int cpu)
{
	if (!k->lru_len || !zone_below(k->m, true))
		return;
	k->c.kswapd_wakeups++;
	while (zone_below(k->m, false)) {
		uint64_t n = shrink_page_cache(k, SWAP_CLUSTER_MAX, cpu);

		k->c.kswapd_reclaimed += n;
		if (!n)
			break;
	}
}

/* oom_badness: rss + page tables; the biggest live process. */
static struct kprocess *select_bad_process(struct ksim *k)
{
	struct kprocess *victim = NULL;
	uint64_t best = 0;

	for (size_t i = 0; i < k->nr_procs; i++) {
		struct kprocess *p = k->procs[i];
		uint64_t points;

		if (p->killed || !p->live_threads)
			continue;
		points = p->mm->rss + p->mm->nr_ptes;
		if (points > best) {
			best = points;
			victim = p;
		}
	}
	return victim;
}

static void oom_kill(struct ksim *k, struct kprocess *p)
{
	p->killed = true;
	k->c.oom_kills++;
	for (unsigned int i = 0; i < p->nr_threads; i++)
		ksim_exit_task(k, p->threads[i]);
}

uint64_t ksim_alloc_page(struct ksim *k, mpm_gfp_t gfp, unsigned int order,
			 unsigned int cpu)
{
	uint64_t pfn = mpm_alloc_pages(k->m, gfp, order, cpu);

	ksim_allocator_call_done(k);
	if (pfn != MPM_NO_PFN)
		return pfn;
	return ksim_alloc_page_failed(k, gfp, order, cpu);
}

/*
 * What follows an allocation that failed (the allocator's attempt, with its
 * counters, has been made): direct reclaim, then the OOM killer.
 */
uint64_t ksim_alloc_page_failed(struct ksim *k, mpm_gfp_t gfp, unsigned int order,
				unsigned int cpu)
{
	uint64_t pfn;

	if (!(gfp & MPM___GFP_WAIT)) {
		k->c.alloc_failures++;
		return MPM_NO_PFN;
	}
	for (;;) {
		uint64_t n = shrink_page_cache(k, SWAP_CLUSTER_MAX, cpu);

		k->c.direct_reclaimed += n;
		mpm_drain_all_pages(k->m);
		/* the check after the allocation covers the drain too */
		pfn = mpm_alloc_pages(k->m, gfp, order, cpu);
		ksim_allocator_call_done(k);
		if (pfn != MPM_NO_PFN)
			return pfn;
		if (n)
			continue;
		if (order > PAGE_ALLOC_COSTLY_ORDER || (gfp & MPM___GFP_NORETRY)) {
			k->c.alloc_failures++;
			return MPM_NO_PFN;
		}
		{
			struct kprocess *victim = select_bad_process(k);

			if (!victim) {
				ksim_fail(k, "out of memory with nothing left to kill");
				return MPM_NO_PFN;
			}
			oom_kill(k, victim);
			/* the allocating task may have been the victim */
			if (k->current && k->current->state == TASK_DEAD)
				return MPM_NO_PFN;
			pfn = mpm_alloc_pages(k->m, gfp, order, cpu);
			ksim_allocator_call_done(k);
			if (pfn != MPM_NO_PFN)
				return pfn;
		}
	}
}

struct kfile *ksim_new_file(struct ksim *k, uint32_t npages, unsigned int cpu)
{
	struct kfile *f = calloc(1, sizeof(*f));

	if (!f || !(f->pfn = malloc(npages * sizeof(*f->pfn))) ||
	    !(f->dirty = calloc(npages, 1))) {
		if (f)
			free(f->pfn);
		free(f);
		ksim_fail(k, "out of memory in the simulator");
		return NULL;
	}
	memset(f->pfn, 0xff, npages * sizeof(*f->pfn));
	if (!ksim_grow(k->files, k->nr_files, k->files_cap)) {
		ksim_fail(k, "out of memory in the simulator");
		free(f->pfn);
		free(f->dirty);
		free(f);
		return NULL;
	}
	k->files[k->nr_files++] = f;
	f->npages = npages;
	f->id = ksim_new_owner(k, OWNER_FILE, f);
	f->inode_obj = ksim_slab_alloc(k, SLAB_INODE, cpu);
	f->dentry_obj = ksim_slab_alloc(k, SLAB_DENTRY, cpu);
	return f;
}

/* add_to_page_cache_lru: a new page for @f at @i, owned, on the LRU. */
static bool add_to_page_cache(struct ksim *k, struct kfile *f, uint32_t i,
			      mpm_gfp_t gfp, unsigned int cpu)
{
	uint64_t pfn = ksim_alloc_page(k, gfp, 0, cpu);

	if (pfn == MPM_NO_PFN)
		return false;
	f->pfn[i] = (uint32_t)pfn;
	ksim_rmap_set(k, pfn, f->id, i, content_tag(f->id, i, 0));
	f->cached++;
	lru_push(k, f->id, i);
	return true;
}

uint64_t ksim_read_file(struct ksim *k, struct kfile *f, uint32_t from, uint32_t to,
			unsigned int cpu, bool dirty)
{
	uint64_t used = 0;

	for (uint32_t i = from; i < to && i < f->npages && !k->failed; i++) {
		k->c.cache_reads++;
		if (f->pfn[i] == NO_PFN32) {
			/* readahead pages are allocated cold */
			if (!add_to_page_cache(k, f, i, MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_COLD, cpu))
				break;
			k->c.cache_misses++;
			used += k->p.readin_ns_per_page;
			ksim_touch(k, f->pfn[i], TOUCH_PAGE_WR);	/* the disk's DMA */
		} else {
			used += k->p.read_ns_per_page;
		}
		ksim_touch(k, f->pfn[i], TOUCH_PAGE_RD);	/* copy_to_user */
		if (dirty)
			f->dirty[i] = 1;
	}
	return used;
}

uint64_t ksim_write_file(struct ksim *k, struct kfile *f, uint32_t from, uint32_t to,
			 unsigned int cpu)
{
	uint64_t used = 0;

	for (uint32_t i = from; i < to && i < f->npages && !k->failed; i++) {
		k->c.cache_writes++;
		/* a full-page write needs no read-in; mapping gfp, not cold */
		if (f->pfn[i] == NO_PFN32 &&
		    !add_to_page_cache(k, f, i, MPM_GFP_HIGHUSER_MOVABLE, cpu))
			break;
		f->dirty[i] = 1;
		ksim_touch(k, f->pfn[i], TOUCH_PAGE_WR);	/* copy_from_user */
		used += k->p.read_ns_per_page;	/* copy_from_user of 4 KiB */
	}
	return used;
}

void ksim_delete_file(struct ksim *k, struct kfile *f, unsigned int cpu)
{
	for (uint32_t i = 0; i < f->npages; i++) {
		if (f->pfn[i] == NO_PFN32)
			continue;
		mpm_rmap_clear(k->m, f->pfn[i]);
		ksim_free_pages(k, f->pfn[i], 0, cpu);
		f->pfn[i] = NO_PFN32;
	}
	f->cached = 0;
	ksim_slab_free(k, f->inode_obj, cpu);
	ksim_slab_free(k, f->dentry_obj, cpu);
	k->owner_obj[f->id] = NULL;
	/* from the end: files are mostly deleted soon after they were made */
	for (size_t i = k->nr_files; i-- > 0;)
		if (k->files[i] == f) {
			k->files[i] = k->files[--k->nr_files];
			break;
		}
	k->c.files_deleted++;
	free(f->pfn);
	free(f->dirty);
	free(f);
}
