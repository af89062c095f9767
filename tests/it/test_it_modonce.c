/*
 * Integration: a module's record (its path, build-id and extent) is written
 * once per run, at the output root, named by the hash of the file
 * (format.h, PPF_REC_MODULE_REF); each process that loads it names it
 * there with where it is in that process. Two processes sharing a library
 * write it once, and the analyzer's reports on the run name its functions
 * in both; twenty processes starting at once leave one whole file per
 * module and no temporary; a process killed while it writes them leaves
 * no file that is not whole.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "tst_it.h"
#include "tst_log.h"

static struct tst_it it_mo;

static void it_mo_init(void)
{
	tst_init(&it_mo);
}

static void it_mo_fini(void)
{
	tst_release(&it_mo);
}

TestSuite(it_modonce, .init = it_mo_init, .fini = it_mo_fini, .timeout = 120);

/* The module files at the root: how many, and how many record a path ending in base. */
struct it_mo_root {
	size_t files;   /* regular files named module.* */
	size_t named;   /* of them, the ones whose module's path ends in /base */
	char key[300];  /* the last such file's name */
	size_t hidden;  /* names starting with '.' (a temporary left behind) */
	const char *base;
};

/* The path a module file's one PPF_REC_MODULE records, checked to be one. */
static void it_mo_file_path(const char *path, char *out, size_t size)
{
	struct ppf_file_header h;
	struct ppf_module m;
	size_t len;
	char *data = tst_slurp(path, &len);

	cr_assert_geq(len, sizeof(h) + sizeof(m), "%s: %zu bytes", path, len);
	memcpy(&h, data, sizeof(h));
	cr_assert_eq(memcmp(h.magic, PPF_MAGIC, PPF_MAGIC_LEN), 0, "%s", path);
	cr_assert_eq(h.kind, PPF_FILE_SHARED, "%s: file kind %u", path, h.kind);
	memcpy(&m, data + h.header_size, sizeof(m));
	cr_assert_eq(m.h.type, PPF_REC_MODULE, "%s: record type %u", path, m.h.type);
	cr_assert_eq(h.header_size + m.h.size, len, "%s: more than one record", path);
	cr_assert_gt(m.build_id_len, 0, "%s: a module without a build-id", path);
	cr_assert_lt(m.start, m.end);
	snprintf(out, size, "%s", data + h.header_size + sizeof(m));
	free(data);
}

static void it_mo_entry(void *ctx, const char *name, const char *path, const struct stat *st)
{
	struct it_mo_root *out = ctx;
	char mpath[TST_PATH_MAX];
	const char *slash;

	if (name[0] == '.') {
		out->hidden++;
		return;
	}
	if (!S_ISREG(st->st_mode) || strncmp(name, PPF_MODULE_FILE_PREFIX,
					     strlen(PPF_MODULE_FILE_PREFIX)) != 0)
		return;
	out->files++;
	it_mo_file_path(path, mpath, sizeof(mpath));
	slash = strrchr(mpath, '/');
	if (slash && !strcmp(slash + 1, out->base)) {
		out->named++;
		snprintf(out->key, sizeof(out->key), "%s", name);
	}
}

static void it_mo_scan(const char *root, const char *base, struct it_mo_root *out)
{
	memset(out, 0, sizeof(*out));
	out->base = base;
	tst_dir_each(root, it_mo_entry, out);
}

/* Self samples of functions named name whose module's path ends in /base in pid's profile. */
static uint64_t it_mo_self(const struct pa_run *run, uint32_t pid, const char *name,
			   const char *base)
{
	struct pa_profile *p = tst_profile(run, pid, 0);
	uint64_t n = 0;

	for (size_t i = 0; i < p->nfuncs; i++) {
		const char *m = p->funcs[i].module, *slash = m ? strrchr(m, '/') : NULL;

		if (!strcmp(p->funcs[i].name, name) && slash && !strcmp(slash + 1, base))
			n += p->funcs[i].self;
	}
	pa_profile_free(p);
	return n;
}

