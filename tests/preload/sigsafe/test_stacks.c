/*
 * The stack table and sample blocks (preload/sigsafe/stacks.c, records.c)
 * against the analyzer's reader: samples written with each stack once read
 * back as the same samples written whole; a full table starts again and
 * reads right; a writer killed at any moment leaves a log read up to its
 * last whole sample; a log cut anywhere in its first 4 KiB reads without a
 * crash, and says where it stops.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pprof/format.h"
#include "reader.h"
#include "sigsafe/logfile.h"
#include "sigsafe/records.h"
#include "sigsafe/stacks.h"
#include "tst_log.h"

static char *st_dir;
static int st_dirfd = -1;

static void st_setup(void)
{
	st_dir = tst_log_tmpdir();
	st_dirfd = open(st_dir, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(st_dirfd, 0);
}

static void st_teardown(void)
{
	close(st_dirfd);
	tst_log_rmdir(st_dir);
	st_dir = NULL;
}

TestSuite(stacks, .init = st_setup, .fini = st_teardown, .timeout = 120);

#define ST_FRAMES 36

/*
 * The i-th sample of a made-up thread: one of nstacks stacks of 1..36
 * frames that share their outer frames, at time 1000 + 997 i (more than
 * 2^32 ns apart now and then), with an event and flags that change now
 * and then.
 */
struct st_sample {
	uint64_t ips[ST_FRAMES];
	unsigned n;
	uint64_t time_ns;
	unsigned event;
	uint16_t flags;
};

static void st_sample(unsigned i, unsigned nstacks, struct st_sample *s)
{
	unsigned k = (i * 2654435761u) % nstacks;

	s->n = 1 + k % ST_FRAMES;
	for (unsigned f = 0; f < s->n; f++)
		s->ips[f] = 0x400000 + 0x10 * (s->n - f) + ((uint64_t)k << 20) * (f == 0);
	s->time_ns = 1000 + 997ull * i + (i % 500 == 499 ? 5000000000ull : 0) * (i / 500);
	s->event = (i / 300) % 2;
	s->flags = i % 97 == 0 ? PPF_SAMPLE_LATE : 0;
}

/* A thread log named name, opened as the profiler opens one. */
static void st_create(struct pp_logfile *log, const char *name)
{
	pp_logfile_init_sigsafe(log);
	cr_assert_eq(pp_logfile_create_sigsafe(log, st_dirfd, name, PPF_FILE_THREAD), 0);
	cr_assert_eq(pp_records_thread_sigsafe(log, 1, 2, pp_records_now_sigsafe(), NULL), 0);
}

/* Writes samples [from, to) of st_sample(., nstacks) to log through st. */
static void st_write_range(struct pp_stacks **st, struct pp_logfile *log, unsigned from,
			   unsigned to, unsigned nstacks, int whole)
{
	struct st_sample s;

	for (unsigned i = from; i < to; i++) {
		st_sample(i, nstacks, &s);
		cr_assert_eq(pp_stacks_write_sigsafe(st, log, s.ips, s.n, s.time_ns, s.event,
						     s.flags, whole), 0, "sample %u", i);
	}
}

/* Writes samples [0, n). */
static void st_write(struct pp_stacks **st, struct pp_logfile *log, unsigned n,
		     unsigned nstacks, int whole)
{
	st_write_range(st, log, 0, n, nstacks, whole);
}

/* Finishes log as a thread's end does and closes it. */
static void st_close(struct pp_logfile *log, uint64_t samples)
{
	struct pp_records_counts c = { .samples = samples };
	struct pp_records_cpu cpu = { 0 };

	pp_logfile_closing_sigsafe(log);
	cr_assert_eq(pp_records_thread_end_sigsafe(log, 1, &c, &cpu), 0);
	pp_logfile_close_sigsafe(log);
}

