/* SPDX-License-Identifier: MIT */
#ifndef MEMPOWER_EXPORT_H
#define MEMPOWER_EXPORT_H

/*
 * The library is built with -fvisibility=hidden; only what carries MPM_API
 * is exported from the shared object.
 */
#if defined(__GNUC__)
#define MPM_API __attribute__((visibility("default")))
#else
#define MPM_API
#endif

#endif /* MEMPOWER_EXPORT_H */
