/*
 * Integration: pprof-analyze --format json on real runs (demo, forker for
 * a process tree, deepstack for recursion). python3's json reads every
 * document, and a checker compares it with the text report of the same
 * data: the same header line, the same rows in the same order with the
 * same counts, names and percentages (as the text rounds them), null where
 * the text shows '-'; for callers, callees, diff and annotate it writes
 * the whole text report again from the JSON alone and wants it line for
 * line; the notes on coverage under the header are the document's "notes".
 * Also: --format text is the text report byte for byte, and
 * --format errors are usage errors (exit 2).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tst_it.h"

static struct tst_it it_json;

static void it_json_init(void)
{
	tst_init(&it_json);
}

static void it_json_fini(void)
{
	tst_release(&it_json);
}

TestSuite(it_json, .init = it_json_init, .fini = it_json_fini, .timeout = 120);

/*
 * argv: REPORT JSON TEXT. Loads JSON, checks it against the text report
 * TEXT of the same data; an AssertionError (exit 1) says what differs.
 * Prints "rows N" when they agree.
 */
static const char it_json_check_py[] =
"import json, re, sys\n"
"kind, jpath, tpath = sys.argv[1:4]\n"
"d = json.load(open(jpath, encoding='utf-8'))\n"
"lines = open(tpath, encoding='utf-8').read().splitlines()\n"
"rows = d['rows']\n"
"assert d['report'] == kind, d['report']\n"
"def num(s):\n"
"    return int(s.replace(',', ''))\n"
"def pct(v):\n"
"    return '%.2f%%' % v\n"
"def opt(v, fmt):\n"
"    return '-' if v is None else fmt % v\n"
"def func(r):\n"
"    m = r['module']\n"
"    if m and not r['function'].startswith(m + '+0x'):\n"
"        return '%s (%s)' % (r['function'], m)\n"
"    return r['function']\n"
"def parents(rows, base):\n"
"    stack = []\n"
"    for i, r in enumerate(rows):\n"
"        del stack[r['depth'] - base:]\n"
"        assert r['parent'] == (stack[-1] if stack else None), (i, r)\n"
"        stack.append(i)\n"
"def header(line, d, counts):\n"
"    assert line == '# ' + d['header'], (line, d['header'])\n"
"    m = re.match(r'# event (\\S+): period .*?, ([\\d,]+) samples?', line)\n"
"    assert m and d['event']['name'] == m.group(1), line\n"
"    assert d['samples'] == num(m.group(2)), (d['samples'], line)\n"
"    e = d['event']\n"
"    assert e['period'] > 0 and e['unit'] == 'ns' and e['scope'] == 'user', e\n"
"    assert ('period %s (%s)' % (e['period_text'], e['scope'])) in line, e\n"
"    m = re.search(r', (\\d+) process(es)?, (\\d+) threads?', line)\n"
"    assert bool(m) == counts, line\n"
"    if m:\n"
"        assert (d['processes'], d['threads']) == (int(m.group(1)), int(m.group(3)))\n"
"def cover(v):\n"
"    return '-' if v is None else '%.1f%%' % (v * 100)\n"
"def strip_notes(at, notes):\n"
"    want = ['# ' + n for n in notes]\n"
"    assert lines[at:at + len(want)] == want, (lines[at:at + len(want)], want)\n"
"    del lines[at:at + len(want)]\n"
"def near(a, b):\n"
"    return abs(a - b) < 1e-9\n"
"def dots(n):\n"
"    return str(n) if n else '.'\n"
"def ann_text(d):\n"
"    out, files, cur = [], dict((f['file'], f) for f in d['files']), 0\n"
"    order = [r['file'] for i, r in enumerate(d['rows']) if r['file'] is not None\n"
"             and (i == 0 or d['rows'][i - 1]['file'] != r['file'])]\n"
"    assert order == [f['file'] for f in d['files']], (order, d['files'])\n"
"    for r in d['rows']:\n"
"        if r['file'] != cur and r['file'] is None:\n"
"            out += ['## (no line information)', '%9s %9s' % ('self', 'total')]\n"
"        elif r['file'] != cur:\n"
"            f = files.pop(r['file'])\n"
"            out.append('## ' + f['file'])\n"
"            if not f['found']:\n"
"                out.append('# source file not found (%s): samples per line only'\n"
"                           % f['error'])\n"
"            out.append('%9s %9s %6s  %s' % ('self', 'total', 'line', 'source'))\n"
"        cur = r['file']\n"
"        t = '%9s %9s' % (dots(r['self']), dots(r['total']))\n"
"        if r['file'] is not None:\n"
"            t += ' %6d' % r['line']\n"
"        if r['source'] is not None:\n"
"            t += '  ' + r['source']\n"
"        out.append(t)\n"
"    assert not files, ('files without rows', files)\n"
"    return out\n"
"if kind == 'diff':\n"
"    strip_notes(2, d['base']['notes'])\n"
"    strip_notes(4, d['new']['notes'])\n"
"    assert d['notes'] == d['new']['notes']\n"
"elif kind != 'events':\n"
"    strip_notes(1, d['notes'])\n"
"if kind == 'diff':\n"
"    assert lines[0] == '# base ' + d['base']['dir'], lines[0]\n"
"    header(lines[1], d['base'], True)\n"
"    assert lines[2] == '# new ' + d['new']['dir'], lines[2]\n"
"    header(lines[3], d['new'], True)\n"
"    assert all(d[k] == v for k, v in d['new'].items() if k != 'dir'), 'top is not new'\n"
"elif kind != 'events':\n"
"    header(lines[0], d, kind in ('top', 'tree', 'callers', 'callees'))\n"
"if kind == 'top':\n"
"    body = lines[2:]\n"
"    assert len(body) == len(rows), (len(body), len(rows))\n"
"    for line, r in zip(body, rows):\n"
"        f = line.split(None, 5)\n"
"        want = [str(r['self']), pct(r['self_percent']), str(r['total']),\n"
"                pct(r['total_percent']), opt(r['cpu_s'], '%.3f'), func(r)]\n"
"        assert f == want, (f, want)\n"
"elif kind == 'tree':\n"
"    body = lines[3:]\n"
"    assert len(body) == len(rows), (len(body), len(rows))\n"
"    parents(rows, 1)\n"
"    for line, r in zip(body, rows):\n"
"        f = line[:35].split()\n"
"        want = [str(r['total']), pct(r['total_percent']), str(r['self']),\n"
"                pct(r['self_percent'])]\n"
"        assert f == want, (f, want)\n"
"        assert line[35:] == '  ' + '  ' * (r['depth'] - 1) + func(r), (line, r)\n"
"elif kind == 'threads':\n"
"    body = lines[2:]\n"
"    assert len(body) == len(rows) == d['threads'], (len(body), len(rows))\n"
"    assert sum(r['samples'] for r in rows) == d['samples']\n"
"    assert len(set(r['pid'] for r in rows)) == d['processes']\n"
"    for line, r in zip(body, rows):\n"
"        f = line.split()\n"
"        want = [str(r['pid']), str(r['tid']), r['name'] or '-', str(r['samples']),\n"
"                str(r['lost']), str(r['throttled']), str(r['late']), r['ended'],\n"
"                opt(r['cpu_s'], '%.3f'), opt(r['user_s'], '%.3f'),\n"
"                opt(r['system_s'], '%.3f'), cover(r['coverage']), r['exe']]\n"
"        assert f == want, (f, want)\n"
"elif kind == 'processes':\n"
"    body = lines[2:]\n"
"    assert len(body) == len(rows) == d['processes'], (len(body), len(rows))\n"
"    assert sum(r['samples'] for r in rows) == d['samples']\n"
"    assert sum(r['threads'] for r in rows) == d['threads']\n"
"    parents(rows, 0)\n"
"    for line, r in zip(body, rows):\n"
"        f = line.split(None, 12)\n"
"        want = [str(r['pid']), str(r['ppid']), '%.3f' % r['start_s'],\n"
"                opt(r['wall_s'], '%.3f'), str(r['samples']), str(r['threads']),\n"
"                opt(r['cpu_s'], '%.3f'), opt(r['user_s'], '%.3f'),\n"
"                opt(r['system_s'], '%.3f'), cover(r['coverage']),\n"
"                opt(r['before_s'], '%.3f'), r['exe'], r['ended']]\n"
"        assert f == want, (f, want)\n"
"        assert r['before_s'] is None or abs(r['before_s'] - r['before_user_s'] -\n"
"                                            r['before_system_s']) < 1e-6, r\n"
"        assert isinstance(r['before_samples'], int) and r['unprofiled'] == [], r\n"
"        assert line[108:].startswith('  ' * r['depth'] + r['exe'] + ' '), (line, r)\n"
"        assert r['how'] == 'exit' and r['exit_status'] == 0 and r['ended'] == 'exit 0'\n"
"elif kind == 'events':\n"
"    assert len(d['configs']) == 1 and lines[0] == '# ' + d['configs'][0]['text']\n"
"    body = lines[2:]\n"
"    assert len(body) == len(rows), (len(body), len(rows))\n"
"    for line, r in zip(body, rows):\n"
"        f = re.split(r'\\s{2,}', line.strip())\n"
"        want = [r['name'], r['event'], r['kind'], r['encoding'],\n"
"                r['period_text'] or '-', r['scope'], str(r['precise']),\n"
"                '-', '-', '-',\n"
"                'all' if r['all_processes'] else ','.join(str(p['pid']) for p in r['pids']),\n"
"                r['status']]\n"
"        if r['samples'] is not None:\n"
"            want[7:10] = ['{:,}'.format(r[k]) for k in ('samples', 'lost', 'throttled')]\n"
"        assert f == want, (f, want)\n"
"        assert r['pids'] and r['processes'] == len(r['pids'])\n"
"    assert sum(r['samples'] or 0 for r in rows) == d['samples']\n"
"elif kind in ('callers', 'callees'):\n"
"    assert near(d['total_percent'], 100.0 * d['total'] / d['samples']), d\n"
"    want = ['# %s of %s: %d samples (%.2f%% of all); shares are of those'\n"
"            % (kind, d['function'], d['total'], d['total_percent']),\n"
"            '%9s %7s  %s' % ('samples', 'share', kind[:-1])]\n"
"    for r in rows:\n"
"        assert near(r['share_percent'], 100.0 * r['samples'] / d['total']), r\n"
"        want.append('%9d %6.2f%%  %s' % (r['samples'], r['share_percent'], func(r)))\n"
"    assert d['recursive'] == (sum(r['samples'] for r in rows) > d['total'])\n"
"    if d['recursive']:\n"
"        want.append('# %s is recursive: a sample counts once for each different %s, '\n"
"                    'so the shares add up to more than 100%%' % (d['function'], kind[:-1]))\n"
"    assert lines[1:] == want, (lines[1:], want)\n"
"    label = '[self]' if kind == 'callees' else '[root]'\n"
"    assert all(r['module'] is None for r in rows if r['function'] == label)\n"
"    assert kind == 'callers' or label in [r['function'] for r in rows]\n"
"elif kind == 'diff':\n"
"    want = ['# change of share in percentage points (new - base), largest first',\n"
"            '%10s %10s %9s %10s %10s %9s  %s' % ('base self', 'new self', 'change',\n"
"                                               'base total', 'new total', 'change',\n"
"                                               'function')]\n"
"    for r in rows:\n"
"        assert r['self_change'] == r['new_self_percent'] - r['base_self_percent'], r\n"
"        assert r['total_change'] == r['new_total_percent'] - r['base_total_percent'], r\n"
"        want.append('%9.2f%% %9.2f%% %+8.2f%% %9.2f%% %9.2f%% %+8.2f%%  %s' % (\n"
"            r['base_self_percent'], r['new_self_percent'], r['self_change'],\n"
"            r['base_total_percent'], r['new_total_percent'], r['total_change'], func(r)))\n"
"    assert lines[4:] == want, (lines[4:], want)\n"
"    big = [max(abs(r['self_change']), abs(r['total_change'])) for r in rows]\n"
"    assert big == sorted(big, reverse=True), big\n"
"elif kind == 'annotate':\n"
"    assert lines[1] == ('# annotate %s: %d samples in it (self), %d with it on the '\n"
"                        'stack (total)' % (d['function'], d['self'], d['total'])), lines[1]\n"
"    assert d['lost'] is None and d['processes'] >= 1 and d['threads'] >= 1, d\n"
"    assert sum(r['self'] for r in rows) == d['self'], d['self']\n"
"    assert sum(r['total'] for r in rows) == d['total'] > 0, d['total']\n"
"    want = ann_text(d)\n"
"    assert lines[2:] == want, (lines[2:], want)\n"
"assert rows, 'no rows'\n"
"print('rows', len(rows))\n";

