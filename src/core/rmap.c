// SPDX-License-Identifier: MIT
/*
 * The reverse map side array: owner and index (8 bytes) per page of the
 * page array, allocated on first use.  The content tag lives in the page's
 * own `private` word: the page struct is written on allocation anyway, so
 * the tag costs no extra cache miss, and it travels with the page.  The
 * owner serialises access to its own pages: it sets and clears their
 * entries and tags under its own lock, which kmempowerd takes too before it
 * moves one (evacuate.c); only owner and index are read without that lock.
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

	WRITE_ONCE(m->rmap[idx].owner, owner);
	WRITE_ONCE(m->rmap[idx].index, index);
	m->pages[idx].private = content;
}

void mpm_rmap_clear(struct mpm_machine *m, uint64_t pfn)
{
	WRITE_ONCE(m->rmap[pfn_to_idx(m, pfn)].owner, MPM_NO_OWNER);
}

uint32_t mpm_rmap_get(const struct mpm_machine *m, uint64_t pfn, uint32_t *index,
		      uint32_t *content)
{
	uint32_t idx;

	if (!m->rmap || !pfn_in_array(m, pfn))
		return MPM_NO_OWNER;
	idx = pfn_to_idx(m, pfn);
	if (index)
		*index = READ_ONCE(m->rmap[idx].index);
	if (content)
		*content = m->pages[idx].private;
	return READ_ONCE(m->rmap[idx].owner);
}

void mpm_prefetch_page(const struct mpm_machine *m, uint64_t pfn)
{
	uint32_t idx;

	if (!pfn_in_array(m, pfn))
		return;
	idx = pfn_to_idx(m, pfn);
	__builtin_prefetch(&m->pages[idx], 1);
	if (m->rmap)
		__builtin_prefetch(&m->rmap[idx], 1);
}
