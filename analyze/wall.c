/* wall: wall-clock samples from wall.log; see wall.h. */
#include "wall.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eventinfo.h"
#include "grow.h"
#include "hash.h"
#include "profile.h"
#include "reader.h"
#include "regfile.h"
#include "satmath.h"
#include "window.h"

static const char *const pa_wall_states[PPF_WALL_STATES] = {
	[PPF_WALL_UNKNOWN] = "blocked",
	[PPF_WALL_SLEEP] = "sleep",
	[PPF_WALL_FUTEX] = "futex",
	[PPF_WALL_IO] = "io",
	[PPF_WALL_POLL] = "poll",
	[PPF_WALL_SYSCALL] = "syscall",
	[PPF_WALL_RUNNABLE] = "runnable",
	[PPF_WALL_OTHER] = "other",
};

static const char *const pa_wall_leaves[PPF_WALL_STATES] = {
	[PPF_WALL_UNKNOWN] = "[off-cpu: blocked]",
	[PPF_WALL_SLEEP] = "[off-cpu: sleep]",
	[PPF_WALL_FUTEX] = "[off-cpu: futex]",
	[PPF_WALL_IO] = "[off-cpu: io]",
	[PPF_WALL_POLL] = "[off-cpu: poll]",
	[PPF_WALL_SYSCALL] = "[off-cpu: syscall]",
	[PPF_WALL_RUNNABLE] = "[off-cpu: runnable]",
	[PPF_WALL_OTHER] = "[off-cpu: other]",
};

const char *pa_wall_state_name(unsigned s)
{
	return s < PPF_WALL_STATES ? pa_wall_states[s] : "?";
}

const char *pa_wall_frame_name(uint64_t ip)
{
	uint64_t s = UINT64_MAX - 1 - ip;

	return ip < UINT64_MAX && s < PPF_WALL_STATES ? pa_wall_leaves[s] : NULL;
}

uint64_t pa_wall_off_ns(const struct pa_thread *t)
{
	uint64_t n = 0;

	for (unsigned s = 0; s < PPF_WALL_STATES; s++)
		n += t->off_ns[s];
	return n;
}

char *pa_wall_format_off(const struct pa_thread *t, char *buf, size_t size)
{
	bool done[PPF_WALL_STATES] = { false };
	uint64_t total = pa_wall_off_ns(t);
	size_t len;

	buf[0] = '\0';
	if (!total)
		return buf;
	snprintf(buf, size, "off the CPU %.3f s:", (double)total / 1e9);
	for (unsigned k = 0; k < PPF_WALL_STATES; k++) {
		unsigned best = PPF_WALL_STATES;

		for (unsigned s = 0; s < PPF_WALL_STATES; s++)
			if (!done[s] && t->off_ns[s] &&
			    (best == PPF_WALL_STATES || t->off_ns[s] > t->off_ns[best]))
				best = s;
		/* what would print as 0.000 s says nothing */
		if (best == PPF_WALL_STATES || t->off_ns[best] < 500000)
			break;
		done[best] = true;
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s %s %.3f s", k ? "," : "",
			 pa_wall_states[best], (double)t->off_ns[best] / 1e9);
	}
	return buf;
}

void pa_wall_notes(FILE *out, const char *prefix, const struct pa_run *run,
		   const struct pa_filter *f)
{
	struct pa_wall_info sum = { 0 };
	uint64_t wall_ns = 0;
	size_t n = 0;

	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_wall_info *w = run->processes[i]->wall;

		if (!w || !pa_filter_selects(f, run->processes[i]))
			continue;
		n++;
		/* The helper's CPU time is its last end record's, over that record's time. */
		if (w->end_ns > w->start_ns)
			wall_ns += w->end_ns - w->start_ns;
		sum.helper_cpu_ns += w->helper_cpu_ns;
		sum.looks += w->looks;
		sum.looks_dropped += w->looks_dropped;
		sum.threads += w->threads;
		sum.no_ring += w->no_ring;
		sum.lost += w->lost;
		sum.lost_ns = pa_add_sat(sum.lost_ns, w->lost_ns);
		sum.guessed_ns = pa_add_sat(sum.guessed_ns, w->guessed_ns);
		sum.degraded += w->degraded;
		sum.yield_dropped = pa_add_sat(sum.yield_dropped, w->yield_dropped);
		sum.yields += w->yields;
		sum.yields_no_stack += w->yields_no_stack;
		sum.trimmed_ns = pa_add_sat(sum.trimmed_ns, w->trimmed_ns);
		sum.unsampled_ns = pa_add_sat(sum.unsampled_ns, w->unsampled_ns);
	}
	if (!n)
		return;
	fprintf(out, "%swall: the profiler's helper used %.1f ms of CPU per second of wall time "
		"(%" PRIu64 " stacks read, %" PRIu64 " dropped", prefix,
		wall_ns ? (double)sum.helper_cpu_ns / 1e6 / ((double)wall_ns / 1e9) : 0.0,
		sum.looks, sum.looks_dropped);
	if (sum.no_ring)
		fprintf(out, "; %" PRIu32 " of %" PRIu32 " threads had no ring (locked-memory "
			"limit) and were looked at instead", sum.no_ring, sum.threads);
	if (sum.lost)
		fprintf(out, "; %" PRIu64 " switch records lost: %.3f s of threads' time not known "
			"on or off the CPU", sum.lost, (double)sum.lost_ns / 1e9);
	if (sum.trimmed_ns >= 1000000)
		fprintf(out, "; %.3f s at the end of waits was the kernel's switch path, "
			"which the threads' CPU clocks count: on the CPU", (double)sum.trimmed_ns / 1e9);
	if (sum.unsampled_ns >= 1000000)
		fprintf(out, "; %.3f s of the threads' CPU time was not sampled (in the kernel, "
			"mostly): counted on the stacks around it", (double)sum.unsampled_ns / 1e9);
	if (sum.guessed_ns)
		fprintf(out, "; %.3f s of waits spanned pause switches the helper missed: "
			"their paused part is estimated", (double)sum.guessed_ns / 1e9);
	if (sum.degraded)
		fprintf(out, "; its cost cap stepped in %" PRIu64 "x", sum.degraded);
	if (sum.yields)
		fprintf(out, "; %" PRIu64 " sched_yield stretches", sum.yields);
	if (sum.yields_no_stack)
		fprintf(out, " (%" PRIu64 " without their stack: a sample of the loop's instead)",
			sum.yields_no_stack);
	if (sum.yield_dropped)
		fprintf(out, "; %" PRIu64 " sched_yield stretches not kept: their time in the kernel "
			"is not counted", sum.yield_dropped);
	fprintf(out, ")\n");
}

/* The longest wait read (2^50 ns, 13 days): weights stay far from overflowing. */
#define PA_WALL_MAX_INTERVAL (1ull << 50)

/* A PPF_REC_STACK of wall.log, copied. */
struct pa_wall_stack {
	uint64_t *ips;
	uint16_t nframes;
};

/* When a thread ended, as wall.log says (PPF_REC_WALL_THREAD.end_ns). */
struct pa_wall_end_of {
	uint32_t tid;
	uint64_t end_ns;
};

/* A thread's CPU time from born_ns to end_ns (PPF_REC_WALL_THREAD; end_ns 0: the log's end). */
struct pa_wall_cpu_of {
	uint32_t tid;
	uint64_t born_ns, end_ns, cpu_ns;
};

/* What the walk over wall.log gathers. */
struct pa_wall_read {
	struct pa_wall_info *info;
	const char *path;
	bool started;
	struct pa_wall_stack *stacks;
	size_t nstacks, stacks_cap;
	struct ppf_wall_interval *iv;
	size_t niv, iv_cap;
	struct ppf_wall_interval *open; /* PPF_REC_WALL_OPEN */
	size_t nopen, open_cap;
	struct ppf_wall_lost *lost;     /* PPF_REC_WALL_LOST */
	size_t nlost, lost_cap;
	struct ppf_wall_older *older; /* threads older than the profiler */
	size_t nolder, older_cap;
	struct pa_wall_end_of *ends;  /* threads' ends (PPF_REC_WALL_THREAD) */
	size_t nends, ends_cap;
	struct pa_wall_cpu_of *cpus;  /* threads' CPU time (PPF_REC_WALL_THREAD) */
	size_t ncpus, cpus_cap;
	struct ppf_wall_yield *yields; /* PPF_REC_WALL_YIELD, sorted by thread and time */
	size_t nyields, yields_cap;
};

static int pa_wall_bad(const char *path, uint64_t off, struct pa_error *err, const char *what)
{
	return pa_error_set(err, -EINVAL, path, true, off, "%s", what);
}

static int pa_wall_stack_rec(struct pa_wall_read *r, const char *path, uint64_t off,
			     const char *rec, uint32_t size, struct pa_error *err)
{
	struct ppf_stack s;
	struct pa_wall_stack *ws;

	if (size < sizeof(s))
		return pa_wall_bad(path, off, err, "stack record too short");
	memcpy(&s, rec, sizeof(s));
	if (s.id != r->nstacks || s.shared || !s.nframes || s.nframes > PPF_MAX_FRAMES ||
	    ppf_stack_size(s.nframes) > size)
		return pa_error_set(err, -EINVAL, path, true, off,
				    "wall stack record %u: expected stack %zu of 1..%u whole "
				    "frames", s.id, r->nstacks, PPF_MAX_FRAMES);
	if (pa_grow((void **)&r->stacks, &r->stacks_cap, r->nstacks, sizeof(*r->stacks)) < 0)
		return pa_error_set(err, -ENOMEM, path, false, 0, "out of memory");
	ws = &r->stacks[r->nstacks];
	ws->ips = malloc(s.nframes * sizeof(uint64_t));
	if (!ws->ips)
		return pa_error_set(err, -ENOMEM, path, false, 0, "out of memory");
	memcpy(ws->ips, rec + sizeof(s), s.nframes * sizeof(uint64_t));
	ws->nframes = s.nframes;
	r->nstacks++;
	return 0;
}

/* A PPF_REC_WALL_INTERVAL, or a PPF_REC_WALL_OPEN when open. */
static int pa_wall_interval_rec(struct pa_wall_read *r, const char *path, uint64_t off,
				const char *rec, uint32_t size, bool open, struct pa_error *err)
{
	struct ppf_wall_interval iv, **v = open ? &r->open : &r->iv;
	size_t *n = open ? &r->nopen : &r->niv, *cap = open ? &r->open_cap : &r->iv_cap;

	if (size < sizeof(iv))
		return pa_wall_bad(path, off, err, "wall interval record too short");
	memcpy(&iv, rec, sizeof(iv));
	if (iv.state >= PPF_WALL_STATES || iv.in_ns < iv.out_ns ||
	    iv.in_ns - iv.out_ns > PA_WALL_MAX_INTERVAL ||
	    (iv.stack != PPF_WALL_NO_STACK && iv.stack >= r->nstacks))
		return pa_error_set(err, -EINVAL, path, true, off,
				    "wall interval of thread %u: state %u, %llu..%llu ns, "
				    "stack %u of %zu: out of range", iv.tid, iv.state,
				    (unsigned long long)iv.out_ns, (unsigned long long)iv.in_ns,
				    iv.stack, r->nstacks);
	if (pa_grow((void **)v, cap, *n, sizeof(**v)) < 0)
		return pa_error_set(err, -ENOMEM, path, false, 0, "out of memory");
	(*v)[(*n)++] = iv;
	if (!open && (iv.flags & PPF_WALL_PAUSE_GUESSED))
		r->info->guessed_ns = pa_add_sat(r->info->guessed_ns, iv.in_ns - iv.out_ns);
	return 0;
}

