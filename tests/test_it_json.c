/*
 * Integration: pprof-analyze --format json on real runs (demo, and forker
 * for a process tree). python3's json reads every document, and a checker
 * compares it with the text report of the same data: the same header
 * line, the same rows in the same order with the same counts, names and
 * percentages (as the text rounds them), null where the text shows '-'.
 * Also: --format text is the text report byte for byte, and --format
 * errors are usage errors (exit 2).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "pa_it.h"

static struct pa_it it_json;

static void it_json_init(void)
{
	pa_it_init(&it_json);
}

static void it_json_fini(void)
{
	pa_it_release(&it_json);
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
"if kind != 'events':\n"
"    assert lines[0] == '# ' + d['header'], (lines[0], d['header'])\n"
"    m = re.match(r'# event (\\S+): period .*?, ([\\d,]+) samples?', lines[0])\n"
"    assert m and d['event']['name'] == m.group(1), lines[0]\n"
"    assert d['samples'] == num(m.group(2)), (d['samples'], lines[0])\n"
"    e = d['event']\n"
"    assert e['period'] > 0 and e['unit'] == 'ns' and e['scope'] == 'user', e\n"
"    assert ('period %s (%s)' % (e['period_text'], e['scope'])) in lines[0], e\n"
"if kind in ('top', 'tree'):\n"
"    m = re.search(r', (\\d+) process(es)?, (\\d+) threads?', lines[0])\n"
"    assert (d['processes'], d['threads']) == (int(m.group(1)), int(m.group(3)))\n"
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
"                str(r['lost']), str(r['late']), r['ended'], opt(r['cpu_s'], '%.3f'),\n"
"                r['exe']]\n"
"        assert f == want, (f, want)\n"
"elif kind == 'processes':\n"
"    body = lines[2:]\n"
"    assert len(body) == len(rows) == d['processes'], (len(body), len(rows))\n"
"    assert sum(r['samples'] for r in rows) == d['samples']\n"
"    assert sum(r['threads'] for r in rows) == d['threads']\n"
"    parents(rows, 0)\n"
"    for line, r in zip(body, rows):\n"
"        f = line.split(None, 7)\n"
"        want = [str(r['pid']), str(r['ppid']), '%.3f' % r['start_s'],\n"
"                opt(r['wall_s'], '%.3f'), str(r['samples']), str(r['threads']),\n"
"                r['exe'], r['ended']]\n"
"        assert f == want, (f, want)\n"
"        assert line[57:].startswith('  ' * r['depth'] + r['exe'] + ' '), (line, r)\n"
"        assert r['how'] == 'exit' and r['exit_status'] == 0 and r['ended'] == 'exit 0'\n"
"elif kind == 'events':\n"
"    assert len(d['configs']) == 1 and lines[0] == '# ' + d['configs'][0]['text']\n"
"    body = lines[2:]\n"
"    assert len(body) == len(rows), (len(body), len(rows))\n"
"    for line, r in zip(body, rows):\n"
"        f = re.split(r'\\s{2,}', line.strip())\n"
"        want = [r['name'], r['event'], r['kind'], r['encoding'],\n"
"                r['period_text'] or '-', r['scope'], str(r['precise']),\n"
"                '-', '-',\n"
"                'all' if r['all_processes'] else ','.join(map(str, r['pids'])),\n"
"                r['status']]\n"
"        if r['samples'] is not None:\n"
"            want[7], want[8] = '{:,}'.format(r['samples']), '{:,}'.format(r['lost'])\n"
"        assert f == want, (f, want)\n"
"        assert r['pids'] and r['processes'] == len(r['pids'])\n"
"    assert sum(r['samples'] or 0 for r in rows) == d['samples']\n"
"assert rows, 'no rows'\n"
"print('rows', len(rows))\n";

/* Runs argv (argv[0] relative to the build directory); expects exit code want. */
static void it_json_run(const char *const *argv, int want, struct pa_it_result *r)
{
	pa_it_run(&it_json, "analyze", argv, NULL, r);
	cr_assert(WIFEXITED(r->status), "%s %s died: status 0x%x", argv[0], argv[1],
		  r->status);
	cr_assert_eq(WEXITSTATUS(r->status), want, "%s %s: exit %d, stderr: %s", argv[0],
		     argv[1], WEXITSTATUS(r->status), r->err);
}

