/* Growable arrays; see grow.h. */
#include "grow.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

int pa_grow(void **v, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *nv;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	if (ncap <= n)
		ncap = n + 1;
	if (ncap > SIZE_MAX / elem)
		return -ENOMEM;
	nv = realloc(*v, ncap * elem);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

void pa_grow_fit(void **v, size_t *cap, size_t n, size_t elem)
{
	void *nv;

	if (!*v || n >= *cap)
		return;
	nv = realloc(*v, (n ? n : 1) * elem);
	if (!nv)
		return;
	*v = nv;
	*cap = n ? n : 1;
}
