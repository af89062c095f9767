/*
 * tst_twin_a: one of two static functions named tst_twin in the test binary
 * (tst_twin_a.c, tst_twin_b.c), as two source files of a program each have
 * their own static helper: tst_run.h's tst_twin_a gives its address.
 */
#include "tst_run.h"

static __attribute__((noinline)) int tst_twin(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

int (*tst_twin_a(void))(int)
{
	return tst_twin;
}
