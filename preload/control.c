/* The delay, the toggle signal and the program's calls; see control.h. */
#include "control.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hooks.h"
#include "pprof/format.h"
#include "process.h"
#include "sigsafe/pause.h"
#include "sigsafe/sampsig.h"
#include "warn.h"

#define PP_EXPORT __attribute__((visibility("default")))
#define PP_CONTROL_HELPER_STACK (64 * 1024)

static struct {
	struct timespec delay_end; /* CLOCK_MONOTONIC: when the delay is over */
	int sig;                   /* the toggle signal, 0: none */
	int owned;                 /* atomic: its action is the profiler's */
	struct sigaction app;      /* the action the program sees as its own */
	pthread_mutex_t mutex;     /* serialises the program's sigaction calls */
} pp_control = { .mutex = PTHREAD_MUTEX_INITIALIZER };

/* "SIGUSR2" (or "signal 40") for messages. */
static const char *pp_control_signame(int sig, char *buf, size_t size)
{
	const char *abbrev = sig < SIGRTMIN ? sigabbrev_np(sig) : NULL;

	if (abbrev)
		snprintf(buf, size, "SIG%s", abbrev);
	else
		snprintf(buf, size, "signal %d", sig);
	return buf;
}

/* ns since the epoch when the run started: PPROF_RUN's "<pid>-<ns>", else now. */
static uint64_t pp_control_run_start(uint64_t now)
{
	const char *run = getenv("PPROF_RUN"), *ns = run ? strchr(run, '-') : NULL;
	char *end;
	unsigned long long v;

	if (!ns || ns[1] < '0' || ns[1] > '9')
		return now;
	errno = 0;
	v = strtoull(ns + 1, &end, 10);
	return errno || *end || v > now ? now : (uint64_t)v;
}

static uint64_t pp_control_clock(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Holds the delay left of the run, if any, until pp_control.delay_end. */
static void pp_control_hold_delay(uint64_t delay_ns)
{
	uint64_t real = pp_control_clock(CLOCK_REALTIME), left, end;
	uint64_t start = pp_control_run_start(real);

	if (!delay_ns || start + delay_ns <= real)
		return;
	left = start + delay_ns - real;
	end = pp_control_clock(CLOCK_MONOTONIC) + left;
	pp_control.delay_end.tv_sec = (time_t)(end / 1000000000ull);
	pp_control.delay_end.tv_nsec = (long)(end % 1000000000ull);
	pp_pause_hold_sigsafe(PP_PAUSE_DELAY, PPF_PAUSED_DELAY);
}

/* Whether the delay held is not over yet. */
static int pp_control_delay_left(void)
{
	const struct timespec *e = &pp_control.delay_end;

	return (e->tv_sec || e->tv_nsec) && pp_control_clock(CLOCK_MONOTONIC) <
	       (uint64_t)e->tv_sec * 1000000000ull + (uint64_t)e->tv_nsec;
}

/* The helper thread: sleeps out the delay, then lets sampling start. */
static void *pp_control_delay_main(void *arg)
{
	(void)arg;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &pp_control.delay_end,
			       NULL) == EINTR)
		;
	pp_pause_delay_over_sigsafe();
	return NULL;
}

/* Starts the delay's helper thread; without one, sampling starts now (said). */
static void pp_control_delay_helper(void)
{
	pthread_attr_t attr;
	pthread_t th;
	int err;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, PP_CONTROL_HELPER_STACK);
	err = pp_hooks_create_helper(&th, &attr, pp_control_delay_main, NULL);
	pthread_attr_destroy(&attr);
	if (!err) {
		pthread_setname_np(th, "pprof-delay");
		return;
	}
	pp_warn("cannot start the thread that waits out the delay: %s; sampling "
		"starts now", strerror(err));
	pp_pause_delay_over_sigsafe();
}

/* Why sig cannot be the toggle signal, or NULL when it can. */
static const char *pp_control_refused(int sig)
{
	struct sigaction old;

	if (sig == SIGKILL || sig == SIGSTOP)
		return "it cannot be caught";
	if (sig == pp_sampsig_number_sigsafe())
		return "the profiler samples on it in this mode; choose another, such "
		       "as SIGUSR2";
	if (sigaction(sig, NULL, &old) != 0)
		return "it is not a signal here";
	if (old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO))
		return "the program already has an action for it (ignored, as "
		       "nohup does, or handled)";
	return NULL;
}

/* Installs the toggle signal's handler, or says in one line why not. */
static void pp_control_install(int sig)
{
	const char *why = pp_control_refused(sig);
	struct sigaction sa, old;
	char name[32];

	if (!why) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = pp_pause_handle_toggle_sigsafe;
		sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
		sigemptyset(&sa.sa_mask);
		pthread_mutex_lock(&pp_control.mutex);
		if (pp_hooks_real_sigaction(sig, &sa, &old) == 0) {
			pp_control.app = old;
			pp_control.sig = sig;
			__atomic_store_n(&pp_control.owned, 1, __ATOMIC_RELEASE);
		} else {
			why = strerror(errno);
		}
		pthread_mutex_unlock(&pp_control.mutex);
	}
	if (why)
		pp_warn("toggle_signal = %s: %s; sampling cannot be toggled by a "
			"signal, the program runs profiled",
			pp_control_signame(sig, name, sizeof(name)), why);
}

void pp_control_process_start(const struct pp_config *cfg, int starting)
{
	/* A fork child: the lock may have been held by a thread now gone. */
	pthread_mutex_init(&pp_control.mutex, NULL);
	if (starting) {
		pp_control_hold_delay(cfg->delay_ns);
		if (cfg->toggle_signal)
			pp_control_install(cfg->toggle_signal);
	}
	if (pp_pause_paused_sigsafe() && pp_control_delay_left())
		pp_control_delay_helper();
	else
		pp_pause_delay_over_sigsafe();
}

int pp_control_app_action(int sig, const struct sigaction *act, struct sigaction *old,
			  pp_control_sigaction_fn real, int *rc)
{
	static int said;
	struct sigaction prev;
	char name[32];

	if (!sig || sig != pp_control.sig || !__atomic_load_n(&pp_control.owned, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&pp_control.mutex);
	if (!__atomic_load_n(&pp_control.owned, __ATOMIC_ACQUIRE)) {
		pthread_mutex_unlock(&pp_control.mutex);
		*rc = real(sig, act, old);
		return 1;
	}
	prev = pp_control.app;
	*rc = 0;
	if (act) {
		/* The program's action wins: the signal is the program's from now on. */
		*rc = real(sig, act, NULL);
		if (*rc == 0)
			__atomic_store_n(&pp_control.owned, 0, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&pp_control.mutex);
	if (*rc == 0 && old)
		*old = prev;
	if (act && *rc == 0 && !__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		pp_warn("the program sets its own action for %s (toggle_signal): the "
			"signal is the program's from now on, and no longer pauses or "
			"resumes sampling", pp_control_signame(sig, name, sizeof(name)));
	return 1;
}

/* include/pprof/control.h: the program's calls, async-signal-safe. */
PP_EXPORT void pprof_pause(void)
{
	int saved = errno;

	pp_pause_call_sigsafe(1);
	errno = saved;
}

PP_EXPORT void pprof_resume(void)
{
	int saved = errno;

	pp_pause_call_sigsafe(0);
	errno = saved;
}

PP_EXPORT int pprof_is_profiling(void)
{
	int saved = errno, on = pp_process_active() && pp_pause_running_sigsafe();

	errno = saved;
	return on;
}
