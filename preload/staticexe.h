/*
 * staticexe: programs the preload cannot enter. A statically linked
 * program (an ELF executable without PT_INTERP) is started by the kernel
 * with no dynamic loader, so nothing reads LD_PRELOAD there: the exec
 * wrappers (exec.c) ask here before they exec or after they spawn, and the
 * run says so once. Everything here uses the stack only and raw calls: it
 * runs in vfork children too.
 */
#ifndef PP_STATICEXE_H
#define PP_STATICEXE_H

/*
 * Whether path (relative to dirfd, as openat takes it) is a regular,
 * executable file that the kernel would start without a dynamic loader: an
 * ELF executable with no PT_INTERP that is not itself a shared object run
 * directly (as ld.so is: it has a DT_SONAME), or a script whose #!
 * interpreter is one (followed as the kernel does, 4 levels deep). errno
 * is kept.
 */
int pp_staticexe_is(int dirfd, const char *path);

/*
 * file as execvp and posix_spawnp find it: itself when it holds a '/',
 * else the first executable regular file of that name in $PATH (the
 * caller's environment, as glibc searches it), written into buf (size
 * bytes). Returns buf or file, or NULL when none is found. errno is kept.
 */
const char *pp_staticexe_find(const char *file, char *buf, unsigned long size);

/*
 * path, started as process pid (the caller's own for an exec), is
 * statically linked: notes it in process.log (process.h) and, the first
 * time in the run (a marker file in the output root, named after
 * PPROF_RUN), says so in one line on stderr. errno is kept.
 */
void pp_staticexe_note(int pid, const char *path);

#endif