/* Loads dir/name, which must read without an error. */
static struct pa_thread *st_load(const char *name, struct pa_warnings *warn)
{
	struct pa_thread *t = NULL;
	struct pa_error err;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", st_dir, name);
	cr_assert_eq(pa_thread_log_load(path, &t, warn, &err), 0, "%s: offset %llu: %s", name,
		     (unsigned long long)err.offset, err.reason);
	return t;
}

/* Whether t's samples are samples [0, t->nsamples) of st_sample(., nstacks). */
static bool st_match(const struct pa_thread *t, unsigned nstacks)
{
	struct st_sample s;

	for (size_t i = 0; i < t->nsamples; i++) {
		const struct pa_sample *p = &t->samples[i];

		st_sample((unsigned)i, nstacks, &s);
		if (p->time_ns != s.time_ns || p->event != s.event || p->flags != s.flags ||
		    p->nframes != s.n || memcmp(p->ips, s.ips, s.n * sizeof(s.ips[0])) != 0) {
			cr_log_error("sample %zu differs", i);
			return false;
		}
	}
	return true;
}

/* Counts the records of type in dir/name, up to its end. */
static size_t st_count_records(const char *name, uint32_t type)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", st_dir, name);
	return tst_log_count(path, type);
}

/* Stack records in dir/name: PPF_REC_STACK, and PPF_REC_STACK_SAMPLE with its sample. */
static size_t st_count_stacks(const char *name)
{
	return st_count_records(name, PPF_REC_STACK) + st_count_records(name, PPF_REC_STACK_SAMPLE);
}

/* File size of dir/name. */
static uint64_t st_size(const char *name)
{
	char path[PATH_MAX];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", st_dir, name);
	cr_assert_eq(stat(path, &sb), 0);
	return (uint64_t)sb.st_size;
}

Test(stacks, once_and_whole_read_back_as_the_same_samples)
{
	const unsigned n = 5000, nstacks = 40;
	struct pp_stacks *st_once, *st_whole;
	struct pp_logfile once, whole;
	struct pa_warnings warn = { 0 };
	struct pa_thread *a, *b;

	pp_stacks_init_sigsafe(&st_once);
	pp_stacks_init_sigsafe(&st_whole);
	st_create(&once, "thread-1.log");
	st_create(&whole, "thread-2.log");
	st_write(&st_once, &once, n, nstacks, 0);
	st_write(&st_whole, &whole, n, nstacks, 1);
	st_close(&once, n);
	st_close(&whole, n);
	pp_stacks_release_sigsafe(&st_once);
	pp_stacks_release_sigsafe(&st_whole);

	a = st_load("thread-1.log", &warn);
	b = st_load("thread-2.log", &warn);
	cr_expect_eq(warn.n, 0, "%s", warn.n ? warn.v[0].reason : "");
	cr_assert_eq(a->nsamples, n);
	cr_assert_eq(b->nsamples, n);
	cr_expect(st_match(a, nstacks), "stacks = once: samples differ from those written");
	cr_expect(st_match(b, nstacks), "stacks = whole: samples differ from those written");
	/* Each stack once; every sample whole in the other. */
	cr_expect_eq(st_count_stacks("thread-1.log"), nstacks);
	cr_expect_eq(st_count_records("thread-1.log", PPF_REC_SAMPLE), 0);
	cr_expect_eq(st_count_records("thread-2.log", PPF_REC_SAMPLE), n);
	cr_expect_eq(st_count_stacks("thread-2.log"), 0);
	/* 8 bytes a sample and a block header now and then: the file is far smaller. */
	cr_expect_lt(st_size("thread-1.log"), 12u * n + nstacks * ppf_stack_size(ST_FRAMES) +
		     PP_LOGFILE_STEP, "%llu bytes for %u samples",
		     (unsigned long long)st_size("thread-1.log"), n);
	cr_expect_lt(st_size("thread-1.log") * 5, st_size("thread-2.log"));
	pa_thread_free(a);
	pa_thread_free(b);
	pa_warnings_release(&warn);
}

