// SPDX-License-Identifier: MIT
/*
 * Slab caches, SLUB-like, for the kernel objects a process, a thread and a
 * mapping cost.  A cache keeps a list of partly used slabs and allocates
 * from the first; a slab whose last object is freed stays on that list
 * while the list holds no more than min_partial slabs, empty or partly
 * used (__slab_free, for a slab on the node list: discard when
 * n->nr_partial > s->min_partial; no per-cpu slabs or partial lists here;
 * min_partial is ilog2(size) / 2, clamped to [5, 10], as kmem_cache_open
 * sets it), and is returned to the page allocator otherwise.  Partly used
 * slabs are what keeps kernel pages scattered after the processes that
 * caused them are gone.  Object sizes and slab orders:
 * docs/sim-parameters.md.
 */
#include "sim/ksim.h"

#include <stdlib.h>

#define SLAB_GFP_UNMOVABLE	(MPM_GFP_KERNEL | MPM___GFP_NOTRACK | MPM___GFP_COMP)
#define SLAB_GFP_RECLAIMABLE	(SLAB_GFP_UNMOVABLE | MPM___GFP_RECLAIMABLE)

static const struct {
	const char *name;
	unsigned int size, order;
	bool reclaimable;
} caches[NR_SLAB_CACHES] = {
	[SLAB_TASK]	= { "task_struct", 5952, 3, false },
	[SLAB_MM]	= { "mm_struct", 896, 3, false },
	[SLAB_VMA]	= { "vm_area_struct", 184, 0, false },
	[SLAB_ANON_VMA]	= { "anon_vma", 72, 0, false },
	[SLAB_AVC]	= { "anon_vma_chain", 64, 0, false },
	[SLAB_FILES]	= { "files_cache", 704, 3, false },
	[SLAB_SIGNAL]	= { "signal_cache", 1088, 3, false },
	[SLAB_DENTRY]	= { "dentry", 192, 0, true },
	[SLAB_INODE]	= { "ext4_inode_cache", 1016, 3, true },
	[SLAB_FILP]	= { "filp", 256, 1, false },
};

static unsigned int ilog2u(unsigned int x)
{
	return 31u - (unsigned int)__builtin_clz(x);
}

void ksim_slab_init(struct ksim *k)
{
	for (int i = 0; i < NR_SLAB_CACHES; i++) {
		struct kslab_cache *c = &k->slab[i];
		unsigned int mp = ilog2u(caches[i].size) / 2;

		c->name = caches[i].name;
		c->size = caches[i].size;
		c->order = caches[i].order;
		c->objs = (unsigned int)((MPM_PAGE_SIZE << c->order) / c->size);
		c->min_partial = mp < 5 ? 5 : mp > 10 ? 10 : mp;
		c->gfp = caches[i].reclaimable ? SLAB_GFP_RECLAIMABLE : SLAB_GFP_UNMOVABLE;
	}
}

static void partial_add(struct kslab_cache *c, struct kslab *s)
{
	s->prev = NULL;
	s->next = c->partial;
	if (c->partial)
		c->partial->prev = s;
	c->partial = s;
	s->on_partial = true;
	c->nr_partial++;
}

static void partial_del(struct kslab_cache *c, struct kslab *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		c->partial = s->next;
	if (s->next)
		s->next->prev = s->prev;
	s->on_partial = false;
	c->nr_partial--;
}

void *ksim_slab_alloc(struct ksim *k, int cache, unsigned int cpu)
{
	struct kslab_cache *c = &k->slab[cache];
	struct kslab *s = c->partial;

	if (!s) {
		uint64_t pfn = ksim_alloc_page(k, c->gfp, c->order, cpu);

		if (pfn == MPM_NO_PFN)
			return NULL;
		s = calloc(1, sizeof(*s));
		if (!s) {
			ksim_fail(k, "out of memory in the simulator");
			ksim_free_pages(k, pfn, c->order, cpu);
			return NULL;
		}
		s->pfn = (uint32_t)pfn;
		s->cache = c;
		s->all_next = c->all;
		if (c->all)
			c->all->all_prev = s;
		c->all = s;
		partial_add(c, s);
		c->nr_slabs++;
		k->c.slab_pages_allocated += 1u << c->order;
	}
	if (++s->inuse == c->objs)
		partial_del(c, s);
	c->nr_objs++;
	ksim_touch(k, s->pfn, TOUCH_LINE);	/* the object's constructor */
	return s;
}

void ksim_slab_free(struct ksim *k, void *obj, unsigned int cpu)
{
	struct kslab *s = obj;
	struct kslab_cache *c;

	if (!s)
		return;
	c = s->cache;
	c->nr_objs--;
	ksim_touch(k, s->pfn, TOUCH_LINE);	/* the freelist pointer */
	if (!s->on_partial)
		partial_add(c, s);
	if (--s->inuse)
		return;
	/* __slab_free: kept unless the partial list, this slab on it, is long */
	if (c->nr_partial <= c->min_partial)
		return;
	/* discard_slab */
	partial_del(c, s);
	if (s->all_prev)
		s->all_prev->all_next = s->all_next;
	else
		c->all = s->all_next;
	if (s->all_next)
		s->all_next->all_prev = s->all_prev;
	ksim_free_pages(k, s->pfn, c->order, cpu);
	k->c.slab_pages_freed += 1u << c->order;
	c->nr_slabs--;
	free(s);
}
