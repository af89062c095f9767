/*
 * Integration: the output formats other tools read (pprof, speedscope,
 * perf script, per-thread folded stacks), on a real run of the demo
 * workload (and of the inlines workload for source lines and inline
 * frames), checked by those tools (Go pprof, speedscope in headless
 * Chromium, perf, python3's json) and always against our own profile
 * (what `top`, `top --inlines`, `top --lines --inlines` and `folded`
 * show): the same functions and lines with the same sample counts.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "before.h"
#include "eventinfo.h"
#include "samples.h"
#include "tst_it.h"

#define IT_FMT_CHROMIUM "/usr/bin/chromium"
#define IT_FMT_INLINES_SRC PP_TEST_SOURCE_DIR "/tests/workloads/inlines.c"

static struct tst_it it_fmt;

static void it_fmt_init(void)
{
	tst_init(&it_fmt);
}

static void it_fmt_fini(void)
{
	tst_release(&it_fmt);
}

TestSuite(it_formats, .init = it_fmt_init, .fini = it_fmt_fini, .timeout = 180);

/* Runs workload for seconds under the preload; asserts it exited 0; loads its run. */
static struct pa_run *it_fmt_profiled(const char *workload, const char *seconds)
{
	char path[TST_PATH_MAX];
	const char *argv[] = { path, seconds, NULL };
	struct tst_result r;
	struct pa_run *run;

	snprintf(path, sizeof(path), "workloads/%s", workload);
	tst_run_profiled(&it_fmt, workload, argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		  "%s failed (status 0x%x): %s", workload, r.status, r.err);
	tst_result_release(&r);
	run = tst_load(&it_fmt);
	cr_assert_eq(run->nprocesses, 1);
	return run;
}

/* Runs the demo under the preload (three threads, three burn functions); loads its run. */
static struct pa_run *it_fmt_demo(void)
{
	return it_fmt_profiled("demo", "0.4");
}

/* Runs the inlines workload (one thread, two inline levels); loads its run. */
static struct pa_run *it_fmt_inlines(void)
{
	return it_fmt_profiled("inlines", "0.3");
}

/* The profile of the whole run with frames as by says. */
static struct pa_profile *it_fmt_profile_by(const struct pa_run *run, enum pa_profile_by by)
{
	struct pa_filter filter = { .event = 0 };
	struct pa_profile *prof = NULL;
	struct pa_error err;
	int rc = pa_profile_build_by(run, &filter, by, &prof, NULL, &err);

	cr_assert_eq(rc, 0, "pa_profile_build_by: %s: %s", err.path, err.reason);
	return prof;
}

/* The line of tests/workloads/inlines.c holding the comment "line:marker". */
static unsigned it_fmt_marker_line(const char *marker)
{
	char *text = tst_slurp(IT_FMT_INLINES_SRC, NULL);
	char want[64];
	const char *at;
	unsigned line = 1;

	snprintf(want, sizeof(want), "/* line:%s */", marker);
	at = strstr(text, want);
	cr_assert(at, "no %s in " IT_FMT_INLINES_SRC, want);
	for (const char *p = text; p < at; p++)
		line += *p == '\n';
	free(text);
	return line;
}

/* Runs argv (argv[0] under the build dir unless absolute); asserts exit 0; r holds its output. */
static void it_fmt_run(const char *tag, const char *const *argv, struct tst_result *r)
{
	tst_run(&it_fmt, tag, argv, NULL, r);
	cr_assert(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0,
		  "%s failed (status 0x%x): %s", argv[0], r->status, r->err);
}

/* A path in the test's scratch directory. */
static void it_fmt_tmp(char *buf, const char *name)
{
	snprintf(buf, TST_PATH_MAX, "%s/%s", it_fmt.tmp, name);
}

/* Longer names are cut to this, in the counts and when compared with them. */
#define IT_FMT_NAME_MAX 256

/* Per function name: what the other tool counted, to compare with our profile. */
struct it_fmt_count {
	char name[IT_FMT_NAME_MAX];
	uint64_t self, total;
	bool seen_total;
	bool ambiguous; /* a name two modules share: not compared */
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

/* How another tool shows the names of our functions. */
enum it_fmt_names {
	IT_FMT_NAMES_OURS,  /* as we do */
	IT_FMT_NAMES_PPROF, /* as Go pprof does: it_fmt_pprof_shown */
};

/* Removes every balanced open..close group from s, in place (unbalanced: unchanged). */
static void it_fmt_drop_groups(char *s, char open, char close)
{
	char *first = NULL;
	int depth = 0;

	for (char *p = s; *p; p++) {
		if (*p == open && depth++ == 0)
			first = p;
		if (*p != close)
			continue;
		if (--depth < 0)
			return;
		if (depth == 0) {
			memmove(first, p + 1, strlen(p + 1) + 1);
			p = first - 1;
		}
	}
}

/*
 * name, in place, as Go pprof shows it: a name we wrote that looks
 * demangled C++ (it holds "::" or one of "<>[]", and is not Java's
 * "class.<init>" or Go's "(*T[...]).M") loses its (parameters) and
 * <template arguments>.
 */
static void it_fmt_pprof_simplify(char *name)
{
	if (strstr(name, ".<") || strstr(name, "]).") ||
	    (!strstr(name, "::") && !strpbrk(name, "<>[]")))
		return;
	it_fmt_drop_groups(name, '(', ')');
	it_fmt_drop_groups(name, '<', '>');
}

/*
 * name as the tool that names functions as names says shows it, cut to
 * IT_FMT_NAME_MAX as the counts are, into out (IT_FMT_NAME_MAX bytes).
 */
static const char *it_fmt_shown(const char *name, enum it_fmt_names names, char *out)
{
	char *s = strdup(name);

	cr_assert_not_null(s);
	if (names == IT_FMT_NAMES_PPROF)
		it_fmt_pprof_simplify(s);
	snprintf(out, IT_FMT_NAME_MAX, "%s", s);
	free(s);
	return out;
}

/*
 * Whether prof has two functions that a tool naming them as names shows as
 * name (in different modules, or C++ overloads pprof merges).
 */
static bool it_fmt_ambiguous_as(const struct pa_profile *prof, const char *name,
				enum it_fmt_names names)
{
	char buf[IT_FMT_NAME_MAX];
	size_t n = 0;

	for (size_t i = 0; i < prof->nfuncs; i++)
		n += strcmp(it_fmt_shown(prof->funcs[i].name, names, buf), name) == 0;
	return n > 1;
}

static bool it_fmt_ambiguous(const struct pa_profile *prof, const char *name)
{
	char buf[IT_FMT_NAME_MAX];

	return it_fmt_ambiguous_as(prof, it_fmt_shown(name, IT_FMT_NAMES_OURS, buf),
				   IT_FMT_NAMES_OURS);
}

/* Whether a function of prof shows as name, named as names says. */
static bool it_fmt_shows(const struct pa_profile *prof, const char *name,
			 enum it_fmt_names names)
{
	char buf[IT_FMT_NAME_MAX];

	for (size_t i = 0; i < prof->nfuncs; i++)
		if (strcmp(it_fmt_shown(prof->funcs[i].name, names, buf), name) == 0)
			return true;
	return false;
}

/* A frame no symbol covers: "module+0xOFFSET" in top, "[unknown]" in perf script. */
static bool it_fmt_unresolved(const char *name)
{
	return strstr(name, "+0x") || strcmp(name, "[unknown]") == 0;
}

/*
 * Every function of prof with samples has the same self (and, when the
 * tool counted it, total) samples in c, which names them as names says,
 * and c has no function prof lacks. Names two functions share in the
 * tool's naming are skipped: the tool merges them.
 */
static void it_fmt_expect_counts_as(const char *tool, const struct pa_profile *prof,
				    struct it_fmt_counts *c, bool resolved_only,
				    enum it_fmt_names names)
{
	char buf[IT_FMT_NAME_MAX];

