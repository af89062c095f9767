/*
 * The process's profiling life. At its start (the constructor, and a fork
 * child) it makes <root>/<exe>@<host>.<pid>.log (its process.log, moved
 * into <root>/<exe>@<host>.<pid>/ at the first thread log), installs the
 * sampling signal's handler, opens the events and sets the main thread up
 * (thread.h); exec stops sampling, and a failed exec starts it again; at
 * its end (exit, _exit, abort, or the destructor) every log gets its END
 * record. Nothing here runs in signal context.
 */
#include "process.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "control.h"
#include "events.h"
#include "hooks.h"
#include "identity.h"
#include "init.h"
#include "maps.h"
#include "masks.h"
#include "outdir.h"
#include "jitmap.h"
#include "sigev.h"
#include "pprof/format.h"
#include "proclog.h"
#include "sigsafe/appmask.h"
#include "sigsafe/fd.h"
#include "sigsafe/logfile.h"
#include "sigsafe/pause.h"
#include "sigsafe/records.h"
#include "sigsafe/sampler.h"
#include "sigsafe/sampsig.h"
#include "sigsafe/share.h"
#include "sigsafe/threads.h"
#include "thread.h"
#include "unsampled.h"
#include "wall.h"
#include "warn.h"

#define PP_PROCESS_CMDLINE_MAX (64 * 1024)

static struct {
	int active;          /* profiling runs in this process */
	pid_t pid;           /* the process the state belongs to */
	/*
	 * Its parent: a fork child's is the process it was forked from (its
	 * pid, known before the fork returned: a double-forking daemon's
	 * middle process may have exited, and the child been given to init,
	 * by the time it asks); else getppid() as the constructor begins.
	 */
	pid_t ppid;
	int starting;        /* in the constructor (not a fork child) */
	const struct pp_config *cfg; /* the constructor's */
	int mode;            /* PPF_MODE_SIGTRAP or PPF_MODE_SIGNAL (its
				signal: sigsafe/sampsig.h) */
	pp_unwlib_backtrace_fn backtrace; /* libunwind's */
	int rootfd;          /* the output root (O_PATH), -1 when none */
	int kept_root;       /* a fork child's: the parent's root to use, -1 when none */
	struct pp_thread_dir tdir; /* where its logs go: <root>/<name>.*
				      (sigsafe/threads.h) */
	char dir[PATH_MAX];  /* its path, <root>/<name> */
	char exe[PATH_MAX];  /* /proc/self/exe's target at the start, "" if unknown */
	const struct pp_process_origin *origin; /* the constructor's, while it runs */
	struct pp_events events;
	uint32_t exit_how;   /* enum ppf_exit_how, once known */
	int exit_status;
	int off_log;         /* profiling is off, process.log still open */
	/* The counters of threads adopted in the handler (sigsafe/sampler.h). */
	struct perf_event_attr count_attrs[PP_CONFIG_MAX_EVENTS];
	struct pp_records_cpu entry; /* CPU time when the constructor (or the fork
					handler) began: pp_process_cpu_at_entry;
					the process's, and its thread's */
	struct pp_records_cpu entry_thread;
	int said_user;       /* pp_process_user_changes said its line */
	int exit_follows;    /* pp_process_ends: exit_group follows the finish */
} pp_process = { .rootfd = -1, .kept_root = -1, .tdir = { .rootfd = -1 } };

void pp_process_parent_at_entry(void)
{
	pp_process.ppid = getppid();
}

void pp_process_cpu_at_entry(void)
{
	pp_records_cpu_sigsafe(RUSAGE_SELF, &pp_process.entry);
	pp_records_cpu_sigsafe(RUSAGE_THREAD, &pp_process.entry_thread);
}

/* PPF_REC_PROCESS_CPU of the given moment, with the CPU time now. */
static void pp_process_write_cpu(uint32_t when)
{
	struct pp_records_cpu cpu, thread;

	pp_records_cpu_sigsafe(RUSAGE_SELF, &cpu);
	pp_records_cpu_sigsafe(RUSAGE_THREAD, &thread);
	pp_records_process_cpu_sigsafe(pp_proclog_hold(), when, &cpu, &thread);
	pp_proclog_release();
}

