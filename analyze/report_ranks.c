/*
 * report_ranks: one row per MPI rank (struct pa_identity) of each job in
 * the run: its samples, those taken in the MPI library and the rest (its
 * compute), and per job the imbalance of the compute (the slowest rank's
 * over the mean) and the ranks of the world that left no profile.
 */
#include "report.h"
#include "report_ranks.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "eventinfo.h"
#include "grow.h"
#include "ident.h"
#include "jsondoc.h"
#include "samples.h"
#include "satmath.h"
#include "wall.h"

/* Missing ranks named at most, then "...". */
#define PA_RANKS_MISSING_NAMED 8

/*
 * What marks a frame as the MPI library's: a function name's prefix (the
 * MPI and profiling interfaces, C and Fortran), or its module's basename's
 * (Open MPI's libraries and components, MPICH's, the PMIx client).
 */
static const char *const pa_ranks_mpi_functions[] = { "MPI_", "PMPI_", "mpi_", "pmpi_" };
static const char *const pa_ranks_mpi_modules[] = {
	"libmpi", "libopen-pal", "libopen-rte", "libpmix", "mca_", "libmpich", "libmpl",
};

/*
 * Modules that are neither the program nor the MPI library: the C
 * library's, whose frames start a thread (clone3, start_thread), and the
 * libraries MPI libraries run on, whose threads call back into them (UCX's
 * async thread into Open MPI's UCX components, libfabric's and PSM's
 * progress threads, PMIx's and hwloc's event loops). A stack whose frames
 * outside the MPI library are all theirs (or in no known module) is a
 * thread the libraries started, not the program calling MPI.
 */
static const char *const pa_ranks_support_modules[] = {
	"libc.so", "libc-", "libpthread", "ld-linux", "ld-musl", "libc.musl",
	"libucs", "libucp", "libuct", "libucm", "libfabric", "libpsm", "libibverbs",
	"librdmacm", "libhcoll", "libevent", "libhwloc", "libnl-", "libmunge",
};

/* What a stack is to the WAIT column, worked out once per stack of a process. */
enum pa_ranks_stack {
	PA_RANKS_IN_MPI = 1,  /* the program (not a thread of the library) is in an MPI call */
	PA_RANKS_OFF_CPU = 2, /* a wall sample of time off the CPU (leaf PA_WALL_IP) */
};

/* One rank of one job. */
struct pa_ranks_row {
	const char *job;       /* the job id ("" when none) */
	int32_t rank;
	int32_t world_size;    /* the largest its processes recorded, -1 when none */
	const char *host;      /* its first process's */
	size_t nprocesses;
	uint64_t samples;      /* of the selected event */
	uint64_t mpi;          /* of them, in the MPI library */
	uint64_t cpu_ns;       /* samples x period, for a time event */
	bool cpu_known;        /* every sample counted had a time period */
	bool wall;             /* a process of the rank had the wall event */
	uint64_t wait_ns;      /* wall time off the CPU in MPI calls (PA_RANKS_IN_MPI) */
	uint64_t in_mpi_ns;    /* wall time in MPI calls, on the CPU or off it */
};

/* The walk's state: the rows, and what it knows of the process it is in. */
struct pa_ranks {
	struct pa_ranks_row *rows;
	size_t nrows, cap;
	const struct pa_process *proc; /* the process of the last sample */
	size_t row;                    /* its row, or SIZE_MAX: no rank */
	signed char *stack_mpi;        /* per distinct stack of proc: -1 unknown, else
					  0/1 (the CPU walk), enum pa_ranks_stack bits
					  (the wall walk) */
	size_t nstacks;
	bool wall;                     /* a selected rank had the wall event */
	size_t without_rank;           /* selected processes without a rank, not exec'd */
	size_t replaced;               /* selected images without a rank replaced by exec */
	size_t replaced_by_rank;       /* of those, ones a rank's image replaced */
};

