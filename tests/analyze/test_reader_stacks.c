/*
 * The reader on PPF_REC_STACK and PPF_REC_SAMPLE_BLOCK records made by hand:
 * samples come back with their stack, time, event and flags, whichever
 * kind of record held them; what would name a stack that is not there, or
 * read past a block, is an error naming the offset.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pprof/format.h"
#include "reader.h"
#include "tst_log.h"

TestSuite(reader_stacks, .timeout = 30);

static const uint64_t rs_a[3] = { 0x401010, 0x402020, 0x403030 };
static const uint64_t rs_b[2] = { 0x405050, 0x403030 };

/* A thread log's start: header and PPF_REC_THREAD. */
static void rs_begin(struct tst_log *l)
{
	tst_log_begin(l, PPF_FILE_THREAD);
	tst_log_thread(l, 7, 8, 100, "worker");
}

/* Parses l (then frees it); returns 0 or the error, with *t set on success. */
static int rs_parse(struct tst_log *l, const struct pa_load_opts *opts, struct pa_thread **t,
		    struct pa_warnings *warn, struct pa_error *err)
{
	int ret = pa_thread_log_parse("mem/thread-8.log", l->buf, l->len, NULL, opts, t, warn,
				      err);

	free(l->buf);
	return ret;
}

/*
 * Parses l (then frees it), which must read without an error or a warning
 * but that it has no END record (a killed log's).
 */
static struct pa_thread *rs_read(struct tst_log *l, const struct pa_load_opts *opts)
{
	struct pa_warnings warn = { 0 };
	struct pa_thread *t = NULL;
	struct pa_error err;

	cr_assert_eq(rs_parse(l, opts, &t, &warn, &err), 0, "%s", err.reason);
	for (size_t i = 0; i < warn.n; i++)
		cr_expect(strstr(warn.v[i].reason, "no END record"), "%s", warn.v[i].reason);
	pa_warnings_release(&warn);
	return t;
}

/* Whether sample s is (time, event, flags, stack ips of n frames). */
static bool rs_is(const struct pa_sample *s, uint64_t time_ns, uint32_t event, uint16_t flags,
		  const uint64_t *ips, uint16_t n)
{
	return s->time_ns == time_ns && s->event == event && s->flags == flags &&
	       s->nframes == n && memcmp(s->ips, ips, n * sizeof(*ips)) == 0 && s->count == 1;
}

Test(reader_stacks, block_entries_read_as_samples_of_their_stacks)
{
	const struct ppf_block_entry e1[3] = { { 0, 0 }, { 1, 1000 }, { 0, 4000000000u } };
	const struct ppf_block_entry e2[1] = { { 1, 5 } };
	struct pa_thread *t;
	struct tst_log l;

	rs_begin(&l);
	tst_log_stack(&l, 0, 3, rs_a);
	tst_log_stack(&l, 1, 2, rs_b);
	tst_log_block(&l, 10000000000ull, 0, 0, 3, e1);
	/* Both kinds in one log: a whole sample between blocks. */
	tst_log_sample(&l, 10000000500ull, 1, PPF_SAMPLE_TRUNCATED, 2, rs_b);
	tst_log_block(&l, 20000000000ull, 2, PPF_SAMPLE_LATE, 1, e2);
	tst_log_thread_end(&l, 30000000000ull, 5, 0, 0);
	t = rs_read(&l, NULL);
	cr_assert_eq(t->nsamples, 5);
	cr_expect(rs_is(&t->samples[0], 10000000000ull, 0, 0, rs_a, 3));
	cr_expect(rs_is(&t->samples[1], 10000001000ull, 0, 0, rs_b, 2));
	cr_expect(rs_is(&t->samples[2], 14000000000ull, 0, 0, rs_a, 3));
	cr_expect(rs_is(&t->samples[3], 10000000500ull, 1, PPF_SAMPLE_TRUNCATED, rs_b, 2));
	cr_expect(rs_is(&t->samples[4], 20000000005ull, 2, PPF_SAMPLE_LATE, rs_b, 2));
	pa_thread_free(t);
}

/* A block written with room to spare (the writer's open block): count says what it holds. */
Test(reader_stacks, block_room_beyond_count_is_not_read)
{
	struct ppf_block_entry e[4] = { { 0, 0 }, { 0, 7 }, { 0, 0 }, { 0, 0 } };
	struct pa_thread *t;
	struct tst_log l;
	size_t off;

	rs_begin(&l);
	tst_log_stack(&l, 0, 3, rs_a);
	off = tst_log_block(&l, 50, 0, 0, 4, e);
	/* Two published, the third written but not counted (killed in between). */
	((struct ppf_sample_block *)(void *)tst_log_rec(&l, off))->count = 2;
	((struct ppf_sample_block *)(void *)tst_log_rec(&l, off))->entries[2].stack = 9;
	t = rs_read(&l, NULL);
	cr_assert_eq(t->nsamples, 2);
	cr_expect(rs_is(&t->samples[1], 57, 0, 0, rs_a, 3));
	pa_thread_free(t);
}