void pp_process_unprofiled(int pid, uint32_t why, const char *path)
{
	int saved = errno;

	if (!pp_process_active())
		return;
	pp_records_unprofiled_sigsafe(pp_proclog_hold(), pid, why, path);
	pp_proclog_release();
	errno = saved;
}

int pp_process_rootfd(void)
{
	return pp_process.rootfd;
}

int pp_process_active(void)
{
	return __atomic_load_n(&pp_process.active, __ATOMIC_ACQUIRE) &&
	       pp_process.pid == getpid();
}

void pp_process_user_changes(uid_t euid)
{
	int saved = errno, err;

	if (euid == (uid_t)-1 || euid == geteuid() || !pp_process_active()) {
		errno = saved;
		return;
	}
	err = pp_thread_keep_logs();
	if (err && !pp_process.said_user) {
		pp_process.said_user = 1;
		pp_warn("the program makes uid %u its user, and its thread logs cannot all be kept "
			"open (%s): samples its threads take from now may be lost",
			(unsigned)euid, strerror(-err));
	}
	errno = saved;
}

/* The line said when a log of this process first fills (logfile.h). */
static void pp_process_full_line(void)
{
	char what[PATH_MAX + 64];

	snprintf(what, sizeof(what), "cannot write more to the logs of %s", pp_process.dir);
	pp_logfile_set_full_line_sigsafe(what, "the program runs on, unprofiled in the threads "
					 "whose logs are full or cannot be made (`pprof-analyze "
					 "threads` shows which logs stopped early; their later "
					 "samples are counted as lost)");
}

/*
 * Names the process's logs under rootfd, the output root opened by
 * pp_outdir_open: creates process.log as <root>/<exe>@<host>.<pid>.log (or
 * .<pid>.<k>.log when that name is taken: pp_outdir_make_process), and
 * sets up where its other logs go: beside it, <root>/<name>.thread-<tid>.log
 * made at each thread's first sample (sigsafe/threads.h).
 */
static int pp_process_dir(int rootfd)
{
	char host[PPF_NAME_MAX], *exe = pp_process.exe;
	const char *base;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(pp_process.exe) - 1);
	int len = snprintf(pp_process.dir, sizeof(pp_process.dir), "%s/",
			   pp_process.cfg->output);
	int err;

	exe[n > 0 ? n : 0] = '\0';
	base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : "unknown";
	/* The name goes after "<root>/": the whole path must fit in dir. */
	if (len < 0 || len >= (int)sizeof(pp_process.dir))
		return -ENAMETOOLONG;
	pp_identity_dir_host(host, sizeof(host));
	err = pp_outdir_make_process(rootfd, base, host, (int)pp_process.pid,
				     pp_process.dir + len, sizeof(pp_process.dir) - (size_t)len,
				     pp_proclog_create);
	if (err)
		return err;
	pp_process.tdir = (struct pp_thread_dir){ .pid = (int)pp_process.pid,
						  .path = pp_process.dir,
						  .rootfd = rootfd,
						  .root = pp_process.cfg->output,
						  .name = pp_process.dir + len };
	pp_logfile_same_file_sigsafe(rootfd, &pp_process.tdir.root_dev,
				     &pp_process.tdir.root_ino);
	return 0;
}

/*
 * The constructor's argv as /proc/self/cmdline gives it (each argument and
 * its NUL, at most PP_PROCESS_CMDLINE_MAX bytes), into a malloc'd buffer;
 * *len gets its size.
 */
static char *pp_process_cmdline_argv(int argc, char **argv, uint32_t *len)
{
	char *buf = malloc(PP_PROCESS_CMDLINE_MAX);
	size_t n = 0;

	*len = 0;
	for (int i = 0; buf && i < argc && argv[i] && n < PP_PROCESS_CMDLINE_MAX; i++) {
		size_t k = strlen(argv[i]) + 1;

		if (k > PP_PROCESS_CMDLINE_MAX - n)
			k = PP_PROCESS_CMDLINE_MAX - n;
		memcpy(buf + n, argv[i], k);
		n += k;
	}
	*len = (uint32_t)n;
	return buf;
}

