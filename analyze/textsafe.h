/*
 * textsafe: names (of threads, programs, functions, modules: whatever a
 * profiled program or its files say) made safe for the line-oriented
 * formats, whose readers split at newlines, tabs and ';': each control
 * character (a byte below 0x20, or 0x7f) becomes '?', and in a folded
 * stack's frame each ';' becomes ':'. Bytes of UTF-8 stay as they are.
 */
#ifndef PA_TEXTSAFE_H
#define PA_TEXTSAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Cleans the n bytes at s in place; fold: ';' too. */
void pa_text_clean(char *s, size_t n, bool fold);

/* Writes s to out, cleaned (fold as above). */
void pa_text_put(FILE *out, const char *s, bool fold);

/*
 * The length of the valid UTF-8 sequence at s (len bytes left) that is not
 * ASCII, or 0 when s starts no valid sequence (RFC 3629's table: no
 * overlong form, no surrogate, nothing above U+10FFFF).
 */
size_t pa_text_utf8_len(const unsigned char *s, size_t len);

/*
 * s when it is valid UTF-8; else a malloc'd copy in *own (freed by the
 * caller) with each byte that starts no valid sequence replaced by U+FFFD,
 * as the JSON writer does. NULL when out of memory.
 */
const char *pa_text_utf8(const char *s, char **own);

#endif /* PA_TEXTSAFE_H */
