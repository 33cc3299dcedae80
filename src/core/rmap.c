// SPDX-License-Identifier: MIT
/*
 * The reverse map side arrays: owner and index (8 bytes) and content tag
 * (4 bytes) per page of the page array, allocated on first use.  Setting
 * and reading are plain array accesses; the owner serialises its own pages.
 */
#include <stdlib.h>

#include "mmzone.h"

int mpm_rmap_enable(struct mpm_machine *m)
{
	if (m->rmap)
		return 0;
	m->rmap = calloc(m->nr_pfns, sizeof(*m->rmap));
	m->content = calloc(m->nr_pfns, sizeof(*m->content));
	if (!m->rmap || !m->content) {
		free(m->rmap);
		free(m->content);
		m->rmap = NULL;
		m->content = NULL;
		return -1;
	}
	m->metadata_bytes += m->nr_pfns * (sizeof(*m->rmap) + sizeof(*m->content));
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

	m->rmap[idx].owner = owner;
	m->rmap[idx].index = index;
	m->content[idx] = content;
}

void mpm_rmap_clear(struct mpm_machine *m, uint64_t pfn)
{
	m->rmap[pfn_to_idx(m, pfn)].owner = MPM_NO_OWNER;
}

uint32_t mpm_rmap_get(const struct mpm_machine *m, uint64_t pfn, uint32_t *index,
		      uint32_t *content)
{
	uint32_t idx;

	if (!m->rmap || !pfn_in_array(m, pfn))
		return MPM_NO_OWNER;
	idx = pfn_to_idx(m, pfn);
	if (index)
		*index = m->rmap[idx].index;
	if (content)
		*content = m->content[idx];
	return m->rmap[idx].owner;
}
