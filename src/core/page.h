/* SPDX-License-Identifier: MIT */
/*
 * struct mpm_page: the allocator's 16 bytes per 4 KiB page, and the
 * list_head-style lists threaded through it.
 *
 * Lists are circular and doubly linked, as in the kernel, but the links are
 * 32-bit indices into one array instead of pointers.  List heads are extra
 * entries ("sentinels") appended to the page array, so list_del() needs no
 * knowledge of which list a page is on — exactly like list_del(&page->lru).
 */
#ifndef MPM_CORE_PAGE_H
#define MPM_CORE_PAGE_H

#include <stdbool.h>
#include <stdint.h>

struct mpm_page {
	uint32_t next;		/* lru.next: index of the next entry */
	uint32_t prev;		/* lru.prev */
	/*
	 * order and flags are read under one zone's lock for pages that other
	 * threads own and write without it (page_is_buddy looking at a buddy
	 * that is being allocated), as in the kernel.  Relaxed atomics (plain
	 * moves on x86) make that benign race well defined.
	 */
	_Atomic uint8_t order;	/* buddy order (PG_buddy) or allocated order (PG_alloc) */
	_Atomic uint8_t flags;	/* PG_* below */
	uint8_t freepage_mt;	/* set_freepage_migratetype(); free list of a buddy */
	uint8_t zone;		/* machine-wide zone id, NO_ZONE outside every zone */
	uint32_t private;	/* the owner's, allocated; a buddy's prefetch hint, free */
};

_Static_assert(sizeof(struct mpm_page) == 16, "struct mpm_page must stay 16 bytes");

#define NO_ZONE		0xffu

enum pageflags {
	PG_buddy	= 1u << 0,	/* head of a free block in a buddy free_list */
	PG_pcp		= 1u << 1,	/* on a per-cpu page list (order 0) */
	PG_alloc	= 1u << 2,	/* head of an allocated block */
	PG_reserved	= 1u << 3,	/* never given to the allocator (hole or memblock) */
	PG_sentinel	= 1u << 4,	/* a list head, not a page */
	PG_nomem	= 1u << 5,	/* with PG_reserved: no present page (hole) */
	PG_owned	= 1u << 6,	/* the reverse-map entry names the owner (rmap.c) */
};

/* ---- list operations on the index-linked lists ---- */

static inline void list_init(struct mpm_page *pg, uint32_t head)
{
	pg[head].next = head;
	pg[head].prev = head;
}

static inline bool list_empty(const struct mpm_page *pg, uint32_t head)
{
	return pg[head].next == head;
}

static inline void __list_add(struct mpm_page *pg, uint32_t new, uint32_t prev,
			      uint32_t next)
{
	pg[next].prev = new;
	pg[new].next = next;
	pg[new].prev = prev;
	pg[prev].next = new;
}

/* list_add: insert @new right after @head (LIFO). */
static inline void list_add(struct mpm_page *pg, uint32_t new, uint32_t head)
{
	__list_add(pg, new, head, pg[head].next);
}

/* list_add_tail: insert @new right before @head (FIFO). */
static inline void list_add_tail(struct mpm_page *pg, uint32_t new, uint32_t head)
{
	__list_add(pg, new, pg[head].prev, head);
}

static inline void list_del(struct mpm_page *pg, uint32_t entry)
{
	uint32_t next = pg[entry].next, prev = pg[entry].prev;

	pg[next].prev = prev;
	pg[prev].next = next;
}

#endif /* MPM_CORE_PAGE_H */
