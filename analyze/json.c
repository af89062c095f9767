/* json: the streaming JSON writer; see json.h. */
#include "json.h"
#include "textsafe.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Containers opened above this depth get a line per member. */
#define PA_JSON_MULTILINE_DEPTH 2

struct pa_json_level {
	bool object;
	bool multiline;
	bool want_value; /* object: a key was written, its value is due */
	size_t count;    /* members written */
};

struct pa_json {
	FILE *out;
	struct pa_json_level stack[PA_JSON_MAX_DEPTH];
	size_t depth;  /* open containers */
	size_t values; /* top-level values written */
	bool misused;
};

struct pa_json *pa_json_new(FILE *out)
{
	struct pa_json *j = calloc(1, sizeof(*j));

	if (j)
		j->out = out;
	return j;
}

void pa_json_free(struct pa_json *j)
{
	free(j);
}

static void pa_json_newline(struct pa_json *j, size_t depth)
{
	fputc('\n', j->out);
	for (size_t i = 0; i < depth; i++)
		fputs("  ", j->out);
}

/* The separator before a member of the innermost array, or a key. */
static void pa_json_separate(struct pa_json *j)
{
	struct pa_json_level *l = &j->stack[j->depth - 1];

	if (l->count++)
		fputc(',', j->out);
	if (l->multiline)
		pa_json_newline(j, j->depth);
	else if (l->count > 1 && l->object)
		fputc(' ', j->out);
}

/* Whether a value may come now; writes what goes before it. */
static bool pa_json_value_due(struct pa_json *j)
{
	struct pa_json_level *l;

	if (j->misused)
		return false;
	if (j->depth == 0) {
		j->misused = j->values++ > 0;
		return !j->misused;
	}
	l = &j->stack[j->depth - 1];
	if (l->object) {
		j->misused = !l->want_value;
		l->want_value = false;
		return !j->misused;
	}
	pa_json_separate(j);
	return true;
}

/* The escape of an ASCII byte, NULL when it stands for itself. */
static const char *pa_json_escape(unsigned char c, unsigned flags, char *buf, size_t size)
{
	switch (c) {
	case '"': return "\\\"";
	case '\\': return "\\\\";
	case '\b': return "\\b";
	case '\f': return "\\f";
	case '\n': return "\\n";
	case '\r': return "\\r";
	case '\t': return "\\t";
	case '<':
	case '>':
	case '&':
		if (!(flags & PA_JSON_HTML))
			return NULL;
		break;
	default:
		if (c >= 0x20 && c != 0x7f)
			return NULL;
		break;
	}
	snprintf(buf, size, "\\u%04x", c);
	return buf;
}