#define PA_RANKS_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Whether s (may be NULL) starts with one of the n prefixes. */
static bool pa_ranks_prefixed(const char *s, const char *const *prefixes, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		if (strncmp(s, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* Whether a frame is in the MPI library (pa_ranks_mpi_*). */
static bool pa_ranks_frame_mpi(const struct pa_frame *fr)
{
	return pa_ranks_prefixed(fr->function, pa_ranks_mpi_functions,
				 PA_RANKS_COUNT(pa_ranks_mpi_functions)) ||
	       pa_ranks_prefixed(fr->module_base, pa_ranks_mpi_modules,
				 PA_RANKS_COUNT(pa_ranks_mpi_modules));
}

bool pa_ranks_program_in_mpi(const struct pa_frame *frames, size_t n, bool truncated)
{
	bool program = truncated;

	for (size_t k = n; k-- > 0;) {
		if (pa_ranks_frame_mpi(&frames[k]))
			return program;
		program |= frames[k].module_base &&
			   !pa_ranks_prefixed(frames[k].module_base, pa_ranks_support_modules,
					      PA_RANKS_COUNT(pa_ranks_support_modules));
	}
	return false;
}

/* The row of proc's job and rank, made when new; SIZE_MAX when out of memory. */
static size_t pa_ranks_row_of(struct pa_ranks *r, const struct pa_process *proc)
{
	const char *job = proc->id.job ? proc->id.job : "";
	struct pa_ranks_row *row;

	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].rank == proc->id.rank && strcmp(r->rows[i].job, job) == 0)
			return i;
	if (pa_grow((void **)&r->rows, &r->cap, r->nrows, sizeof(*r->rows)) < 0)
		return SIZE_MAX;
	row = &r->rows[r->nrows];
	*row = (struct pa_ranks_row){ .job = job, .rank = proc->id.rank, .world_size = -1,
				      .host = pa_ident_host(proc), .cpu_known = true };
	return r->nrows++;
}

/* A new process: its row, and a fresh table of its stacks. */
static int pa_ranks_enter(struct pa_ranks *r, const struct pa_process *proc)
{
	r->proc = proc;
	r->nstacks = 0;
	r->row = SIZE_MAX;
	if (proc->id.rank < 0)
		return 0;
	r->row = pa_ranks_row_of(r, proc);
	if (r->row == SIZE_MAX)
		return -ENOMEM;
	r->rows[r->row].nprocesses++;
	if (proc->id.world_size > r->rows[r->row].world_size)
		r->rows[r->row].world_size = proc->id.world_size;
	return 0;
}

/* 1 when a frame of item's is in the MPI library, else 0 (the MPI column). */
static int pa_ranks_cpu_class(const struct pa_samples_item *item)
{
	for (size_t k = 0; k < item->nframes; k++)
		if (pa_ranks_frame_mpi(&item->frames[k]))
			return 1;
	return 0;
}

/* enum pa_ranks_stack's bits for item, a sample of the wall event. */
static int pa_ranks_wall_class(const struct pa_samples_item *item)
{
	return (pa_ranks_program_in_mpi(item->frames, item->nframes,
					item->sample->flags & PPF_SAMPLE_TRUNCATED) ?
			PA_RANKS_IN_MPI : 0) |
	       (pa_wall_frame_name(item->frames[0].ip) ? PA_RANKS_OFF_CPU : 0);
}

/*
 * classify(item), worked out once per stack of a process (a sample of a
 * stack seen before comes without frames); a negative errno.
 */
static int pa_ranks_item_class(struct pa_ranks *r, const struct pa_samples_item *item,
			       int (*classify)(const struct pa_samples_item *))
{
	size_t cap = r->nstacks;
	int mpi;

	if (item->stack != PA_SAMPLES_NO_STACK && item->stack < r->nstacks &&
	    r->stack_mpi[item->stack] >= 0)
		return r->stack_mpi[item->stack];
	mpi = classify(item);
	if (item->stack == PA_SAMPLES_NO_STACK)
		return mpi;
	while (r->nstacks <= item->stack) {
		if (pa_grow((void **)&r->stack_mpi, &cap, r->nstacks, sizeof(*r->stack_mpi)) < 0)
			return -ENOMEM;
		r->stack_mpi[r->nstacks++] = -1;
	}
	r->stack_mpi[item->stack] = (signed char)mpi;
	return mpi;
}

static int pa_ranks_sample(void *ctx, const struct pa_samples_item *item)
{
	struct pa_ranks *r = ctx;
	uint64_t n = item->sample->count, period;
	struct pa_ranks_row *row;
	int mpi, ret;

	if (item->proc != r->proc && (ret = pa_ranks_enter(r, item->proc)) < 0)
		return ret;
	if (r->row == SIZE_MAX)
		return 0;
	mpi = pa_ranks_item_class(r, item, pa_ranks_cpu_class);
	if (mpi < 0)
		return mpi;
	row = &r->rows[r->row];
	row->samples += n;
	row->mpi += mpi ? n : 0;
	period = item->event && (item->event->flags & PPF_EVENT_TIME_NS) ?
		 pa_event_sample_period(item->event) : 0;
	row->cpu_ns += n * period;
	row->cpu_known &= period != 0;
	return 0;
}

/*
 * A sample of the wall event (the second walk): its weight in wall time
 * goes to the rank's in_mpi_ns when the program is in an MPI call, and to
 * wait_ns too when the thread was off the CPU.
 */
static int pa_ranks_wall_sample(void *ctx, const struct pa_samples_item *item)
{
	struct pa_ranks *r = ctx;
	struct pa_ranks_row *row;
	uint64_t ns;
	int what;

	if (item->proc != r->proc) {
		r->proc = item->proc;
		r->nstacks = 0;
		r->row = item->proc->id.rank < 0 ? SIZE_MAX : pa_ranks_row_of(r, item->proc);
		if (item->proc->id.rank >= 0 && r->row == SIZE_MAX)
			return -ENOMEM;
		if (r->row != SIZE_MAX)
			r->rows[r->row].wall = r->wall = true;
	}
	if (r->row == SIZE_MAX || !item->event)
		return 0;
	what = pa_ranks_item_class(r, item, pa_ranks_wall_class);
	if (what < 0)
		return what;
	row = &r->rows[r->row];
	/* A crafted log's counts saturate rather than wrap. */
	ns = pa_mul_sat(item->sample->count, pa_event_sample_period(item->event));
	if (what & PA_RANKS_IN_MPI)
		row->in_mpi_ns = pa_add_sat(row->in_mpi_ns, ns);
	if ((what & PA_RANKS_IN_MPI) && (what & PA_RANKS_OFF_CPU))
		row->wait_ns = pa_add_sat(row->wait_ns, ns);
	return 0;
}

/*
 * The wall event's samples of the processes f selects, for WAIT: a walk
 * of its own, whatever event f names; processes without wall.log have
 * none. A rank with a wall.log but no wall sample is still marked.
 */
static int pa_ranks_wall(struct pa_ranks *r, const struct pa_run *run, const struct pa_filter *f,
			 struct pa_warnings *warn, struct pa_error *err)
{
	struct pa_filter wf = *f;
	int ret;

	wf.event_name = PA_WALL_EVENT_NAME;
	r->proc = NULL;
	r->row = SIZE_MAX;
	ret = pa_samples_walk_opts(run, &wf, &(struct pa_samples_opts){ .frames_of_new = true },
				   pa_ranks_wall_sample, r, warn, err);
	for (size_t i = 0; ret == 0 && i < run->nprocesses; i++) {
		const struct pa_process *p = run->processes[i];
		size_t k;

		if (!p->wall || p->id.rank < 0 || !pa_filter_selects(f, p))
			continue;
		k = pa_ranks_row_of(r, p);
		if (k == SIZE_MAX)
			return -ENOMEM;
		r->rows[k].wall = r->wall = true;
	}
	return ret;
}

/*
 * Whether the image p (replaced by exec) was followed by a rank: an image
 * of its pid on its host, started no earlier, that has a rank (a
 * launcher's fork child that exec'd the program).
 */
static bool pa_ranks_became_rank(const struct pa_run *run, const struct pa_process *p)
{
	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_process *q = run->processes[i];

		if (q != p && q->pid == p->pid && q->id.rank >= 0 &&
		    q->start_ns >= p->start_ns && pa_process_same_pid_space(p, q))
			return true;
	}
	return false;
}

