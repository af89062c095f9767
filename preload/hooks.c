/*
 * The interposed functions. Each forwards to the next definition (libc's)
 * found with dlsym(RTLD_NEXT) and adds what profiling needs around it.
 */
#include "hooks.h"
#include "nextsym.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "control.h"
#include "maps.h"
#include "masks.h"
#include "memhooks.h"
#include "pprof/format.h"
#include "process.h"
#include "sigsafe/appmask.h"
#include "sigsafe/dlsnap.h"
#include "sigsafe/fd.h"
#include "sigsafe/records.h"
#include "sigsafe/sampler.h"
#include "sigsafe/sampsig.h"
#include "sigsafe/unwmask.h"
#include "sigsafe/unwpipe.h"
#include "thread.h"
#include "wall.h"

#define PP_EXPORT __attribute__((visibility("default")))

typedef int (*pp_pthread_create_fn)(pthread_t *, const pthread_attr_t *,
				    void *(*)(void *), void *);
typedef void *(*pp_dlopen_fn)(const char *, int);
typedef void *(*pp_dlmopen_fn)(Lmid_t, const char *, int);
typedef int (*pp_dlclose_fn)(void *);
typedef int (*pp_sigaction_fn)(int, const struct sigaction *,
			       struct sigaction *);

typedef int (*pp_close_fn)(int);
typedef ssize_t (*pp_rw_fn)(int, void *, size_t);
typedef int (*pp_open_fn)(const char *, int, ...);
typedef int (*pp_msync_fn)(void *, size_t, int);
typedef int (*pp_yield_fn)(void);
typedef int (*pp_close_range_fn)(unsigned, unsigned, int);
typedef int (*pp_fcntl_fn)(int, int, ...);
typedef int (*pp_dup_fn)(int);
typedef int (*pp_dup2_fn)(int, int);
typedef int (*pp_dup3_fn)(int, int, int);
typedef int (*pp_setuid_fn)(uid_t);
typedef int (*pp_setreuid_fn)(uid_t, uid_t);
typedef int (*pp_setresuid_fn)(uid_t, uid_t, uid_t);
typedef int (*pp_daemon_fn)(int, int);

typedef void (*pp_exit_fn)(int);
typedef void (*pp_abort_fn)(void);

typedef int (*pp_main_fn)(int, char **, char **);
typedef int (*pp_start_main_fn)(pp_main_fn, int, char **, void (*)(void),
				void (*)(void), void (*)(void), void *);

static struct {
	pp_pthread_create_fn pthread_create;
	pp_dlopen_fn dlopen;
	pp_dlmopen_fn dlmopen;
	pp_dlclose_fn dlclose;
	pp_sigaction_fn sigaction;
	pp_close_fn close;
	pp_rw_fn read, write;
	pp_open_fn open;
	pp_msync_fn msync;
	pp_yield_fn sched_yield;
	pp_close_range_fn close_range;
	pp_fcntl_fn fcntl, fcntl64;
	pp_dup_fn dup;
	pp_dup2_fn dup2;
	pp_dup3_fn dup3;
	pp_setuid_fn setuid, seteuid;
	pp_setreuid_fn setreuid;
	pp_setresuid_fn setresuid;
	pp_daemon_fn daemon;
	pp_exit_fn exit_, exit_upper; /* _exit, _Exit */
	pp_exit_fn quick_exit;
	pp_abort_fn abort_;
	int resolved; /* atomic: the pointers above are set */
} pp_real;

