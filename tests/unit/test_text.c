/* lib/text.h: text from a log in human output. Terminal controls, bytes
 * that are not printable ASCII and the backslash come out as \xNN; the
 * rest as it is; text_safe() hands back clean strings untouched and cuts
 * long ones with "...". */
#include <stdlib.h>

#include "lib/text.h"
#include "tests/unit/unit.h"

static char *put(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	text_put(f, s);
	fclose(f);
	return buf;
}

#define CHECK_PUT(s, want) do { \
	char *_g = put(s), *_d = text_dup(s); \
	CHECK_STR(_g, want); \
	CHECK_STR(_d, want); \
	free(_g); \
	free(_d); \
} while (0)

int main(void)
{
	char buf[16];
	const char *clean = "/data/file.txt";

	CHECK_PUT("/a/b c", "/a/b c");
	CHECK_PUT("/w/\x1b[2J", "/w/\\x1b[2J");
	CHECK_PUT("\x1b]0;title\x07", "\\x1b]0;title\\x07");
	CHECK_PUT("a\nb\rc\x7f", "a\\x0ab\\x0dc\\x7f");
	CHECK_PUT("/w/\xff", "/w/\\xff");
	CHECK_PUT("/w/\xc3\xbf", "/w/\\xc3\\xbf");
	CHECK_PUT("/w/\xc2\x9b" "2J", "/w/\\xc2\\x9b2J");	/* C1 CSI in UTF-8 */
	CHECK_PUT("a\\x1b", "a\\x5cx1b");	/* a literal backslash stays apart */
	CHECK(text_safe(clean, buf, sizeof(buf)) == clean);
	CHECK_STR(text_safe("\x1b[2J", buf, sizeof(buf)), "\\x1b[2J");
	CHECK_STR(text_safe("\x1b\x1b\x1b\x1b", buf, sizeof(buf)), "\\x1b\\x1b\\x1b...");
	CHECK_STR(text_safe("\x1b", buf, 3), "...");
	return unit_done();
}
