/* The process log: a log file (sigsafe/logfile.h) behind a mutex. */
#include "proclog.h"

#include <pthread.h>

#include "pprof/format.h"
#include "sigsafe/logfile.h"

static pthread_mutex_t pp_proclog_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct pp_logfile pp_proclog = { .fd = -1 };

int pp_proclog_create(int dirfd, const char *name)
{
	return pp_logfile_create_sigsafe(&pp_proclog, dirfd, name, PPF_FILE_PROCESS);
}

struct pp_logfile *pp_proclog_hold(void)
{
	pthread_mutex_lock(&pp_proclog_mutex);
	return &pp_proclog;
}

void pp_proclog_release(void)
{
	pthread_mutex_unlock(&pp_proclog_mutex);
}

void pp_proclog_forget(void)
{
	/* In a fork child the lock may have been held by a thread now gone. */
	pthread_mutex_init(&pp_proclog_mutex, NULL);
	pp_logfile_forget_sigsafe(&pp_proclog);
}
