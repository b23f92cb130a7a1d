/* lib/grow.h: the one way riot grows an array by doubling. */
#ifndef RIOT_LIB_GROW_H
#define RIOT_LIB_GROW_H

#include <stddef.h>

/* Makes room in *arr, an array of *cap elements of elem bytes, for need
 * elements: when *cap is smaller, the capacity doubles from *cap (from min
 * when *cap is 0) until it holds need, and the new elements are zeroed.
 * The capacity never passes max. 0, or -ENOMEM (out of memory, or need
 * past max elements, or a size past SIZE_MAX bytes), -EINVAL (elem 0);
 * *arr and *cap then unchanged. */
int grow_array(void **arr, size_t *cap, size_t need, size_t elem, size_t min, size_t max);

/* grow_array() on an array arr of sizeof(*arr)-byte elements whose
 * capacity is cap, an lvalue of any unsigned type (its largest value is
 * the bound). Evaluates to 0 or -ENOMEM. */
#define GROW(arr, cap, need, min)                                             \
	__extension__({                                                       \
		void *grow_a_ = (arr);                                        \
		size_t grow_c_ = (cap);                                       \
		int grow_rc_ = grow_array(&grow_a_, &grow_c_, (need),         \
					  sizeof(*(arr)), (min),              \
					  (size_t)(__typeof__(cap))-1);       \
		(arr) = grow_a_;                                              \
		(cap) = (__typeof__(cap))grow_c_;                             \
		grow_rc_;                                                     \
	})

#endif
