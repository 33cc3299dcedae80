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
 * a side array (docs/benchmarks.md: 0.96x the full-scale run).  Every
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

void mpm_rmap_set(struct mpm_machine *m, uint64_t pfn, uint32_t owner,
		  uint32_t index, uint32_t content)
{
	uint32_t idx = pfn_to_idx(m, pfn);
	struct mpm_page *page = &m->pages[idx];

	if (owner == MPM_NO_OWNER) {
		mpm_rmap_clear(m, pfn);
		return;
	}
	WRITE_LINK(page->next, owner);
	WRITE_LINK(page->prev, index);
	page->private = content;
	WRITE_ONCE(page->flags, READ_ONCE(page->flags) | PG_owned);
}

void mpm_rmap_clear(struct mpm_machine *m, uint64_t pfn)
{
	struct mpm_page *page = &m->pages[pfn_to_idx(m, pfn)];

	WRITE_ONCE(page->flags, READ_ONCE(page->flags) & ~PG_owned);
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
		*content = m->pages[idx].private;
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
