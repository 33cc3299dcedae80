/* SPDX-License-Identifier: MIT */
/* Memspec files and names (docs/power-model.md, "Memspec files"). */
#ifndef MPM_IO_MEMSPEC_JSON_H
#define MPM_IO_MEMSPEC_JSON_H

#include <stddef.h>

#include "power/power.h"

/* Load and check a memspec file; 0, or -1 with "FILE: field: reason". */
int mpm_memspec_load(const char *path, struct mpm_memspec *s, char *err, size_t errlen);
/* A preset name or a .json file; 0, or -1 with a one-line reason. */
int mpm_memspec_resolve(const char *name, struct mpm_memspec *s, char *err, size_t errlen);

#endif /* MPM_IO_MEMSPEC_JSON_H */