/*
 * Processes the filter selects that took no sample still name their rank;
 * those without one are counted: images replaced by exec (a launcher's
 * fork children before they run the program) apart from the others.
 */
static int pa_ranks_quiet(struct pa_ranks *r, const struct pa_run *run, const struct pa_filter *f)
{
	for (size_t i = 0; i < run->nprocesses; i++) {
		const struct pa_process *p = run->processes[i];
		size_t k;

		if (!pa_filter_selects(f, p))
			continue;
		if (p->id.rank < 0 && p->replaced) {
			r->replaced++;
			r->replaced_by_rank += pa_ranks_became_rank(run, p);
			continue;
		}
		if (p->id.rank < 0) {
			r->without_rank++;
			continue;
		}
		k = pa_ranks_row_of(r, p);
		if (k == SIZE_MAX)
			return -ENOMEM;
		if (p->id.world_size > r->rows[k].world_size)
			r->rows[k].world_size = p->id.world_size;
	}
	return 0;
}

static int pa_ranks_cmp(const void *a, const void *b)
{
	const struct pa_ranks_row *x = a, *y = b;
	int c = strcmp(x->job, y->job);

	if (c)
		return c;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* The rows of every rank f selects, sorted by job then rank. */
static int pa_ranks_build(const struct pa_report_ctx *ctx, struct pa_ranks *r)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->row = SIZE_MAX;
	ret = pa_samples_walk_opts(ctx->run, ctx->filter,
				   &(struct pa_samples_opts){ .frames_of_new = true },
				   pa_ranks_sample, r, ctx->warn, ctx->err);
	if (ret == 0)
		ret = pa_ranks_quiet(r, ctx->run, ctx->filter);
	if (ret == 0)
		ret = pa_ranks_wall(r, ctx->run, ctx->filter, ctx->warn, ctx->err);
	if (ret == -ENOMEM)
		pa_error_set(ctx->err, ret, ctx->run->dir, false, 0, "out of memory");
	if (ret == 0 && r->nrows)
		qsort(r->rows, r->nrows, sizeof(*r->rows), pa_ranks_cmp);
	return ret;
}

