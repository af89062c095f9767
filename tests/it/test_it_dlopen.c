/*
 * Samples taken inside dlopen (as MPI_Init loading its components, or a
 * program loading its plugins): their stacks go on through the loader to
 * the program's caller, instead of stopping at a root-level loader
 * function such as _dl_map_object_from_fd; and so do those taken while
 * the profiler scans the loaded objects after a dlopen.
 */
#include <criterion/criterion.h>
#include <stdio.h>
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

Test(it_dlopen, samples_inside_dlopen_carry_the_callers_stack)
{
	char path[TST_PATH_MAX], libs[TST_PATH_MAX], config[TST_CONFIG_ENV_MAX];
	const char *argv[] = { path, IT_DLOPEN_LIBS, libs, NULL };
	const char *env[] = { it_dlopen.env_preload, it_dlopen.env_output, config, NULL };
	struct tst_result r;
	struct pa_run *run;
	struct pa_profile *prof;
	uint64_t loader = 0, whole = 0, scan = 0, scan_whole = 0;
	char first_cut[512] = "", first_scan_cut[512] = "";

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
	for (size_t i = 0; i < prof->nstacks; i++) {
		char *text = pa_stack_fold(&prof->stacks[i]);

		cr_assert(text);
		/* dlopen's own work: mapping the file, which only dlopen does. */
		if (it_dlopen_has_frame(text, "_dl_map_object") ||
		    it_dlopen_has_frame(text, "_dl_map_object_from_fd")) {
			loader += prof->stacks[i].count;
			if (it_dlopen_has_frame(text, "dlmany_load"))
				whole += prof->stacks[i].count;
			else if (!first_cut[0])
				snprintf(first_cut, sizeof(first_cut), "%s", text);
		}
		/* The profiler's own scan of the loaded objects after each dlopen. */
		if (strstr(text, "pp_maps_")) {
			scan += prof->stacks[i].count;
			if (it_dlopen_has_frame(text, "dlmany_load"))
				scan_whole += prof->stacks[i].count;
			else if (!first_scan_cut[0])
				snprintf(first_scan_cut, sizeof(first_scan_cut), "%s", text);
		}
		free(text);
	}
	cr_assert(loader >= IT_DLOPEN_MIN_SAMPLES,
		  "%llu samples in the loader's _dl_map_object: too few to judge",
		  (unsigned long long)loader);
	cr_expect(whole * 100 >= loader * 95,
		  "%llu of %llu samples in _dl_map_object reach dlmany_load (e.g. %s)",
		  (unsigned long long)whole, (unsigned long long)loader, first_cut);
	/*
	 * Samples taken while the profiler scans the loaded objects (in the
	 * thread that called dlopen, or any other) unwind with the copy in
	 * use: none is held to its leaf for the scan's sake.
	 */
	cr_expect(scan_whole * 100 >= scan * 95,
		  "%llu of %llu samples in the profiler's module scan reach dlmany_load (e.g. %s)",
		  (unsigned long long)scan_whole, (unsigned long long)scan, first_scan_cut);
	pa_profile_free(prof);
	pa_run_free(run);
}