/* The real functions, found on first use (nextsym.h); pthread_create's last. */
static const struct pp_nextsym pp_hooks_syms[] = {
	{ "dlopen", (void **)&pp_real.dlopen },
	{ "dlmopen", (void **)&pp_real.dlmopen },
	{ "dlclose", (void **)&pp_real.dlclose },
	{ "sigaction", (void **)&pp_real.sigaction },
	{ "close", (void **)&pp_real.close },
	{ "read", (void **)&pp_real.read },
	{ "write", (void **)&pp_real.write },
	{ "open", (void **)&pp_real.open },
	{ "msync", (void **)&pp_real.msync },
	{ "sched_yield", (void **)&pp_real.sched_yield },
	{ "close_range", (void **)&pp_real.close_range },
	{ "fcntl", (void **)&pp_real.fcntl },
	{ "fcntl64", (void **)&pp_real.fcntl64 },
	{ "dup", (void **)&pp_real.dup },
	{ "dup2", (void **)&pp_real.dup2 },
	{ "dup3", (void **)&pp_real.dup3 },
	{ "setuid", (void **)&pp_real.setuid },
	{ "seteuid", (void **)&pp_real.seteuid },
	{ "setreuid", (void **)&pp_real.setreuid },
	{ "setresuid", (void **)&pp_real.setresuid },
	{ "daemon", (void **)&pp_real.daemon },
	{ "_exit", (void **)&pp_real.exit_ },
	{ "_Exit", (void **)&pp_real.exit_upper },
	{ "quick_exit", (void **)&pp_real.quick_exit },
	{ "abort", (void **)&pp_real.abort_ },
	{ "pthread_create", (void **)&pp_real.pthread_create },
};

/*
 * Whether our handler holds the sampling signal (sigsafe/sampsig.h); the
 * app's own action for it is the sampler's, set under the mutex.
 */
static int pp_hooks_handler_owned;
static pthread_mutex_t pp_hooks_app_action_mutex = PTHREAD_MUTEX_INITIALIZER;

struct pp_hooks_start {
	void *(*fn)(void *);
	void *arg;
	int blocked; /* the app's view of the new thread's mask blocks the sampling signal */
	int wall_inherited; /* it inherits the wall event's per-CPU switch events */
	int used;    /* atomic: a pool entry in use (pp_hooks_start_take) */
	int pooled;  /* taken from the pool, not malloc'd */
};

/*
 * What pthread_create hands the new thread, from a pool: the new thread
 * gives its entry back with a store, where free() would have made glibc
 * give it a malloc arena of its own (its thread cache is set up on first
 * use, free included): 64 MiB of address space reserved in every thread
 * of a program whose threads never malloc. malloc() only when the pool is
 * empty (more threads starting at once than it holds).
 */
#define PP_HOOKS_START_POOL 256
static struct pp_hooks_start pp_hooks_start_pool[PP_HOOKS_START_POOL];

void pp_hooks_resolve(void)
{
	pp_masks_resolve();
	pp_memhooks_resolve();
	pp_nextsym_resolve(pp_hooks_syms, sizeof(pp_hooks_syms) / sizeof(pp_hooks_syms[0]),
			   &pp_real.resolved);
}

void pp_hooks_mask_signal(int how, sigset_t *old)
{
	sigset_t set;

	pp_sampsig_mask_sigsafe(&set);
	pp_masks_real(how, &set, old);
}

void pp_hooks_restore_mask(const sigset_t *old)
{
	pp_masks_real(SIG_SETMASK, old, NULL);
}

int pp_hooks_signal_blocked(void)
{
	sigset_t cur;

	return pp_masks_real(SIG_BLOCK, NULL, &cur) == 0 &&
	       sigismember(&cur, pp_sampsig_number_sigsafe()) == 1;
}

int pp_hooks_install_handler(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = pp_sampler_handle_sigsafe;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	/*
	 * Nothing may interrupt the handler: an asynchronous cancellation
	 * (glibc's SIGCANCEL) that unwound the thread from inside it would
	 * leave its slot busy and its log unfinished, or libunwind's lock held.
	 * sigfillset() leaves glibc's internal signals out, so set every bit.
	 * libunwind's own mask calls there change a view, not the kernel's
	 * mask (sigsafe/unwmask.h); the sampler also holds the thread's
	 * cancellation off (sampler.c).
	 */
	memset(&sa.sa_mask, 0xff, sizeof(sa.sa_mask));
	pp_unwmask_handler_mask_sigsafe(&sa.sa_mask);
	pthread_mutex_lock(&pp_hooks_app_action_mutex);
	if (pp_real.sigaction(pp_sampsig_number_sigsafe(), &sa, &old) != 0) {
		pthread_mutex_unlock(&pp_hooks_app_action_mutex);
		return -errno;
	}
	if (!pp_hooks_handler_owned) {
		pp_sampler_app_action_set_sigsafe(&old);
		__atomic_store_n(&pp_hooks_handler_owned, 1, __ATOMIC_RELEASE);
		/* Our handler holds back what the app blocks: masks.h. */
		pp_appmask_set_on_sigsafe(1);
	}
	pthread_mutex_unlock(&pp_hooks_app_action_mutex);
	return 0;
}

