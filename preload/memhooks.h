/*
 * memhooks: the interposed calls that change the address space (munmap,
 * mprotect, mremap, mmap and mmap64 with MAP_FIXED). When the program
 * itself unmaps, protects or replaces memory of a loaded object (its
 * headers, code or unwind tables, which libunwind reads from memory at a
 * sample), samples keep the leaf from before the change until the
 * module map has been scanned again after it (maps.h), and an object that
 * is no longer readable is not given to libunwind (sigsafe/dlsnap.h):
 * unprofiled, such a program runs on as long as it does not run there; a
 * sample there would have faulted inside the handler. Every other call is
 * passed on after one look at the snapshot. Runs in signal context when
 * the call comes from there (libunwind's and the profiler's own maps).
 */
#ifndef PP_MEMHOOKS_H
#define PP_MEMHOOKS_H

/* Looks up the real functions; call once, early, outside signal context. */
void pp_memhooks_resolve(void);

#endif
