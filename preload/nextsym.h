/*
 * nextsym: the functions libpprof.so wraps, found once in the libraries
 * after it (dlsym(RTLD_NEXT)). Each wrapping module lists its own in a
 * table of {name, where the pointer goes} and resolves it on first use,
 * before the constructor too (another library's constructor may call a
 * wrapper first).
 */
#ifndef PP_NEXTSYM_H
#define PP_NEXTSYM_H

#include <stddef.h>

struct pp_nextsym {
	const char *name;
	void **slot; /* the function pointer it fills (NULL when not found) */
};

/*
 * Fills every slot of syms[0..n) and then sets *resolved, once: a later
 * call returns at once. Threads racing on the first call fill the same
 * values.
 */
void pp_nextsym_resolve(const struct pp_nextsym *syms, size_t n, int *resolved);

#endif /* PP_NEXTSYM_H */