void pp_hooks_uninstall_handler(void)
{
	pthread_mutex_lock(&pp_hooks_app_action_mutex);
	if (pp_hooks_handler_owned) {
		struct sigaction app;

		pp_sampler_app_action_get_sigsafe(&app);
		pp_masks_off();
		pp_real.sigaction(pp_sampsig_number_sigsafe(), &app, NULL);
		__atomic_store_n(&pp_hooks_handler_owned, 0, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&pp_hooks_app_action_mutex);
}

int pp_hooks_exec_ignored(struct sigaction *ours)
{
	struct sigaction app, ign;

	if (!__atomic_load_n(&pp_hooks_handler_owned, __ATOMIC_ACQUIRE) || !pp_real.sigaction)
		return 0;
	pp_sampler_app_action_get_sigsafe(&app);
	if (app.sa_handler != SIG_IGN)
		return 0;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	return pp_real.sigaction(pp_sampsig_number_sigsafe(), &ign, ours) == 0;
}

void pp_hooks_exec_failed(int ignored, const struct sigaction *ours)
{
	if (ignored)
		pp_real.sigaction(pp_sampsig_number_sigsafe(), ours, NULL);
}

/* The app changes its action for the sampling signal: keep ours, remember the app's. */
static int pp_hooks_app_action(const struct sigaction *act, struct sigaction *old)
{
	struct sigaction prev;

	pthread_mutex_lock(&pp_hooks_app_action_mutex);
	pp_sampler_app_action_get_sigsafe(&prev);
	if (act)
		pp_sampler_app_action_set_sigsafe(act);
	pthread_mutex_unlock(&pp_hooks_app_action_mutex);
	if (old)
		*old = prev;
	return 0;
}

int pp_hooks_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!pp_real.sigaction)
		pp_hooks_resolve();
	return pp_real.sigaction(sig, act, old);
}

int pp_hooks_create_helper(pthread_t *thread, const pthread_attr_t *attr,
			   void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int err;

	pp_hooks_resolve();
	/* sigfillset leaves glibc's internal signals out, as it must here. */
	sigfillset(&all);
	pp_masks_real(SIG_SETMASK, &all, &old);
	err = pp_real.pthread_create(thread, attr, fn, arg);
	pp_masks_real(SIG_SETMASK, &old, NULL);
	return err;
}

PP_EXPORT int sigaction(int sig, const struct sigaction *act,
			struct sigaction *old)
{
	int rc;

	if (!pp_real.sigaction)
		pp_hooks_resolve();
	if (pp_control_app_action(sig, act, old, pp_real.sigaction, &rc))
		return rc;
	if (__atomic_load_n(&pp_hooks_handler_owned, __ATOMIC_ACQUIRE) &&
	    sig == pp_sampsig_number_sigsafe())
		return pp_hooks_app_action(act, old);
	return pp_real.sigaction(sig, act, old);
}

PP_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART; /* glibc's signal() has BSD semantics */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, sig);
	if (sigaction(sig, &sa, &old) != 0)
		return SIG_ERR;
	/* sa_handler and sa_sigaction share storage: either reads it. */
	return old.sa_handler;
}

static pp_main_fn pp_app_main;

int __libc_start_main(pp_main_fn main_fn, int argc, char **argv,
		      void (*init)(void), void (*fini)(void),
		      void (*rtld_fini)(void), void *stack_end);

/*
 * Runs as the app's main. The call is a tail call at -O2, so no frame of
 * ours shows in the app's stacks.
 */
