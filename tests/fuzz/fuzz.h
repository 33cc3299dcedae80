/* SPDX-License-Identifier: MIT */
/*
 * Fuzz targets.  Each tests/fuzz/fuzz_*.c defines the libFuzzer entry
 * point; built with -DMPM_FUZZ=ON (clang) it links against libFuzzer and
 * explores (scripts/fuzz.sh), and in every other build it links against
 * replay.c, which runs the target over its corpus in tests/fuzz/corpus/ as
 * an ordinary test.  A target aborts, with the reason on stderr, when the
 * code under test breaks its contract; the sanitizers catch the rest.
 */
#ifndef MPM_TESTS_FUZZ_H
#define MPM_TESTS_FUZZ_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

__attribute__((noreturn, format(printf, 1, 2)))
static inline void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz: contract broken: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* A rejected input must say why: a non-empty message. */
static inline void fuzz_require_message(const char *what, const char *err)
{
	if (!err[0])
		fuzz_fail("%s failed without a message", what);
}

#endif /* MPM_TESTS_FUZZ_H */
