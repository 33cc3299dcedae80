// SPDX-License-Identifier: MIT
/*
 * UTF-8 for the result JSON (src/io/utf8.h): the well-formed sequences of
 * Unicode's table 3-7 and nothing else, cuts between characters only, and
 * every bad byte written as U+FFFD -- so that jansson never refuses a
 * string and no key of the result is lost.
 */
#include <string.h>

#include <jansson.h>

#include "io/utf8.h"
#include "testlib.h"

static size_t seq(const char *s)
{
	return utf8_seq_len((const unsigned char *)s, strlen(s));
}

static void test_sequences(void)
{
	CHECK_EQ_U(seq("a"), 1);
	CHECK_EQ_U(seq("\xc3\xa9"), 2);			/* é */
	CHECK_EQ_U(seq("\xe2\x82\xac"), 3);		/* € */
	CHECK_EQ_U(seq("\xf0\x9f\x98\x80"), 4);		/* U+1F600 */
	CHECK_EQ_U(seq("\xf4\x8f\xbf\xbf"), 4);		/* U+10FFFF */
	CHECK_EQ_U(seq("\xc3"), 0);			/* cut short */
	CHECK_EQ_U(seq("\xe2\x82"), 0);
	CHECK_EQ_U(seq("\xa9"), 0);			/* a continuation byte */
	CHECK_EQ_U(seq("\xc0\xaf"), 0);			/* overlong '/' */
	CHECK_EQ_U(seq("\xe0\x80\xaf"), 0);		/* overlong */
	CHECK_EQ_U(seq("\xed\xa0\x80"), 0);		/* a surrogate */
	CHECK_EQ_U(seq("\xf4\x90\x80\x80"), 0);		/* above U+10FFFF */
	CHECK_EQ_U(seq("\xff"), 0);
	CHECK_EQ_U(seq("\xc3" "a"), 0);			/* a bad continuation */
}

static void test_copy(void)
{
	char buf[8];

	utf8_copy(buf, sizeof(buf), "abc");
	CHECK(!strcmp(buf, "abc"));
	/* 7 bytes of room: three é (6 bytes), not half of the fourth */
	utf8_copy(buf, sizeof(buf), "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
	CHECK(!strcmp(buf, "\xc3\xa9\xc3\xa9\xc3\xa9"));
	utf8_copy(buf, 2, "\xc3\xa9");
	CHECK(!strcmp(buf, ""));
	utf8_copy(buf, sizeof(buf), "\xff\xfe" "abcdefgh");	/* bad bytes count as one each */
	CHECK(!strcmp(buf, "\xff\xfe" "abcde"));

	utf8_copy_tail(buf, sizeof(buf), "short");
	CHECK(!strcmp(buf, "short"));
	utf8_copy_tail(buf, sizeof(buf), "/long/dir/a.json");
	CHECK(!strcmp(buf, "...json"));
	utf8_copy_tail(buf, sizeof(buf), "/d/\xc3\xa9\xc3\xa9z");	/* starts on a character */
	CHECK(!strcmp(buf, "...\xc3\xa9z"));
}

static void test_scrub(void)
{
	char *s = utf8_scrub("ok \xc3\xa9 \xff\xc3 end");
	json_t *j;

	REQUIRE(s);
	CHECK(!strcmp(s, "ok \xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd end"));
	j = json_string(s);	/* jansson takes what it refused before */
	CHECK(j != NULL);
	CHECK(json_string("ok \xc3\xa9 \xff\xc3 end") == NULL);
	json_decref(j);
	free(s);
}

int main(void)
{
	test_sequences();
	test_copy();
	test_scrub();
	return t_report("io/utf8");
}
