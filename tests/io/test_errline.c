// SPDX-License-Identifier: MIT
/*
 * Error lines (src/io/errline.h): the prefix, then the message with every
 * control byte escaped (\n, \t, \r, \xNN, DEL too), then exactly one
 * newline; a message that does not fit the 1 KiB buffer (with its NUL) is
 * cut and ends in "...", still on one line.
 */
#include <stdlib.h>
#include <string.h>

#include "io/errline.h"
#include "testlib.h"

__attribute__((format(printf, 1, 2)))
static char *line_of(const char *fmt, ...)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	va_list ap;

	REQUIRE(out);
	va_start(ap, fmt);
	mpm_verror_line(out, "mempower: ", fmt, ap);
	va_end(ap);
	REQUIRE(fclose(out) == 0);
	return buf;
}

static void expect_line(char *got, const char *want)
{
	CHECK(strcmp(got, want) == 0);
	if (strcmp(got, want))
		fprintf(stderr, "got '%s', want '%s'\n", got, want);
	free(got);
}

int main(void)
{
	char *s, *long_arg = malloc(2000);
	size_t n;

	expect_line(line_of("plain %d", 7), "mempower: plain 7\n");
	expect_line(line_of("key '%s'", "a\nb\tc\rd"), "mempower: key 'a\\nb\\tc\\rd'\n");
	expect_line(line_of("%s", "\x01\x1f\x7f~ \xc3\xa9"), "mempower: \\x01\\x1f\\x7f~ \xc3\xa9\n");

	REQUIRE(long_arg);
	memset(long_arg, 'x', 1999);
	long_arg[1999] = '\0';
	s = line_of("arg %s", long_arg);
	n = strlen(s);
	/* the prefix, 1023 bytes of the message, "...", one newline */
	CHECK_EQ_U(n, strlen("mempower: ") + 1023 + 3 + 1);
	CHECK(strncmp(s, "mempower: arg xxx", 17) == 0);
	CHECK(strcmp(s + n - 5, "x...\n") == 0);
	CHECK(strchr(s, '\n') == s + n - 1);
	free(s);
	/* one byte short of the buffer: whole, no "..." */
	long_arg[1023] = '\0';
	s = line_of("%s", long_arg);
	CHECK_EQ_U(strlen(s), strlen("mempower: ") + 1023 + 1);
	CHECK(strstr(s, "...") == NULL);
	free(s);
	/* exactly the buffer: its last byte goes, so "..." */
	long_arg[1023] = 'x';
	long_arg[1024] = '\0';
	s = line_of("%s", long_arg);
	CHECK_EQ_U(strlen(s), strlen("mempower: ") + 1023 + 3 + 1);
	free(s);
	free(long_arg);
	return t_report("io/errline");
}