/*
 * Two demos at once from a shell, sharing libburn.so (and libc, ld.so,
 * libpprof...): the root holds libburn.so's record once, neither demo's
 * process log holds a module record of its own for it, and both name it
 * by reference (and their event's record likewise); the analyzer names burn_gamma in libburn.so in each
 * demo's profile, and `top` over the run names it once.
 */
Test(it_modonce, two_processes_sharing_a_library_write_it_once)
{
	char demo[TST_PATH_MAX], script[3 * TST_PATH_MAX];
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	const char *top[] = { "pprof-analyze", "top", it_mo.data, NULL };
	struct it_mo_root root;
	struct tst_result r, rep;
	struct pa_run *run;
	size_t demos = 0;

	tst_build_path(demo, "workloads/demo");
	snprintf(script, sizeof(script), "'%s' 0.3 > /dev/null & '%s' 0.3 > /dev/null; wait",
		 demo, demo);
	tst_run_profiled(&it_mo, "two", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);

	it_mo_scan(it_mo.data, "libburn.so", &root);
	cr_assert_eq(root.named, 1, "libburn.so's record is in %zu files at the root "
		     "(of %zu module files)", root.named, root.files);
	cr_assert_eq(root.hidden, 0, "%zu temporary files left at the root", root.hidden);

	run = tst_load(&it_mo);
	for (size_t i = 0; i < run->warnings.n; i++)
		cr_expect_null(strstr(run->warnings.v[i].reason, "module"), "%s: %s",
			       run->warnings.v[i].path, run->warnings.v[i].reason);
	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_process *p = run->processes[i];
		const char *slash = p->exe ? strrchr(p->exe, '/') : NULL;
		char log[TST_PATH_MAX + 300];

		if (!slash || strcmp(slash + 1, "demo") != 0)
			continue;
		demos++;
		snprintf(log, sizeof(log), "%s", p->path);
		/* libburn.so, libc, ld.so, libpprof... each by reference, none whole */
		cr_expect_geq(tst_log_count(log, PPF_REC_MODULE_REF), 4, "%s", log);
		cr_expect_eq(tst_log_count(log, PPF_REC_MODULE), 0, "%s", log);
		/* the event's description likewise */
		cr_expect_eq(tst_log_count(log, PPF_REC_EVENT_REF), 1, "%s", log);
		cr_expect_eq(tst_log_count(log, PPF_REC_EVENT), 0, "%s", log);
		cr_expect_eq(p->nevents, 1);
		cr_expect_str_eq(p->events[0].name, "cpu-clock");
		cr_expect_gt(it_mo_self(run, p->pid, "burn_gamma", "libburn.so"), 20,
			     "demo %u: burn_gamma in libburn.so not named", p->pid);
	}
	cr_assert_eq(demos, 2, "%zu demo processes", demos);

	tst_run(&it_mo, "top", top, NULL, &rep);
	cr_assert(WIFEXITED(rep.status) && WEXITSTATUS(rep.status) == 0, "%s", rep.err);
	cr_assert(strstr(rep.out, "burn_gamma (libburn.so)"), "%s", rep.out);
	cr_assert_null(strstr(strstr(rep.out, "burn_gamma (libburn.so)") + 1,
			      "burn_gamma (libburn.so)"), "%s", rep.out);
	pa_run_free(run);
	tst_result_release(&rep);
	tst_result_release(&r);
}

/*
 * Twenty processes started at once, each writing the records of the same
 * modules as it starts: one file each at the root, whole (the reader
 * checks each against its name), no temporary; every process reads with
 * its modules named.
 */
Test(it_modonce, processes_started_at_once_leave_one_whole_file_a_module)
{
	const char *argv[] = { "/bin/sh", "-c",
			       "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; "
			       "do /bin/true & done; wait", NULL };
	struct it_mo_root root;
	struct tst_result r;
	struct pa_run *run;

	tst_run_profiled(&it_mo, "many", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	it_mo_scan(it_mo.data, "libpprof.so", &root);
	cr_assert_eq(root.named, 1, "libpprof.so's record is in %zu files", root.named);
	cr_assert_eq(root.hidden, 0, "%zu temporary files left at the root", root.hidden);
	run = tst_load(&it_mo);
	cr_assert_geq(run->nprocesses, 21);
	for (size_t i = 0; i < run->warnings.n; i++)
		cr_expect_null(strstr(run->warnings.v[i].reason, "module"), "%s: %s",
			       run->warnings.v[i].path, run->warnings.v[i].reason);
	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_process *p = run->processes[i];
		size_t found = 0;

		for (size_t m = 0; m < p->nmodules; m++) {
			const char *slash = strrchr(p->modules[m].path, '/');

			found += slash && !strcmp(slash + 1, "libpprof.so") &&
				 p->modules[m].start < p->modules[m].end &&
				 p->modules[m].build_id_len > 0;
		}
		cr_expect_eq(found, 1, "process %u (%s) has libpprof.so %zu times", p->pid,
			     p->exe ? p->exe : "?", found);
	}
	pa_run_free(run);
	tst_result_release(&r);
}

