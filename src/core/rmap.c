// SPDX-License-Identifier: MIT
/*
 * The reverse map: owner, index and content tag of an allocated page, kept
 * in the page's own 16 bytes.  An allocated page is on no list, so its link
 * words are free: `next` holds the owner and `prev` the index, as the
 * kernel reuses struct page's lru, mapping and index words; `private`
 * holds the content tag.  The owner serialises access to its own pages: it
 * sets and clears them under its own lock, which kmempowerd takes too
 * before it moves one (evacuate.c); only owner and index are read without
 * that lock, with relaxed atomics (READ_LINK_ONCE, page.h).
 *
 * Whether they are valid is the page's PG_owned flag: mpm_rmap_clear()
 * only drops the flag and the free that follows reuses the words as list
 * links.  Recording an owner at a page fault then writes the line the
 * allocation has just written, instead of a second cold line per page in
 * a side array (docs/benchmarks-log.md: 0.96x the full-scale run).  Every
 * reader goes through page_rmap_owner().  Like the kernel's free of a page
 * that is still mapped, freeing an owned page is a bad free (alloc.c).
 */
#include "mmzone.h"

int mpm_rmap_enable(struct mpm_machine *m)
{
	m->rmap_enabled = true;
	return 0;
}

int mpm_rmap_enabled(const struct mpm_machine *m)
{
	return m->rmap_enabled;
}

static inline void rmap_record(struct mpm_page *page, uint8_t flags, uint32_t owner,
			       uint32_t index, uint32_t content)
{
	WRITE_LINK(page->next, owner);
	WRITE_LINK(page->prev, index);
	WRITE_LINK(page->private, content);
	WRITE_ONCE(page->flags, flags | PG_owned);
}

/*
 * May an owner be recorded on inner page @pfn (flags 0 or PG_owned)?  Only
 * if it lies in an allocated block: a free head's or a pcp page's link
 * words are list links, and writing an owner there would cut its list.  An
 * inner page belongs to the block whose head is an aligned pfn below it
 * with a block of that alignment's order or more, free or allocated -- the
 * search 3.12's is_free_buddy_page makes for a free block.  Here it runs
 * from the largest order down, so a huge page's tail (the simulator maps
 * 512 of them per THP fault) finds its head in one or two reads, an
 * order-3 block's in eight.  Exact for the caller's own block, whose head
 * cannot change while the caller holds it.
 */
static bool inner_page_allocated(const struct mpm_machine *m, uint64_t pfn)
{
	if (!pfn_zone(m, pfn))		/* the array's pfns between zones */
		return false;
	for (unsigned int order = MAX_ORDER - 1; order > 0; order--) {
		uint64_t head = pfn & ~((1ull << order) - 1);
		struct mpm_page *page;
		uint8_t flags;

		if (head == pfn || !pfn_in_array(m, head))
			continue;
		page = &m->pages[pfn_to_idx(m, head)];
		flags = READ_ONCE(page->flags);
		if ((flags & (PG_alloc | PG_buddy)) && READ_ONCE(page->order) >= order)
			return flags & PG_alloc;
	}
	return false;
}

/* mpm_rmap_set on a page that is not an allocated head: out of line. */
static __attribute__((noinline)) int rmap_set_slow(struct mpm_machine *m, uint64_t pfn,
						   uint32_t owner, uint32_t index,
						   uint32_t content)
{
	struct mpm_page *page = &m->pages[pfn_to_idx(m, pfn)];
	uint8_t flags = READ_ONCE(page->flags);

	/* a free head, a pcp page, a reserved page or a hole */
	if ((flags & ~PG_owned) || !inner_page_allocated(m, pfn))
		return -1;
	if (!(flags & PG_owned))
		ADD_ATOMIC(m->inner_owned, 1);
	rmap_record(page, flags, owner, index, content);
	return 0;
}

/*
 * An allocated head is taken on its flags alone (only pages of a zone are
 * ever allocated); anything else goes to rmap_set_slow().
 */
int mpm_rmap_set(struct mpm_machine *m, uint64_t pfn, uint32_t owner, uint32_t index,
		 uint32_t content)
{
	struct mpm_page *page;
	uint8_t flags;

	if (owner == MPM_NO_OWNER)
		return mpm_rmap_clear(m, pfn);
	if (!m->rmap_enabled || !pfn_in_array(m, pfn))
		return -1;
	page = &m->pages[pfn_to_idx(m, pfn)];
	flags = READ_ONCE(page->flags);
	if (unlikely(!(flags & PG_alloc)))
		return rmap_set_slow(m, pfn, owner, index, content);
	rmap_record(page, flags, owner, index, content);
	return 0;
}

/*
 * Only an owned page is written: a page that has no owner -- the caller's
 * cleared twice, or someone else's free page -- is left as it is.
 */
int mpm_rmap_clear(struct mpm_machine *m, uint64_t pfn)
{
	struct mpm_page *page;
	uint8_t flags;

	if (!pfn_in_array(m, pfn))
		return -1;
	page = &m->pages[pfn_to_idx(m, pfn)];
	flags = READ_ONCE(page->flags);
	if (likely(flags & PG_owned)) {
		WRITE_ONCE(page->flags, flags & ~PG_owned);
		if (!(flags & PG_alloc))	/* an inner page */
			ADD_ATOMIC(m->inner_owned, -1);
		return 0;
	}
	return pfn_zone(m, pfn) ? 0 : -1;
}

uint32_t mpm_rmap_get(const struct mpm_machine *m, uint64_t pfn, uint32_t *index,
		      uint32_t *content)
{
	uint32_t idx, owner;

	if (!m->rmap_enabled || !pfn_in_array(m, pfn))
		return MPM_NO_OWNER;
	idx = pfn_to_idx(m, pfn);
	owner = page_rmap_owner(m, idx);
	if (owner == MPM_NO_OWNER)
		return MPM_NO_OWNER;
	if (index)
		*index = page_rmap_index(m, idx);
	if (content)
		*content = READ_LINK_ONCE(m->pages[idx].private);
	return owner;
}

void mpm_prefetch_page(const struct mpm_machine *m, uint64_t pfn)
{
	uint32_t idx;

	if (!pfn_in_array(m, pfn))
		return;
	idx = pfn_to_idx(m, pfn);
	__builtin_prefetch(&m->pages[idx], 1);
}
