/*
 * fuzz_reader: libFuzzer target for the analyzer's log reader (analyze/reader.c).
 *
 * An input is one process directory's logs laid end to end: it is cut
 * before every PPF_MAGIC, the first piece read as process.log and every
 * other as a thread log of that process (with no process when process.log
 * fails), as pa_process_load_opts reads them: each thread log twice, sample
 * by sample and collapsed. A piece whose header says PPF_FILE_WALL is the
 * process's wall.log instead (the first one; the others are read as thread
 * logs, which must refuse them): read last, as pa_process_load_opts does,
 * over the threads read. The seeds (tests/fuzz/seeds.sh) are real runs'
 * logs in that layout.
 *
 * Besides what ASan and UBSan catch, it checks what reader.h promises: a
 * load that fails says why and returns nothing; every string is terminated,
 * every sample has 1..PPF_MAX_FRAMES readable frames; reading collapsed
 * fails exactly when reading every sample fails, and its counts add up to
 * the samples read one by one.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "reader.h"
#include "wall.h"

#define FZ_MAX_LOGS 64 /* thread logs read from one input */

static volatile size_t fz_sink; /* keeps reads of the results from being optimised out */

/* A failed load: a reason, and nothing returned. */
static void fz_check_error(int ret, const void *out, const struct pa_error *err)
{
	FZ_CHECK(ret < 0 && !out, "ret %d", ret);
	FZ_CHECK(memchr(err->reason, '\0', sizeof(err->reason)) && err->reason[0],
		 "an error without a reason");
}

static void fz_check_warnings(const struct pa_warnings *w)
{
	for (size_t i = 0; i < w->n; i++)
		fz_sink += strlen(w->v[i].path) + strlen(w->v[i].reason);
}

static void fz_check_process(const struct pa_process *p)
{
	FZ_CHECK(p->exe && p->argv && !p->argv[p->argc], "argv of %zu", p->argc);
	fz_sink += strlen(p->exe) + strlen(p->path) + strlen(p->dir);
	for (size_t i = 0; i < p->argc; i++)
		fz_sink += strlen(p->argv[i]);
	for (size_t i = 0; i < p->nevents; i++) {
		FZ_CHECK(memchr(p->events[i].name, '\0', PPF_NAME_MAX) &&
			 memchr(p->events[i].spec, '\0', PPF_NAME_MAX) && p->events[i].spec[0],
			 "event %zu: spec \"%.*s\"", i, (int)PPF_NAME_MAX, p->events[i].spec);
		FZ_CHECK(pa_process_find_event(p, p->events[i].index), "event %zu", i);
	}
	for (size_t i = 0; i < p->nmodules; i++) {
		FZ_CHECK(p->modules[i].build_id_len <= PPF_BUILD_ID_MAX &&
			 p->modules[i].start <= p->modules[i].end, "module %zu", i);
		fz_sink += strlen(p->modules[i].path);
	}
	for (size_t i = 0; i < p->nexecs; i++)
		fz_sink += strlen(p->execs[i].path);
	FZ_CHECK(!p->replaced || p->nexecs, "replaced without an exec");
	if (p->config.known) {
		FZ_CHECK(p->config.source && p->config.text &&
			 p->config.text[p->config.text_len] == '\0', "config text");
		fz_sink += strlen(p->config.source);
	}
	fz_sink += strlen(pa_process_exe_base(p));
}

/* The samples of t, as many as they stand for. */
static uint64_t fz_check_thread(const struct pa_thread *t)
{
	uint64_t n = 0;

	FZ_CHECK(memchr(t->name, '\0', sizeof(t->name)), "thread name");
	fz_sink += strlen(t->path);
	for (size_t i = 0; i < t->nsamples; i++) {
		const struct pa_sample *s = &t->samples[i];

		FZ_CHECK(s->nframes >= 1 && s->nframes <= PPF_MAX_FRAMES && s->count >= 1,
			 "sample %zu: %u frames, count %" PRIu64, i, s->nframes, s->count);
		for (size_t k = 0; k < s->nframes; k++)
			fz_sink += (size_t)s->ips[k];
		n += s->count;
	}
	for (size_t i = 0; i < t->nevents; i++)
		FZ_CHECK(pa_thread_find_event(t, t->events[i].event), "thread event %zu", i);
	return n;
}

/*
 * One thread log, read as pa_process_load_opts reads it: every sample,
 * then collapsed. Returns the thread read sample by sample, or NULL.
 */
static struct pa_thread *fz_thread(const char *data, size_t size, const struct pa_process *proc)
{
	static const struct pa_load_opts collapse = { .collapse = true };
	struct pa_warnings warn = { 0 };
	struct pa_thread *t = NULL, *c = NULL;
	struct pa_error err, cerr;
	int ret, cret;