static int pa_wall_end_rec(struct pa_wall_read *r, const char *path, uint64_t off,
			   const char *rec, uint32_t size, struct pa_error *err)
{
	struct ppf_wall_end e;

	if (size < sizeof(e))
		return pa_wall_bad(path, off, err, "wall end record too short");
	memcpy(&e, rec, sizeof(e));
	r->info->ended = true;
	r->info->end_ns = e.end_ns;
	r->info->looks = e.looks;
	r->info->looks_dropped = e.looks_dropped;
	r->info->helper_cpu_ns = e.helper_cpu_ns;
	r->info->threads = e.threads;
	r->info->no_ring = e.no_ring;
	r->info->lost = e.lost;
	r->info->ticks = e.ticks;
	r->info->degraded = e.degraded;
	r->info->looks_only = e.looks_only;
	return 0;
}

static int pa_wall_lost_rec(struct pa_wall_read *r, const char *path, uint64_t off,
			    const char *rec, uint32_t size, struct pa_error *err)
{
	struct ppf_wall_lost l;

	if (size < sizeof(l))
		return pa_wall_bad(path, off, err, "wall lost record too short");
	memcpy(&l, rec, sizeof(l));
	if (l.to_ns < l.from_ns || l.to_ns - l.from_ns > PA_WALL_MAX_INTERVAL)
		return pa_error_set(err, -EINVAL, path, true, off,
				    "wall records lost of thread %u: %llu..%llu ns: out of range",
				    l.tid, (unsigned long long)l.from_ns,
				    (unsigned long long)l.to_ns);
	if (pa_grow((void **)&r->lost, &r->lost_cap, r->nlost, sizeof(*r->lost)) < 0)
		return pa_error_set(err, -ENOMEM, path, false, 0, "out of memory");
	r->lost[r->nlost++] = l;
	return 0;
}

/* A PPF_REC_WALL_THREAD: when the thread ended, when known. */
static int pa_wall_thread_rec(struct pa_wall_read *r, const char *path, uint64_t off,
			      const char *rec, uint32_t size, struct pa_error *err)
{
	struct ppf_wall_thread t = { 0 };

	if (size < PPF_WALL_THREAD_V1_SIZE)
		return pa_wall_bad(path, off, err, "wall thread record too short");
	/* The first writers' records stop before end_ns: not known. */
	if (size < PPF_WALL_THREAD_V2_SIZE)
		return 0;
	memcpy(&t, rec, size < sizeof(t) ? size : sizeof(t));
	if (t.born_ns) {
		if (pa_grow((void **)&r->cpus, &r->cpus_cap, r->ncpus, sizeof(*r->cpus)) < 0)
			return pa_error_set(err, -ENOMEM, path, false, 0, "out of memory");
		r->cpus[r->ncpus++] = (struct pa_wall_cpu_of){ .tid = t.tid, .born_ns = t.born_ns,
							      .end_ns = t.end_ns,
							      .cpu_ns = t.cpu_ns };
	}
	if (!t.end_ns)
		return 0;
	if (pa_grow((void **)&r->ends, &r->ends_cap, r->nends, sizeof(*r->ends)) < 0)
		return pa_error_set(err, -ENOMEM, path, false, 0, "out of memory");
	r->ends[r->nends++] = (struct pa_wall_end_of){ .tid = t.tid, .end_ns = t.end_ns };
	return 0;
}

/* A PPF_REC_WALL_YIELD: a stretch a thread spent calling sched_yield. */
static int pa_wall_yield_rec(struct pa_wall_read *r, const char *path, uint64_t off,
			     const char *rec, uint32_t size, struct pa_error *err)
{
	struct ppf_wall_yield y;

	if (size < PPF_WALL_YIELD_V1_SIZE)
		return pa_wall_bad(path, off, err, "wall yield record too short");
	memset(&y, 0, sizeof(y));
	memcpy(&y, rec, size < sizeof(y) ? size : sizeof(y));
	/* The first writers' records do not say the time inside the calls. */
	if (size < sizeof(y))
		y.in_calls_ns = UINT64_MAX;
	r->info->yield_dropped = pa_add_sat(r->info->yield_dropped, y.dropped);
	/* Only a count of dropped stretches (the event's end). */
	if (!y.calls && !y.from_ns && !y.to_ns)
		return 0;
	if (!y.calls || y.to_ns < y.from_ns || y.to_ns - y.from_ns > PA_WALL_MAX_INTERVAL ||
	    (y.stack != PPF_WALL_NO_STACK && y.stack >= r->nstacks) ||
	    (y.in_calls_ns != UINT64_MAX && y.in_calls_ns > y.to_ns - y.from_ns))
		return pa_error_set(err, -EINVAL, path, true, off,
				    "wall yield stretch of thread %u: %llu calls, %llu..%llu ns "
				    "(%llu inside), stack %u of %zu: out of range", y.tid,
				    (unsigned long long)y.calls, (unsigned long long)y.from_ns,
				    (unsigned long long)y.to_ns, (unsigned long long)y.in_calls_ns,
				    y.stack, r->nstacks);
	r->info->yields++;
	r->info->yields_no_stack += y.stack == PPF_WALL_NO_STACK;
	if (pa_grow((void **)&r->yields, &r->yields_cap, r->nyields, sizeof(*r->yields)) < 0)
		return pa_error_set(err, -ENOMEM, path, false, 0, "out of memory");
	r->yields[r->nyields++] = y;
	return 0;
}

/* One record of wall.log (a flat switch). */
static int pa_wall_record(void *ctx, const char *path, uint64_t off, const char *rec,
			  uint32_t type, uint32_t size, struct pa_error *err)
{
	struct pa_wall_read *r = ctx;
	struct ppf_wall_start st;

	if (!r->started && type != PPF_REC_WALL_START)
		return pa_wall_bad(path, off, err, "wall log: the first record is not its start");
	/* An end (an exec's) followed by more: the exec failed, the log went on. */
	if (type != PPF_REC_WALL_END && type != PPF_REC_LOG_FULL)
		r->info->ended = false;
	switch (type) {
	case PPF_REC_WALL_START:
		if (r->started || size < sizeof(st))
			return pa_wall_bad(path, off, err, "wall log: a second or short start record");
		memcpy(&st, rec, sizeof(st));
		if (!st.period_ns)
			return pa_wall_bad(path, off, err, "wall log: period 0");
		r->started = true;
		r->info->period_ns = st.period_ns;
		r->info->tick_ns = st.tick_ns;
		r->info->start_ns = st.start_ns;
		r->info->cpu_rings = st.cpu_rings;
		return 0;
	case PPF_REC_STACK:
		return pa_wall_stack_rec(r, path, off, rec, size, err);
	case PPF_REC_WALL_INTERVAL:
	case PPF_REC_WALL_OPEN:
		return pa_wall_interval_rec(r, path, off, rec, size, type == PPF_REC_WALL_OPEN,
					    err);
	case PPF_REC_WALL_LOST:
		return pa_wall_lost_rec(r, path, off, rec, size, err);
	case PPF_REC_WALL_ALIVE:
		if (size < sizeof(struct ppf_wall_alive))
			return pa_wall_bad(path, off, err, "wall alive record too short");
		memcpy(&r->info->alive_ns, rec + offsetof(struct ppf_wall_alive, alive_ns), 8);
		return 0;
	case PPF_REC_WALL_END:
		return pa_wall_end_rec(r, path, off, rec, size, err);
	case PPF_REC_WALL_OLDER:
		if (size < sizeof(*r->older))
			return pa_wall_bad(path, off, err, "wall log: older thread record too short");
		if (pa_grow((void **)&r->older, &r->older_cap, r->nolder, sizeof(*r->older)) < 0)
			return pa_error_set(err, -ENOMEM, path, false, 0, "out of memory");
		memcpy(&r->older[r->nolder++], rec, sizeof(*r->older));
		return 0;
	case PPF_REC_WALL_THREAD:
		return pa_wall_thread_rec(r, path, off, rec, size, err);
	case PPF_REC_WALL_YIELD:
		return pa_wall_yield_rec(r, path, off, rec, size, err);
	default:
		return 0; /* PPF_REC_LOG_FULL, types of later writers */
	}
}

/* ---- samples ------------------------------------------------------------------- */

/* Weight carried for one stack of one thread. */
struct pa_wall_key {
	uint64_t key;           /* 0: empty */
	const uint64_t *ips;
	uint16_t nframes;
	uint64_t carry_ns;
	uint64_t last_ns;
};

/* Waits are told apart by length in powers of two of ns. */
#define PA_WALL_BINS 64

/* The process's seen waits of one length bin: where, and how long in all. */
struct pa_wall_seen {
	uint16_t state;
	uint32_t stack;
	uint64_t ns;
};

struct pa_wall_bins {
	struct pa_wall_seen *v[PA_WALL_BINS];
	size_t n[PA_WALL_BINS], cap[PA_WALL_BINS];
	double total[PA_WALL_BINS];
};

/*
 * How the process's threads were read (pa_load_opts): collapsed, wall
 * samples are summed too (by stack, state and module epoch), and those
 * outside the window left out.
 */
struct pa_wall_how {
	bool sum;
	const struct pa_window *window;
	uint64_t start_ns;
	uint64_t *unloads;  /* the process's module unload times, ascending */
	size_t nunloads;
};

/*
 * Summing: when an entry of b->out first comes in time (its earliest
 * weight, and which of the thread's weights that was), so that entries
 * keep the order of their first samples unsummed (the order pprof's
 * stacks are numbered in).
 */
struct pa_wall_first {
	uint64_t ns;
	uint64_t seq;
	size_t out;
};

/* Summing: the entry of b->out of a stack (its addresses' place) and epoch. */
struct pa_wall_sum {
	const uint64_t *ips; /* NULL: free */
	size_t epoch;
	size_t out;
};

/* One thread's samples in the making. */
struct pa_wall_build {
	const struct pa_wall_how *how;
	const struct pa_wall_bins *bins; /* the process's seen waits */
	const struct pa_wall_read *r;
	const struct pa_process *proc;
	struct pa_thread *t;
	struct ppf_wall_yield *y;    /* the thread's yield stretches, by time, merged */
	size_t ny;
	size_t *yrep;                /* per stretch, its CPU sample (pa_wall_stretch_reps) */
	uint64_t period;
	uint32_t event;
	struct pa_wall_key *keys;
	size_t nkeys, keys_cap;  /* keys_cap a power of 2 */
	struct pa_sample *out;
	size_t nout, out_cap;
	struct pa_wall_sum *sums; /* summing: power-of-two sized, at most half full */
	size_t sums_cap;
	struct pa_wall_first *first; /* summing: by entry of out */
	size_t first_cap;
	uint64_t seq;                /* weights emitted */
	uint64_t added_ns;           /* CPU time given beyond the samples' (yield stretches) */
};

static uint64_t pa_wall_mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	return k ^ (k >> 33);
}

/* The entry of key (made, empty, when new); NULL when out of memory. */
static struct pa_wall_key *pa_wall_key(struct pa_wall_build *b, uint64_t key)
{
	size_t i;

	if ((b->nkeys + 1) * 2 > b->keys_cap) {
		size_t ncap = b->keys_cap ? b->keys_cap * 2 : 64;
		struct pa_wall_key *nk = calloc(ncap, sizeof(*nk));

		if (!nk)
			return NULL;
		for (size_t j = 0; j < b->keys_cap; j++) {
			if (!b->keys[j].key)
				continue;
			for (i = pa_wall_mix(b->keys[j].key) & (ncap - 1); nk[i].key;
			     i = (i + 1) & (ncap - 1))
				;
			nk[i] = b->keys[j];
		}
		free(b->keys);
		b->keys = nk;
		b->keys_cap = ncap;
	}
	for (i = pa_wall_mix(key) & (b->keys_cap - 1); b->keys[i].key;
	     i = (i + 1) & (b->keys_cap - 1))
		if (b->keys[i].key == key)
			return &b->keys[i];
	b->keys[i].key = key;
	b->nkeys++;
	return &b->keys[i];
}

