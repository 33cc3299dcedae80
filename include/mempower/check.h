/* SPDX-License-Identifier: MIT */
/*
 * The invariant walker.  mpm_check() recounts every list and counter from
 * scratch and reports the first broken invariant with its values.  It takes
 * every zone lock; the caller must not be inside an allocator call on any
 * thread that uses pcp lists (it reads them too).
 */
#ifndef MEMPOWER_CHECK_H
#define MEMPOWER_CHECK_H

#include <stddef.h>

#include "export.h"
#include "machine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 0 when every invariant holds; -1 with a one-line reason in @msg. */
MPM_API int mpm_check(struct mpm_machine *m, char *msg, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* MEMPOWER_CHECK_H */
