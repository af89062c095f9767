/*
 * unwlib: libunwind, loaded privately. libunwind.so.8 also defines the C++
 * unwinder's _Unwind_* functions (and a weak backtrace): as a dependency of
 * the preload it would sit in the program's global symbol scope, ahead of
 * the program's libraries' own dependencies, and a C program using a C++
 * library would throw its exceptions with libunwind's _Unwind_RaiseException
 * instead of libgcc_s's. dlopen with RTLD_LOCAL keeps every libunwind
 * symbol out of that scope; the preload reaches the two functions it needs
 * through pointers.
 */
#ifndef PP_UNWLIB_H
#define PP_UNWLIB_H

#include <stddef.h>

/* libunwind's unw_backtrace: async-signal-safe once warmed up in a thread. */
typedef int (*pp_unwlib_backtrace_fn)(void **frames, int size);

/*
 * Loads libunwind and sets its local address space's cache size (the
 * constructor calls it once; the caller keeps the answer). Returns its
 * unw_backtrace, or NULL with why (why_size bytes) filled in.
 */
pp_unwlib_backtrace_fn pp_unwlib_load(size_t cache_size, char *why, size_t why_size);

#endif /* PP_UNWLIB_H */
