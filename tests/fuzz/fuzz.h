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
#include <string.h>
#include <unistd.h>

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

/*
 * The loaders take paths: write @size bytes of @data to this process's
 * $TMPDIR/mpm-fuzz-<@stem>-<pid>.json (/tmp without TMPDIR) and return the
 * path; the caller unlinks it.  One target per process, so one buffer.
 */
static inline const char *fuzz_write_file(const char *stem, const void *data, size_t size)
{
	static char path[96];
	const char *dir = getenv("TMPDIR");
	FILE *f;

	snprintf(path, sizeof(path), "%s/mpm-fuzz-%s-%d.json",
		 dir && strlen(dir) < 48 ? dir : "/tmp", stem, (int)getpid());
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		fuzz_fail("cannot write %s", path);
	return path;
}

#endif /* MPM_TESTS_FUZZ_H */