/* Runs argv (argv[0] relative to the build directory); expects exit code want. */
static void it_json_run(const char *const *argv, int want, struct tst_result *r)
{
	tst_run(&it_json, "analyze", argv, NULL, r);
	cr_assert(WIFEXITED(r->status), "%s %s died: status 0x%x", argv[0], argv[1],
		  r->status);
	cr_assert_eq(WEXITSTATUS(r->status), want, "%s %s: exit %d, stderr: %s", argv[0],
		     argv[1], WEXITSTATUS(r->status), r->err);
}

/* Profiles workload (with arg) into it_json.data. */
static void it_json_record(const char *workload, const char *arg)
{
	const char *argv[] = { workload, arg, NULL };
	struct tst_result r;

	tst_run_profiled(&it_json, "record", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: %s", workload, r.err);
	tst_result_release(&r);
}

/* The most arguments it_json_compare_args takes after the report's name. */
#define IT_JSON_MAX_ARGS 8

/*
 * Writes report's text (stdout) and its JSON (-o FILE) for args (what
 * follows the report's name: FUNC, DIRs, options; NULL-terminated), and
 * checks one against the other with python3.
 */
static void it_json_compare_args(const char *report, const char *const *args)
{
	char text[TST_PATH_MAX + 64], json[TST_PATH_MAX + 64];
	const char *targv[IT_JSON_MAX_ARGS + 3] = { "pprof-analyze", report };
	const char *jargv[IT_JSON_MAX_ARGS + 7] = { "pprof-analyze", report };
	const char *py[] = { "/usr/bin/python3", "-c", it_json_check_py, report, json, text,
			     NULL };
	struct tst_result r;
	size_t n = 0;
	FILE *f;

	snprintf(text, sizeof(text), "%s/%s.txt", it_json.tmp, report);
	snprintf(json, sizeof(json), "%s/%s.json", it_json.tmp, report);
	for (; args[n]; n++) {
		cr_assert_lt(n, IT_JSON_MAX_ARGS);
		targv[2 + n] = jargv[2 + n] = args[n];
	}
	memcpy(&jargv[2 + n], (const char *[]){ "--format", "json", "-o", json },
	       4 * sizeof(*jargv));
	it_json_run(targv, 0, &r);
	f = fopen(text, "w");
	cr_assert(f && fwrite(r.out, 1, r.out_len, f) == r.out_len && fclose(f) == 0);
	tst_result_release(&r);
	it_json_run(jargv, 0, &r);
	cr_expect_eq(r.out_len, 0, "--format json -o FILE wrote to stdout: %s", r.out);
	tst_result_release(&r);
	tst_run(&it_json, "python", py, NULL, &r);
	cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		  "%s: JSON and text disagree: %s", report, r.err);
	cr_expect(strncmp(r.out, "rows ", 5) == 0, "%s: checker said: %s", report, r.out);
	tst_result_release(&r);
}