static void pa_ranks_release(struct pa_ranks *r)
{
	free(r->rows);
	free(r->stack_mpi);
}

/* One job's rows, [first, end), and what they say together. */
struct pa_ranks_job {
	size_t first, end;
	int32_t world_size;    /* the largest any rank recorded, -1: none */
	size_t missing;        /* ranks below world_size with no row */
	size_t slowest;        /* the row with the most compute */
	size_t in_mpi;         /* the row with the most in_mpi_ns, SIZE_MAX: none */
	double mean_in_mpi_ns; /* over the rows with the wall event */
	double mean;           /* compute per rank */
	double imbalance;      /* the slowest's compute / mean; 0 when mean is 0 */
	uint64_t samples;
};

static uint64_t pa_ranks_compute(const struct pa_ranks_row *row)
{
	return row->samples - row->mpi;
}

/* The job whose rows start at first. */
static void pa_ranks_job(const struct pa_ranks *r, size_t first, struct pa_ranks_job *j)
{
	uint64_t compute = 0, in_mpi = 0;
	size_t found = 0, walled = 0;

	*j = (struct pa_ranks_job){ .first = first, .end = first, .world_size = -1,
				    .slowest = first, .in_mpi = SIZE_MAX };
	while (j->end < r->nrows && strcmp(r->rows[j->end].job, r->rows[first].job) == 0) {
		const struct pa_ranks_row *row = &r->rows[j->end];

		if (row->world_size > j->world_size)
			j->world_size = row->world_size;
		compute += pa_ranks_compute(row);
		j->samples += row->samples;
		if (pa_ranks_compute(row) > pa_ranks_compute(&r->rows[j->slowest]))
			j->slowest = j->end;
		if (row->wall && row->in_mpi_ns &&
		    (j->in_mpi == SIZE_MAX || row->in_mpi_ns > r->rows[j->in_mpi].in_mpi_ns))
			j->in_mpi = j->end;
		walled += row->wall;
		in_mpi = pa_add_sat(in_mpi, row->wall ? row->in_mpi_ns : 0);
		j->end++;
	}
	j->mean_in_mpi_ns = walled ? (double)in_mpi / (double)walled : 0;
	/* Rows of ranks at or past the world size (hostile logs) fill no missing one. */
	for (size_t i = j->first; i < j->end; i++)
		found += j->world_size < 0 || r->rows[i].rank < j->world_size;
	j->missing = j->world_size > 0 && (size_t)j->world_size > found ?
		     (size_t)j->world_size - found : 0;
	j->mean = (double)compute / (double)(j->end - j->first);
	j->imbalance = j->mean > 0 ? (double)pa_ranks_compute(&r->rows[j->slowest]) / j->mean : 0;
}

