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

/*
 * Registers the code of handle, a libunwind library just loaded (before its
 * first use), so that the pipe it keeps for checking addresses is made
 * above the program's descriptors (sigsafe/unwpipe.h). Not
 * async-signal-safe.
 */
void pp_unwlib_own_pipes(void *handle);

/*
 * Makes the calling thread's block of libunwind's thread-local variables
 * (its trace cache's pointer: libunwind is dlopen'd, so the block is made
 * at the thread's first use of them, with malloc). Called at a thread's
 * start, so that its first unw_backtrace, in the signal handler, mallocs
 * nothing: it then only maps and fills its trace cache (mmap) and stores
 * it under libunwind's thread key, which made no allocation while that
 * key is one of the first 32 of the process (pp_unwlib_early_key). Not
 * async-signal-safe.
 */
void pp_unwlib_thread_tls(void);

/*
 * Whether key, a thread key made after libunwind's first unw_backtrace in
 * the process (which made libunwind's own key), is one of the first 32 of
 * the process: then libunwind's key is too, and glibc's
 * pthread_setspecific stores its value in the thread without allocating
 * (glibc keeps the first 32 in the thread itself, the others in blocks it
 * callocs on first use).
 */
int pp_unwlib_early_key(unsigned key);

#endif /* PP_UNWLIB_H */
