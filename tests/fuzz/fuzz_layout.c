// SPDX-License-Identifier: MIT
/*
 * Machine layouts built straight from the bytes, through the library's own
 * spec (no JSON in the way, so the fuzzer reaches odd layouts quickly): one
 * to four nodes of up to four zones each, zone edges on any page, holes and
 * reserved ranges anywhere, node-relative or absolute regions of 2^k
 * pages, pageblock order, CPUs, minimum free kbytes and any valid set of
 * feature switches.  A spec the library rejects must say why.  A machine it
 * accepts runs the rest of the bytes as operations -- allocations of every
 * order, gfp and CPU (also on a given node and in bulk), frees hot, cold
 * and in lists, drains, vmstat updates, pages with an owner in the reverse
 * map, evacuations of any zone region and kmempowerd's queue -- with
 * mpm_check() after every one, and after everything is freed and drained.
 * After an evacuation every owned page must be where its owner was told it
 * went, with its owner, index and content.  After every operation a
 * misuse probe (probe(), below) frees and owns a page it should not, and
 * asks for ids the machine does not have: each must be refused unharmed.
 */
#include <string.h>

#include <mempower/mempower.h>

#include "fuzz.h"

#define MAX_NODES	4
#define MAX_ZONES	(MAX_NODES * 4)
#define MAX_HOLES	4
#define MAX_LIVE	256
#define MAX_OPS		400
#define MAX_SPAN	(1u << 16)	/* 256 MiB of pfns */
#define MAX_OWNED	128
#define OWNER		1u		/* the one owner; index = slot in owned[] */

struct bytes {
	const uint8_t *p;
	size_t n;
};

static unsigned int take(struct bytes *b, unsigned int bound)
{
	unsigned int v;

	if (!b->n || !bound)
		return 0;
	v = b->p[0];
	if (bound > 256 && b->n > 1) {
		v = v << 8 | b->p[1];
		b->p++;
		b->n--;
	}
	b->p++;
	b->n--;
	return v % bound;
}

struct layout {
	struct mpm_machine_spec spec;
	struct mpm_zone_spec zones[MAX_ZONES];
	struct mpm_hole_spec holes[MAX_HOLES], reserved[MAX_HOLES];
};

/* Ascending zones, each node's types ascending; lengths and gaps in pages. */
static void build_zones(struct bytes *b, struct layout *l)
{
	uint64_t pfn = take(b, 4096);
	unsigned int nodes = 1 + take(b, MAX_NODES);

	for (unsigned int n = 0; n < nodes; n++) {
		int type = (int)take(b, MPM_NR_ZONE_TYPES);
		unsigned int nz = 1 + take(b, 2);

		if (take(b, 4) == 0)
			l->spec.node_start_pfn[n] = pfn > 0 ? pfn - take(b, pfn < 64 ? pfn : 64) : 0;
		for (unsigned int z = 0; z < nz && type < MPM_NR_ZONE_TYPES; z++, type++) {
			uint64_t len = 1 + take(b, 8192);

			if (l->spec.nr_zones == MAX_ZONES || pfn + len > MAX_SPAN)
				return;
			l->zones[l->spec.nr_zones++] = (struct mpm_zone_spec){
				n, (enum mpm_zone_type)type, pfn, pfn + len };
			l->spec.nr_nodes = n + 1;
			pfn += len + (take(b, 3) ? 0 : take(b, 2048));
			type += (int)take(b, 2);
		}
	}
}

/* Up to MAX_HOLES ascending ranges inside zones (the library checks the rest). */
static unsigned int build_ranges(struct bytes *b, const struct layout *l,
				 struct mpm_hole_spec *r)
{
	unsigned int nr = take(b, MAX_HOLES + 1);
	uint64_t last = 0;
	unsigned int got = 0;

	for (unsigned int i = 0; i < nr && l->spec.nr_zones; i++) {
		const struct mpm_zone_spec *z = &l->zones[take(b, l->spec.nr_zones)];
		uint64_t span = z->end_pfn - z->start_pfn;
		uint64_t start = z->start_pfn + take(b, (unsigned int)(span < 65535 ? span : 65535));
		uint64_t len = 1 + take(b, 600);

		if (start < last || start + len > z->end_pfn)
			continue;
		r[got++] = (struct mpm_hole_spec){ start, start + len };
		last = start + len;
	}
	return got;
}