/* it_json_compare_args for it_json.data, with an option and its value (or NULL). */
static void it_json_compare(const char *report, const char *opt, const char *val)
{
	it_json_compare_args(report, (const char *[]){ it_json.data, opt, val, NULL });
}

/* it_json_compare_args for FUNC and it_json.data. */
static void it_json_compare_func(const char *report, const char *func)
{
	it_json_compare_args(report, (const char *[]){ func, it_json.data, NULL });
}

/* Moves it_json.data to tmp/name (its path into dir, size bytes), to record another run. */
static void it_json_keep(const char *name, char *dir, size_t size)
{
	snprintf(dir, size, "%s/%s", it_json.tmp, name);
	cr_assert_eq(rename(it_json.data, dir), 0, "%s -> %s", it_json.data, dir);
}

Test(it_json, demo_reports_agree_with_text)
{
	it_json_record("workloads/demo", "0.2");
	it_json_compare("top", NULL, NULL);
	it_json_compare("top", "--limit", "2");
	it_json_compare("tree", NULL, NULL);
	it_json_compare("tree", "--min-percent", "0");
	it_json_compare("threads", NULL, NULL);
	it_json_compare("processes", NULL, NULL);
	it_json_compare("events", NULL, NULL);
}

Test(it_json, process_tree_agrees_with_text)
{
	it_json_record("workloads/forker", "0.1");
	it_json_compare("processes", NULL, NULL);
	it_json_compare("threads", NULL, NULL);
	it_json_compare("top", NULL, NULL);
}

