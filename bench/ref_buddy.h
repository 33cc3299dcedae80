/* SPDX-License-Identifier: MIT */
/*
 * ref-buddy: a textbook binary buddy allocator, the speed reference that
 * `mempower bench` measures the real allocator against.
 *
 * It is deliberately the plainest buddy system that is still a fair
 * opponent: one zone of pfns [0, npages), one free list per order, 16 bytes
 * of metadata per page, O(MAX_ORDER) split and merge.  It has none of what
 * makes the kernel's allocator (and mempower) slower or smarter: no per-cpu
 * lists, no migratetypes, no watermarks, no statistics, no lock.  It is
 * single-threaded.
 *
 * The structures are in this header so that the test can walk the free
 * lists itself and recount them independently of the allocator.
 */
#ifndef MPM_BENCH_REF_BUDDY_H
#define MPM_BENCH_REF_BUDDY_H

#include <stdint.h>

#define REF_MAX_ORDER		11		/* orders 0 .. REF_MAX_ORDER - 1 */
#define REF_NIL			UINT32_MAX	/* end of a free list */
#define REF_NO_PFN		UINT64_MAX	/* allocation failure */

/* ref_page.flags */
#define REF_PG_BUDDY		0x01	/* heads a free block on free_area[order] */

/*
 * Per-page metadata: the allocator's whole state for a page.  Links are page
 * indices rather than pointers so the struct stays 16 bytes (the same budget
 * as mempower's, ARCHITECTURE.md decision 1), which keeps the comparison one
 * of algorithms rather than of cache footprint.
 */
struct ref_page {
	uint32_t next;		/* free-list links, REF_NIL terminated */
	uint32_t prev;
	uint8_t order;		/* valid while REF_PG_BUDDY is set */
	uint8_t flags;
	uint16_t reserved0;
	uint32_t reserved1;
};

struct ref_free_area {
	uint32_t head;		/* first free block of this order, or REF_NIL */
	uint64_t nr_free;	/* blocks on the list */
};

struct ref_buddy {
	uint64_t npages;
	uint64_t free_pages;
	struct ref_free_area area[REF_MAX_ORDER];
	struct ref_page *pages;
};

/* Every page free, in maximal aligned blocks.  NULL if npages is 0, too large
 * for 32-bit links, or memory is short. */
struct ref_buddy *ref_buddy_create(uint64_t npages);
void ref_buddy_destroy(struct ref_buddy *rb);

/*
 * 2^order pages: the first block on the lowest non-empty list of order >=
 * @order, split down to @order.  Returns its first pfn, or REF_NO_PFN.
 */
uint64_t ref_buddy_alloc(struct ref_buddy *rb, unsigned int order);
/* Give back a block obtained from ref_buddy_alloc with the same order. */
void ref_buddy_free(struct ref_buddy *rb, uint64_t pfn, unsigned int order);

uint64_t ref_buddy_free_pages(const struct ref_buddy *rb);
/* Bytes of metadata, for the record: 16 per page plus the header. */
uint64_t ref_buddy_metadata_bytes(const struct ref_buddy *rb);

#endif /* MPM_BENCH_REF_BUDDY_H */