/* The ranks below j's world size that have no row, "1, 3, ..." into buf. */
static void pa_ranks_missing(const struct pa_ranks *r, const struct pa_ranks_job *j, char *buf,
			     size_t size)
{
	size_t named = 0, len = 0, i = j->first;

	buf[0] = '\0';
	for (int32_t k = 0; k < j->world_size && named <= PA_RANKS_MISSING_NAMED; k++) {
		int w;

		while (i < j->end && r->rows[i].rank < k)
			i++;
		if (i < j->end && r->rows[i].rank == k)
			continue;
		w = named++ == PA_RANKS_MISSING_NAMED ?
		    snprintf(buf + len, size - len, ", ...") :
		    snprintf(buf + len, size - len, "%s%" PRId32, len ? ", " : "", k);
		if (w < 0 || (size_t)w >= size - len)
			break;
		len += (size_t)w;
	}
}

/* The job's lines under the header: what is missing, and the imbalance. */
static void pa_ranks_job_lines(FILE *out, const struct pa_ranks *r, const struct pa_ranks_job *j)
{
	const struct pa_ranks_row *slow = &r->rows[j->slowest];
	char missing[256];

	size_t outside = 0, len = 0, within;

	/* Ranks at or past the world size (another launch's variables?) are said apart. */
	missing[0] = '\0';
	for (size_t i = j->first; i < j->end; i++) {
		if (j->world_size <= 0 || r->rows[i].rank < j->world_size)
			continue;
		if (outside++ < PA_RANKS_MISSING_NAMED && len < sizeof(missing) - 16)
			len += (size_t)snprintf(missing + len, sizeof(missing) - len, "%s%" PRId32,
						len ? ", " : "", r->rows[i].rank);
	}
	within = j->end - j->first - outside;
	fprintf(out, "# job %s: %zu rank%s", r->rows[j->first].job[0] ? r->rows[j->first].job :
		"(none)", within, within == 1 ? "" : "s");
	if (j->world_size > 0)
		fprintf(out, " of world size %" PRId32, j->world_size);
	fputc('\n', out);
	if (outside)
		fprintf(out, "# %zu rank%s at or past the world size: %s%s "
			"(processes that recorded another launch's variables?)\n", outside,
			outside == 1 ? "" : "s", missing,
			outside > PA_RANKS_MISSING_NAMED ? ", ..." : "");
	if (j->missing) {
		pa_ranks_missing(r, j, missing, sizeof(missing));
		fprintf(out, "# %zu of %" PRId32 " ranks have no profile: %s (was LD_PRELOAD "
			"passed to every rank: mpirun -x LD_PRELOAD, srun --export=ALL?)\n",
			j->missing, j->world_size, missing);
	}
	if (j->mean > 0)
		fprintf(out, "# imbalance: the slowest rank, %" PRId32 ", computed %.2fx the mean "
			"(%" PRIu64 " samples outside MPI, mean %.1f)\n", slow->rank, j->imbalance,
			pa_ranks_compute(slow), j->mean);
	if (j->in_mpi != SIZE_MAX)
		fprintf(out, "# waiting: rank %" PRId32 " spent the longest in MPI calls, %.3f s of "
			"wall time, %.3f s of it off the CPU (mean %.3f s)\n",
			r->rows[j->in_mpi].rank, (double)r->rows[j->in_mpi].in_mpi_ns / 1e9,
			(double)r->rows[j->in_mpi].wait_ns / 1e9, j->mean_in_mpi_ns / 1e9);
}

