/*
 * Unit tests for analyze/intern.c: distinct keys, dense indexes in order
 * of first sight, lookups that add nothing, keys that stay put.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "intern.h"

Test(intern, same_key_same_index_in_order_of_first_sight)
{
	struct pa_intern *t = pa_intern_new();

	cr_assert(t);
	cr_expect_eq(pa_intern_str(t, ""), 0);
	cr_expect_eq(pa_intern_str(t, "main"), 1);
	cr_expect_eq(pa_intern_str(t, "work"), 2);
	cr_expect_eq(pa_intern_str(t, "main"), 1);
	cr_expect_eq(pa_intern_count(t), 3);
	cr_expect_str_eq(pa_intern_key(t, 2, NULL), "work");
	pa_intern_free(t);
}

Test(intern, binary_keys_with_zero_bytes_differ_by_length)
{
	struct pa_intern *t = pa_intern_new();
	const uint64_t a[2] = { 1, 0 }, b[1] = { 1 };
	size_t len;

	cr_expect_eq(pa_intern_add(t, a, sizeof(a)), 0);
	cr_expect_eq(pa_intern_add(t, b, sizeof(b)), 1);
	cr_expect_eq(pa_intern_add(t, a, sizeof(a)), 0);
	cr_expect(memcmp(pa_intern_key(t, 0, &len), a, sizeof(a)) == 0);
	cr_expect_eq(len, sizeof(a));
	pa_intern_free(t);
}

Test(intern, keeps_every_key_across_growth)
{
	struct pa_intern *t = pa_intern_new();
	char key[32];

	for (int i = 0; i < 50000; i++) {
		snprintf(key, sizeof(key), "f%d", i);
		cr_assert_eq(pa_intern_str(t, key), i);
	}
	for (int i = 0; i < 50000; i += 997) {
		snprintf(key, sizeof(key), "f%d", i);
		cr_expect_eq(pa_intern_str(t, key), i);
	}
	cr_expect_eq(pa_intern_count(t), 50000);
	pa_intern_free(t);
	pa_intern_free(NULL);
}

Test(intern, find_adds_nothing)
{
	struct pa_intern *t = pa_intern_new();

	cr_expect_eq(pa_intern_find(t, "a", 2), -ENOENT);
	cr_expect_eq(pa_intern_str(t, "a"), 0);
	cr_expect_eq(pa_intern_find(t, "a", 2), 0);
	cr_expect_eq(pa_intern_find(t, "a", 1), -ENOENT, "\"a\" without its NUL is another key");
	cr_expect_eq(pa_intern_find(t, "b", 2), -ENOENT);
	cr_expect_eq(pa_intern_count(t), 1);
	pa_intern_free(t);
}

/* Callers keep pointers to keys (the profile's stacks, the reader's names): they never move. */
Test(intern, keys_stay_put_and_aligned_as_the_table_grows)
{
	struct pa_intern *t = pa_intern_new();
	const void *first[64];
	uint64_t key[9];

	for (size_t i = 0; i < 20000; i++) {
		size_t len = 1 + i % sizeof(key); /* every length, odd ones too */

		memset(key, 0, sizeof(key));
		key[0] = i;
		cr_assert_eq(pa_intern_add(t, key, len < 8 ? 8 : len), (int64_t)i);
		if (i < 64)
			first[i] = pa_intern_key(t, i, NULL);
	}
	for (size_t i = 0; i < 64; i++) {
		cr_expect_eq(pa_intern_key(t, i, NULL), first[i], "key %zu moved", i);
		cr_expect_eq(*(const uint64_t *)first[i], i);
	}
	for (size_t i = 0; i < 20000; i++)
		cr_expect_eq((uintptr_t)pa_intern_key(t, i, NULL) % 8, 0, "key %zu unaligned", i);
	pa_intern_free(t);
}
