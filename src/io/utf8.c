// SPDX-License-Identifier: MIT
/* UTF-8 for the result JSON: see utf8.h. */
#include <stdlib.h>
#include <string.h>

#include "io/utf8.h"

/* Unicode 15, table 3-7: the well-formed byte sequences. */
size_t utf8_seq_len(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80)
		return avail ? 1 : 0;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;	/* a continuation byte, C0, C1 or F5..FF */
	if (n > avail)
		return 0;
	/* the second byte's range excludes overlongs, surrogates and > U+10FFFF */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

void utf8_copy(char *dst, size_t size, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t len = strlen(src), used = 0;

	if (!size)
		return;
	while (used < len) {
		size_t n = utf8_seq_len(s + used, len - used);

		if (!n)
			n = 1;		/* a bad byte is one character */
		if (used + n > size - 1)
			break;
		used += n;
	}
	memcpy(dst, src, used);
	dst[used] = '\0';
}

void utf8_copy_tail(char *dst, size_t size, const char *src)
{
	size_t len = strlen(src);
	const char *tail;

	if (len < size || size < 8) {
		utf8_copy(dst, size, src);
		return;
	}
	tail = src + len - (size - 4);		/* room for "..." and the NUL */
	while (((unsigned char)*tail & 0xc0) == 0x80)
		tail++;				/* start on a character */
	memcpy(dst, "...", 3);
	memcpy(dst + 3, tail, strlen(tail) + 1);
}

char *utf8_scrub(const char *src)
{
	static const char fffd[] = "\xef\xbf\xbd";
	const unsigned char *s = (const unsigned char *)src;
	size_t len = strlen(src), out = 0;
	char *dst = malloc(3 * len + 1);	/* each byte at most U+FFFD */

	if (!dst)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t n = utf8_seq_len(s + i, len - i);

		if (n) {
			memcpy(dst + out, s + i, n);
			out += n;
			i += n;
		} else {
			memcpy(dst + out, fffd, 3);
			out += 3;
			i++;
		}
	}
	dst[out] = '\0';
	return dst;
}
