/*
 * A thread's table of the stacks its log holds; see stacks.h. Open
 * addressing on the stack's hash with linear probing, bounded: an entry is
 * free when its generation is not the table's, so that starting again is
 * one increment, not a 64 KiB clear (a fresh mapping reads as generation 0,
 * all free).
 */
#include "stacks.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

/* xxhash's XXH3, compiled in from its header: computation only, no calls. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "logfile.h"
#include "pprof/format.h"
#include "records.h"

#define PP_STACKS_ENTRIES (PP_STACKS_TABLE_BYTES / sizeof(struct pp_stacks_entry))
/* Entries a lookup looks at, at most: past them the table starts again. */
#define PP_STACKS_PROBES 32u
/* A thread whose table could not be mapped: its samples keep their whole stacks. */
#define PP_STACKS_NONE ((struct pp_stacks *)(uintptr_t)-1)

struct pp_stacks_entry {
	uint64_t hash;
	uint32_t id;
	uint32_t gen;
};

struct pp_stacks {
	uint32_t gen;     /* entries of other generations are free */
	uint32_t used;    /* entries of this generation */
	uint32_t next_id; /* the id of the log's next PPF_REC_STACK */
	uint32_t last_n;  /* frames of the stack written last; 0: none yet */
	uint32_t last_id;
	uint32_t reserved;
	uint64_t last[PPF_MAX_FRAMES];
	struct pp_stacks_entry e[PP_STACKS_TABLE_BYTES / 16];
};

_Static_assert(sizeof(struct pp_stacks_entry) == 16, "pp_stacks_entry");
_Static_assert((PP_STACKS_ENTRIES & (PP_STACKS_ENTRIES - 1)) == 0,
	       "PP_STACKS_ENTRIES is a power of two");
_Static_assert(PP_STACKS_FULL < PP_STACKS_ENTRIES, "PP_STACKS_FULL leaves free entries");
_Static_assert(sizeof(struct pp_stacks) <= PP_STACKS_MAP_BYTES, "PP_STACKS_MAP_BYTES");

/* Runs in signal context. */
void pp_stacks_init_sigsafe(struct pp_stacks **st)
{
	*st = NULL;
}

/* Runs in signal context. */
void pp_stacks_release_sigsafe(struct pp_stacks **st)
{
	if (*st && *st != PP_STACKS_NONE)
		munmap(*st, PP_STACKS_MAP_BYTES);
	*st = NULL;
}

/*
 * Runs in signal context. *st's table, made on its first use (its pages
 * are zero, and touched only where stacks land: generation 0 is free);
 * NULL when it cannot be.
 */
static struct pp_stacks *pp_stacks_map_sigsafe(struct pp_stacks **st)
{
	void *p;

	if (*st)
		return *st != PP_STACKS_NONE ? *st : NULL;
	p = mmap(NULL, PP_STACKS_MAP_BYTES, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		*st = PP_STACKS_NONE;
		return NULL;
	}
	*st = p;
	(*st)->gen = 1;
	return *st;
}

/* Runs in signal context. Empties the table: one more generation. */
static void pp_stacks_restart_sigsafe(struct pp_stacks *st)
{
	st->used = 0;
	if (++st->gen != 0)
		return;
	/* 2^32 fillings later: entries of generation 0 would look free and current. */
	for (unsigned i = 0; i < PP_STACKS_ENTRIES; i++)
		st->e[i].gen = 0;
	st->gen = 1;
}

/*
 * Runs in signal context. The entry for hash: its own (gen current), or
 * the free one it goes into (gen not current); NULL when none within
 * PP_STACKS_PROBES.
 */
static struct pp_stacks_entry *pp_stacks_find_sigsafe(struct pp_stacks *st, uint64_t hash)
{
	for (unsigned i = 0; i < PP_STACKS_PROBES; i++) {
		struct pp_stacks_entry *e = &st->e[(hash + i) & (PP_STACKS_ENTRIES - 1)];

		if (e->gen != st->gen || e->hash == hash)
			return e;
	}
	return NULL;
}

/*
 * Runs in signal context. Writes stack ips (n frames) with its first
 * sample, at, as the log's stack number st->next_id, without the outermost
 * frames it shares with the stack written last, and keeps it as the last.
 */
static int pp_stacks_put_sigsafe(struct pp_stacks *st, struct pp_logfile *log,
				 const uint64_t *ips, unsigned n, const struct pp_records_at *at)
{
	unsigned shared = 0;
	int err;

	while (shared < n && shared < st->last_n &&
	       ips[n - 1 - shared] == st->last[st->last_n - 1 - shared])
		shared++;
	err = pp_records_stack_sample_sigsafe(log, st->next_id, ips, n, st->last_id, shared, at);
	if (err)
		return err;
	memcpy(st->last, ips, n * sizeof(*ips));
	st->last_n = n;
	st->last_id = st->next_id;
	return 0;
}

/*
 * Runs in signal context. Writes the sample at of stack ips (n frames) in
 * log: an entry of a sample block when the table knows the stack, else a
 * new PPF_REC_STACK_SAMPLE. Returns 0, or a negative errno when nothing
 * could be written.
 */
static int pp_stacks_sample_sigsafe(struct pp_stacks *st, struct pp_logfile *log,
				    const uint64_t *ips, unsigned n,
				    const struct pp_records_at *at)
{
	uint64_t hash = XXH3_64bits(ips, n * sizeof(*ips));
	struct pp_stacks_entry *e = pp_stacks_find_sigsafe(st, hash);
	int err;

	if (e && e->gen == st->gen)
		return pp_records_block_entry_sigsafe(log, e->id, at->time_ns, at->event,
						      at->flags);
	if (!e || st->used >= PP_STACKS_FULL) {
		pp_stacks_restart_sigsafe(st);
		e = pp_stacks_find_sigsafe(st, hash);
	}
	err = pp_stacks_put_sigsafe(st, log, ips, n, at);
	if (err)
		return err;
	e->hash = hash;
	e->id = st->next_id++;
	e->gen = st->gen;
	st->used++;
	return 0;
}

/* Runs in signal context. */
int pp_stacks_write_sigsafe(struct pp_stacks **st, struct pp_logfile *log,
			    const uint64_t *ips, unsigned n, uint64_t now,
			    unsigned event, uint16_t flags, int whole)
{
	const struct pp_records_at at = { .time_ns = now, .event = event, .flags = flags };
	struct pp_stacks *t;

	/* A thread that runs unsampled has no log, and must not get a table either. */
	if (!pp_logfile_takes_records_sigsafe(log))
		return -ENOSPC;
	if (whole || !(t = pp_stacks_map_sigsafe(st)))
		return pp_records_sample_sigsafe(log, ips, n, now, event, flags);
	return pp_stacks_sample_sigsafe(t, log, ips, n, &at);
}
