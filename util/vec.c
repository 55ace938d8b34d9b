/* Growable arrays (util/vec.h): the capacity rule, checked reallocation and the growth slow path. */
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

size_t tku_grow_cap(size_t cap, size_t need, size_t size, size_t first)
{
	size_t c = cap ? cap : first ? first : 1;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return 0;
		c *= 2;
	}
	if (size && c > SIZE_MAX / size)
		return 0;
	return c;
}

void *tku_reallocn(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	size_t bytes = n * size;
	return realloc(p, bytes ? bytes : 1);
}

int tku_grow_slow(void *pp, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t ncap = tku_grow_cap(*cap, need, size, first);
	void *p, *np;
	if (!ncap)
		return TK_ENOMEM;
	memcpy(&p, pp, sizeof(p)); /* *pp is a T *: read and written as bytes, not as a void * */
	np = realloc(p, ncap * size);
	if (!np)
		return TK_ENOMEM;
	memcpy(pp, &np, sizeof(np));
	*cap = ncap;
	return TK_OK;
}