static unsigned long build_features(struct bytes *b)
{
	static const char *const policies[] = { "mainline", "sorted", "split", "full" };
	unsigned long f = 0;

	mpm_policy_features(policies[take(b, 4)], &f);
	if (take(b, 4) == 0)	/* an ablation: one switch toggled */
		f ^= 1ul << take(b, 9);
	return f;
}

static const mpm_gfp_t gfps[] = {
	MPM_GFP_KERNEL, MPM_GFP_HIGHUSER_MOVABLE, MPM_GFP_TEMPORARY, MPM_GFP_USER,
	MPM_GFP_KERNEL | MPM___GFP_DMA32, MPM_GFP_KERNEL | MPM___GFP_DMA,
	MPM_GFP_HIGHUSER_MOVABLE | MPM___GFP_COLD, MPM_GFP_TRANSHUGE,
};

struct live {
	uint64_t pfn[MAX_LIVE];
	uint8_t order[MAX_LIVE];
	unsigned int n;
	uint64_t owned[MAX_OWNED];	/* MPM_NO_PFN: a free slot */
	uint64_t freed[8];		/* the last pfns freed, for probe() */
	unsigned int nr_freed;
};

static void note_freed(struct live *lv, uint64_t pfn)
{
	lv->freed[lv->nr_freed++ % 8] = pfn;
}

static uint32_t tag_of(uint32_t slot)
{
	return slot * 2654435761u + 1;
}

/* migrate_ops.move: the owner's reference follows its page. */
static int owner_move(void *arg, uint32_t owner, uint32_t index, uint64_t from, uint64_t to)
{
	struct live *lv = arg;

	if (owner != OWNER || index >= MAX_OWNED || lv->owned[index] != from)
		fuzz_fail("move of owner %u index %u from pfn %llu, which it does not hold",
			  owner, index, (unsigned long long)from);
	lv->owned[index] = to;
	return 0;
}

/* Every owned page where its owner thinks, with its owner, index and content. */
static void check_owned(const struct mpm_machine *m, const struct live *lv)
{
	for (uint32_t i = 0; i < MAX_OWNED; i++) {
		uint32_t index, content;

		if (lv->owned[i] == MPM_NO_PFN)
			continue;
		if (mpm_rmap_get(m, lv->owned[i], &index, &content) != OWNER || index != i ||
		    content != tag_of(i))
			fuzz_fail("owned page %u at pfn %llu lost its owner, index or content", i,
				  (unsigned long long)lv->owned[i]);
	}
}

static void own(struct mpm_machine *m, struct live *lv, unsigned int slot, unsigned int cpu)
{
	uint64_t pfn;

	if (lv->owned[slot] != MPM_NO_PFN) {	/* unmap it: clear the owner, free */
		mpm_rmap_clear(m, lv->owned[slot]);
		if (mpm_free_pages(m, lv->owned[slot], 0, cpu))
			fuzz_fail("free of an owned page refused after its owner was cleared");
		note_freed(lv, lv->owned[slot]);
		lv->owned[slot] = MPM_NO_PFN;
		return;
	}
	pfn = mpm_alloc_pages(m, MPM_GFP_HIGHUSER_MOVABLE, 0, cpu);
	if (pfn == MPM_NO_PFN)
		return;
	mpm_rmap_set(m, pfn, OWNER, slot, tag_of(slot));
	lv->owned[slot] = pfn;
}

/* One region evacuated, as kmempowerd's worker would, or its queue worked off. */
static void evacuate(struct bytes *b, struct mpm_machine *m, unsigned int cpu)
{
	unsigned int zid = take(b, mpm_nr_zones(m));
	struct mpm_evac_result res;
	struct mpm_zone_info zi;
	uint32_t rids[8];
	int n;

	if (take(b, 2)) {
		mpm_zone_info(m, zid, &zi);
		memset(&res, 0, sizeof(res));
		if (mpm_evacuate_region(m, zid, take(b, zi.nr_regions), cpu, false, &res))
			fuzz_fail("evacuation of a region of zone %u refused", zid);
		return;
	}
	n = mpm_mempower_work_take(m, zid, rids, 8);
	for (int i = 0; i < n; i++) {
		memset(&res, 0, sizeof(res));
		mpm_evacuate_region(m, zid, rids[i], cpu, false, &res);
	}
	if (n > 0)
		mpm_mempower_work_done(m, zid, rids, (unsigned int)n);
}

