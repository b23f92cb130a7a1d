/* lib/pathname.c: lexical path resolution (pathname.h). */
#include <string.h>

#include "lib/pathname.h"

/* Drops the last component of out[0..len) (len > 1 means one exists). */
static size_t path_pop(const char *out, size_t len)
{
	while (len > 1 && out[len - 1] != '/')
		len--;
	return len > 1 ? len - 1 : 1;
}

size_t path_resolve(char *out, size_t cap, const char *base, size_t blen,
		    const char *rel, bool *truncated)
{
	size_t len = 1, dropped = 0, n;
	const char *p = rel, *c;

	out[0] = '/';
	if (rel[0] != '/' && blen > 1 && blen < cap) {
		memcpy(out, base, blen);
		len = blen;
	} else if (rel[0] != '/' && blen >= cap) {
		*truncated = true;	/* callers never pass such a base */
	}
	while (path_next(&p, &c, &n)) {
		if (path_is_dot(c, n))
			continue;
		if (path_is_dotdot(c, n)) {
			if (dropped)
				dropped--;
			else
				len = path_pop(out, len);
			continue;
		}
		/* "/" + name + NUL must fit */
		if (dropped || (len > 1) + n + len + 1 > cap) {
			dropped++;
			continue;
		}
		if (len > 1)
			out[len++] = '/';
		memcpy(out + len, c, n);
		len += n;
	}
	out[len] = '\0';
	if (dropped)
		*truncated = true;
	return len;
}