/* "1.234" seconds of ns into buf, or "-" when the rank had no wall event. */
static const char *pa_ranks_wall_s(const struct pa_ranks_row *row, uint64_t ns, char *buf,
				   size_t size)
{
	if (row->wall)
		snprintf(buf, size, "%.3f", (double)ns / 1e9);
	else
		snprintf(buf, size, "-");
	return buf;
}

static void pa_ranks_row_text(FILE *out, const struct pa_ranks_row *row, int host_width,
			      bool wall)
{
	char cpu[32], wait[32], in_mpi[32];

	if (row->cpu_known && row->samples)
		snprintf(cpu, sizeof(cpu), "%.3f", (double)row->cpu_ns / 1e9);
	else
		snprintf(cpu, sizeof(cpu), "-");
	fprintf(out, "%6" PRId32 "  %-*s %5zu %9" PRIu64 " %9" PRIu64 " %7.2f%% %9" PRIu64
		" %9s", row->rank, host_width, row->host, row->nprocesses, row->samples,
		row->mpi, pa_profile_pct(row->mpi, row->samples), pa_ranks_compute(row), cpu);
	if (wall)
		fprintf(out, " %9s %9s", pa_ranks_wall_s(row, row->wait_ns, wait, sizeof(wait)),
			pa_ranks_wall_s(row, row->in_mpi_ns, in_mpi, sizeof(in_mpi)));
	fputc('\n', out);
}

/*
 * A header line naming the event (pa_events_header), then per job (its
 * id; "(none)" for ranks without one) a line with its ranks and world
 * size, "# N of M ranks have no profile: ..." when the world size the ranks
 * recorded is larger than the ranks found, "# imbalance: ..." (the slowest
 * rank by compute, the samples outside the MPI library, over the mean),
 * then one row per rank: RANK, HOST (its first process's), PROCS, SAMPLES,
 * MPI (samples with a frame in the MPI library), MPI%, COMPUTE (the others)
 * and CPU(s) (samples x period for a time event, else "-"). Processes
 * without a rank that ran without exec (the launcher) are counted on a
 * line, and images replaced by exec (how many of them by a rank) on
 * another. Returns 0, or
 * a negative errno (-EIO on a write error).
 */
