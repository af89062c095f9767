/*
 * libreload.so: loaded by dlreuse after libburn.so was unloaded, usually at
 * the same address. Its burning function sits at another offset (behind
 * reload_pad), so a symboliser that confused the two modules would name
 * the wrong function.
 */
#include <stdint.h>

#include "wl.h"

uint64_t reload_pad(uint64_t iters);
uint64_t burn_delta(uint64_t iters);

__attribute__((noinline)) uint64_t reload_pad(uint64_t iters)
{
	uint64_t x = wl_burn(iters, 7);

	return wl_burn(x & 0xff, x) + wl_burn(iters & 3, 11) + wl_burn(iters & 5, 13);
}

__attribute__((noinline)) uint64_t burn_delta(uint64_t iters)
{
	return wl_burn(iters, 0x64656c74);
}