static int pp_hooks_main(int argc, char **argv, char **envp)
{
	pp_process_main_starts();
	return pp_app_main(argc, argv, envp);
}

/*
 * The program's entry calls this to run main. Wrapping main lets the
 * profiler register its exit handler after libc's own, so that it runs
 * before the destructors and sees the exit status.
 */
PP_EXPORT int __libc_start_main(pp_main_fn main_fn, int argc, char **argv,
				void (*init)(void), void (*fini)(void),
				void (*rtld_fini)(void), void *stack_end)
{
	pp_start_main_fn real =
		(pp_start_main_fn)dlsym(RTLD_NEXT, "__libc_start_main");

	pp_app_main = main_fn;
	return real(pp_hooks_main, argc, argv, init, fini, rtld_fini,
		    stack_end);
}

/*
 * The ends of a process that bypass exit() (which the exit handler
 * registered at main sees, process.h): the END records are written here,
 * before the real call. They may run in a vfork() child, where they write
 * nothing (the process id is not the profiled one).
 */
PP_EXPORT void _exit(int status)
{
	if (!pp_real.exit_)
		pp_hooks_resolve();
	pp_process_ends(PPF_EXIT_NORMAL, status);
	pp_real.exit_(status);
	__builtin_unreachable();
}

PP_EXPORT void _Exit(int status)
{
	if (!pp_real.exit_upper)
		pp_hooks_resolve();
	pp_process_ends(PPF_EXIT_NORMAL, status);
	pp_real.exit_upper(status);
	__builtin_unreachable();
}

/* daemon(3): its parent leaves by glibc's own _exit (process.h: pp_process_daemon). */
PP_EXPORT int daemon(int nochdir, int noclose)
{
	int saved = errno, ret;

	if (!pp_real.daemon)
		pp_hooks_resolve();
	errno = 0;
	pp_process_daemon(1);
	ret = pp_real.daemon(nochdir, noclose);
	pp_process_daemon(0);
	if (ret == 0)
		errno = saved;
	return ret;
}

/* quick_exit ends by glibc's own _exit: its status goes to process.h's handler. */
PP_EXPORT void quick_exit(int status)
{
	if (!pp_real.quick_exit)
		pp_hooks_resolve();
	pp_process_quick_exit(status);
	pp_real.quick_exit(status);
	__builtin_unreachable();
}

PP_EXPORT void abort(void)
{
	struct sigaction sa;

	if (!pp_real.abort_)
		pp_hooks_resolve();
	/* Only when nothing can catch it: an app handler may recover. */
	if (sigaction(SIGABRT, NULL, &sa) == 0 &&
	    (sa.sa_handler == SIG_DFL || sa.sa_handler == SIG_IGN))
		pp_process_ends(PPF_EXIT_SIGNAL, SIGABRT);
	pp_real.abort_();
	__builtin_unreachable();
}

static struct pp_hooks_start *pp_hooks_start_take(void)
{
	struct pp_hooks_start *s;

