/*
 * Unit tests for analyze/perfmap.c: a JIT's perf map read from the run's
 * copy beside the process's log, or from /tmp/perf-<pid>.map when the
 * process ran here since the last boot and the file is not older than it;
 * lines with and without 0x, names with blanks, the later line for one
 * start, the nearest start below for overlapping code, bad lines skipped
 * and said with the first one's number.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "perfmap.h"
#include "symbols.h"
#include "tst_log.h"

TestSuite(perfmap, .init = tst_log_dir_setup, .fini = tst_log_dir_teardown, .timeout = 10);

/* A pid no process here has (above pid_max's largest default): its /tmp map is ours alone. */
#define PM_PID 4190000u

struct pm_proc {
	struct pa_process proc;
	char dir[3000], path[4096], host[65];
};

/* A process of this host and boot, started now, whose log is tst_log_dir/x@h.<PM_PID>.log. */
static void pm_proc(struct pm_proc *p)
{
	struct utsname u;
	struct timespec now;
	char buf[64] = "";
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY);
	size_t k = 0;

	memset(p, 0, sizeof(*p));
	cr_assert_eq(uname(&u), 0);
	snprintf(p->host, sizeof(p->host), "%s", u.nodename);
	snprintf(p->dir, sizeof(p->dir), "%s/x@h.%u", tst_log_dir, PM_PID);
	snprintf(p->path, sizeof(p->path), "%s.log", p->dir);
	cr_assert_geq(fd, 0);
	cr_assert_gt(read(fd, buf, sizeof(buf) - 1), 0);
	close(fd);
	for (const char *c = buf; *c && k < 32; c++) {
		if (*c == '-')
			continue;
		p->proc.id.boot_id[k / 2] |= (uint8_t)((*c <= '9' ? *c - '0' : *c - 'a' + 10)
						       << (k % 2 ? 0 : 4));
		k++;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	p->proc.pid = PM_PID;
	p->proc.dir = p->dir;
	p->proc.path = p->path;
	p->proc.id.known = true;
	p->proc.id.host = p->host;
	p->proc.start_realtime_ns = (uint64_t)now.tv_sec * 1000000000ull - 5000000000ull;
}

static void pm_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* The run's copy of p's map. */
static void pm_copy_path(const struct pm_proc *p, char *out)
{
	snprintf(out, 4096, "%s.perf.map", p->dir);
}

static void pm_tmp_path(char *out)
{
	snprintf(out, 4096, "/tmp/perf-%u.map", PM_PID);
}

static const char *pm_name(const struct pa_perfmap *m, uint64_t addr)
{
	const struct pa_perfmap_entry *e = pa_perfmap_find(m, addr);

	return e ? e->name : NULL;
}

/* A process of pm_proc whose run's copy of its map holds text, loaded (it must hold code). */
static struct pa_perfmap *pm_load_copy(struct pm_proc *p, const char *text, char *path,
				       struct pa_warnings *w)
{
	struct pa_perfmap *m;

	pm_proc(p);
	pm_copy_path(p, path);
	pm_write(path, text);
	cr_assert_eq(pa_perfmap_load(&p->proc, &m, w), 0);
	cr_assert(m);
	return m;
}

Test(perfmap, names_code_from_the_runs_copy)
{
	struct pm_proc p;
	struct pa_warnings w = { 0 };
	struct pa_perfmap *m;
	char path[4096];

	m = pm_load_copy(&p, "1000 100 LazyCompile:*fib /app.js:3\n"
			     "0x2000 0x10 Interpreter\n"
			     "  3000\t20\tstub\n", path, &w);
	cr_expect_str_eq(pm_name(m, 0x1000), "LazyCompile:*fib /app.js:3", "a name with blanks");
	cr_expect_str_eq(pm_name(m, 0x10ff), "LazyCompile:*fib /app.js:3");
	cr_expect_null(pm_name(m, 0x1100), "past the code's end");
	cr_expect_str_eq(pm_name(m, 0x200f), "Interpreter", "0x prefixes");
	cr_expect_null(pm_name(m, 0x2010));
	cr_expect_str_eq(pm_name(m, 0x3001), "stub", "tabs between fields");
	cr_expect_null(pm_name(m, 0xfff));
	cr_expect_eq(w.n, 0, "%s", w.n ? w.v[0].reason : "");
	pa_perfmap_free(m);
	pa_warnings_release(&w);
}

Test(perfmap, later_lines_and_nearer_starts_win)
{
	struct pm_proc p;
	struct pa_warnings w = { 0 };
	struct pa_perfmap *m;
	char path[4096];

	/* Code at 0x1000 freed and made again; a stub inside a bigger piece. */
	m = pm_load_copy(&p, "1000 100 old\n"
			     "4000 1000 outer\n"
			     "4400 10 inner\n"
			     "1000 80 new\n", path, &w);
	cr_expect_str_eq(pm_name(m, 0x1010), "new");
	cr_expect_null(pm_name(m, 0x1090), "the later line's size holds");
	cr_expect_str_eq(pm_name(m, 0x4405), "inner");
	cr_expect_str_eq(pm_name(m, 0x4500), "outer", "past inner, still in outer");
	pa_perfmap_free(m);
	pa_warnings_release(&w);
}

