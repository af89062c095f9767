/* Unit tests for analyze/hash.c: what the hash tables rely on. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

#define HASH_KEYS 65536

/* How many of the HASH_KEYS values' low 16 bits differ: a table's slots. */
static size_t hash_low_bits_used(const uint64_t *h)
{
	uint8_t *seen = calloc(HASH_KEYS, 1);
	size_t used = 0;

	cr_assert(seen);
	for (size_t i = 0; i < HASH_KEYS; i++) {
		used += !seen[h[i] & (HASH_KEYS - 1)];
		seen[h[i] & (HASH_KEYS - 1)] = 1;
	}
	free(seen);
	return used;
}

/*
 * Keys that differ only in their high bits (addresses of one module, far
 * apart), or only in one word of a long stack, still spread over a
 * table's slots: random values use about 63% of them.
 */
Test(hash, low_bits_follow_every_bit_of_the_key)
{
	uint64_t *h = malloc(HASH_KEYS * sizeof(*h));
	uint64_t stack[40] = { 0 };

	cr_assert(h);
	for (uint64_t i = 0; i < HASH_KEYS; i++) {
		uint64_t high = i << 40;

		h[i] = pa_hash(&high, sizeof(high), 0);
	}
	cr_expect_gt(hash_low_bits_used(h), HASH_KEYS / 2, "high bits");
	for (uint64_t i = 0; i < HASH_KEYS; i++) {
		stack[17] = 0x7f0000000000ull + (i << 32);
		h[i] = pa_hash(stack, sizeof(stack), 0);
	}
	cr_expect_gt(hash_low_bits_used(h), HASH_KEYS / 2, "one word of a stack");
	/* two words that differ in their top bytes only: the differences must not cancel */
	for (uint64_t i = 0; i < HASH_KEYS; i++) {
		memset(stack, 0, sizeof(stack));
		stack[0] = (i & 0xff) << 56;
		stack[4] = (i >> 8) << 56;
		h[i] = pa_hash(stack, sizeof(stack), 0);
	}
	cr_expect_gt(hash_low_bits_used(h), HASH_KEYS / 2, "top bytes of two words");
	for (uint64_t i = 0; i < HASH_KEYS; i++)
		h[i] = pa_hash("same bytes", 10, i << 48);
	cr_expect_gt(hash_low_bits_used(h), HASH_KEYS / 2, "seeds");
	free(h);
}

Test(hash, length_and_seed_tell_equal_bytes_apart)
{
	const char zeros[16] = { 0 };

	for (size_t n = 0; n < sizeof(zeros); n++)
		cr_expect_neq(pa_hash(zeros, n, 0), pa_hash(zeros, n + 1, 0), "%zu zeros", n);
	cr_expect_neq(pa_hash("key", 3, 1), pa_hash("key", 3, 2));
	cr_expect_eq(pa_hash("key", 3, 7), pa_hash("key", 3, 7));
}
