/* Helpers for the integration tests; see tst_it.h. */
#include "tst_it.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "identity.h"
#include "outdir.h"
#include "tst_log.h"

/* What make test-asan preloads before libpprof.so (libasan.so); else nothing. */
#ifndef PP_TEST_PRELOAD_FIRST
#define PP_TEST_PRELOAD_FIRST ""
#endif

void tst_build_path(char *buf, const char *rel)
{
	int n = snprintf(buf, TST_PATH_MAX, "%s/%s", PP_TEST_BUILD_DIR, rel);

	cr_assert(n > 0 && n < TST_PATH_MAX);
}

void tst_tool_path(char *buf, const char *rel)
{
	int n = snprintf(buf, TST_PATH_MAX, "%s/%s", PP_TEST_TOOLS_DIR, rel);

	cr_assert(n > 0 && n < TST_PATH_MAX);
}

void tst_init(struct tst_it *it)
{
	char lib[TST_PATH_MAX];

	memset(it, 0, sizeof(*it));
	it->tmp = tst_log_tmpdir();
	snprintf(it->data, sizeof(it->data), "%s/data", it->tmp);
	tst_build_path(lib, "libpprof.so");
	cr_assert_eq(access(lib, R_OK), 0, "%s is not built", lib);
	/* An ASan-built preload comes after libasan.so (DESIGN.md, Library quirks). */
	snprintf(it->env_preload, sizeof(it->env_preload), "LD_PRELOAD=%s%s%s",
		 PP_TEST_PRELOAD_FIRST, *PP_TEST_PRELOAD_FIRST ? " " : "", lib);
	snprintf(it->env_output, sizeof(it->env_output), "PPROF_OUTPUT=%s", it->data);
}

void tst_release(struct tst_it *it)
{
	tst_log_rmdir(it->tmp);
	it->tmp = NULL;
}

void tst_result_release(struct tst_result *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

/* In the child: stdin from in (/dev/null if < 0), stdout and stderr to tmp/<tag>.*. */
static void tst_child_files(const struct tst_it *it, const char *tag, int in)
{
	static const char *const suffix[] = { "out", "err" };
	char path[TST_PATH_MAX];
	int fd = in >= 0 ? in : open("/dev/null", O_RDONLY);

	if (fd < 0 || dup2(fd, STDIN_FILENO) < 0)
		_exit(126);
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s.%s", it->tmp, tag, suffix[i]);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, STDOUT_FILENO + i) < 0)
			_exit(126);
		close(fd);
	}
}

int tst_mode(void)
{
	const char *m = getenv("PPROF_TEST_MODE");

	return m && strcmp(m, "signal") == 0 ? PPF_MODE_SIGNAL : PPF_MODE_SIGTRAP;
}

/*
 * Under make test-asan, LeakSanitizer checks the programs the tests run
 * (profiled programs, pprof-analyze), not the test binary: a failed
 * assertion leaves what it was checking unfreed, and Criterion keeps a few
 * bytes of its own to the end. (A hook LeakSanitizer looks up.)
 */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return 1;
}

bool tst_asan(void)
{
	return *PP_TEST_PRELOAD_FIRST != '\0';
}

void tst_skip_under_asan(const char *why)
{
	if (tst_asan())
		cr_skip_test("make test-asan: %s; make test runs this test", why);
}

/*
 * In the child: a clean environment plus env; under PPROF_TEST_MODE=signal
 * every program runs with PPROF_MODE=signal (the suite in the signal mode).
 * Under make test-asan a program of the build directory (ours: argv[0] is
 * relative) has libasan.so preloaded whether it is profiled or not, so that
 * a run without the profiler differs from a profiled one by the profiler
 * alone (libasan.so interposes functions of its own: _Unwind_RaiseException).
 */
