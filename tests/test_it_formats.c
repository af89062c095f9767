/*
 * Integration: the output formats other tools read (pprof, speedscope,
 * perf script, per-thread folded stacks), on a real run of the demo
 * workload, checked by those tools where they are installed (Go pprof,
 * perf, python3's json) and always against our own profile (what `top`
 * and `folded` show): the same functions with the same sample counts.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pa_it.h"

static struct pa_it it_fmt;

static void it_fmt_init(void)
{
	pa_it_init(&it_fmt);
}

static void it_fmt_fini(void)
{
	pa_it_release(&it_fmt);
}

TestSuite(it_formats, .init = it_fmt_init, .fini = it_fmt_fini, .timeout = 180);

/* Runs the demo under the preload (three threads, three burn functions); loads its run. */
static struct pa_run *it_fmt_demo(void)
{
	const char *argv[] = { "workloads/demo", "0.4", NULL };
	struct pa_it_result r;
	struct pa_run *run;

	pa_it_run_profiled(&it_fmt, "demo", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		  "demo failed (status 0x%x): %s", r.status, r.err);
	pa_it_result_release(&r);
	run = pa_it_load(&it_fmt);
	cr_assert_eq(run->nprocesses, 1);
	return run;
}

/* Runs argv (argv[0] under the build dir unless absolute); asserts exit 0; r holds its output. */
static void it_fmt_run(const char *tag, const char *const *argv, struct pa_it_result *r)
{
	pa_it_run(&it_fmt, tag, argv, NULL, r);
	cr_assert(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0,
		  "%s failed (status 0x%x): %s", argv[0], r->status, r->err);
}

/* A path in the test's scratch directory. */
static void it_fmt_tmp(char *buf, const char *name)
{
	snprintf(buf, PA_IT_PATH_MAX, "%s/%s", it_fmt.tmp, name);
}

/* Per function name: what the other tool counted, to compare with our profile. */
struct it_fmt_count {
	char name[256];
	uint64_t self, total;
	bool seen_total;
};

struct it_fmt_counts {
	struct it_fmt_count v[512];
	size_t n;
};

static struct it_fmt_count *it_fmt_count_of(struct it_fmt_counts *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].name, name) == 0)
			return &c->v[i];
	cr_assert_lt(c->n, sizeof(c->v) / sizeof(c->v[0]), "too many functions");
	snprintf(c->v[c->n].name, sizeof(c->v[c->n].name), "%s", name);
	return &c->v[c->n++];
}

/* Whether prof has two functions of that name (in different modules). */
static bool it_fmt_ambiguous(const struct pa_profile *prof, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < prof->nfuncs; i++)
		n += strcmp(prof->funcs[i].name, name) == 0;
	return n > 1;
}

/* A frame no symbol covers: "module+0xOFFSET" in top, "[unknown]" in perf script. */
static bool it_fmt_unresolved(const char *name)
{
	return strstr(name, "+0x") || strcmp(name, "[unknown]") == 0;
}

/*
 * Every function of prof with samples has the same self (and, when the
 * tool counted it, total) samples in c, and c has no function prof lacks.
 * Names two modules share are skipped: other tools merge them.
 */
static void it_fmt_expect_counts_as(const char *tool, const struct pa_profile *prof,
				    struct it_fmt_counts *c, bool resolved_only)
{
	for (size_t i = 0; i < prof->nfuncs; i++) {
		const struct pa_func *f = &prof->funcs[i];
		struct it_fmt_count *x;

		if (it_fmt_ambiguous(prof, f->name) ||
		    (resolved_only && it_fmt_unresolved(f->name)))
			continue;
		x = it_fmt_count_of(c, f->name);
		cr_expect_eq(x->self, f->self, "%s: %s: self %" PRIu64 ", top says %" PRIu64,
			     tool, f->name, x->self, f->self);
		if (x->seen_total)
			cr_expect_eq(x->total, f->total, "%s: %s: total %" PRIu64
				     ", top says %" PRIu64, tool, f->name, x->total, f->total);
	}
	for (size_t i = 0; i < c->n; i++)
		cr_expect(pa_profile_find(prof, c->v[i].name) ||
			  (resolved_only && it_fmt_unresolved(c->v[i].name)),
			  "%s shows %s, top does not", tool, c->v[i].name);
}

