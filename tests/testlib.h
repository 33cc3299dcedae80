/* SPDX-License-Identifier: MIT */
/* A tiny test harness: CHECK() records a failure and goes on; main returns
 * non-zero when any check failed.  Enough for ctest, no dependency. */
#ifndef MPM_TESTLIB_H
#define MPM_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>

static int t_failures;
static int t_checks;

#define CHECK(cond) do { \
	t_checks++; \
	if (!(cond)) { \
		t_failures++; \
		fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
	} \
} while (0)

#define CHECK_EQ_U(a, b) do { \
	unsigned long long _a = (unsigned long long)(a), _b = (unsigned long long)(b); \
	t_checks++; \
	if (_a != _b) { \
		t_failures++; \
		fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%llu != %llu)\n", \
			__FILE__, __LINE__, #a, #b, _a, _b); \
	} \
} while (0)

#define REQUIRE(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond); \
		exit(1); \
	} \
} while (0)

static inline int t_report(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, t_checks, t_failures);
	return t_failures ? 1 : 0;
}

#endif
