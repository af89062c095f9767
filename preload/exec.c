/*
 * The exec family and posix_spawn. Some of these run in a vfork() child,
 * which shares the parent's memory: they allocate only on the stack
 * (alloca), never on the heap, and write no log (the process id is not the
 * profiled one there).
 */
#include "exec.h"
#include "hooks.h"
#include "nextsym.h"

#include <alloca.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "masks.h"
#include "process.h"
#include "staticexe.h"

#define PP_EXPORT __attribute__((visibility("default")))
#define PP_EXEC_MAX_VARS 16
/* Past this, an environment is passed on as it is. */
#define PP_EXEC_ENV_MAX (256u << 10)
#define PP_EXEC_PRELOAD "LD_PRELOAD="

typedef int (*pp_execve_fn)(const char *, char *const[], char *const[]);
typedef int (*pp_fexecve_fn)(int, char *const[], char *const[]);
typedef int (*pp_execveat_fn)(int, const char *, char *const[], char *const[], int);
typedef int (*pp_spawn_fn)(pid_t *, const char *,
			   const posix_spawn_file_actions_t *,
			   const posix_spawnattr_t *, char *const[],
			   char *const[]);

static struct {
	int resolved;
	int follow;
	char lib[PATH_MAX];              /* this library, absolute */
	char *vars[PP_EXEC_MAX_VARS];    /* PPROF_*=... at start */
	size_t nvars;
	pp_execve_fn execve, execvpe;
	pp_fexecve_fn fexecve;
	pp_execveat_fn execveat; /* glibc 2.34 and later */
	pp_spawn_fn spawn, spawnp;
} pp_exec;

extern char **environ;

/* The real functions, found on first use (nextsym.h). */
static const struct pp_nextsym pp_exec_syms[] = {
	{ "execve", (void **)&pp_exec.execve },
	{ "execvpe", (void **)&pp_exec.execvpe },
	{ "fexecve", (void **)&pp_exec.fexecve },
	{ "execveat", (void **)&pp_exec.execveat },
	{ "posix_spawn", (void **)&pp_exec.spawn },
	{ "posix_spawnp", (void **)&pp_exec.spawnp },
};

static void pp_exec_resolve(void)
{
	pp_nextsym_resolve(pp_exec_syms, sizeof(pp_exec_syms) / sizeof(pp_exec_syms[0]),
			   &pp_exec.resolved);
}

void pp_exec_init(int follow)
{
	Dl_info info;

	pp_exec_resolve();
	if (!dladdr((void *)pp_exec_init, &info) || !info.dli_fname ||
	    !realpath(info.dli_fname, pp_exec.lib))
		follow = 0;
	pp_exec.follow = follow;
	for (char **e = environ; e && *e && pp_exec.nvars < PP_EXEC_MAX_VARS; e++)
		if (strncmp(*e, "PPROF_", 6) == 0 && strchr(*e, '='))
			pp_exec.vars[pp_exec.nvars++] = strdup(*e);
}

/* The entry "NAME=..." of envp whose name is that of var ("NAME=..."), or NULL. */
static char *pp_exec_find(char *const envp[], const char *var)
{
	size_t n = (size_t)(strchr(var, '=') - var) + 1;

	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], var, n) == 0)
			return envp[i];
	return NULL;
}

/*
 * Whether an LD_PRELOAD entry already names this library. Never, before
 * pp_exec_init found the library's path (profiling off from the start):
 * the empty name would be found at every place, for ever.
 */
static int pp_exec_has_lib(const char *entry)
{
	const char *p = entry + strlen(PP_EXEC_PRELOAD);
	size_t n = strlen(pp_exec.lib);

	if (!n)
		return 0;

	while ((p = strstr(p, pp_exec.lib)) != NULL) {
		int starts = p == entry + strlen(PP_EXEC_PRELOAD) || p[-1] == ':' ||
			     p[-1] == ' ';
		int ends = p[n] == '\0' || p[n] == ':' || p[n] == ' ';

		if (starts && ends)
			return 1;
		p += n;
	}
	return 0;
}

/*
 * Bytes pp_exec_env_fill needs for envp, or 0 when envp can be passed on as
 * it is (it has the profiler, or following is off, or it is too large).
 */
static size_t pp_exec_env_size(char *const envp[])
{
	const char *preload;
	size_t n = 0, need = 0, strings = 0;

	if (!pp_exec.follow)
		return 0;
	/* Counted first: need says whether anything is missing at all. */
	while (envp && envp[n])
		n++;
	preload = pp_exec_find(envp, PP_EXEC_PRELOAD);
	if (!preload || !pp_exec_has_lib(preload)) {
		need++;
		strings = sizeof(PP_EXEC_PRELOAD) + strlen(pp_exec.lib) + 1 +
			  (preload ? strlen(preload) : 0);
	}
	for (size_t i = 0; i < pp_exec.nvars; i++)
		if (!pp_exec_find(envp, pp_exec.vars[i]))
			need++;
	if (!need)
		return 0;
	/* Room for every pointer pp_exec_env_fill may write, then the string. */
	need = (n + 2 + pp_exec.nvars) * sizeof(char *) + strings;
	return need > PP_EXEC_ENV_MAX ? 0 : need;
}