/*
 * The process's command line into a malloc'd buffer (*len gets its size):
 * the constructor's argv, else (a fork child) /proc/self/cmdline.
 */
static char *pp_process_cmdline(uint32_t *len)
{
	const struct pp_process_origin *o = pp_process.origin;
	char *buf;
	int fd;
	ssize_t n = 0, r;

	if (o && o->argv)
		return pp_process_cmdline_argv(o->argc, o->argv, len);
	buf = malloc(PP_PROCESS_CMDLINE_MAX);
	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	*len = 0;
	if (!buf || fd < 0) {
		if (fd >= 0)
			close(fd);
		return buf;
	}
	while (n < PP_PROCESS_CMDLINE_MAX &&
	       (r = read(fd, buf + n, (size_t)(PP_PROCESS_CMDLINE_MAX - n))) > 0)
		n += r;
	close(fd);
	*len = (uint32_t)n;
	return buf;
}

/*
 * The process's first records in process.log: the process (in mode), the
 * configuration, and each event.
 */
static void pp_process_write_start(uint32_t mode)
{
	uint32_t cmdline_len;
	char *cmdline = pp_process_cmdline(&cmdline_len);
	struct pp_logfile *log = pp_proclog_hold();

	pp_records_process_sigsafe(log, pp_process.ppid, mode, mode == PPF_MODE_OFF ? 0 :
				   pp_sampsig_number_sigsafe(), pp_process.exe, cmdline,
				   cmdline ? cmdline_len : 0);
	pp_records_identity_sigsafe(log, pp_identity_get());
	pp_records_config_sigsafe(log, pp_process.cfg);
	for (unsigned i = 0; i < pp_process.cfg->nevents; i++)
		pp_maps_put_event(log, i, &pp_process.cfg->events[i], pp_process.events.error[i],
				  !!(pp_process.events.refused & (1u << i)));
	pp_proclog_release();
	free(cmdline);
}

/*
 * Stops pausing and resuming (pause.h), and writes the process's
 * PPF_REC_PROCESS_PAUSED into log (held) when it was paused at all.
 */
static void pp_process_write_paused(struct pp_logfile *log)
{
	struct pp_records_paused p;
	uint64_t now = pp_records_now_sigsafe();

	pp_pause_stop_sigsafe(now, &p);
	if (p.pauses)
		pp_records_paused_sigsafe(log, PPF_REC_PROCESS_PAUSED, now, &p);
}

/*
 * Writes the process's END record, into the room kept for it, and closes
 * process.log.
 */
static void pp_process_close_log(void)
{
	struct pp_logfile *log;
	struct pp_records_counts c;
	struct pp_records_cpu cpu;

	pp_thread_totals(&c);
	c.lost += pp_sampler_unowned_lost_sigsafe();
	pp_records_cpu_sigsafe(RUSAGE_SELF, &cpu);
	log = pp_proclog_hold();
	pp_logfile_closing_sigsafe(log);
	pp_process_write_paused(log);
	pp_records_process_end_sigsafe(log, &c, &cpu, pp_process.exit_how,
				       pp_process.exit_status);
	pp_logfile_close_sigsafe(log);
	pp_proclog_release();
}

/* on_exit handler: the only place that sees the exit status. */
static void pp_process_on_exit(int status, void *arg)
{
	(void)arg;
	pp_process.exit_how = PPF_EXIT_NORMAL;
	pp_process.exit_status = status;
}

/* Set in a thread calling daemon(3) (its hook), with errno 0: see pp_process_fork_parent. */
static __thread int pp_process_in_daemon;

void pp_process_daemon(int inside)
{
	pp_process_in_daemon = inside;
}

/*
 * pthread_atfork parent handler. In daemon(3), glibc's fork is followed in
 * the parent by its own _exit(0), past every hook: the parent's logs end
 * here, with that status, unless the fork failed (errno set: daemon
 * returns -1 and the process goes on).
 */
