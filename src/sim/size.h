/* SPDX-License-Identifier: MIT */
/*
 * Sizes on the command line and in machine files: "16G", "512MiB", "4k",
 * "4096".  Units are binary (K = 1024); an optional trailing "B" or "iB" is
 * accepted, all case-insensitive.  Parsing is strict: anything that is not
 * exactly <digits><unit?> is an error, and so is a value past 2^64 - 1.
 */
#ifndef MPM_SIM_SIZE_H
#define MPM_SIM_SIZE_H

#include <stddef.h>
#include <stdint.h>

/*
 * 0 on success; -1 with a one-line reason (without a "mempower:" prefix),
 * or -2 with one for a well-formed size past 2^64 - 1.
 */
int mpm_parse_size(const char *s, uint64_t *bytes, char *err, size_t errlen);

/* Strict unsigned decimal: "0".."18446744073709551615", nothing else. */
int mpm_parse_u64(const char *s, uint64_t *val);

/*
 * Format @bytes with the largest binary unit that divides it exactly:
 * 16G, 640K, 4097 (bytes).  Returns @buf.
 */
char *mpm_format_size(uint64_t bytes, char *buf, size_t len);

/*
 * @bytes for a reader, rounded: "90.1 GiB", "70 MiB" below a GiB, "12 KiB"
 * below a MiB, "100 bytes" below a KiB.
 * Returns @buf.
 */
char *mpm_format_mem(uint64_t bytes, char *buf, size_t len);
/*
 * The same, rounded up (@dir > 0) or down (@dir < 0) to the printed
 * digits, so that a need printed beside the limit it exceeds never reads
 * as equal to it; @dir 0 is mpm_format_mem's nearest.
 */
char *mpm_format_mem_round(uint64_t bytes, int dir, char *buf, size_t len);

#endif /* MPM_SIM_SIZE_H */