static void keep(struct live *lv, uint64_t pfn, unsigned int order)
{
	if (pfn != MPM_NO_PFN && lv->n < MAX_LIVE) {
		lv->pfn[lv->n] = pfn;
		lv->order[lv->n++] = (uint8_t)order;
	}
}

static void free_one(struct mpm_machine *m, struct live *lv, unsigned int i,
		     unsigned int cpu, bool cold)
{
	int r = cold && !lv->order[i] ? mpm_free_cold_page(m, lv->pfn[i], cpu) :
		mpm_free_pages(m, lv->pfn[i], lv->order[i], cpu);

	if (r)
		fuzz_fail("free of an allocated block (pfn %llu order %u) refused",
			  (unsigned long long)lv->pfn[i], lv->order[i]);
	note_freed(lv, lv->pfn[i]);
	lv->n--;
	lv->pfn[i] = lv->pfn[lv->n];
	lv->order[i] = lv->order[lv->n];
}

/* release_pages: up to @k of the newest order-0 blocks in one list, hot or cold. */
static void free_list(struct mpm_machine *m, struct live *lv, unsigned int k,
		      unsigned int cpu, int cold)
{
	uint64_t pfns[16];
	unsigned int n = 0;

	for (unsigned int i = lv->n; i-- > 0 && n < k;) {
		if (lv->order[i])
			continue;
		pfns[n++] = lv->pfn[i];
		note_freed(lv, lv->pfn[i]);
		lv->n--;
		lv->pfn[i] = lv->pfn[lv->n];
		lv->order[i] = lv->order[lv->n];
	}
	if (n && mpm_free_page_list(m, pfns, n, cpu, cold))
		fuzz_fail("free of %u allocated pages in a list refused", n);
}

static void one_op(struct bytes *b, struct mpm_machine *m, struct live *lv)
{
	unsigned int cpu = take(b, mpm_nr_cpus(m)), op = take(b, 10);
	unsigned int order = take(b, 4) ? take(b, 4) : take(b, MPM_MAX_ORDER);
	mpm_gfp_t gfp = gfps[take(b, sizeof(gfps) / sizeof(gfps[0]))];
	uint64_t pfns[16];
	size_t got;

	/* 0-3: allocations; 4: free, 7: free hot or cold, 5: drain, 6: vmstat;
	 * 8: an owned page mapped or unmapped, 9: evacuation */
	if (op == 8) {
		own(m, lv, take(b, MAX_OWNED), cpu);
		return;
	}
	if (op == 9) {
		evacuate(b, m, cpu);
		check_owned(m, lv);
		return;
	}
	if (op == 7 || (op >= 4 && lv->n)) {
		if (op == 7 && lv->n) {
			free_one(m, lv, take(b, lv->n), cpu, take(b, 2));
		} else if (op == 4 && take(b, 2)) {
			free_list(m, lv, 1 + take(b, 16), cpu, (int)take(b, 2));
		} else if (op == 4) {
			free_one(m, lv, take(b, lv->n), cpu, false);
		} else if (op == 5) {
			mpm_drain_local_pages(m, cpu);
		} else {
			mpm_refresh_cpu_vm_stats(m, cpu);
		}
		return;
	}
	if (op == 3) {
		got = mpm_alloc_pages_bulk(m, gfp, 0, cpu, 1 + take(b, 16), pfns);
		for (size_t i = 0; i < got; i++)
			keep(lv, pfns[i], 0);
		return;
	}
	if (gfp == MPM_GFP_TRANSHUGE)
		order = 9;
	keep(lv, op == 2 ? mpm_alloc_pages_node(m, take(b, mpm_nr_nodes(m)), gfp, order, cpu) :
			   mpm_alloc_pages(m, gfp, order, cpu), order);
}

