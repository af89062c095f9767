/*
 * proclog: the process log (process.log), written from ordinary code (the
 * constructor, the dlopen/dlclose hooks, the destructor); each append takes
 * the log's lock.
 * It is a log file (logfile.h) like the thread logs, so a SIGKILL loses nothing written.
 */
#ifndef PP_PROCLOG_H
#define PP_PROCLOG_H

#include <stdint.h>

/* Creates dirfd/process.log. Returns 0 or a negative errno. */
int pp_proclog_create(int dirfd);

/* Appends a whole record (header filled in). Returns 0 or a negative errno. */
int pp_proclog_append(const void *rec, uint32_t size);

/*
 * Appends a record made of a fixed part and up to two trailing byte strings,
 * padded to the record alignment; sets the header's size. The record type
 * must already be in fixed's header.
 */
int pp_proclog_append_var(void *fixed, uint32_t fixed_size, const void *a,
			  uint32_t a_len, const void *b, uint32_t b_len);

/*
 * Appends the END record (header filled in), into the room the log keeps
 * for it when the disk is full, and closes the log.
 */
int pp_proclog_close(const void *end, uint32_t size);

/* Drops the log without writing (a fork child holding its parent's log). */
void pp_proclog_forget(void);

#endif
