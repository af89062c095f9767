/*
 * satmath: sums and products of counts that a crafted log may make as
 * large as it likes: they stop at UINT64_MAX rather than wrap around.
 */
#ifndef PA_SATMATH_H
#define PA_SATMATH_H

#include <stdint.h>

/* a + b, UINT64_MAX when it does not fit. */
static inline uint64_t pa_add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* a * b, UINT64_MAX when it does not fit. */
static inline uint64_t pa_mul_sat(uint64_t a, uint64_t b)
{
	uint64_t p;

	return __builtin_mul_overflow(a, b, &p) ? UINT64_MAX : p;
}

#endif /* PA_SATMATH_H */
