/*
 * tst_it: helpers for the integration tests, which run real programs from
 * tests/workloads/ (built into PP_TEST_BUILD_DIR/workloads/) under
 * LD_PRELOAD=libpprof.so and read their logs with the analyzer's own reader.
 * Every function aborts the test (cr_assert) when something fails.
 */
#ifndef TST_H
#define TST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "coverage.h"
#include "profile.h"
#include "reader.h"

#define TST_PATH_MAX 4096

/* One test's scratch space. */
struct tst_it {
	char *tmp;                        /* fresh directory, removed by tst_release */
	char data[TST_PATH_MAX];        /* tmp/data: the run's PPROF_OUTPUT */
	char env_preload[2 * TST_PATH_MAX]; /* "LD_PRELOAD=<build>/libpprof.so" (make
						 test-asan: libasan.so first) */
	char env_output[TST_PATH_MAX + 32]; /* "PPROF_OUTPUT=<data>" */
};

/* What a finished program did. Buffers are malloc'd and NUL-terminated. */
struct tst_result {
	int status;     /* as waitpid returns it */
	char *out;      /* stdout */
	size_t out_len;
	char *err;      /* stderr */
	size_t err_len;
};

/*
 * The sampling mode the integration tests run the profiler in:
 * PPF_MODE_SIGNAL when PPROF_TEST_MODE=signal (every program then gets
 * PPROF_MODE=signal), else PPF_MODE_SIGTRAP (the default, auto).
 */
int tst_mode(void);

/* Whether the tests run against the AddressSanitizer build (make test-asan). */
bool tst_asan(void);
/*
 * Under make test-asan, skips the running test with a message saying why
 * (what a program cannot do under AddressSanitizer); elsewhere returns.
 */
void tst_skip_under_asan(const char *why);
/* Why a test that runs a program under gdb or strace cannot run under make test-asan. */
#define TST_ASAN_TRACED "LeakSanitizer cannot check a program that runs under a " \
			  "tracer (it stops the world with ptrace)"

void tst_init(struct tst_it *it);
void tst_release(struct tst_it *it);
void tst_result_release(struct tst_result *r);

/* Writes "<build dir>/rel" into buf (TST_PATH_MAX bytes). */
void tst_build_path(char *buf, const char *rel);
/*
 * Writes "<tools dir>/rel" into buf (TST_PATH_MAX bytes): the programs the
 * tests use that are the same for every build variant (go-pprof,
 * speedscope), made once in the release build directory.
 */
void tst_tool_path(char *buf, const char *rel);

/*
 * Starts argv (argv[0] relative to the build directory unless absolute) with
 * stdin from /dev/null and stdout, stderr into tmp/<tag>.out and .err. The
 * child's environment is ours without LD_PRELOAD, PPROF_* and make's
 * variables, plus env (NULL-terminated "NAME=VALUE" strings, may be NULL).
 * Under make test-asan, a program of the build directory runs with
 * libasan.so preloaded, profiled or not. Returns the child's pid.
 */
pid_t tst_spawn(const struct tst_it *it, const char *tag,
		  const char *const *argv, const char *const *env);
/* tst_spawn with stdin from the descriptor in (the caller still closes it). */
pid_t tst_spawn_stdin(const struct tst_it *it, const char *tag,
			const char *const *argv, const char *const *env, int in);
/* Waits for a child of tst_spawn (same tag) and collects what it wrote. */
void tst_wait(const struct tst_it *it, const char *tag, pid_t pid,
		struct tst_result *r);
/*
 * tst_wait for a child that might block for good (on a FIFO): one still
 * running after limit_s seconds is killed and the test fails, saying so.
 * The limit bounds a hang, not the work: leave a wide margin.
 */
void tst_wait_bounded(const struct tst_it *it, const char *tag, pid_t pid,
			unsigned limit_s, struct tst_result *r);
/* tst_spawn then tst_wait. */
void tst_run(const struct tst_it *it, const char *tag, const char *const *argv,
	       const char *const *env, struct tst_result *r);
/*
 * tst_run with the child's soft and hard limits of resource (RLIMIT_AS,
 * RLIMIT_NOFILE, ...) set to limit before it execs argv. Under a small
 * enough limit the dynamic loader itself fails (exit status 127): that is
 * a result here, not a failed test.
 */
void tst_run_limited(const struct tst_it *it, const char *tag, const char *const *argv,
		       const char *const *env, int resource, uint64_t limit,
		       struct tst_result *r);
/* tst_run under the preload, with PPROF_OUTPUT = it->data, plus extra (may be NULL). */
void tst_run_profiled(const struct tst_it *it, const char *tag,
			const char *const *argv, const char *extra,
			struct tst_result *r);

/* The unprivileged user some tests run programs as (nobody). */
#define TST_NOBODY 65534

/*
 * Whether programs can run as TST_NOBODY here: this is root (setpriv
 * needs it), and that user can read the library (every directory on the
 * way searchable by others). If so, makes it->tmp searchable by others
 * (the tests put its outputs and scripts there); if not, says why in why.
 */
bool tst_nobody_ok(const struct tst_it *it, char *why, size_t size);

/*
 * Makes the directory tmp/name (mode 0700), owned by TST_NOBODY when
 * nobody is set, for a run's PPROF_OUTPUT; its path goes to dir
 * (TST_PATH_MAX bytes).
 */