/* Collapsing counts entries of one stack as one sample, as it does whole samples. */
Test(reader_stacks, collapse_merges_entries_of_one_stack)
{
	const struct ppf_block_entry e[3] = { { 0, 0 }, { 1, 1 }, { 0, 2 } };
	struct pa_load_opts lo = { .collapse = true };
	struct pa_thread *t;
	struct tst_log l;

	rs_begin(&l);
	tst_log_stack(&l, 0, 3, rs_a);
	tst_log_stack(&l, 1, 2, rs_b);
	tst_log_block(&l, 100, 0, 0, 3, e);
	tst_log_sample(&l, 200, 0, 0, 3, rs_a);
	t = rs_read(&l, &lo);
	cr_assert_eq(t->nsamples, 2);
	cr_expect(t->samples[0].count == 3 && t->samples[0].time_ns == 200 &&
		  memcmp(t->samples[0].ips, rs_a, sizeof(rs_a)) == 0);
	cr_expect(t->samples[1].count == 1 && t->samples[1].nframes == 2);
	pa_thread_free(t);
}

/* Parses l, which must fail; returns the error. */
static struct pa_error rs_expect_error(struct tst_log *l, const char *needle)
{
	struct pa_warnings warn = { 0 };
	struct pa_thread *t = NULL;
	struct pa_error err = { 0 };

	cr_assert_lt(rs_parse(l, NULL, &t, &warn, &err), 0, "no error; wanted '%s'", needle);
	cr_expect(strstr(err.reason, needle), "error '%s', wanted '%s'", err.reason, needle);
	cr_expect(err.has_offset, "error without an offset: %s", err.reason);
	pa_warnings_release(&warn);
	return err;
}

Test(reader_stacks, rejects_entry_naming_a_stack_not_written_before)
{
	const struct ppf_block_entry e[2] = { { 0, 0 }, { 1, 0 } };
	struct pa_error err;
	struct tst_log l;
	size_t off;

	rs_begin(&l);
	tst_log_stack(&l, 0, 3, rs_a);
	off = tst_log_block(&l, 0, 0, 0, 2, e);
	tst_log_stack(&l, 1, 2, rs_b);
	err = rs_expect_error(&l, "entry 1 names stack 1, but the log has 1 stack record");
	cr_expect_eq(err.offset, off + sizeof(struct ppf_sample_block) + 8);
}

Test(reader_stacks, rejects_stack_ids_out_of_sequence)
{
	struct pa_error err;
	struct tst_log l;
	size_t off;

	rs_begin(&l);
	tst_log_stack(&l, 0, 3, rs_a);
	off = tst_log_stack(&l, 2, 2, rs_b);
	err = rs_expect_error(&l, "stack record with id 2, expected 1");
	cr_expect_eq(err.offset, off);
}

/*
 * A stack with its first sample (PPF_REC_STACK_SAMPLE), made by hand from
 * the format's words: it reads as a stack record and a sample of it, its
 * id counts with PPF_REC_STACK's, and a block after it names it.
 */
Test(reader_stacks, stack_sample_is_a_stack_and_its_first_sample)
{
	const struct ppf_block_entry e[] = { { .stack = 1, .delta_ns = 0 },
					     { .stack = 0, .delta_ns = 5 } };
	static const uint64_t far[3] = { UINT64_MAX, 0x10, 0x403030 };
	struct tst_log l;
	struct pa_thread *t;

	rs_begin(&l);
	tst_log_stack(&l, 0, 3, rs_a);
	/* rs_b shares its outer frame with rs_a */
	tst_log_stack_sample(&l, 1, 2, 1, 0, 200, 1, PPF_SAMPLE_LATE, rs_b);
	tst_log_block(&l, 300, 0, 0, 2, e);
	tst_log_stack_sample(&l, 2, 3, 0, 0, 400, 0, 0, far);
	t = rs_read(&l, NULL);
	cr_assert_eq(t->nsamples, 4);
	cr_expect(rs_is(&t->samples[0], 200, 1, PPF_SAMPLE_LATE, rs_b, 2));
	cr_expect(rs_is(&t->samples[1], 300, 0, 0, rs_b, 2));
	cr_expect(rs_is(&t->samples[2], 305, 0, 0, rs_a, 3));
	cr_expect(rs_is(&t->samples[3], 400, 0, 0, far, 3));
	pa_thread_free(t);
}