static void it_fmt_expect_counts(const char *tool, const struct pa_profile *prof,
				 struct it_fmt_counts *c)
{
	it_fmt_expect_counts_as(tool, prof, c, false);
}

/* Self samples of the burn functions must be there at all, or the test proves nothing. */
static void it_fmt_expect_burns(const struct pa_profile *prof)
{
	static const char *const burns[] = { "burn_alpha", "burn_beta", "burn_gamma" };

	for (size_t i = 0; i < 3; i++)
		cr_assert_gt(pa_it_self(prof, burns[i]), 0, "no sample in %s", burns[i]);
}

/* The Go pprof built by the Makefile (make tests-build). */
static void it_fmt_go_pprof(char *path)
{
	pa_it_build_path(path, "go-pprof");
	cr_assert(access(path, X_OK) == 0, "%s missing: run make tests-build", path);
}

/* Parses `pprof -top` (flat flat% sum% cum cum% name) into c. */
static void it_fmt_parse_top(const char *text, struct it_fmt_counts *c, uint64_t *total)
{
	const char *line = pa_it_find_line(text, "Duration:");
	size_t rows = 0;

	cr_assert(line, "no Duration line in pprof -top:\n%s", text);
	cr_assert(strstr(line, "Total samples = "), "%s", line);
	*total = strtoull(strstr(line, "Total samples = ") + 16, NULL, 10);
	line = pa_it_find_line(text, "      flat  flat%");
	cr_assert(line, "no table in pprof -top:\n%s", text);
	for (line = strchr(line, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		uint64_t flat, cum;
		double p1, p2, p3;
		int at = 0;
		char name[256];

		if (sscanf(line + 1, "%" SCNu64 " %lf%% %lf%% %" SCNu64 " %lf%% %n",
			   &flat, &p1, &p2, &cum, &p3, &at) != 5 || !at)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(line + 1 + at, "\n"),
			 line + 1 + at);
		it_fmt_count_of(c, name)->self = flat;
		it_fmt_count_of(c, name)->total = cum;
		it_fmt_count_of(c, name)->seen_total = true;
		rows++;
	}
	cr_assert_gt(rows, 3, "pprof -top shows %zu functions:\n%s", rows, text);
}

Test(it_formats, pprof_top_agrees_with_top)
{
	char gopprof[PA_IT_PATH_MAX], pb[PA_IT_PATH_MAX];
	struct it_fmt_counts *c = calloc(1, sizeof(*c));
	struct pa_run *run = it_fmt_demo();
	struct pa_profile *prof = pa_it_profile(run, 0, 0);
	struct pa_it_result r;
	uint64_t total = 0;

	it_fmt_go_pprof(gopprof);
	it_fmt_tmp(pb, "cpu.pb.gz");
	it_fmt_expect_burns(prof);
	{
		const char *argv[] = { "pprof-analyze", "pprof", it_fmt.data, "-o", pb, NULL };

		it_fmt_run("analyze", argv, &r);
		pa_it_result_release(&r);
	}
	{
		const char *argv[] = { gopprof, "-top", "-sample_index=samples", "-nodefraction=0",
				       "-nodecount=100000", pb, NULL };

		it_fmt_run("gopprof", argv, &r);
	}
	it_fmt_parse_top(r.out, c, &total);
	cr_expect_eq(total, prof->samples, "pprof: %" PRIu64 " samples, top: %" PRIu64,
		     total, prof->samples);
	it_fmt_expect_counts("pprof -top", prof, c);
	pa_it_result_release(&r);
	/* The default sample type is CPU time: samples x the 1 ms period. */
	{
		const char *argv[] = { gopprof, "-top", pb, NULL };

		it_fmt_run("gopprof-cpu", argv, &r);
		cr_expect(strstr(r.out, "Type: cpu"), "%s", r.out);
		cr_expect(pa_it_find_line(r.out, "Duration:") &&
			  strstr(pa_it_find_line(r.out, "Duration:"), "ms"), "%s", r.out);
		pa_it_result_release(&r);
	}
	free(c);
	pa_profile_free(prof);
	pa_run_free(run);
}

