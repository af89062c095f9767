/*
 * libburn.so: the part of the demo that is loaded with dlopen, so that the
 * profile shows a function of a module that was not there at start.
 */
#include <stdint.h>

#include "wl.h"

__attribute__((noinline)) uint64_t burn_gamma(uint64_t iters);

__attribute__((noinline)) uint64_t burn_gamma(uint64_t iters)
{
	return wl_burn(iters, 0x6a6d6d61);
}