	ret = pa_thread_log_parse("thread-1.log", data, size, proc, NULL, &t, &warn, &err);
	cret = pa_thread_log_parse("thread-1.log", data, size, proc, &collapse, &c, &warn,
				   &cerr);
	FZ_CHECK((ret < 0) == (cret < 0), "every sample: %d (%s); collapsed: %d (%s)", ret,
		 ret < 0 ? err.reason : "", cret, cret < 0 ? cerr.reason : "");
	if (ret < 0) {
		fz_check_error(ret, t, &err);
		fz_check_error(cret, c, &cerr);
	} else {
		uint64_t n = fz_check_thread(t), cn = fz_check_thread(c);

		/* A sample may stand for several overflows (PPF_REC_SAMPLE_WEIGHT). */
		FZ_CHECK(n >= t->nsamples && cn == n && c->nsamples <= t->nsamples,
			 "%zu samples standing for %llu, %llu collapsed into %zu", t->nsamples,
			 (unsigned long long)n, (unsigned long long)cn, c->nsamples);
	}
	fz_check_warnings(&warn);
	pa_thread_free(c);
	pa_warnings_release(&warn);
	return t;
}

static int fz_cmp_thread(const void *a, const void *b)
{
	const struct pa_thread *x = *(struct pa_thread *const *)a;
	const struct pa_thread *y = *(struct pa_thread *const *)b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * wall.log, over proc with threads[0..n) (taken, sorted by tid): a failed
 * read says why; a good one gives the "wall" event and threads whose
 * samples hold.
 */
static void fz_wall(const char *data, size_t size, struct pa_process *proc,
		    struct pa_thread **threads, size_t n)
{
	struct pa_warnings warn = { 0 };
	struct pa_error err;
	int ret;

	qsort(threads, n, sizeof(*threads), fz_cmp_thread);
	proc->threads = threads;
	proc->nthreads = n;
	ret = pa_wall_log_parse(proc, "wall.log", data, size, &warn, &err);
	if (ret < 0) {
		FZ_CHECK(err.reason[0] && memchr(err.reason, '\0', sizeof(err.reason)),
			 "an error without a reason");
	} else {
		const struct pa_wall_info *w = proc->wall;

		FZ_CHECK(w && w->period_ns && pa_process_find_event(proc, w->event),
			 "a wall.log read without its event");
		fz_check_process(proc);
	}
	for (size_t i = 0; i < proc->nthreads; i++)
		fz_check_thread(proc->threads[i]);
	fz_check_warnings(&warn);
	pa_warnings_release(&warn);
}

/* Whether the log at p (size bytes) says it is a wall.log. */
static bool fz_is_wall(const char *p, size_t size)
{
	struct ppf_file_header h;

	if (size < sizeof(h))
		return false;
	memcpy(&h, p, sizeof(h));
	return h.kind == PPF_FILE_WALL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	const char *next = size > PPF_MAGIC_LEN ?
		memmem(p + 1, size - 1, PPF_MAGIC, PPF_MAGIC_LEN) : NULL;
	struct pa_warnings warn = { 0 };
	struct pa_process *proc = NULL;
	struct pa_thread *threads[FZ_MAX_LOGS];
	const char *wall = NULL;
	size_t nthreads = 0, wall_size = 0;
	struct pa_error err;
	int ret, nlogs = 0;

	ret = pa_process_log_parse("process.log", p, (size_t)((next ? next : end) - p), &proc,
				   &warn, &err);
	if (ret < 0)
		fz_check_error(ret, proc, &err);
	else
		fz_check_process(proc);
	fz_check_warnings(&warn);
	while (next && nlogs++ < FZ_MAX_LOGS) {
		size_t len;
		struct pa_thread *t;

		p = next;
		next = memmem(p + 1, (size_t)(end - p - 1), PPF_MAGIC, PPF_MAGIC_LEN);
		len = (size_t)((next ? next : end) - p);
		if (!wall && fz_is_wall(p, len)) {
			wall = p;
			wall_size = len;
			continue;
		}
		t = fz_thread(p, len, proc);
		if (t && proc)
			threads[nthreads++] = t;
		else
			pa_thread_free(t);
	}
	if (proc && wall) {
		struct pa_thread **own = malloc((nthreads ? nthreads : 1) * sizeof(*own));

		FZ_CHECK(own, "out of memory");
		memcpy(own, threads, nthreads * sizeof(*own));
		fz_wall(wall, wall_size, proc, own, nthreads);
	} else {
		for (size_t i = 0; i < nthreads; i++)
			pa_thread_free(threads[i]);
	}
	pa_process_free(proc);
	pa_warnings_release(&warn);
	return 0;
}