	for (size_t i = 0; i < prof->nfuncs; i++) {
		const struct pa_func *f = &prof->funcs[i];
		const char *shown = it_fmt_shown(f->name, names, buf);
		struct it_fmt_count *x;

		if (it_fmt_ambiguous_as(prof, shown, names) ||
		    (resolved_only && it_fmt_unresolved(f->name)))
			continue;
		x = it_fmt_count_of(c, shown);
		cr_expect_eq(x->self, f->self, "%s: %s: self %" PRIu64 ", top says %" PRIu64,
			     tool, f->name, x->self, f->self);
		if (x->seen_total)
			cr_expect_eq(x->total, f->total, "%s: %s: total %" PRIu64
				     ", top says %" PRIu64, tool, f->name, x->total, f->total);
	}
	for (size_t i = 0; i < c->n; i++)
		cr_expect(it_fmt_shows(prof, c->v[i].name, names) ||
			  (resolved_only && it_fmt_unresolved(c->v[i].name)),
			  "%s shows %s, top does not", tool, c->v[i].name);
}

static void it_fmt_expect_counts(const char *tool, const struct pa_profile *prof,
				 struct it_fmt_counts *c)
{
	it_fmt_expect_counts_as(tool, prof, c, false, IT_FMT_NAMES_OURS);
}

/* Self samples of the burn functions must be there at all, or the test proves nothing. */
static void it_fmt_expect_burns(const struct pa_profile *prof)
{
	static const char *const burns[] = { "burn_alpha", "burn_beta", "burn_gamma" };

	for (size_t i = 0; i < 3; i++)
		cr_assert_gt(tst_self(prof, burns[i]), 0, "no sample in %s", burns[i]);
}

/* The Go pprof built by the Makefile (make tests-build). */
static void it_fmt_go_pprof(char *path)
{
	tst_tool_path(path, "go-pprof");
	cr_assert(access(path, X_OK) == 0, "%s missing: run make tests-build", path);
}

/*
 * A node name of `pprof -top` (len bytes at raw) as our profiles name it:
 * without pprof's " (inline)" mark; "FUNCTION PATH:LINE" (-lines) becomes
 * "BASENAME:LINE FUNCTION", as in `top --lines`.
 */
static void it_fmt_pprof_name(const char *raw, size_t len, char *out, size_t size)
{
	static const char inl[] = " (inline)";
	const char *sp, *colon;

	if (len >= sizeof(inl) - 1 && memcmp(raw + len - (sizeof(inl) - 1), inl,
					       sizeof(inl) - 1) == 0)
		len -= sizeof(inl) - 1;
	snprintf(out, size, "%.*s", (int)len, raw);
	sp = strrchr(out, ' ');
	colon = sp ? strrchr(sp, ':') : NULL;
	if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
		char fn[256], *base;

		snprintf(fn, sizeof(fn), "%.*s", (int)(sp - out), out);
		base = strrchr(sp + 1, '/');
		base = base ? base + 1 : (char *)sp + 1;
		memmove(out, base, strlen(base) + 1);
		snprintf(out + strlen(out), size - strlen(out), " %s", fn);
	}
}

/* Parses `pprof -top` (flat flat% sum% cum cum% name) into c. */
static void it_fmt_parse_top(const char *text, struct it_fmt_counts *c, uint64_t *total)
{
	const char *line = tst_find_line(text, "Duration:");
	size_t rows = 0;

	cr_assert(line, "no Duration line in pprof -top:\n%s", text);
	cr_assert(strstr(line, "Total samples = "), "%s", line);
	*total = strtoull(strstr(line, "Total samples = ") + 16, NULL, 10);
	line = tst_find_line(text, "      flat  flat%");
	cr_assert(line, "no table in pprof -top:\n%s", text);
	for (line = strchr(line, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		uint64_t flat, cum;
		double p1, p2, p3;
		int at = 0;
		char name[256];

		if (sscanf(line + 1, "%" SCNu64 " %lf%% %lf%% %" SCNu64 " %lf%% %n",
			   &flat, &p1, &p2, &cum, &p3, &at) != 5 || !at)
			continue;
		it_fmt_pprof_name(line + 1 + at, strcspn(line + 1 + at, "\n"), name,
				  sizeof(name));
		it_fmt_count_of(c, name)->self = flat;
		it_fmt_count_of(c, name)->total = cum;
		it_fmt_count_of(c, name)->seen_total = true;
		rows++;
	}
	cr_assert_gt(rows, 3, "pprof -top shows %zu functions:\n%s", rows, text);
}

/*
 * Writes run as pprof to tmp/cpu.pb.gz and runs Go pprof's -top on it in
 * samples, with opt ("-noinlines", "-lines", ...; NULL: none); checks its
 * total against prof and its functions against prof's.
 */
static void it_fmt_pprof_top(const struct pa_profile *prof, const char *opt)
{
	char gopprof[TST_PATH_MAX], pb[TST_PATH_MAX], tool[64];
	const char *mk[] = { "pprof-analyze", "pprof", it_fmt.data, "-o", pb, NULL };
	const char *top[] = { gopprof, "-top", "-sample_index=samples", "-nodefraction=0",
			      "-nodecount=100000", pb, opt, NULL };
	struct it_fmt_counts *c = calloc(1, sizeof(*c));
	struct tst_result r;
	uint64_t total = 0;

	it_fmt_go_pprof(gopprof);
	it_fmt_tmp(pb, "cpu.pb.gz");
	if (opt) {
		top[5] = opt;
		top[6] = pb;
	}
	it_fmt_run("analyze", mk, &r);
	tst_result_release(&r);
	it_fmt_run("gopprof", top, &r);
	it_fmt_parse_top(r.out, c, &total);
	snprintf(tool, sizeof(tool), "pprof -top %s", opt ? opt : "");
	cr_expect_eq(total, prof->samples, "%s: %" PRIu64 " samples, top: %" PRIu64, tool,
		     total, prof->samples);
	it_fmt_expect_counts_as(tool, prof, c, false, IT_FMT_NAMES_PPROF);
	tst_result_release(&r);
	free(c);
}

/*
 * pprof -top -noinlines counts as our top; pprof -top (inline frames are
 * functions of their own) as top --inlines.
 */
Test(it_formats, pprof_top_agrees_with_top)
{
	char gopprof[TST_PATH_MAX], pb[TST_PATH_MAX];
	struct pa_run *run = it_fmt_demo();
	struct pa_profile *prof = tst_profile(run, 0, 0);
	struct pa_profile *inl = it_fmt_profile_by(run, PA_PROFILE_BY_INLINE);
	struct tst_result r;

	it_fmt_go_pprof(gopprof);
	it_fmt_tmp(pb, "cpu.pb.gz");
	it_fmt_expect_burns(prof);
	it_fmt_pprof_top(prof, "-noinlines");
	it_fmt_pprof_top(inl, NULL);
	pa_profile_free(inl);
	/* The default sample type is CPU time: samples x the 1 ms period. */
	{
		const char *argv[] = { gopprof, "-top", pb, NULL };

		it_fmt_run("gopprof-cpu", argv, &r);
		cr_expect(strstr(r.out, "Type: cpu"), "%s", r.out);
		cr_expect(tst_find_line(r.out, "Duration:") &&
			  strstr(tst_find_line(r.out, "Duration:"), "ms"), "%s", r.out);
		tst_result_release(&r);
	}
	pa_profile_free(prof);
	pa_run_free(run);
}

/*
 * `pprof -traces`: one block per distinct stack of locations, its labels
 * (run when several, thread, pid, tid), then "COUNT LEAF" and the callers.
 * Sums the counts per leaf function into c and per run and tid into
 * per_tid[run index * proc->nthreads + thread index]; runs[nruns] are the
 * run labels expected (NULL: none).
 */
static void it_fmt_parse_traces(const char *text, struct it_fmt_counts *c,
				const struct pa_process *proc, const char *const *runs,
				size_t nruns, uint64_t *per_tid)
{
	uint32_t tid = 0;
	size_t run = 0;
	bool before = false;

	for (const char *line = text; line; line = strchr(line, '\n')) {
		uint64_t n;
		int at = 0;
		char name[256];

		line += *line == '\n';
		if (strncmp(line, "-----------+", 12) == 0) {
			tid = 0;
			run = runs ? nruns : 0;
			before = false;
		}
		/* The time before profiling: the process's, no thread's (tid 0). */
		if (strncmp(line + strspn(line, " "), "thread:  " PA_BEFORE_NAME "\n",
			    strlen("thread:  " PA_BEFORE_NAME "\n")) == 0)
			before = true;
		if (sscanf(line, "        tid:  %" SCNu32, &tid) == 1)
			continue;
		if (runs && sscanf(line, "        run:  %n", &at) == 0 && at) {
			for (run = 0; run < nruns; run++)
				if (strncmp(line + at, runs[run], strlen(runs[run])) == 0 &&
				    line[at + strlen(runs[run])] == '\n')
					break;
			continue;
		}
		if (sscanf(line, " %" SCNu64 " %n", &n, &at) != 1 || !at || line[0] != ' ')
			continue;
		cr_assert(tid || before, "a trace without a tid label:\n%s", line);
		cr_assert_lt(run, nruns, "a trace without a run label:\n%s", line);
		it_fmt_pprof_name(line + at, strcspn(line + at, "\n"), name, sizeof(name));
		it_fmt_count_of(c, name)->self += n;
		for (size_t t = 0; t < proc->nthreads; t++)
			if (proc->threads[t]->tid == tid)
				per_tid[run * proc->nthreads + t] += n;
	}
}

Test(it_formats, pprof_traces_agree_per_thread)
{
	char gopprof[TST_PATH_MAX], pb[TST_PATH_MAX];
	struct it_fmt_counts *c = calloc(1, sizeof(*c));
	struct pa_run *run = it_fmt_demo();
	const struct pa_process *proc = run->processes[0];
	/* traces show every inline level as a frame */
	struct pa_profile *prof = it_fmt_profile_by(run, PA_PROFILE_BY_INLINE);
	struct pa_profile *byfn = tst_profile(run, 0, 0);
	uint64_t *per_tid = calloc(proc->nthreads + 1, sizeof(*per_tid));
	const char *argv[] = { "pprof-analyze", "pprof", it_fmt.data, "-o", pb, NULL };
	const char *traces[] = { gopprof, "-traces", "-sample_index=samples", pb, NULL };
	struct tst_result r;

	it_fmt_go_pprof(gopprof);
	it_fmt_tmp(pb, "cpu.pb.gz");
	it_fmt_expect_burns(byfn);
	pa_profile_free(byfn);
	it_fmt_run("analyze", argv, &r);
	tst_result_release(&r);
	it_fmt_run("gopprof", traces, &r);
	it_fmt_parse_traces(r.out, c, proc, NULL, 1, per_tid);
	it_fmt_expect_counts_as("pprof -traces", prof, c, false, IT_FMT_NAMES_PPROF);
	for (size_t t = 0; t < proc->nthreads; t++) {
		struct pa_filter f = { .tid = proc->threads[t]->tid, .event = 0 };

		cr_expect_eq(per_tid[t], pa_filter_count_samples(&f, proc, proc->threads[t]),
			     "pprof -traces: tid %" PRIu32 " has %" PRIu64 " samples",
			     proc->threads[t]->tid, per_tid[t]);
	}
	tst_result_release(&r);
	free(per_tid);
	free(c);
	pa_profile_free(prof);
	pa_run_free(run);
}

/*
 * Loads a speedscope file with python3's json and checks its structure
 * against the file format's schema by hand (types, frame indexes, one
 * weight per sample, endValue); prints "profile TID SAMPLES WEIGHT" per
 * profile, "self COUNT NAME" per leaf frame (the last of each stack) and
 * "frame NAME\tFILE\tLINE" per frame with a line.
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
"    for s, w in zip(p['samples'], p['weights']):\n"
"        assert s and all(0 <= i < len(frames) for i in s) and w > 0\n"
"        selfs[frames[s[-1]]['name']] += w\n"
"    tid = 0 if p['name'].endswith(') [before profiling]') else \\\n"
"          int(p['name'].rsplit('(', 1)[1].rstrip(')'))\n"
"    print('profile', tid, sum(p['weights']), p['unit'], min(p['weights']))\n"
"for n, c in selfs.items():\n"
"    print('self', c, n)\n"
"for f in frames:\n"
"    assert isinstance(f.get('file', ''), str)\n"
"    if 'line' in f:\n"
"        assert isinstance(f['line'], int) and f['line'] > 0 and f['file']\n"
"        print('frame %s\\t%s\\t%d' % (f['name'], f['file'], f['line']))\n";

Test(it_formats, speedscope_profiles_per_thread)
{
	char json[TST_PATH_MAX];
	struct it_fmt_counts *c = calloc(1, sizeof(*c));
	struct pa_run *run = it_fmt_demo();
	const struct pa_process *proc = run->processes[0];
	/* every inline level is a frame of its own */
	struct pa_profile *prof = it_fmt_profile_by(run, PA_PROFILE_BY_INLINE);
	struct pa_profile *byfn = tst_profile(run, 0, 0);
	const char *argv[] = { "pprof-analyze", "speedscope", it_fmt.data, "-o", json, NULL };
	const char *py[] = { "/usr/bin/python3", "-c", it_fmt_speedscope_py, json, NULL };
	struct tst_result r;
	size_t profiles = 0, threads = 0;
	uint64_t period_ns = (uint64_t)(tst_period_s(proc) * 1e9 + 0.5);
	bool burn_src = false;

	it_fmt_tmp(json, "out.json");
	it_fmt_expect_burns(byfn);
	pa_profile_free(byfn);
	it_fmt_run("analyze", argv, &r);
	tst_result_release(&r);
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
			/* tid 0: the process's time before profiling, its estimated samples */
			cr_assert(th || tid == 0, "speedscope: a profile for tid %" PRIu32 " not in "
				  "the run", tid);
			/*
			 * cpu-clock at 1 ms: each sample weighs the period, in ns,
			 * times the overflows it stands for; in all, the thread's
			 * samples as top counts them.
			 */
			cr_expect_str_eq(unit, "nanoseconds");
			cr_expect_eq(w % period_ns, 0, "speedscope: tid %" PRIu32 ": weight %" PRIu64,
				     tid, w);
			cr_expect_eq(n / period_ns,
				     th ? pa_filter_count_samples(&f, proc, th) : prof->estimated,
				     "speedscope: tid %" PRIu32 " weighs %" PRIu64 " periods", tid,
				     n / period_ns);
			profiles++;
		} else if (sscanf(line, "self %" SCNu64 " %n", &n, &at) == 1 && at) {
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(line + at, "\n"),
				 line + at);
			it_fmt_count_of(c, name)->self = n / period_ns;
		} else if (strncmp(line, "frame burn_alpha\t", 17) == 0) {
			/* where burn_alpha starts: its source file and a line */
			burn_src = strstr(line, "/tests/workloads/demo.c\t") != NULL;
		}
	}
	cr_expect(burn_src, "speedscope: no source file for burn_alpha:\n%s", r.out);
	for (size_t t = 0; t < proc->nthreads; t++) {
		struct pa_filter f = { .tid = proc->threads[t]->tid, .event = 0 };

		threads += pa_filter_count_samples(&f, proc, proc->threads[t]) > 0;
	}
	threads += prof->estimated > 0;
	cr_expect_eq(profiles, threads, "speedscope: %zu profiles for %zu threads with samples "
		     "(and the time before profiling)", profiles, threads);
	it_fmt_expect_counts("speedscope", prof, c);
	tst_result_release(&r);
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
static bool it_fmt_script_sample(const char **text, uint32_t *tid, uint64_t *period_out,
				 char *leaf, size_t size)
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
	*period_out = period;
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

