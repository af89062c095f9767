/*
 * The interposed functions that take a signal mask; see masks.h. Each is
 * async-signal-safe where glibc's is (programs change masks in their
 * handlers): they call glibc's through pointers found at start, and the
 * signal-context helpers of sigsafe/. The old BSD and System V calls are
 * written on the wrapped ones: glibc's call its internal sigprocmask,
 * which no wrapper sees.
 */
#include "masks.h"
#include "nextsym.h"

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>

#include "sigsafe/appmask.h"
#include "sigsafe/sampler.h"
#include "sigsafe/sampsig.h"
#include "sigsafe/unwmask.h"

#define PP_EXPORT __attribute__((visibility("default")))

/* glibc's exported names that its headers do not declare. */
int __sigsuspend(const sigset_t *mask);
int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *timeout,
		const sigset_t *mask, size_t fdslen);
int __sigpause(int sig_or_mask, int is_sig);
int __xpg_sigpause(int sig);

typedef int (*pp_masks_sigmask_fn)(int, const sigset_t *, sigset_t *);
typedef int (*pp_masks_suspend_fn)(const sigset_t *);
typedef int (*pp_masks_timedwait_fn)(const sigset_t *, siginfo_t *, const struct timespec *);
typedef int (*pp_masks_pselect_fn)(int, fd_set *, fd_set *, fd_set *,
				   const struct timespec *, const sigset_t *);
typedef int (*pp_masks_ppoll_fn)(struct pollfd *, nfds_t, const struct timespec *,
				 const sigset_t *);
typedef int (*pp_masks_ppoll_chk_fn)(struct pollfd *, nfds_t, const struct timespec *,
				     const sigset_t *, size_t);
typedef int (*pp_masks_epoll_pwait_fn)(int, struct epoll_event *, int, int,
				       const sigset_t *);
typedef int (*pp_masks_epoll_pwait2_fn)(int, struct epoll_event *, int,
					const struct timespec *, const sigset_t *);

static struct {
	pp_masks_sigmask_fn pthread_sigmask;
	pp_masks_suspend_fn sigsuspend;
	pp_masks_timedwait_fn sigtimedwait;
	pp_masks_pselect_fn pselect;
	pp_masks_ppoll_fn ppoll;
	pp_masks_ppoll_chk_fn ppoll_chk;
	pp_masks_epoll_pwait_fn epoll_pwait;
	pp_masks_epoll_pwait2_fn epoll_pwait2; /* glibc 2.35 and later */
	int resolved; /* atomic */
} pp_masks_libc;

/* The real functions, found on first use (nextsym.h). */
static const struct pp_nextsym pp_masks_syms[] = {
	{ "pthread_sigmask", (void **)&pp_masks_libc.pthread_sigmask },
	{ "sigsuspend", (void **)&pp_masks_libc.sigsuspend },
	{ "sigtimedwait", (void **)&pp_masks_libc.sigtimedwait },
	{ "pselect", (void **)&pp_masks_libc.pselect },
	{ "ppoll", (void **)&pp_masks_libc.ppoll },
	{ "__ppoll_chk", (void **)&pp_masks_libc.ppoll_chk },
	{ "epoll_pwait", (void **)&pp_masks_libc.epoll_pwait },
	{ "epoll_pwait2", (void **)&pp_masks_libc.epoll_pwait2 },
};

void pp_masks_resolve(void)
{
	pp_nextsym_resolve(pp_masks_syms, sizeof(pp_masks_syms) / sizeof(pp_masks_syms[0]),
			   &pp_masks_libc.resolved);
}

int pp_masks_real(int how, const sigset_t *set, sigset_t *old)
{
	pp_masks_resolve();
	return pp_masks_libc.pthread_sigmask(how, set, old);
}

/*
 * pthread_sigmask(how, {the sampling signal}, old) in the kernel's mask of
 * the calling thread, past the wrappers.
 */
static int pp_masks_real_sampsig(int how, sigset_t *old)
{
	sigset_t one;

	pp_sampsig_mask_sigsafe(&one);
	return pp_masks_real(how, &one, old);
}

int pp_masks_view_blocks(const sigset_t *real)
{
	return pp_appmask_blocked_sigsafe() ||
	       sigismember(real, pp_sampsig_number_sigsafe()) == 1;
}

/* The calling thread's hold ends: its slot's count, its events (appmask.h). */
static void pp_masks_release(void)
{
	pp_appmask_release_sigsafe(pp_threads_find_sigsafe(pp_threads_gettid_sigsafe()));
}