static int pa_report_ranks_write(const struct pa_report_ctx *ctx)
{
	FILE *out = ctx->out;
	struct pa_ranks r;
	int host_width = (int)strlen("HOST");
	uint64_t samples = 0;
	int ret = pa_ranks_build(ctx, &r);

	if (ret < 0) {
		pa_ranks_release(&r);
		return ret;
	}
	for (size_t i = 0; i < r.nrows; i++) {
		samples += r.rows[i].samples;
		if ((int)strlen(r.rows[i].host) > host_width)
			host_width = (int)strlen(r.rows[i].host);
	}
	pa_events_header(out, ctx->run, ctx->filter, samples, false, 0, 0, 0);
	if (!r.nrows)
		fprintf(out, "# no process has an MPI rank (none was started by mpirun, srun "
			"or another launcher that sets one)\n");
	for (size_t first = 0; first < r.nrows;) {
		struct pa_ranks_job j;

		pa_ranks_job(&r, first, &j);
		pa_ranks_job_lines(out, &r, &j);
		fprintf(out, "%6s  %-*s %5s %9s %9s %8s %9s %9s", "RANK", host_width, "HOST",
			"PROCS", "SAMPLES", "MPI", "MPI%", "COMPUTE", "CPU(s)");
		if (r.wall)
			fprintf(out, " %9s %9s", "WAIT(s)", "INMPI(s)");
		fputc('\n', out);
		for (size_t i = j.first; i < j.end; i++)
			pa_ranks_row_text(out, &r.rows[i], host_width, r.wall);
		first = j.end;
	}
	if (r.nrows && !r.wall)
		fprintf(out, "# the time ranks waited in MPI calls (WAIT) needs the wall-clock "
			"event: run with [sample wall] in the configuration (PPROF_CONFIG)\n");
	if (r.without_rank)
		fprintf(out, "# %zu process%s without a rank (launchers, helpers) left out\n",
			r.without_rank, r.without_rank == 1 ? "" : "es");
	if (r.replaced)
		fprintf(out, "# %zu image%s without a rank that exec replaced left out (%zu by a "
			"rank: the launcher's children before they ran the program)\n", r.replaced,
			r.replaced == 1 ? "" : "s", r.replaced_by_rank);
	pa_ranks_release(&r);
	return ferror(out) ? -EIO : 0;
}

static void pa_ranks_json_row(struct pa_json *j, const struct pa_ranks_row *row)
{
	pa_json_object_begin(j);
	pa_json_key_string(j, "job", row->job[0] ? row->job : NULL);
	pa_json_key(j, "rank");
	pa_json_int(j, row->rank);
	pa_json_key(j, "world_size");
	if (row->world_size > 0)
		pa_json_int(j, row->world_size);
	else
		pa_json_null(j);
	pa_json_key_string(j, "host", strcmp(row->host, "-") ? row->host : NULL);
	pa_json_key_uint(j, "processes", row->nprocesses);
	pa_json_key_uint(j, "samples", row->samples);
	pa_json_key_uint(j, "mpi", row->mpi);
	pa_json_key_double(j, "mpi_percent", pa_profile_pct(row->mpi, row->samples));
	pa_json_key_uint(j, "compute", pa_ranks_compute(row));
	pa_json_key(j, "cpu_s");
	if (row->cpu_known && row->samples)
		pa_json_double(j, (double)row->cpu_ns / 1e9);
	else
		pa_json_null(j);
	pa_json_key(j, "wait_s");
	if (row->wall)
		pa_json_double(j, (double)row->wait_ns / 1e9);
	else
		pa_json_null(j);
	pa_json_key(j, "in_mpi_s");
	if (row->wall)
		pa_json_double(j, (double)row->in_mpi_ns / 1e9);
	else
		pa_json_null(j);
	pa_json_object_end(j);
}

static void pa_ranks_json_job(struct pa_json *j, const struct pa_ranks *r,
			      const struct pa_ranks_job *job)
{
	const char *id = r->rows[job->first].job;

	pa_json_object_begin(j);
	pa_json_key_string(j, "job", id[0] ? id : NULL);
	pa_json_key(j, "world_size");
	if (job->world_size > 0)
		pa_json_int(j, job->world_size);
	else
		pa_json_null(j);
	pa_json_key_uint(j, "ranks", job->end - job->first);
	pa_json_key_uint(j, "missing", job->missing);
	pa_json_key_array(j, "missing_ranks");
	for (int32_t k = 0, i = (int32_t)job->first; k < job->world_size; k++) {
		while ((size_t)i < job->end && r->rows[i].rank < k)
			i++;
		if ((size_t)i >= job->end || r->rows[i].rank != k)
			pa_json_int(j, k);
	}
	pa_json_array_end(j);
	pa_json_key(j, "imbalance");
	if (job->mean > 0)
		pa_json_double(j, job->imbalance);
	else
		pa_json_null(j);
	pa_json_key(j, "slowest_rank");
	pa_json_int(j, r->rows[job->slowest].rank);
	pa_json_key_double(j, "mean_compute", job->mean);
	pa_json_key(j, "longest_in_mpi_rank");
	if (job->in_mpi != SIZE_MAX)
		pa_json_int(j, r->rows[job->in_mpi].rank);
	else
		pa_json_null(j);
	pa_json_key(j, "mean_in_mpi_s");
	if (job->in_mpi != SIZE_MAX)
		pa_json_double(j, job->mean_in_mpi_ns / 1e9);
	else
		pa_json_null(j);
	pa_json_object_end(j);
}