static void tst_child_env(const char *const *env, bool ours)
{
	static const char *const drop[] = {
		"LD_PRELOAD", "PPROF_OUTPUT", "PPROF_TRUTH", "PPROF_CONFIG",
		"PPROF_MODE", "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES",
	};

	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		unsetenv(drop[i]);
	if (ours && tst_asan() && setenv("LD_PRELOAD", PP_TEST_PRELOAD_FIRST, 1) != 0)
		_exit(126);
	if (tst_mode() == PPF_MODE_SIGNAL && setenv("PPROF_MODE", "signal", 1) != 0)
		_exit(126);
	for (size_t i = 0; env && env[i]; i++)
		if (putenv((char *)env[i]) != 0)
			_exit(126);
}

/*
 * tst_spawn, with stdin from in (-1: /dev/null) and the child's resource
 * limited to limit when resource >= 0.
 */
static pid_t tst_spawn_with(const struct tst_it *it, const char *tag,
			      const char *const *argv, const char *const *env, int in,
			      int resource, uint64_t limit)
{
	struct rlimit rl = { .rlim_cur = limit, .rlim_max = limit };
	char path[TST_PATH_MAX];
	pid_t pid;

	if (argv[0][0] == '/')
		snprintf(path, sizeof(path), "%s", argv[0]);
	else
		tst_build_path(path, argv[0]);
	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		tst_child_files(it, tag, in);
		tst_child_env(env, argv[0][0] != '/');
		if (resource >= 0 && setrlimit(resource, &rl) != 0)
			_exit(126);
		execv(path, (char *const *)argv);
		_exit(127);
	}
	return pid;
}

pid_t tst_spawn(const struct tst_it *it, const char *tag,
		  const char *const *argv, const char *const *env)
{
	return tst_spawn_with(it, tag, argv, env, -1, -1, 0);
}

pid_t tst_spawn_stdin(const struct tst_it *it, const char *tag,
			const char *const *argv, const char *const *env, int in)
{
	return tst_spawn_with(it, tag, argv, env, in, -1, 0);
}

/* Waits for pid and collects what it wrote. */
static void tst_collect(const struct tst_it *it, const char *tag, pid_t pid,
			  struct tst_result *r)
{
	char path[TST_PATH_MAX];

	memset(r, 0, sizeof(*r));
	cr_assert_eq(waitpid(pid, &r->status, 0), pid, "waitpid: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/%s.out", it->tmp, tag);
	r->out = tst_slurp(path, &r->out_len);
	snprintf(path, sizeof(path), "%s/%s.err", it->tmp, tag);
	r->err = tst_slurp(path, &r->err_len);
}

void tst_run_limited(const struct tst_it *it, const char *tag, const char *const *argv,
		       const char *const *env, int resource, uint64_t limit,
		       struct tst_result *r)
{
	tst_collect(it, tag, tst_spawn_with(it, tag, argv, env, -1, resource, limit), r);
}

void tst_wait(const struct tst_it *it, const char *tag, pid_t pid,
		struct tst_result *r)
{
	tst_collect(it, tag, pid, r);
	cr_assert(!WIFEXITED(r->status) || WEXITSTATUS(r->status) != 127,
		  "%s: the program could not be run: %s", tag, r->err);
}

void tst_wait_bounded(const struct tst_it *it, const char *tag, pid_t pid,
			unsigned limit_s, struct tst_result *r)
{
	struct timespec tick = { .tv_nsec = 20 * 1000 * 1000 };
	siginfo_t info = { 0 };

	/* Polled without reaping it: tst_wait collects it. */
	for (unsigned long n = 0; n < limit_s * 50ul; n++) {
		cr_assert_eq(waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT), 0,
			     "waitid: %s", strerror(errno));
		if (info.si_pid == pid)
			break;
		nanosleep(&tick, NULL);
	}
	if (info.si_pid != pid)
		kill(pid, SIGKILL);
	tst_wait(it, tag, pid, r);
	cr_assert(info.si_pid == pid, "%s: still running after %u s (blocked for good?), "
		  "killed; stderr: %s", tag, limit_s, r->err);
}

