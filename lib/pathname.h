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

#endif
