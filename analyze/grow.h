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

/*
 * Once an array is complete: gives back the room *v has beyond its n
 * elements (the doubling's slack, which a run of many small processes
 * and threads would otherwise hold for each). *v stays as it is if the
 * smaller allocation fails.
 */
void pa_grow_fit(void **v, size_t *cap, size_t n, size_t elem);

#endif