/*
 * Writes into buf (pp_exec_env_size bytes) envp with the profiler put back:
 * this library first in LD_PRELOAD, and the PPROF_* variables the app left
 * out. Variables the app set itself keep the app's values.
 */
static char **pp_exec_env_fill(char *const envp[], void *buf)
{
	char **out = buf;
	const char *preload = pp_exec_find(envp, PP_EXEC_PRELOAD);
	size_t k = 0, n = 0;
	char *str;

	while (envp && envp[n])
		n++;
	for (size_t i = 0; envp && envp[i]; i++)
		if (envp[i] != preload)
			out[k++] = envp[i];
	if (preload && pp_exec_has_lib(preload)) {
		out[k++] = (char *)preload;
	} else {
		const char *rest = preload ? preload + strlen(PP_EXEC_PRELOAD) : "";
		size_t lib = strlen(pp_exec.lib), pre = strlen(PP_EXEC_PRELOAD);

		/* No stdio: this may run in a vfork child. */
		str = (char *)(out + n + 2 + pp_exec.nvars);
		memcpy(str, PP_EXEC_PRELOAD, pre);
		memcpy(str + pre, pp_exec.lib, lib);
		str[pre + lib] = *rest ? ':' : '\0';
		memcpy(str + pre + lib + 1, rest, strlen(rest) + 1);
		out[k++] = str;
	}
	for (size_t i = 0; i < pp_exec.nvars; i++)
		if (!pp_exec_find(envp, pp_exec.vars[i]))
			out[k++] = pp_exec.vars[i];
	out[k] = NULL;
	return out;
}

/*
 * The program at path (found as execvp does when search is set), started
 * with environment env as process pid, would have the profiler in
 * LD_PRELOAD but cannot load it (statically linked): said and noted
 * (staticexe.h). Nothing about the exec changes.
 */
static void pp_exec_check_static(int pid, const char *path, int search, char *const env[])
{
	const char *preload = pp_exec_find(env, PP_EXEC_PRELOAD);
	char found[PATH_MAX];

	if (!path || !preload || !pp_exec_has_lib(preload))
		return;
	if (search)
		path = pp_staticexe_find(path, found, sizeof(found));
	if (path && pp_staticexe_is(AT_FDCWD, path))
		pp_staticexe_note(pid, path);
}

/* envp with the profiler put back, in the caller's stack frame. */
#define PP_EXEC_ENV(envp)                                                    \
	({                                                                   \
		size_t pp_size_ = pp_exec_env_size(envp);                    \
		pp_size_ ? pp_exec_env_fill(envp, alloca(pp_size_))          \
			 : (char **)(envp);                                  \
	})

/*
 * Runs the real exec call around the profiler's part: sampling stops
 * before (pp_process_exec_begin), the new program gets the mask the app
 * set (masks.h), and both are undone if the exec fails. Call
 * pp_exec_resolve first.
 */
#define PP_EXEC_CALL(path, call)                                             \
	({                                                                   \
		int pp_began_ = pp_process_exec_begin(path), pp_rc_;         \
		int pp_masked_ = pp_masks_apply();                           \
		struct sigaction pp_ours_;                                   \
		int pp_ign_ = pp_hooks_exec_ignored(&pp_ours_);              \
		pp_rc_ = (call);                                             \
		pp_hooks_exec_failed(pp_ign_, &pp_ours_);                    \
		pp_masks_unapply(pp_masked_);                                \
		pp_process_exec_failed(pp_began_);                           \
		pp_rc_;                                                      \
	})

/*
 * Runs a posix_spawn call: the child gets the mask the app set, unless
 * attr gives it one of its own (POSIX_SPAWN_SETSIGMASK).
 */
#define PP_EXEC_SPAWN(attr, call)                                            \
	({                                                                   \
		short pp_flags_ = 0;                                         \
		int pp_masked_ = 0, pp_rc_;                                  \
		struct sigaction pp_ours_;                                   \
		int pp_ign_;                                                 \
		if (!(attr) || posix_spawnattr_getflags((attr), &pp_flags_) != 0 || \
		    !(pp_flags_ & POSIX_SPAWN_SETSIGMASK))                   \
			pp_masked_ = pp_masks_apply();                       \
		/* Ignored meanwhile in this process too: samples lost. */   \
		pp_ign_ = pp_hooks_exec_ignored(&pp_ours_);                  \
		pp_rc_ = (call);                                             \
		pp_hooks_exec_failed(pp_ign_, &pp_ours_);                    \
		pp_masks_unapply(pp_masked_);                                \
		pp_rc_;                                                      \
	})

