/* sigev: SIGEV_THREAD notifications' threads sampled; see sigev.h. */
#include "sigev.h"

#include <errno.h>
#include <mqueue.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "masks.h"
#include "nextsym.h"
#include "process.h"
#include "thread.h"

#define PP_EXPORT __attribute__((visibility("default")))
/* Deleted timers' calls kept (sigev.h). */
#define PP_SIGEV_RETIRED 1024

typedef int (*pp_timer_create_fn)(clockid_t, struct sigevent *, timer_t *);
typedef int (*pp_timer_delete_fn)(timer_t);
typedef int (*pp_mq_notify_fn)(mqd_t, const struct sigevent *);

static struct {
	pp_timer_create_fn timer_create;
	pp_timer_delete_fn timer_delete;
	pp_mq_notify_fn mq_notify;
	int resolved;
} pp_sigev_real;

static const struct pp_nextsym pp_sigev_syms[] = {
	{ "timer_create", (void **)&pp_sigev_real.timer_create },
	{ "timer_delete", (void **)&pp_sigev_real.timer_delete },
	{ "mq_notify", (void **)&pp_sigev_real.mq_notify },
};

/* The program's function and value for one timer or registration. */
struct pp_sigev_call {
	void (*fn)(union sigval);
	union sigval value;
	int once;                  /* mq_notify's: freed by its notification */
	timer_t timer;             /* timer_create's */
	struct pp_sigev_call *next; /* among the live timers' */
};

static struct {
	pthread_mutex_t lock;
	struct pp_sigev_call *live;
	struct pp_sigev_call *retired[PP_SIGEV_RETIRED];
	unsigned next_retired;
} pp_sigev = { .lock = PTHREAD_MUTEX_INITIALIZER };

void pp_sigev_resolve(void)
{
	pp_nextsym_resolve(pp_sigev_syms, sizeof(pp_sigev_syms) / sizeof(pp_sigev_syms[0]),
			   &pp_sigev_real.resolved);
}

/* The notification's thread, made by glibc with every signal blocked. */
static void pp_sigev_thread(union sigval v)
{
	struct pp_sigev_call *c = v.sival_ptr;
	void (*fn)(union sigval) = c->fn;
	union sigval value = c->value;

	if (c->once)
		free(c);
	pp_thread_begin(0);
	/* The app's view: glibc's mask, every signal blocked. */
	pp_masks_thread_start(1);
	fn(value);
}

/*
 * A copy of sev (a SIGEV_THREAD notification) into ours that calls
 * pp_sigev_thread, and its call; NULL (nothing to change) when profiling
 * is off or memory is short.
 */
static struct pp_sigev_call *pp_sigev_wrap(const struct sigevent *sev, struct sigevent *ours,
					   int once)
{
	struct pp_sigev_call *c;

	if (!sev || sev->sigev_notify != SIGEV_THREAD || !sev->sigev_notify_function ||
	    !pp_process_active())
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->fn = sev->sigev_notify_function;
	c->value = sev->sigev_value;
	c->once = once;
	*ours = *sev;
	ours->sigev_notify_function = pp_sigev_thread;
	ours->sigev_value.sival_ptr = c;
	return c;
}

PP_EXPORT int timer_create(clockid_t clock, struct sigevent *sev, timer_t *timer)
{
	struct sigevent ours;
	struct pp_sigev_call *c;
	int ret, saved;

	pp_sigev_resolve();
	c = pp_sigev_wrap(sev, &ours, 0);
	if (!c)
		return pp_sigev_real.timer_create(clock, sev, timer);
	ret = pp_sigev_real.timer_create(clock, &ours, timer);
	if (ret != 0) {
		saved = errno;
		free(c);
		errno = saved;
		return ret;
	}
	c->timer = *timer;
	pthread_mutex_lock(&pp_sigev.lock);
	c->next = pp_sigev.live;
	pp_sigev.live = c;
	pthread_mutex_unlock(&pp_sigev.lock);
	return 0;
}

PP_EXPORT int timer_delete(timer_t timer)
{
	struct pp_sigev_call **p, *c = NULL, *old;
	int ret;

	pp_sigev_resolve();
	ret = pp_sigev_real.timer_delete(timer);
	if (ret != 0)
		return ret;
	pthread_mutex_lock(&pp_sigev.lock);
	for (p = &pp_sigev.live; *p; p = &(*p)->next) {
		if ((*p)->timer == timer) {
			c = *p;
			*p = c->next;
			break;
		}
	}
	old = NULL;
	if (c) {
		unsigned i = pp_sigev.next_retired++ % PP_SIGEV_RETIRED;

		old = pp_sigev.retired[i];
		pp_sigev.retired[i] = c;
	}
	pthread_mutex_unlock(&pp_sigev.lock);
	free(old);
	return 0;
}

PP_EXPORT int mq_notify(mqd_t mq, const struct sigevent *sev)
{
	struct sigevent ours;
	struct pp_sigev_call *c;
	int ret, saved;

	pp_sigev_resolve();
	c = pp_sigev_wrap(sev, &ours, 1);
	if (!c)
		return pp_sigev_real.mq_notify(mq, sev);
	ret = pp_sigev_real.mq_notify(mq, &ours);
	if (ret != 0) {
		saved = errno;
		free(c);
		errno = saved;
	}
	return ret;
}
