/* lib/pathname.h: walking the components of a '/'-separated path, the one
 * way the resolver (model/) and confinement (replay/) read a path. */
#ifndef RIOT_LIB_PATHNAME_H
#define RIOT_LIB_PATHNAME_H

#include <stdbool.h>
#include <stddef.h>

/* Skips the '/'s at *p and returns the component after them in *c and *n,
 * leaving *p just past it; false when no component is left. */
static inline bool path_next(const char **p, const char **c, size_t *n)
{
	while (**p == '/')
		(*p)++;
	if (!**p)
		return false;
	*c = *p;
	while (**p && **p != '/')
		(*p)++;
	*n = (size_t)(*p - *c);
	return true;
}

static inline bool path_is_dot(const char *c, size_t n)
{
	return n == 1 && c[0] == '.';
}

static inline bool path_is_dotdot(const char *c, size_t n)
{
	return n == 2 && c[0] == '.' && c[1] == '.';
}

/* Lexical resolution of rel against base (an absolute, normalised path of
 * blen bytes; ignored when rel is absolute) into out, which holds
 * cap bytes (cap >= 2): '.' dropped, '..' removes the component before it
 * and never climbs above "/". Returns the length written (NUL-terminated).
 * Whole components that do not fit are dropped and *truncated set; a `..`
 * first cancels a dropped component, so only a result that is really longer
 * than cap - 1 counts as truncated. */
size_t path_resolve(char *out, size_t cap, const char *base, size_t blen,
		    const char *rel, bool *truncated);

#endif