PP_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	char **env;

	pp_exec_resolve();
	env = PP_EXEC_ENV(envp);
	pp_exec_check_static(getpid(), path, 0, env);
	return PP_EXEC_CALL(path, pp_exec.execve(path, argv, env));
}

PP_EXPORT int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

PP_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	char **env;

	pp_exec_resolve();
	env = PP_EXEC_ENV(envp);
	pp_exec_check_static(getpid(), file, 1, env);
	return PP_EXEC_CALL(file, pp_exec.execvpe(file, argv, env));
}

PP_EXPORT int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

PP_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	char path[64], **env;

	pp_exec_resolve();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	env = PP_EXEC_ENV(envp);
	pp_exec_check_static(getpid(), path, 0, env);
	return PP_EXEC_CALL(path, pp_exec.fexecve(fd, argv, env));
}

PP_EXPORT int execveat(int dirfd, const char *path, char *const argv[],
		       char *const envp[], int flags)
{
	char what[PATH_MAX + 64], **env;

	pp_exec_resolve();
	if (!pp_exec.execveat) {
		errno = ENOSYS;
		return -1;
	}
	/* Absolute, or relative to dirfd: named as the kernel will resolve it. */
	if (path[0] == '/' || dirfd == AT_FDCWD)
		snprintf(what, sizeof(what), "%s", path);
	else if (!path[0])
		snprintf(what, sizeof(what), "/proc/self/fd/%d", dirfd);
	else
		snprintf(what, sizeof(what), "/proc/self/fd/%d/%s", dirfd, path);
	env = PP_EXEC_ENV(envp);
	pp_exec_check_static(getpid(), what, 0, env);
	return PP_EXEC_CALL(what, pp_exec.execveat(dirfd, path, argv, env, flags));
}

/* The arguments of an execl-style call, as an argv on the caller's stack. */
#define PP_EXEC_ARGV(first, ap, with_envp, envp_out)                          \
	({                                                                   \
		va_list pp_count_;                                           \
		size_t pp_n_ = 1;                                            \
		char **pp_argv_;                                             \
		va_copy(pp_count_, ap);                                      \
		while (va_arg(pp_count_, char *))                            \
			pp_n_++;                                             \
		va_end(pp_count_);                                           \
		pp_argv_ = alloca((pp_n_ + 1) * sizeof(char *));             \
		pp_argv_[0] = (char *)(first);                               \
		for (size_t pp_i_ = 1; pp_i_ <= pp_n_; pp_i_++)              \
			pp_argv_[pp_i_] = va_arg(ap, char *);                \
		if (with_envp)                                               \
			envp_out = va_arg(ap, char **);                      \
		pp_argv_;                                                    \
	})

PP_EXPORT int execl(const char *path, const char *arg, ...)
{
	char **envp = environ, **argv;
	va_list ap;

	va_start(ap, arg);
	argv = PP_EXEC_ARGV(arg, ap, 0, envp);
	va_end(ap);
	return execve(path, argv, envp);
}

PP_EXPORT int execlp(const char *file, const char *arg, ...)
{
	char **envp = environ, **argv;
	va_list ap;

	va_start(ap, arg);
	argv = PP_EXEC_ARGV(arg, ap, 0, envp);
	va_end(ap);
	return execvpe(file, argv, envp);
}

PP_EXPORT int execle(const char *path, const char *arg, ...)
{
	char **envp = NULL, **argv;
	va_list ap;

	va_start(ap, arg);
	argv = PP_EXEC_ARGV(arg, ap, 1, envp);
	va_end(ap);
	return execve(path, argv, envp);
}

/*
 * posix_spawn (search: posix_spawnp, fn the real one) with the profiler put
 * back into envp; a child started names its program when the preload
 * cannot enter it.
 */
static int pp_exec_spawn(pp_spawn_fn fn, int search, pid_t *pid, const char *path,
			 const posix_spawn_file_actions_t *actions,
			 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	char **env = PP_EXEC_ENV(envp);
	pid_t child;
	int rc = PP_EXEC_SPAWN(attr, fn(&child, path, actions, attr, argv, env));

	if (rc == 0) {
		pp_exec_check_static(child, path, search, env);
		if (pid)
			*pid = child;
	}
	return rc;
}

PP_EXPORT int posix_spawn(pid_t *pid, const char *path,
			  const posix_spawn_file_actions_t *actions,
			  const posix_spawnattr_t *attr, char *const argv[],
			  char *const envp[])
{
	pp_exec_resolve();
	return pp_exec_spawn(pp_exec.spawn, 0, pid, path, actions, attr, argv, envp);
}

PP_EXPORT int posix_spawnp(pid_t *pid, const char *file,
			   const posix_spawn_file_actions_t *actions,
			   const posix_spawnattr_t *attr, char *const argv[],
			   char *const envp[])
{
	pp_exec_resolve();
	return pp_exec_spawn(pp_exec.spawnp, 1, pid, file, actions, attr, argv, envp);
}