	for (unsigned i = 0; i < PP_HOOKS_START_POOL; i++) {
		int idle = 0;

		s = &pp_hooks_start_pool[i];
		if (__atomic_compare_exchange_n(&s->used, &idle, 1, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			s->pooled = 1;
			return s;
		}
	}
	s = malloc(sizeof(*s));
	if (s)
		s->pooled = 0;
	return s;
}

static void pp_hooks_start_give(struct pp_hooks_start *s)
{
	if (s->pooled)
		__atomic_store_n(&s->used, 0, __ATOMIC_RELEASE);
	else
		free(s);
}

/*
 * The new thread starts with the sampling signal blocked (see
 * pthread_create): it is unblocked once the thread's slot and log exist, so
 * no sample makes them in the handler first; what came meanwhile arrives
 * then, as one late sample. It is unblocked whatever mask the app gave the
 * thread (its creator's, or its attribute's): a thread born with every
 * signal blocked, as libraries make their quiet workers, is sampled too;
 * the app's view keeps the mask it gave (masks.h).
 */
static void *pp_hooks_thread_start(void *arg)
{
	struct pp_hooks_start start = *(struct pp_hooks_start *)arg;

	pp_hooks_start_give(arg);
	pp_thread_begin(start.wall_inherited);
	pp_masks_thread_start(start.blocked);
	return start.fn(start.arg);
}

/*
 * Whether the app's view of the mask a new thread gets from pthread_create
 * blocks the sampling signal: its attribute's mask when it has one
 * (pthread_attr_setsigmask_np), else its creator's (real: the kernel's
 * mask in pthread_create).
 */
static int pp_hooks_born_blocked(const pthread_attr_t *attr, const sigset_t *real)
{
	sigset_t set;

	if (attr && pthread_attr_getsigmask_np(attr, &set) == 0)
		return sigismember(&set, pp_sampsig_number_sigsafe()) == 1;
	return pp_masks_view_blocks(real);
}

/*
 * A thread made while the process is not profiled: it gets the mask the
 * app's view says (masks.h: the kernel's mask lacks the sampling signal
 * where the app blocks it).
 */
static int pp_hooks_create_unprofiled(pp_pthread_create_fn real, pthread_t *thread,
				      const pthread_attr_t *attr, void *(*fn)(void *),
				      void *arg)
{
	int applied = pp_masks_apply(), err;

	err = real(thread, attr, fn, arg);
	pp_masks_unapply(applied);
	return err;
}

PP_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
			     void *(*fn)(void *), void *arg)
{
	pp_pthread_create_fn real;
	struct pp_hooks_start *start;
	sigset_t old;
	int err;

	pp_hooks_resolve();
	real = pp_real.pthread_create;
	if (!pp_process_active())
		return pp_hooks_create_unprofiled(real, thread, attr, fn, arg);
	start = pp_hooks_start_take();
	if (!start)
		return pp_hooks_create_unprofiled(real, thread, attr, fn, arg);
	start->fn = fn;
	start->arg = arg;
	/*
	 * The child inherits the mask the parent has in pthread_create:
	 * block the sampling signal for that call only (see the trampoline).
	 * Samples that a thread took in the handler before its setup made its
	 * log there, and in the sigtrap mode at a 10 us period that hung
	 * 1,000 short threads (a malloc arena lock left held).
	 */
	pp_hooks_mask_signal(SIG_BLOCK, &old);
	start->blocked = pp_hooks_born_blocked(attr, &old);
	start->wall_inherited = pp_wall_inherited();
	err = real(thread, attr, pp_hooks_thread_start, start);
	pp_hooks_restore_mask(&old);
	if (err)
		pp_hooks_start_give(start);
	else
		pp_wall_thread_made();
	return err;
}

PP_EXPORT void *dlopen(const char *file, int mode)
{
	void *h;

	if (!pp_real.dlopen)
		pp_hooks_resolve();
	pp_sampler_dlopen_enter_sigsafe();
	/* glibc's dlopen's first byte past its entry: a return address in it. */
	pp_sampler_dlopen_caller_sigsafe((uint64_t)__builtin_return_address(0),
					 (uint64_t)(uintptr_t)pp_real.dlopen + 1);
	h = pp_real.dlopen(file, mode);
	pp_sampler_dlopen_caller_end_sigsafe();
	/*
	 * Still counted inside dlopen until the snapshot lists what it loaded:
	 * samples unwind with the snapshot in use unless it is partial (a
	 * failed dlopen unmaps what it had mapped, which a partial snapshot,
	 * dlsnap.h, may list: rebuild it then too).
	 */
	if ((h || pp_dlsnap_partial_sigsafe()) && pp_process_active() &&
	    /* Nothing loaded since the last scan (a library already loaded): nothing to scan. */
	    (!pp_maps_current() || pp_dlsnap_partial_sigsafe())) {
		int saved = errno; /* the app sees dlopen's errno */

		pp_maps_scan(pp_records_now_sigsafe(), 1);
		errno = saved;
	}
	pp_sampler_dlopen_leave_sigsafe();
	return h;
}