void pa_json_put_chars(FILE *out, const char *str, size_t len, unsigned flags)
{
	const unsigned char *s = (const unsigned char *)str;
	char buf[8];

	for (size_t i = 0; i < len;) {
		const char *esc;
		size_t n;

		if (s[i] < 0x80) {
			esc = pa_json_escape(s[i], flags, buf, sizeof(buf));
			if (esc)
				fputs(esc, out);
			else
				fputc(s[i], out);
			i++;
			continue;
		}
		n = pa_text_utf8_len(s + i, len - i);
		if (n == 0) {
			fputs("\\ufffd", out);
			i++;
		} else if (n == 3 && s[i] == 0xe2 && s[i + 1] == 0x80 &&
			   (s[i + 2] == 0xa8 || s[i + 2] == 0xa9)) {
			fputs(s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029", out);
			i += n;
		} else {
			fwrite(s + i, 1, n, out);
			i += n;
		}
	}
}

/* len bytes at s as a JSON string, quotes included. */
static void pa_json_quote(FILE *out, const char *s, size_t len, unsigned flags)
{
	fputc('"', out);
	pa_json_put_chars(out, s, len, flags);
	fputc('"', out);
}

void pa_json_put_string(FILE *out, const char *s, unsigned flags)
{
	pa_json_quote(out, s, strlen(s), flags);
}

static void pa_json_begin(struct pa_json *j, bool object)
{
	if (!pa_json_value_due(j))
		return;
	if (j->depth == PA_JSON_MAX_DEPTH) {
		j->misused = true;
		return;
	}
	j->stack[j->depth] = (struct pa_json_level){
		.object = object, .multiline = j->depth < PA_JSON_MULTILINE_DEPTH,
	};
	j->depth++;
	fputc(object ? '{' : '[', j->out);
}

static void pa_json_close(struct pa_json *j, bool object)
{
	struct pa_json_level *l = j->depth ? &j->stack[j->depth - 1] : NULL;

	if (j->misused || !l || l->object != object || l->want_value) {
		j->misused = true;
		return;
	}
	j->depth--;
	if (l->multiline && l->count)
		pa_json_newline(j, j->depth);
	fputc(object ? '}' : ']', j->out);
}

void pa_json_object_begin(struct pa_json *j)
{
	pa_json_begin(j, true);
}

void pa_json_object_end(struct pa_json *j)
{
	pa_json_close(j, true);
}

void pa_json_array_begin(struct pa_json *j)
{
	pa_json_begin(j, false);
}

void pa_json_array_end(struct pa_json *j)
{
	pa_json_close(j, false);
}

void pa_json_key(struct pa_json *j, const char *key)
{
	struct pa_json_level *l = j->depth ? &j->stack[j->depth - 1] : NULL;

	if (j->misused || !l || !l->object || l->want_value) {
		j->misused = true;
		return;
	}
	pa_json_separate(j);
	pa_json_quote(j->out, key, strlen(key), 0);
	fputs(": ", j->out);
	l->want_value = true;
}

void pa_json_key_array(struct pa_json *j, const char *key)
{
	pa_json_key(j, key);
	pa_json_array_begin(j);
}

void pa_json_key_object(struct pa_json *j, const char *key)
{
	pa_json_key(j, key);
	pa_json_object_begin(j);
}

void pa_json_string_len(struct pa_json *j, const char *s, size_t len)
{
	if (pa_json_value_due(j))
		pa_json_quote(j->out, s, len, 0);
}

void pa_json_string(struct pa_json *j, const char *s)
{
	if (!s)
		pa_json_null(j);
	else
		pa_json_string_len(j, s, strlen(s));
}

void pa_json_uint(struct pa_json *j, uint64_t v)
{
	if (pa_json_value_due(j))
		fprintf(j->out, "%" PRIu64, v);
}

void pa_json_int(struct pa_json *j, int64_t v)
{
	if (pa_json_value_due(j))
		fprintf(j->out, "%" PRId64, v);
}

void pa_json_double(struct pa_json *j, double v)
{
	char buf[40];

	if (!isfinite(v)) {
		pa_json_null(j);
		return;
	}
	if (!pa_json_value_due(j))
		return;
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, j->out);
}

void pa_json_bool(struct pa_json *j, bool v)
{
	if (pa_json_value_due(j))
		fputs(v ? "true" : "false", j->out);
}

void pa_json_null(struct pa_json *j)
{
	if (pa_json_value_due(j))
		fputs("null", j->out);
}

void pa_json_key_string(struct pa_json *j, const char *key, const char *s)
{
	pa_json_key(j, key);
	pa_json_string(j, s);
}

void pa_json_key_uint(struct pa_json *j, const char *key, uint64_t v)
{
	pa_json_key(j, key);
	pa_json_uint(j, v);
}

void pa_json_key_double(struct pa_json *j, const char *key, double v)
{
	pa_json_key(j, key);
	pa_json_double(j, v);
}

void pa_json_key_bool(struct pa_json *j, const char *key, bool v)
{
	pa_json_key(j, key);
	pa_json_bool(j, v);
}

void pa_json_key_null(struct pa_json *j, const char *key)
{
	pa_json_key(j, key);
	pa_json_null(j);
}

int pa_json_end(struct pa_json *j)
{
	if (j->misused || j->depth || j->values != 1)
		return -EINVAL;
	fputc('\n', j->out);
	return ferror(j->out) ? -EIO : 0;
}