/* Whether dir/name's content hashes to the key its name gives (format.h). */
static bool it_mo_whole(const char *dir, const char *name)
{
	char path[TST_PATH_MAX + 512], hex[2 * PPF_MODULE_KEY_LEN + 1];
	XXH128_canonical_t sum;
	size_t len;
	char *data;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	data = tst_slurp(path, &len);
	XXH128_canonicalFromHash(&sum, XXH3_128bits(data, len));
	for (unsigned i = 0; i < PPF_MODULE_KEY_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", sum.digest[i]);
	free(data);
	return strcmp(name + strlen(PPF_MODULE_FILE_PREFIX), hex) == 0;
}

/*
 * A process killed at random moments of its start (SIGKILL, 0-4 ms after
 * its spawn at first), while it writes its modules' files at a fresh root:
 * every module file at the root is whole (what its name says), whatever
 * the moment; a killed writer leaves at most a temporary name starting
 * with '.', which the analyzer does not read. On a busy machine a start
 * takes longer: until a round gets as far as a module file, each round
 * widens the moments by half (to 2 s at most), and rounds go on (up to
 * 300) until 30 ran and one got that far.
 */
Test(it_modonce, killed_while_writing_leaves_no_partial_file)
{
	const unsigned rounds = 30, max_rounds = 300;
	char demo[TST_PATH_MAX];
	size_t files = 0, temps = 0;
	unsigned window_us = 4000, r;
	struct timespec seed;

	tst_build_path(demo, "workloads/demo");
	clock_gettime(CLOCK_MONOTONIC, &seed);
	srand((unsigned)seed.tv_nsec);
	for (r = 0; r < max_rounds && (r < rounds || files == 0); r++) {
		char root[TST_PATH_MAX + 32], output[TST_PATH_MAX + 64];
		char *const argv[] = { demo, "0.2", NULL };
		char *envp[] = { it_mo.env_preload, output, NULL };
		struct dirent *e;
		int status;
		pid_t pid;
		DIR *d;

		snprintf(root, sizeof(root), "%s/k%u", it_mo.tmp, r);
		snprintf(output, sizeof(output), "PPROF_OUTPUT=%s", root);
		cr_assert_eq(posix_spawn(&pid, demo, NULL, NULL, argv, envp), 0);
		usleep((useconds_t)(rand() % window_us));
		kill(pid, SIGKILL);
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		d = opendir(root);
		if (!d) { /* killed before the root was made */
			window_us = !files && window_us < 2000000 ? window_us * 3 / 2 : window_us;
			continue;
		}
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.' && strstr(e->d_name, PPF_MODULE_FILE_PREFIX)) {
				temps++;
				continue;
			}
			if (strncmp(e->d_name, PPF_MODULE_FILE_PREFIX,
				    strlen(PPF_MODULE_FILE_PREFIX)) != 0)
				continue;
			files++;
			cr_expect(it_mo_whole(root, e->d_name), "round %u: %s/%s is not whole", r,
				  root, e->d_name);
		}
		closedir(d);
		if (!files && window_us < 2000000)
			window_us = window_us * 3 / 2;
	}
	cr_log_info("%u rounds: %zu module files, %zu temporaries left by killed writers "
		    "(kills up to %u us after the spawn)", r, files, temps, window_us);
	cr_expect_gt(files, 0, "no round of %u got as far as writing a module file (kills up "
		     "to %u us after the spawn)", r, window_us);
}