/*
 * dlmopen: as dlopen, and a namespace of its own is scanned from its handle
 * from now on (maps.h): dl_iterate_phdr does not list its objects, whose
 * samples were [unknown] with no stack.
 */
PP_EXPORT void *dlmopen(Lmid_t lmid, const char *file, int mode)
{
	void *h;

	if (!pp_real.dlmopen)
		pp_hooks_resolve();
	pp_sampler_dlopen_enter_sigsafe();
	pp_sampler_dlopen_caller_sigsafe((uint64_t)__builtin_return_address(0),
					 (uint64_t)(uintptr_t)pp_real.dlmopen + 1);
	h = pp_real.dlmopen(lmid, file, mode);
	pp_sampler_dlopen_caller_end_sigsafe();
	if ((h || pp_dlsnap_partial_sigsafe()) && pp_process_active()) {
		int saved = errno;

		pp_maps_namespace_add(h);
		pp_maps_scan(pp_records_now_sigsafe(), 1);
		errno = saved;
	}
	pp_sampler_dlopen_leave_sigsafe();
	return h;
}

void *pp_hooks_dlopen_unscanned(const char *file, int mode)
{
	void *h;

	if (!pp_real.dlopen)
		pp_hooks_resolve();
	/* A scan meanwhile makes a partial snapshot, as for the program's dlopen. */
	pp_sampler_dlopen_enter_sigsafe();
	h = pp_real.dlopen(file, mode);
	pp_sampler_dlopen_leave_sigsafe();
	return h;
}

PP_EXPORT int dlclose(void *handle)
{
	int rc;

	if (!pp_real.dlclose)
		pp_hooks_resolve();
	/* To the leaf until the snapshot no longer lists what it unloaded, nor an unwind reads it. */
	pp_sampler_dl_enter_sigsafe();
	pp_sampler_dl_quiesce_sigsafe();
	/* Not looked at again: the handle is gone once it returns. */
	pp_maps_namespace_drop(handle);
	rc = pp_real.dlclose(handle);
	/* A handle held elsewhere too (nothing unloaded since the last scan): nothing to scan. */
	if (rc == 0 && pp_process_active() && !pp_maps_current()) {
		int saved = errno;

		pp_maps_scan(pp_records_now_sigsafe(), 0);
		errno = saved;
	}
	pp_sampler_dl_leave_sigsafe();
	return rc;
}

/*
 * pipe2(2), with the pipes libunwind makes for itself moved out of the
 * program's descriptors (sigsafe/unwpipe.h). libunwind calls it from the
 * handler too.
 */
PP_EXPORT int pipe2(int fds[2], int flags)
{
	return pp_unwpipe_pipe2_sigsafe(fds, flags, __builtin_return_address(0));
}

/* This object's headers and code, as the linker lays them out (its default script's symbols). */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern const char __etext[] __attribute__((visibility("hidden")));

/* Runs in signal context. Whether a return address is in the profiler's own code. */
static int pp_hooks_from_us(const void *caller)
{
	return (const char *)caller >= __ehdr_start && (const char *)caller < __etext;
}

/*
 * Runs in signal context. Whether fd is one of the profiler's (fd.h), which
 * the program is not to see (caller: the call's return address; the
 * profiler's own calls see them): then errno is EBADF, as it would be
 * without the profiler. One array look for any other number.
 */
static int pp_hooks_hidden(int fd, const void *caller)
{
	if (!pp_fd_registered_sigsafe(fd) || pp_hooks_from_us(caller) || !pp_fd_ours_sigsafe(fd))
		return 0;
	errno = EBADF;
	return 1;
}

/*
 * read(2), write(2), open(2) and msync(2), libunwind's as plain system calls, not
 * cancellation points (sigsafe/unwpipe.h); everyone else's as glibc's.
 * Before the real ones are found (another library's constructor), the
 * system call.
 */
