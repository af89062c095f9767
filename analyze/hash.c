/* hash: the analyzer's hash function; see hash.h. */
#include "hash.h"

#include <string.h>

/* Odd multipliers with their bits well spread (the golden ratio's and others'). */
#define PA_HASH_K1 0x9e3779b97f4a7c15ull
#define PA_HASH_K2 0xc2b2ae3d27d4eb4full
#define PA_HASH_K3 0xff51afd7ed558ccdull
#define PA_HASH_K4 0xc4ceb9fe1a85ec53ull

static uint64_t pa_hash_rotl(uint64_t v, unsigned r)
{
	return (v << r) | (v >> (64 - r));
}

static uint64_t pa_hash_word(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v)); /* any alignment */
	return v;
}

/*
 * One step of a lane: the multiply carries each bit of the lane and the
 * word into the bits above it, the rotation brings the high bits back
 * down, so that two words' differences in their high bits cannot cancel.
 */
static uint64_t pa_hash_step(uint64_t lane, uint64_t word, uint64_t k)
{
	return pa_hash_rotl(lane ^ word, 31) * k;
}

/*
 * Four lanes, each word going to the next: a lane's step waits for its
 * previous one, the four do not wait for each other, so that a long key
 * (a stack of addresses) costs little more than its loads.
 */
uint64_t pa_hash(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t a = (seed ^ len) * PA_HASH_K1, b = pa_hash_rotl(seed, 32) ^ PA_HASH_K2;
	uint64_t c = seed ^ PA_HASH_K3, d = ~seed;
	uint64_t tail = 0;
	size_t i = 0;

	for (; i + 32 <= len; i += 32) {
		a = pa_hash_step(a, pa_hash_word(p + i), PA_HASH_K1);
		b = pa_hash_step(b, pa_hash_word(p + i + 8), PA_HASH_K2);
		c = pa_hash_step(c, pa_hash_word(p + i + 16), PA_HASH_K1);
		d = pa_hash_step(d, pa_hash_word(p + i + 24), PA_HASH_K2);
	}
	if (i + 8 <= len) {
		a = pa_hash_step(a, pa_hash_word(p + i), PA_HASH_K1);
		i += 8;
	}
	if (i + 8 <= len) {
		b = pa_hash_step(b, pa_hash_word(p + i), PA_HASH_K2);
		i += 8;
	}
	if (i + 8 <= len) {
		c = pa_hash_step(c, pa_hash_word(p + i), PA_HASH_K1);
		i += 8;
	}
	if (i < len) {
		/* len is in a already: keys that differ by trailing zeros differ */
		memcpy(&tail, p + i, len - i);
		d = pa_hash_step(d, tail, PA_HASH_K2);
	}
	/* Fold the lanes, then mix so that the low bits depend on the high ones. */
	a ^= pa_hash_rotl(b, 17) * PA_HASH_K3 ^ pa_hash_rotl(c, 37) * PA_HASH_K4 ^
	     pa_hash_rotl(d, 53) * PA_HASH_K2;
	a ^= a >> 33;
	a *= PA_HASH_K3;
	a ^= a >> 29;
	a *= PA_HASH_K4;
	return a ^ (a >> 32);
}
