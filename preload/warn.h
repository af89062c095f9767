/*
 * warn: the preload's one kind of message, a line on stderr that starts
 * with "libpprof: ". Not for signal context.
 */
#ifndef PP_WARN_H
#define PP_WARN_H

#include <stdarg.h>

/* Writes "libpprof: " + fmt + "\n" to stderr in one write. */
__attribute__((format(printf, 1, 2)))
void pp_warn(const char *fmt, ...);

/* pp_warn with a va_list. */
__attribute__((format(printf, 1, 0)))
void pp_warn_v(const char *fmt, va_list ap);

#endif
