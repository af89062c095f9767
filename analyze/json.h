/*
 * json: a streaming JSON writer for the reports' --format json.
 *
 * Values go straight to a FILE as they are given; the writer adds the
 * commas, the colons and the layout: a container opened at nesting depth 0
 * or 1 puts each member on a line of its own (indented two spaces per
 * level), deeper ones are written on one line, so that every row of a
 * report's "rows" array is one line.
 *
 * Strings are escaped as RFC 8259 requires: '"', '\\' and the control
 * characters (U+0000..U+001F, with \b \f \n \r \t where JSON has them),
 * and DEL, U+2028 and U+2029 too, so that the text is safe in JavaScript.
 * Bytes that are not valid UTF-8 (a stray continuation byte, a truncated,
 * overlong or surrogate sequence, anything above U+10FFFF) are each
 * replaced by U+FFFD, so that the output is always valid UTF-8.
 *
 * Misuse (a value where a key is due, a key outside an object, too deep a
 * nesting, ending what is not open) is not written: it makes pa_json_end
 * return -EINVAL.
 */
#ifndef PA_JSON_H
#define PA_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Containers nest at most this deep. */
#define PA_JSON_MAX_DEPTH 32

struct pa_json;

/*
 * A writer to out (not owned: the caller closes it, after pa_json_free).
 * Returns NULL when out of memory.
 */
struct pa_json *pa_json_new(FILE *out);
void pa_json_free(struct pa_json *j);

void pa_json_object_begin(struct pa_json *j);
void pa_json_object_end(struct pa_json *j);
void pa_json_array_begin(struct pa_json *j);
void pa_json_array_end(struct pa_json *j);

/* The key of the next member of the innermost object (escaped like a string). */
void pa_json_key(struct pa_json *j, const char *key);

/* A member whose value is an array or object, begun here and ended by the caller. */
void pa_json_key_array(struct pa_json *j, const char *key);
void pa_json_key_object(struct pa_json *j, const char *key);

/* Values: a string (NULL writes null), len bytes that may hold NULs, numbers. */
void pa_json_string(struct pa_json *j, const char *s);
void pa_json_string_len(struct pa_json *j, const char *s, size_t len);
void pa_json_uint(struct pa_json *j, uint64_t v);
void pa_json_int(struct pa_json *j, int64_t v);
/* The shortest decimal form that reads back as v; null for NaN and infinities. */
void pa_json_double(struct pa_json *j, double v);
void pa_json_bool(struct pa_json *j, bool v);
void pa_json_null(struct pa_json *j);

/* pa_json_key, then the value. */
void pa_json_key_string(struct pa_json *j, const char *key, const char *s);
void pa_json_key_uint(struct pa_json *j, const char *key, uint64_t v);
void pa_json_key_double(struct pa_json *j, const char *key, double v);
void pa_json_key_bool(struct pa_json *j, const char *key, bool v);
void pa_json_key_null(struct pa_json *j, const char *key);

/*
 * The string escaper itself, for documents written without a writer (the
 * speedscope file, the flame graph page's data): len bytes at s as the
 * characters of a JSON string, escaped as above, without the quotes.
 * PA_JSON_HTML in flags also escapes '<', '>' and '&' (as \u003c, ...),
 * so that the text is safe inside an HTML script or an XML CDATA section.
 */
#define PA_JSON_HTML 1u
void pa_json_put_chars(FILE *out, const char *s, size_t len, unsigned flags);

/* The NUL-terminated s as a JSON string, quotes included, escaped as pa_json_put_chars does. */
void pa_json_put_string(FILE *out, const char *s, unsigned flags);

/*
 * Finish the document: a newline after the top-level value. Returns 0;
 * -EINVAL when the writer was misused or a container is still open; -EIO
 * when out reports a write error.
 */
int pa_json_end(struct pa_json *j);

#endif /* PA_JSON_H */
