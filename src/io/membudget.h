/* SPDX-License-Identifier: MIT */
/*
 * How much memory a command may plan to use, so that work too large for
 * this host is refused with one line instead of ending in the OOM killer.
 * The commands that build machines (run, stats, compare: cli/memory.c) and
 * `mempower bench` ask the same question.
 *
 * The budget is MEMPOWER_MEMORY_LIMIT (a size, e.g. "8G") when it is set,
 * else MemAvailable of /proc/meminfo: what the kernel thinks can be
 * allocated without swapping.  Without either there is no check.
 */
#ifndef MPM_IO_MEMBUDGET_H
#define MPM_IO_MEMBUDGET_H

#include <stddef.h>
#include <stdint.h>

/*
 * Whether @need bytes fit in the budget, which goes to *@budget (0: none
 * known, no check).  0 when they fit.  1 when they do not, with the end of
 * a sentence in @err: "needs about 6.1 GiB of memory, more than the
 * 1.0 GiB that MEMPOWER_MEMORY_LIMIT allows" (the caller names what).  -1
 * for a malformed or zero MEMPOWER_MEMORY_LIMIT, with the whole reason in
 * @err.  @err has no "mempower:" prefix either way.
 */
int mpm_memory_fits(uint64_t need, uint64_t *budget, char *err, size_t errlen);

#endif /* MPM_IO_MEMBUDGET_H */