/*
 * `pprof -traces`: one block per distinct stack of locations, its labels
 * (thread, pid, tid), then "COUNT LEAF" and the callers. Sums the counts per
 * leaf function into c and per tid into per_tid[].
 */
static void it_fmt_parse_traces(const char *text, struct it_fmt_counts *c,
				const struct pa_process *proc, uint64_t *per_tid)
{
	uint32_t tid = 0;

	for (const char *line = text; line; line = strchr(line, '\n')) {
		uint64_t n;
		int at = 0;
		char name[256];

		line += *line == '\n';
		if (strncmp(line, "-----------+", 12) == 0)
			tid = 0;
		if (sscanf(line, "        tid:  %" SCNu32, &tid) == 1)
			continue;
		if (sscanf(line, " %" SCNu64 " %n", &n, &at) != 1 || !at || line[0] != ' ')
			continue;
		cr_assert_neq(tid, 0, "a trace without a tid label:\n%s", line);
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(line + at, "\n"), line + at);
		it_fmt_count_of(c, name)->self += n;
		for (size_t t = 0; t < proc->nthreads; t++)
			if (proc->threads[t]->tid == tid)
				per_tid[t] += n;
	}
}

Test(it_formats, pprof_traces_agree_per_thread)
{
	char gopprof[PA_IT_PATH_MAX], pb[PA_IT_PATH_MAX];
	struct it_fmt_counts *c = calloc(1, sizeof(*c));
	struct pa_run *run = it_fmt_demo();
	const struct pa_process *proc = run->processes[0];
	struct pa_profile *prof = pa_it_profile(run, 0, 0);
	uint64_t *per_tid = calloc(proc->nthreads + 1, sizeof(*per_tid));
	const char *argv[] = { "pprof-analyze", "pprof", it_fmt.data, "-o", pb, NULL };
	const char *traces[] = { gopprof, "-traces", "-sample_index=samples", pb, NULL };
	struct pa_it_result r;

	it_fmt_go_pprof(gopprof);
	it_fmt_tmp(pb, "cpu.pb.gz");
	it_fmt_expect_burns(prof);
	it_fmt_run("analyze", argv, &r);
	pa_it_result_release(&r);
	it_fmt_run("gopprof", traces, &r);
	it_fmt_parse_traces(r.out, c, proc, per_tid);
	it_fmt_expect_counts("pprof -traces", prof, c);
	for (size_t t = 0; t < proc->nthreads; t++) {
		struct pa_filter f = { .tid = proc->threads[t]->tid, .event = 0 };

		cr_expect_eq(per_tid[t], pa_filter_count_samples(&f, proc, proc->threads[t]),
			     "pprof -traces: tid %" PRIu32 " has %" PRIu64 " samples",
			     proc->threads[t]->tid, per_tid[t]);
	}
	pa_it_result_release(&r);
	free(per_tid);
	free(c);
	pa_profile_free(prof);
	pa_run_free(run);
}

/*
 * Loads a speedscope file with python3's json and checks its structure
 * against the file format's schema by hand (types, frame indexes, one
 * weight per sample, endValue); prints "profile TID SAMPLES WEIGHT" per
 * profile and "self NAME COUNT" per leaf frame (the last of each stack).
 */
static const char it_fmt_speedscope_py[] =
"import json, sys, collections\n"
"d = json.load(open(sys.argv[1]))\n"
"assert d['$schema'] == 'https://www.speedscope.app/file-format-schema.json'\n"
"frames = d['shared']['frames']\n"
"assert all(isinstance(f['name'], str) and f['name'] for f in frames)\n"
"assert 0 <= d.get('activeProfileIndex', 0) < max(1, len(d['profiles']))\n"
"selfs = collections.Counter()\n"
"for p in d['profiles']:\n"
"    assert p['type'] == 'sampled' and p['unit'] in ('nanoseconds', 'none'), p['unit']\n"
"    assert len(p['samples']) == len(p['weights']) > 0\n"
"    assert p['endValue'] - p['startValue'] == sum(p['weights'])\n"
"    for s in p['samples']:\n"
"        assert s and all(0 <= i < len(frames) for i in s)\n"
"        selfs[frames[s[-1]]['name']] += 1\n"
"    tid = int(p['name'].rsplit('(', 1)[1].rstrip(')'))\n"
"    print('profile', tid, len(p['samples']), p['unit'], p['weights'][0])\n"
"for n, c in selfs.items():\n"
"    print('self', c, n)\n";