Test(it_json, callers_and_callees_agree_with_text)
{
	it_json_record("workloads/demo", "0.2");
	it_json_compare_func("callers", "burn_alpha");
	it_json_compare_func("callers", "burn_gamma");
	it_json_compare_func("callers", "main");
	it_json_compare_func("callees", "mid_alpha");
	it_json_compare_func("callees", "main");
	it_json_compare_func("callees", "burn_beta");
	it_json_compare_args("callers", (const char *[]){ "mid_beta", it_json.data,
							  "--thread", "beta", NULL });
}

Test(it_json, recursive_callers_and_callees_agree_with_text)
{
	it_json_record("workloads/deepstack", "0.2");
	it_json_compare_func("callers", "deep_a");
	it_json_compare_func("callees", "deep_b");
	it_json_compare_func("callees", "deep_burn");
}

Test(it_json, diff_agrees_with_text)
{
	char demo[TST_PATH_MAX + 64], forker[TST_PATH_MAX + 64];

	it_json_record("workloads/demo", "0.2");
	it_json_keep("demo1", demo, sizeof(demo));
	it_json_record("workloads/forker", "0.1");
	it_json_keep("forker", forker, sizeof(forker));
	it_json_record("workloads/demo", "0.1");
	it_json_compare_args("diff", (const char *[]){ demo, it_json.data, NULL });
	it_json_compare_args("diff", (const char *[]){ demo, it_json.data, "--limit", "3",
						       NULL });
	/* functions one run lacks have a share of 0 there */
	it_json_compare_args("diff", (const char *[]){ forker, demo, NULL });
	/* NEW has no thread of that name: no samples, every share 0 */
	it_json_compare_args("diff", (const char *[]){ demo, forker, "--thread", "beta",
						       NULL });
}

