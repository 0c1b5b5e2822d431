/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The one grow-by-doubling of the arrays the tools append to (libbpf's
 * libbpf_ensure_mem()). */
#ifndef PK_ARRAY_H
#define PK_ARRAY_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* Room for NEED elements of ELEM_SIZE (> 0) bytes at *V, which holds *CAP:
 * nothing to do while NEED <= *CAP; otherwise *CAP doubles, from FIRST
 * when it is 0, until it holds NEED. 0, or -ENOMEM with *V and *CAP
 * unchanged (also when the size would not fit a size_t). */
static inline int pk_array_reserve(void **v, size_t *cap, size_t elem_size, size_t need,
				   size_t first)
{
	size_t ncap = *cap ? *cap : first ? first : 1;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / elem_size)
		return -ENOMEM;
	p = realloc(*v, ncap * elem_size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = ncap;
	return 0;
}

#endif