Test(it_formats, speedscope_profiles_per_thread)
{
	char json[PA_IT_PATH_MAX];
	struct it_fmt_counts *c = calloc(1, sizeof(*c));
	struct pa_run *run = it_fmt_demo();
	const struct pa_process *proc = run->processes[0];
	struct pa_profile *prof = pa_it_profile(run, 0, 0);
	const char *argv[] = { "pprof-analyze", "speedscope", it_fmt.data, "-o", json, NULL };
	const char *py[] = { "/usr/bin/python3", "-c", it_fmt_speedscope_py, json, NULL };
	struct pa_it_result r;
	size_t profiles = 0, threads = 0;

	it_fmt_tmp(json, "out.json");
	it_fmt_expect_burns(prof);
	it_fmt_run("analyze", argv, &r);
	pa_it_result_release(&r);
	it_fmt_run("python", py, &r);
	for (const char *line = r.out; line && *line; line = strchr(line, '\n'), line += !!line) {
		uint64_t n, w;
		uint32_t tid;
		int at = 0;
		char unit[32], name[256];

		if (sscanf(line, "profile %" SCNu32 " %" SCNu64 " %31s %" SCNu64,
			   &tid, &n, unit, &w) == 4) {
			struct pa_filter f = { .tid = tid, .event = 0 };
			const struct pa_thread *th = NULL;

			for (size_t t = 0; t < proc->nthreads; t++)
				if (proc->threads[t]->tid == tid)
					th = proc->threads[t];
			cr_assert(th, "speedscope: a profile for tid %" PRIu32 " not in the run", tid);
			cr_expect_eq(n, pa_filter_count_samples(&f, proc, th),
				     "speedscope: tid %" PRIu32 " has %" PRIu64 " samples", tid, n);
			/* cpu-clock at 1 ms: each sample weighs the period, in ns */
			cr_expect_str_eq(unit, "nanoseconds");
			cr_expect_eq(w, pa_it_period_s(proc) * 1e9);
			profiles++;
		} else if (sscanf(line, "self %" SCNu64 " %n", &n, &at) == 1 && at) {
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(line + at, "\n"),
				 line + at);
			it_fmt_count_of(c, name)->self = n;
		}
	}
	for (size_t t = 0; t < proc->nthreads; t++) {
		struct pa_filter f = { .tid = proc->threads[t]->tid, .event = 0 };

		threads += pa_filter_count_samples(&f, proc, proc->threads[t]) > 0;
	}
	cr_expect_eq(profiles, threads, "speedscope: %zu profiles for %zu threads with samples",
		     profiles, threads);
	it_fmt_expect_counts("speedscope", prof, c);
	pa_it_result_release(&r);
	free(c);
	pa_profile_free(prof);
	pa_run_free(run);
}

/*
 * Checks one sample of `perf script` text at *text (advanced past it and
 * its blank line): "COMM TID SECONDS.MICROS: PERIOD EVENT: " then frame
 * lines "\t<spaces>HEX FUNCTION (MODULE)". Returns its leaf frame's
 * function (without +0xOFFSET) in leaf, false at the end of the text.
 */
