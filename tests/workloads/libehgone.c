/*
 * libehgone.so: the code ehgone runs while it takes this library's unwind
 * tables or headers away. Integer work only: the library's read-only data
 * (where its tables are) is never read by its code.
 */
#include <stdint.h>

#include "wl.h"

__attribute__((noinline)) uint64_t ehgone_before(uint64_t iters);
__attribute__((noinline)) uint64_t ehgone_during(uint64_t iters);
__attribute__((noinline)) uint64_t ehgone_after(uint64_t iters);

__attribute__((noinline)) uint64_t ehgone_before(uint64_t iters)
{
	return wl_burn(iters, 0x62656672);
}

__attribute__((noinline)) uint64_t ehgone_during(uint64_t iters)
{
	return wl_burn(iters, 0x64757269);
}

__attribute__((noinline)) uint64_t ehgone_after(uint64_t iters)
{
	return wl_burn(iters, 0x61667465);
}