/*
 * A sample whose stack is new costs no sample block: the stack and the
 * sample are one record (32 bytes of block header and entry saved on each
 * of a short compiler's samples, whose stacks barely repeat); the samples
 * read back as written, and a repeated stack still costs 8 bytes.
 */
Test(stacks, new_stack_and_its_sample_are_one_record)
{
	const unsigned n = 2000;
	struct pa_warnings warn = { 0 };
	struct pp_logfile log;
	struct pp_stacks *st;
	struct pa_thread *t;
	uint64_t ips[4] = { 0, 0x401000, 0x402000, 0x403000 };
	uint64_t distinct;

	pp_stacks_init_sigsafe(&st);
	st_create(&log, "thread-6.log");
	/* n distinct stacks (their leaves differ; the callers are shared) sampled once each, then again */
	for (unsigned round = 0; round < 2; round++) {
		for (unsigned i = 0; i < n; i++) {
			ips[0] = 0x500000 + 16ull * i;
			cr_assert_eq(pp_stacks_write_sigsafe(&st, &log, ips, 4, 1000ull * (round * n + i),
							     0, 0, 0), 0);
		}
		if (round == 0)
			distinct = log.used;
	}
	st_close(&log, 2 * n);
	pp_stacks_release_sigsafe(&st);
	cr_expect_eq(st_count_records("thread-6.log", PPF_REC_STACK_SAMPLE), n);
	cr_expect_eq(st_count_records("thread-6.log", PPF_REC_STACK), 0);
	/* Only the repeated samples are in blocks, 128 a block. */
	cr_expect_eq(st_count_records("thread-6.log", PPF_REC_SAMPLE_BLOCK),
		     (n + PP_RECORDS_BLOCK_ENTRIES - 1) / PP_RECORDS_BLOCK_ENTRIES);
	/* Each: the record's 32 bytes and its leaf in 4 (22 bits of difference); the first, 3 more. */
	cr_expect_leq(distinct, sizeof(struct ppf_file_header) + sizeof(struct ppf_thread) +
		      n * ppf_align(sizeof(struct ppf_stack_sample) + 4) + 8,
		      "%llu bytes for %u new stacks",
		      (unsigned long long)distinct, n);
	t = st_load("thread-6.log", &warn);
	cr_assert_eq(t->nsamples, 2 * n);
	for (unsigned i = 0; i < 2 * n; i++) {
		const struct pa_sample *p = &t->samples[i];

		cr_assert_eq(p->nframes, 4);
		cr_assert_eq(p->time_ns, 1000ull * i);
		cr_assert_eq(p->ips[0], 0x500000 + 16ull * (i % n), "sample %u", i);
		cr_assert_eq(p->ips[3], 0x403000);
	}
	cr_expect_eq(warn.n, 0, "%s", warn.n ? warn.v[0].reason : "");
	pa_thread_free(t);
	pa_warnings_release(&warn);
}

/*
 * Addresses far apart, at both ends of the address space, in either
 * direction: their differences take the longest encoding and read back
 * exact.
 */
