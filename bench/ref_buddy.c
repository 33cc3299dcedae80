// SPDX-License-Identifier: MIT
/*
 * ref-buddy: textbook binary buddy allocator (see ref_buddy.h for why it
 * exists).  Written from the classic description (Knowlton 1965, Knuth
 * TAOCP 2.5): a block of order k at pfn p has its buddy at p ^ 2^k; freeing
 * merges with a free buddy of the same order until the buddy is busy or the
 * top order is reached; allocating takes the smallest free block that fits
 * and splits it, keeping the low half and listing the high halves.
 */
#include "ref_buddy.h"

#include <assert.h>
#include <stdlib.h>
#include <sys/mman.h>

_Static_assert(sizeof(struct ref_page) == 16, "ref_page must stay 16 bytes");

/* ---- free lists (doubly linked through page indices) ---- */

static void add_to_free_list(struct ref_buddy *rb, uint32_t pfn,
			     unsigned int order)
{
	struct ref_free_area *area = &rb->area[order];
	struct ref_page *page = &rb->pages[pfn];

	page->next = area->head;
	page->prev = REF_NIL;
	page->order = (uint8_t)order;
	page->flags = REF_PG_BUDDY;
	if (area->head != REF_NIL)
		rb->pages[area->head].prev = pfn;
	area->head = pfn;
	area->nr_free++;
}

static void del_from_free_list(struct ref_buddy *rb, uint32_t pfn,
			       unsigned int order)
{
	struct ref_free_area *area = &rb->area[order];
	struct ref_page *page = &rb->pages[pfn];

	if (page->prev == REF_NIL)
		area->head = page->next;
	else
		rb->pages[page->prev].next = page->next;
	if (page->next != REF_NIL)
		rb->pages[page->next].prev = page->prev;
	page->flags = 0;
	area->nr_free--;
}

/* ---- create / destroy ---- */

/*
 * The page array lives on anonymous memory with transparent huge pages asked
 * for, exactly like mempower's (src/core/topology.c): with 4 KiB pages a 16G
 * zone's 64 MiB of metadata would cost a TLB miss on most random accesses,
 * and the benchmark would compare page-table walks instead of allocators.
 */
static struct ref_page *alloc_page_array(uint64_t npages)
{
	size_t bytes = npages * sizeof(struct ref_page);
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, bytes, MADV_HUGEPAGE);
#endif
	return p;	/* zero-filled, like calloc */
}

struct ref_buddy *ref_buddy_create(uint64_t npages)
{
	struct ref_buddy *rb;
	uint64_t pfn;
	unsigned int order;

	/* REF_NIL must never be a valid page index. */
	if (!npages || npages >= REF_NIL)
		return NULL;
	rb = calloc(1, sizeof(*rb));
	if (!rb)
		return NULL;
	rb->pages = alloc_page_array(npages);
	if (!rb->pages) {
		free(rb);
		return NULL;
	}
	rb->npages = npages;
	for (order = 0; order < REF_MAX_ORDER; order++)
		rb->area[order].head = REF_NIL;

	/*
	 * Boot: carve memory into maximal aligned blocks, i.e. order-10 blocks
	 * and then the binary digits of the remainder, largest first.  Walk
	 * downwards so that, with head insertion, the lowest block ends up
	 * first on each list and early allocations come from low pfns.
	 */
	pfn = npages;
	for (order = 0; order < REF_MAX_ORDER - 1; order++) {
		if (npages & (1ull << order)) {
			pfn -= 1ull << order;
			add_to_free_list(rb, (uint32_t)pfn, order);
		}
	}
	while (pfn) {
		pfn -= 1ull << (REF_MAX_ORDER - 1);
		add_to_free_list(rb, (uint32_t)pfn, REF_MAX_ORDER - 1);
	}
	rb->free_pages = npages;
	return rb;
}

void ref_buddy_destroy(struct ref_buddy *rb)
{
	if (!rb)
		return;
	munmap(rb->pages, rb->npages * sizeof(*rb->pages));
	free(rb);
}

/* ---- allocation ---- */

/*
 * Split a block of order @high at @pfn down to @low, listing the high halves
 * (the kernel's expand()).  The low half stays with the caller.
 */
static void expand(struct ref_buddy *rb, uint32_t pfn, unsigned int low,
		   unsigned int high)
{
	while (high > low) {
		high--;
		add_to_free_list(rb, pfn + (1u << high), high);
	}
}

uint64_t ref_buddy_alloc(struct ref_buddy *rb, unsigned int order)
{
	unsigned int cur;
	uint32_t pfn;

	for (cur = order; cur < REF_MAX_ORDER; cur++) {
		pfn = rb->area[cur].head;
		if (pfn == REF_NIL)
			continue;
		del_from_free_list(rb, pfn, cur);
		expand(rb, pfn, order, cur);
		rb->free_pages -= 1ull << order;
		return pfn;
	}
	return REF_NO_PFN;
}

/* ---- free ---- */

/* Is the block of @order at @pfn wholly free, as one block, and in range? */
static int buddy_is_free(const struct ref_buddy *rb, uint64_t pfn,
			 unsigned int order)
{
	const struct ref_page *page;

	if (pfn >= rb->npages)
		return 0;
	page = &rb->pages[pfn];
	return (page->flags & REF_PG_BUDDY) && page->order == order;
}

void ref_buddy_free(struct ref_buddy *rb, uint64_t pfn, unsigned int order)
{
	uint64_t buddy;

	assert(order < REF_MAX_ORDER);
	assert(pfn + (1ull << order) <= rb->npages);
	assert(!(pfn & ((1ull << order) - 1)));
	assert(!(rb->pages[pfn].flags & REF_PG_BUDDY));	/* double free */

	rb->free_pages += 1ull << order;
	while (order < REF_MAX_ORDER - 1) {
		buddy = pfn ^ (1ull << order);
		if (!buddy_is_free(rb, buddy, order))
			break;
		del_from_free_list(rb, (uint32_t)buddy, order);
		pfn &= ~(1ull << order);	/* merged block starts at the lower buddy */
		order++;
	}
	add_to_free_list(rb, (uint32_t)pfn, order);
}

uint64_t ref_buddy_free_pages(const struct ref_buddy *rb)
{
	return rb->free_pages;
}

uint64_t ref_buddy_metadata_bytes(const struct ref_buddy *rb)
{
	return sizeof(*rb) + rb->npages * sizeof(*rb->pages);
}