/*
 * The same as a JSON document (jsondoc.h): "rows", one per rank in the
 * text's order {"job" (null when none), "rank", "world_size", "host",
 * "processes", "samples", "mpi", "mpi_percent", "compute", "cpu_s" (null
 * unless a time event)}; "jobs", one per job {"job", "world_size", "ranks",
 * "missing", "missing_ranks" (every one), "imbalance" (null when no rank
 * computed), "slowest_rank", "mean_compute"}; "without_rank" (processes
 * that ran without exec), "replaced_by_exec" (images without a rank that
 * exec replaced) and "replaced_by_rank" (of those, the ones a rank's
 * image replaced).
 */
static int pa_report_ranks_write_json(const struct pa_report_ctx *ctx)
{
	struct pa_jsondoc_counts c = { 0 };
	struct pa_json *j = NULL;
	struct pa_ranks r;
	int ret = pa_ranks_build(ctx, &r);

	for (size_t i = 0; ret == 0 && i < r.nrows; i++) {
		c.samples += r.rows[i].samples;
		c.nprocesses += r.rows[i].nprocesses;
	}
	for (size_t i = 0; ret == 0 && i < ctx->run->nprocesses; i++) {
		const struct pa_process *p = ctx->run->processes[i];

		for (size_t k = 0; p->id.rank >= 0 && pa_filter_selects(ctx->filter, p) &&
				   k < p->nthreads; k++)
			c.nthreads += pa_filter_selects_thread(ctx->filter, p->threads[k]);
	}
	if (ret == 0)
		ret = pa_jsondoc_begin(ctx->out, "ranks", ctx->run, ctx->filter, &c, &j);
	if (ret == 0) {
		pa_json_key_array(j, "rows");
		for (size_t i = 0; i < r.nrows; i++)
			pa_ranks_json_row(j, &r.rows[i]);
		pa_json_array_end(j);
		pa_json_key_array(j, "jobs");
		for (size_t first = 0; first < r.nrows;) {
			struct pa_ranks_job job;

			pa_ranks_job(&r, first, &job);
			pa_ranks_json_job(j, &r, &job);
			first = job.end;
		}
		pa_json_array_end(j);
		pa_json_key_uint(j, "without_rank", r.without_rank);
		pa_json_key_uint(j, "replaced_by_exec", r.replaced);
		pa_json_key_uint(j, "replaced_by_rank", r.replaced_by_rank);
		pa_json_key(j, "wall_event");
		pa_json_bool(j, r.wall);
		ret = pa_jsondoc_end(j);
	}
	pa_ranks_release(&r);
	return ret;
}

const struct pa_report pa_report_ranks = {
	.name = "ranks",
	.usage = "DIR [OPTIONS]",
	.help = "One row per MPI rank (per job): samples, those in the MPI\n"
		"library (MPI_/PMPI_ functions, libmpi*, Open MPI's\n"
		"libraries and components), the rest (COMPUTE), CPU time;\n"
		"per job the imbalance (the slowest rank's compute over the\n"
		"mean) and 'N of M ranks have no profile' when ranks of the\n"
		"world size are missing.\n",
	.use = PA_EVENTS_SAMPLES,
	.needs = PA_REPORT_NEEDS_SAMPLES,
	.write = pa_report_ranks_write,
	.write_json = pa_report_ranks_write_json,
};