static void pp_process_fork_parent(void)
{
	pp_wall_fork_parent();
	if (pp_process_in_daemon && errno == 0)
		pp_process_ends(PPF_EXIT_NORMAL, 0);
}

/* quick_exit's status, given by its hook (pp_process_quick_exit). */
static int pp_process_quick_status;

void pp_process_quick_exit(int status)
{
	pp_process_quick_status = status;
}

/*
 * at_quick_exit handler: quick_exit runs no destructor and ends by glibc's
 * own _exit, which no hook sees; registered before main, it runs after the
 * program's own handlers, last.
 */
static void pp_process_at_quick_exit(void)
{
	int saved = errno;

	pp_process_ends(PPF_EXIT_NORMAL, pp_process_quick_status);
	errno = saved;
}

void pp_process_main_starts(void)
{
	/*
	 * Registered now, after libc registered the destructors' runner, so
	 * it runs before our destructor writes the END record.
	 */
	on_exit(pp_process_on_exit, NULL);
	at_quick_exit(pp_process_at_quick_exit);
}

static uint64_t pp_process_started(void);

/* Writes every END record and closes the logs: the process is ending. */
static void pp_process_finish(void)
{
	if (pp_process.off_log && pp_process.pid == getpid()) {
		pp_process_close_log();
		pp_process.off_log = 0;
		return;
	}
	if (!pp_process_active())
		return;
	__atomic_store_n(&pp_process.active, 0, __ATOMIC_RELEASE);
	/* No toggle enables the events again. */
	pp_pause_stop_sigsafe(pp_records_now_sigsafe(), &(struct pp_records_paused){ 0 });
	pp_events_process_ends();
	pp_logfile_process_ends_sigsafe(1);
	pp_events_disable(&pp_process.events);
	pp_wall_stop();
	pp_thread_finish_all(pp_process.exit_follows);
	pp_jitmap_keep(pp_process.rootfd, pp_process.tdir.name, pp_process_started);
	pp_process_close_log();
	pp_unsampled_summary();
	/*
	 * The handler stays installed: a signal still in flight must not meet
	 * SIGTRAP's default action.
	 */
}

__attribute__((destructor))
static void pp_process_destructor(void)
{
	int saved = errno; /* destructors that run after ours see it */

	pp_process_finish();
	errno = saved;
}

void pp_process_ends(uint32_t how, int status)
{
	if (pp_process.pid != getpid())
		return;
	pp_process.exit_how = how;
	pp_process.exit_status = status;
	pp_process.exit_follows = 1;
	pp_process_finish();
}

/* The calling thread's own events (signal mode: its sampling events), or NULL. */
static struct pp_tevents *pp_process_own_tevents(void)
{
	struct pp_thread *t = pp_threads_find_sigsafe(pp_threads_gettid_sigsafe());

	return t ? &t->tev : NULL;
}

int pp_process_exec_begin(const char *path)
{
	struct pp_logfile *log;
	struct pp_tevents *te;
	int saved = errno;

	/* Not in a vfork child (another pid): the events are the parent's. */
	if (!pp_process_active())
		return 0;
	/*
	 * The sigtrap mode's event stops first, in every thread: the threads'
	 * last progress records below then hold every sample they took (the
	 * others go on running until the kernel ends them in the exec).
	 */
	pp_events_disable(&pp_process.events);
	/* The new image's CPU time goes on from here (getrusage keeps it). */
	pp_process_write_cpu(PPF_CPU_EXEC);
	/* Its threads that took no sample have no log to say they were there; the others' totals. */
	pp_thread_quiet_all_at_exec();
	/* wall.log ends here, unless the exec fails. */
	pp_wall_exec_begin();
	/* Last: a process.log that ends with PPF_REC_EXEC was replaced. */
	log = pp_proclog_hold();
	pp_process_write_paused(log);
	pp_records_exec_sigsafe(log, path);
	pp_proclog_release();
	/*
	 * The signal mode's other threads end at exec, and their samples with
	 * them (signals routed to a thread).
	 */
	te = pp_process_own_tevents();
	if (te)
		pp_events_thread_disable(te);
	pp_sampler_take_pending_sigsafe();
	errno = saved;
	return 1;
}