void tst_run(const struct tst_it *it, const char *tag, const char *const *argv,
	       const char *const *env, struct tst_result *r)
{
	tst_wait(it, tag, tst_spawn(it, tag, argv, env), r);
}

void tst_run_profiled(const struct tst_it *it, const char *tag,
			const char *const *argv, const char *extra,
			struct tst_result *r)
{
	const char *env[] = { it->env_preload, it->env_output, extra, NULL };

	tst_run(it, tag, argv, env, r);
}

#define TST_ARGS_MAX 24

bool tst_nobody_ok(const struct tst_it *it, char *why, size_t size)
{
	char lib[TST_PATH_MAX];
	const char *check[] = { "/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
				"--clear-groups", "/usr/bin/test", "-r", lib, NULL };
	struct tst_result r;
	bool ok;

	if (geteuid() != 0) {
		snprintf(why, size, "not root: cannot run programs as uid %d",
			 TST_NOBODY);
		return false;
	}
	tst_build_path(lib, "libpprof.so");
	tst_run(it, "nobody-check", check, NULL, &r);
	ok = r.status == 0;
	tst_result_release(&r);
	if (!ok) {
		snprintf(why, size, "uid %d cannot read %s (a directory on the way "
			 "is not searchable by others)", TST_NOBODY, lib);
		return false;
	}
	cr_assert_eq(chmod(it->tmp, 0711), 0, "chmod %s: %s", it->tmp, strerror(errno));
	return true;
}

void tst_output_dir(const struct tst_it *it, const char *name, bool nobody,
		      char *dir)
{
	snprintf(dir, TST_PATH_MAX, "%s/%s", it->tmp, name);
	cr_assert_eq(mkdir(dir, 0700), 0, "%s: %s", dir, strerror(errno));
	if (nobody)
		cr_assert_eq(chown(dir, TST_NOBODY, TST_NOBODY), 0, "chown %s: %s",
			     dir, strerror(errno));
}

void tst_run_user(const struct tst_it *it, const char *tag, bool nobody,
		    const char *output, const char *extra, const char *const *prog,
		    struct tst_result *r)
{
	char env_output[TST_PATH_MAX + 32];
	const char *argv[TST_ARGS_MAX];
	size_t n = 0;

	if (nobody) {
		argv[n++] = "/usr/bin/setpriv";
		argv[n++] = "--reuid=65534";
		argv[n++] = "--regid=65534";
		argv[n++] = "--clear-groups";
	}
	argv[n++] = "/usr/bin/env";
	if (output) {
		snprintf(env_output, sizeof(env_output), "PPROF_OUTPUT=%s", output);
		argv[n++] = it->env_preload;
		argv[n++] = env_output;
		if (extra)
			argv[n++] = extra;
	}
	for (size_t i = 0; prog[i]; i++) {
		cr_assert_lt(n, TST_ARGS_MAX - 1, "too many arguments");
		argv[n++] = prog[i];
	}
	argv[n] = NULL;
	tst_run(it, tag, argv, NULL, r);
}

char *tst_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, got;

	cr_assert(f, "%s: %s", path, strerror(errno));
	do {
		if (cap - n < 4096) {
			cap = cap ? 2 * cap : 8192;
			buf = realloc(buf, cap + 1);
			cr_assert(buf);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	cr_assert(!ferror(f), "%s: read error", path);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

const char *tst_find_line(const char *text, const char *prefix)
{
	size_t plen = strlen(prefix);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, prefix, plen) == 0)
			return p;
	return NULL;
}

size_t tst_count_lines(const char *text, const char *prefix)
{
	const char *p = tst_find_line(text, prefix);
	size_t n = 0;

	for (; p; p = strchr(p, '\n'), p = p ? tst_find_line(p + 1, prefix) : NULL)
		n++;
	return n;
}