Test(stacks, far_addresses_read_back_exact)
{
	static const uint64_t far[][5] = {
		{ UINT64_MAX, 0, INT64_MAX, (uint64_t)INT64_MAX + 1, 1 },
		{ 0, UINT64_MAX, 0, UINT64_MAX, 0x7ffff7dd1234 },
		{ 0x7ffff7dd1234, 0x555555554000, 0xffffffffff600000, 0x10, 0x7ffff7dd1234 },
	};
	const unsigned n = sizeof(far) / sizeof(far[0]);
	struct pa_warnings warn = { 0 };
	struct pp_logfile log;
	struct pp_stacks *st;
	struct pa_thread *t;

	pp_stacks_init_sigsafe(&st);
	st_create(&log, "thread-8.log");
	for (unsigned i = 0; i < n; i++)
		cr_assert_eq(pp_stacks_write_sigsafe(&st, &log, far[i], 5, 100 + i, 1,
						     PPF_SAMPLE_TRUNCATED, 0), 0);
	st_close(&log, n);
	pp_stacks_release_sigsafe(&st);
	cr_expect_eq(st_count_records("thread-8.log", PPF_REC_STACK_SAMPLE), n);
	t = st_load("thread-8.log", &warn);
	cr_assert_eq(t->nsamples, n);
	for (unsigned i = 0; i < n; i++) {
		cr_expect_eq(t->samples[i].nframes, 5);
		cr_expect_eq(t->samples[i].time_ns, 100 + i);
		cr_expect_eq(t->samples[i].event, 1);
		cr_expect_eq(t->samples[i].flags, PPF_SAMPLE_TRUNCATED);
		cr_expect_arr_eq(t->samples[i].ips, far[i], sizeof(far[i]), "stack %u", i);
	}
	pa_thread_free(t);
	pa_warnings_release(&warn);
}

/*
 * More distinct stacks than a table holds: it starts again (its memory
 * stays one mapping), stacks are written again with new ids, and every
 * sample still reads with its own stack.
 */
Test(stacks, full_table_starts_again_and_reads_right)
{
	const unsigned nstacks = 2 * PP_STACKS_FULL + 123, n = 4 * nstacks;
	struct pa_warnings warn = { 0 };
	struct pp_logfile log;
	struct pp_stacks *st;
	struct pa_thread *t;
	void *table;

	pp_stacks_init_sigsafe(&st);
	st_create(&log, "thread-3.log");
	st_write(&st, &log, 1, nstacks, 0);
	table = st;
	cr_assert_not_null(table);
	st_write_range(&st, &log, 1, n, nstacks, 0);
	cr_expect_eq(st, table, "the table was mapped again");
	st_close(&log, n);
	pp_stacks_release_sigsafe(&st);
	cr_expect_null(st);

	t = st_load("thread-3.log", &warn);
	cr_assert_eq(t->nsamples, n);
	cr_expect(st_match(t, nstacks));
	/* The table kept at most PP_STACKS_FULL: most stacks were written more than once. */
	cr_expect_gt(st_count_stacks("thread-3.log"), nstacks + nstacks / 2);
	pa_thread_free(t);
	pa_warnings_release(&warn);
}

/*
 * A writer killed at random moments (SIGKILL from the parent, after a
 * random delay, many times): every log reads without an error, and its
 * samples are the first ones written, each whole.
 */
Test(stacks, killed_writer_leaves_log_read_to_its_last_whole_sample)
{
	const unsigned rounds = 40, nstacks = 300;
	struct timespec seed;
	size_t partial = 0;

	clock_gettime(CLOCK_MONOTONIC, &seed);
	srand((unsigned)seed.tv_nsec);
	for (unsigned r = 0; r < rounds; r++) {
		struct pa_warnings warn = { 0 };
		struct pa_thread *t;
		char name[64];
		pid_t pid;
		int status;

		int ready[2];
		char c;

		snprintf(name, sizeof(name), "thread-%u.log", 100 + r);
		cr_assert_eq(pipe(ready), 0);
		pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) {
			struct pp_logfile log;
			struct pp_stacks *st;
			struct st_sample s;

			pp_stacks_init_sigsafe(&st);
			pp_logfile_init_sigsafe(&log);
			if (pp_logfile_create_sigsafe(&log, st_dirfd, name, PPF_FILE_THREAD) != 0 ||
			    pp_records_thread_sigsafe(&log, 1, 2, pp_records_now_sigsafe(), NULL) != 0 ||
			    write(ready[1], "r", 1) != 1)
				_exit(1);
			for (unsigned i = 0;; i++) {
				st_sample(i, nstacks, &s);
				if (pp_stacks_write_sigsafe(&st, &log, s.ips, s.n, s.time_ns,
							    s.event, s.flags, 0) != 0)
					_exit(2);
			}
		}
		/* Killed once its log has begun: a log killed before its header is not the point. */
		close(ready[1]);
		cr_assert_eq(read(ready[0], &c, 1), 1, "round %u: the writer did not start", r);
		close(ready[0]);
		usleep((useconds_t)(rand() % 20000));
		kill(pid, SIGKILL);
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		cr_assert(WIFSIGNALED(status), "round %u: the writer ended by itself (%#x)", r,
			  status);
		t = st_load(name, &warn);
		cr_expect(st_match(t, nstacks), "round %u: %zu samples, not those written", r,
			  t->nsamples);
		partial += t->nsamples > 0;
		pa_thread_free(t);
		pa_warnings_release(&warn);
	}
	cr_expect_gt(partial, rounds / 2, "only %zu of %u writers wrote a sample", partial,
		     rounds);
}

