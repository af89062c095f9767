/*
 * Samples taken inside dlopen (as MPI_Init loading its components, or a
 * program loading its plugins): their stacks go on through the loader to
 * the program's caller, instead of stopping at a root-level loader
 * function such as _dl_map_object_from_fd; and so do those taken while
 * the profiler scans the loaded objects after a dlopen.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tst_it.h"

/* Libraries dlmany loads: at 100 us, some hundreds of samples in the loader. */
#define IT_DLOPEN_LIBS "1000"
/* Samples in the loader below which the run says nothing (a loaded machine's luck). */
#define IT_DLOPEN_MIN_SAMPLES 10

static struct tst_it it_dlopen;

static void it_dlopen_init(void)
{
	tst_init(&it_dlopen);
}

static void it_dlopen_fini(void)
{
	tst_release(&it_dlopen);
}

TestSuite(it_dlopen, .init = it_dlopen_init, .fini = it_dlopen_fini, .timeout = 120);

/* Whether the folded stack text has the frame name. */
static bool it_dlopen_has_frame(const char *text, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = strstr(text, name); p; p = strstr(p + 1, name))
		if ((p == text || p[-1] == ';') && (p[len] == ';' || p[len] == '\0'))
			return true;
	return false;
}

/* Samples whose stack holds a frame: how many, how many reach the caller, and one that does not. */
struct it_dlopen_reach {
	uint64_t n, whole;
	char first_cut[512];
};

/*
 * prof's samples whose folded stack matches (has(text)), of which those
 * that hold every frame of callers (NULL-terminated).
 */
static struct it_dlopen_reach it_dlopen_reach(const struct pa_profile *prof,
					      bool (*has)(const char *text),
					      const char *const *callers)
{
	struct it_dlopen_reach c = { 0 };

	for (size_t i = 0; i < prof->nstacks; i++) {
		char *text = pa_stack_fold(&prof->stacks[i]);
		bool all = true;

		cr_assert(text);
		if (has(text)) {
			c.n += prof->stacks[i].count;
			for (size_t k = 0; callers[k]; k++)
				all = all && it_dlopen_has_frame(text, callers[k]);
			if (all)
				c.whole += prof->stacks[i].count;
			else if (!c.first_cut[0])
				snprintf(c.first_cut, sizeof(c.first_cut), "%s", text);
		}
		free(text);
	}
	return c;
}

/* dlopen's own work: mapping the file, which only dlopen does. */
static bool it_dlopen_in_loader(const char *text)
{
	return it_dlopen_has_frame(text, "_dl_map_object") ||
	       it_dlopen_has_frame(text, "_dl_map_object_from_fd");
}

/* The profiler's own scan of the loaded objects after each dlopen. */
static bool it_dlopen_in_scan(const char *text)
{
	return strstr(text, "pp_maps_") != NULL;
}

static bool it_dlopen_in_ctor(const char *text)
{
	return it_dlopen_has_frame(text, "burn_ctor");
}

Test(it_dlopen, samples_inside_dlopen_carry_the_callers_stack)
{
	char path[TST_PATH_MAX], libs[TST_PATH_MAX], config[TST_CONFIG_ENV_MAX];
	const char *argv[] = { path, IT_DLOPEN_LIBS, libs, NULL };
	const char *env[] = { it_dlopen.env_preload, it_dlopen.env_output, config, NULL };
	struct tst_result r;
	struct pa_run *run;
	static const char *const callers[] = { "dlmany_load", NULL };
	struct it_dlopen_reach loader, scan;
	struct pa_profile *prof;

	tst_build_path(path, "workloads/dlmany");
	snprintf(libs, sizeof(libs), "%s/libs", it_dlopen.tmp);
	cr_assert_eq(mkdir(libs, 0700), 0);
	tst_config_env(&it_dlopen, "fast.ini", "[sample cpu-clock]\nperiod = 100us\n", config);
	tst_run(&it_dlopen, "dlmany", argv, env, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "dlmany: status 0x%x: %s",
		  r.status, r.err);
	cr_assert(strncmp(r.out, "dlmany loaded " IT_DLOPEN_LIBS "\n",
			  strlen("dlmany loaded " IT_DLOPEN_LIBS "\n")) == 0, "stdout: %s", r.out);
	tst_result_release(&r);
	run = tst_load(&it_dlopen);
	prof = tst_profile(run, 0, 0);
	loader = it_dlopen_reach(prof, it_dlopen_in_loader, callers);
	scan = it_dlopen_reach(prof, it_dlopen_in_scan, callers);
	cr_assert(loader.n >= IT_DLOPEN_MIN_SAMPLES,
		  "%llu samples in the loader's _dl_map_object: too few to judge",
		  (unsigned long long)loader.n);
	cr_expect(loader.whole * 100 >= loader.n * 95,
		  "%llu of %llu samples in _dl_map_object reach dlmany_load (e.g. %s)",
		  (unsigned long long)loader.whole, (unsigned long long)loader.n, loader.first_cut);
	/*
	 * Samples taken while the profiler scans the loaded objects (in the
	 * thread that called dlopen, or any other) unwind with the copy in
	 * use: none is held to its leaf for the scan's sake.
	 */
	cr_expect(scan.whole * 100 >= scan.n * 95,
		  "%llu of %llu samples in the profiler's module scan reach dlmany_load (e.g. %s)",
		  (unsigned long long)scan.whole, (unsigned long long)scan.n, scan.first_cut);
	pa_profile_free(prof);
	pa_run_free(run);
}