static size_t pa_wall_sum_slot(const struct pa_wall_sum *v, size_t cap, const uint64_t *ips,
			       size_t epoch)
{
	size_t i = pa_wall_mix((uint64_t)(uintptr_t)ips ^ (uint64_t)epoch << 48) & (cap - 1);

	while (v[i].ips && (v[i].ips != ips || v[i].epoch != epoch))
		i = (i + 1) & (cap - 1);
	return i;
}

/*
 * Summing: adds count at time_ns to b->out's sample of the stack at ips in
 * time_ns's epoch when it has one (true); false when not (*slot: its place
 * in b->sums, to be given the next entry of b->out). -ENOMEM.
 */
static int pa_wall_sum(struct pa_wall_build *b, const uint64_t *ips, uint64_t time_ns,
		       uint64_t count, size_t *slot)
{
	size_t epoch = pa_unloads_epoch(b->how->unloads, b->how->nunloads, time_ns);
	struct pa_sample *s;

	if ((b->nout + 1) * 2 > b->sums_cap) {
		size_t ncap = b->sums_cap ? b->sums_cap * 2 : 64;
		struct pa_wall_sum *ns = calloc(ncap, sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		for (size_t j = 0; j < b->sums_cap; j++)
			if (b->sums[j].ips)
				ns[pa_wall_sum_slot(ns, ncap, b->sums[j].ips, b->sums[j].epoch)] =
					b->sums[j];
		free(b->sums);
		b->sums = ns;
		b->sums_cap = ncap;
	}
	*slot = pa_wall_sum_slot(b->sums, b->sums_cap, ips, epoch);
	if (!b->sums[*slot].ips) {
		if (pa_grow((void **)&b->first, &b->first_cap, b->nout, sizeof(*b->first)) < 0)
			return -ENOMEM;
		b->first[b->nout] = (struct pa_wall_first){ .ns = time_ns, .seq = b->seq,
							    .out = b->nout };
		b->sums[*slot] = (struct pa_wall_sum){ .ips = ips, .epoch = epoch, .out = b->nout };
		return 0;
	}
	s = &b->out[b->sums[*slot].out];
	s->count += count;
	if (time_ns > s->time_ns)
		s->time_ns = time_ns;
	if (time_ns < b->first[b->sums[*slot].out].ns) {
		b->first[b->sums[*slot].out].ns = time_ns;
		b->first[b->sums[*slot].out].seq = b->seq;
	}
	return 1;
}

static int pa_wall_emit(struct pa_wall_build *b, const uint64_t *ips, uint16_t n, uint64_t time_ns,
			uint64_t count)
{
	size_t slot;
	int ret;

	b->seq++;
	if (b->how->sum) {
		/* What the window leaves out, the collapsed thread did not keep either. */
		if (!pa_window_holds(b->how->window, b->how->start_ns, time_ns))
			return 0;
		ret = pa_wall_sum(b, ips, time_ns, count, &slot);
		if (ret != 0)
			return ret < 0 ? ret : 0;
	}
	if (pa_grow((void **)&b->out, &b->out_cap, b->nout, sizeof(*b->out)) < 0)
		return -ENOMEM;
	b->out[b->nout++] = (struct pa_sample){ .time_ns = time_ns, .event = b->event,
						.nframes = n, .count = count, .ips = ips };
	return 0;
}

/* Adds ns of weight to k's stack at time_ns: the whole periods it makes. */
static int pa_wall_weigh(struct pa_wall_build *b, struct pa_wall_key *k, uint64_t ns,
			 uint64_t time_ns)
{
	uint64_t n;

	k->carry_ns += ns;
	k->last_ns = time_ns;
	n = k->carry_ns / b->period;
	if (!n)
		return 0;
	k->carry_ns -= n * b->period;
	return pa_wall_emit(b, k->ips, k->nframes, time_ns, n);
}

/*
 * The stack of a wait in state with wall stack stack (PPF_WALL_NO_STACK:
 * none), or above the frames at ips (n) for a preempted one: the leaf, then
 * the stack. -ENOMEM.
 */
static int pa_wall_stack_of(struct pa_wall_build *b, struct pa_wall_key *k, unsigned state,
			    const uint64_t *below, uint16_t nbelow)
{
	uint64_t *ips;

	if (nbelow >= PPF_MAX_FRAMES)
		nbelow = PPF_MAX_FRAMES - 1;
	ips = pa_thread_take_ips(b->t, 1u + nbelow);
	if (!ips)
		return -ENOMEM;
	ips[0] = PA_WALL_IP(state);
	if (nbelow)
		memcpy(ips + 1, below, nbelow * sizeof(*ips));
	k->ips = ips;
	k->nframes = (uint16_t)(1 + nbelow);
	return 0;
}

/* The key of the blocked state and stack, its stack made when new. */
static struct pa_wall_key *pa_wall_blocked_key(struct pa_wall_build *b, unsigned state,
					       uint32_t stack)
{
	struct pa_wall_key *k = pa_wall_key(b, (uint64_t)state << 40 | ((uint64_t)stack + 1));
	const struct pa_wall_stack *s = stack != PPF_WALL_NO_STACK ? &b->r->stacks[stack] : NULL;

	if (k && !k->ips && pa_wall_stack_of(b, k, state, s ? s->ips : NULL,
					     s ? s->nframes : 0) < 0)
		return NULL;
	return k;
}

const struct pa_event *pa_wall_cpu_event(const struct pa_process *proc)
{
	for (size_t i = 0; i < proc->nevents; i++) {
		const struct pa_event *e = &proc->events[i];

		if ((e->flags & PPF_EVENT_TIME_NS) && !(e->flags & (PPF_EVENT_COUNT |
		    PPF_EVENT_UNAVAILABLE | PPF_EVENT_WALL)) && e->period)
			return e;
	}
	return NULL;
}

/* The index of the first of cpu[0..n) (in time order) later than t, n when none. */
static size_t pa_wall_cpu_after(const struct pa_cpu_when *cpu, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cpu[mid].time_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The CPU sample of cpu[0..n) nearest in time to the thread's time off the
 * CPU from out_ns to in_ns (the last before it or the first after it),
 * among those taken from lo_ns to hi_ns; NULL when there is none.
 */
static const struct pa_cpu_when *pa_wall_cpu_nearest(const struct pa_cpu_when *cpu, size_t n,
						     uint64_t out_ns, uint64_t in_ns,
						     uint64_t lo_ns, uint64_t hi_ns)
{
	size_t i = pa_wall_cpu_after(cpu, n, out_ns);
	const struct pa_cpu_when *before = i > 0 && cpu[i - 1].time_ns >= lo_ns ? &cpu[i - 1] : NULL;
	const struct pa_cpu_when *after = i < n && cpu[i].time_ns <= hi_ns ? &cpu[i] : NULL;

	if (before && after) {
		uint64_t gap_after = after->time_ns > in_ns ? after->time_ns - in_ns : 0;

		return gap_after < out_ns - before->time_ns ? after : before;
	}
	return before ? before : after;
}

/* Samples whose stack says little of where the thread was: no unwinding, or no stack at all. */
#define PA_WALL_POOR_STACK (PPF_SAMPLE_LEAF_ONLY | PPF_SAMPLE_RECOVERED)
/* How far (in samples, each way) a stand-in with a stack is looked for. */
#define PA_WALL_STAND_IN_SCAN 64

/*
 * The CPU sample of the thread to stand for its time off the CPU from
 * out_ns to in_ns that has no stack of its own: the nearest taken from
 * lo_ns to hi_ns (pa_wall_cpu_nearest), but passing over samples whose
 * stack is a leaf alone (PA_WALL_POOR_STACK: taken where the handler does
 * not unwind, as inside the profiler's own scan of a library just
 * loaded) to the nearest with a stack on either side, within
 * PA_WALL_STAND_IN_SCAN samples and the bounds; the nearest itself when
 * there is none (b NULL: the nearest, whatever its stack). A leaf-only
 * stand-in took a rank's waits in MPI_Init out of MPI (its one frame is
 * the profiler's, which reports leave out).
 */
static const struct pa_cpu_when *pa_wall_stand_in(const struct pa_wall_build *b,
						  const struct pa_cpu_when *cpu, size_t n,
						  uint64_t out_ns, uint64_t in_ns,
						  uint64_t lo_ns, uint64_t hi_ns)
{
	const struct pa_cpu_when *w = pa_wall_cpu_nearest(cpu, n, out_ns, in_ns, lo_ns, hi_ns);
	const struct pa_cpu_when *before = NULL, *after = NULL;
	size_t at;

	if (!b || !w || !(b->t->samples[w->entry].flags & PA_WALL_POOR_STACK))
		return w;
	at = (size_t)(w - cpu);
	for (size_t k = 1; k <= PA_WALL_STAND_IN_SCAN && !before && k <= at &&
	     cpu[at - k].time_ns >= lo_ns; k++)
		if (!(b->t->samples[cpu[at - k].entry].flags & PA_WALL_POOR_STACK))
			before = &cpu[at - k];
	for (size_t k = 1; k <= PA_WALL_STAND_IN_SCAN && !after && at + k < n &&
	     cpu[at + k].time_ns <= hi_ns; k++)
		if (!(b->t->samples[cpu[at + k].entry].flags & PA_WALL_POOR_STACK))
			after = &cpu[at + k];
	if (before && after)
		return (after->time_ns > in_ns ? after->time_ns - in_ns : 0) <
		       (out_ns > before->time_ns ? out_ns - before->time_ns : 0) ? after : before;
	return before ? before : after ? after : w;
}

/* The thread's yield stretch that holds time t, or NULL. */
static const struct ppf_wall_yield *pa_wall_stretch_at(const struct pa_wall_build *b, uint64_t t)
{
	size_t lo = 0, hi = b->ny;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->y[mid].from_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && t <= b->y[lo - 1].to_ns ? &b->y[lo - 1] : NULL;
}

/* The samples of cpu[0..n) (in time order) taken in stretch y: [*first, *last). */
static void pa_wall_cpu_in(const struct pa_cpu_when *cpu, size_t n, const struct ppf_wall_yield *y,
			   size_t *first, size_t *last)
{
	*first = pa_wall_cpu_after(cpu, n, y->from_ns ? y->from_ns - 1 : 0);
	*last = pa_wall_cpu_after(cpu, n, y->to_ns);
}

/*
 * A preempted interval of the thread, iv: its time goes above the stack of
 * the thread's CPU sample nearest to it in time, the last before it or the
 * first after it. Near in time, not over all the thread's samples: a
 * thread is preempted far more per CPU second in some code than in other
 * (a wait loop that yields, as MPI libraries' do, against its compute).
 * Inside a yield stretch, the nearest sample taken in that stretch (the
 * loop's), when it has one: the first and last preemptions of a wait are
 * nearer to the compute around it than to the loop's sparse samples. Above
 * nothing without any sample. -ENOMEM.
 */
static int pa_wall_runnable(struct pa_wall_build *b, const struct ppf_wall_interval *iv,
			    const struct pa_cpu_when *cpu, size_t ncpu)
{
	const struct ppf_wall_yield *y = pa_wall_stretch_at(b, iv->out_ns);
	const struct pa_cpu_when *w = NULL;
	const struct pa_sample *s;
	struct pa_wall_key *k;

	if (y && y->stack != PPF_WALL_NO_STACK) {
		k = pa_wall_blocked_key(b, PPF_WALL_RUNNABLE, y->stack);
		return k ? pa_wall_weigh(b, k, iv->in_ns - iv->out_ns, iv->in_ns) : -ENOMEM;
	}
	if (y)
		w = pa_wall_stand_in(b, cpu, ncpu, iv->out_ns, iv->in_ns, y->from_ns, y->to_ns);
	if (!w && y && b->yrep[y - b->y] != SIZE_MAX)
		w = &cpu[b->yrep[y - b->y]];
	if (!w)
		w = pa_wall_stand_in(b, cpu, ncpu, iv->out_ns, iv->in_ns, 0, UINT64_MAX);
	s = w ? &b->t->samples[w->entry] : NULL;
	if (s)
		k = pa_wall_key(b, pa_hash(s->ips, s->nframes * sizeof(*s->ips), 0) | 1ull << 63);
	else
		k = pa_wall_key(b, (uint64_t)PPF_WALL_RUNNABLE << 40);
	if (!k || (!k->ips && pa_wall_stack_of(b, k, PPF_WALL_RUNNABLE, s ? s->ips : NULL,
					       s ? s->nframes : 0) < 0))
		return -ENOMEM;
	return pa_wall_weigh(b, k, iv->in_ns - iv->out_ns, iv->in_ns);
}

/*
 * ns of the thread's time on the CPU, at time_ns, to the stack of its CPU
 * sample s as it is (no leaf of ours). -ENOMEM.
 */
static int pa_wall_on_stack(struct pa_wall_build *b, const struct pa_sample *s, uint64_t ns,
			    uint64_t time_ns)
{
	uint64_t h = pa_hash(s->ips, s->nframes * sizeof(*s->ips), 0);
	/* Bit 63 clear, 62 set: not a preempted stack's key (63 set), nor a wait's (< 2^43). */
	struct pa_wall_key *k = pa_wall_key(b, (h & ~(3ull << 62)) | 1ull << 62);

	if (!k)
		return -ENOMEM;
	if (!k->ips) {
		k->ips = s->ips;
		k->nframes = s->nframes;
	}
	return pa_wall_weigh(b, k, ns, time_ns);
}

/*
 * The same, to the stack wall.log numbers stack (a yield stretch's: the
 * leaf the call into sched_yield). -ENOMEM.
 */
static int pa_wall_on_wall_stack(struct pa_wall_build *b, uint32_t stack, uint64_t ns,
				 uint64_t time_ns)
{
	/* State PPF_WALL_STATES: no wait's key (theirs are below it). */
	struct pa_wall_key *k = pa_wall_key(b, (uint64_t)PPF_WALL_STATES << 40 |
					       ((uint64_t)stack + 1));

	if (!k)
		return -ENOMEM;
	if (!k->ips) {
		const struct pa_wall_stack *ws = &b->r->stacks[stack];
		uint64_t *ips = pa_thread_take_ips(b->t, ws->nframes);

		if (!ips)
			return -ENOMEM;
		memcpy(ips, ws->ips, ws->nframes * sizeof(*ips));
		/* Its leaf is a return address: the call's own place, as a sample's leaf. */
		if (ips[0])
			ips[0]--;
		k->ips = ips;
		k->nframes = ws->nframes;
	}
	return pa_wall_weigh(b, k, ns, time_ns);
}

/*
 * How much of [from_ns, to_ns] the thread's intervals iv[0..n) (by time)
 * cover; *i moves on. *blocked (when not NULL): whether any of them there
 * was a wait, not a preemption.
 */
static uint64_t pa_wall_off_within(const struct ppf_wall_interval *iv, size_t n, size_t *i,
				   uint64_t from_ns, uint64_t to_ns, bool *blocked)
{
	uint64_t off = 0;

	while (*i < n && iv[*i].in_ns <= from_ns)
		(*i)++;
	for (size_t j = *i; j < n && iv[j].out_ns < to_ns; j++) {
		uint64_t a = iv[j].out_ns > from_ns ? iv[j].out_ns : from_ns;
		uint64_t z = iv[j].in_ns < to_ns ? iv[j].in_ns : to_ns;

		if (z > a)
			off += z - a;
		if (blocked && z > a && iv[j].state != PPF_WALL_RUNNABLE)
			*blocked = true;
	}
	return off;
}

/*
 * The thread's yield stretches b->y, merged where only preemptions (its
 * intervals iv[0..n)) and less than PPF_WALL_YIELD_GAP_NS on the CPU lie
 * between two: a loop preempted between two calls is one stretch. Not
 * across a wait, nor two stretches whose stacks differ; a stretch without
 * a stack takes the next one's.
 */
static void pa_wall_stretches_merge(struct pa_wall_build *b, const struct ppf_wall_interval *iv,
				    size_t n)
{
	size_t m = 0, i = 0;

	for (size_t k = 0; k < b->ny; k++) {
		struct ppf_wall_yield *last = m ? &b->y[m - 1] : NULL;
		const struct ppf_wall_yield *y = &b->y[k];
		bool blocked = false, join = false;

		if (last && (last->stack == y->stack || last->stack == PPF_WALL_NO_STACK ||
			     y->stack == PPF_WALL_NO_STACK)) {
			if (y->from_ns <= last->to_ns) {
				join = true;
			} else {
				uint64_t gap = y->from_ns - last->to_ns;
				uint64_t off = pa_wall_off_within(iv, n, &i, last->to_ns, y->from_ns,
								  &blocked);

				join = !blocked && (off >= gap || gap - off < PPF_WALL_YIELD_GAP_NS);
			}
		}
		if (!join) {
			b->y[m++] = *y;
			continue;
		}
		if (y->to_ns > last->to_ns)
			last->to_ns = y->to_ns;
		last->calls += y->calls;
		last->in_calls_ns = last->in_calls_ns == UINT64_MAX || y->in_calls_ns == UINT64_MAX ?
				    UINT64_MAX : last->in_calls_ns + y->in_calls_ns;
		if (last->stack == PPF_WALL_NO_STACK)
			last->stack = y->stack;
	}
	b->ny = m;
}

/*
 * Per yield stretch of the thread, the CPU sample (index in cpu[0..n),
 * by time) that stands for the loop's stack: the one taken in it nearest
 * to its middle; for a stretch without any (a loop that hardly ran between
 * preemptions), the nearest one taken in another stretch (the same wait
 * loop, most likely): the compute around it is nearer in time, not in
 * kind. SIZE_MAX when no stretch has a sample. -ENOMEM.
 */
static int pa_wall_stretch_reps(struct pa_wall_build *b, const struct pa_cpu_when *cpu, size_t n)
{
	size_t before = SIZE_MAX, after = SIZE_MAX, first, last;

	b->yrep = malloc((b->ny ? b->ny : 1) * sizeof(*b->yrep));
	if (!b->yrep)
		return -ENOMEM;
	/* Forward: a stretch's own sample, else the last sample of a stretch before. */
	for (size_t k = 0; k < b->ny; k++) {
		const struct ppf_wall_yield *y = &b->y[k];
		uint64_t mid = y->from_ns + (y->to_ns - y->from_ns) / 2;

		pa_wall_cpu_in(cpu, n, y, &first, &last);
		if (first == last) {
			b->yrep[k] = before;
			continue;
		}
		b->yrep[k] = (size_t)(pa_wall_cpu_nearest(cpu, n, mid, mid, y->from_ns, y->to_ns) -
				      cpu);
		before = last - 1;
	}
	/* Backward: the first sample of a stretch after, when nearer. */
	for (size_t k = b->ny; k-- > 0;) {
		const struct ppf_wall_yield *y = &b->y[k];

		pa_wall_cpu_in(cpu, n, y, &first, &last);
		if (first < last) {
			after = first;
			continue;
		}
		if (after != SIZE_MAX && (b->yrep[k] == SIZE_MAX ||
		    cpu[after].time_ns - y->to_ns < y->from_ns - cpu[b->yrep[k]].time_ns))
			b->yrep[k] = after;
	}
	return 0;
}

/*
 * The thread's time on the CPU inside its yield stretches that its CPU
 * samples cpu[0..ncpu) of event ev do not account for: the kernel's
 * sched_yield, which user-only sampling does not see. It is the stretch's
 * length less its time off the CPU (intervals iv[0..n), by time) and its
 * samples' periods, but at most the time its calls took less that time off
 * the CPU (a stretch with few samples would count its user time twice; the
 * calls' time holds the wrapper's user time and the samples' handlers,
 * which a stretch with many samples counts twice; the first writers'
 * records do not say it). It goes onto the stretch's stack; for a stretch without one,
 * onto the stacks of the samples taken in it in proportion to their
 * counts, else onto its borrowed sample's (pa_wall_stretch_reps). -ENOMEM.
 */
static int pa_wall_yield_time(struct pa_wall_build *b, const struct pa_event *ev,
			      const struct ppf_wall_interval *iv, size_t n,
			      const struct pa_cpu_when *cpu, size_t ncpu)
{
	uint64_t per = ev ? pa_event_sample_period(ev) : 0;
	size_t i = 0;
	int ret = 0;

	for (size_t k = 0; k < b->ny && ret == 0; k++) {
		const struct ppf_wall_yield *y = &b->y[k];
		uint64_t len = y->to_ns - y->from_ns;
		uint64_t off = pa_wall_off_within(iv, n, &i, y->from_ns, y->to_ns, NULL);
		size_t first, last;
		uint64_t counts = 0, extra;

		pa_wall_cpu_in(cpu, ncpu, y, &first, &last);

		for (size_t j = first; j < last; j++)
			counts += cpu[j].count;
		if (off > len)
			off = len;
		{
			uint64_t user = !per ? 0 : counts > UINT64_MAX / per ? UINT64_MAX :
					counts * per;

			extra = len - off > user ? len - off - user : 0;
		}
		/* The calls' time holds some user time too (the wrapper's, a sample's handler). */
		if (y->in_calls_ns != UINT64_MAX && y->in_calls_ns - (off < y->in_calls_ns ? off :
								     y->in_calls_ns) < extra)
			extra = y->in_calls_ns > off ? y->in_calls_ns - off : 0;
		if (!extra)
			continue;
		if (y->stack == PPF_WALL_NO_STACK && !ncpu)
			continue; /* nothing to name it by */
		b->added_ns = pa_add_sat(b->added_ns, extra);
		if (y->stack != PPF_WALL_NO_STACK) {
			ret = pa_wall_on_wall_stack(b, y->stack, extra, y->to_ns);
			continue;
		}
		if (!counts) {
			const struct pa_cpu_when *w = b->yrep[k] != SIZE_MAX ? &cpu[b->yrep[k]] :
				pa_wall_cpu_nearest(cpu, ncpu, y->from_ns, y->to_ns, 0, UINT64_MAX);

			ret = pa_wall_on_stack(b, &b->t->samples[w->entry], extra, y->to_ns);
			continue;
		}
		for (size_t j = first; j < last && ret == 0; j++)
			ret = pa_wall_on_stack(b, &b->t->samples[cpu[j].entry],
					       (uint64_t)((double)extra * cpu[j].count / counts),
					       cpu[j].time_ns);
	}
	return ret;
}

/*
 * The thread's yield stretches (r's, sorted by thread and time) into
 * b->y, merged over the thread's intervals iv[0..n). -ENOMEM.
 */
static int pa_wall_stretches(struct pa_wall_build *b, const struct ppf_wall_interval *iv,
			     size_t n)
{
	const struct pa_wall_read *r = b->r;
	size_t lo = 0, hi = r->nyields, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->yields[mid].tid < (uint32_t)b->t->tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < r->nyields && r->yields[end].tid == (uint32_t)b->t->tid; end++)
		;
	b->y = NULL;
	b->ny = end - lo;
	if (!b->ny)
		return 0;
	b->y = malloc(b->ny * sizeof(*b->y));
	if (!b->y)
		return -ENOMEM;
	memcpy(b->y, &r->yields[lo], b->ny * sizeof(*b->y));
	pa_wall_stretches_merge(b, iv, n);
	return 0;
}

/* The sampled CPU time of cpu[lo, hi) (samples of period per ns): their counts and ns. */
static uint64_t pa_wall_counts(const struct pa_cpu_when *cpu, size_t lo, size_t hi)
{
	uint64_t counts = 0;

	for (size_t i = lo; i < hi; i++)
		counts = pa_add_sat(counts, cpu[i].count);
	return counts;
}

/*
 * The part of the unsampled CPU time, ns, that falls to the stretch on the
 * CPU [from_ns, to_ns] of the thread, between its waits before (NULL: its
 * start) and after (NULL: its end): onto the stacks of its samples (cpu[lo,
 * hi)) in proportion to their counts; without any, onto the stack of the
 * wait it ends in (the call that blocked entered the kernel there), else
 * of the one it began with (the call returning), else of the thread's
 * nearest sample. -ENOMEM.
 */
static int pa_wall_unsampled_in(struct pa_wall_build *b, uint64_t ns, uint64_t from_ns,
				uint64_t to_ns, const struct ppf_wall_interval *before,
				const struct ppf_wall_interval *after,
				const struct pa_cpu_when *cpu, size_t ncpu, size_t lo, size_t hi)
{
	uint64_t counts = pa_wall_counts(cpu, lo, hi);
	const struct pa_cpu_when *w;
	int ret = 0;

	if (counts) {
		for (size_t i = lo; i < hi && ret == 0; i++)
			ret = pa_wall_on_stack(b, &b->t->samples[cpu[i].entry],
					       (uint64_t)((double)ns * cpu[i].count / counts),
					       cpu[i].time_ns);
		return ret;
	}
	if (after && after->state != PPF_WALL_RUNNABLE && after->stack != PPF_WALL_NO_STACK)
		return pa_wall_on_wall_stack(b, after->stack, ns, to_ns);
	if (before && before->state != PPF_WALL_RUNNABLE && before->stack != PPF_WALL_NO_STACK)
		return pa_wall_on_wall_stack(b, before->stack, ns, from_ns);
	w = pa_wall_cpu_nearest(cpu, ncpu, from_ns, to_ns, 0, UINT64_MAX);
	return w ? pa_wall_on_stack(b, &b->t->samples[w->entry], ns, to_ns) : 0;
}

/*
 * The stretches on the CPU of the thread's life t (from t->born_ns to end)
 * between its waits iv[0..n) (by time), one by one: fn(b, ..., arg) as
 * pa_wall_unsampled_in's, with ns the time the stretch adds to what the
 * samples before and in it do not stand for. A stretch's own (its length
 * less its samples' periods, per ns each) is mostly the noise of whole
 * periods: a thread sampled every period of its CPU time has a running
 * sum of them within a period of its unsampled time so far, so each
 * stretch gets what it raises that sum's highest value by. Those inside a
 * yield stretch are left out (pa_wall_yield_time counts them). -ENOMEM
 * from fn.
 */
static int pa_wall_on_cpu_stretches(struct pa_wall_build *b, const struct pa_wall_cpu_of *t,
				    uint64_t end, uint64_t per,
				    const struct ppf_wall_interval *iv, size_t n,
				    const struct pa_cpu_when *cpu, size_t ncpu,
				    int (*fn)(struct pa_wall_build *, uint64_t, uint64_t, uint64_t,
					      const struct ppf_wall_interval *,
					      const struct ppf_wall_interval *, const struct pa_cpu_when *,
					      size_t, size_t, size_t, void *),
				    void *arg)
{
	uint64_t from = t->born_ns;
	const struct ppf_wall_interval *before = NULL;
	/* The running sum and its highest value, bounded (a hostile log's times). */
	double sum = 0, high = 0;
	size_t i = 0;
	int ret = 0;

	while (i < n && iv[i].in_ns <= from)
		i++;
	for (; ret == 0 && from < end; i++) {
		const struct ppf_wall_interval *after = i < n && iv[i].out_ns < end ? &iv[i] : NULL;
		uint64_t to = after ? (after->out_ns > from ? after->out_ns : from) : end;
		size_t lo = pa_wall_cpu_after(cpu, ncpu, from), hi = pa_wall_cpu_after(cpu, ncpu, to);
		double sampled = (double)pa_wall_counts(cpu, lo, hi) * (double)per;

		if (!pa_wall_stretch_at(b, from + (to - from) / 2)) {
			sum += (double)(to - from) - sampled;
			if (sum > high) {
				double up = sum - high;

				high = sum;
				if (up >= 1 && up < (double)(1ull << 62))
					ret = fn(b, (uint64_t)up, from, to, before, after, cpu, ncpu,
						 lo, hi, arg);
			}
		}
		if (!after)
			break;
		before = after;
		from = after->in_ns > from ? after->in_ns : from;
	}
	return ret;
}

/* pa_wall_unsampled's first walk: the sum of what the stretches leave unsampled. */
static int pa_wall_unsampled_sum(struct pa_wall_build *b, uint64_t ns, uint64_t from_ns,
				 uint64_t to_ns, const struct ppf_wall_interval *before,
				 const struct ppf_wall_interval *after,
				 const struct pa_cpu_when *cpu, size_t ncpu, size_t lo, size_t hi,
				 void *arg)
{
	uint64_t *sum = arg;

	(void)b, (void)from_ns, (void)to_ns, (void)before, (void)after, (void)cpu, (void)ncpu;
	(void)lo, (void)hi;
	*sum = pa_add_sat(*sum, ns);
	return 0;
}

/* What pa_wall_unsampled's second walk shares out: d of the stretches' sum. */
struct pa_wall_share {
	uint64_t d, sum;
};

static int pa_wall_unsampled_give(struct pa_wall_build *b, uint64_t ns, uint64_t from_ns,
				  uint64_t to_ns, const struct ppf_wall_interval *before,
				  const struct ppf_wall_interval *after,
				  const struct pa_cpu_when *cpu, size_t ncpu, size_t lo, size_t hi,
				  void *arg)
{
	const struct pa_wall_share *sh = arg;
	uint64_t part = (uint64_t)((double)sh->d * ((double)ns / (double)sh->sum));

	return part ? pa_wall_unsampled_in(b, part, from_ns, to_ns, before, after, cpu, ncpu, lo,
					   hi) : 0;
}

/*
 * The thread's CPU time that its samples cpu[0..ncpu) of event ev (NULL:
 * none) do not stand for: its time in the kernel with cpu-clock's default
 * exclude_kernel, all of it without a CPU event. A thread's wall time is
 * its life, on the CPU or off it: the CPU time wall.log gives for each of
 * the thread's lives (PPF_REC_WALL_THREAD), less the periods of the
 * samples taken in it and what its yield stretches added, goes to its
 * stretches on the CPU between waits (intervals iv[0..n), by time) in
 * proportion to what their samples leave unaccounted
 * (pa_wall_unsampled_in). -ENOMEM.
 */
static int pa_wall_unsampled(struct pa_wall_build *b, const struct pa_event *ev,
			     const struct ppf_wall_interval *iv, size_t n,
			     const struct pa_cpu_when *cpu, size_t ncpu)
{
	const struct pa_wall_read *r = b->r;
	uint64_t per = ev ? pa_event_sample_period(ev) : 0, added = b->added_ns;
	size_t lo = 0, hi = r->ncpus;
	int ret = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->cpus[mid].tid < (uint32_t)b->t->tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; ret == 0 && lo < r->ncpus && r->cpus[lo].tid == (uint32_t)b->t->tid; lo++) {
		const struct pa_wall_cpu_of *t = &r->cpus[lo];
		uint64_t end = t->end_ns ? t->end_ns : r->info->ended ? r->info->end_ns : 0;
		struct pa_wall_share sh = { 0 };
		uint64_t sampled, took;

		if (!end || end <= t->born_ns || !t->cpu_ns)
			continue;
		sampled = pa_wall_counts(cpu, pa_wall_cpu_after(cpu, ncpu, t->born_ns),
					 pa_wall_cpu_after(cpu, ncpu, end));
		sampled = per && sampled > UINT64_MAX / per ? UINT64_MAX : sampled * per;
		sampled = pa_add_sat(sampled, added);
		added = 0;
		if (t->cpu_ns <= sampled)
			continue;
		sh.d = t->cpu_ns - sampled;
		ret = pa_wall_on_cpu_stretches(b, t, end, per, iv, n, cpu, ncpu,
					       pa_wall_unsampled_sum, &sh.sum);
		/* No stretch unaccounted (its samples over-counted it): onto them all. */
		took = sh.sum ? sh.d : 0;
		if (ret == 0 && sh.sum)
			ret = pa_wall_on_cpu_stretches(b, t, end, per, iv, n, cpu, ncpu,
						       pa_wall_unsampled_give, &sh);
		else if (ret == 0 && ncpu)
			ret = pa_wall_unsampled_in(b, sh.d, t->born_ns, end, NULL, NULL, cpu, ncpu,
						   pa_wall_cpu_after(cpu, ncpu, t->born_ns),
						   pa_wall_cpu_after(cpu, ncpu, end)), took = sh.d;
		r->info->unsampled_ns = pa_add_sat(r->info->unsampled_ns, took);
	}
	return ret;
}