/*
 * Misuse, probed after every operation without taking input bytes (so the
 * corpus keeps its meaning): a pfn picked from the operation's number -- a
 * live block's head or a page near it, an owned page, or any pfn up to past
 * the machine's end, or one freed lately -- is freed with a wrong order
 * and given an owner.  A
 * free that is not of a live block's head and order is refused; an owner
 * is refused unless the page lies in an allocated block, which a linear
 * walk down to the page's block head decides here (the library searches
 * aligned heads instead); a refusal writes nothing, which the checker after
 * the probe sees.  Zone and region ids past the last are refused too.
 */
static uint64_t probe_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static bool owned_by_us(const struct live *lv, uint64_t pfn)
{
	for (unsigned int i = 0; i < MAX_OWNED; i++)
		if (lv->owned[i] == pfn)
			return true;
	return false;
}

/* A live block's head, a page near it, an owned page or next to one, a
 * page freed lately, or any pfn. */
static uint64_t probe_pfn(const struct mpm_machine *m, const struct live *lv, uint64_t h)
{
	uint64_t end = mpm_max_pfn(m);

	switch (h % 5) {
	case 0:
		if (lv->n)
			return lv->pfn[(h >> 8) % lv->n];
		break;
	case 1:
		if (lv->n)
			return lv->pfn[(h >> 8) % lv->n] + (h >> 40) % 600;
		break;
	case 2: {
		uint64_t pfn = lv->owned[(h >> 8) % MAX_OWNED];

		if (pfn != MPM_NO_PFN)
			return pfn + (h >> 40) % 3 - 1;
		break;
	}
	case 3:		/* freed: on a pcp list, a free head or inside a free block */
		if (lv->nr_freed)
			return lv->freed[(h >> 8) % (lv->nr_freed < 8 ? lv->nr_freed : 8)];
		break;
	}
	return (h >> 8) % (end + 64);
}

/* Does a block of ours, or one kept out of our tables, hold @pfn allocated? */
static bool probe_allocated(const struct mpm_machine *m, uint64_t pfn)
{
	unsigned int order;
	uint64_t head = pfn;

	while (head > 0 && mpm_page_state(m, head, NULL) == MPM_PAGE_TAIL)
		head--;
	return mpm_page_state(m, head, &order) == MPM_PAGE_ALLOC && head + (1ull << order) > pfn;
}

static void probe_ids(struct mpm_machine *m, uint64_t h)
{
	unsigned int nz = mpm_nr_zones(m), zid = (unsigned int)(h % (nz + 2));
	struct mpm_zone_info zi;
	struct mpm_region_info ri;
	struct mpm_evac_result res;
	uint32_t rid;

	if ((mpm_zone_info(m, zid, &zi) == 0) != (zid < nz))
		fuzz_fail("zone info for zone %u of %u", zid, nz);
	if (zid >= nz) {
		if (mpm_mempower_work_take(m, zid, &rid, 1) != -1 ||
		    mpm_evacuate_region(m, zid, 0, 0, false, &res) != -1)
			fuzz_fail("zone %u of %u taken for evacuation", zid, nz);
		return;
	}
	rid = zi.nr_regions + (uint32_t)(h >> 32) % 3;
	if (mpm_region_info(m, zid, rid, &ri) != -1 ||
	    mpm_should_evacuate_region(m, zid, rid, UINT64_MAX) ||
	    mpm_evacuate_region(m, zid, rid, 0, false, &res) != -1 ||
	    mpm_mempower_work_done(m, zid, &rid, 1) != -1)
		fuzz_fail("region %u of zone %u's %u accepted", rid, zid, zi.nr_regions);
}