static bool it_fmt_script_sample(const char **text, uint32_t *tid, char *leaf, size_t size)
{
	const char *p = *text, *colon, *nl;
	unsigned long long sec, usec, period;
	size_t nframes = 0;
	int at = 0;

	if (!*p)
		return false;
	nl = strchr(p, '\n');
	cr_assert(nl, "unterminated line: %s", p);
	/* COMM may hold spaces: the TID is the last number before the time */
	colon = memchr(p, ':', (size_t)(nl - p));
	cr_assert(colon, "no time in sample line: %.*s", (int)(nl - p), p);
	while (colon > p && colon[-1] != ' ')
		colon--;
	cr_assert(colon > p + 1, "no comm: %.*s", (int)(nl - p), p);
	cr_assert_eq(sscanf(colon, "%llu.%6llu: %llu %*[^:]: %n", &sec, &usec, &period, &at), 3,
		     "bad sample line: %.*s", (int)(nl - p), p);
	cr_expect_eq(nl[-1], ' ', "perf script ends the sample line with ': '");
	cr_expect_eq(colon[-1], ' ');
	{
		const char *t = colon - 1;

		while (t > p && t[-1] != ' ')
			t--;
		cr_assert(t > p + 1, "no comm before the tid: %.*s", (int)(nl - p), p);
		*tid = (uint32_t)strtoul(t, NULL, 10);
		cr_assert_gt(*tid, 0, "no tid: %.*s", (int)(nl - p), p);
	}
	for (p = nl + 1; *p == '\t'; p = strchr(p, '\n') + 1) {
		size_t len = strcspn(p, "\n");
		const char *open = NULL;
		unsigned long long addr;
		int n = 0;

		for (const char *q = p; q + 1 < p + len; q++)
			if (q[0] == ' ' && q[1] == '(')
				open = q;
		cr_assert(sscanf(p, "\t %llx %n", &addr, &n) == 1 && n && open && open > p + n &&
			  p[len - 1] == ')', "bad frame line: %.*s", (int)len, p);
		if (nframes++ == 0) {
			size_t flen = (size_t)(open - (p + n));
			const char *plus = memchr(p + n, '+', flen);

			snprintf(leaf, size, "%.*s", (int)(plus ? (size_t)(plus - (p + n)) : flen),
				 p + n);
		}
	}
	cr_assert_gt(nframes, 0, "a sample without frames");
	cr_assert_eq(*p, '\n', "no blank line after a sample: %.20s", p);
	*text = p + 1;
	return true;
}

/* Checks the layout of every sample of text; counts leaf functions into c (may be NULL). */
static size_t it_fmt_script_check(const char *text, struct it_fmt_counts *c,
				  const struct pa_process *proc, uint64_t *per_tid)
{
	char leaf[256];
	uint32_t tid = 0;
	size_t n = 0;

	while (it_fmt_script_sample(&text, &tid, leaf, sizeof(leaf))) {
		n++;
		if (c)
			it_fmt_count_of(c, leaf)->self++;
		for (size_t t = 0; proc && t < proc->nthreads; t++)
			if (proc->threads[t]->tid == tid)
				per_tid[t]++;
	}
	return n;
}

Test(it_formats, script_has_perf_script_layout)
{
	struct it_fmt_counts *c = calloc(1, sizeof(*c));
	struct pa_run *run = it_fmt_demo();
	const struct pa_process *proc = run->processes[0];
	struct pa_profile *prof = pa_it_profile(run, 0, 0);
	uint64_t *per_tid = calloc(proc->nthreads + 1, sizeof(*per_tid));
	const char *argv[] = { "pprof-analyze", "script", it_fmt.data, NULL };
	struct pa_it_result r;

	it_fmt_expect_burns(prof);
	it_fmt_run("analyze", argv, &r);
	cr_expect_eq(it_fmt_script_check(r.out, c, proc, per_tid), prof->samples);
	it_fmt_expect_counts_as("script", prof, c, true);
	for (size_t t = 0; t < proc->nthreads; t++) {
		struct pa_filter f = { .tid = proc->threads[t]->tid, .event = 0 };

		cr_expect_eq(per_tid[t], pa_filter_count_samples(&f, proc, proc->threads[t]),
			     "script: tid %" PRIu32 " has %" PRIu64 " samples",
			     proc->threads[t]->tid, per_tid[t]);
	}
	pa_it_result_release(&r);
	free(per_tid);
	free(c);
	pa_profile_free(prof);
	pa_run_free(run);
}

/*
 * The layout checker above holds for what perf itself prints: `perf script`
 * of a `perf record -g` of the demo. Skipped where perf cannot record
 * (not installed, or perf_event_paranoid forbids it).
 */