/*
 * The calling thread holds the program's own signal and its program still
 * blocks it: if the program took it meanwhile (sigwait, signalfd, a wait
 * whose mask let it in), nothing of that number is pending any more, and
 * the kernel's mask lets the signal through again. Keeps errno.
 */
static void pp_masks_settle(void)
{
	sigset_t pending;
	int saved = errno;

	if (!pp_appmask_held_sigsafe() || sigpending(&pending) != 0 ||
	    sigismember(&pending, pp_sampsig_number_sigsafe()) == 1)
		goto out;
	pp_masks_release();
	pp_masks_real_sampsig(SIG_UNBLOCK, NULL);
out:
	errno = saved;
}

/* The program's view after (how, set) from blocked; how is valid. */
static int pp_masks_next(int how, const sigset_t *set, int blocked)
{
	int in = sigismember(set, pp_sampsig_number_sigsafe()) == 1;

	if (how == SIG_BLOCK)
		return blocked || in;
	if (how == SIG_UNBLOCK)
		return blocked && !in;
	return in;
}

/*
 * pthread_sigmask on the program's view: the sampling signal's bit of set
 * goes to the view, not to the kernel (but for SIG_UNBLOCK, which lets it
 * through, and while a held signal must stay blocked); old gets the view
 * before the call. Returns 0 or an errno, as pthread_sigmask.
 */
static int pp_masks_change(int how, const sigset_t *set, sigset_t *old)
{
	int was = pp_appmask_blocked_sigsafe(), now = was, held, err;
	sigset_t mine, prev;

	/* libunwind's, inside the handler's unwind: no system call (unwmask.h). */
	if (pp_unwmask_active_sigsafe())
		return pp_unwmask_change_sigsafe(how, set, old);
	if (!pp_appmask_on_sigsafe() || pp_appmask_inside_sigsafe() ||
	    (set && how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK))
		return pp_masks_real(how, set, old);
	held = pp_appmask_held_sigsafe();
	if (set) {
		now = pp_masks_next(how, set, was);
		mine = *set;
		if (how != SIG_UNBLOCK && !(now && held))
			sigdelset(&mine, pp_sampsig_number_sigsafe());
		/* Before the kernel lets the held signal in: it is the program's now. */
		if (held && !now)
			pp_masks_release();
		pp_appmask_set_blocked_sigsafe(now);
	}
	err = pp_masks_real(how, set ? &mine : NULL, &prev);
	if (err) {
		pp_appmask_set_blocked_sigsafe(was);
		return err;
	}
	if (old) {
		*old = prev;
		pp_appmask_view_sigsafe(old, was);
	}
	if (held && now)
		pp_masks_settle();
	return 0;
}

PP_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return pp_masks_change(how, set, old);
}

PP_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	int err = pp_masks_change(how, set, old);

	if (!err)
		return 0;
	errno = err;
	return -1;
}

/*
 * Before a wait with the temporary mask mask (NULL: none): the program's
 * view is set to it for the call's time, so that a handler that runs
 * inside sees the mask the program gave, and a held signal that mask lets
 * in is delivered (the mask goes to the kernel as given). Returns what
 * pp_masks_after needs: the view before, or -1 when there is nothing to do.
 */
__attribute__((noinline)) static int pp_masks_before(const sigset_t *mask)
{
	int was = pp_appmask_blocked_sigsafe();

	if (!mask || !pp_appmask_on_sigsafe())
		return -1;
	pp_appmask_set_blocked_sigsafe(sigismember(mask, pp_sampsig_number_sigsafe()) == 1);
	return was;
}

/* After the wait: the view before it back (was from pp_masks_before). */
static void pp_masks_after(int was)
{
	if (was < 0)
		return;
	pp_appmask_set_blocked_sigsafe(was);
	pp_masks_settle();
}

/* Runs call between pp_masks_before(mask) and pp_masks_after. */
#define PP_MASKS_DURING(mask, call)                                           \
	({                                                                    \
		int pp_was_ = pp_masks_before(mask), pp_rc_ = (call);         \
		pp_masks_after(pp_was_);                                      \
		pp_rc_;                                                       \
	})

PP_EXPORT int sigsuspend(const sigset_t *mask)
{
	pp_masks_resolve();
	return PP_MASKS_DURING(mask, pp_masks_libc.sigsuspend(mask));
}

PP_EXPORT int __sigsuspend(const sigset_t *mask)
{
	return sigsuspend(mask);
}

PP_EXPORT int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *timeout,
		      const sigset_t *mask)
{
	pp_masks_resolve();
	return PP_MASKS_DURING(mask, pp_masks_libc.pselect(n, r, w, e, timeout, mask));
}

