/* SPDX-License-Identifier: MIT */
/* mempower: a region-aware page frame allocator (umbrella header). */
#ifndef MEMPOWER_H
#define MEMPOWER_H

#define MPM_VERSION_STRING "0.1.0"

#include "export.h"
#include "gfp.h"
#include "machine.h"
#include "alloc.h"
#include "stats.h"
#include "check.h"
#include "rmap.h"
#include "evacuate.h"
#include "kmempowerd.h"

#ifdef __cplusplus
extern "C" {
#endif

MPM_API const char *mpm_version(void);

#ifdef __cplusplus
}
#endif

#endif /* MEMPOWER_H */