void tst_output_dir(const struct tst_it *it, const char *name, bool nobody,
		      char *dir);

/*
 * tst_run for prog (NULL-terminated, prog[0] absolute) as TST_NOBODY
 * when nobody is set (by setpriv), else as this user. With output not NULL,
 * prog runs under the preload with PPROF_OUTPUT=output and extra
 * ("NAME=VALUE", may be NULL); setpriv and env, which start it, run
 * without. With output NULL, prog runs unprofiled.
 */
void tst_run_user(const struct tst_it *it, const char *tag, bool nobody,
		    const char *output, const char *extra, const char *const *prog,
		    struct tst_result *r);

/*
 * Writes the configuration text to tmp/name and "PPROF_CONFIG=<that path>"
 * into env (TST_CONFIG_ENV_MAX bytes), for tst_run's env.
 */
#define TST_CONFIG_ENV_MAX (TST_PATH_MAX + 16)
void tst_config_env(const struct tst_it *it, const char *name, const char *text,
		      char *env);

/*
 * Runs pprof-analyze with args (NULL-terminated, at most 14), then dir when
 * not NULL, in it; expects exit 0 (the test fails otherwise, with its
 * stderr). Returns its stdout, malloc'd.
 */
char *tst_analyze(const struct tst_it *it, const char *tag, const char *const *args,
		  const char *dir);

/* The whole file, malloc'd and NUL-terminated; *len (may be NULL) gets its size. */
char *tst_slurp(const char *path, size_t *len);
/* The first line of text that starts with prefix (a pointer into text), or NULL. */
const char *tst_find_line(const char *text, const char *prefix);
/* How many lines of text start with prefix. */
size_t tst_count_lines(const char *text, const char *prefix);

/*
 * The path of the directory a process of executable exe (its basename) and
 * pid profiled on this host writes into it->data, as the preload names it
 * (preload/outdir.h: EXE@HOST.PID), into out (TST_PATH_MAX bytes).
 */
void tst_process_dir(const struct tst_it *it, const char *exe, int pid, char *out);

/*
 * The path of proc's file what ("thread-<tid>.log", "wall.log", "vdso.so"),
 * as the run holds it: beside its log at the root (<P>.<what>), or in its
 * directory in runs of the older layout (<P>/<what>). Into out (size bytes).
 */
struct pa_process;
void tst_process_file(const struct pa_process *proc, const char *what, char *out, size_t size);

/* The bytes proc's files hold (its log, thread logs, wall log, vDSO copy), in either layout. */
unsigned long long tst_process_bytes(const struct pa_process *proc);

/* Load it->data; there must be no error. Free with pa_run_free. */
struct pa_run *tst_load(const struct tst_it *it);
/* Profile of one process (pid 0: all) and thread (tid 0: all), event 0. */
struct pa_profile *tst_profile(const struct pa_run *run, uint32_t pid,
				 uint32_t tid);
/* Self samples of the function named name, 0 if it has none. */
uint64_t tst_self(const struct pa_profile *prof, const char *name);
/* Samples whose folded stack ends with ";suffix" (or is suffix). */
uint64_t tst_stack_count(const struct pa_profile *prof, const char *suffix);
/* The sampling period of the run's first event, in seconds. */
double tst_period_s(const struct pa_process *proc);
/*
 * The overflows of thread t that filter f keeps, as seconds of the first
 * event's period: its samples with those the profiler throttled or lost,
 * every overflow the kernel delivered. cov is pa_coverage_thread's for t.
 */
double tst_overflow_s(const struct pa_filter *f, const struct pa_process *p,
		      const struct pa_thread *t, const struct pa_coverage *cov);

/*
 * The overflows thread t's sample records stand for: the sum of their
 * counts (a late sample, written after its weight, stands for several),
 * to hold against t->samples_taken, the writer's count.
 */
uint64_t tst_samples_read(const struct pa_thread *t);

/*
 * CPU time the hypervisor has taken from this machine's CPUs so far (the
 * steal column of /proc/stat, all CPUs), in seconds. Take it before and after
 * a run: cpu-clock runs on perf's clock, which goes on while a vCPU is taken
 * away, the thread's CPU clock may not, and periods that expire while the vCPU
 * is away are skipped (hrtimer_forward), so samples stray from the CPU time a
 * workload measured by up to that much in either direction. 0 on a calm
 * machine, where bounds widened by it stay as tight as without.
 */
double tst_steal_s(void);

/*
 * fn(ctx, name, path, st) for each entry of directory dir but "." and
 * ".." (path: dir/name; st: its lstat); the test fails when dir cannot be
 * read or an entry cannot be lstat'd.
 */
struct stat;
void tst_dir_each(const char *dir,
		  void (*fn)(void *ctx, const char *name, const char *path,
			     const struct stat *st),
		  void *ctx);

/* Whether this machine can count hardware cycles in user space. */
bool tst_has_pmu(void);

/*
 * The wall samples of it.data off the CPU with func in the stack:
 * folded --event wall's counts under an [off-cpu: ...] leaf.
 */
uint64_t tst_wall_off(const struct tst_it *it, const char *func);

/* A "FUNCTION SECONDS" line of a workload's truth file; asserts it is there. */
double tst_truth(const char *path, const char *func);

#endif /* TST_H */