/*
 * prof without the estimate of the time before profiling (before.h), which
 * `script` leaves out: it is no sample taken.
 */
static void it_fmt_drop_before(struct pa_profile *prof)
{
	for (size_t i = 0; i < prof->nfuncs; i++)
		if (strcmp(prof->funcs[i].name, PA_BEFORE_NAME) == 0)
			prof->funcs[i].self = prof->funcs[i].total = 0;
	prof->samples -= prof->estimated;
	prof->estimated = 0;
}

/*
 * Checks the layout of every sample of text; counts leaf functions into c
 * (may be NULL). With proc, each sample counts the overflows it stands for,
 * as the other reports do: its PERIOD over the period of proc's event 0 (a
 * late sample stands for several, its weight); without, 1 each.
 */
static size_t it_fmt_script_check(const char *text, struct it_fmt_counts *c,
				  const struct pa_process *proc, uint64_t *per_tid)
{
	const struct pa_event *e = proc ? pa_process_find_event(proc, 0) : NULL;
	uint64_t unit = e ? pa_event_sample_period(e) : 0, period = 0;
	char leaf[256];
	uint32_t tid = 0;
	size_t n = 0;

	while (it_fmt_script_sample(&text, &tid, &period, leaf, sizeof(leaf))) {
		uint64_t k = unit ? period / unit : 1;

		cr_expect(!unit || (k > 0 && period % unit == 0),
			  "script: PERIOD %" PRIu64 " is no whole number of the event's %" PRIu64,
			  period, unit);
		n += k;
		if (c)
			it_fmt_count_of(c, leaf)->self += k;
		for (size_t t = 0; proc && t < proc->nthreads; t++)
			if (proc->threads[t]->tid == tid)
				per_tid[t] += k;
	}
	return n;
}

Test(it_formats, script_has_perf_script_layout)
{
	struct it_fmt_counts *c = calloc(1, sizeof(*c));
	struct pa_run *run = it_fmt_demo();
	const struct pa_process *proc = run->processes[0];
	struct pa_profile *prof = tst_profile(run, 0, 0);
	uint64_t *per_tid = calloc(proc->nthreads + 1, sizeof(*per_tid));
	const char *argv[] = { "pprof-analyze", "script", it_fmt.data, NULL };
	struct tst_result r;

	it_fmt_expect_burns(prof);
	it_fmt_drop_before(prof);
	it_fmt_run("analyze", argv, &r);
	cr_expect_eq(it_fmt_script_check(r.out, c, proc, per_tid), prof->samples);
	it_fmt_expect_counts_as("script", prof, c, true, IT_FMT_NAMES_OURS);
	for (size_t t = 0; t < proc->nthreads; t++) {
		struct pa_filter f = { .tid = proc->threads[t]->tid, .event = 0 };

		cr_expect_eq(per_tid[t], pa_filter_count_samples(&f, proc, proc->threads[t]),
			     "script: tid %" PRIu32 " has %" PRIu64 " samples",
			     proc->threads[t]->tid, per_tid[t]);
	}
	tst_result_release(&r);
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
	char data[TST_PATH_MAX];
	const char *rec[] = { "/usr/bin/perf", "record", "-q", "-e", "cpu-clock", "-g", "-o",
			      data, "workloads/demo", "0.2", NULL };
	const char *script[] = { "/usr/bin/perf", "script", "-i", data, NULL };
	struct tst_result r;
	char demo[TST_PATH_MAX];

	it_fmt_tmp(data, "perf.data");
	tst_build_path(demo, "workloads/demo");
	rec[8] = demo;
	if (access("/usr/bin/perf", X_OK) != 0)
		cr_skip_test("perf is not installed");
	tst_run(&it_fmt, "perf-record", rec, NULL, &r);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
		tst_result_release(&r);
		cr_skip_test("perf record failed here");
	}
	tst_result_release(&r);
	it_fmt_run("perf-script", script, &r);
	cr_expect_gt(it_fmt_script_check(r.out, NULL, NULL, NULL), 0);
	tst_result_release(&r);
}