static void probe(struct mpm_machine *m, const struct live *lv, unsigned int op)
{
	uint64_t h = probe_mix(op), pfn = probe_pfn(m, lv, h);
	unsigned int order = (unsigned int)(h >> 20) % MPM_MAX_ORDER;
	bool ours = false;

	unsigned int alloc_order;

	for (unsigned int i = 0; i < lv->n; i++)
		if (lv->pfn[i] == pfn)
			ours = true;
	/* only a wrong order is a misuse of an allocated head (ours, or one
	 * keep() had no room for) */
	if (mpm_page_state(m, pfn, &alloc_order) == MPM_PAGE_ALLOC && order == alloc_order)
		order = (order + 1) % MPM_MAX_ORDER;
	if (mpm_free_pages(m, pfn, order, (unsigned int)(h >> 28) % 9) != -1)
		fuzz_fail("free of pfn %llu order %u accepted (%s)", (unsigned long long)pfn, order,
			  ours ? "a live block of another order" : "no live block");
	if (!owned_by_us(lv, pfn)) {
		bool allocated = probe_allocated(m, pfn);
		int r = mpm_rmap_set(m, pfn, OWNER + 1, 0, 0);

		if (r != (allocated ? 0 : -1))
			fuzz_fail("owner for pfn %llu (%s) %s", (unsigned long long)pfn,
				  allocated ? "allocated" : "not allocated",
				  r ? "refused" : "accepted");
		if (!r && (mpm_rmap_get(m, pfn, NULL, NULL) != OWNER + 1 ||
			   mpm_rmap_clear(m, pfn)))
			fuzz_fail("owner of pfn %llu not kept or not cleared", (unsigned long long)pfn);
	}
	probe_ids(m, h);
}

static void exercise(struct bytes *b, struct mpm_machine *m)
{
	static struct live lv;
	struct mpm_migrate_ops ops = { .move = owner_move, .arg = &lv };
	char msg[512];

	lv.n = 0;
	lv.nr_freed = 0;
	for (unsigned int i = 0; i < MAX_OWNED; i++)
		lv.owned[i] = MPM_NO_PFN;
	mpm_rmap_enable(m);
	mpm_set_migrate_ops(m, &ops);

	for (unsigned int i = 0; i < MAX_OPS && b->n; i++) {
		one_op(b, m, &lv);
		if (mpm_check(m, msg, sizeof(msg)))
			fuzz_fail("after operation %u: %s", i, msg);
		probe(m, &lv, i);
		if (mpm_check(m, msg, sizeof(msg)))
			fuzz_fail("after the misuse probe of operation %u: %s", i, msg);
	}
	check_owned(m, &lv);
	for (unsigned int i = 0; i < MAX_OWNED; i++)
		if (lv.owned[i] != MPM_NO_PFN)
			own(m, &lv, i, 0);
	while (lv.n)
		free_one(m, &lv, 0, 0, false);
	mpm_drain_all_pages(m);
	if (mpm_check(m, msg, sizeof(msg)))
		fuzz_fail("after freeing everything: %s", msg);
	if (mpm_free_regions(m) > mpm_regions_total(m))
		fuzz_fail("%u free regions of %u", mpm_free_regions(m), mpm_regions_total(m));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bytes b = { data, size };
	struct layout l;
	struct mpm_machine *m;
	char err[512];

	memset(&l, 0, sizeof(l));
	l.spec.zones = l.zones;
	l.spec.holes = l.holes;
	l.spec.reserved = l.reserved;
	build_zones(&b, &l);
	l.spec.nr_holes = build_ranges(&b, &l, l.holes);
	l.spec.nr_reserved = build_ranges(&b, &l, l.reserved);
	l.spec.pageblock_order = 9 + take(&b, 2);
	l.spec.region_shift = l.spec.pageblock_order + take(&b, 6);
	l.spec.region_absolute = take(&b, 2);
	l.spec.nr_cpus = 1 + take(&b, 8);
	l.spec.min_free_kbytes = take(&b, 4) ? 0 : 64 + take(&b, 4096);
	l.spec.features = build_features(&b);
	l.spec.evac_threshold = take(&b, 4) ? 0 : 1 + take(&b, 600);
	l.spec.zonelist_order = take(&b, 3);
	m = mpm_machine_create(&l.spec, err, sizeof(err));
	if (!m) {
		fuzz_require_message("mpm_machine_create", err);
		return 0;
	}
	exercise(&b, m);
	mpm_machine_destroy(m);
	return 0;
}