Test(perfmap, bad_lines_are_skipped_and_said_once)
{
	struct pm_proc p;
	struct pa_warnings w = { 0 };
	struct pa_perfmap *m;
	char path[4096];

	m = pm_load_copy(&p, "1000 10 good\n"
			     "\n"
			     "zzz 10 nohex\n"
			     "2000 -10 negative\n"
			     "3000 10\n"
			     "4000 0 empty\n"
			     "ffffffffffffff00 1000 wraps\n"
			     "5000 10 bad\x01name\n", path, &w);
	cr_expect_str_eq(pm_name(m, 0x1000), "good");
	cr_expect_null(pm_name(m, 0x2000));
	cr_expect_null(pm_name(m, 0x4000), "size 0 holds nothing");
	cr_expect_str_eq(pm_name(m, 0x5000), "bad?name", "control characters cleaned");
	cr_assert_eq(w.n, 1);
	cr_expect_str_eq(w.v[0].path, path);
	cr_expect(strstr(w.v[0].reason, "line 3 is not"), "%s", w.v[0].reason);
	cr_expect(strstr(w.v[0].reason, "4 such lines"), "%s", w.v[0].reason);
	pa_perfmap_free(m);
	pa_warnings_release(&w);
}

Test(perfmap, no_map_is_no_map)
{
	struct pm_proc p;
	struct pa_warnings w = { 0 };
	struct pa_perfmap *m = (void *)1;
	char path[4096];

	pm_proc(&p);
	pm_tmp_path(path);
	unlink(path);
	cr_assert_eq(pa_perfmap_load(&p.proc, &m, &w), 0);
	cr_expect_null(m);
	cr_expect_null(pm_name(NULL, 0x1000));
	cr_expect_eq(w.n, 0);
	pm_copy_path(&p, path);
	pm_write(path, "\n");
	cr_assert_eq(pa_perfmap_load(&p.proc, &m, &w), 0);
	cr_expect_null(m, "a map of no code");
	pa_warnings_release(&w);
}

Test(perfmap, tmp_map_of_a_process_of_this_boot)
{
	struct pm_proc p;
	struct pa_warnings w = { 0 };
	struct pa_perfmap *m;
	char path[4096];
	struct timespec old[2] = { { .tv_sec = 1000000000 }, { .tv_sec = 1000000000 } };

	pm_proc(&p);
	pm_tmp_path(path);
	pm_write(path, "1000 10 fromtmp\n");
	cr_assert_eq(pa_perfmap_load(&p.proc, &m, &w), 0);
	cr_expect_str_eq(pm_name(m, 0x1000), "fromtmp");
	pa_perfmap_free(m);

	/* Another boot, another host: the pid was someone else's. */
	p.proc.id.boot_id[0] ^= 1;
	cr_assert_eq(pa_perfmap_load(&p.proc, &m, &w), 0);
	cr_expect_null(m, "a map of another boot");
	pm_proc(&p);
	p.host[0] ^= 1;
	cr_assert_eq(pa_perfmap_load(&p.proc, &m, &w), 0);
	cr_expect_null(m, "a map of another host");

	/* Written before the process started: an older process's of that pid. */
	pm_proc(&p);
	cr_assert_eq(utimensat(AT_FDCWD, path, old, 0), 0);
	cr_assert_eq(pa_perfmap_load(&p.proc, &m, &w), 0);
	cr_expect_null(m, "a map older than the process");

	/* The run's copy comes first. */
	pm_write(path, "1000 10 fromtmp\n");
	{
		char copy[4096];

		pm_copy_path(&p, copy);
		pm_write(copy, "1000 10 fromcopy\n");
	}
	cr_assert_eq(pa_perfmap_load(&p.proc, &m, &w), 0);
	cr_expect_str_eq(pm_name(m, 0x1000), "fromcopy");
	pa_perfmap_free(m);
	cr_expect_eq(w.n, 0);
	unlink(path);
	pa_warnings_release(&w);
}

Test(perfmap, tmp_map_of_another_user_is_not_read)
{
	struct pm_proc p;
	struct pa_warnings w = { 0 };
	struct pa_perfmap *m;
	char path[4096];

	if (geteuid() != 0)
		cr_skip_test("needs root to give the file away");
	pm_proc(&p);
	pm_tmp_path(path);
	pm_write(path, "1000 10 planted\n");
	cr_assert_eq(chown(path, 65534, 65534), 0);
	cr_assert_eq(pa_perfmap_load(&p.proc, &m, &w), 0);
	cr_expect_null(m, "another user's names");
	unlink(path);
	pa_warnings_release(&w);
}

/*
 * The copy was made as the process ended, before exit wrote out what the
 * JIT still held in its stdio buffer: /tmp's, longer, is read instead;
 * unless it was written after the process ended (another process's, of
 * the same pid).
 */
