/* SPDX-License-Identifier: MIT */
/*
 * Page owners: a reverse map from a pfn to whoever holds the page (an
 * address space and page index, a file and offset: the owner's own ids)
 * plus a content tag the owner wrote.  It is what page migration needs to
 * move a page and tell its owner, and what the checker uses to prove that
 * no owned page was lost, freed or overwritten.  Owner, index and content
 * tag live in the allocated page's own 16 bytes of metadata (its list
 * words, unused while it is allocated), so recording them costs no memory
 * and no cache line beyond the page's; they are recorded once
 * mpm_rmap_enable() has been called.
 */
#ifndef MEMPOWER_RMAP_H
#define MEMPOWER_RMAP_H

#include <stdint.h>

#include "export.h"
#include "machine.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MPM_NO_OWNER	0u

/* Start recording owners (before the first mpm_rmap_set); 0.  Idempotent. */
MPM_API int mpm_rmap_enable(struct mpm_machine *m);
MPM_API int mpm_rmap_enabled(const struct mpm_machine *m);
/*
 * Record that @owner holds @pfn at @index and wrote @content into it; 0.
 * @pfn must lie in a block the caller allocated (its head or an inner
 * page); anything else -- a free page, one on a pcp list, a reserved page
 * or hole, a pfn outside the machine, or a reverse map not enabled -- is
 * -1 with nothing written.  @owner MPM_NO_OWNER is mpm_rmap_clear().
 */
MPM_API int mpm_rmap_set(struct mpm_machine *m, uint64_t pfn, uint32_t owner,
			 uint32_t index, uint32_t content);
/*
 * @pfn has no owner any more; it must not be freed before this.  0, or -1
 * for a pfn outside every zone; a page without an owner is left untouched.
 */
MPM_API int mpm_rmap_clear(struct mpm_machine *m, uint64_t pfn);
/*
 * The owner of @pfn (MPM_NO_OWNER if none); @index, @content may be NULL.
 * Exact under the owner's lock, or when no other thread frees or maps
 * pages; otherwise a page freed meanwhile can yield a stale answer, even a
 * list index in place of an owner (its words become links when it is free).
 */
MPM_API uint32_t mpm_rmap_get(const struct mpm_machine *m, uint64_t pfn,
			      uint32_t *index, uint32_t *content);

/*
 * Start loading what clearing the owner of @pfn and freeing it will touch
 * (its page metadata: all the reverse map keeps is there), so
 * that a loop over scattered pages can overlap the cache misses: call it a
 * few pages ahead.
 */
MPM_API void mpm_prefetch_page(const struct mpm_machine *m, uint64_t pfn);

#ifdef __cplusplus
}
#endif

#endif /* MEMPOWER_RMAP_H */
