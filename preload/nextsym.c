/* nextsym: the wrapped functions' real ones; see nextsym.h. */
#include "nextsym.h"

#include <dlfcn.h>

void pp_nextsym_resolve(const struct pp_nextsym *syms, size_t n, int *resolved)
{
	if (__atomic_load_n(resolved, __ATOMIC_ACQUIRE))
		return;
	for (size_t i = 0; i < n; i++)
		__atomic_store_n(syms[i].slot, dlsym(RTLD_NEXT, syms[i].name), __ATOMIC_RELAXED);
	__atomic_store_n(resolved, 1, __ATOMIC_RELEASE);
}