/*
 * A library whose constructor does the work (libslowinit.so, 0.3 s of CPU
 * in burn_ctor), loaded by dlctor from dlctor_load: the constructor runs
 * inside dlopen, in an object the handler's snapshot does not list yet,
 * where an unwind stops; the stack dlopen was called from goes on below
 * it. Before: 0 of 300 samples in burn_ctor reached dlctor_load.
 */
Test(it_dlopen, samples_in_a_constructor_dlopen_runs_carry_the_callers_stack)
{
	char path[TST_PATH_MAX], lib[TST_PATH_MAX];
	const char *argv[] = { path, lib, NULL };
	const char *env[] = { it_dlopen.env_preload, it_dlopen.env_output, "SLOWINIT_SECONDS=0.3",
			      NULL };
	static const char *const callers[] = { "dlctor_load", "dlopen", NULL };
	struct it_dlopen_reach ctor;
	struct tst_result r;
	struct pa_run *run;
	struct pa_profile *prof;

	tst_build_path(path, "workloads/dlctor");
	tst_build_path(lib, "workloads/libslowinit.so");
	tst_run(&it_dlopen, "dlctor", argv, env, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "dlctor: status 0x%x: %s",
		  r.status, r.err);
	cr_expect_str_eq(r.out, "dlctor: loaded\n");
	tst_result_release(&r);
	run = tst_load(&it_dlopen);
	prof = tst_profile(run, 0, 0);
	ctor = it_dlopen_reach(prof, it_dlopen_in_ctor, callers);
	cr_assert(ctor.n >= IT_DLOPEN_MIN_SAMPLES,
		  "%llu samples in burn_ctor: too few to judge", (unsigned long long)ctor.n);
	cr_expect(ctor.whole * 100 >= ctor.n * 95,
		  "%llu of %llu samples in burn_ctor reach dlctor_load through dlopen (e.g. %s)",
		  (unsigned long long)ctor.whole, (unsigned long long)ctor.n, ctor.first_cut);
	pa_profile_free(prof);
	pa_run_free(run);
}

/*
 * A library dlopen'd from a memfd (by /proc/self/fd/N) has no path a
 * reader can open: its samples were [unknown], with no module and nothing
 * said. Now the module is recorded under the name its link gives
 * (/memfd:NAME (deleted)), and the analyzer says it cannot open it,
 * leaving its frames as that module's offsets.
 */
Test(it_dlopen, a_library_loaded_from_a_memfd_is_named_and_said)
{
	char lib[TST_PATH_MAX];
	const char *argv[] = { "workloads/memfdlib", lib, "0.2", NULL };
	struct tst_result r;

	tst_build_path(lib, "workloads/libburn.so");
	tst_run_profiled(&it_dlopen, "memfdlib", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%#x: %s", r.status, r.err);
	cr_expect_str_eq(r.out, "memfdlib: done\n");
	tst_result_release(&r);
	tst_run(&it_dlopen, "top", (const char *[]){ "pprof-analyze", "top", it_dlopen.data, NULL },
		NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	cr_expect(strstr(r.err, "/memfd:burnlib (deleted): cannot open"), "%s", r.err);
	cr_expect(strstr(r.out, " memfd:burnlib (deleted)+0x"), "%s", r.out);
	tst_result_release(&r);
}

/*
 * A library loaded in a namespace of its own (dlmopen LM_ID_NEWLM), which
 * dl_iterate_phdr does not list: its samples were [unknown], one frame
 * each, nothing said. Now its module is recorded and its stacks unwind:
 * burn_gamma (libburn.so) under dlmopener_call and main.
 */
Test(it_dlopen, a_library_in_a_namespace_of_its_own_is_named_with_its_callers)
{
	char lib[TST_PATH_MAX];
	const char *argv[] = { "workloads/dlmopener", lib, "0.3", NULL };
	struct tst_result r;
	struct pa_profile *p;
	struct pa_run *run;
	uint64_t named, whole;

	tst_build_path(lib, "workloads/libburn.so");
	tst_run_profiled(&it_dlopen, "dlmopener", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%#x: %s", r.status, r.err);
	cr_expect_str_eq(r.out, "dlmopener: done\n");
	tst_result_release(&r);
	run = tst_load(&it_dlopen);
	p = tst_profile(run, 0, 0);
	named = tst_self(p, "burn_gamma");
	whole = tst_stack_count(p, "main;dlmopener_call;burn_gamma");
	/* A sixth of 0.3 s at 1 ms: throttled samples on a busy machine. */
	cr_expect_geq(named, 50, "%llu samples in burn_gamma, %llu [unknown]",
		      (unsigned long long)named, (unsigned long long)tst_self(p, "[unknown]"));
	cr_expect_geq(whole, named * 9 / 10, "%llu of %llu with their callers",
		      (unsigned long long)whole, (unsigned long long)named);
	pa_profile_free(p);
	pa_run_free(run);
}