void tst_process_dir(const struct tst_it *it, const char *exe, int pid, char *out)
{
	char host[64], name[256];

	pp_identity_dir_host(host, sizeof(host));
	cr_assert_eq(pp_outdir_process_name(name, sizeof(name), exe, host, pid, 0), 0);
	cr_assert_lt(snprintf(out, TST_PATH_MAX, "%s/%s", it->data, name), TST_PATH_MAX);
}

void tst_process_file(const struct pa_process *proc, const char *what, char *out, size_t size)
{
	char *path = pa_process_file(proc, what);

	cr_assert_not_null(path);
	cr_assert_lt(snprintf(out, size, "%s", path), (int)size);
	free(path);
}

unsigned long long tst_process_bytes(const struct pa_process *proc)
{
	char root[TST_PATH_MAX], path[TST_PATH_MAX + NAME_MAX + 2];
	const char *slash = strrchr(proc->dir, '/'), *base = slash ? slash + 1 : proc->dir;
	size_t bl = strlen(base);
	unsigned long long n = 0;
	struct dirent *e;
	struct stat st;
	DIR *d;

	tst_process_file(proc, "", path, sizeof(path));
	if (path[strlen(path) - 1] == '/') {
		cr_assert_lt(snprintf(root, sizeof(root), "%s", proc->dir), (int)sizeof(root));
		base = "";
		bl = 0;
	} else {
		cr_assert_lt(snprintf(root, sizeof(root), "%.*s", slash ? (int)(slash - proc->dir) : 1,
				      slash ? proc->dir : "."), (int)sizeof(root));
	}
	d = opendir(root);
	cr_assert_not_null(d, "opendir %s: %s", root, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		const char *rest = e->d_name + bl;

		if (e->d_name[0] == '.' || strncmp(e->d_name, base, bl) != 0)
			continue;
		/* At the root: <P>.log, <P>.thread-<tid>.log, <P>.wall.log, <P>.vdso.so. */
		if (bl && strcmp(rest, PPF_LOG_SUFFIX) != 0 &&
		    strncmp(rest, "." PPF_THREAD_LOG_PREFIX, strlen(PPF_THREAD_LOG_PREFIX) + 1) != 0 &&
		    strcmp(rest, "." PPF_WALL_LOG) != 0 && strcmp(rest, "." PPF_VDSO_COPY) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, e->d_name);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			n += (unsigned long long)st.st_size;
	}
	closedir(d);
	return n;
}

struct pa_run *tst_load(const struct tst_it *it)
{
	struct pa_error err;
	struct pa_run *run = NULL;
	int rc = pa_run_load(it->data, &run, &err);

	cr_assert_eq(rc, 0, "pa_run_load(%s): %s: %s", it->data, err.path, err.reason);
	cr_assert(run);
	return run;
}

struct pa_profile *tst_profile(const struct pa_run *run, uint32_t pid,
				 uint32_t tid)
{
	struct pa_filter filter = { .pid = pid, .tid = tid, .event = 0 };
	struct pa_profile *prof = NULL;
	struct pa_error err;
	int rc = pa_profile_build_by(run, &filter, PA_PROFILE_BY_FUNCTION, &prof, NULL, &err);

	cr_assert_eq(rc, 0, "pa_profile_build_by: %s: %s", err.path, err.reason);
	cr_assert(prof);
	return prof;
}

uint64_t tst_self(const struct pa_profile *prof, const char *name)
{
	const struct pa_func *f = pa_profile_find(prof, name);

	return f ? f->self : 0;
}

uint64_t tst_stack_count(const struct pa_profile *prof, const char *suffix)
{
	size_t slen = strlen(suffix);
	uint64_t n = 0;

	for (size_t i = 0; i < prof->nstacks; i++) {
		char *text = pa_stack_fold(&prof->stacks[i]);
		size_t len;

		cr_assert(text);
		len = strlen(text);
		if (len >= slen && strcmp(text + len - slen, suffix) == 0 &&
		    (len == slen || text[len - slen - 1] == ';'))
			n += prof->stacks[i].count;
		free(text);
	}
	return n;
}

