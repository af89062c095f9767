/*
 * Unit tests for analyze/grow.c: the first allocation, doubling, a jump
 * past double, contents kept, and a size that cannot be allocated.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

Test(grow, first_room_is_sixteen_and_room_left_changes_nothing)
{
	int *v = NULL;
	size_t cap = 0;
	int *before;

	cr_assert_eq(pa_grow((void **)&v, &cap, 0, sizeof(*v)), 0);
	cr_assert_not_null(v);
	cr_assert_eq(cap, 16);
	before = v;
	cr_assert_eq(pa_grow((void **)&v, &cap, 15, sizeof(*v)), 0);
	cr_expect_eq(v, before, "element 15 fits: no reallocation");
	cr_expect_eq(cap, 16);
	free(v);
}

Test(grow, doubles_and_keeps_every_element)
{
	uint64_t *v = NULL;
	size_t cap = 0;

	for (size_t n = 0; n < 1000; n++) {
		cr_assert_eq(pa_grow((void **)&v, &cap, n, sizeof(*v)), 0, "element %zu", n);
		cr_assert_gt(cap, n);
		v[n] = n * 7919;
	}
	cr_expect_eq(cap, 1024, "16 doubled six times");
	for (size_t n = 0; n < 1000; n++)
		cr_assert_eq(v[n], n * 7919, "element %zu lost", n);
	free(v);
}

/* An element far past the end gets room at once, not just double. */
Test(grow, makes_room_for_an_element_past_double)
{
	char *v = NULL;
	size_t cap = 0;

	cr_assert_eq(pa_grow((void **)&v, &cap, 0, 1), 0);
	cr_assert_eq(pa_grow((void **)&v, &cap, 100, 1), 0);
	cr_expect_eq(cap, 101);
	v[100] = 'x';
	free(v);
}

/* A size that would overflow is ENOMEM, the array left as it was. */
Test(grow, too_large_is_enomem_and_leaves_the_array)
{
	char *v = NULL;
	size_t cap = 0;
	char *before;

	cr_assert_eq(pa_grow((void **)&v, &cap, 0, 1), 0);
	before = v;
	cr_expect_eq(pa_grow((void **)&v, &cap, SIZE_MAX / 2, 4), -ENOMEM);
	cr_expect_eq(v, before);
	cr_expect_eq(cap, 16);
	free(v);
}
