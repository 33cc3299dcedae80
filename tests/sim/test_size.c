// SPDX-License-Identifier: MIT
/* Size strings: every accepted spelling, and the ones that must be refused. */
#include <string.h>

#include "sim/size.h"
#include "testlib.h"

static uint64_t ok(const char *s)
{
	char err[128] = "";
	uint64_t v = 0xdead;

	if (mpm_parse_size(s, &v, err, sizeof(err))) {
		fprintf(stderr, "unexpected error for '%s': %s\n", s, err);
		t_failures++;
	}
	return v;
}

static int refused(const char *s, int want)
{
	char err[128] = "";
	uint64_t v = 0xdead;
	int r = mpm_parse_size(s, &v, err, sizeof(err));

	/* A refusal must explain itself and leave the output alone. */
	return r == want && err[0] && v == 0xdead;
}

static int bad(const char *s)
{
	return refused(s, -1);
}

/* well-formed, past 2^64 - 1 */
static int too_large(const char *s)
{
	return refused(s, -2);
}

int main(void)
{
	char buf[32];
	uint64_t v;

	CHECK_EQ_U(ok("0"), 0);
	CHECK_EQ_U(ok("4096"), 4096);
	CHECK_EQ_U(ok("4096B"), 4096);
	CHECK_EQ_U(ok("4k"), 4096);
	CHECK_EQ_U(ok("4K"), 4096);
	CHECK_EQ_U(ok("4KB"), 4096);
	CHECK_EQ_U(ok("4kib"), 4096);
	CHECK_EQ_U(ok("512M"), 512ull << 20);
	CHECK_EQ_U(ok("512MiB"), 512ull << 20);
	CHECK_EQ_U(ok("16G"), 16ull << 30);
	CHECK_EQ_U(ok("16gb"), 16ull << 30);
	CHECK_EQ_U(ok("2T"), 2ull << 40);
	CHECK_EQ_U(ok("1P"), 1ull << 50);
	CHECK_EQ_U(ok("18446744073709551615"), UINT64_MAX);
	CHECK_EQ_U(ok("15P"), 15ull << 50);

	CHECK(bad(NULL));
	CHECK(bad(""));
	CHECK(bad("-1"));
	CHECK(bad("-1G"));
	CHECK(bad("+4K"));
	CHECK(bad(" 4K"));
	CHECK(bad("4K "));
	CHECK(bad("G"));
	CHECK(bad("4X"));
	CHECK(bad("4KK"));
	CHECK(bad("4Ki"));
	CHECK(bad("4iB"));
	CHECK(bad("4.5G"));
	CHECK(bad("0x1000"));
	CHECK(bad("1e9"));
	CHECK(bad("abc"));
	CHECK(too_large("18446744073709551616"));
	CHECK(too_large("16384P"));	/* 2^64: one past the top */
	CHECK(too_large("99999999999999999999999G"));

	CHECK(mpm_parse_u64("42", &v) == 0 && v == 42);
	CHECK(mpm_parse_u64("", &v) == -1);
	CHECK(mpm_parse_u64("4K", &v) == -1);
	CHECK(mpm_parse_u64("-3", &v) == -1);
	CHECK(mpm_parse_u64("18446744073709551616", &v) == -1);

	CHECK(!strcmp(mpm_format_size(16ull << 30, buf, sizeof(buf)), "16G"));
	CHECK(!strcmp(mpm_format_size(640 << 10, buf, sizeof(buf)), "640K"));
	CHECK(!strcmp(mpm_format_size(4097, buf, sizeof(buf)), "4097"));
	CHECK(!strcmp(mpm_format_size(0, buf, sizeof(buf)), "0"));
	return t_report("sim/size");
}