/* Its frames' encoding running past the record, or past 64 bits: named by the record's offset. */
Test(reader_stacks, rejects_stack_sample_frames_past_its_size)
{
	static const uint64_t wide[3] = { INT64_MAX, 0, INT64_MAX }; /* 10 bytes each */
	struct pa_error err;
	struct tst_log l;
	size_t off;

	rs_begin(&l);
	off = tst_log_stack_sample(&l, 0, 3, 0, 0, 1, 0, 0, rs_a);
	((struct ppf_stack_sample *)(void *)tst_log_rec(&l, off))->nframes = 9;
	err = rs_expect_error(&l, "stack sample record: frame 3 of 9 runs past the record");
	cr_expect_eq(err.offset, off);
	rs_begin(&l);
	off = tst_log_stack_sample(&l, 0, 3, 0, 0, 1, 0, 0, wide);
	cr_assert_geq(tst_log_rec(&l, off)->size, sizeof(struct ppf_stack_sample) + 16);
	memset((char *)tst_log_rec(&l, off) + sizeof(struct ppf_stack_sample), 0xff, 16);
	err = rs_expect_error(&l, "stack sample record: frame 0 of 3 is no 64-bit number");
	cr_expect_eq(err.offset, off);
	rs_begin(&l);
	off = tst_log_stack_sample(&l, 3, 1, 0, 0, 1, 0, 0, rs_a);
	rs_expect_error(&l, "stack record with id 3, expected 0");
}

Test(reader_stacks, rejects_stack_frames_inconsistent_with_size)
{
	struct pa_error err;
	struct tst_log l;
	size_t off;

	rs_begin(&l);
	off = tst_log_stack(&l, 0, 3, rs_a);
	((struct ppf_stack *)(void *)tst_log_rec(&l, off))->nframes = 4;
	err = rs_expect_error(&l, "stack record of 48 bytes cannot hold its 4 frames");
	cr_expect_eq(err.offset, off);
	rs_begin(&l);
	off = tst_log_stack(&l, 0, 3, rs_a);
	((struct ppf_stack *)(void *)tst_log_rec(&l, off))->nframes = 0;
	rs_expect_error(&l, "stack record: 0 frames");
}

Test(reader_stacks, rejects_block_count_past_its_size)
{
	const struct ppf_block_entry e[2] = { { 0, 0 }, { 0, 1 } };
	struct pa_error err;
	struct tst_log l;
	size_t off;

	rs_begin(&l);
	tst_log_stack(&l, 0, 3, rs_a);
	off = tst_log_block(&l, 0, 0, 0, 2, e);
	((struct ppf_sample_block *)(void *)tst_log_rec(&l, off))->count = 3;
	err = rs_expect_error(&l, "sample block of 48 bytes cannot hold its 3 entries");
	cr_expect_eq(err.offset, off);
}

Test(reader_stacks, stack_records_do_not_belong_in_a_process_log)
{
	struct pa_warnings warn = { 0 };
	struct pa_process *p = NULL;
	struct pa_error err = { 0 };
	struct tst_log l;
	size_t off;

	tst_log_begin(&l, PPF_FILE_PROCESS);
	tst_log_process(&l, 7, 1, "/bin/x", (const char *const[]){ "x", NULL });
	off = tst_log_stack(&l, 0, 3, rs_a);
	cr_assert_lt(pa_process_log_parse("mem/process.log", l.buf, l.len, &p, &warn, &err), 0);
	free(l.buf);
	cr_expect(strstr(err.reason, "record type 32 does not belong in a process log"), "%s",
		  err.reason);
	cr_expect(err.has_offset && err.offset == off);
	pa_warnings_release(&warn);
}

/* A stack that shares its outer frames with one before it reads whole, collapsed or not. */
Test(reader_stacks, shared_outer_frames_come_from_the_base_stack)
{
	static const uint64_t c_own[2] = { 0x409090, 0x408080 };
	static const uint64_t c[4] = { 0x409090, 0x408080, 0x402020, 0x403030 };
	const struct ppf_block_entry e[3] = { { 0, 0 }, { 1, 1 }, { 2, 2 } };
	struct pa_load_opts lo = { .collapse = true };

	for (int collapse = 0; collapse < 2; collapse++) {
		struct pa_thread *t;
		struct tst_log l;

		rs_begin(&l);
		tst_log_stack(&l, 0, 3, rs_a);
		/* rs_b's outer frame is rs_a's; c's two outer ones are rs_a's, through rs_b. */
		tst_log_stack_shared(&l, 1, 2, 1, 0, rs_b);
		tst_log_stack_shared(&l, 2, 4, 2, 0, c_own);
		tst_log_block(&l, 100, 0, 0, 3, e);
		/* Cut short of its zero tail: the copy that keeps the data moves. */
		t = rs_read(&l, collapse ? &lo : NULL);
		cr_assert_eq(t->nsamples, 3);
		cr_expect(memcmp(t->samples[0].ips, rs_a, sizeof(rs_a)) == 0);
		cr_expect(t->samples[1].nframes == 2 &&
			  memcmp(t->samples[1].ips, rs_b, sizeof(rs_b)) == 0);
		cr_expect(t->samples[2].nframes == 4 &&
			  memcmp(t->samples[2].ips, c, sizeof(c)) == 0, "collapse %d", collapse);
		pa_thread_free(t);
	}
}

