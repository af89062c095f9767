/*
 * inlines: a hot loop whose work is in static inline functions that the
 * compiler must inline (two levels deep), for the tests of source lines and
 * inline frames (test_symbols.c, it_symbols). The comments "line:NAME" mark
 * the lines the tests look for. Usage: inlines [SECONDS] (default 0.3).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned inl_sink;

static inline __attribute__((always_inline)) unsigned inl_square(unsigned x)
{
	unsigned v = x * x ^ (x >> 3); /* line:square */

	return v + (v >> 7);
}

static inline __attribute__((always_inline)) unsigned inl_mid(unsigned x)
{
	return inl_square(x + 1) * 3u; /* line:mid_call */
}

__attribute__((noinline)) unsigned inl_outer(unsigned n);
__attribute__((noinline)) unsigned inl_outer(unsigned n)
{
	unsigned s = 0;

	for (unsigned i = 0; i < n; i++)
		s += inl_mid(i ^ s); /* line:outer_call */
	return s;
}

static double inl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.3, start = inl_now();

	/* The volatile sink in the argument: clang hoists a pure call out of the loop. */
	while (inl_now() - start < seconds)
		inl_sink += inl_outer(100000 + (inl_sink & 1));
	printf("inlines: done\n");
	return 0;
}