Test(perfmap, a_longer_tmp_map_of_the_same_life_wins_over_the_copy)
{
	struct pm_proc p;
	struct pa_warnings w = { 0 };
	struct pa_perfmap *m;
	char path[4096], copy[4096];

	pm_proc(&p);
	pm_tmp_path(path);
	pm_copy_path(&p, copy);
	pm_write(copy, "1000 10 one\n");
	pm_write(path, "1000 10 one\n2000 10 buffered\n");
	cr_assert_eq(pa_perfmap_load(&p.proc, &m, &w), 0);
	cr_expect_str_eq(pm_name(m, 0x2000), "buffered");
	pa_perfmap_free(m);
	/* Ended 4 s ago (started 5 s ago, ran 1 s): /tmp's was written since. */
	p.proc.ended = true;
	p.proc.start_ns = 0;
	p.proc.end_ns = 1000000000ull;
	cr_assert_eq(pa_perfmap_load(&p.proc, &m, &w), 0);
	cr_expect_str_eq(pm_name(m, 0x1000), "one");
	cr_expect_null(pm_name(m, 0x2000), "a later process's map read");
	pa_perfmap_free(m);
	unlink(path);
	cr_expect_eq(w.n, 0);
	pa_warnings_release(&w);
}

/* Many small pieces below an address inside a big one: the big one still names it. */
Test(perfmap, an_address_in_a_big_piece_past_many_small_ones)
{
	struct pm_proc p;
	struct pa_warnings w = { 0 };
	struct pa_perfmap *m;
	char path[4096], text[4096];
	size_t n = 0;

	n += (size_t)snprintf(text + n, sizeof(text) - n, "100000 3000 big_region\n");
	for (int i = 0; i < 40; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%x 1 tiny%d\n", 0x100100 + i * 4, i);
	m = pm_load_copy(&p, text, path, &w);
	cr_expect_str_eq(pm_name(m, 0x102000), "big_region");
	cr_expect_str_eq(pm_name(m, 0x100104), "tiny1");
	cr_expect_str_eq(pm_name(m, 0x100105), "big_region", "between two tiny pieces");
	cr_expect_null(pm_name(m, 0x103000));
	pa_perfmap_free(m);
	pa_warnings_release(&w);
}

/*
 * A process killed (no END): /tmp's map written long after its last record
 * is a later process's of the same pid; one written soon after is its own.
 */
Test(perfmap, tmp_map_written_long_after_a_killed_process_is_not_its)
{
	struct pm_proc p;
	struct pa_warnings w = { 0 };
	struct pa_perfmap *m;
	struct pa_thread t = { .tid = PM_PID };
	struct pa_thread *threads[1] = { &t };
	char path[4096];

	pm_proc(&p);
	pm_tmp_path(path);
	pm_write(path, "1000 10 later\n");
	/* Started 5 s ago; its thread's last progress record 1 s after its start. */
	p.proc.start_ns = 1000000000ull;
	t.progress = true;
	t.progress_ns = p.proc.start_ns + 1000000000ull;
	p.proc.threads = threads;
	p.proc.nthreads = 1;
	cr_assert_eq(pa_perfmap_load(&p.proc, &m, &w), 0);
	cr_expect_str_eq(pm_name(m, 0x1000), "later", "written 4 s after: may still be its own");
	pa_perfmap_free(m);
	{
		struct timespec ts[2];

		clock_gettime(CLOCK_REALTIME, &ts[0]);
		ts[0].tv_sec += 30;
		ts[1] = ts[0];
		cr_assert_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
	}
	cr_assert_eq(pa_perfmap_load(&p.proc, &m, &w), 0);
	cr_expect_null(m, "a map written 34 s after the killed process's last record");
	unlink(path);
	pa_warnings_release(&w);
}

/* The reports' own frames are never a JIT's code, whatever a map's lines cover. */
Test(perfmap, a_map_does_not_name_the_reports_own_frames)
{
	struct pm_proc p;
	struct pa_warnings w = { 0 };
	struct pa_error err = { 0 };
	struct pa_symbols *sym;
	struct pa_frame fr;
	char path[4096];

	pm_proc(&p);
	pm_copy_path(&p, path);
	pm_write(path, "ffffffffffffff00 ff odd_high_line\n1000 10 jitted\n");
	cr_assert_eq(pa_symbols_new_opts(&p.proc, NULL, &sym, &w, &err), 0, "%s", err.reason);
	cr_assert_eq(pa_symbols_lookup_at(sym, PA_TRUNCATED_IP, false, 0, &fr), 0);
	cr_expect_str_eq(fr.name, PA_TRUNCATED_NAME);
	cr_assert_eq(pa_symbols_lookup_at(sym, 0x1004, true, 0, &fr), 0);
	cr_expect_str_eq(fr.name, "jitted");
	cr_expect_str_eq(fr.module, PA_PERFMAP_MODULE);
	pa_symbols_free(sym);
	pa_warnings_release(&w);
}
