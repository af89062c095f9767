/* openguard: libdw's opens, regular files only; see openguard.h. */
#undef _FORTIFY_SOURCE /* its inline open() would clash with the one defined here */
#include "openguard.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>

#include "regfile.h"

static pthread_mutex_t pa_openguard_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pa_warnings pa_openguard_refused;

/* Remembers why path was refused, once per path. */
static void pa_openguard_note(const struct pa_error *why)
{
	pthread_mutex_lock(&pa_openguard_lock);
	for (size_t i = 0; i < pa_openguard_refused.n; i++)
		if (strcmp(pa_openguard_refused.v[i].path, why->path) == 0)
			goto out_unlock;
	pa_warnings_add(&pa_openguard_refused, why->path, false, 0,
			"%s; skipped in the search for debug information", why->reason);
out_unlock:
	pthread_mutex_unlock(&pa_openguard_lock);
}

void pa_openguard_take(struct pa_warnings *warn)
{
	pthread_mutex_lock(&pa_openguard_lock);
	for (size_t i = 0; i < pa_openguard_refused.n; i++)
		pa_warnings_add(warn, pa_openguard_refused.v[i].path, false, 0, "%s",
				pa_openguard_refused.v[i].reason);
	pa_warnings_release(&pa_openguard_refused);
	pthread_mutex_unlock(&pa_openguard_lock);
}

/* A read-only open of a file that is not a directory, nor made by the call. */
static bool pa_openguard_reads(int flags)
{
	return (flags & O_ACCMODE) == O_RDONLY &&
	       !(flags & (O_PATH | O_DIRECTORY | O_CREAT | O_TMPFILE));
}

/* Whether the call passed a mode (open(2): with O_CREAT or O_TMPFILE). */
static bool pa_openguard_has_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

int open(const char *path, int flags, ...)
{
	struct pa_error why;
	mode_t mode = 0;
	int fd;

	if (!pa_openguard_reads(flags)) {
		if (pa_openguard_has_mode(flags)) {
			va_list ap;

			va_start(ap, flags);
			mode = va_arg(ap, mode_t);
			va_end(ap);
		}
		return openat(AT_FDCWD, path, flags, mode);
	}
	fd = pa_regfile_open(path, flags, NULL, &why);
	if (fd == PA_REGFILE_NOT_REGULAR) {
		pa_openguard_note(&why);
		fd = -ENOENT;
	}
	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	return fd;
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));
