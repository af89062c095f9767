/* The handler's lock-free copy of the loaded-object list; see dlsnap.h. */
#include "dlsnap.h"

#include <sched.h>

static struct pp_dlsnap *pp_dlsnap_cur;
static int pp_dlsnap_readers;
static __thread int pp_dlsnap_handler __attribute__((tls_model("initial-exec")));

/* Runs in signal context. */
void pp_dlsnap_enter_handler_sigsafe(void)
{
	pp_dlsnap_handler++;
}

/* Runs in signal context. */
void pp_dlsnap_leave_handler_sigsafe(void)
{
	pp_dlsnap_handler--;
}

/* Runs in signal context. */
int pp_dlsnap_in_handler_sigsafe(void)
{
	return pp_dlsnap_handler > 0;
}

/* Runs in signal context. */
int pp_dlsnap_iterate_sigsafe(int (*cb)(struct dl_phdr_info *, size_t, void *),
			      void *data)
{
	struct pp_dlsnap *s;
	int ret = 0;

	__atomic_add_fetch(&pp_dlsnap_readers, 1, __ATOMIC_ACQ_REL);
	s = __atomic_load_n(&pp_dlsnap_cur, __ATOMIC_ACQUIRE);
	for (size_t i = 0; s && i < s->n && ret == 0; i++)
		ret = cb(&s->info[i], sizeof(s->info[i]), data);
	__atomic_sub_fetch(&pp_dlsnap_readers, 1, __ATOMIC_ACQ_REL);
	return ret;
}

struct pp_dlsnap *pp_dlsnap_publish(struct pp_dlsnap *snap)
{
	struct pp_dlsnap *old = __atomic_exchange_n(&pp_dlsnap_cur, snap,
						    __ATOMIC_ACQ_REL);

	/* A handler reads for microseconds; wait for the ones in flight. */
	while (__atomic_load_n(&pp_dlsnap_readers, __ATOMIC_ACQUIRE))
		sched_yield();
	return old;
}
