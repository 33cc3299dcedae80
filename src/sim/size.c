// SPDX-License-Identifier: MIT
/*
 * Size parsing.  Written by hand rather than with strtoull(): strtoull
 * accepts leading blanks, a sign ("-1" wraps to 2^64 - 1) and hex, all of
 * which would turn a typo into a plausible machine size.
 */
#include "sim/size.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

int mpm_parse_u64(const char *s, uint64_t *val)
{
	uint64_t v = 0;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (*s)
		return -1;
	*val = v;
	return 0;
}

/* log2 of the unit named by @c, or -1. */
static int unit_shift(char c)
{
	switch (tolower((unsigned char)c)) {
	case 'k': return 10;
	case 'm': return 20;
	case 'g': return 30;
	case 't': return 40;
	case 'p': return 50;
	default: return -1;
	}
}

/* The part after the digits: "", "B", "K", "KB", "KiB" (any case). */
static int parse_suffix(const char *s, int *shift)
{
	*shift = 0;
	if (!*s)
		return 0;
	if (!strcasecmp(s, "b"))
		return 0;
	*shift = unit_shift(*s);
	if (*shift < 0)
		return -1;
	s++;
	if (!*s || !strcasecmp(s, "b") || !strcasecmp(s, "ib"))
		return 0;
	return -1;
}

int mpm_parse_size(const char *s, uint64_t *bytes, char *err, size_t errlen)
{
	uint64_t v = 0;
	const char *p = s;
	int shift;

	if (!s || !*s) {
		snprintf(err, errlen, "empty size");
		return -1;
	}
	if (!isdigit((unsigned char)*p)) {
		snprintf(err, errlen, "malformed size '%s' (expected e.g. 16G, 512M, 4096)", s);
		return -1;
	}
	for (; isdigit((unsigned char)*p); p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (v > (UINT64_MAX - d) / 10) {
			snprintf(err, errlen, "size '%s' is too large", s);
			return -2;
		}
		v = v * 10 + d;
	}
	if (parse_suffix(p, &shift)) {
		snprintf(err, errlen, "malformed size '%s' (expected e.g. 16G, 512M, 4096)", s);
		return -1;
	}
	if (shift && v > (UINT64_MAX >> shift)) {
		snprintf(err, errlen, "size '%s' is too large", s);
		return -2;
	}
	*bytes = v << shift;
	return 0;
}

char *mpm_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "PTGMK";
	int shift = 50;

	for (const char *u = units; *u; u++, shift -= 10) {
		uint64_t unit = (uint64_t)1 << shift;

		if (bytes && bytes % unit == 0) {
			snprintf(buf, len, "%llu%c",
				 (unsigned long long)(bytes >> shift), *u);
			return buf;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)bytes);
	return buf;
}

char *mpm_format_mem_round(uint64_t bytes, int dir, char *buf, size_t len)
{
	/* GiB to a tenth, MiB and KiB whole */
	static const struct { unsigned int shift; int digits; const char *unit; } units[] = {
		{ 30, 1, "GiB" }, { 20, 0, "MiB" }, { 10, 0, "KiB" },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		double x, per;

		if (bytes < 1ull << units[i].shift)
			continue;
		/* in the printed digits' steps, rounded as asked */
		per = units[i].digits ? 10 : 1;
		x = (double)bytes / (double)(1ull << units[i].shift) * per;
		x = dir > 0 ? ceil(x) : dir < 0 ? floor(x) : x;
		snprintf(buf, len, "%.*f %s", units[i].digits, x / per, units[i].unit);
		return buf;
	}
	snprintf(buf, len, "%llu bytes", (unsigned long long)bytes);
	return buf;
}

char *mpm_format_mem(uint64_t bytes, char *buf, size_t len)
{
	return mpm_format_mem_round(bytes, 0, buf, len);
}
