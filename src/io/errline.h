/* SPDX-License-Identifier: MIT */
/*
 * Error lines.  Every error the tools report is one line on stderr, but a
 * message echoes what it rejects: a JSON key, an option, a workload string,
 * any of which may hold a newline or another control byte.  The printer
 * escapes those (\n, \t, \r, \xNN), so the line stays one line.
 */
#ifndef MPM_IO_ERRLINE_H
#define MPM_IO_ERRLINE_H

#include <stdarg.h>
#include <stdio.h>

/* @prefix, the message with control bytes escaped, and one newline. */
void mpm_verror_line(FILE *out, const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#endif /* MPM_IO_ERRLINE_H */
