/*
 * Tests of the pprof report (analyze/report_pprof.c) on the "profile" run
 * (tst_run.h): its gzip'd profile.proto, inflated with zlib and decoded
 * with the unpacker protoc-c generates (build/gen/profile.pb-c.h), holds
 * the run's samples, their labels, locations, functions and mappings.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile.pb-c.h"
#include "report.h"
#include "runs.h"
#include "symbols.h"
#include "tst_run.h"

TestSuite(report_pprof, .init = tst_prof_setup, .fini = tst_prof_teardown, .timeout = 30);

static const char *pp_str(const Perftools__Profiles__Profile *p, int64_t i)
{
	cr_assert(i >= 0 && (size_t)i < p->n_string_table, "string %ld of %zu", (long)i,
		  p->n_string_table);
	return p->string_table[i];
}

static const Perftools__Profiles__Location *pp_location(const Perftools__Profiles__Profile *p,
							uint64_t id)
{
	for (size_t i = 0; i < p->n_location; i++)
		if (p->location[i]->id == id)
			return p->location[i];
	cr_assert_fail("no location %lu", (unsigned long)id);
	return NULL;
}

static const Perftools__Profiles__Function *pp_function(const Perftools__Profiles__Profile *p,
							uint64_t id)
{
	for (size_t i = 0; i < p->n_function; i++)
		if (p->function[i]->id == id)
			return p->function[i];
	cr_assert_fail("no function %lu", (unsigned long)id);
	return NULL;
}

/* "TYPE/UNIT" of each sample type, then "period TYPE/UNIT N". */
static void pp_types(FILE *out, const Perftools__Profiles__Profile *p)
{
	for (size_t i = 0; i < p->n_sample_type; i++)
		fprintf(out, "%s/%s ", pp_str(p, p->sample_type[i]->type),
			pp_str(p, p->sample_type[i]->unit));
	fprintf(out, "period %s/%s %ld", pp_str(p, p->period_type->type),
		pp_str(p, p->period_type->unit), (long)p->period);
}

/* One line per sample: its labels, its values, its functions root first. */
static void pp_samples(FILE *out, const Perftools__Profiles__Profile *p)
{
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		const char *sep = "";

		for (size_t k = 0; k < s->n_label; k++) {
			const Perftools__Profiles__Label *l = s->label[k];

			fprintf(out, "%s=", pp_str(p, l->key));
			if (l->str)
				fprintf(out, "%s ", pp_str(p, l->str));
			else
				fprintf(out, "%ld ", (long)l->num);
		}
		for (size_t k = 0; k < s->n_value; k++)
			fprintf(out, "%ld ", (long)s->value[k]);
		for (size_t k = s->n_location_id; k-- > 0;) {
			const Perftools__Profiles__Location *loc = pp_location(p, s->location_id[k]);

			for (size_t n = loc->n_line; n-- > 0;) {
				fprintf(out, "%s%s", sep, pp_str(p, pp_function(p,
						loc->line[n]->function_id)->name));
				sep = ";";
			}
		}
		fputc('\n', out);
	}
}

/* What pp_types or pp_samples writes of p, malloc'd. */
static char *pp_text(const Perftools__Profiles__Profile *p,
		     void (*what)(FILE *, const Perftools__Profiles__Profile *))
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	cr_assert(out);
	what(out, p);
	cr_assert_eq(fclose(out), 0);
	return text;
}

#define PP_MAIN "pa_proftest_main"

