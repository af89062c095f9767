/*
 * The constructor: the configuration, the sampling mode and its signal,
 * libunwind; then the process starts being profiled (process.h). Nothing
 * here runs in signal context.
 */
#include "init.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "events.h"
#include "exec.h"
#include "hooks.h"
#include "pprof/format.h"
#include "process.h"
#include "sigsafe/sampsig.h"
#include "unwlib.h"
#include "warn.h"

/* Entries of libunwind's cache of unwinding information (DESIGN.md). */
#define PP_INIT_UNW_CACHE_SIZE 32768

static struct {
	struct pp_config cfg;
	int mode; /* PPF_MODE_SIGTRAP or PPF_MODE_SIGNAL */
} pp_init;

/* Whether the program has left sig at its default action. */
static int pp_init_signal_free(int sig)
{
	struct sigaction old;

	return sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
	       !(old.sa_flags & SA_SIGINFO);
}

/*
 * The signal mode's signal: the configured one, else a real-time signal the
 * program has not claimed (the highest) other than the toggle signal, else
 * SIGPROF. Under a tracer,
 * SIGPROF first: debuggers stop on every real-time signal by default (gdb:
 * "SIG34 Stop Yes") but pass SIGPROF on silently.
 */
static int pp_init_choose_signal(int tracer)
{
	if (pp_init.cfg.signal)
		return pp_init.cfg.signal;
	if (tracer && pp_init_signal_free(SIGPROF) && pp_init.cfg.toggle_signal != SIGPROF)
		return SIGPROF;
	/* Not the toggle signal (control.h): the user keeps that one. */
	for (int sig = SIGRTMAX; sig >= SIGRTMIN; sig--)
		if (pp_init_signal_free(sig) && sig != pp_init.cfg.toggle_signal)
			return sig;
	return SIGPROF;
}

/*
 * The sampling mode: mode = sigtrap, or auto where the kernel has sigtrap
 * events and no tracer is attached (a debugger stops on every SIGTRAP);
 * else the signal mode. Returns 0, or -1 with profiling off (sigtrap asked
 * for under a tracer).
 */
static int pp_init_choose_mode(int tracer)
{
	uint32_t req = pp_init.cfg.mode_request;

	if (req == PPF_MODE_REQUEST_SIGTRAP && tracer) {
		pp_warn("a tracer is attached (pid %d) and mode = sigtrap: "
			"the sigtrap mode cannot run under a debugger (use "
			"mode = auto or signal)%s", tracer, pp_init_off(1));
		return -1;
	}
	if (req == PPF_MODE_REQUEST_SIGTRAP ||
	    (req == PPF_MODE_REQUEST_AUTO && !tracer &&
	     pp_events_probe_sigtrap() != -EINVAL)) {
		pp_init.mode = PPF_MODE_SIGTRAP;
		pp_sampsig_set_sigsafe(SIGTRAP);
		return 0;
	}
	pp_init.mode = PPF_MODE_SIGNAL;
	pp_sampsig_set_sigsafe(pp_init_choose_signal(tracer));
	return 0;
}

/*
 * The tracer's pid from /proc/self/status, 0 when none; *alone is set when
 * the calling thread is the process's only one (Threads: 1), cleared when
 * unknown. One read answers both.
 */
static int pp_init_tracer(int *alone)
{
	char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	const char *p, *t;

	*alone = 0;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	t = strstr(buf, "\nThreads:");
	*alone = t && atoi(t + 9) == 1;
	p = strstr(buf, "TracerPid:");
	return p ? atoi(p + 10) : 0;
}

/*
 * PPROF_RUN, the run's name, which every process of the run inherits (the
 * exec wrappers pass it on with the other PPROF_* variables): the first
 * process's pid and start time. What is said once per run is said by the
 * process that first makes a marker named after it (staticexe.h).
 */
static void pp_init_run_name(void)
{
	struct timespec ts;
	char name[64];

	if (getenv("PPROF_RUN"))
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(name, sizeof(name), "%d-%lld%09ld", (int)getpid(), (long long)ts.tv_sec,
		 ts.tv_nsec);
	setenv("PPROF_RUN", name, 1);
}

const char *pp_init_off(int starting)
{
	return starting && pp_init.cfg.strict ? "" : "; profiling is off, the program runs unprofiled";
}

void pp_init_strict_stop(void)
{
	if (!pp_init.cfg.strict)
		return;
	pp_warn("strict = yes in %s: stopping the program (exit status 1)",
		pp_init.cfg.source);
	_exit(EXIT_FAILURE);
}

/* Says what is wrong with the configuration, one line per problem. */
static void pp_init_config_errors(const struct pp_config_errors *errs)
{
	for (unsigned i = 0; i < errs->n; i++)
		pp_warn("%s", errs->e[i].msg);
	if (errs->more)
		pp_warn("... and %u more problems", errs->more);
}

/* glibc calls a shared object's constructors with main's argc and argv (and envp). */
__attribute__((constructor))
static void pp_init_constructor(int argc, char **argv)
{
	static struct pp_config_errors errs;
	int saved = errno; /* main starts with the errno it would have */
	struct pp_process_origin origin = { .argc = argc, .argv = argv };
	pp_unwlib_backtrace_fn backtrace;
	char why[256];
	int err, tracer;

	/* First: the parent (it may exit meanwhile) and the CPU time before the profiler. */
	pp_process_parent_at_entry();
	pp_process_cpu_at_entry();
	pp_hooks_resolve();
	err = pp_config_load(&pp_init.cfg, &errs);
	if (err) {
		pp_init_config_errors(&errs);
		if (!errs.said_off && !pp_init.cfg.strict)
			pp_warn("profiling is off because of the configuration; "
				"the program runs unprofiled");
		pp_init_strict_stop();
		goto out;
	}
	tracer = pp_init_tracer(&origin.alone);
	if (pp_init_choose_mode(tracer) != 0) {
		pp_init_strict_stop();
		goto out;
	}
	backtrace = pp_unwlib_load(PP_INIT_UNW_CACHE_SIZE, why, sizeof(why));
	if (!backtrace) {
		pp_warn("%s%s", why, pp_init_off(1));
		pp_init_strict_stop();
		goto out;
	}
	/* Children that exec and chdir write next to their parent. */
	setenv("PPROF_OUTPUT", pp_init.cfg.output, 1);
	pp_init_run_name();
	pp_exec_init(pp_init.cfg.follow_exec);
	pp_process_start(&pp_init.cfg, pp_init.mode, backtrace, &origin);
out:
	errno = saved;
}