PP_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	if (pp_unwpipe_from_libunwind_sigsafe(__builtin_return_address(0)))
		return pp_unwpipe_read_sigsafe(fd, buf, n);
	if (pp_hooks_hidden(fd, __builtin_return_address(0)))
		return -1;
	if (!pp_real.read)
		return syscall(SYS_read, fd, buf, n);
	return pp_real.read(fd, buf, n);
}

PP_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	if (pp_unwpipe_from_libunwind_sigsafe(__builtin_return_address(0)))
		return pp_unwpipe_write_sigsafe(fd, buf, n);
	if (pp_hooks_hidden(fd, __builtin_return_address(0)))
		return -1;
	if (!pp_real.write)
		return syscall(SYS_write, fd, buf, n);
	return pp_real.write(fd, (void *)buf, n);
}

static int pp_hooks_yield_syscall(void)
{
	return (int)syscall(SYS_sched_yield);
}

/*
 * sched_yield(2): timed into the calling thread's yield stretch while the
 * wall event runs (sigsafe/yields.h), for the analyzer.
 */
PP_EXPORT int sched_yield(void)
{
	return pp_wall_sched_yield(pp_real.sched_yield ? pp_real.sched_yield :
				   pp_hooks_yield_syscall,
				   (uint64_t)(uintptr_t)__builtin_return_address(0));
}

/* libunwind checks an address with msync where mincore does not work. */
PP_EXPORT int msync(void *addr, size_t len, int flags)
{
	if (!pp_real.msync || pp_unwpipe_from_libunwind_sigsafe(__builtin_return_address(0)))
		return (int)syscall(SYS_msync, addr, len, flags);
	return pp_real.msync(addr, len, flags);
}

PP_EXPORT int open(const char *path, int flags, ...)
{
	unsigned mode = 0;

	if (flags & (O_CREAT | __O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, unsigned);
		va_end(ap);
	}
	if (pp_unwpipe_from_libunwind_sigsafe(__builtin_return_address(0)))
		return pp_unwpipe_open_sigsafe(path, flags, mode);
	if (!pp_real.open)
		return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
	return pp_real.open(path, flags, mode);
}

/*
 * Descriptors: the profiler's are not the program's to close (fd.h). close()
 * of one says EBADF, as it would without the profiler; ranges are closed
 * around them; libunwind's close is a system call on its own descriptors
 * (sigsafe/unwpipe.h). glibc's
 * close is a cancellation point, so the real one is called for everything
 * else. Runs in signal context when the program
 * closes from its own handler.
 */
PP_EXPORT int close(int fd)
{
	if (pp_unwpipe_from_libunwind_sigsafe(__builtin_return_address(0)))
		return pp_unwpipe_close_sigsafe(fd);
	if (pp_fd_ours_sigsafe(fd)) {
		errno = EBADF;
		return -1;
	}
	if (!pp_real.close)
		return (int)syscall(SYS_close, fd);
	return pp_real.close(fd);
}

static int pp_hooks_close_range_raw(unsigned lo, unsigned hi, int flags)
{
	if (pp_real.close_range)
		return pp_real.close_range(lo, hi, flags);
	return (int)syscall(SYS_close_range, lo, hi, (unsigned)flags);
}

/* close_range(2) over [lo, hi] minus our descriptors. */
PP_EXPORT int close_range(unsigned lo, unsigned hi, int flags)
{
	int ours;

	while (lo <= hi && (ours = pp_fd_next_ours_sigsafe(lo, hi)) >= 0) {
		if ((unsigned)ours > lo &&
		    pp_hooks_close_range_raw(lo, (unsigned)ours - 1, flags) != 0)
			return -1;
		if ((unsigned)ours == hi)
			return 0;
		lo = (unsigned)ours + 1;
	}
	return lo <= hi ? pp_hooks_close_range_raw(lo, hi, flags) : 0;
}

/*
 * fcntl (fcntl64: the same call, what programs built with 64-bit file
 * offsets call), dup, dup2, dup3: the profiler's descriptors are not open
 * to the program (EBADF), as close() says. A shell checks whether a number
 * is open before it redirects there (bash's `exec 514>file`: fcntl
 * F_GETFD), and saved and later restored what it found (ours), so its own
 * file was gone and its writes went to the profiler's log. A number of ours
 * the program makes its own (dup2 onto it) is the program's from then on:
 * the profiler finds it no longer names its file (fd.h) and leaves it.
 * The profiler's own calls see its descriptors.
 */