Test(it_json, annotate_agrees_with_text)
{
	it_json_record("workloads/demo", "0.2");
	it_json_compare_func("annotate", "burn_alpha");
	it_json_compare_func("annotate", "mid_gamma");
	it_json_compare_func("annotate", "main");
	/* libc's source is not on this machine (or has no line info) */
	it_json_compare_func("annotate", "start_thread");
	it_json_compare_args("annotate", (const char *[]){ "burn_beta", it_json.data,
							   "--thread", "beta", NULL });
}

Test(it_json, format_text_is_the_default)
{
	const char *plain[] = { "pprof-analyze", "top", it_json.data, NULL };
	const char *text[] = { "pprof-analyze", "top", it_json.data, "--format", "text", NULL };
	const char *json[] = { "pprof-analyze", "top", it_json.data, "--format", "json", NULL };
	struct tst_result a, b, c;

	it_json_record("workloads/demo", "0.1");
	it_json_run(plain, 0, &a);
	it_json_run(text, 0, &b);
	it_json_run(json, 0, &c);
	cr_expect(a.out_len == b.out_len && memcmp(a.out, b.out, a.out_len) == 0,
		  "--format text differs from the default:\n%s\n%s", a.out, b.out);
	cr_expect(strncmp(c.out, "{\n  \"report\": \"top\",\n", 21) == 0, "json: %s", c.out);
	tst_result_release(&a);
	tst_result_release(&b);
	tst_result_release(&c);
}

Test(it_json, bad_format_is_a_usage_error)
{
	const char *unknown[] = { "pprof-analyze", "top", "/nonexistent", "--format", "xml",
				  NULL };
	const char *folded[] = { "pprof-analyze", "folded", "/nonexistent", "--format", "json",
				 NULL };
	const char *script[] = { "pprof-analyze", "--format=json", "script", "/nonexistent",
				 NULL };
	struct tst_result r;

	it_json_run(unknown, 2, &r);
	cr_expect(strstr(r.err, "'xml'") && strstr(r.err, "text or json"), "%s", r.err);
	tst_result_release(&r);
	it_json_run(folded, 2, &r);
	cr_expect(strstr(r.err, "folded") && strstr(r.err, "--format json"), "%s", r.err);
	tst_result_release(&r);
	it_json_run(script, 2, &r);
	cr_expect(strstr(r.err, "script"), "%s", r.err);
	tst_result_release(&r);
}