/* The threads of proc with samples of event 0. */
static size_t it_fmt_sampled_threads(const struct pa_process *proc)
{
	size_t n = 0;

	for (size_t t = 0; t < proc->nthreads; t++) {
		struct pa_filter f = { .tid = proc->threads[t]->tid, .event = 0 };

		n += pa_filter_count_samples(&f, proc, proc->threads[t]) > 0;
	}
	return n;
}

/*
 * Checks the lines of `folded --per-thread` in text that start with the
 * root run ("DIR", NULL: every line, with no such root): then the roots
 * "EXE (PID)" and "THREAD (TID)" of proc, then a stack of prof. Sums their
 * counts per thread into per_tid[] and per stack of prof into per_stack[];
 * returns how many lines it took.
 */
static size_t it_fmt_folded_threads(const char *text, const char *run,
				    const struct pa_process *proc, const struct pa_profile *prof,
				    uint64_t *per_tid, uint64_t *per_stack)
{
	char root[TST_PATH_MAX + 300];
	size_t lines = 0;

	snprintf(root, sizeof(root), "%s%s%s (%" PRIu32 ");", run ? run : "", run ? ";" : "",
		 pa_process_exe_base(proc), proc->pid);
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line += !!line) {
		size_t len = strcspn(line, "\n");
		const char *sp = line + len;
		const char *stack, *paren;
		uint64_t count;
		uint32_t tid;

		if (run && (strncmp(line, run, strlen(run)) || line[strlen(run)] != ';'))
			continue;
		lines++;
		while (sp > line && sp[-1] != ' ')
			sp--;
		count = strtoull(sp, NULL, 10);
		cr_assert(strncmp(line, root, strlen(root)) == 0, "no root %s: %.*s", root,
			  (int)len, line);
		/* The process's time before profiling: no thread frame. */
		if (strncmp(line + strlen(root), PA_BEFORE_NAME " ", strlen(PA_BEFORE_NAME) + 1) == 0) {
			stack = line + strlen(root) - 1;
			goto count_stack;
		}
		stack = strchr(line + strlen(root), ';');
		cr_assert(stack && stack < sp, "no thread frame: %.*s", (int)len, line);
		paren = stack;
		while (paren > line && paren[-1] != '(')
			paren--;
		tid = (uint32_t)strtoul(paren, NULL, 10);
		for (size_t t = 0; t < proc->nthreads; t++)
			if (proc->threads[t]->tid == tid)
				per_tid[t] += count;
count_stack:
		/* Without its roots, the line is a stack of `folded` */
		for (size_t i = 0; i < prof->nstacks; i++) {
			char *s = pa_stack_fold(&prof->stacks[i]);

			if (strlen(s) == (size_t)(sp - 1 - (stack + 1)) &&
			    strncmp(s, stack + 1, strlen(s)) == 0)
				per_stack[i] += count;
			free(s);
		}
	}
	return lines;
}

/* per_tid[] (by thread index of proc) are the samples of each thread. */
static void it_fmt_expect_per_tid(const char *tool, const struct pa_process *proc,
				  const uint64_t *per_tid)
{
	for (size_t t = 0; t < proc->nthreads; t++) {
		struct pa_filter f = { .tid = proc->threads[t]->tid, .event = 0 };

		cr_expect_eq(per_tid[t], pa_filter_count_samples(&f, proc, proc->threads[t]),
			     "%s: tid %" PRIu32 " has %" PRIu64 " samples", tool,
			     proc->threads[t]->tid, per_tid[t]);
	}
}

/* per_stack[] are the counts of prof's stacks. */
static void it_fmt_expect_per_stack(const char *tool, const struct pa_profile *prof,
				    const uint64_t *per_stack)
{
	for (size_t i = 0; i < prof->nstacks; i++)
		cr_expect_eq(per_stack[i], prof->stacks[i].count, "%s: stack %zu: %" PRIu64
			     ", %" PRIu64 " in folded", tool, i, per_stack[i],
			     prof->stacks[i].count);
}

Test(it_formats, folded_per_thread_has_process_and_thread_roots)
{
	struct pa_run *run = it_fmt_demo();
	const struct pa_process *proc = run->processes[0];
	struct pa_profile *prof = tst_profile(run, 0, 0);
	uint64_t *per_tid = calloc(proc->nthreads + 1, sizeof(*per_tid));
	uint64_t *per_stack = calloc(prof->nstacks + 1, sizeof(*per_stack));
	const char *argv[] = { "pprof-analyze", "folded", "--per-thread", it_fmt.data, NULL };
	struct tst_result r;

	it_fmt_expect_burns(prof);
	it_fmt_run("analyze", argv, &r);
	it_fmt_folded_threads(r.out, NULL, proc, prof, per_tid, per_stack);
	it_fmt_expect_per_tid("folded --per-thread", proc, per_tid);
	it_fmt_expect_per_stack("folded --per-thread", prof, per_stack);
	tst_result_release(&r);
	free(per_stack);
	free(per_tid);
	pa_profile_free(prof);
	pa_run_free(run);
}

/*
 * The counts `pprof -list` gives line want of its ROUTINE for func ("." is
 * 0); asserts the file, that the listing starts where func starts (our
 * Function.start_line: pprof starts a few lines above the first counted
 * one otherwise), and that line want shows its source, marker's comment.
 */
