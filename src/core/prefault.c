// SPDX-License-Identifier: MIT
/*
 * The first touch of a large page array, spread over the online CPUs.
 *
 * Most of setting up a large machine is not ours: it is the kernel zeroing
 * the page array's memory as it is first written (clear_page: 81-85 % of a
 * 1 TiB set-up under perf), one fault after another in the one thread that
 * writes it.  In this VM a fresh 4 GiB costs about 10.7 s that way when
 * the host has taken the memory back, and 5.9 s with two threads faulting
 * halves of it (docs/benchmarks-log.md).  So before memmap_init_zone writes
 * the zones' entries, a few threads each write a zero -- the value already
 * there -- into every 4 KiB of their share of those entries.  Only the
 * zones' spans are touched: the gaps between them stay untouched
 * (layout_page_array).  The threads are joined before anything reads the
 * array, and a thread that cannot be started leaves its share to the
 * writes that follow, which fault it in themselves.
 */
#include <pthread.h>
#include <unistd.h>

#include "mmzone.h"

#define PREFAULT_MIN_BYTES	(256ull << 20)	/* below: one thread is as quick */
#define PREFAULT_MAX_THREADS	16

/* One thread's share: bytes [from, to) of the zones' spans laid end to end. */
struct prefault_part {
	const struct mpm_machine *m;
	const struct mpm_machine_spec *s;
	uint64_t from, to;
};

static void *prefault_part(void *arg)
{
	const struct prefault_part *p = arg;
	volatile char *base = (volatile char *)p->m->pages;
	uint64_t pos = 0;

	for (unsigned int i = 0; i < p->s->nr_zones && pos < p->to; i++) {
		const struct mpm_zone_spec *z = &p->s->zones[i];
		uint64_t off = (z->start_pfn - p->m->pfn_base) * sizeof(struct mpm_page);
		uint64_t len = (z->end_pfn - z->start_pfn) * sizeof(struct mpm_page);
		uint64_t lo = pos > p->from ? pos : p->from;
		uint64_t hi = pos + len < p->to ? pos + len : p->to;

		for (uint64_t b = lo; b < hi; b += 4096)
			base[off + (b - pos)] = 0;
		pos += len;
	}
	return NULL;
}

void prefault_page_array(const struct mpm_machine *m, const struct mpm_machine_spec *s)
{
	struct prefault_part part[PREFAULT_MAX_THREADS];
	pthread_t tid[PREFAULT_MAX_THREADS];
	uint64_t total = mpm_machine_spec_bytes(s);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int n, started = 1;

	if (total < PREFAULT_MIN_BYTES || cpus < 2)
		return;
	n = cpus > PREFAULT_MAX_THREADS ? PREFAULT_MAX_THREADS : (unsigned int)cpus;
	for (unsigned int k = 0; k < n; k++)
		part[k] = (struct prefault_part){ m, s, total / n * k,
						  k + 1 == n ? total : total / n * (k + 1) };
	/* this thread takes part 0; parts whose thread does not start are left */
	while (started < n && !pthread_create(&tid[started], NULL, prefault_part, &part[started]))
		started++;
	prefault_part(&part[0]);
	for (unsigned int k = 1; k < started; k++)
		pthread_join(tid[k], NULL);
}
