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
#include <string.h>

/*
 * "..." after a message that a callee wrote into @err, an array, and cut
 * to fit; "" otherwise.  The writers cut with snprintf(), so a message that
 * fills the array was cut (or is exactly that long, which none is).
 */
#define MPM_ERR_CUT(err)	(strlen(err) + 1 >= sizeof(err) ? "..." : "")

/* @prefix, the message with control bytes escaped, and one newline. */
void mpm_verror_line(FILE *out, const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#endif /* MPM_IO_ERRLINE_H */