static void it_fmt_list_line(const char *text, const char *func, unsigned want,
			     const char *marker, uint64_t *flat, uint64_t *cum)
{
	char head[128], comment[64], start[64];
	const char *line = NULL;
	bool first = true;

	snprintf(head, sizeof(head), "ROUTINE ======================== %s in ", func);
	snprintf(comment, sizeof(comment), "/* line:%s */", marker);
	snprintf(start, sizeof(start), " %s(unsigned ", func);
	line = tst_find_line(text, head);
	cr_assert(line, "pprof -list: no %s:\n%s", head, text);
	cr_expect(strncmp(line + strcspn(line, "\n") - 20, "/workloads/inlines.c", 20) == 0,
		  "pprof -list: %.*s", (int)strcspn(line, "\n"), line);
	for (line = strchr(line, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		char f[32], c[32];
		unsigned n;

		if (strncmp(line + 1, "ROUTINE ", 8) == 0)
			break;
		if (sscanf(line + 1, "%31s %31s %u:", f, c, &n) != 3)
			continue;
		if (first)
			cr_expect(strstr(line + 1, start) &&
				  strstr(line + 1, start) < line + 1 + strcspn(line + 1, "\n"),
				  "pprof -list %s starts elsewhere: %.*s", func,
				  (int)strcspn(line + 1, "\n"), line + 1);
		first = false;
		if (n != want)
			continue;
		cr_expect(strstr(line + 1, comment) &&
			  strstr(line + 1, comment) < line + 1 + strcspn(line + 1, "\n"),
			  "pprof -list %s: line %u is not the source's: %.*s", func, want,
			  (int)strcspn(line + 1, "\n"), line + 1);
		*flat = strcmp(f, ".") == 0 ? 0 : strtoull(f, NULL, 10);
		*cum = strcmp(c, ".") == 0 ? 0 : strtoull(c, NULL, 10);
		return;
	}
	cr_assert_fail("pprof -list %s: no line %u:\n%s", func, want, text);
}

/* Expects `pprof -list func` to give prof's counts of "inlines.c:LINE func" at marker. */
static void it_fmt_expect_list(const char *gopprof, const char *pb,
			       const struct pa_profile *prof, const char *func,
			       const char *marker)
{
	/* pprof's guess for where sources are fails from build/tests: tell it */
	const char *argv[] = { gopprof, "-list", func, "-sample_index=samples",
			       "-source_path=" PP_TEST_SOURCE_DIR, pb, NULL };
	unsigned line = it_fmt_marker_line(marker);
	const struct pa_func *f;
	struct tst_result r;
	uint64_t flat = 0, cum = 0;
	char name[128];

	snprintf(name, sizeof(name), "inlines.c:%u %s", line, func);
	f = pa_profile_find(prof, name);
	cr_assert(f && f->self > 0, "top --lines --inlines has no samples at %s", name);
	it_fmt_run("gopprof-list", argv, &r);
	it_fmt_list_line(r.out, func, line, marker, &flat, &cum);
	cr_expect_eq(flat, f->self, "pprof -list %s: line %u: flat %" PRIu64 ", we say %" PRIu64,
		     func, line, flat, f->self);
	cr_expect_eq(cum, f->total, "pprof -list %s: line %u: cum %" PRIu64 ", we say %" PRIu64,
		     func, line, cum, f->total);
	tst_result_release(&r);
}

/*
 * Source files, lines and inline frames reach Go pprof: -top -lines counts
 * every FILE:LINE FUNCTION as top --lines --inlines does, -top shows the
 * inlined functions as top --inlines does, and -list shows the workload's
 * source with our counts at the inlined call and inside the inlined code.
 */
Test(it_formats, pprof_has_lines_and_inline_frames)
{
	char gopprof[TST_PATH_MAX], pb[TST_PATH_MAX];
	struct pa_run *run = it_fmt_inlines();
	struct pa_profile *lines = it_fmt_profile_by(run, PA_PROFILE_BY_LINE_INLINE);
	struct pa_profile *inl = it_fmt_profile_by(run, PA_PROFILE_BY_INLINE);

	it_fmt_go_pprof(gopprof);
	it_fmt_tmp(pb, "cpu.pb.gz");
	cr_assert_gt(tst_self(inl, "inl_square"), 0, "no sample in inlined inl_square");
	it_fmt_pprof_top(lines, "-lines");
	it_fmt_pprof_top(inl, NULL);
	it_fmt_expect_list(gopprof, pb, lines, "inl_outer", "outer_call");
	it_fmt_expect_list(gopprof, pb, lines, "inl_square", "square");
	pa_profile_free(inl);
	pa_profile_free(lines);
	pa_run_free(run);
}

/*
 * What the page runs once it has loaded the profile (PA_INDEX set before):
 * press "n" (speedscope's key for the next profile) until profile
 * PA_INDEX (from 1) shows, then add its label to the page's title,
 * " [profile I/N: NAME]" (" [profile 1/1: ]" when there is one profile:
 * speedscope shows no "(I/N)" then). For profile 1, first press ctrl+s,
 * speedscope's export, catch the speedscope JSON it would download (its
 * own model of what it read, to the last digit) and put per profile
 * "P UNIT NAME", then per function "F SELF TOTAL NAME" (its weights)
 * into <pre id="pa-export">; the title gets " [exported]" too.
 */
static const char it_fmt_speedscope_select_js[] =
"function paSums(d) {\n"
"	var out = [];\n"
"	for (var p of d.profiles) {\n"
"		var self = {}, total = {}, depth = {}, from = {}, stack = [], last = 0, byname = {};\n"
"		for (var e of p.events) {\n"
"			var top = stack[stack.length - 1];\n"
"			if (stack.length) self[top] = (self[top] || 0) + e.at - last;\n"
"			last = e.at;\n"
"			if (e.type === 'O') {\n"
"				stack.push(e.frame);\n"
"				if (!depth[e.frame]) from[e.frame] = e.at;\n"
"				depth[e.frame] = (depth[e.frame] || 0) + 1;\n"
"			} else {\n"
"				stack.pop();\n"
"				if (!--depth[e.frame])\n"
"					total[e.frame] = (total[e.frame] || 0) + e.at - from[e.frame];\n"
"			}\n"
"		}\n"
"		out.push('P ' + p.unit + ' ' + p.name);\n"
"		for (var f in total) {\n"
"			var n = d.shared.frames[f].name;\n"
"			byname[n] = byname[n] || [0, 0];\n"
"			byname[n][0] += self[f] || 0;\n"
"			byname[n][1] += total[f];\n"
"		}\n"
"		for (var n in byname) out.push('F ' + byname[n][0] + ' ' + byname[n][1] + ' ' + n);\n"
"	}\n"
"	return out.join('\\n') + '\\n';\n"
"}\n"
"function paExport(then, tries) {\n"
"	var RealBlob = window.Blob, text = null, pre;\n"
"	window.Blob = function (parts, opts) {\n"
"		text = parts.join('');\n"
"		return new RealBlob(parts, opts);\n"
"	};\n"
"	HTMLAnchorElement.prototype.click = function () {};\n"
"	URL.createObjectURL = function () { return 'data:,'; };\n"
"	window.dispatchEvent(new KeyboardEvent('keydown', { key: 's', ctrlKey: true }));\n"
"	window.Blob = RealBlob;\n"
"	/* a key speedscope did not act on yet (still setting up): again, a while */\n"
"	if (text === null) {\n"
"		if (tries < 200)\n"
"			setTimeout(paExport, 20, then, tries + 1);\n"
"		return;\n"
"	}\n"
"	pre = document.createElement('pre');\n"
"	pre.id = 'pa-export';\n"
"	pre.textContent = paSums(JSON.parse(text));\n"
"	document.body.appendChild(pre);\n"
"	then(' [exported]');\n"
"}\n"
"(function step(sent, wait) {\n"
"	var label = null, name;\n"
"	for (var s of document.querySelectorAll('span')) {\n"
"		var m = /^(.*) \\((\\d+)\\/(\\d+)\\)$/.exec(s.textContent);\n"
"		if (m) label = m;\n"
"	}\n"
"	if (!document.title.endsWith(' - speedscope') || !document.querySelector('td[title]'))\n"
"		return setTimeout(step, 10, sent, wait);\n"
"	/* n or p until the label says PA_INDEX; again when a key went unseen */\n"
"	if (label && +label[2] !== PA_INDEX) {\n"
"		if (+label[2] !== sent || wait >= 50) {\n"
"			window.dispatchEvent(new KeyboardEvent('keypress',\n"
"				{ key: +label[2] < PA_INDEX ? 'n' : 'p' }));\n"
"			sent = +label[2];\n"
"			wait = 0;\n"
"		}\n"
"		return setTimeout(step, 10, sent, wait + 1);\n"
"	}\n"
"	/* no label yet (speedscope still rendering its toolbar): look again */\n"
"	if (!label && PA_INDEX !== 1)\n"
"		return setTimeout(step, 10, sent, wait + 1);\n"
"	name = label ? ' [profile ' + label[2] + '/' + label[3] + ': ' + label[1] + ']' :\n"
"		' [profile 1/1: ]';\n"
"	if (PA_INDEX === 1)\n"
"		paExport(function (done) { document.title += name + done; }, 0);\n"
"	else\n"
"		document.title += name;\n"
"})(0, 0);\n";

/*
 * Writes to js what speedscope's CLI does to open a file,
 * speedscope.loadFileFromBase64(NAME, BASE64 of file), then
 * it_fmt_speedscope_select_js for profile index.
 */
static void it_fmt_speedscope_js(const char *file, const char *name, size_t index,
				 const char *js)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t len;
	unsigned char *in = (unsigned char *)tst_slurp(file, &len);
	FILE *out = fopen(js, "w");

	cr_assert(out, "cannot write %s", js);
	fprintf(out, "speedscope.loadFileFromBase64(\"%s\", \"", name);
	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0) |
			     (i + 2 < len ? in[i + 2] : 0);

		fputc(b64[v >> 18 & 63], out);
		fputc(b64[v >> 12 & 63], out);
		fputc(i + 1 < len ? b64[v >> 6 & 63] : '=', out);
		fputc(i + 2 < len ? b64[v & 63] : '=', out);
	}
	fprintf(out, "\");\nvar PA_INDEX = %zu;\n", index);
	fputs(it_fmt_speedscope_select_js, out);
	cr_assert_eq(fclose(out), 0);
	free(in);
}

/* A speedscope time ("258.00ms", "1.20s", "0.00ns") in nanoseconds; *step: its last digit's. */
static double it_fmt_speedscope_ns(const char *text, double *step)
{
	char *end;
	double v = strtod(text, &end), unit = 1e9;

	if (strncmp(end, "ns", 2) == 0)
		unit = 1;
	else if (strncmp(end, "µs", strlen("µs")) == 0 || strncmp(end, "us", 2) == 0)
		unit = 1e3;
	else if (strncmp(end, "ms", 2) == 0)
		unit = 1e6;
	else
		cr_assert_eq(*end, 's', "speedscope: bad time %.20s", text);
	*step = unit / 100;
	return v * unit;
}

/* One row of speedscope's sandwich table. */
struct it_fmt_row {
	double total, self; /* ns */
	double step;        /* ns: the last digit shown of the larger */
	char file[TST_PATH_MAX], name[256];
};

/*
 * The row of speedscope's sandwich table at or after dom: the text of its
 * <td>s, total and self times, then the frame's file (the title) and
 * name. Returns the text after the row, or NULL when there is none.
 */
