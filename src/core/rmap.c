// SPDX-License-Identifier: MIT
/*
 * The reverse map side array: owner and index (8 bytes) per page of the
 * page array, allocated on first use.  The content tag lives in the page's
 * own `private` word: the page struct is written on allocation anyway, so
 * the tag costs no extra cache miss, and it travels with the page.  The
 * owner serialises access to its own pages: it sets and clears their
 * entries and tags under its own lock, which kmempowerd takes too before it
 * moves one (evacuate.c); only owner and index are read without that lock.
 *
 * Whether the entry is valid is the page's PG_owned flag, not the entry:
 * mpm_rmap_clear() only drops the flag, in the page line that the free
 * right after it writes anyway, and leaves the stale entry in the side
 * array.  An unmap then never loads the side array's line, a second cold
 * line per page (docs/benchmarks.md: 0.95x the full-scale run).  Every
 * reader goes through page_rmap_owner().  Like the kernel's free of a page
 * that is still mapped, freeing an owned page is a bad free (alloc.c).
 */
#include "mmzone.h"

int mpm_rmap_enable(struct mpm_machine *m)
{
	if (m->rmap)
		return 0;
	m->rmap = mpm_alloc_pfn_array(m->nr_pfns * sizeof(*m->rmap));
	if (!m->rmap)
		return -1;
	m->metadata_bytes += m->nr_pfns * sizeof(*m->rmap);
	return 0;
}

int mpm_rmap_enabled(const struct mpm_machine *m)
{
	return m->rmap != NULL;
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
	WRITE_ONCE(m->rmap[idx].owner, owner);
	WRITE_ONCE(m->rmap[idx].index, index);
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

	if (!m->rmap || !pfn_in_array(m, pfn))
		return MPM_NO_OWNER;
	idx = pfn_to_idx(m, pfn);
	owner = page_rmap_owner(m, idx);
	if (owner == MPM_NO_OWNER)
		return MPM_NO_OWNER;
	if (index)
		*index = READ_ONCE(m->rmap[idx].index);
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