Test(reader_stacks, rejects_shared_frames_of_a_stack_not_before_or_too_short)
{
	struct pa_error err;
	struct tst_log l;
	size_t off;

	rs_begin(&l);
	tst_log_stack(&l, 0, 2, rs_b);
	off = tst_log_stack_shared(&l, 1, 3, 1, 1, rs_a);
	err = rs_expect_error(&l, "stack record 1 shares 1 frames of stack 1, which does not "
			      "come before it");
	cr_expect_eq(err.offset, off);
	rs_begin(&l);
	tst_log_stack(&l, 0, 2, rs_b);
	tst_log_stack_shared(&l, 1, 3, 3, 0, rs_a);
	rs_expect_error(&l, "stack record 1 shares 3 frames of stack 0, which has fewer");
	rs_begin(&l);
	tst_log_stack(&l, 0, 2, rs_b);
	tst_log_stack_shared(&l, 1, 1, 2, 0, rs_a);
	rs_expect_error(&l, "stack record of 1 frames shares 2");
}

/*
 * A writer killed while it wrote a stack record: its body is there, its
 * header not yet (both zero: the end of the data), or its size but not its
 * type, which is stored last (a record of type 0, skipped as unknown, with
 * a warning). Either way the log reads up to the samples before it.
 */
Test(reader_stacks, stack_record_killed_half_written_reads_to_the_samples_before)
{
	const struct ppf_block_entry e[2] = { { 0, 0 }, { 0, 9 } };

	for (int size_stored = 0; size_stored < 2; size_stored++) {
		struct pa_warnings warn = { 0 };
		struct pa_thread *t = NULL;
		struct ppf_record *h;
		struct pa_error err;
		struct tst_log l;
		bool unknown = false;

		rs_begin(&l);
		tst_log_stack(&l, 0, 3, rs_a);
		tst_log_block(&l, 70, 0, 0, 2, e);
		h = tst_log_rec(&l, tst_log_stack(&l, 1, 2, rs_b));
		h->type = 0;
		if (!size_stored)
			h->size = 0;
		cr_assert_eq(rs_parse(&l, NULL, &t, &warn, &err), 0, "%s", err.reason);
		cr_assert_eq(t->nsamples, 2, "size stored %d: %zu samples", size_stored,
			     t->nsamples);
		cr_expect(rs_is(&t->samples[1], 79, 0, 0, rs_a, 3));
		for (size_t i = 0; i < warn.n; i++)
			unknown = unknown || strstr(warn.v[i].reason, "unknown type");
		cr_expect_eq(unknown, size_stored, "size stored %d: unknown record said %d",
			     size_stored, unknown);
		pa_thread_free(t);
		pa_warnings_release(&warn);
	}
}

/* A file cut inside a sample block: its whole entries are read, and the cut is said. */
Test(reader_stacks, block_cut_short_keeps_its_whole_entries)
{
	const struct ppf_block_entry e[4] = { { 0, 0 }, { 0, 1 }, { 0, 2 }, { 0, 3 } };
	struct pa_warnings warn = { 0 };
	struct pa_thread *t = NULL;
	struct pa_error err;
	struct tst_log l;
	bool said = false;
	size_t off;

	rs_begin(&l);
	tst_log_stack(&l, 0, 3, rs_a);
	off = tst_log_block(&l, 10, 0, 0, 4, e);
	/* Two whole entries and half of the third. */
	l.len = off + sizeof(struct ppf_sample_block) + 2 * sizeof(e[0]) + 4;
	cr_assert_eq(rs_parse(&l, NULL, &t, &warn, &err), 0, "%s", err.reason);
	cr_assert_eq(t->nsamples, 2);
	cr_expect(rs_is(&t->samples[1], 11, 0, 0, rs_a, 3));
	for (size_t i = 0; i < warn.n; i++)
		said = said || (strstr(warn.v[i].reason, "truncated") && warn.v[i].has_offset &&
				warn.v[i].offset == off);
	cr_expect(said, "no warning names the block cut short at offset %zu", off);
	pa_thread_free(t);
	pa_warnings_release(&warn);
}