static const char *it_fmt_sandwich_row(const char *dom, struct it_fmt_row *row)
{
	const char *tr = strstr(dom, "<tr class="), *td, *title, *span;
	double step;

	if (!tr)
		return NULL;
	td = strstr(tr, "<td");
	cr_assert(td, "speedscope: a row without cells");
	row->total = it_fmt_speedscope_ns(strchr(td, '>') + 1, &row->step);
	td = strstr(td + 3, "<td");
	cr_assert(td, "speedscope: a row without its self cell");
	row->self = it_fmt_speedscope_ns(strchr(td, '>') + 1, &step);
	row->step = step > row->step ? step : row->step;
	title = strstr(td + 3, "<td title=\"");
	cr_assert(title, "speedscope: a row without a file title");
	title += strlen("<td title=\"");
	snprintf(row->file, sizeof(row->file), "%.*s", (int)strcspn(title, "\""), title);
	span = strstr(title, "</span>");
	cr_assert(span, "speedscope: a row without a name");
	span += strlen("</span>");
	snprintf(row->name, sizeof(row->name), "%.*s", (int)strcspn(span, "<"), span);
	return span;
}

/*
 * What speedscope must show for one profile (a thread): its name, and per
 * function the self and total time in ns. src_func (may be NULL) must show src_file.
 */
struct it_fmt_ss_want {
	char name[300];
	struct it_fmt_counts c;
	const char *src_func, *src_file;
	bool seen, src_seen;
};

/*
 * One function speedscope shows in want's profile (what: where) with
 * self and total in ns, compared with want's to within tol ns; shown[]
 * marks want's functions seen. resolved_only: frames without a symbol
 * (perf script's "[unknown]", which speedscope names "??? (MODULE)") are
 * not compared. Returns want's function, NULL if none or not compared.
 */
static const struct it_fmt_count *it_fmt_ss_expect(struct it_fmt_ss_want *want, bool *shown,
						   const char *what, const char *name,
						   double self, double total, double tol,
						   bool resolved_only)
{
	const struct it_fmt_count *f = NULL;

	if (resolved_only && strncmp(name, "??? (", 5) == 0)
		return NULL;
	for (size_t i = 0; i < want->c.n && !f; i++)
		if (strcmp(want->c.v[i].name, name) == 0) {
			f = &want->c.v[i];
			shown[i] = true;
		}
	cr_expect(f, "speedscope %s: %s shows %s, we do not", what, want->name, name);
	if (!f || f->ambiguous)
		return NULL;
	cr_expect(self > (double)f->self - tol && self < (double)f->self + tol,
		  "speedscope %s: %s: %s: self %.0f ns, we say %" PRIu64, what, want->name,
		  name, self, f->self);
	cr_expect(total > (double)f->total - tol && total < (double)f->total + tol,
		  "speedscope %s: %s: %s: total %.0f ns, we say %" PRIu64, what, want->name,
		  name, total, f->total);
	return f;
}

/* Every function of want was shown (see it_fmt_ss_expect); frees shown. */
static void it_fmt_ss_expect_all(const struct it_fmt_ss_want *want, bool *shown,
				 const char *what, bool resolved_only)
{
	for (size_t i = 0; i < want->c.n; i++)
		cr_expect(shown[i] || (resolved_only && it_fmt_unresolved(want->c.v[i].name)),
			  "speedscope %s: %s lacks %s", what, want->name, want->c.v[i].name);
	free(shown);
}

/*
 * speedscope's sandwich view in dom (one profile) against want: every row
 * a function of want with its self and total time, to the digits shown;
 * every function of want there.
 */
static void it_fmt_speedscope_rows(const char *dom, struct it_fmt_ss_want *want,
				   bool resolved_only)
{
	bool *shown = calloc(want->c.n + 1, sizeof(*shown));
	struct it_fmt_row *row = calloc(1, sizeof(*row));

	for (const char *p = it_fmt_sandwich_row(dom, row); p; p = it_fmt_sandwich_row(p, row)) {
		const struct it_fmt_count *f = it_fmt_ss_expect(want, shown, "sandwich", row->name,
								row->self, row->total,
								row->step, resolved_only);

		if (f && want->src_func && strcmp(row->name, want->src_func) == 0)
			want->src_seen = strcmp(row->file, want->src_file) == 0;
	}
	it_fmt_ss_expect_all(want, shown, "sandwich", resolved_only);
	if (want->src_func)
		cr_expect(want->src_seen, "speedscope: %s not shown in %s", want->src_func,
			  want->src_file);
	free(row);
}

/*
 * speedscope's export in dom (<pre id="pa-export">, see
 * it_fmt_speedscope_select_js) against want[n]: n profiles, one per want,
 * every function's self and total weights those of want to 0.1 µs (the
 * sandwich view shows three digits only), every function of want there.
 */
static void it_fmt_speedscope_export(const char *dom, struct it_fmt_ss_want *want, size_t n,
				     bool resolved_only)
{
	static const char tag[] = "<pre id=\"pa-export\">";
	const char *p = strstr(dom, tag), *end;
	struct it_fmt_ss_want *w = NULL;
	bool *shown = NULL;
	double scale = 1;
	size_t profiles = 0;

	cr_assert(p && strstr(p, "</pre>"), "speedscope's export is missing");
	end = strstr(p, "</pre>");
	for (p += strlen(tag); p < end; p += strcspn(p, "\n") + 1) {
		int len = (int)strcspn(p, "\n"), at = 0;
		double self, total;
		char name[300];

		if (strncmp(p, "P ", 2) == 0) {
			if (w)
				it_fmt_ss_expect_all(w, shown, "export", resolved_only);
			scale = strncmp(p + 2, "seconds ", 8) == 0 ? 1e9 : 1;
			cr_assert(scale > 1 || strncmp(p + 2, "nanoseconds ", 12) == 0,
				  "speedscope export: unit of %.*s", len, p);
			at = (int)strcspn(p + 2, " ") + 3;
			snprintf(name, sizeof(name), "%.*s", len - at, p + at);
			w = NULL;
			for (size_t k = 0; k < n && !w; k++)
				if (strcmp(want[k].name, name) == 0)
					w = &want[k];
			cr_assert(w, "speedscope exports a profile we do not have: %s", name);
			shown = calloc(w->c.n + 1, sizeof(*shown));
			profiles++;
		} else if (sscanf(p, "F %lf %lf %n", &self, &total, &at) == 2 && at && w) {
			snprintf(name, sizeof(name), "%.*s", len - at, p + at);
			it_fmt_ss_expect(w, shown, "export", name, self * scale, total * scale, 100,
					 resolved_only);
		}
	}
	if (w)
		it_fmt_ss_expect_all(w, shown, "export", resolved_only);
	cr_expect_eq(profiles, n, "speedscope exports %zu profiles, we have %zu", profiles, n);
}

/*
 * Loads file into speedscope (npm, installed by make tests-build) in
 * headless Chromium as its command line does it: a script that calls
 * speedscope.loadFileFromBase64 with the file's name, named by
 * #localProfilePath= (a file: URL cannot be fetched, which #profileURL=
 * needs). speedscope picks its importer by the content: it must take the
 * file for what importer (its console line) says. Profile index (from 1)
 * of n is selected (speedscope shows one at a time), in the sandwich view
 * (a DOM table; the flame charts are canvases); for profile 1, what
 * speedscope exports is in the page too (it_fmt_speedscope_select_js). r
 * gets the page; returns the profile's name, followed by ']'.
 */
static const char *it_fmt_speedscope_load(const char *file, const char *name,
					  const char *importer, size_t index, size_t n,
					  struct tst_result *r)
{
	char js[TST_PATH_MAX], html[TST_PATH_MAX];
	char url[3 * TST_PATH_MAX], profile[TST_PATH_MAX + 32], title[128];
	const char *t;

	tst_tool_path(html, "speedscope/node_modules/speedscope/dist/release/index.html");
	cr_assert(access(html, R_OK) == 0, "%s missing: run make tests-build", html);
	cr_assert(access(IT_FMT_CHROMIUM, X_OK) == 0, IT_FMT_CHROMIUM " is missing: make deps");
	it_fmt_tmp(js, "speedscope.js");
	snprintf(url, sizeof(url), "file://%s#localProfilePath=%s&view=sandwich", html, js);
	snprintf(profile, sizeof(profile), "--user-data-dir=%s/chromium", it_fmt.tmp);
	it_fmt_speedscope_js(file, name, index, js);
	/*
	 * the virtual time lets the script's timers run before the DOM is dumped;
	 * 30 s of it: once in a loaded run, 10 s ended before profile 4 of 4 showed
	 */
	tst_run(&it_fmt, "chromium",
		  (const char *[]){ IT_FMT_CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox",
				    "--disable-dev-shm-usage", "--no-first-run", profile,
				    "--window-size=1280,2000", "--virtual-time-budget=30000",
				    "--enable-logging=stderr", "--v=0", "--dump-dom", url, NULL },
		  NULL, r);
	cr_assert(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0,
		  "chromium failed (status 0x%x): %s", r->status, r->err);
	cr_expect_null(strstr(r->err, "Uncaught"), "script error in speedscope: %s", r->err);
	cr_assert(strstr(r->err, importer), "speedscope did not import %s as \"%s\": %s", name,
		  importer, r->err);
	snprintf(title, sizeof(title), " - speedscope [profile %zu/%zu: ", index, n);
	t = strstr(r->out, title);
	cr_assert(t, "speedscope did not show profile %zu of %zu of %s: %.*s", index, n, name,
		  (int)strcspn(strstr(r->out, "<title>") ? strstr(r->out, "<title>") : r->out,
				"\n"), strstr(r->out, "<title>") ? strstr(r->out, "<title>") : "");
	cr_assert(index > 1 || strstr(t, "] [exported]</title>"), "speedscope did not export");
	return t + strlen(title);
}

