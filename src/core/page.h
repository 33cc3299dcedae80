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
	/*
	 * While the page is free (buddy or pcp list): lru.next and lru.prev,
	 * indices of list entries.  While it is allocated: the reverse map's
	 * owner and index (rmap.c), valid with PG_owned -- the kernel reuses
	 * struct page's words the same way (lru, then mapping and index).
	 */
	uint32_t next;
	uint32_t prev;
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

/*
 * Link words are written by whoever holds the list (the zone lock, or the
 * cpu of a pcp list) and read plainly by it, but an allocated page's words
 * are its owner and index, which kmempowerd reads holding neither lock
 * before it takes the owner's (evacuate.c).  So every store to a link word
 * is a relaxed atomic (a plain move on x86) and that unlocked reader loads
 * with READ_LINK_ONCE: no data race in the C memory model, nothing for
 * TSan to report, no cost in the generated code but unmerged stores.  The
 * words are plain uint32_t, so the list code's own loads stay plain.
 */
#define WRITE_LINK(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define READ_LINK_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)

static inline void list_init(struct mpm_page *pg, uint32_t head)
{
	WRITE_LINK(pg[head].next, head);
	WRITE_LINK(pg[head].prev, head);
}

static inline bool list_empty(const struct mpm_page *pg, uint32_t head)
{
	return pg[head].next == head;
}

static inline void __list_add(struct mpm_page *pg, uint32_t new, uint32_t prev,
			      uint32_t next)
{
	WRITE_LINK(pg[next].prev, new);
	WRITE_LINK(pg[new].next, next);
	WRITE_LINK(pg[new].prev, prev);
	WRITE_LINK(pg[prev].next, new);
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

	WRITE_LINK(pg[next].prev, prev);
	WRITE_LINK(pg[prev].next, next);
}

#endif /* MPM_CORE_PAGE_H */