double tst_period_s(const struct pa_process *proc)
{
	const struct pa_event *e = pa_process_find_event(proc, 0);

	cr_assert(e, "no event 0");
	cr_assert(e->flags & PPF_EVENT_TIME_NS, "event 0 does not count time");
	cr_assert(!(e->flags & PPF_EVENT_FREQ), "event 0 has no fixed period");
	return (double)e->period * 1e-9;
}

double tst_overflow_s(const struct pa_filter *f, const struct pa_process *p,
		      const struct pa_thread *t, const struct pa_coverage *cov)
{
	return (double)(cov->samples + pa_filter_count_throttled(f, p, t) +
			pa_filter_count_lost(f, p, t)) * tst_period_s(p);
}

uint64_t tst_samples_read(const struct pa_thread *t)
{
	uint64_t read = 0;

	for (size_t k = 0; k < t->nsamples; k++)
		read += t->samples[k].count;
	return read;
}

double tst_steal_s(void)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n;

	cr_assert(f, "cannot open /proc/stat");
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	cr_assert_eq(n, 8, "/proc/stat has no steal column");
	return (double)v[7] / (double)sysconf(_SC_CLK_TCK);
}

bool tst_has_pmu(void)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES, .exclude_kernel = 1,
		.exclude_hv = 1,
	};
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

uint64_t tst_wall_off(const struct tst_it *it, const char *func)
{
	static const char *const args[] = { "folded", "--event", "wall", NULL };
	char *out = tst_analyze(it, "folded", args, it->data), *line, *save = NULL;
	char needle[128];
	uint64_t n = 0;

	snprintf(needle, sizeof(needle), ";%s;", func);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *count = strrchr(line, ' ');

		if (count && strstr(line, needle) && strstr(line, "[off-cpu"))
			n += strtoull(count + 1, NULL, 10);
	}
	free(out);
	return n;
}

double tst_truth(const char *path, const char *func)
{
	char *text = tst_slurp(path, NULL);
	size_t flen = strlen(func);
	double v = -1;

	for (char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, func, flen) == 0 && p[flen] == ' ')
			v = strtod(p + flen + 1, NULL);
	free(text);
	cr_assert(v >= 0, "%s: no truth for %s", path, func);
	return v;
}

void tst_config_env(const struct tst_it *it, const char *name, const char *text,
		      char *env)
{
	char path[TST_PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", it->tmp, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "cannot write %s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0, "cannot write %s", path);
	snprintf(env, TST_CONFIG_ENV_MAX, "PPROF_CONFIG=%s", path);
}

char *tst_analyze(const struct tst_it *it, const char *tag, const char *const *args,
		  const char *dir)
{
	const char *argv[17] = { "pprof-analyze" };
	struct tst_result r;
	size_t n = 1;
	char *out;

	for (; args[n - 1]; n++) {
		cr_assert_lt(n, 15, "more than 14 arguments");
		argv[n] = args[n - 1];
	}
	if (dir)
		argv[n++] = dir;
	tst_run(it, tag, argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		  "pprof-analyze %s: status 0x%x: %s", args[0], r.status, r.err);
	out = r.out;
	r.out = NULL;
	tst_result_release(&r);
	return out;
}

void tst_dir_each(const char *dir,
		  void (*fn)(void *ctx, const char *name, const char *path,
			     const struct stat *st),
		  void *ctx)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	cr_assert(d, "%s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		char path[TST_PATH_MAX + 512];
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		cr_assert_eq(lstat(path, &st), 0, "%s", path);
		fn(ctx, e->d_name, path, &st);
	}
	closedir(d);
}
