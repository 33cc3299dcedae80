// SPDX-License-Identifier: MIT
/*
 * Setting up the region bookkeeping of the region-sorted free lists
 * (sorted.h): per free list a mem_region_list for every zone region and the
 * bitmap tree of find_prev_region(), sized at run time from the zone's
 * region count.  It exists only when the policy has sorted_freelists.
 */
#include <stdlib.h>

#include "sorted.h"

int sorted_free_lists_init(struct mpm_machine *m, struct zone *z)
{
	uint64_t nr = z->nr_regions, words = region_bitmap_words(nr, NULL);
	size_t lists = (size_t)MAX_ORDER * MIGRATE_TYPES;
	struct sorted_free_lists *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	s->mr_mem = malloc(lists * nr * sizeof(*s->mr_mem));
	s->bitmap_mem = calloc(lists * words, sizeof(*s->bitmap_mem));
	if (!s->mr_mem || !s->bitmap_mem) {
		free(s->mr_mem);
		free(s->bitmap_mem);
		free(s);
		return -1;
	}
	s->idx_to_zone_region = m->pfn_base - z->region_base_pfn -
				((uint64_t)z->first_node_region << m->region_shift);
	s->region_shift = m->region_shift;
	for (size_t i = 0; i < lists * nr; i++)
		s->mr_mem[i] = (struct mem_region_list){ NO_BLOCK, 0 };
	for (unsigned int o = 0; o < MAX_ORDER; o++)
		for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
			size_t i = (size_t)o * MIGRATE_TYPES + (size_t)mt;
			struct free_list_regions *fl = &s->fl[o][mt];

			region_bitmap_init(&fl->map, s->bitmap_mem + i * words, nr);
			fl->mr = s->mr_mem + i * nr;
			s->next_region[mt][o] = NO_REGION;
			s->bias_order[mt][o] = (uint8_t)o;	/* all empty: ties go to the lowest */
			s->bias_stale[mt] = -1;
		}
	m->metadata_bytes += sizeof(*s) + lists * (nr * sizeof(*s->mr_mem) +
						   words * sizeof(*s->bitmap_mem));
	z->sorted = s;
	return 0;
}

void sorted_free_lists_destroy(struct zone *z)
{
	if (!z->sorted)
		return;
	free(z->sorted->mr_mem);
	free(z->sorted->bitmap_mem);
	free(z->sorted);
	z->sorted = NULL;
}
