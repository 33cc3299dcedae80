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
 * The budget in *@bytes, 0 when unknown (no check); *@source says where it
 * came from ("available on this host", "that MEMPOWER_MEMORY_LIMIT allows")
 * to end a sentence.  -1 with a one-line reason in @err (no "mempower:"
 * prefix) for a malformed or zero MEMPOWER_MEMORY_LIMIT.
 */
int mpm_memory_budget(uint64_t *bytes, const char **source, char *err, size_t errlen);

/* @bytes for a reader: "90.1 GiB", or "70 MiB" below a GiB.  Returns @buf. */
char *mpm_format_mem(uint64_t bytes, char *buf, size_t len);

#endif /* MPM_IO_MEMBUDGET_H */
