/* lib/grow.c: growing an array by doubling (lib/grow.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

int grow_array(void **arr, size_t *cap, size_t need, size_t elem, size_t min, size_t max)
{
	size_t c = *cap ? *cap : (min ? min : 1);
	char *a;

	if (need <= *cap)
		return 0;
	if (!elem)
		return -EINVAL;
	if (need > max)
		return -ENOMEM;
	while (c < need)
		c = c > max / 2 ? max : c * 2;
	if (c > max)	/* min past max */
		c = max;
	if (c > SIZE_MAX / elem)
		return -ENOMEM;
	a = realloc(*arr, c * elem);
	if (!a)
		return -ENOMEM;
	memset(a + *cap * elem, 0, (c - *cap) * elem);
	*arr = a;
	*cap = c;
	return 0;
}
