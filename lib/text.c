/* lib/text.c: see text.h. */
#include "lib/text.h"

#include <stdlib.h>
#include <string.h>

int text_escapes(unsigned char c)
{
	return c < 0x20 || c >= 0x7f || c == '\\';
}

void text_put(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (text_escapes(*p))
			fprintf(out, "\\x%02x", *p);
		else
			fputc(*p, out);
	}
}

char *text_dup(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	text_put(m, s);
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

const char *text_safe(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	while (*p && !text_escapes(*p))
		p++;
	if (!*p)
		return s;
	if (len < 4)
		return "...";
	for (p = (const unsigned char *)s; *p; p++) {
		size_t need = text_escapes(*p) ? 4 : 1;

		if (o + need + 4 > len) {	/* room for "..." and the NUL */
			memcpy(buf + o, "...", 4);
			return buf;
		}
		if (need == 4)
			snprintf(buf + o, 5, "\\x%02x", *p);
		else
			buf[o] = (char)*p;
		o += need;
	}
	buf[o] = 0;
	return buf;
}

void text_put_html(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (text_escapes(c)) {
			fprintf(out, "\\x%02x", c);
			continue;
		}
		switch (c) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(c, out);
		}
	}
}