void pp_process_exec_failed(int began)
{
	int saved = errno; /* the app sees exec's errno */

	if (!began || !pp_process_active())
		return;
	/* Paused, the events stay disabled as exec left them. */
	if (!pp_pause_paused_sigsafe())
		pp_events_enable(&pp_process.events, pp_process_own_tevents());
	pp_pause_resume_after_stop_sigsafe();
	pp_wall_exec_failed();
	errno = saved;
}

int pp_process_read_proc(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return 1;
}

/* When process pid started, in CLOCK_REALTIME ns (clock-tick steps); 0 if unknown. */
static uint64_t pp_process_start_ns(int pid)
{
	char path[64], buf[1024];
	const char *p;
	unsigned long long ticks;
	struct timespec now, boot;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (!pp_process_read_proc(path, buf, sizeof(buf)))
		return 0;
	/* Field 22, starttime; the name in field 2 may hold spaces and ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d "
			 "%*d %*d %*d %*d %*d %llu", &ticks) != 1)
		return 0;
	clock_gettime(CLOCK_REALTIME, &now);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec -
	       ((uint64_t)boot.tv_sec * 1000000000ull + (uint64_t)boot.tv_nsec) +
	       ticks * 1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK);
}

/* When this process started, in CLOCK_REALTIME ns; 0 if unknown. */
static uint64_t pp_process_started(void)
{
	return pp_process_start_ns((int)getpid());
}

/*
 * Whether name is a process log's of pid: EXE@HOST.PID (EXE.PID in runs
 * before the host was in the name), or that and .K when it was taken, with
 * ".log" after; or that without ".log", a process directory of older runs
 * (their thread logs were in it). Matched from the end, as pp_process_dir makes it: an EXE
 * with dots and digits of its own (python3.11) does not mislead.
 */
static int pp_process_dir_of(const char *name, int pid)
{
	char tail[24];
	size_t len = strlen(name), tl, sl = strlen(PPF_LOG_SUFFIX);
	const char *k;

	if (len > sl && strcmp(name + len - sl, PPF_LOG_SUFFIX) == 0) {
		char *base = strndup(name, len - sl);
		int of = base && pp_process_dir_of(base, pid);

		free(base);
		return of;
	}

	tl = (size_t)snprintf(tail, sizeof(tail), ".%d", pid);
	if (len > tl && strcmp(name + len - tl, tail) == 0)
		return 1;
	/* EXE.PID.K: strip the trailing ".K" (K a number) and look again. */
	k = strrchr(name, '.');
	if (!k || k == name || k[1] < '0' || k[1] > '9' ||
	    strspn(k + 1, "0123456789") != strlen(k + 1))
		return 0;
	len = (size_t)(k - name);
	return len > tl && strncmp(name + len - tl, tail, tl) == 0;
}

/*
 * Whether this process's parent, or its own image before an exec, writes
 * into the same output directory in this run: a process log of that
 * pid, other than ours, changed since that process started (an older one of
 * a reused pid was last changed before). That process named the events the
 * machine refused already; a build that runs hundreds of programs under
 * one configuration then says so once, not once per program.
 */
static int pp_process_run_said(void)
{
	const char *mine = pp_process.tdir.name;
	size_t mlen = strlen(mine);
	int pids[2] = { (int)pp_process.ppid, (int)pp_process.pid };
	uint64_t since[2] = { pp_process_start_ns(pids[0]), pp_process_start_ns(pids[1]) };
	int fd = openat(pp_process.rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	int said = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (!said && (e = readdir(d)) != NULL) {
		struct stat st;

		/* Our own log (name.log), or a directory of that name. */
		if (strncmp(e->d_name, mine, mlen) == 0 &&
		    (!e->d_name[mlen] || strcmp(e->d_name + mlen, PPF_LOG_SUFFIX) == 0))
			continue;
		for (int i = 0; i < 2 && !said; i++)
			said = since[i] && pp_process_dir_of(e->d_name, pids[i]) &&
			       fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			       (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) &&
			       (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
					       (uint64_t)st.st_mtim.tv_nsec >= since[i];
	}
	closedir(d);
	return said;
}

/*
 * One line per event the machine refused; when profiling cannot start
 * (err), the last one says so too. Said once per run: not in a fork child,
 * nor in a process whose parent or previous image said it
 * (pp_process_run_said).
 */
static void pp_process_event_lines(char (*lines)[PP_EVENTS_LINE_MAX], int err)
{
	unsigned last = 0, any = 0;

	if (!pp_process.starting && !err)
		return;
	for (unsigned i = 0; i < pp_process.cfg->nevents; i++)
		if (lines[i][0]) {
			last = i;
			any = 1;
		}
	if (any && pp_process.starting && pp_process_run_said())
		return;
	for (unsigned i = 0; i < pp_process.cfg->nevents; i++) {
		if (!lines[i][0])
			continue;
		if (!err)
			pp_warn("%s; skipped (unavailable = skip)", lines[i]);
		else if (i < last)
			pp_warn("%s", lines[i]);
		else
			pp_warn("%s; %s%s", lines[i], pp_process.cfg->unavailable_off ?
				"unavailable = off" : "no event is left",
				pp_init_off(pp_process.starting)[0] ?
				": profiling is off, the program runs unprofiled" : "");
	}
}

/*
 * Opens the events. Each event the machine refuses is named in one line
 * (in the constructor; a fork child does not repeat them). On failure says
 * why and leaves profiling off.
 */
static int pp_process_start_events(struct pp_thread *main_thread)
{
	static char lines[PP_CONFIG_MAX_EVENTS][PP_EVENTS_LINE_MAX];
	struct pp_tevents none, *self = main_thread ? &main_thread->tev : &none;
	int err = pp_hooks_install_handler();

	if (err) {
		pp_warn("cannot install the handler of signal %d: %s%s",
			pp_sampsig_number_sigsafe(), strerror(-err),
			pp_init_off(pp_process.starting));
		goto out_off;
	}
	err = pp_events_open(&pp_process.events, pp_process.cfg, pp_process.mode, self,
			     lines);
	pp_process_event_lines(lines, err);
	if (!err)
		return 0;
	pp_hooks_uninstall_handler();
out_off:
	if (main_thread)
		pp_thread_drop_main(main_thread);
	if (pp_process.starting)
		pp_init_strict_stop();
	return err;
}

/*
 * Opens the output root (pp_outdir_open: the checks of outdir.h) into
 * pp_process.rootfd, and makes the process's log there.
 * When it cannot, says why in one line and returns a negative errno.
 */
static int pp_process_open_output(void)
{
	char why[PP_OUTDIR_WHY_MAX];
	int err;

	why[0] = '\0';
	/* A fork child whose parent's root its path no longer names keeps the parent's. */
	if (pp_process.kept_root >= 0)
		pp_process.rootfd = pp_process.kept_root;
	else
		pp_process.rootfd = pp_outdir_open(pp_process.cfg->output, why);
	pp_process.kept_root = -1;
	if (pp_process.rootfd >= 0)
		pp_process.rootfd = pp_fd_move_high_sigsafe(pp_process.rootfd);
	err = pp_process.rootfd < 0 ? pp_process.rootfd : pp_process_dir(pp_process.rootfd);
	if (!err)
		return 0;
	if (why[0])
		pp_warn("refusing output directory %s: %s%s", pp_process.cfg->output, why,
			pp_init_off(pp_process.starting));
	else
		pp_warn("cannot create the output directory under %s: %s%s",
			pp_process.cfg->output, strerror(-err), pp_init_off(pp_process.starting));
	if (pp_process.rootfd >= 0)
		close(pp_process.rootfd);
	pp_process.rootfd = -1;
	return err;
}

/*
 * The period of sampling event i in ns of CPU time, or 0 when it is not a
 * time event or could not be opened. A frequency asked of cpu-clock or
 * task-clock is a fixed period too: the kernel maps it to 1 s / frequency
 * (perf_swevent_init_hrtimer), as hrtimers run at a fixed rate.
 */
static uint64_t pp_process_period_ns(unsigned i)
{
	const struct pp_config_event *ce = &pp_process.cfg->events[i];

	if (ce->count_only || !ce->time_ns || !ce->period || pp_process.events.error[i])
		return 0;
	return ce->freq ? 1000000000ull / ce->period : ce->period;
}

/*
 * What a held signal's time counts as (sigsafe/appmask.h): one throttled
 * overflow per period of CPU, for each time event that samples.
 */
static void pp_process_appmask_configure(void)
{
	struct pp_appmask_config acfg = { .mode = pp_process.mode };

	for (unsigned i = 0; i < pp_process.cfg->nevents; i++)
		acfg.period_ns[i] = pp_process_period_ns(i);
	pp_appmask_configure_sigsafe(&acfg);
}

/* Logs, handler and events, once the process directory is there. */
static void pp_process_start_profiling(void)
{
	struct pp_sampler_config scfg = {
		.mode = pp_process.mode,
		.nevents = pp_process.cfg->nevents,
		.max_frames = pp_process.cfg->max_frames,
		.whole_stacks = pp_process.cfg->whole_stacks,
		.backtrace = pp_process.backtrace,
		.dir = &pp_process.tdir,
	};
	struct pp_thread *main_thread, *slot;

	for (unsigned i = 0; i < pp_process.cfg->nevents; i++) {
		scfg.period_ns[i] = pp_process_period_ns(i);
		if (pp_events_weighted(&pp_process.cfg->events[i]))
			scfg.weighted |= 1u << i;
	}
	pp_sampler_configure_sigsafe(&scfg);
	pp_pause_configure_sigsafe(&pp_process.events, pp_process.cfg->delay_ns);
	pp_unsampled_start(pp_process.dir);
	main_thread = pp_thread_setup(1, &slot);
	/* Before the events: the wall event's helper inherits none. */
	pp_wall_prepare(pp_process.cfg->wall_ns);
	if (pp_process_start_events(main_thread) != 0) {
		pp_wall_stop();
		/* The log stays open: the destructor says how the process ended. */
		pp_process_write_start(PPF_MODE_OFF);
		pp_process.off_log = 1;
		return;
	}
	pp_process_appmask_configure();
	pp_sampler_set_counters_sigsafe(pp_events_count_attrs(&pp_process.events, pp_process.cfg,
							      pp_process.count_attrs),
					pp_process.count_attrs);
	/* Threads started before us (by a library's constructor), if any. */
	if (!pp_process.origin || !pp_process.origin->alone)
		pp_events_open_others(&pp_process.events, pp_process.cfg);
	pp_maps_set_dir(&pp_process.tdir);
	pp_maps_set_exe(pp_process.exe);
	pp_maps_set_root(pp_process.rootfd, pp_process.cfg->output);
	pp_process_write_start((uint32_t)pp_process.mode);
	pp_maps_scan(pp_records_now_sigsafe(), 0);
	if (slot)
		pp_thread_end_at_exit(slot);
	pp_records_process_cpu_sigsafe(pp_proclog_hold(), PPF_CPU_CONSTRUCTOR, &pp_process.entry,
				       &pp_process.entry_thread);
	pp_proclog_release();
	/* What no sample covers: all of it until the events are enabled below. */
	pp_process_write_cpu(PPF_CPU_SAMPLING);
	pp_wall_start(pp_process.cfg->wall_ns,
		      pp_process.cfg->wall_rings != PP_WALL_RINGS_CPU,
		      &pp_process.tdir);
	__atomic_store_n(&pp_process.active, 1, __ATOMIC_RELEASE);
	/* Last: the profiler's own start is not sampled; nor, paused, the rest. */
	pp_control_process_start(pp_process.cfg, pp_process.starting);
	if (main_thread)
		pp_pause_thread_live_sigsafe(main_thread, main_thread->tid, 1, 0);
	pp_pause_start_sigsafe();
	/* A program started with the signal blocked (its parent's mask). */
	pp_masks_process_start(main_thread);
}

/*
 * Everything a process needs to be profiled; called at start and in a fork
 * child, which opens the root again from its path with the same checks.
 */
static void pp_process_setup(void)
{
	pp_process.pid = getpid();
	pp_share_reset_sigsafe();
	pp_logfile_fit_window_sigsafe();
	/* A fork child's: the parent's line names the parent's directory. */
	pp_logfile_set_full_line_sigsafe(NULL, NULL);
	if (pp_process_open_output() != 0) {
		if (pp_process.starting)
			pp_init_strict_stop();
		return;
	}
	/* Set once process.log exists: a disk full before says the line above. */
	pp_process_full_line();
	pp_process_start_profiling();
}

/* Whether path names the directory open as fd (the same device and inode). */
static int pp_process_path_names(const char *path, int fd)
{
	struct stat a, b;

	return stat(path, &a) == 0 && fstat(fd, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/*
 * pthread_atfork child handler. With inherit_thread a fork child inherits no
 * event: it gets its own directory, log and events, like a new process.
 */
static void pp_process_fork_child(void)
{
	int saved = errno; /* the child sees fork's errno */

	pp_sigev_fork_child();
	/* A child of a process that was ending: its own logs are unmapped as they close. */
	pp_logfile_process_ends_sigsafe(0);
	/* The parent's other threads' unwinds and dlcloses are not the child's to wait for. */
	pp_sampler_dl_fork_child_sigsafe();
	if (!__atomic_load_n(&pp_process.active, __ATOMIC_ACQUIRE))
		return;
	/* Not yet this process's own: the parent's. */
	pp_process.ppid = pp_process.pid;
	pp_process_cpu_at_entry();
	__atomic_store_n(&pp_process.active, 0, __ATOMIC_RELEASE);
	pp_pause_forget_sigsafe();
	pp_thread_forget_all();
	/* The parent's, unless the program put its own at their numbers. */
	for (unsigned i = 0; i < pp_process.events.n; i++)
		pp_fd_close_ours_sigsafe(pp_process.events.fds[i]);
	pp_process.events.n = 0;
	pp_proclog_forget();
	pp_wall_fork_child();
	pp_maps_reset();
	/*
	 * The parent's: the child opens the root again from its path, with
	 * its checks; unless the path no longer names the parent's root (the
	 * program chroot'ed, or the root was renamed): then it keeps the
	 * parent's, still the profiler's, so that its logs go beside its
	 * parent's, not into a new root made where the path now leads (inside
	 * the program's jail).
	 */
	if (pp_process.rootfd >= 0 && pp_fd_ours_sigsafe(pp_process.rootfd) &&
	    !pp_process_path_names(pp_process.cfg->output, pp_process.rootfd))
		pp_process.kept_root = pp_process.rootfd;
	else if (pp_process.rootfd >= 0)
		pp_fd_close_ours_sigsafe(pp_process.rootfd);
	pp_process.rootfd = -1;
	pp_process.exit_how = PPF_EXIT_UNKNOWN;
	pp_process_setup();
	errno = saved;
}

void pp_process_start(const struct pp_config *cfg, int mode,
		      pp_unwlib_backtrace_fn backtrace,
		      const struct pp_process_origin *origin)
{
	struct pp_thread_env env = {
		.cfg = cfg,
		.events = &pp_process.events,
		.mode = mode,
		.dir = &pp_process.tdir,
		.backtrace = backtrace,
	};

	pp_process.cfg = cfg;
	pp_process.mode = mode;
	pp_process.backtrace = backtrace;
	pp_thread_init(&env);
	pthread_atfork(pp_wall_fork_prepare, pp_process_fork_parent, pp_process_fork_child);
	pp_process.starting = 1;
	pp_process.origin = origin;
	pp_process_setup();
	pp_process.origin = NULL;
	pp_process.starting = 0;
}