/*
 * The thread's samples of cpu (NULL: none) one by one in time order, into
 * *out (*n; NULL when none): the reader's list when it collapsed them (the
 * thread's, taken: the caller frees it), else made from the samples.
 * -ENOMEM.
 */
static int pa_wall_cpu_samples(struct pa_wall_build *b, const struct pa_event *cpu,
			       struct pa_cpu_when **out, size_t *n)
{
	struct pa_thread *t = b->t;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	if (b->how->sum) {
		*out = t->cpu_when;
		*n = t->ncpu_when;
		t->cpu_when = NULL;
		t->ncpu_when = 0;
		return 0;
	}
	for (size_t i = 0; cpu && i < t->nsamples; i++)
		if (t->samples[i].event == cpu->index &&
		    pa_cpu_when_add(out, n, &cap, t->samples[i].time_ns, (uint32_t)i,
				    t->samples[i].count) < 0)
			return -ENOMEM;
	return 0;
}

/*
 * The thread's CPU samples cpu[0..n) of event ev (NULL: none), as wall
 * samples too (their period over the wall period); the parts of one
 * sample's count (pa_cpu_when) are one.
 */
static int pa_wall_on_cpu(struct pa_wall_build *b, const struct pa_event *ev,
			  const struct pa_cpu_when *cpu, size_t n)
{
	uint64_t per = ev ? pa_event_sample_period(ev) : 0, carry = 0, c = 0;

	for (size_t i = 0; per && i < n; i++) {
		const struct pa_sample *s = &b->t->samples[cpu[i].entry];
		uint64_t got;

		carry += cpu[i].count * per;
		got = carry / b->period;
		carry -= got * b->period;
		c += got;
		if (i + 1 < n && cpu[i + 1].entry == cpu[i].entry &&
		    cpu[i + 1].time_ns == cpu[i].time_ns && cpu[i].count == UINT32_MAX)
			continue; /* the next part of this sample's count */
		if (c && pa_wall_emit(b, s->ips, s->nframes, cpu[i].time_ns, c) < 0)
			return -ENOMEM;
		c = 0;
	}
	return 0;
}

