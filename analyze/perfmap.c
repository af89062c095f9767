/* perfmap: JIT code's names from perf map files; see perfmap.h. */
#include "perfmap.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <pprof/format.h>

#include "grow.h"
#include "ident.h"
#include "regfile.h"
#include "textsafe.h"

/* A name longer than this is cut (a line is one name: nothing is lost but its tail). */
#define PA_PERFMAP_NAME_MAX 1024
/* A process without END: how long after its last record its map may still be written. */
#define PA_PERFMAP_AFTER_NS 10000000000ull
/* The map may be written a little before the process's recorded start (clocks). */
#define PA_PERFMAP_SLACK_NS 1000000000ull

struct pa_perfmap_line {
	struct pa_perfmap_entry e;
	size_t seq; /* line order */
};

/* [start, end) of the address space, named by line v[line]. */
struct pa_perfmap_seg {
	uint64_t start, end;
	size_t line;
};

struct pa_perfmap {
	struct pa_perfmap_line *v;
	size_t n, cap;
	struct pa_perfmap_seg *segs; /* disjoint, by start */
	size_t nsegs, segs_cap;
};

static int pa_perfmap_cmp(const void *a, const void *b)
{
	const struct pa_perfmap_line *x = a, *y = b;

	if (x->e.start != y->e.start)
		return x->e.start < y->e.start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* This machine's host name and boot id, read once for the whole analyzer. */
static struct {
	pthread_once_t once;
	bool host_ok, boot_ok;
	char host[sizeof(((struct utsname *)0)->nodename)];
	uint8_t boot[16];
} pa_perfmap_self = { .once = PTHREAD_ONCE_INIT };

static void pa_perfmap_self_read(void)
{
	struct utsname u;
	char buf[64];
	int fd = open(PPF_BOOT_ID_PATH, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;

	if (fd >= 0)
		close(fd);
	pa_perfmap_self.boot_ok = ppf_boot_id_parse(buf, n > 0 ? (size_t)n : 0,
						    pa_perfmap_self.boot);
	if (uname(&u) == 0) {
		memcpy(pa_perfmap_self.host, u.nodename, sizeof(pa_perfmap_self.host));
		pa_perfmap_self.host_ok = true;
	}
}

/* Whether proc ran on this machine since its last boot, so that its pid is still its own. */
static bool pa_perfmap_here(const struct pa_process *proc)
{
	static const uint8_t zero[16];

	if (!proc->id.known || !proc->id.host)
		return false;
	pthread_once(&pa_perfmap_self.once, pa_perfmap_self_read);
	if (!pa_perfmap_self.host_ok || strcmp(pa_perfmap_self.host, proc->id.host) != 0)
		return false;
	if (memcmp(proc->id.boot_id, zero, sizeof(zero)) == 0)
		return true;
	return pa_perfmap_self.boot_ok &&
	       memcmp(pa_perfmap_self.boot, proc->id.boot_id, sizeof(zero)) == 0;
}

/* A hex number after blanks at *p (0x or not), up to a blank; advances *p. */
static bool pa_perfmap_hex(char **p, uint64_t *v)
{
	char *q = *p, *end;

	while (*q == ' ' || *q == '\t')
		q++;
	if (!((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f') || (*q >= 'A' && *q <= 'F')))
		return false;
	errno = 0;
	*v = strtoull(q, &end, 16);
	if (end == q || errno || (*end != ' ' && *end != '\t'))
		return false;
	*p = end;
	return true;
}

/*
 * Parses one line into *e (name pointing into line, cut and cleaned).
 * Returns 1 for a piece of code, 0 for a line of nothing (blank, size 0),
 * -1 for a line that is not START SIZE NAME.
 */
static int pa_perfmap_parse(char *line, struct pa_perfmap_entry *e)
{
	char *p = line + strspn(line, " \t");
	uint64_t start, size;
	size_t len;

	if (*p == '\n' || *p == '\0')
		return 0;
	if (!pa_perfmap_hex(&p, &start) || !pa_perfmap_hex(&p, &size))
		return -1;
	p++;
	len = strcspn(p, "\n");
	if (len == 0 || size > UINT64_MAX - start)
		return -1;
	if (len > PA_PERFMAP_NAME_MAX)
		len = PA_PERFMAP_NAME_MAX;
	p[len] = '\0';
	pa_text_clean(p, len, false);
	if (size == 0)
		return 0;
	*e = (struct pa_perfmap_entry){ .start = start, .end = start + size, .name = p };
	return 1;
}

/* Reads the lines of f (path names it) into map. Returns 0 or -ENOMEM. */
static int pa_perfmap_read(struct pa_perfmap *map, FILE *f, const char *path,
			   struct pa_warnings *warn)
{
	char *line = NULL;
	size_t cap = 0, lineno = 0, bad = 0, first_bad = 0;
	ssize_t len;
	int ret = 0;

	while ((len = getline(&line, &cap, f)) >= 0) {
		struct pa_perfmap_entry e;
		int r;

		lineno++;
		r = pa_perfmap_parse(line, &e);
		if (r < 0 && !bad++)
			first_bad = lineno;
		if (r <= 0)
			continue;
		if (pa_grow((void **)&map->v, &map->cap, map->n, sizeof(*map->v)) < 0 ||
		    !(e.name = strdup(e.name))) {
			ret = -ENOMEM;
			break;
		}
		map->v[map->n++] = (struct pa_perfmap_line){ .e = e, .seq = lineno };
	}
	free(line);
	if (ret == 0 && ferror(f))
		ret = pa_warnings_add(warn, path, false, 0, "cannot read the JIT's perf map: %s; "
				      "its code after line %zu is [unknown]", strerror(errno), lineno);
	if (ret == 0 && bad)
		ret = pa_warnings_add(warn, path, false, 0, "line %zu is not \"START SIZE NAME\" "
				      "(%zu such lines skipped)", first_bad, bad);
	return ret;
}

/*
 * When proc was last known to run (monotonic ns): its END's time, else the
 * latest of its threads' last records, with PA_PERFMAP_AFTER_NS more (a
 * killed process may have run on a while without a record); 0 if unknown.
 */
static uint64_t pa_perfmap_last_seen(const struct pa_process *proc, uint64_t *slack)
{
	uint64_t last = 0;

	*slack = PA_PERFMAP_SLACK_NS;
	if (proc->ended)
		return proc->end_ns;
	for (size_t i = 0; i < proc->nthreads; i++) {
		const struct pa_thread *t = proc->threads[i];

		if (t->progress_ns > last)
			last = t->progress_ns;
		if (t->ended && t->end_ns > last)
			last = t->end_ns;
		if (t->nsamples && t->samples[t->nsamples - 1].time_ns > last)
			last = t->samples[t->nsamples - 1].time_ns;
	}
	*slack = PA_PERFMAP_AFTER_NS;
	return last;
}

/* Whether st's last write fell while proc ran (pa_perfmap_last_seen's end). */
static bool pa_perfmap_in_life(const struct pa_process *proc, const struct stat *st)
{
	uint64_t mtime = pa_regfile_mtime_ns(st);
	uint64_t slack, last = pa_perfmap_last_seen(proc, &slack);
	uint64_t end = last ? pa_ident_realtime(proc, last) : 0;

	if (proc->start_realtime_ns && mtime + PA_PERFMAP_SLACK_NS < proc->start_realtime_ns)
		return false;
	return !end || mtime <= end + slack;
}

/*
 * Opens the map at path: the run's own copy (trusted as the logs are), or
 * /tmp's (checked as perfmap.h says). Returns a descriptor with *st
 * filled; -ENOENT when there is none to read (or it was warned about);
 * -ENOMEM.
 */
static int pa_perfmap_open(const struct pa_process *proc, const char *path, bool run_copy,
			   struct stat *st, struct pa_warnings *warn)
{
	struct pa_error err = { 0 };
	int fd = pa_regfile_open(path, O_NOFOLLOW, st, &err);

	if (fd < 0) {
		if (fd != -ENOENT && pa_warnings_add(warn, path, false, 0, "%s; the JIT's code "
						     "is [unknown]", err.reason) < 0)
			return -ENOMEM;
		return -ENOENT;
	}
	if (!run_copy && ((st->st_uid != geteuid() && st->st_uid != 0) ||
			  !pa_perfmap_in_life(proc, st))) {
		close(fd);
		return -ENOENT;
	}
	return fd;
}

/* Sorts map's lines and keeps one per start, the last line's. */
static void pa_perfmap_index(struct pa_perfmap *map)
{
	size_t k = 0;

	qsort(map->v, map->n, sizeof(*map->v), pa_perfmap_cmp);
	for (size_t i = 0; i < map->n; i++) {
		if (k && map->v[k - 1].e.start == map->v[i].e.start) {
			free((char *)map->v[k - 1].e.name);
			map->v[k - 1] = map->v[i];
		} else {
			map->v[k++] = map->v[i];
		}
	}
	map->n = k;
}

/* Appends [start, end) named by line to map's segments. Returns 0 or -ENOMEM. */
static int pa_perfmap_seg_add(struct pa_perfmap *map, uint64_t start, uint64_t end, size_t line)
{
	if (start >= end)
		return 0;
	if (pa_grow((void **)&map->segs, &map->segs_cap, map->nsegs, sizeof(*map->segs)) < 0)
		return -ENOMEM;
	map->segs[map->nsegs++] = (struct pa_perfmap_seg){ .start = start, .end = end, .line = line };
	return 0;
}

/*
 * Cuts the address space into map's segments, each named by the piece that
 * holds it and starts nearest below (lines sorted by start): a stack of the
 * pieces open, in start order, whose top names what comes next until it
 * ends. Returns 0 or -ENOMEM.
 */
static int pa_perfmap_segments(struct pa_perfmap *map)
{
	size_t *stack = malloc(map->n * sizeof(*stack)), depth = 0;
	uint64_t pos = 0;
	int ret = stack ? 0 : -ENOMEM;

	for (size_t i = 0; ret == 0 && i <= map->n; i++) {
		uint64_t limit = i < map->n ? map->v[i].e.start : UINT64_MAX;

		/* What the open pieces name up to the next one's start. */
		while (ret == 0 && depth) {
			const struct pa_perfmap_entry *top = &map->v[stack[depth - 1]].e;

			if (top->end <= pos) {
				depth--;
				continue;
			}
			ret = pa_perfmap_seg_add(map, pos, top->end < limit ? top->end : limit,
						 stack[depth - 1]);
			if (top->end > limit)
				break;
			pos = top->end;
			depth--;
		}
		if (i < map->n) {
			pos = limit;
			stack[depth++] = i;
		}
	}
	free(stack);
	return ret;
}

/*
 * Which map to read: the run's copy, unless /tmp's (when it may be read)
 * is longer: the copy was made as the process ended, before the C
 * library wrote out what a JIT still held in its stdio buffer.
 */
static int pa_perfmap_pick(const struct pa_process *proc, const char *copy, char *tmp,
			   size_t tmp_size, const char **path, struct pa_warnings *warn)
{
	struct stat cst, tst;
	int cfd = pa_perfmap_open(proc, copy, true, &cst, warn), tfd = -ENOENT;

	*path = copy;
	if (cfd == -ENOMEM)
		return cfd;
	if (pa_perfmap_here(proc)) {
		snprintf(tmp, tmp_size, "/tmp/perf-%" PRIu32 ".map", proc->pid);
		tfd = pa_perfmap_open(proc, tmp, false, &tst, warn);
	}
	if (tfd == -ENOMEM) {
		if (cfd >= 0)
			close(cfd);
		return -ENOMEM;
	}
	if (tfd < 0 || (cfd >= 0 && tst.st_size <= cst.st_size)) {
		if (tfd >= 0)
			close(tfd);
		return cfd;
	}
	if (cfd >= 0)
		close(cfd);
	*path = tmp;
	return tfd;
}

int pa_perfmap_load(const struct pa_process *proc, struct pa_perfmap **out,
		    struct pa_warnings *warn)
{
	char tmp[64], *copy = pa_process_file(proc, PPF_PERFMAP_FILE);
	const char *path;
	struct pa_perfmap *map = NULL;
	FILE *f = NULL;
	int fd, ret;

	*out = NULL;
	if (!copy)
		return -ENOMEM;
	fd = pa_perfmap_pick(proc, copy, tmp, sizeof(tmp), &path, warn);
	if (fd < 0) {
		free(copy);
		return fd == -ENOMEM ? -ENOMEM : 0;
	}
	f = fdopen(fd, "r");
	if (!f)
		close(fd);
	map = f ? calloc(1, sizeof(*map)) : NULL;
	ret = map ? pa_perfmap_read(map, f, path, warn) : -ENOMEM;
	if (f)
		fclose(f);
	free(copy);
	if (ret < 0) {
		pa_perfmap_free(map);
		return ret;
	}
	pa_perfmap_index(map);
	if (pa_perfmap_segments(map) < 0) {
		pa_perfmap_free(map);
		return -ENOMEM;
	}
	if (!map->n) {
		pa_perfmap_free(map);
		map = NULL;
	}
	*out = map;
	return 0;
}

const struct pa_perfmap_entry *pa_perfmap_find(const struct pa_perfmap *map, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!map)
		return NULL;
	/* The first segment starting above addr. */
	hi = map->nsegs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (map->segs[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < map->segs[lo - 1].end)
		return &map->v[map->segs[lo - 1].line].e;
	return NULL;
}

void pa_perfmap_free(struct pa_perfmap *map)
{
	if (!map)
		return;
	for (size_t i = 0; i < map->n; i++)
		free((char *)map->v[i].e.name);
	free(map->v);
	free(map->segs);
	free(map);
}