/* Profiles workload (with arg) into it_json.data. */
static void it_json_record(const char *workload, const char *arg)
{
	const char *argv[] = { workload, arg, NULL };
	struct pa_it_result r;

	pa_it_run_profiled(&it_json, "record", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: %s", workload, r.err);
	pa_it_result_release(&r);
}

/*
 * Writes report's text (stdout) and its JSON (-o FILE) for it_json.data,
 * with extra options (NULL or one option and its value), and checks one
 * against the other with python3.
 */
static void it_json_compare(const char *report, const char *opt, const char *val)
{
	char text[PA_IT_PATH_MAX + 64], json[PA_IT_PATH_MAX + 64];
	const char *targv[] = { "pprof-analyze", report, it_json.data, opt, val, NULL };
	const char *jargv[] = { "pprof-analyze", report, it_json.data, "--format", "json",
				"-o", json, opt, val, NULL };
	const char *py[] = { "/usr/bin/python3", "-c", it_json_check_py, report, json, text,
			     NULL };
	struct pa_it_result r;
	FILE *f;

	snprintf(text, sizeof(text), "%s/%s.txt", it_json.tmp, report);
	snprintf(json, sizeof(json), "%s/%s.json", it_json.tmp, report);
	it_json_run(targv, 0, &r);
	f = fopen(text, "w");
	cr_assert(f && fwrite(r.out, 1, r.out_len, f) == r.out_len && fclose(f) == 0);
	pa_it_result_release(&r);
	it_json_run(jargv, 0, &r);
	cr_expect_eq(r.out_len, 0, "--format json -o FILE wrote to stdout: %s", r.out);
	pa_it_result_release(&r);
	pa_it_run(&it_json, "python", py, NULL, &r);
	cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		  "%s: JSON and text disagree: %s", report, r.err);
	cr_expect(strncmp(r.out, "rows ", 5) == 0, "%s: checker said: %s", report, r.out);
	pa_it_result_release(&r);
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

Test(it_json, format_text_is_the_default)
{
	const char *plain[] = { "pprof-analyze", "top", it_json.data, NULL };
	const char *text[] = { "pprof-analyze", "top", it_json.data, "--format", "text", NULL };
	const char *json[] = { "pprof-analyze", "top", it_json.data, "--format", "json", NULL };
	struct pa_it_result a, b, c;

	it_json_record("workloads/demo", "0.1");
	it_json_run(plain, 0, &a);
	it_json_run(text, 0, &b);
	it_json_run(json, 0, &c);
	cr_expect(a.out_len == b.out_len && memcmp(a.out, b.out, a.out_len) == 0,
		  "--format text differs from the default:\n%s\n%s", a.out, b.out);
	cr_expect(strncmp(c.out, "{\n  \"report\": \"top\",\n", 21) == 0, "json: %s", c.out);
	pa_it_result_release(&a);
	pa_it_result_release(&b);
	pa_it_result_release(&c);
}

Test(it_json, bad_format_is_a_usage_error)
{
	const char *unknown[] = { "pprof-analyze", "top", "/nonexistent", "--format", "xml",
				  NULL };
	const char *folded[] = { "pprof-analyze", "folded", "/nonexistent", "--format", "json",
				 NULL };
	const char *script[] = { "pprof-analyze", "--format=json", "script", "/nonexistent",
				 NULL };
	struct pa_it_result r;

	it_json_run(unknown, 2, &r);
	cr_expect(strstr(r.err, "'xml'") && strstr(r.err, "text or json"), "%s", r.err);
	pa_it_result_release(&r);
	it_json_run(folded, 2, &r);
	cr_expect(strstr(r.err, "folded") && strstr(r.err, "--format json"), "%s", r.err);
	pa_it_result_release(&r);
	it_json_run(script, 2, &r);
	cr_expect(strstr(r.err, "script"), "%s", r.err);
	pa_it_result_release(&r);
}
