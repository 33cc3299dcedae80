/* SPDX-License-Identifier: MIT */
/*
 * What memblock reserves before the page allocator exists, and the THP
 * late initcall's min_free_kbytes (boot_reserve.c).
 */
#ifndef MPM_SIM_BOOT_RESERVE_H
#define MPM_SIM_BOOT_RESERVE_H

#include <mempower/mempower.h>

struct mpm_boot_reserve {
	struct mpm_hole_spec r[MPM_MAX_NUMNODES + 1];
	unsigned int n;
};

/*
 * Reserve the kernel image (16 MiB at the 16 MiB load address) and each
 * node's memmap (64 bytes of struct page per 4 KiB page, allocated top-down
 * at the end of the node) in @spec, storage in @res.
 */
void mpm_boot_reserve(struct mpm_machine_spec *spec, struct mpm_boot_reserve *res);

#endif /* MPM_SIM_BOOT_RESERVE_H */