/*
 * Loads file into speedscope with it_fmt_speedscope_load for every
 * profile in turn, and compares its sandwich view with the want of the
 * same name: n profiles, one per want; and what speedscope exports with
 * every want, to the last digit.
 */
static void it_fmt_speedscope_check(const char *file, const char *name, const char *importer,
				    struct it_fmt_ss_want *want, size_t n, bool resolved_only)
{
	for (size_t i = 1; i <= n; i++) {
		struct it_fmt_ss_want *w = n == 1 ? &want[0] : NULL;
		struct tst_result r;
		const char *label = it_fmt_speedscope_load(file, name, importer, i, n, &r);

		for (size_t k = 0; k < n && !w; k++)
			if (strncmp(label, want[k].name, strlen(want[k].name)) == 0 &&
			    label[strlen(want[k].name)] == ']')
				w = &want[k];
		cr_assert(w, "speedscope shows a profile we do not have: %.*s",
			  (int)strcspn(label, "<"), label);
		cr_expect_not(w->seen, "speedscope shows %s twice", w->name);
		w->seen = true;
		it_fmt_speedscope_rows(r.out, w, resolved_only);
		if (i == 1)
			it_fmt_speedscope_export(r.out, want, n, resolved_only);
		tst_result_release(&r);
	}
}

/*
 * What speedscope must show of our JSON: a profile per thread with
 * samples, named "EXE (PID) THREAD (TID)", each function of the thread's
 * top --inlines with self and total samples x the period; then, when the
 * process has an estimate of its time before profiling, a profile "EXE
 * (PID) [before profiling]" with that function alone.
 */
static struct it_fmt_ss_want *it_fmt_speedscope_json_want(const struct pa_run *run, size_t *n)
{
	const struct pa_process *proc = run->processes[0];
	double period_ns = tst_period_s(proc) * 1e9;
	struct it_fmt_ss_want *want = calloc(proc->nthreads + 2, sizeof(*want));
	uint64_t est = pa_before_event_samples(proc, &proc->events[0]);

	*n = 0;
	for (size_t t = 0; t < proc->nthreads; t++) {
		const struct pa_thread *th = proc->threads[t];
		struct pa_filter f = { .pid = proc->pid, .tid = th->tid, .event = 0 };
		struct it_fmt_ss_want *w = &want[*n];
		struct pa_profile *prof = NULL;
		struct pa_error err;

		if (pa_filter_count_samples(&f, proc, th) == 0)
			continue;
		cr_assert_eq(pa_profile_build_by(run, &f, PA_PROFILE_BY_INLINE, &prof, NULL, &err),
			     0, "pa_profile_build_by: %s: %s", err.path, err.reason);
		snprintf(w->name, sizeof(w->name), "%s (%" PRIu32 ") %s (%" PRIu32 ")",
			 pa_process_exe_base(proc), proc->pid,
			 th->name[0] ? th->name : pa_process_exe_base(proc), th->tid);
		for (size_t i = 0; i < prof->nfuncs; i++) {
			struct it_fmt_count *c = it_fmt_count_of(&w->c, prof->funcs[i].name);

			c->self = (uint64_t)(prof->funcs[i].self * period_ns);
			c->total = (uint64_t)(prof->funcs[i].total * period_ns);
			c->ambiguous = it_fmt_ambiguous(prof, prof->funcs[i].name);
		}
		pa_profile_free(prof);
		(*n)++;
	}
	cr_assert_eq(*n, it_fmt_sampled_threads(proc));
	if (est) {
		struct it_fmt_count *c = it_fmt_count_of(&want[*n].c, PA_BEFORE_NAME);

		snprintf(want[*n].name, sizeof(want[*n].name), "%s (%" PRIu32 ") " PA_BEFORE_NAME,
			 pa_process_exe_base(proc), proc->pid);
		c->self = c->total = (uint64_t)((double)est * period_ns);
		(*n)++;
	}
	return want;
}

/* Writes our speedscope JSON of the run to tmp/out.json; checks it in speedscope. */
static void it_fmt_speedscope_json_check(struct it_fmt_ss_want *want, size_t n)
{
	char json[TST_PATH_MAX];
	const char *argv[] = { "pprof-analyze", "speedscope", it_fmt.data, "-o", json, NULL };
	struct tst_result r;

	it_fmt_tmp(json, "out.json");
	it_fmt_run("analyze", argv, &r);
	tst_result_release(&r);
	it_fmt_speedscope_check(json, "out.json", "Importing as speedscope json file", want, n,
				false);
}

/*
 * speedscope renders our JSON: every function of top --inlines (inline
 * levels too) with the same self and total time, and the source file.
 */
Test(it_formats, speedscope_renders_our_json)
{
	struct pa_run *run = it_fmt_inlines();
	size_t n;
	struct it_fmt_ss_want *want = it_fmt_speedscope_json_want(run, &n);

	cr_assert_eq(n, 1 + (pa_before_event_samples(run->processes[0],
						    &run->processes[0]->events[0]) > 0),
		     "inlines has %zu threads with samples, and the time before profiling", n);
	cr_assert_gt(it_fmt_count_of(&want[0].c, "inl_square")->self, 0,
		     "no sample in inlined inl_square");
	want[0].src_func = "inl_square";
	want[0].src_file = IT_FMT_INLINES_SRC;
	it_fmt_speedscope_json_check(want, n);
	free(want);
	pa_run_free(run);
}

/*
 * Every thread's profile: speedscope shows one per thread, each with that
 * thread's functions and times (the demo's three threads).
 */
Test(it_formats, speedscope_renders_every_thread_of_our_json)
{
	struct pa_run *run = it_fmt_demo();
	struct pa_profile *prof = tst_profile(run, 0, 0);
	size_t n;
	struct it_fmt_ss_want *want = it_fmt_speedscope_json_want(run, &n);

	it_fmt_expect_burns(prof);
	cr_assert_eq(n, 3 + (prof->estimated > 0), "demo has %zu threads with samples, and the "
		     "time before profiling", n);
	it_fmt_speedscope_json_check(want, n);
	free(want);
	pa_profile_free(prof);
	pa_run_free(run);
}

/* One thread's samples as speedscope's perf importer weighs them. */
struct it_fmt_script_walk {
	uint64_t *us;            /* each sample's time in µs, as script prints it */
	size_t n, cap, i;
	struct it_fmt_counts *weights; /* per function: ns, as speedscope weighs */
	struct it_fmt_counts *counts;  /* per function: samples */
};

static int it_fmt_script_time(void *ctx, const struct pa_samples_item *item)
{
	struct it_fmt_script_walk *sw = ctx;

	if (sw->n == sw->cap) {
		sw->cap = sw->cap ? 2 * sw->cap : 1024;
		sw->us = realloc(sw->us, sw->cap * sizeof(*sw->us));
		cr_assert(sw->us);
	}
	sw->us[sw->n++] = item->sample->time_ns / 1000;
	return 0;
}

/*
 * speedscope's weight of sample i, in ns: from the middle of the gap to
 * the sample before (the first sample: from its time) to the middle of
 * the gap to the next (the last: to its time). perf script gives times,
 * not weights, and speedscope weighs each sample by the time around it.
 */
static uint64_t it_fmt_script_weight(const struct it_fmt_script_walk *sw, size_t i)
{
	uint64_t from = i ? sw->us[i - 1] : sw->us[i];
	uint64_t to = i + 1 < sw->n ? sw->us[i + 1] : sw->us[i];

	return (to - from) * 500;
}

static int it_fmt_script_weigh(void *ctx, const struct pa_samples_item *item)
{
	struct it_fmt_script_walk *sw = ctx;
	uint64_t w = it_fmt_script_weight(sw, sw->i++);

	for (size_t k = 0; k < item->nframes; k++) {
		const char *name = item->frames[k].name;
		bool again = false;

		for (size_t j = 0; j < k && !again; j++)
			again = strcmp(item->frames[j].name, name) == 0;
		if (again)
			continue;
		it_fmt_count_of(sw->weights, name)->total += w;
		it_fmt_count_of(sw->counts, name)->total += item->sample->count;
		it_fmt_count_of(sw->counts, name)->seen_total = true;
	}
	it_fmt_count_of(sw->weights, item->frames[0].name)->self += w;
	it_fmt_count_of(sw->counts, item->frames[0].name)->self += item->sample->count;
	return 0;
}