PP_EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *timeout,
		    const sigset_t *mask)
{
	pp_masks_resolve();
	return PP_MASKS_DURING(mask, pp_masks_libc.ppoll(fds, n, timeout, mask));
}

/* ppoll with _FORTIFY_SOURCE, when the array's size is known. */
PP_EXPORT int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *timeout,
			  const sigset_t *mask, size_t fdslen)
{
	pp_masks_resolve();
	return PP_MASKS_DURING(mask, pp_masks_libc.ppoll_chk(fds, n, timeout, mask, fdslen));
}

PP_EXPORT int epoll_pwait(int fd, struct epoll_event *events, int max, int timeout,
			  const sigset_t *mask)
{
	pp_masks_resolve();
	return PP_MASKS_DURING(mask, pp_masks_libc.epoll_pwait(fd, events, max, timeout, mask));
}

PP_EXPORT int epoll_pwait2(int fd, struct epoll_event *events, int max,
			   const struct timespec *timeout, const sigset_t *mask)
{
	pp_masks_resolve();
	if (!pp_masks_libc.epoll_pwait2) {
		errno = ENOSYS;
		return -1;
	}
	return PP_MASKS_DURING(mask, pp_masks_libc.epoll_pwait2(fd, events, max, timeout, mask));
}

/* now + d, or d's end already passed (0) from start (CLOCK_MONOTONIC). */
static int pp_masks_left(const struct timespec *d, const struct timespec *start,
			 struct timespec *left)
{
	struct timespec now;
	long long ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (long long)(d->tv_sec + start->tv_sec - now.tv_sec) * 1000000000ll +
	     (d->tv_nsec + start->tv_nsec - now.tv_nsec);
	if (ns <= 0)
		return 0;
	left->tv_sec = (time_t)(ns / 1000000000ll);
	left->tv_nsec = (long)(ns % 1000000000ll);
	return 1;
}

/*
 * sigtimedwait that never hands the program one of our samples: one taken
 * off its queue (while the kernel's mask blocked the signal) is counted
 * and the wait goes on, for what is left of timeout.
 */
static int pp_masks_wait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
	int sig = pp_sampsig_number_sigsafe(), rc;
	struct timespec start, left;
	siginfo_t mine;

	pp_masks_resolve();
	if (!pp_appmask_on_sigsafe() || sigismember(set, sig) != 1)
		return pp_masks_libc.sigtimedwait(set, info, timeout);
	if (timeout)
		clock_gettime(CLOCK_MONOTONIC, &start);
	for (const struct timespec *t = timeout;; t = &left) {
		rc = pp_masks_libc.sigtimedwait(set, &mine, t);
		if (rc != sig || !pp_sampler_taken_sigsafe(sig, &mine))
			break;
		if (timeout && !pp_masks_left(timeout, &start, &left)) {
			errno = EAGAIN;
			rc = -1;
			break;
		}
	}
	if (rc > 0 && info)
		*info = mine;
	pp_masks_settle();
	return rc;
}

PP_EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
	return pp_masks_wait(set, info, timeout);
}

PP_EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	return pp_masks_wait(set, info, NULL);
}

/* As glibc's: waits on through EINTR; returns 0 or an errno. */
PP_EXPORT int sigwait(const sigset_t *set, int *sig)
{
	int saved = errno, rc;

	do
		rc = pp_masks_wait(set, NULL, NULL);
	while (rc < 0 && errno == EINTR);
	if (rc < 0) {
		rc = errno;
		errno = saved;
		return rc;
	}
	*sig = rc;
	errno = saved;
	return 0;
}

/* The BSD calls' int masks: bit n - 1 is signal n (1 to 32). */
static sigset_t pp_masks_from_bsd(int mask)
{
	sigset_t set;

	sigemptyset(&set);
	for (int s = 1; s <= 32; s++)
		if ((unsigned)mask & (1u << (s - 1)))
			sigaddset(&set, s);
	return set;
}

static int pp_masks_to_bsd(const sigset_t *set)
{
	unsigned mask = 0;

	for (int s = 1; s <= 32; s++)
		if (sigismember(set, s) == 1)
			mask |= 1u << (s - 1);
	return (int)mask;
}

/* sigblock and sigsetmask: the old mask, or -1 */
static int pp_masks_bsd(int how, int mask)
{
	sigset_t set = pp_masks_from_bsd(mask), old;

	if (sigprocmask(how, &set, &old) != 0)
		return -1;
	return pp_masks_to_bsd(&old);
}

PP_EXPORT int sigblock(int mask)
{
	return pp_masks_bsd(SIG_BLOCK, mask);
}