static int pp_hooks_fcntl_call(pp_fcntl_fn real, int fd, int cmd, const void *caller,
			       va_list ap)
{
	void *arg = va_arg(ap, void *);

	if (pp_hooks_hidden(fd, caller))
		return -1;
	if (!real)
		return (int)syscall(SYS_fcntl, fd, cmd, arg);
	return real(fd, cmd, arg);
}

PP_EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	int rc;

	va_start(ap, cmd);
	rc = pp_hooks_fcntl_call(pp_real.fcntl, fd, cmd, __builtin_return_address(0), ap);
	va_end(ap);
	return rc;
}

PP_EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	int rc;

	va_start(ap, cmd);
	rc = pp_hooks_fcntl_call(pp_real.fcntl64 ? pp_real.fcntl64 : pp_real.fcntl, fd, cmd,
				 __builtin_return_address(0), ap);
	va_end(ap);
	return rc;
}

PP_EXPORT int dup(int fd)
{
	if (pp_hooks_hidden(fd, __builtin_return_address(0)))
		return -1;
	if (!pp_real.dup)
		return (int)syscall(SYS_dup, fd);
	return pp_real.dup(fd);
}

/* After a dup2/dup3 made to the program's: no longer ours, if it was. */
static int pp_hooks_took(int rc, int to)
{
	if (rc == to && pp_fd_registered_sigsafe(to))
		pp_fd_disown_sigsafe(to);
	return rc;
}

PP_EXPORT int dup2(int fd, int to)
{
	if (pp_hooks_hidden(fd, __builtin_return_address(0)))
		return -1;
	if (!pp_real.dup2)
		return pp_hooks_took((int)syscall(SYS_dup2, fd, to), to);
	return pp_hooks_took(pp_real.dup2(fd, to), to);
}

PP_EXPORT int dup3(int fd, int to, int flags)
{
	if (pp_hooks_hidden(fd, __builtin_return_address(0)))
		return -1;
	if (!pp_real.dup3)
		return pp_hooks_took((int)syscall(SYS_dup3, fd, to, flags), to);
	return pp_hooks_took(pp_real.dup3(fd, to, flags), to);
}

/*
 * The set*uid family (glibc's: it changes every thread's ids): before the
 * effective user changes, the process's logs are given to the new one
 * (process.h). Called before the constructor (another library's), the
 * real functions are looked up then.
 */
static void pp_hooks_user_changes(uid_t euid)
{
	if (!__atomic_load_n(&pp_real.resolved, __ATOMIC_ACQUIRE))
		pp_hooks_resolve();
	pp_process_user_changes(euid);
}

PP_EXPORT int setuid(uid_t uid)
{
	pp_hooks_user_changes(uid);
	return pp_real.setuid(uid);
}

PP_EXPORT int seteuid(uid_t euid)
{
	pp_hooks_user_changes(euid);
	return pp_real.seteuid(euid);
}

PP_EXPORT int setreuid(uid_t ruid, uid_t euid)
{
	pp_hooks_user_changes(euid);
	return pp_real.setreuid(ruid, euid);
}

PP_EXPORT int setresuid(uid_t ruid, uid_t euid, uid_t suid)
{
	pp_hooks_user_changes(euid);
	return pp_real.setresuid(ruid, euid, suid);
}

/* glibc's closefrom, which would close ours with one close_range(). */
PP_EXPORT void closefrom(int lo)
{
	int saved = errno;

	if (lo < 0)
		lo = 0;
	if (close_range((unsigned)lo, ~0u, 0) != 0) {
		/* No close_range (kernel before 5.9): one at a time. */
		long max = sysconf(_SC_OPEN_MAX);

		for (long fd = lo; fd < max; fd++)
			close((int)fd);
	}
	errno = saved;
}
