// SPDX-License-Identifier: MIT
/* Error lines: see errline.h. */
#include "io/errline.h"

/* Longer messages are cut, with "..." at the end; none comes close. */
#define ERRLINE_MAX	1024

static void put_escaped(FILE *out, unsigned char c)
{
	switch (c) {
	case '\n':
		fputs("\\n", out);
		break;
	case '\t':
		fputs("\\t", out);
		break;
	case '\r':
		fputs("\\r", out);
		break;
	default:
		if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
}

void mpm_verror_line(FILE *out, const char *prefix, const char *fmt, va_list ap)
{
	char msg[ERRLINE_MAX];
	int n = vsnprintf(msg, sizeof(msg), fmt, ap);

	fputs(prefix, out);
	for (const char *p = msg; *p; p++)
		put_escaped(out, (unsigned char)*p);
	if (n >= (int)sizeof(msg))
		fputs("...", out);
	fputc('\n', out);
}