static int pa_wall_cmp_time(const void *a, const void *b)
{
	const struct pa_sample *x = a, *y = b;

	return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

static int pa_wall_cmp_first(const void *a, const void *b)
{
	const struct pa_wall_first *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Merges b's samples (sorted here) into the thread's, by time; summed
 * (collapsed), after them in the order of their first weights.
 */
static int pa_wall_merge(struct pa_wall_build *b)
{
	struct pa_thread *t = b->t;
	struct pa_sample *all;
	size_t i = 0, j = 0, k = 0;

	if (!b->nout)
		return 0;
	if (!b->how->sum)
		qsort(b->out, b->nout, sizeof(*b->out), pa_wall_cmp_time);
	else
		qsort(b->first, b->nout, sizeof(*b->first), pa_wall_cmp_first);
	all = malloc((t->nsamples + b->nout) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	if (b->how->sum) {
		memcpy(all, t->samples, t->nsamples * sizeof(*all));
		for (k = t->nsamples; j < b->nout; j++)
			all[k++] = b->out[b->first[j].out];
		i = t->nsamples;
	}
	while (i < t->nsamples || j < b->nout)
		all[k++] = j == b->nout || (i < t->nsamples &&
					    t->samples[i].time_ns <= b->out[j].time_ns) ?
			   t->samples[i++] : b->out[j++];
	free(t->samples);
	t->samples = all;
	t->nsamples = k;
	return 0;
}

static int pa_wall_cmp_carry(const void *a, const void *b)
{
	const struct pa_wall_key *x = *(const struct pa_wall_key *const *)a;
	const struct pa_wall_key *y = *(const struct pa_wall_key *const *)b;

	return x->carry_ns > y->carry_ns ? -1 : x->carry_ns < y->carry_ns;
}

/*
 * What the thread's stacks carry, less than a period each: as many samples
 * as their sum rounds to, one each to the stacks that carry most (a stack
 * each rounded alone made a thread of many small stacks count too much).
 */
static int pa_wall_leftovers(struct pa_wall_build *b)
{
	struct pa_wall_key **v = malloc((b->nkeys ? b->nkeys : 1) * sizeof(*v));
	uint64_t sum = 0, n;
	size_t m = 0;
	int ret = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < b->keys_cap; i++)
		if (b->keys[i].key && b->keys[i].carry_ns) {
			v[m++] = &b->keys[i];
			sum += b->keys[i].carry_ns;
		}
	qsort(v, m, sizeof(*v), pa_wall_cmp_carry);
	n = (sum + b->period / 2) / b->period;
	for (size_t i = 0; i < m && i < n && ret == 0; i++)
		ret = pa_wall_emit(b, v[i]->ips, v[i]->nframes, v[i]->last_ns, 1);
	free(v);
	return ret;
}

static unsigned pa_wall_bin(uint64_t len)
{
	return len ? 63u - (unsigned)__builtin_clzll(len) : 0;
}

/*
 * What each seen wait of a length bin gains from the unseen ones (their
 * time over the seen time of the bin), into factor: a wait nobody looked
 * at (shorter than the helper's tick, mostly) is most likely one of the
 * same kind as the seen waits of about its length (a thread's short naps
 * and long lock waits are seen at different rates, so a spread by time
 * alone gave the naps' time to the locks). Unseen time of a bin without a
 * seen wait goes to the nearest bin with one. Returns whether any wait
 * was seen.
 *
 * A bin of waits shorter than the helper's tick whose seen waits are too
 * few to stand for its unseen ones (fewer than PA_WALL_THIN_SEEN, and
 * less than a PA_WALL_THIN_RATIO-th of them: a thread waiting tens of
 * thousands of times a second for a few us is blocked at a look only by
 * chance, and the one wait seen may be another's, say its thread's start)
 * is thin[bin]: its unseen waits that
 * have a CPU sample of the thread near them take that sample's stack
 * instead (pa_wall_unseen_near); the others are spread as above.
 */
#define PA_WALL_THIN_SEEN 16
#define PA_WALL_THIN_RATIO 4
#define PA_WALL_NEAR_NS 1000000000ull /* 1 s */

/*
 * The thread's CPU sample nearest to wait iv, if one was taken within
 * PA_WALL_NEAR_NS of it: with b, one with a stack (pa_wall_stand_in).
 */
static const struct pa_cpu_when *pa_wall_near(const struct pa_wall_build *b,
					      const struct pa_cpu_when *cpu, size_t ncpu,
					      const struct ppf_wall_interval *iv)
{
	return pa_wall_stand_in(b, cpu, ncpu, iv->out_ns, iv->in_ns,
				iv->out_ns > PA_WALL_NEAR_NS ? iv->out_ns - PA_WALL_NEAR_NS : 0,
				iv->in_ns + PA_WALL_NEAR_NS);
}

static bool pa_wall_spread(const struct ppf_wall_interval *iv, size_t n,
			   const struct pa_cpu_when *cpu, size_t ncpu, uint64_t tick_ns,
			   double factor[PA_WALL_BINS], bool thin[PA_WALL_BINS])
{
	double seen[PA_WALL_BINS] = { 0 }, unseen[PA_WALL_BINS] = { 0 };
	size_t nseen[PA_WALL_BINS] = { 0 }, nunseen[PA_WALL_BINS] = { 0 };
	bool dest[PA_WALL_BINS];
	int to_of[PA_WALL_BINS];
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		uint64_t len = iv[i].in_ns - iv[i].out_ns;
		unsigned bin = pa_wall_bin(len);

		if (iv[i].state == PPF_WALL_RUNNABLE)
			continue;
		if (iv[i].stack == PPF_WALL_NO_STACK)
			unseen[bin] += (double)len, nunseen[bin]++;
		else
			seen[bin] += (double)len, nseen[bin]++, any = true;
	}
	for (int bin = 0; bin < PA_WALL_BINS; bin++) {
		int to = bin;

		for (int d = 1; any && !seen[to] && d < PA_WALL_BINS; d++)
			to = bin - d >= 0 && seen[bin - d] ? bin - d :
			     bin + d < PA_WALL_BINS && seen[bin + d] ? bin + d : bin;
		to_of[bin] = to;
		if (to != bin) {
			unseen[to] += unseen[bin];
			nunseen[to] += nunseen[bin];
			unseen[bin] = 0;
			nunseen[bin] = 0;
		}
	}
	for (int bin = 0; bin < PA_WALL_BINS; bin++)
		thin[bin] = nseen[bin] < PA_WALL_THIN_SEEN &&
			    nunseen[bin] > (size_t)PA_WALL_THIN_RATIO * nseen[bin];
	/*
	 * A bin's unseen waits go where its nearest seen bin's do; only waits
	 * shorter than a tick are seen by chance (the helper looks at every
	 * longer one, unless capped: those are spread as ever).
	 */
	memcpy(dest, thin, sizeof(dest));
	for (int bin = 0; bin < PA_WALL_BINS; bin++)
		thin[bin] = dest[to_of[bin]] && bin < 63 && (2ull << bin) <= tick_ns;
	/* A thin bin's unseen waits near a CPU sample are not spread. */
	for (size_t i = 0; i < n; i++) {
		uint64_t len = iv[i].in_ns - iv[i].out_ns;
		unsigned bin = pa_wall_bin(len);

		if (iv[i].state != PPF_WALL_RUNNABLE && iv[i].stack == PPF_WALL_NO_STACK &&
		    thin[bin] && pa_wall_near(NULL, cpu, ncpu, &iv[i]))
			unseen[to_of[bin]] -= (double)len;
	}
	for (int bin = 0; bin < PA_WALL_BINS; bin++)
		factor[bin] = seen[bin] && unseen[bin] > 0 ? unseen[bin] / seen[bin] : 0;
	return any;
}

/* The bin nearest to bin with seen waits of the process, or -1 when it has none. */
static int pa_wall_nearest(const struct pa_wall_bins *bins, unsigned bin)
{
	for (int d = 0; d < PA_WALL_BINS; d++) {
		if ((int)bin - d >= 0 && bins->total[bin - (unsigned)d] > 0)
			return (int)bin - d;
		if (bin + (unsigned)d < PA_WALL_BINS && bins->total[bin + (unsigned)d] > 0)
			return (int)bin + d;
	}
	return -1;
}

/*
 * An unseen wait of a thread that has no seen wait at all (the helper was
 * capped or starved, and such a thread was never looked at): most likely
 * where the process's other threads wait for about as long (threads of a
 * pool run the same code), in proportion to their time there; shown alone
 * when the process has no seen wait. -ENOMEM.
 */
static int pa_wall_unseen_alone(struct pa_wall_build *b, const struct ppf_wall_interval *iv)
{
	uint64_t len = iv->in_ns - iv->out_ns;
	int bin = pa_wall_nearest(b->bins, pa_wall_bin(len));
	struct pa_wall_key *k;
	int ret = 0;

	if (bin < 0) {
		k = pa_wall_blocked_key(b, iv->state, PPF_WALL_NO_STACK);
		return k ? pa_wall_weigh(b, k, len, iv->in_ns) : -ENOMEM;
	}
	for (size_t i = 0; i < b->bins->n[bin] && ret == 0; i++) {
		const struct pa_wall_seen *e = &b->bins->v[bin][i];

		k = pa_wall_blocked_key(b, e->state, e->stack);
		ret = k ? pa_wall_weigh(b, k, (uint64_t)((double)len * (double)e->ns /
							 b->bins->total[bin]), iv->in_ns) :
			  -ENOMEM;
	}
	return ret;
}

/*
 * An unseen wait iv of a thread whose seen waits are too few to stand for
 * it (pa_wall_spread's thin), with a CPU sample of the thread taken within
 * PA_WALL_NEAR_NS of it (pa_wall_near): above the stack of the nearest
 * such sample with a stack (pa_wall_stand_in; the code that made the call,
 * most likely), under its state's marker. -ENOMEM.
 */
static int pa_wall_unseen_near(struct pa_wall_build *b, const struct ppf_wall_interval *iv,
			       const struct pa_cpu_when *w)
{
	const struct pa_sample *s = &b->t->samples[w->entry];
	struct pa_wall_key *k;
	uint64_t h;

	h = pa_hash(s->ips, s->nframes * sizeof(*s->ips), (uint64_t)iv->state + 1);
	/* Bits 63, 62 clear, 61 set: neither a preempted stack's key, nor a CPU one's, nor a wait's. */
	k = pa_wall_key(b, (h & ~(7ull << 61)) | 1ull << 61);
	if (!k || (!k->ips && pa_wall_stack_of(b, k, iv->state, s->ips, s->nframes) < 0))
		return -ENOMEM;
	return pa_wall_weigh(b, k, iv->in_ns - iv->out_ns, iv->in_ns);
}

/* The process's seen waits by length bin, from every interval of r. -ENOMEM. */
static int pa_wall_bins_make(struct pa_wall_bins *bins, const struct pa_wall_read *r)
{
	for (size_t i = 0; i < r->niv; i++) {
		const struct ppf_wall_interval *iv = &r->iv[i];
		uint64_t len = iv->in_ns - iv->out_ns;
		unsigned bin = pa_wall_bin(len);
		size_t j;

		if (iv->state == PPF_WALL_RUNNABLE || iv->stack == PPF_WALL_NO_STACK)
			continue;
		bins->total[bin] += (double)len;
		for (j = 0; j < bins->n[bin]; j++)
			if (bins->v[bin][j].stack == iv->stack && bins->v[bin][j].state == iv->state)
				break;
		if (j == bins->n[bin]) {
			if (pa_grow((void **)&bins->v[bin], &bins->cap[bin], j, sizeof(*bins->v[bin])))
				return -ENOMEM;
			bins->v[bin][j] = (struct pa_wall_seen){ .state = iv->state,
								 .stack = iv->stack };
			bins->n[bin]++;
		}
		bins->v[bin][j].ns = pa_add_sat(bins->v[bin][j].ns, len);
	}
	return 0;
}

static void pa_wall_bins_release(struct pa_wall_bins *bins)
{
	for (unsigned i = 0; i < PA_WALL_BINS; i++)
		free(bins->v[i]);
}

/*
 * The thread's wall samples from its intervals iv[0..n): see wall.h.
 * -ENOMEM.
 */
static int pa_wall_thread(struct pa_wall_build *b, const struct ppf_wall_interval *iv, size_t n)
{
	const struct pa_event *cpu = pa_wall_cpu_event(b->proc);
	double factor[PA_WALL_BINS];
	bool thin[PA_WALL_BINS], seen;
	struct pa_cpu_when *cpu_samples;
	size_t ncpu;
	int ret = pa_wall_cpu_samples(b, cpu, &cpu_samples, &ncpu);

	seen = pa_wall_spread(iv, n, ret == 0 ? cpu_samples : NULL, ret == 0 ? ncpu : 0,
			      b->r->info->tick_ns, factor, thin);
	if (ret == 0)
		ret = pa_wall_stretches(b, iv, n);
	if (ret == 0)
		ret = pa_wall_stretch_reps(b, cpu_samples, ncpu);

	for (size_t i = 0; i < n && ret == 0; i++) {
		uint64_t len = iv[i].in_ns - iv[i].out_ns;
		const struct pa_cpu_when *w;
		struct pa_wall_key *k;

		b->t->off_ns[iv[i].state] = pa_add_sat(b->t->off_ns[iv[i].state], len);
		if (iv[i].state == PPF_WALL_RUNNABLE) {
			ret = pa_wall_runnable(b, &iv[i], cpu_samples, ncpu);
			continue;
		}
		/* Unseen waits: spread over the seen ones, else the process's. */
		if (iv[i].stack == PPF_WALL_NO_STACK && thin[pa_wall_bin(len)] &&
		    (w = pa_wall_near(b, cpu_samples, ncpu, &iv[i])) != NULL) {
			ret = pa_wall_unseen_near(b, &iv[i], w);
			continue;
		}
		if (iv[i].stack == PPF_WALL_NO_STACK && seen)
			continue;
		if (iv[i].stack == PPF_WALL_NO_STACK) {
			ret = pa_wall_unseen_alone(b, &iv[i]);
			continue;
		}
		{
			double more = (double)len * factor[pa_wall_bin(len)];

			/* bounded, for a hostile log: a double past 2^64 has no uint64_t */
			len += more < (double)(1ull << 62) ? (uint64_t)more : 1ull << 62;
		}
		k = pa_wall_blocked_key(b, iv[i].state, iv[i].stack);
		ret = k ? pa_wall_weigh(b, k, len, iv[i].in_ns) : -ENOMEM;
	}
	if (ret == 0)
		ret = pa_wall_yield_time(b, cpu, iv, n, cpu_samples, ncpu);
	if (ret == 0)
		ret = pa_wall_unsampled(b, cpu, iv, n, cpu_samples, ncpu);
	if (ret == 0)
		ret = pa_wall_leftovers(b);
	if (ret == 0)
		ret = pa_wall_on_cpu(b, cpu, cpu_samples, ncpu);
	free(cpu_samples);
	free(b->y);
	free(b->yrep);
	return ret == 0 ? pa_wall_merge(b) : ret;
}

/* The thread tid among proc's first n (sorted by tid), or NULL. */
static struct pa_thread *pa_wall_find_thread(struct pa_process *proc, size_t n, uint32_t tid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (proc->threads[mid]->tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && proc->threads[lo]->tid == tid ? proc->threads[lo] : NULL;
}


static int pa_wall_cmp_iv(const void *a, const void *b)
{
	const struct ppf_wall_interval *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->in_ns < y->in_ns ? -1 : x->in_ns > y->in_ns;
}

/* Yield stretches by thread, then time. */
static int pa_wall_cmp_yield(const void *a, const void *b)
{
	const struct ppf_wall_yield *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->from_ns < y->from_ns ? -1 : x->from_ns > y->from_ns;
}

/* By thread, then by when the wait began. */
static int pa_wall_cmp_iv_out(const void *a, const void *b)
{
	const struct ppf_wall_interval *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->out_ns < y->out_ns ? -1 : x->out_ns > y->out_ns;
}

static int pa_wall_cmp_thread(const void *a, const void *b)
{
	const struct pa_thread *x = *(struct pa_thread *const *)a;
	const struct pa_thread *y = *(struct pa_thread *const *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* Older-thread records by thread, then name (a crafted log's repeats: one wins, always the same). */
static int pa_wall_cmp_older(const void *a, const void *b)
{
	const struct ppf_wall_older *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return memcmp(x->name, y->name, sizeof(x->name));
}

/* Thread ends by thread, then time: the last one counts. */
static int pa_wall_cmp_end(const void *a, const void *b)
{
	const struct pa_wall_end_of *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->end_ns < y->end_ns ? -1 : x->end_ns > y->end_ns;
}

/*
 * Threads that wall.log alone knows of: a process killed before they took
 * a sample left no log of theirs (nor a quiet record), and a thread older
 * than the profiler (PPF_REC_WALL_OLDER) that no other log names, yet they
 * waited. Each becomes a thread, started at its first wait, nameless but
 * for an older thread's name, ended when wall.log says when it ended. r's
 * intervals are sorted by thread; its older-thread records and thread ends
 * are sorted here. -ENOMEM.
 */
static int pa_wall_add_threads(struct pa_process *proc, struct pa_wall_read *r,
			       const char *path)
{
	size_t n0 = proc->nthreads, nnew = 0, o = 0, e = 0;
	struct pa_thread **all;

	for (size_t i = 0; i < r->niv; i++)
		nnew += (!i || r->iv[i].tid != r->iv[i - 1].tid) &&
			!pa_wall_find_thread(proc, n0, r->iv[i].tid);
	if (!nnew)
		return 0;
	if (nnew > SIZE_MAX / sizeof(*all) - n0)
		return -ENOMEM;
	all = realloc(proc->threads, (n0 + nnew) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	proc->threads = all;
	if (r->nolder)
		qsort(r->older, r->nolder, sizeof(*r->older), pa_wall_cmp_older);
	if (r->nends)
		qsort(r->ends, r->nends, sizeof(*r->ends), pa_wall_cmp_end);
	/* Intervals, older-thread records and ends all by thread: one merge. */
	for (size_t i = 0; i < r->niv; i++) {
		uint32_t tid = r->iv[i].tid;
		struct pa_thread *t;

		if ((i && tid == r->iv[i - 1].tid) || pa_wall_find_thread(proc, n0, tid))
			continue;
		t = calloc(1, sizeof(*t));
		if (!t || !(t->path = strdup(path))) {
			free(t);
			return -ENOMEM;
		}
		t->pid = proc->pid;
		t->tid = tid;
		t->start_ns = r->iv[i].out_ns;
		while (o < r->nolder && r->older[o].tid < tid)
			o++;
		/* A thread older than the profiler: named as it was then. */
		if (o < r->nolder && r->older[o].tid == tid) {
			memcpy(t->name, r->older[o].name, sizeof(r->older[o].name));
			t->name[sizeof(r->older[o].name) - 1] = '\0';
		}
		while (e < r->nends && r->ends[e].tid < tid)
			e++;
		while (e + 1 < r->nends && r->ends[e + 1].tid == tid)
			e++;
		if (e < r->nends && r->ends[e].tid == tid) {
			t->ended = true;
			t->end_ns = r->ends[e].end_ns;
		}
		all[proc->nthreads++] = t;
	}
	qsort(proc->threads, proc->nthreads, sizeof(*proc->threads), pa_wall_cmp_thread);
	return 0;
}

/* The "wall" event, added to proc's events. -ENOMEM. */
static int pa_wall_add_event(struct pa_process *proc, struct pa_wall_info *info)
{
	struct pa_event *ev = realloc(proc->events, (proc->nevents + 1) * sizeof(*ev));
	uint32_t index = 0;

	if (!ev)
		return -ENOMEM;
	proc->events = ev;
	for (size_t i = 0; i < proc->nevents; i++)
		if (ev[i].index >= index)
			index = ev[i].index + 1;
	ev = &proc->events[proc->nevents++];
	memset(ev, 0, sizeof(*ev));
	ev->index = index;
	ev->period = info->period_ns;
	ev->flags = PPF_EVENT_WALL;
	snprintf(ev->name, sizeof(ev->name), "%s", PA_WALL_EVENT_NAME);
	snprintf(ev->spec, sizeof(ev->spec), "%s", PA_WALL_EVENT_NAME);
	info->event = index;
	return 0;
}

/* Every thread's samples from r (intervals sorted by thread). -ENOMEM. */
static int pa_wall_samples(struct pa_process *proc, const struct pa_wall_read *r,
			   const struct pa_wall_how *how)
{
	struct pa_wall_bins bins = { 0 };
	int ret = pa_wall_bins_make(&bins, r);

	for (size_t i = 0; i < r->niv && ret == 0;) {
		size_t j = i;
		struct pa_wall_build b = { .how = how, .bins = &bins, .r = r, .proc = proc,
					   .period = proc->wall->period_ns,
					   .event = proc->wall->event };

		while (j < r->niv && r->iv[j].tid == r->iv[i].tid)
			j++;
		b.t = pa_wall_find_thread(proc, proc->nthreads, r->iv[i].tid);
		if (b.t)
			ret = pa_wall_thread(&b, &r->iv[i], j - i);
		free(b.keys);
		free(b.out);
		free(b.sums);
		free(b.first);
		i = j;
	}
	pa_wall_bins_release(&bins);
	return ret;
}

/* Threads that were never off the CPU still have their CPU samples as wall samples. */
static int pa_wall_busy_threads(struct pa_process *proc, const struct pa_wall_read *r,
				const struct pa_wall_how *how)
{
	const struct pa_event *cpu = pa_wall_cpu_event(proc);
	int ret = 0;

	for (size_t i = 0; i < proc->nthreads && ret == 0; i++) {
		struct pa_thread *t = proc->threads[i];
		struct pa_wall_build b = { .how = how, .r = r, .proc = proc, .t = t,
					   .period = proc->wall->period_ns,
					   .event = proc->wall->event };
		struct pa_cpu_when *when;
		size_t nwhen;
		bool off = false;

		for (unsigned s = 0; s < PPF_WALL_STATES; s++)
			off = off || t->off_ns[s];
		if (off)
			continue;
		ret = pa_wall_cpu_samples(&b, cpu, &when, &nwhen);
		/* A yield loop that was never preempted: its time in the kernel. */
		if (ret == 0)
			ret = pa_wall_stretches(&b, NULL, 0);
		if (ret == 0)
			ret = pa_wall_stretch_reps(&b, when, nwhen);
		if (ret == 0)
			ret = pa_wall_yield_time(&b, cpu, NULL, 0, when, nwhen);
		if (ret == 0)
			ret = pa_wall_unsampled(&b, cpu, NULL, 0, when, nwhen);
		if (ret == 0 && b.nkeys)
			ret = pa_wall_leftovers(&b);
		if (ret == 0)
			ret = pa_wall_on_cpu(&b, cpu, when, nwhen);
		if (ret == 0)
			ret = pa_wall_merge(&b);
		free(when);
		free(b.y);
		free(b.yrep);
		free(b.keys);
		free(b.out);
		free(b.sums);
		free(b.first);
	}
	return ret;
}

/*
 * A log without its end (the process was killed): every wait said to be
 * open that no interval closed lasted until the helper's last tick.
 * -ENOMEM.
 */
static int pa_wall_cut_waits(struct pa_wall_read *r)
{
	size_t niv = r->niv;

	if (r->info->ended || !r->nopen)
		return 0;
	if (niv)
		qsort(r->iv, niv, sizeof(*r->iv), pa_wall_cmp_iv_out);
	for (size_t i = 0; i < r->nopen; i++) {
		struct ppf_wall_interval w = r->open[i];

		if (niv && bsearch(&w, r->iv, niv, sizeof(*r->iv), pa_wall_cmp_iv_out))
			continue;
		if (r->info->alive_ns > w.in_ns &&
		    r->info->alive_ns - w.out_ns <= PA_WALL_MAX_INTERVAL)
			w.in_ns = r->info->alive_ns;
		w.flags |= PPF_WALL_OPEN_AT_END;
		if (pa_grow((void **)&r->iv, &r->iv_cap, r->niv, sizeof(*r->iv)) < 0)
			return -ENOMEM;
		r->iv[r->niv++] = w;
		r->info->cut_waits++;
	}
	return 0;
}

static void pa_wall_read_release(struct pa_wall_read *r)
{
	for (size_t i = 0; i < r->nstacks; i++)
		free(r->stacks[i].ips);
	free(r->stacks);
	free(r->iv);
	free(r->open);
	free(r->lost);
	free(r->older);
	free(r->ends);
	free(r->cpus);
	free(r->yields);
}

/*
 * The kernel's switch path out of a thread's waits: its switch-in record
 * is written after the kernel has put the thread's perf events back on
 * the CPU (on a VM, a timer's reprogramming traps: several us), which
 * its CPU clock already counts. So a thread's waits may sum to more than
 * its wall time less its CPU time over the same span; then each wait
 * gives up the same time at its end (none more than its length) until
 * they sum to that. iv: the thread's intervals, n of them; off_max: the
 * bound. Returns the time taken out.
 */
static uint64_t pa_wall_trim_waits(struct ppf_wall_interval *iv, size_t n, uint64_t off_max)
{
	uint64_t sum = 0, lo = 0, hi = 0, taken = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t len = iv[i].in_ns - iv[i].out_ns;

		/* A look-only thread's waits are the time between looks: no switch in them. */
		if (iv[i].flags & PPF_WALL_LOOK_ONLY)
			return 0;
		sum = pa_add_sat(sum, len);
		hi = len > hi ? len : hi;
	}
	if (sum <= off_max)
		return 0;
	/* The cut k: the waits less k each (at least 0) sum to off_max at most. */
	while (lo < hi) {
		uint64_t k = lo + (hi - lo) / 2, left = 0;

		for (size_t i = 0; i < n; i++) {
			uint64_t len = iv[i].in_ns - iv[i].out_ns;

			left = pa_add_sat(left, len > k ? len - k : 0);
		}
		if (left <= off_max)
			hi = k;
		else
			lo = k + 1;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t len = iv[i].in_ns - iv[i].out_ns, cut = len < lo ? len : lo;

		iv[i].in_ns -= cut;
		taken += cut;
	}
	return taken;
}

/*
 * The first of iv[lo, hi) (sorted by thread, then in_ns) past thread tid's
 * waits that end by t: its first wait ending after t, or the next thread's.
 */
static size_t pa_wall_iv_after(const struct ppf_wall_interval *iv, size_t lo, size_t hi,
			       uint32_t tid, uint64_t t)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (iv[mid].tid < tid || (iv[mid].tid == tid && iv[mid].in_ns <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int pa_wall_cmp_cpu_of(const void *a, const void *b)
{
	const struct pa_wall_cpu_of *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->born_ns < y->born_ns ? -1 : x->born_ns > y->born_ns;
}

/*
 * pa_wall_trim_waits for every thread whose CPU time is known; r->iv sorted
 * by thread. Each wait is trimmed once at most (a tid's threads in order of
 * their start, each from where the one before stopped: a log whose spans
 * overlap costs no more).
 */
static void pa_wall_trim(struct pa_wall_read *r)
{
	size_t done = 0;

	for (size_t c = 0; c < r->ncpus; c++) {
		const struct pa_wall_cpu_of *t = &r->cpus[c];
		uint64_t end = t->end_ns ? t->end_ns : r->info->ended ? r->info->end_ns : 0;
		size_t first, last;

		if (!end || end <= t->born_ns || end - t->born_ns < t->cpu_ns)
			continue;
		/* The first of the tid's intervals (each ends after 0) not trimmed yet. */
		first = pa_wall_iv_after(r->iv, 0, r->niv, t->tid, 0);
		if (first < done)
			first = done;
		/*
		 * Its waits within its span (a tid's earlier or later thread has
		 * its own): a thread's waits do not overlap, so both ends are in
		 * order too.
		 */
		last = pa_wall_iv_after(r->iv, first, r->niv, t->tid, UINT64_MAX);
		first = pa_wall_iv_after(r->iv, first, last, t->tid, t->born_ns);
		for (size_t lo = first, hi = last; (last = lo) < hi;) {
			size_t mid = lo + (hi - lo) / 2;

			if (r->iv[mid].out_ns < end)
				lo = mid + 1;
			else
				hi = mid;
		}
		r->info->trimmed_ns = pa_add_sat(r->info->trimmed_ns,
						 pa_wall_trim_waits(r->iv + first, last - first,
								    end - t->born_ns - t->cpu_ns));
		done = last > done ? last : done;
	}
}

/* The time each thread's lost records leave unknown; a log without its end counts them too. */
static void pa_wall_lost_time(struct pa_process *proc, const struct pa_wall_read *r)
{
	uint64_t lost = 0;

	for (size_t i = 0; i < r->nlost; i++) {
		struct pa_thread *t = pa_wall_find_thread(proc, proc->nthreads, r->lost[i].tid);
		uint64_t ns = r->lost[i].to_ns - r->lost[i].from_ns;

		if (t)
			t->wall_lost_ns = pa_add_sat(t->wall_lost_ns, ns);
		r->info->lost_ns = pa_add_sat(r->info->lost_ns, ns);
		lost += r->lost[i].lost;
	}
	if (!r->info->ended)
		r->info->lost = lost;
}

/* What is where proc's wall log goes (pa_process_file). */
enum pa_wall_find {
	PA_WALL_NONE,      /* nothing (or out of memory) */
	PA_WALL_LOG,       /* a log to read (one that cannot be is said when read) */
	PA_WALL_ODD,       /* not a regular file: left out, said */
	PA_WALL_NO_HEADER, /* made, its header never written: its process was killed */
};

/*
 * Whether proc's threads' logs may lack their end (as pa_reader's
 * expect_end): a process killed, replaced by an exec or stopped by a full
 * disk; its wall log may then have been made and never written.
 */
static bool pa_wall_may_be_cut(const struct pa_process *proc)
{
	return proc->replaced || (!proc->ended && !proc->full.full);
}

/*
 * proc's wall log: its path (malloc'd, NULL with PA_WALL_NONE) and what is
 * there, *st its lstat. A log whose header was never written (shorter than
 * one, or zeros where it goes: the profiler made the file and its process
 * was killed before the header went in) is PA_WALL_NO_HEADER when proc may
 * have been cut short, else a log to read (and its error).
 */
static enum pa_wall_find pa_wall_find(const struct pa_process *proc, char **path, struct stat *st)
{
	struct ppf_file_header h;
	ssize_t got;
	int fd;

	*path = pa_process_file(proc, PPF_WALL_LOG);
	if (!*path)
		return PA_WALL_NONE;
	if (lstat(*path, st) != 0) {
		if (errno != ENOENT)
			return PA_WALL_LOG;
		free(*path);
		*path = NULL;
		return PA_WALL_NONE;
	}
	if (!S_ISREG(st->st_mode))
		return PA_WALL_ODD;
	if (!pa_wall_may_be_cut(proc))
		return PA_WALL_LOG;
	fd = pa_regfile_open(*path, O_NOFOLLOW, NULL, NULL);
	if (fd < 0)
		return PA_WALL_LOG;
	got = pread(fd, &h, sizeof(h), 0);
	close(fd);
	if (got < 0)
		return PA_WALL_LOG;
	for (ssize_t i = 0; i < got; i++)
		if (((const unsigned char *)&h)[i])
			return PA_WALL_LOG;
	return PA_WALL_NO_HEADER;
}

bool pa_wall_present(const struct pa_process *proc)
{
	struct stat st;
	char *path;
	bool log = pa_wall_find(proc, &path, &st) == PA_WALL_LOG;

	free(path);
	return log;
}

/*
 * Reads wall.log at path, or from data when not NULL, into proc
 * (pa_wall_load); opts: as proc's threads were read (NULL: every sample).
 */
static int pa_wall_read(struct pa_process *proc, const char *path, const void *data, size_t size,
			const struct pa_load_opts *opts, struct pa_warnings *warn,
			struct pa_error *err)
{
	struct pa_wall_read r = { 0 };
	struct pa_wall_how how = { .sum = opts && opts->collapse,
				   .window = opts ? &opts->window : NULL,
				   .start_ns = proc->start_ns };
	int ret;

	r.info = calloc(1, sizeof(*r.info));
	if (!r.info)
		return pa_error_set(err, -ENOMEM, path, false, 0, "out of memory");
	proc->wall = r.info;
	r.path = path;
	ret = how.sum ? pa_process_unloads(proc, &how.unloads, &how.nunloads) : 0;
	if (ret < 0)
		ret = pa_error_set(err, ret, path, false, 0, "out of memory");
	else
		ret = data ? pa_log_walk_data(path, data, size, PPF_FILE_WALL, pa_wall_record, &r, warn, err) :
		     pa_log_walk_file(path, PPF_FILE_WALL, pa_wall_record, &r, warn, err);
	if (ret == 0 && !r.started)
		ret = pa_wall_bad(path, 0, err, "wall log without its start record");
	/* The helper ticked after the last end (an exec's that failed): the log went on. */
	if (r.info->ended && r.info->alive_ns > r.info->end_ns)
		r.info->ended = false;
	if (ret == 0) {
		r.info->intervals = r.niv;
		ret = pa_wall_cut_waits(&r);
		if (ret == 0 && r.nyields)
			qsort(r.yields, r.nyields, sizeof(*r.yields), pa_wall_cmp_yield);
		if (ret == 0 && r.ncpus > 1)
			qsort(r.cpus, r.ncpus, sizeof(*r.cpus), pa_wall_cmp_cpu_of);
		if (ret == 0 && r.niv) {
			qsort(r.iv, r.niv, sizeof(*r.iv), pa_wall_cmp_iv);
			pa_wall_trim(&r);
			ret = pa_wall_add_threads(proc, &r, path);
		}
		if (ret == 0) {
			pa_wall_lost_time(proc, &r);
			ret = pa_wall_add_event(proc, r.info);
		}
		if (ret == 0)
			ret = pa_wall_samples(proc, &r, &how);
		if (ret == 0)
			ret = pa_wall_busy_threads(proc, &r, &how);
		if (ret < 0)
			ret = pa_error_set(err, ret, path, false, 0, "out of memory");
	}
	pa_wall_read_release(&r);
	free(how.unloads);
	/* What the reader listed for the nearest CPU sample is needed no more. */
	for (size_t i = 0; i < proc->nthreads; i++) {
		free(proc->threads[i]->cpu_when);
		proc->threads[i]->cpu_when = NULL;
		proc->threads[i]->ncpu_when = 0;
	}
	return ret;
}

int pa_wall_load(struct pa_process *proc, const struct pa_load_opts *opts,
		 struct pa_warnings *warn, struct pa_error *err)
{
	struct stat st;
	char *path;
	enum pa_wall_find found = pa_wall_find(proc, &path, &st);
	int ret = 0;

	/* Like a thread log that is no log: left out, said, the rest read. */
	if (found == PA_WALL_ODD)
		pa_warnings_add(warn, path, false, 0, "%s, not a regular file; the process's "
				"wall-clock samples are left out, the rest of the run is read",
				pa_regfile_kind(st.st_mode));
	else if (found == PA_WALL_NO_HEADER)
		pa_warnings_add(warn, path, false, 0, "no header: the log was being made when its "
				"process was killed (or replaced by an exec); the process's "
				"wall-clock samples are left out, the rest of the run is read");
	else if (found == PA_WALL_LOG)
		ret = pa_wall_read(proc, path, NULL, 0, opts, warn, err);
	free(path);
	return ret;
}

int pa_wall_log_parse(struct pa_process *proc, const char *name, const void *data, size_t size,
		      struct pa_warnings *warn, struct pa_error *err)
{
	return pa_wall_read(proc, name, data ? data : "", size, NULL, warn, err);
}
