/*
 * respath: realpath(3) for the module scan, with fewer system calls. glibc's
 * realpath reads every component of every path with readlink(2) (46 calls
 * for /bin/true's seven objects); most objects of a process share a few
 * directories, so a resolver resolves each distinct directory once and then
 * reads only the file's own name (and, for a symbolic link, its target's).
 * The result is the path realpath would give. Not for signal context.
 */
#ifndef PP_RESPATH_H
#define PP_RESPATH_H

#include <limits.h>

/* Directories already resolved; a scan's worth (a few dozen). */
#define PP_RESPATH_DIRS 32

struct pp_respath_dir {
	char *name;      /* as asked, malloc'd */
	char *real;      /* realpath(name), malloc'd; NULL: it failed */
	int err;         /* errno of the failure */
};

struct pp_respath {
	struct pp_respath_dir dir[PP_RESPATH_DIRS];
	int n;
};

/*
 * Puts in out (PATH_MAX bytes) the canonical absolute path of name, as
 * realpath(name, out) would. Returns 0, or -1 with errno set (then out is
 * undefined). A relative name is taken from the current directory.
 */
int pp_respath_resolve(struct pp_respath *rp, const char *name, char *out);

/* Forgets what rp resolved (a directory's links may change later). */
void pp_respath_release(struct pp_respath *rp);

#endif