PP_EXPORT int sigsetmask(int mask)
{
	return pp_masks_bsd(SIG_SETMASK, mask);
}

PP_EXPORT int siggetmask(void)
{
	return pp_masks_bsd(SIG_BLOCK, 0);
}

/*
 * sigpause: is_sig, X/Open's (the current mask but sig), else BSD's (mask
 * as an int); then sigsuspend.
 */
PP_EXPORT int __sigpause(int sig_or_mask, int is_sig)
{
	sigset_t set;

	if (is_sig) {
		sigprocmask(SIG_BLOCK, NULL, &set);
		sigdelset(&set, sig_or_mask);
	} else {
		set = pp_masks_from_bsd(sig_or_mask);
	}
	return sigsuspend(&set);
}

/*
 * The symbol sigpause is the BSD call (an int mask); <signal.h> names
 * X/Open's, __xpg_sigpause, sigpause in C.
 */
int pp_masks_bsd_sigpause(int mask) __asm__("sigpause");

PP_EXPORT int pp_masks_bsd_sigpause(int mask)
{
	return __sigpause(mask, 0);
}

PP_EXPORT int __xpg_sigpause(int sig)
{
	return __sigpause(sig, 1);
}

/* System V: one signal blocked (SIG_BLOCK) or unblocked. */
static int pp_masks_sysv(int how, int sig)
{
	sigset_t set;

	sigemptyset(&set);
	if (sigaddset(&set, sig) != 0)
		return -1;
	return sigprocmask(how, &set, NULL);
}

PP_EXPORT int sighold(int sig)
{
	return pp_masks_sysv(SIG_BLOCK, sig);
}

PP_EXPORT int sigrelse(int sig)
{
	return pp_masks_sysv(SIG_UNBLOCK, sig);
}

PP_EXPORT int sigignore(int sig)
{
	struct sigaction sa = { .sa_handler = SIG_IGN };

	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

/*
 * System V's sigset: SIG_HOLD blocks sig; another disposition is set and
 * unblocks it. Returns SIG_HOLD when sig was blocked, else the disposition
 * before.
 */
PP_EXPORT sighandler_t sigset(int sig, sighandler_t disp)
{
	struct sigaction sa = { .sa_handler = disp }, old;
	sigset_t set, oset;

	sigemptyset(&set);
	if (disp == SIG_ERR || sigaddset(&set, sig) != 0) {
		errno = EINVAL;
		return SIG_ERR;
	}
	if (disp == SIG_HOLD) {
		if (sigprocmask(SIG_BLOCK, &set, &oset) != 0)
			return SIG_ERR;
		if (sigismember(&oset, sig) == 1)
			return SIG_HOLD;
		return sigaction(sig, NULL, &old) == 0 ? old.sa_handler : SIG_ERR;
	}
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, &old) != 0 || sigprocmask(SIG_UNBLOCK, &set, &oset) != 0)
		return SIG_ERR;
	return sigismember(&oset, sig) == 1 ? SIG_HOLD : old.sa_handler;
}

void pp_masks_thread_start(int blocked)
{
	pp_appmask_thread_start_sigsafe(blocked);
	pp_masks_real_sampsig(SIG_UNBLOCK, NULL);
}

void pp_masks_process_start(struct pp_thread *t)
{
	sigset_t real, pending;
	int sig = pp_sampsig_number_sigsafe();

	pp_appmask_thread_start_sigsafe(pp_appmask_blocked_sigsafe());
	if (pp_masks_real(SIG_BLOCK, NULL, &real) != 0 || sigismember(&real, sig) != 1)
		return;
	pp_appmask_set_blocked_sigsafe(1);
	if (sigpending(&pending) == 0 && sigismember(&pending, sig) == 1) {
		pp_appmask_hold_sigsafe(t);
		return;
	}
	pp_masks_real_sampsig(SIG_UNBLOCK, NULL);
}

int pp_masks_apply(void)
{
	sigset_t real;

	if (!pp_appmask_on_sigsafe() || !pp_appmask_blocked_sigsafe() ||
	    pp_masks_real_sampsig(SIG_BLOCK, &real) != 0)
		return 0;
	return sigismember(&real, pp_sampsig_number_sigsafe()) != 1;
}

void pp_masks_unapply(int applied)
{
	if (applied)
		pp_masks_real_sampsig(SIG_UNBLOCK, NULL);
}

void pp_masks_off(void)
{
	pp_appmask_set_on_sigsafe(0);
	if (pp_appmask_blocked_sigsafe())
		pp_masks_real_sampsig(SIG_BLOCK, NULL);
}
