/* grow: the growable arrays of the analyzer. */
#ifndef PA_GROW_H
#define PA_GROW_H

#include <stddef.h>

/*
 * Makes room in *v (elements of elem bytes, *cap of them allocated) for
 * element n: doubles the allocation (16 at first) when n reaches *cap.
 * Returns 0, or -ENOMEM with *v and *cap unchanged.
 */
int pa_grow(void **v, size_t *cap, size_t n, size_t elem);

#endif
