/* Threads the profiler could not sample; see unsampled.h. */
#include "unsampled.h"

#include "sigsafe/sampler.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "pprof/format.h"
#include "proclog.h"
#include "sigsafe/logfile.h"
#include "sigsafe/records.h"
#include "sigsafe/share.h"
#include "sigsafe/threads.h"
#include "warn.h"

/* Distinct causes remembered per process; more are counted, not told apart. */
#define PP_UNSAMPLED_CAUSES 16

/* One cause: what failed and its errno, packed (0: a free entry). */
struct pp_unsampled_cause {
	uint32_t key;   /* atomic: what << 16 | errno */
	uint64_t count; /* atomic */
};

static struct {
	const char *dir;
	struct pp_unsampled_cause causes[PP_UNSAMPLED_CAUSES];
	uint64_t total;    /* atomic */
} pp_unsampled;

void pp_unsampled_start(const char *dir)
{
	memset(&pp_unsampled, 0, sizeof(pp_unsampled));
	pp_unsampled.dir = dir;
}

uint64_t pp_unsampled_count(void)
{
	return __atomic_load_n(&pp_unsampled.total, __ATOMIC_RELAXED);
}

/* What err means here, after its strerror text ("" when strerror says it all). */
static const char *pp_unsampled_hint(int err)
{
	switch (err) {
	case ENOMEM:
		return " (out of memory, or of address space under RLIMIT_AS)";
	case EMFILE:
		return " (out of descriptors: RLIMIT_NOFILE)";
	case ENFILE:
		return " (the system's file table is full)";
	case EAGAIN:
		return " (locked memory: the program locks its future mappings, RLIMIT_MEMLOCK)";
	case ENOSPC:
	case EDQUOT:
		return " (the disk is full)";
	default:
		return "";
	}
}

/* The profiler's share of resource and that limit, as "N of M". */
static void pp_unsampled_share_text(char *buf, size_t size, int resource)
{
	uint64_t limit = pp_share_limit_sigsafe(resource);

	if (resource == RLIMIT_AS)
		snprintf(buf, size, "1/%d of RLIMIT_AS, %llu of %llu KiB", PP_SHARE_AS_DIV,
			 (unsigned long long)(limit / PP_SHARE_AS_DIV >> 10),
			 (unsigned long long)(limit >> 10));
	else
		snprintf(buf, size, "1/%d of RLIMIT_NOFILE, %llu of %llu descriptors",
			 PP_SHARE_NOFILE_DIV, (unsigned long long)(limit / PP_SHARE_NOFILE_DIV),
			 (unsigned long long)limit);
}

/*
 * What a thread's sampling state would have taken of the limit err names:
 * "420 KiB" of address space (ENOMEM), or "2 descriptors" (EMFILE).
 */
static void pp_unsampled_cost_text(char *buf, size_t size, int err,
				   const struct pp_share_cost *c)
{
	if (!c)
		snprintf(buf, size, "?");
	else if (err == EMFILE)
		snprintf(buf, size, "%u descriptor%s", c->fds, c->fds == 1 ? "" : "s");
	else
		snprintf(buf, size, "%llu KiB%s", (unsigned long long)(c->bytes >> 10),
			 c->bytes >= PP_SHARE_ARENA ? ", with the 64 MiB malloc arena glibc "
			 "reserves when libunwind first runs in a thread that has not "
			 "called malloc" : "");
}

/* The first line about a cause: what failed, why, and what follows. */
static void pp_unsampled_say(int tid, uint32_t what, int err, const struct pp_share_cost *asked)
{
	static const char tail[] = "; threads like it run unsampled too "
				   "(`pprof-analyze threads` lists them)";
	char share[128], cost[192], user[192];

	switch (what) {
	case PPF_UNSAMPLED_SHARE:
		pp_unsampled_share_text(share, sizeof(share),
					err == EMFILE ? RLIMIT_NOFILE : RLIMIT_AS);
		pp_unsampled_cost_text(cost, sizeof(cost), err, asked);
		pp_warn("thread %d runs unsampled: its sampling state (%s) would take "
			"the profiler past its share of the process's %s (%s)%s", tid, cost,
			err == EMFILE ? "descriptors" : "address space", share, tail);
		break;
	case PPF_UNSAMPLED_LOG:
		/* The full disk's own line said it (logfile.h). */
		if ((err == ENOSPC || err == EDQUOT || err == EFBIG) && pp_logfile_full_said_sigsafe())
			break;
		if (err == EACCES)
			snprintf(user, sizeof(user), " (the program runs as uid %u now, who may "
				 "not write there: an output root that user may write, of mode "
				 "1777 say, keeps its threads)", (unsigned)geteuid());
		pp_warn("thread %d runs unsampled: cannot create %s.thread-%d.log: %s%s%s",
			tid, pp_unsampled.dir ? pp_unsampled.dir : ".", tid,
			err == EBADF ? "the program closed the directory's descriptor" :
			strerror(err), err == EACCES ? user : pp_unsampled_hint(err), tail);
		break;
	case PPF_UNSAMPLED_ALTSTACK:
		pp_warn("thread %d runs unsampled: cannot map its alternate signal "
			"stack: %s%s%s", tid, strerror(err), pp_unsampled_hint(err), tail);
		break;
	case PPF_UNSAMPLED_EVENTS:
		pp_warn("thread %d runs unsampled: cannot open its sampling events: "
			"%s%s%s", tid, strerror(err), pp_unsampled_hint(err), tail);
		break;
	default:
		if (err == ENOSPC)
			pp_warn("thread %d runs unsampled: more threads are alive at once "
				"than the profiler's table holds (%d)%s", tid, PP_THREADS_MAX,
				tail);
		else
			pp_warn("thread %d runs unsampled: no slot in the profiler's thread "
				"table: %s%s%s", tid, strerror(err), pp_unsampled_hint(err),
				tail);
		break;
	}
}