Test(it_formats, perf_script_has_the_same_layout)
{
	char data[PA_IT_PATH_MAX];
	const char *rec[] = { "/usr/bin/perf", "record", "-q", "-e", "cpu-clock", "-g", "-o",
			      data, "workloads/demo", "0.2", NULL };
	const char *script[] = { "/usr/bin/perf", "script", "-i", data, NULL };
	struct pa_it_result r;
	char demo[PA_IT_PATH_MAX];

	it_fmt_tmp(data, "perf.data");
	pa_it_build_path(demo, "workloads/demo");
	rec[8] = demo;
	if (access("/usr/bin/perf", X_OK) != 0)
		cr_skip_test("perf is not installed");
	pa_it_run(&it_fmt, "perf-record", rec, NULL, &r);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
		pa_it_result_release(&r);
		cr_skip_test("perf record failed here");
	}
	pa_it_result_release(&r);
	it_fmt_run("perf-script", script, &r);
	cr_expect_gt(it_fmt_script_check(r.out, NULL, NULL, NULL), 0);
	pa_it_result_release(&r);
}

Test(it_formats, folded_per_thread_has_process_and_thread_roots)
{
	struct pa_run *run = it_fmt_demo();
	const struct pa_process *proc = run->processes[0];
	struct pa_profile *prof = pa_it_profile(run, 0, 0);
	uint64_t *per_tid = calloc(proc->nthreads + 1, sizeof(*per_tid));
	uint64_t *per_stack = calloc(prof->nstacks + 1, sizeof(*per_stack));
	const char *argv[] = { "pprof-analyze", "folded", "--per-thread", it_fmt.data, NULL };
	char root[300];
	struct pa_it_result r;

	it_fmt_expect_burns(prof);
	it_fmt_run("analyze", argv, &r);
	snprintf(root, sizeof(root), "%s (%" PRIu32 ");", pa_process_exe_base(proc), proc->pid);
	for (const char *line = r.out; line && *line; line = strchr(line, '\n'), line += !!line) {
		size_t len = strcspn(line, "\n");
		const char *sp = line + len;
		const char *stack, *paren;
		uint64_t count;
		uint32_t tid;

		while (sp > line && sp[-1] != ' ')
			sp--;
		count = strtoull(sp, NULL, 10);
		cr_assert(strncmp(line, root, strlen(root)) == 0, "no root %s: %.*s", root,
			  (int)len, line);
		stack = strchr(line + strlen(root), ';');
		cr_assert(stack && stack < sp, "no thread frame: %.*s", (int)len, line);
		paren = stack;
		while (paren > line && paren[-1] != '(')
			paren--;
		tid = (uint32_t)strtoul(paren, NULL, 10);
		for (size_t t = 0; t < proc->nthreads; t++)
			if (proc->threads[t]->tid == tid)
				per_tid[t] += count;
		/* Without its two roots, the line is a stack of `folded` */
		for (size_t i = 0; i < prof->nstacks; i++) {
			char *s = pa_stack_fold(&prof->stacks[i]);

			if (strlen(s) == (size_t)(sp - 1 - (stack + 1)) &&
			    strncmp(s, stack + 1, strlen(s)) == 0)
				per_stack[i] += count;
			free(s);
		}
	}
	for (size_t t = 0; t < proc->nthreads; t++) {
		struct pa_filter f = { .tid = proc->threads[t]->tid, .event = 0 };

		cr_expect_eq(per_tid[t], pa_filter_count_samples(&f, proc, proc->threads[t]),
			     "folded --per-thread: tid %" PRIu32 " has %" PRIu64 " samples",
			     proc->threads[t]->tid, per_tid[t]);
	}
	for (size_t i = 0; i < prof->nstacks; i++)
		cr_expect_eq(per_stack[i], prof->stacks[i].count, "stack %zu: %" PRIu64
			     " in folded --per-thread, %" PRIu64 " in folded", i, per_stack[i],
			     prof->stacks[i].count);
	pa_it_result_release(&r);
	free(per_stack);
	free(per_tid);
	pa_profile_free(prof);
	pa_run_free(run);
}
