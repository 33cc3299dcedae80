/* SPDX-License-Identifier: MIT */
/*
 * UTF-8 for the result JSON.  Its strings come from the user -- a machine
 * file's description, a memspec's memoryId, a file's path -- and JSON
 * strings are Unicode: jansson refuses bytes that are not UTF-8, and a key
 * whose value it refused would be dropped without a word.  So strings are
 * cut only between characters, and what is still not UTF-8 (a path of
 * Latin-1 bytes) is written with U+FFFD for each bad byte.
 */
#ifndef MPM_IO_UTF8_H
#define MPM_IO_UTF8_H

#include <stddef.h>

/* Bytes of the well-formed UTF-8 sequence at @s (0 if there is none). */
size_t utf8_seq_len(const unsigned char *s, size_t avail);
/*
 * Copy @src into @dst of @size bytes like snprintf("%s"), but if it must
 * cut, cut before the character that does not fit whole.
 */
void utf8_copy(char *dst, size_t size, const char *src);
/*
 * The same for a path, whose end tells files apart: what does not fit is
 * cut from the front, and "..." marks the cut.
 */
void utf8_copy_tail(char *dst, size_t size, const char *src);
/*
 * @src with every byte that starts no well-formed sequence replaced by
 * U+FFFD, in a new string (malloc), or NULL when out of memory.
 */
char *utf8_scrub(const char *src);

#endif /* MPM_IO_UTF8_H */