/* The entry of cause key, claimed if new; NULL when the table is full. *fresh: claimed now. */
static struct pp_unsampled_cause *pp_unsampled_cause(uint32_t key, int *fresh)
{
	*fresh = 0;
	for (unsigned i = 0; i < PP_UNSAMPLED_CAUSES; i++) {
		struct pp_unsampled_cause *c = &pp_unsampled.causes[i];
		uint32_t cur = __atomic_load_n(&c->key, __ATOMIC_ACQUIRE);

		if (cur == key)
			return c;
		if (cur == 0 && __atomic_compare_exchange_n(&c->key, &cur, key, 0,
							    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			*fresh = 1;
			return c;
		}
		if (cur == key)
			return c;
	}
	return NULL;
}

void pp_unsampled_note(int tid, uint32_t what, int err, const struct pp_share_cost *asked)
{
	struct pp_unsampled_cause *c;
	int fresh;

	pp_records_thread_unsampled_sigsafe(pp_proclog_hold(), tid, what, err);
	pp_proclog_release();
	__atomic_add_fetch(&pp_unsampled.total, 1, __ATOMIC_RELAXED);
	c = pp_unsampled_cause(what << 16 | ((uint32_t)err & 0xffff), &fresh);
	if (c)
		__atomic_add_fetch(&c->count, 1, __ATOMIC_RELAXED);
	if (fresh)
		pp_unsampled_say(tid, what, err, asked);
}

/* One cause, as the summary names it: "3 over the profiler's share of RLIMIT_AS". */
static int pp_unsampled_cause_text(char *buf, size_t size, uint32_t key, uint64_t n)
{
	uint32_t what = key >> 16;
	int err = (int)(key & 0xffff);
	static const char *const names[] = {
		[PPF_UNSAMPLED_LOG] = "without a log",
		[PPF_UNSAMPLED_ALTSTACK] = "without an alternate signal stack",
		[PPF_UNSAMPLED_EVENTS] = "without sampling events",
	};

	if (what == PPF_UNSAMPLED_SHARE)
		return snprintf(buf, size, "%llu over the profiler's share of %s",
				(unsigned long long)n,
				err == EMFILE ? "RLIMIT_NOFILE" : "RLIMIT_AS");
	if (what < sizeof(names) / sizeof(names[0]) && names[what])
		return snprintf(buf, size, "%llu %s (%s)%s", (unsigned long long)n,
				names[what], strerror(err), pp_unsampled_hint(err));
	return snprintf(buf, size, "%llu without a slot in the thread table (%s)%s",
			(unsigned long long)n, strerror(err), pp_unsampled_hint(err));
}

void pp_unsampled_summary(void)
{
	uint64_t total = pp_unsampled_count(), told = 0, noroom = pp_sampler_noroom_sigsafe();
	char causes[768];
	size_t len = 0;

	if (noroom)
		pp_warn("%llu sample%s lost: the stack the handler ran on had less than %u KiB "
			"left (an alternate signal stack of the program's own, or a small "
			"thread stack)", (unsigned long long)noroom, noroom == 1 ? " was" : "s were",
			PP_SAMPLER_STACK_NEED >> 10);
	if (!total)
		return;
	causes[0] = '\0';
	for (unsigned i = 0; i < PP_UNSAMPLED_CAUSES && len < sizeof(causes); i++) {
		const struct pp_unsampled_cause *c = &pp_unsampled.causes[i];
		uint64_t n = __atomic_load_n(&c->count, __ATOMIC_RELAXED);
		int w;

		if (!n)
			continue;
		w = snprintf(causes + len, sizeof(causes) - len, "%s", len ? ", " : "");
		len += (size_t)w;
		if (len < sizeof(causes))
			len += (size_t)pp_unsampled_cause_text(causes + len, sizeof(causes) - len,
							       c->key, n);
		told += n;
	}
	if (len >= sizeof(causes))
		len = sizeof(causes) - 1;
	if (told < total)
		snprintf(causes + len, sizeof(causes) - len, "%s%llu for other reasons",
			 len ? ", " : "", (unsigned long long)(total - told));
	pp_warn("%llu thread%s ran unsampled: %s; `pprof-analyze threads` lists them",
		(unsigned long long)total, total == 1 ? "" : "s", causes);
}
