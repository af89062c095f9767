/*
 * Integration: the vDSO's image is written once per run, at the output
 * root, named by its build-id, however many processes start at once; each
 * process's module map points at it; reports name the code in it as one
 * module, "[vdso]", across processes; a name at the root that something
 * else holds is left alone.
 */
#include <criterion/criterion.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tst_it.h"
#include "tst_log.h"

static struct tst_it it_vd;

static void it_vd_init(void)
{
	tst_init(&it_vd);
}

static void it_vd_fini(void)
{
	tst_release(&it_vd);
}

TestSuite(it_vdso, .init = it_vd_init, .fini = it_vd_fini, .timeout = 120);

/* What the output root holds, besides the process directories. */
struct it_vd_root {
	size_t images;     /* regular files named vdso.*.so */
	char image[256];   /* the last one's name */
	size_t hidden;     /* names starting with '.' (a temporary left behind) */
	size_t copies;     /* processes' copies of their own: <name>.vdso.so (or a
			      process directory's vdso.so, in older runs) */
	size_t processes;  /* process logs, and process directories */
};

static bool it_vd_ends(const char *name, const char *tail)
{
	size_t n = strlen(name), t = strlen(tail);

	return n > t && strcmp(name + n - t, tail) == 0;
}

static void it_vd_entry(void *ctx, const char *name, const char *path, const struct stat *st)
{
	struct it_vd_root *out = ctx;
	char copy[TST_PATH_MAX + 600];
	struct stat cst;

	if (name[0] == '.') {
		out->hidden++;
	} else if (S_ISDIR(st->st_mode)) {
		out->processes++;
		snprintf(copy, sizeof(copy), "%s/vdso.so", path);
		out->copies += lstat(copy, &cst) == 0;
	} else if (S_ISREG(st->st_mode) && it_vd_ends(name, ".log")) {
		/* A process's log, or one of its threads' or its wall log beside it. */
		out->processes += !strstr(name, ".thread-") && !it_vd_ends(name, ".wall.log");
	} else if (S_ISREG(st->st_mode) && it_vd_ends(name, "." PPF_VDSO_COPY)) {
		out->copies++;
	} else if (S_ISREG(st->st_mode) && !strncmp(name, "vdso.", 5) && it_vd_ends(name, ".so")) {
		out->images++;
		snprintf(out->image, sizeof(out->image), "%s", name);
	}
}

static void it_vd_scan(const char *root, struct it_vd_root *out)
{
	memset(out, 0, sizeof(*out));
	tst_dir_each(root, it_vd_entry, out);
}

/*
 * The run's root holds processes or more process directories, one image
 * of the vDSO, no copy in a process directory and no temporary file.
 */
static void it_vd_one_image(struct it_vd_root *root, size_t processes)
{
	it_vd_scan(it_vd.data, root);
	cr_assert_geq(root->processes, processes, "%zu processes", root->processes);
	cr_assert_eq(root->images, 1, "%zu vDSO images at the root", root->images);
	cr_assert_eq(root->copies, 0, "%zu processes keep a copy of their own", root->copies);
	cr_assert_eq(root->hidden, 0, "%zu temporary files left at the root", root->hidden);
}

/* This process's vDSO image (the kernel's, the same in every process here). */
static const void *it_vd_image(size_t *size)
{
	const ElfW(Ehdr) *eh = (const void *)getauxval(AT_SYSINFO_EHDR);

	cr_assert(eh, "no vDSO here");
	*size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	return eh;
}

/* The name the image has at the root: "vdso.<build-id in hex>.so". */
static void it_vd_image_name(char *name, size_t size)
{
	struct tst_log_self self;
	size_t n;

	tst_log_self_module((const void *)getauxval(AT_SYSINFO_EHDR), &self);
	cr_assert_gt(self.build_id_len, 0, "this machine's vDSO has no build-id");
	n = (size_t)snprintf(name, size, "vdso.");
	for (uint32_t i = 0; i < self.build_id_len; i++)
		n += (size_t)snprintf(name + n, size - n, "%02x", self.build_id[i]);
	snprintf(name + n, size - n, ".so");
}

/*
 * Every process of the run records the vDSO as a module whose path is
 * image at the root.
 */
static void it_vd_modules_point_at(const struct pa_run *run, const char *image)
{
	char want[TST_PATH_MAX + 300];

	snprintf(want, sizeof(want), "%s/%s", it_vd.data, image);
	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_process *p = run->processes[i];
		size_t found = 0;

		for (size_t m = 0; m < p->nmodules; m++)
			found += strcmp(p->modules[m].path, want) == 0;
		cr_assert_eq(found, 1, "process %u (%s) records %zu modules at %s", p->pid,
			     p->exe ? p->exe : "?", found, want);
	}
}

/*
 * A shell runs two clockloops, one in the background: four processes (the
 * shell, its fork, the two clockloops) and one image at the root, none in
 * the process directories. `top` over the run shows the vDSO's
 * clock_gettime once, as "[vdso]", holding what the workload spends there.
 */
