/* The process log: a log file (logfile.h) behind a mutex. */
#include "proclog.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pprof/format.h"
#include "sigsafe/logfile.h"

static pthread_mutex_t pp_proclog_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct pp_logfile pp_proclog = { .fd = -1 };

int pp_proclog_create(int dirfd)
{
	return pp_logfile_create_sigsafe(&pp_proclog, dirfd, PPF_PROCESS_LOG,
					 PPF_FILE_PROCESS);
}

int pp_proclog_append(const void *rec, uint32_t size)
{
	int err;

	pthread_mutex_lock(&pp_proclog_mutex);
	err = pp_logfile_append_sigsafe(&pp_proclog, rec, size);
	pthread_mutex_unlock(&pp_proclog_mutex);
	return err;
}

int pp_proclog_append_var(void *fixed, uint32_t fixed_size, const void *a,
			  uint32_t a_len, const void *b, uint32_t b_len)
{
	uint64_t total = (uint64_t)fixed_size + a_len + b_len;
	struct ppf_record *h = fixed;
	uint8_t *rec;
	int err;

	if (total > PPF_RECORD_MAX - PPF_RECORD_ALIGN)
		return -E2BIG;
	h->size = ppf_align((uint32_t)total);
	rec = calloc(1, h->size);
	if (!rec)
		return -ENOMEM;
	memcpy(rec, fixed, fixed_size);
	if (a_len)
		memcpy(rec + fixed_size, a, a_len);
	if (b_len)
		memcpy(rec + fixed_size + a_len, b, b_len);
	err = pp_proclog_append(rec, h->size);
	free(rec);
	return err;
}

int pp_proclog_close(const void *end, uint32_t size)
{
	int err;

	pthread_mutex_lock(&pp_proclog_mutex);
	pp_logfile_closing_sigsafe(&pp_proclog);
	err = pp_logfile_append_sigsafe(&pp_proclog, end, size);
	pp_logfile_close_sigsafe(&pp_proclog);
	pthread_mutex_unlock(&pp_proclog_mutex);
	return err;
}

void pp_proclog_forget(void)
{
	/* In a fork child the lock may have been held by a thread now gone. */
	pthread_mutex_init(&pp_proclog_mutex, NULL);
	pp_logfile_forget_sigsafe(&pp_proclog);
}