/* cpu-clock at 1 ms: samples/count and cpu/nanoseconds, one sample per thread and stack. */
Test(report_pprof, samples_per_thread_and_stack_with_labels)
{
	Perftools__Profiles__Profile *p = tst_pprof_decode(tst_prof_run, NULL);
	char *types = pp_text(p, pp_types), *samples = pp_text(p, pp_samples);

	cr_expect_str_eq(pp_str(p, 0), "", "string_table[0] is \"\"");
	cr_expect_str_eq(types, "samples/count cpu/nanoseconds period cpu/nanoseconds 1000000");
	cr_expect_str_eq(samples,
		"pid=10 tid=10 thread=main 3 3000000 " PP_MAIN ";pa_proftest_mid;pa_proftest_leaf\n"
		"pid=10 tid=10 thread=main 1 1000000 " PP_MAIN ";pa_proftest_mid\n"
		"pid=10 tid=10 thread=main 2 2000000 " PP_MAIN
		";pa_proftest_rec;pa_proftest_rec;pa_proftest_rec\n"
		"pid=10 tid=11 thread=worker 4 4000000 " PP_MAIN ";pa_proftest_leaf\n"
		"pid=20 tid=20 thread=main 5 5000000 " PP_MAIN ";pa_proftest_mid\n");
	cr_expect_eq(p->duration_nanos, 4, "from the first start to the last sample");
	free(types);
	free(samples);
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/* A fixed-period event that is not time: EVENT/count beside samples/count. */
Test(report_pprof, other_event_counts_its_own_unit)
{
	Perftools__Profiles__Profile *p = tst_pprof_decode(tst_prof_run, "page-faults");
	char *types = pp_text(p, pp_types), *samples = pp_text(p, pp_samples);

	cr_expect_str_eq(types, "samples/count page-faults/count period page-faults/count 1");
	cr_expect_str_eq(samples, "pid=10 tid=11 thread=worker 1 1 " PP_MAIN
			 ";pa_proftest_leaf\n");
	free(types);
	free(samples);
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/*
 * Every location is in a mapping of this test binary, which says it needs
 * no symbolising; every function has its source file and start line, and
 * every line is in its function. Mappings and locations are per file, in
 * the file's own addresses (runtime - bias): both processes map the test
 * binary, so one mapping; locations per file address (leaf or caller): 6
 * in process 10, whose 2 in process 20 are among them; functions 4.
 */
Test(report_pprof, locations_have_mappings_functions_and_lines)
{
	Perftools__Profiles__Profile *p = tst_pprof_decode(tst_prof_run, NULL);
	struct tst_log_self self;
	char build_id[2 * PPF_BUILD_ID_MAX + 1] = "";

	tst_log_self_module((const void *)pa_proftest_main, &self);
	for (uint32_t b = 0; b < self.build_id_len; b++)
		snprintf(build_id + 2 * b, 3, "%02x", self.build_id[b]);
	cr_expect_eq(p->n_location, 6);
	cr_expect_eq(p->n_function, 4);
	cr_assert_eq(p->n_mapping, 1);
	for (size_t i = 0; i < p->n_mapping; i++) {
		const Perftools__Profiles__Mapping *m = p->mapping[i];

		cr_expect_str_eq(pp_str(p, m->filename), self.path);
		cr_expect_str_eq(pp_str(p, m->build_id), build_id);
		cr_expect(m->memory_start == self.start - self.bias &&
			  m->memory_limit == self.end - self.bias);
		cr_expect(m->has_functions && m->has_filenames && m->has_line_numbers &&
			  m->has_inline_frames);
	}
	for (size_t i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *loc = p->location[i];

		cr_assert_eq(loc->mapping_id, 1);
		cr_expect(loc->address >= self.start - self.bias &&
			  loc->address < self.end - self.bias);
		cr_assert_eq(loc->n_line, 1, "no inline levels at these addresses");
		for (size_t n = 0; n < loc->n_line; n++) {
			const Perftools__Profiles__Function *fn =
				pp_function(p, loc->line[n]->function_id);
			const char *file = pp_str(p, fn->filename);

			cr_expect(strlen(file) > 20 &&
				  strcmp(file + strlen(file) - 20, "/tests/lib/tst_run.c") == 0,
				  "%s", file);
			cr_expect_gt(fn->start_line, 0);
			cr_expect_geq(loc->line[n]->line, fn->start_line, "%s",
				      pp_str(p, fn->name));
		}
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/* With several DIRs, each sample's label "run" names its DIR. */
Test(report_pprof, several_runs_label_theirs)
{
	const char *dirs[] = { tst_prof_dir, tst_prof_dir };
	struct pa_error err = { 0 };
	struct pa_run *both;
	Perftools__Profiles__Profile *p;

	cr_assert_eq(pa_runs_merge(dirs, 2, NULL, &both, &err), 0, "%s", err.reason);
	p = tst_pprof_decode(both, NULL);
	cr_expect_eq(p->n_sample, 10, "each thread and stack twice, once per run");
	for (size_t i = 0; i < p->n_sample; i++) {
		cr_assert_eq(p->sample[i]->n_label, 4);
		cr_expect_str_eq(pp_str(p, p->sample[i]->label[3]->key), "run");
		cr_expect_str_eq(pp_str(p, p->sample[i]->label[3]->str), tst_prof_dir);
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
	pa_run_free(both);
}

/*
 * The hosts run (tst_run.h): every sample is labelled with its host, and
 * with its rank when its process has one, so that pprof -tagfocus tells
 * the two pid 6 apart.
 */
Test(report_pprof_hosts, labels_host_and_rank, .init = tst_hosts_setup,
     .fini = tst_hosts_teardown, .timeout = 30)
{
	Perftools__Profiles__Profile *p = tst_pprof_decode(tst_hosts_run, NULL);
	uint64_t by[3] = { 0 }; /* rank 0 on node1, rank 2 on node2, no rank */

	for (size_t i = 0; i < p->n_sample; i++) {
		const char *host = NULL;
		int64_t rank = -1;

		for (size_t k = 0; k < p->sample[i]->n_label; k++) {
			const Perftools__Profiles__Label *l = p->sample[i]->label[k];

			if (strcmp(pp_str(p, l->key), "host") == 0)
				host = pp_str(p, l->str);
			if (strcmp(pp_str(p, l->key), "rank") == 0)
				rank = l->num;
		}
		cr_assert_not_null(host, "sample %zu has no host label", i);
		if (rank == 0 && strcmp(host, "node1.cluster") == 0)
			by[0] += (uint64_t)p->sample[i]->value[0];
		else if (rank == 2 && strcmp(host, "node2.cluster") == 0)
			by[1] += (uint64_t)p->sample[i]->value[0];
		else if (rank == -1 && strcmp(host, "node1.cluster") == 0)
			by[2] += (uint64_t)p->sample[i]->value[0];
		else
			cr_assert_fail("sample %zu: host %s, rank %lld", i, host, (long long)rank);
	}
	cr_expect(by[0] == 6 && by[1] == 9 && by[2] == 1, "%llu %llu %llu",
		  (unsigned long long)by[0], (unsigned long long)by[1], (unsigned long long)by[2]);
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/*
 * Go pprof names the first mapping in its header ("File: ..."): it is the
 * executable of the process with the most samples, here the test binary,
 * although every sample's innermost frame is in libc and a launcher process
 * with fewer samples comes first.
 */
Test(report_pprof_main, first_mapping_is_the_busiest_executable, .timeout = 30)
{
	struct tst_log_self self, libc;
	char *dir = tst_log_tmpdir(), *pdir;
	struct pa_error err = { 0 };
	struct pa_run *run;
	Perftools__Profiles__Profile *p;
	uint64_t stack[2];
	struct tst_log l;

	tst_log_self_module((const void *)pa_proftest_main, &self);
	tst_log_self_module((const void *)getpid, &libc);
	stack[0] = (uint64_t)(uintptr_t)getpid + 4;
	stack[1] = tst_run_in(pa_proftest_main);
	for (uint32_t pid = 70; pid <= 71; pid++) {
		char name[32];

		snprintf(name, sizeof(name), "app.%u", pid);
		pdir = tst_log_subdir(dir, name);
		tst_log_begin(&l, PPF_FILE_PROCESS);
		tst_log_process(&l, pid, 1, pid == 70 ? libc.path : self.path, NULL);
		tst_log_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
		tst_log_module(&l, 1, libc.bias, libc.start, libc.end, 0, libc.path,
			       libc.build_id, libc.build_id_len);
		tst_log_module(&l, 2, self.bias, self.start, self.end, 0, self.path,
			       self.build_id, self.build_id_len);
		tst_log_process_end(&l, 9000, 0, 0, PPF_EXIT_NORMAL, 0);
		tst_log_write(&l, pdir, PPF_PROCESS_LOG);
		tst_prof_add_thread(pdir, pid, pid == 70 ? 1 : 5, 2, stack);
		free(pdir);
	}
	cr_assert_eq(pa_run_load(dir, &run, &err), 0, "%s", err.reason);
	p = tst_pprof_decode(run, NULL);
	cr_assert_gt(p->n_mapping, 0);
	cr_expect_str_eq(pp_str(p, p->mapping[0]->filename), self.path);
	perftools__profiles__profile__free_unpacked(p, NULL);
	pa_run_free(run);
	tst_log_rmdir(dir);
}

/* One module of a process as its log records it; image: its vDSO image's name, or NULL. */
struct pp_module {
	uint64_t bias, start, end;
	const char *path;
	const uint8_t *build_id;
	uint32_t build_id_len;
	const char *image;
};

/* Process pid in dir/app.PID running exe with module m, its thread with 2 samples of stack. */
static void pp_process_with(const char *dir, uint32_t pid, const char *exe,
			    const struct pp_module *m, const uint64_t *stack, size_t n)
{
	char name[32], *pdir;
	struct tst_log l;

	snprintf(name, sizeof(name), "app.%u", pid);
	pdir = tst_log_subdir(dir, name);
	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, pid, 1, exe, NULL);
	tst_log_event(&l, 0, "cpu-clock", 1000000, PPF_EVENT_TIME_NS);
	tst_log_module(&l, 1, m->bias, m->start, m->end, 0, m->path, m->build_id,
		       m->build_id_len);
	if (m->image)
		tst_log_vdso(&l, 1, m->image);
	tst_log_process_end(&l, 9000, 0, 0, PPF_EXIT_NORMAL, 0);
	tst_log_write(&l, pdir, PPF_PROCESS_LOG);
	tst_prof_add_thread(pdir, pid, 2, n, stack);
	free(pdir);
}

/*
 * Two processes that load the test binary at different addresses (the
 * second 1 MiB higher, as ASLR places a PIE) share its mapping and its
 * locations: one mapping, each sampled address of the file one location,
 * at the file's address, with the same functions as in one process alone.
 */
Test(report_pprof_main, processes_share_a_files_mapping_and_locations, .timeout = 30)
{
	const uint64_t shift = 0x100000;
	struct tst_log_self self;
	char *dir = tst_log_tmpdir();
	struct pa_error err = { 0 };
	struct pa_run *run;
	Perftools__Profiles__Profile *p;
	char *samples;

	tst_log_self_module((const void *)pa_proftest_main, &self);
	for (uint32_t pid = 80; pid <= 81; pid++) {
		uint64_t d = pid == 81 ? shift : 0;
		uint64_t stack[2] = { tst_run_in(pa_proftest_leaf) + d,
				      tst_run_in(pa_proftest_main) + d };
		struct pp_module m = { self.bias + d, self.start + d, self.end + d, self.path,
				       self.build_id, self.build_id_len, NULL };

		pp_process_with(dir, pid, self.path, &m, stack, 2);
	}
	cr_assert_eq(pa_run_load(dir, &run, &err), 0, "%s", err.reason);
	p = tst_pprof_decode(run, NULL);
	cr_assert_eq(p->n_mapping, 1, "one file, one mapping");
	cr_expect(p->mapping[0]->memory_start == self.start - self.bias &&
		  p->mapping[0]->memory_limit == self.end - self.bias);
	cr_assert_eq(p->n_location, 2, "the leaf and its caller, once for both processes");
	for (size_t i = 0; i < p->n_location; i++) {
		uint64_t leaf = tst_run_in(pa_proftest_leaf) - self.bias;
		uint64_t caller = tst_run_in(pa_proftest_main) - self.bias;

		cr_expect(p->location[i]->address == leaf || p->location[i]->address == caller,
			  "location %zu at 0x%llx", i,
			  (unsigned long long)p->location[i]->address);
	}
	samples = pp_text(p, pp_samples);
	cr_expect_str_eq(samples, "pid=80 tid=80 thread=main 2 2000000 " PP_MAIN
			 ";pa_proftest_leaf\n"
			 "pid=81 tid=81 thread=main 2 2000000 " PP_MAIN ";pa_proftest_leaf\n");
	free(samples);
	perftools__profiles__profile__free_unpacked(p, NULL);
	pa_run_free(run);
	tst_log_rmdir(dir);
}

/*
 * Two processes whose vDSOs have no build-id and are different images (at
 * the run's root, named by their content: another kernel's, another
 * host's), each with another function at the same file address: each
 * process's frames keep its own image's function, in a mapping of its own.
 * The images: build/workloads/libnoida.so and libnoidb.so.
 */
Test(report_pprof_main, vdsos_of_other_images_without_build_ids_share_nothing, .timeout = 30)
{
	char *dir = tst_log_tmpdir();
	struct pa_error err = { 0 };
	struct pa_run *run;
	Perftools__Profiles__Profile *p;
	char *samples;

	for (uint32_t pid = 90; pid <= 91; pid++) {
		uint64_t base = pid == 90 ? 0x7fff0000 : 0x7ffe0000;
		uint64_t stack[1] = { base + 0x1100 };
		char from[4096], to[4096], img[128];
		struct pp_module m = { base, base, base + 0x4000, "linux-vdso.so.1", NULL, 0, img };

		snprintf(from, sizeof(from), "%s/workloads/libnoid%s.so", PP_TEST_BUILD_DIR,
			 pid == 90 ? "a" : "b");
		tst_log_vdso_hash_name(from, img, sizeof(img));
		snprintf(to, sizeof(to), "%s/%s", dir, img);
		tst_log_copy(from, to);
		pp_process_with(dir, pid, "/usr/bin/app", &m, stack, 1);
	}
	cr_assert_eq(pa_run_load(dir, &run, &err), 0, "%s", err.reason);
	p = tst_pprof_decode(run, NULL);
	samples = pp_text(p, pp_samples);
	cr_expect_str_eq(samples, "pid=90 tid=90 thread=main 2 2000000 pa_noid_alpha\n"
			 "pid=91 tid=91 thread=main 2 2000000 pa_noid_bravo\n");
	cr_expect_eq(p->n_mapping, 2);
	cr_expect_eq(p->n_location, 2);
	free(samples);
	perftools__profiles__profile__free_unpacked(p, NULL);
	pa_run_free(run);
	tst_log_rmdir(dir);
}

/* A thread named with bytes that are not UTF-8 gets a label that is: proto3 strings must be. */
Test(report_pprof, strings_are_valid_utf8)
{
	Perftools__Profiles__Profile *p;
	bool seen = false;

	tst_prof_add_named_process(68, "\xff\xfeok", 1);
	p = tst_pprof_decode(tst_prof_run, NULL);
	for (size_t i = 0; i < p->n_string_table; i++) {
		const unsigned char *u = (const unsigned char *)p->string_table[i];

		seen |= strcmp(p->string_table[i], "\xef\xbf\xbd\xef\xbf\xbdok") == 0;
		for (size_t k = 0; u[k]; k++)
			cr_expect(u[k] != 0xff && u[k] != 0xfe, "string %zu: %s", i,
				  p->string_table[i]);
	}
	cr_expect(seen, "the thread's name, its bad bytes replaced");
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/*
 * A vDSO image named by its hash must hold what its name says, and be no
 * link: one whose bytes are another's (put there, or damaged), or a
 * symbolic link to another file, is not read; its frames stay unnamed,
 * said in a warning naming the file.
 */
Test(report_pprof_main, a_vdso_image_not_what_its_name_says_is_not_read, .timeout = 30)
{
	static const char *const why[] = { "not what its name says", "symbolic link" };
	char *dir = tst_log_tmpdir();
	char from[4096], other[4096], to[4096], img[128];
	uint64_t stack[1] = { 0x7fff0000 + 0x1100 };
	struct pp_module m = { 0x7fff0000, 0x7fff0000, 0x7fff4000, "linux-vdso.so.1", NULL, 0, img };

	snprintf(from, sizeof(from), "%s/workloads/libnoida.so", PP_TEST_BUILD_DIR);
	snprintf(other, sizeof(other), "%s/workloads/libnoidb.so", PP_TEST_BUILD_DIR);
	tst_log_vdso_hash_name(from, img, sizeof(img));
	snprintf(to, sizeof(to), "%s/%s", dir, img);
	pp_process_with(dir, 92, "/usr/bin/app", &m, stack, 1);
	for (int kind = 0; kind < 3; kind++) {
		struct pa_warnings warn = { 0 };
		struct pa_error err = { 0 };
		struct pa_symbols *sym;
		struct pa_frame fr;
		struct pa_run *run;
		bool said = false;

		if (kind == 0)
			tst_log_copy(other, to);
		else if (kind == 1)
			cr_assert_eq(symlink(from, to), 0);
		else
			tst_log_copy(from, to);
		cr_assert_eq(pa_run_load(dir, &run, &err), 0, "%s", err.reason);
		cr_assert_eq(pa_symbols_new(run->processes[0], &sym, &warn, &err), 0, "%s",
			     err.reason);
		cr_assert_eq(pa_symbols_lookup_at(sym, stack[0], false, UINT64_MAX, &fr), 0);
		for (size_t i = 0; i < warn.n; i++)
			said |= strstr(warn.v[i].path, img) && kind < 2 &&
				strstr(warn.v[i].reason, why[kind]);
		if (kind < 2) {
			cr_expect(!fr.function || !strstr(fr.function, "pa_noid_"), "%d: %s", kind,
				  fr.function);
			cr_expect(said, "%d: no warning names %s (%zu warnings)", kind, img, warn.n);
		} else {
			cr_expect(fr.function && strcmp(fr.function, "pa_noid_alpha") == 0,
				  "the image itself: %s", fr.function ? fr.function : "(none)");
		}
		pa_symbols_free(sym);
		pa_symbols_files_release();
		pa_warnings_release(&warn);
		pa_run_free(run);
		cr_assert_eq(unlink(to), 0);
	}
	tst_log_rmdir(dir);
}