/*
 * A log cut at every offset of its first 4 KiB (a file copied while
 * written, a truncated download): read without a crash, and what stops
 * the reading is named by its offset; what is read is the samples written
 * before the cut.
 */
Test(stacks, log_cut_anywhere_in_its_first_4k_reads_and_names_the_offset)
{
	const unsigned nstacks = 12;
	struct pp_logfile log;
	struct pp_stacks *st;
	char path[PATH_MAX];
	size_t size;
	char *data;
	FILE *f;

	pp_stacks_init_sigsafe(&st);
	st_create(&log, "thread-5.log");
	st_write(&st, &log, 600, nstacks, 0);
	st_close(&log, 600);
	pp_stacks_release_sigsafe(&st);
	snprintf(path, sizeof(path), "%s/thread-5.log", st_dir);
	f = fopen(path, "rb");
	cr_assert_not_null(f);
	data = malloc(4096);
	size = fread(data, 1, 4096, f);
	fclose(f);
	cr_assert_eq(size, 4096);
	cr_assert_geq(st_count_stacks("thread-5.log"), nstacks);
	cr_assert_gt(st_count_records("thread-5.log", PPF_REC_STACK_SAMPLE), 0);

	for (size_t cut = 0, most = 0; cut <= size; cut++) {
		struct pa_warnings warn = { 0 };
		struct pa_thread *t = NULL;
		struct pa_error err = { 0 };
		bool named = false;

		if (pa_thread_log_parse("mem/thread-5.log", data, cut, NULL, NULL, &t, &warn,
					&err) < 0) {
			cr_expect(err.has_offset && err.offset <= cut,
				  "cut at %zu: error without its offset: %s", cut, err.reason);
			/* Past its header and PPF_REC_THREAD, a cut log is read, not refused. */
			cr_expect_lt(cut, sizeof(struct ppf_file_header) + sizeof(struct ppf_thread),
				     "cut at %zu: %s", cut, err.reason);
			pa_warnings_release(&warn);
			continue;
		}
		for (size_t i = 0; i < warn.n; i++)
			named = named || (warn.v[i].has_offset && warn.v[i].offset <= cut);
		cr_expect(named, "cut at %zu: read with no warning naming where it stops", cut);
		cr_expect(st_match(t, nstacks), "cut at %zu: samples differ from those written",
			  cut);
		/* Every cut reads as many samples as one before it, or more. */
		cr_expect_geq(t->nsamples, most, "cut at %zu: %zu samples, %zu at a shorter cut",
			      cut, t->nsamples, most);
		most = t->nsamples;
		/* 4 KiB holds the stacks and hundreds of 8-byte samples, a block cut short too. */
		if (cut == size)
			cr_expect_gt(t->nsamples, 320, "%zu samples in the first 4 KiB",
				     t->nsamples);
		pa_thread_free(t);
		pa_warnings_release(&warn);
	}
	free(data);
}
