/* One line on stderr; see warn.h. */
#include "warn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PP_WARN_PREFIX "libpprof: "
/* Bytes of one line, newline included; kept small: threads' stacks may be. */
#define PP_WARN_LINE_MAX 1024
/* A longer message keeps this much of its start and of its end. */
#define PP_WARN_KEEP 480
#define PP_WARN_ELLIPSIS " [...] "

static void pp_warn_write(const char *msg, size_t len)
{
	char line[PP_WARN_LINE_MAX];
	size_t plen = strlen(PP_WARN_PREFIX), elen = strlen(PP_WARN_ELLIPSIS), n = plen;

	memcpy(line, PP_WARN_PREFIX, plen);
	if (plen + len + 1 <= sizeof(line)) {
		memcpy(line + n, msg, len);
		n += len;
	} else {
		/* A long path in the middle must not cut off the reason at the end. */
		memcpy(line + n, msg, PP_WARN_KEEP);
		n += PP_WARN_KEEP;
		memcpy(line + n, PP_WARN_ELLIPSIS, elen);
		n += elen;
		memcpy(line + n, msg + len - PP_WARN_KEEP, PP_WARN_KEEP);
		n += PP_WARN_KEEP;
	}
	line[n++] = '\n';
	(void)!write(STDERR_FILENO, line, n);
}

void pp_warn_v(const char *fmt, va_list ap)
{
	char msg[PP_WARN_LINE_MAX], *big;
	va_list again;
	int len;

	va_copy(again, ap);
	len = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (len >= 0 && (size_t)len < sizeof(msg)) {
		pp_warn_write(msg, (size_t)len);
	} else if (len >= 0 && (big = malloc((size_t)len + 1)) != NULL) {
		vsnprintf(big, (size_t)len + 1, fmt, again);
		pp_warn_write(big, (size_t)len);
		free(big);
	} else if (len >= 0) {
		pp_warn_write(msg, sizeof(msg) - 1);
	}
	va_end(again);
}

void pp_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pp_warn_v(fmt, ap);
	va_end(ap);
}