Test(it_vdso, processes_of_a_run_share_one_image_at_the_root)
{
	char clockloop[TST_PATH_MAX], script[3 * TST_PATH_MAX], image[256];
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	const char *top[] = { "pprof-analyze", "top", it_vd.data, NULL };
	struct it_vd_root root;
	struct tst_result r, rep;
	struct pa_profile *p;
	struct pa_run *run;
	uint64_t in_vdso = 0;
	size_t vdso_funcs = 0;

	tst_skip_under_asan("libasan.so intercepts clock_gettime: the time the test "
			    "expects in the vDSO goes partly to the interceptor");
	tst_build_path(clockloop, "workloads/clockloop");
	snprintf(script, sizeof(script), "'%s' 0.3 & '%s' 0.3; wait", clockloop, clockloop);
	tst_run_profiled(&it_vd, "two", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	cr_assert_str_eq(r.out, "done\ndone\n");

	it_vd_one_image(&root, 3);
	it_vd_image_name(image, sizeof(image));
	cr_assert_str_eq(root.image, image);

	run = tst_load(&it_vd);
	it_vd_modules_point_at(run, image);
	p = tst_profile(run, 0, 0);
	for (size_t i = 0; i < p->nfuncs; i++) {
		const char *m = p->funcs[i].module, *base = m ? strrchr(m, '/') : NULL;

		/* "[vdso]", or a path naming an image or a copy of the vDSO */
		if (!m || !strstr(base ? base : m, "vdso"))
			continue;
		cr_assert_str_eq(p->funcs[i].module, "[vdso]");
		cr_assert(strstr(p->funcs[i].name, "clock_gettime"), "%s", p->funcs[i].name);
		in_vdso += p->funcs[i].self;
		vdso_funcs++;
	}
	cr_assert_eq(vdso_funcs, 1, "the vDSO's clock_gettime is %zu functions", vdso_funcs);
	cr_assert_geq(in_vdso, p->samples / 5, "%llu of %llu samples in the vDSO",
		      (unsigned long long)in_vdso, (unsigned long long)p->samples);

	tst_run(&it_vd, "top", top, NULL, &rep);
	cr_assert(WIFEXITED(rep.status) && WEXITSTATUS(rep.status) == 0, "%s", rep.err);
	cr_assert(strstr(rep.out, "clock_gettime ([vdso])"), "%s", rep.out);
	cr_assert_eq(strstr(strstr(rep.out, "([vdso])") + 1, "([vdso])"), NULL, "%s", rep.out);
	pa_profile_free(p);
	pa_run_free(run);
	tst_result_release(&rep);
	tst_result_release(&r);
}

/*
 * Twenty processes started at once, each writing the image when it starts:
 * the root holds one, whole (the bytes of the vDSO), and no temporary file;
 * every process's module map points at it.
 */
Test(it_vdso, processes_started_at_once_leave_one_whole_image)
{
	const char *argv[] = { "/bin/sh", "-c",
			       "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; "
			       "do /bin/true & done; wait", NULL };
	char path[TST_PATH_MAX + 300];
	struct it_vd_root root;
	struct tst_result r;
	struct pa_run *run;
	const void *image;
	size_t size, len;
	char *data;

	tst_run_profiled(&it_vd, "many", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	it_vd_one_image(&root, 21);
	image = it_vd_image(&size);
	snprintf(path, sizeof(path), "%s/%s", it_vd.data, root.image);
	data = tst_slurp(path, &len);
	cr_assert_eq(len, size);
	cr_assert_eq(memcmp(data, image, size), 0, "%s is not this machine's vDSO", path);
	run = tst_load(&it_vd);
	cr_assert_eq(run->nprocesses, root.processes);
	it_vd_modules_point_at(run, root.image);
	pa_run_free(run);
	free(data);
	tst_result_release(&r);
}

/*
 * The image's name at the root is taken by a symbolic link (to a file that
 * does not exist): the profiler neither follows nor replaces it; the
 * process keeps a copy of its own beside its log (<name>.vdso.so), and its
 * vDSO is named as before.
 */
Test(it_vdso, a_name_taken_at_the_root_is_left_alone)
{
	const char *argv[] = { "workloads/clockloop", "0.2", NULL };
	char image[256], link[TST_PATH_MAX + 300], target[TST_PATH_MAX + 32];
	struct it_vd_root root;
	struct tst_result r;
	struct pa_profile *p;
	struct pa_run *run;
	struct stat st;
	uint64_t named = 0;

	tst_skip_under_asan("libasan.so intercepts clock_gettime: the time the test "
			    "expects in the vDSO goes partly to the interceptor");
	it_vd_image_name(image, sizeof(image));
	cr_assert_eq(mkdir(it_vd.data, 0700), 0);
	snprintf(link, sizeof(link), "%s/%s", it_vd.data, image);
	snprintf(target, sizeof(target), "%s/target", it_vd.tmp);
	cr_assert_eq(symlink(target, link), 0);
	tst_run_profiled(&it_vd, "taken", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	cr_assert_null(strstr(r.err, "libpprof:"), "%s", r.err);
	cr_assert_neq(lstat(target, &st), 0, "the profiler wrote through the link");
	cr_assert_eq(lstat(link, &st), 0);
	cr_assert(S_ISLNK(st.st_mode), "the link was replaced");
	it_vd_scan(it_vd.data, &root);
	cr_assert_eq(root.copies, 1, "%zu processes keep a copy", root.copies);
	cr_assert_eq(root.hidden, 0, "%zu temporary files left at the root", root.hidden);
	run = tst_load(&it_vd);
	p = tst_profile(run, 0, 0);
	for (size_t i = 0; i < p->nfuncs; i++)
		if (p->funcs[i].module && !strcmp(p->funcs[i].module, "[vdso]") &&
		    strstr(p->funcs[i].name, "clock_gettime"))
			named += p->funcs[i].self;
	cr_assert_geq(named, p->samples / 5, "%llu of %llu samples in the vDSO's clock_gettime",
		      (unsigned long long)named, (unsigned long long)p->samples);
	pa_profile_free(p);
	pa_run_free(run);
	tst_result_release(&r);
}