/*
 * What speedscope must show of our perf script text for thread th: a
 * profile named "COMM tid: TID", each function of the thread's top with
 * its samples (the same counts as top: a late sample counts the overflows
 * it stands for) weighed by the time around them.
 */
static void it_fmt_script_want(const struct pa_run *run, const struct pa_process *proc,
			       const struct pa_thread *th, struct it_fmt_ss_want *want)
{
	struct pa_filter f = { .pid = proc->pid, .tid = th->tid, .event = 0 };
	struct it_fmt_script_walk sw = { .weights = &want->c };
	struct pa_profile *prof = tst_profile(run, proc->pid, th->tid);
	struct pa_error err;

	sw.counts = calloc(1, sizeof(*sw.counts));
	snprintf(want->name, sizeof(want->name), "%s tid: %" PRIu32,
		 th->name[0] ? th->name : pa_process_exe_base(proc), th->tid);
	cr_assert_eq(pa_samples_walk(run, &f, it_fmt_script_time, &sw, NULL, &err), 0,
		     "pa_samples_walk: %s: %s", err.path, err.reason);
	cr_assert_gt(sw.n, 1, "%s: %zu samples", want->name, sw.n);
	cr_assert_eq(pa_samples_walk(run, &f, it_fmt_script_weigh, &sw, NULL, &err), 0,
		     "pa_samples_walk: %s: %s", err.path, err.reason);
	it_fmt_expect_counts(want->name, prof, sw.counts);
	for (size_t i = 0; i < want->c.n; i++)
		want->c.v[i].ambiguous = it_fmt_ambiguous(prof, want->c.v[i].name);
	free(sw.counts);
	free(sw.us);
	pa_profile_free(prof);
}

/*
 * speedscope reads our `script` text (by its content, as `perf script`
 * output): a profile per thread, each with the thread's functions, their
 * samples those of top, weighed by time as speedscope weighs perf samples.
 */
Test(it_formats, speedscope_reads_our_script)
{
	char perf[TST_PATH_MAX];
	struct pa_run *run = it_fmt_demo();
	const struct pa_process *proc = run->processes[0];
	struct pa_profile *prof = tst_profile(run, 0, 0);
	struct it_fmt_ss_want *want = calloc(proc->nthreads + 1, sizeof(*want));
	const char *argv[] = { "pprof-analyze", "script", it_fmt.data, "-o", perf, NULL };
	struct tst_result r;
	size_t n = 0;

	it_fmt_expect_burns(prof);
	for (size_t t = 0; t < proc->nthreads; t++) {
		struct pa_filter f = { .tid = proc->threads[t]->tid, .event = 0 };

		if (pa_filter_count_samples(&f, proc, proc->threads[t]) > 0)
			it_fmt_script_want(run, proc, proc->threads[t], &want[n++]);
	}
	cr_assert_eq(n, 3, "demo has %zu threads with samples", n);
	it_fmt_tmp(perf, "out.perf");
	it_fmt_run("analyze", argv, &r);
	tst_result_release(&r);
	it_fmt_speedscope_check(perf, "out.perf", "Importing from linux perf script output", want,
				n, true);
	free(want);
	pa_profile_free(prof);
	pa_run_free(run);
}

/* Names of the profiles of a speedscope file, one a line. */
static const char it_fmt_speedscope_names_py[] =
"import json, sys\n"
"for p in json.load(open(sys.argv[1]))['profiles']:\n"
"    print(p['name'])\n";

/*
 * Two runs with the same pid read as one (here the same run twice, as two
 * directories: a pid namespace gives the same pids again) stay two in
 * every report that names processes and threads: folded --per-thread
 * starts each stack with its run's directory, speedscope names the run
 * in each profile's name, pprof adds a run label, and script starts each
 * COMM with it. Before, their roots, names and labels were the same, a
 * thread's samples counted twice, and speedscope refused the script text
 * (one thread's times went back).
 */
Test(it_formats, runs_sharing_pids_stay_apart)
{
	char data2[TST_PATH_MAX], pb[TST_PATH_MAX], json[TST_PATH_MAX];
	char gopprof[TST_PATH_MAX], name[TST_PATH_MAX + 300], perf[TST_PATH_MAX];
	struct pa_run *run = it_fmt_demo();
	const struct pa_process *proc = run->processes[0];
	struct pa_profile *prof = tst_profile(run, 0, 0);
	struct it_fmt_counts *c = calloc(1, sizeof(*c));
	size_t nt = proc->nthreads;
	uint64_t *per_tid = calloc(2 * nt + 1, sizeof(*per_tid));
	uint64_t *per_stack = calloc(prof->nstacks + 1, sizeof(*per_stack));
	const char *runs[] = { it_fmt.data, data2 };
	const char *cp[] = { "/bin/cp", "-a", it_fmt.data, data2, NULL };
	const char *folded[] = { "pprof-analyze", "folded", "--per-thread", it_fmt.data, data2,
				 NULL };
	const char *ss[] = { "pprof-analyze", "speedscope", it_fmt.data, data2, "-o", json,
			     NULL };
	const char *py[] = { "/usr/bin/python3", "-c", it_fmt_speedscope_names_py, json, NULL };
	const char *mk[] = { "pprof-analyze", "pprof", it_fmt.data, data2, "-o", pb, NULL };
	const char *traces[] = { gopprof, "-traces", "-sample_index=samples", pb, NULL };
	const char *script[] = { "pprof-analyze", "script", it_fmt.data, data2, "-o", perf, NULL };
	struct tst_result r;
	size_t lines = 0;

	it_fmt_go_pprof(gopprof);
	it_fmt_tmp(data2, "data2");
	it_fmt_tmp(json, "out.json");
	it_fmt_tmp(pb, "cpu.pb.gz");
	it_fmt_tmp(perf, "out.perf");
	it_fmt_expect_burns(prof);
	it_fmt_run("cp", cp, &r);
	tst_result_release(&r);

	it_fmt_run("folded", folded, &r);
	for (size_t i = 0; i < 2; i++) {
		lines += it_fmt_folded_threads(r.out, runs[i], proc, prof, per_tid + i * nt,
					       per_stack);
		it_fmt_expect_per_tid(runs[i], proc, per_tid + i * nt);
	}
	cr_expect_eq(lines, tst_count_lines(r.out, ""), "lines without a run root:\n%s", r.out);
	for (size_t i = 0; i < prof->nstacks; i++)
		per_stack[i] /= 2;
	it_fmt_expect_per_stack("folded --per-thread, each run", prof, per_stack);
	tst_result_release(&r);

	it_fmt_run("speedscope", ss, &r);
	tst_result_release(&r);
	it_fmt_run("python", py, &r);
	for (size_t i = 0; i < 2; i++)
		for (size_t t = 0; t < nt; t++) {
			const struct pa_thread *th = proc->threads[t];

			snprintf(name, sizeof(name), "%s: %s (%" PRIu32 ") %s (%" PRIu32 ")\n",
				 runs[i], pa_process_exe_base(proc), proc->pid,
				 th->name[0] ? th->name : pa_process_exe_base(proc), th->tid);
			cr_expect_eq(tst_count_lines(r.out, name), 1,
				     "speedscope: %.*s not once in:\n%s", (int)strlen(name) - 1,
				     name, r.out);
		}
	/* and each run's time before profiling */
	cr_expect_eq(tst_count_lines(r.out, ""), 2 * (it_fmt_sampled_threads(proc) +
						      (prof->estimated > 0)),
		     "speedscope profiles:\n%s", r.out);
	tst_result_release(&r);

	memset(per_tid, 0, 2 * nt * sizeof(*per_tid));
	it_fmt_run("analyze", mk, &r);
	tst_result_release(&r);
	it_fmt_run("gopprof", traces, &r);
	it_fmt_parse_traces(r.out, c, proc, runs, 2, per_tid);
	for (size_t i = 0; i < 2; i++)
		it_fmt_expect_per_tid(runs[i], proc, per_tid + i * nt);
	tst_result_release(&r);

	it_fmt_run("script", script, &r);
	tst_result_release(&r);
	it_fmt_speedscope_load(perf, "out.perf", "Importing from linux perf script output", 1,
			       2 * it_fmt_sampled_threads(proc), &r);
	for (size_t i = 0; i < 2; i++)
		for (size_t t = 0; t < nt; t++) {
			const struct pa_thread *th = proc->threads[t];
			size_t seen = 0;

			/* a line of the export: after a newline or its <pre> */
			snprintf(name, sizeof(name), "P seconds %s:%s tid: %" PRIu32 "\n", runs[i],
				 th->name[0] ? th->name : pa_process_exe_base(proc), th->tid);
			for (const char *p = strstr(r.out, name); p; p = strstr(p + 1, name))
				seen += p[-1] == '\n' || p[-1] == '>';
			cr_expect_eq(seen, 1, "speedscope: %.*s not once", (int)strlen(name) - 1,
				     name);
		}
	tst_result_release(&r);
	free(per_stack);
	free(per_tid);
	free(c);
	pa_profile_free(prof);
	pa_run_free(run);
}
