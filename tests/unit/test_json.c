/* The JSON writer's strings: escapes, UTF-8 text kept as it is, and every
 * byte that is not UTF-8 escaped on its own as a lone surrogate. */
#include <stdlib.h>

#include "lib/json.h"
#include "tests/unit/unit.h"

/* What json_strn() writes for n bytes at s, as a top-level value. */
static char *encode(const char *s, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	json_init(&j, f, false);
	json_strn(&j, NULL, s, n);
	fclose(f);
	return buf;
}

static void check(const char *s, size_t n, const char *want, int line)
{
	char *got = encode(s, n);

	unit_checks++;
	if (strcmp(got, want) != 0) {
		unit_failures++;
		fprintf(stderr, "%s:%d: encoded \"%s\", expected \"%s\"\n", __FILE__, line, got, want);
	}
	free(got);
}
#define CHECK_ENC(lit, want) check(lit, sizeof(lit) - 1, want, __LINE__)

int main(void)
{
	CHECK_ENC("/a/b c", "\"/a/b c\"");
	CHECK_ENC("q\"b\\n\n\r\t", "\"q\\\"b\\\\n\\n\\r\\t\"");
	CHECK_ENC("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
	/* UTF-8: two, three and four bytes, the edges of each */
	CHECK_ENC("/tmp/\xc3\xbc", "\"/tmp/\xc3\xbc\"");
	CHECK_ENC("\xc2\x80\xdf\xbf", "\"\xc2\x80\xdf\xbf\"");
	CHECK_ENC("\xe2\x82\xac\xe0\xa0\x80\xef\xbf\xbf", "\"\xe2\x82\xac\xe0\xa0\x80\xef\xbf\xbf\"");
	CHECK_ENC("\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf", "\"\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\"");
	/* not UTF-8: each byte on its own */
	CHECK_ENC("\xc3", "\"\\udcc3\"");			/* cut short */
	CHECK_ENC("\xc3(", "\"\\udcc3(\"");			/* no continuation */
	CHECK_ENC("\xc0\xaf", "\"\\udcc0\\udcaf\"");		/* overlong '/' */
	CHECK_ENC("\xe0\x80\xaf", "\"\\udce0\\udc80\\udcaf\"");	/* overlong */
	CHECK_ENC("\xed\xa0\x80", "\"\\udced\\udca0\\udc80\"");	/* surrogate */
	CHECK_ENC("\xf4\x90\x80\x80", "\"\\udcf4\\udc90\\udc80\\udc80\"");	/* > U+10FFFF */
	CHECK_ENC("\xf5\x80\x80\x80", "\"\\udcf5\\udc80\\udc80\\udc80\"");
	CHECK_ENC("\x80\xbf", "\"\\udc80\\udcbf\"");		/* lone continuations */
	CHECK_ENC("\xe2\x82", "\"\\udce2\\udc82\"");		/* cut three-byte */
	/* a byte that is not UTF-8 never reads as the character of that code:
	 * \xff and the UTF-8 of U+00FF stay apart */
	CHECK_ENC("/w/\xff", "\"/w/\\udcff\"");
	CHECK_ENC("/w/\xc3\xbf", "\"/w/\xc3\xbf\"");
	/* a NUL inside the counted bytes */
	check("a\0b", 3, "\"a\\u0000b\"", __LINE__);
	return unit_done();
}
