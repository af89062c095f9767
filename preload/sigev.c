/* sigev: SIGEV_THREAD notifications' threads sampled; see sigev.h. */
#include "sigev.h"

#include <errno.h>
#include <mqueue.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "hooks.h"
#include "masks.h"
#include "nextsym.h"
#include "process.h"
#include "thread.h"

#define PP_EXPORT __attribute__((visibility("default")))
/* Buckets of the table of calls. */
#define PP_SIGEV_BUCKETS 256

typedef int (*pp_timer_create_fn)(clockid_t, struct sigevent *, timer_t *);
typedef int (*pp_mq_notify_fn)(mqd_t, const struct sigevent *);

static struct {
	pp_timer_create_fn timer_create;
	pp_mq_notify_fn mq_notify;
	int resolved;
} pp_sigev_real;

static const struct pp_nextsym pp_sigev_syms[] = {
	{ "timer_create", (void **)&pp_sigev_real.timer_create },
	{ "mq_notify", (void **)&pp_sigev_real.mq_notify },
};

/*
 * The program's function and value of notifications: one per distinct
 * pair, never changed nor freed (sigev.h).
 */
struct pp_sigev_call {
	void (*fn)(union sigval);
	union sigval value;
	struct pp_sigev_call *next; /* in its bucket */
};

static struct {
	pthread_mutex_t lock; /* adding; a bucket's head is published last */
	struct pp_sigev_call *buckets[PP_SIGEV_BUCKETS];
} pp_sigev = { .lock = PTHREAD_MUTEX_INITIALIZER };

void pp_sigev_resolve(void)
{
	pp_nextsym_resolve(pp_sigev_syms, sizeof(pp_sigev_syms) / sizeof(pp_sigev_syms[0]),
			   &pp_sigev_real.resolved);
}

void pp_sigev_fork_child(void)
{
	/* A thread of the parent may have held it at the fork. */
	pthread_mutex_init(&pp_sigev.lock, NULL);
}

/* The notification's thread, made by glibc with a mask of its own choosing. */
static void pp_sigev_thread(union sigval v)
{
	const struct pp_sigev_call *c = v.sival_ptr;
	/* glibc's mask (a timer's: every signal; mq_notify's: none), the app's view. */
	int blocked = pp_hooks_signal_blocked();

	pp_thread_begin(0);
	pp_masks_thread_start(blocked);
	c->fn(c->value);
}

static unsigned pp_sigev_bucket(void (*fn)(union sigval), union sigval value)
{
	uint64_t h = (uint64_t)(uintptr_t)fn * 0x9e3779b97f4a7c15ull ^
		     (uint64_t)(uintptr_t)value.sival_ptr * 0xc2b2ae3d27d4eb4full;

	return (unsigned)(h >> 56) % PP_SIGEV_BUCKETS;
}

/* The call of (fn, value), made when new; NULL when memory is short. */
static const struct pp_sigev_call *pp_sigev_call_of(void (*fn)(union sigval), union sigval value)
{
	unsigned b = pp_sigev_bucket(fn, value);
	struct pp_sigev_call *c;

	pthread_mutex_lock(&pp_sigev.lock);
	for (c = pp_sigev.buckets[b]; c; c = c->next)
		if (c->fn == fn && c->value.sival_ptr == value.sival_ptr)
			break;
	if (!c && (c = malloc(sizeof(*c))) != NULL) {
		*c = (struct pp_sigev_call){ .fn = fn, .value = value, .next = pp_sigev.buckets[b] };
		__atomic_store_n(&pp_sigev.buckets[b], c, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&pp_sigev.lock);
	return c;
}

/*
 * A copy of sev (a SIGEV_THREAD notification) into ours that calls
 * pp_sigev_thread with its call; 0 (nothing to change) when profiling is
 * off or memory is short.
 */
static int pp_sigev_wrap(const struct sigevent *sev, struct sigevent *ours)
{
	const struct pp_sigev_call *c;
	int saved = errno;

	if (!sev || sev->sigev_notify != SIGEV_THREAD || !sev->sigev_notify_function ||
	    !pp_process_active())
		return 0;
	c = pp_sigev_call_of(sev->sigev_notify_function, sev->sigev_value);
	errno = saved;
	if (!c)
		return 0;
	*ours = *sev;
	ours->sigev_notify_function = pp_sigev_thread;
	ours->sigev_value.sival_ptr = (void *)c;
	return 1;
}

PP_EXPORT int timer_create(clockid_t clock, struct sigevent *sev, timer_t *timer)
{
	struct sigevent ours;

	pp_sigev_resolve();
	if (!pp_sigev_wrap(sev, &ours))
		return pp_sigev_real.timer_create(clock, sev, timer);
	return pp_sigev_real.timer_create(clock, &ours, timer);
}

PP_EXPORT int mq_notify(mqd_t mq, const struct sigevent *sev)
{
	struct sigevent ours;

	pp_sigev_resolve();
	if (!pp_sigev_wrap(sev, &ours))
		return pp_sigev_real.mq_notify(mq, sev);
	return pp_sigev_real.mq_notify(mq, &ours);
}
