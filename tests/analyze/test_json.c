/*
 * Unit tests for analyze/json.c: string escaping (quotes, backslash,
 * control characters, DEL, U+2028/9, invalid UTF-8; '<', '>', '&' on
 * demand), numbers, layout and
 * nesting, misuse, write errors; and python3's json reading back every
 * byte value.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json.h"

/* A writer into a memory buffer. */
struct json_buf {
	char *text;
	size_t len;
	FILE *f;
	struct pa_json *j;
};

static void json_buf_open(struct json_buf *b)
{
	memset(b, 0, sizeof(*b));
	b->f = open_memstream(&b->text, &b->len);
	cr_assert(b->f);
	b->j = pa_json_new(b->f);
	cr_assert(b->j);
}

/* Finish the document; returns pa_json_end's answer, with the text in b->text. */
static int json_buf_close(struct json_buf *b)
{
	int ret = pa_json_end(b->j);

	pa_json_free(b->j);
	cr_assert_eq(fclose(b->f), 0);
	return ret;
}

/* The JSON text of string s (len bytes) as a whole document, without the newline. */
static char *json_string_of(const char *s, size_t len)
{
	struct json_buf b;

	json_buf_open(&b);
	pa_json_string_len(b.j, s, len);
	cr_assert_eq(json_buf_close(&b), 0);
	cr_assert(b.len > 0 && b.text[b.len - 1] == '\n');
	b.text[b.len - 1] = '\0';
	return b.text;
}

static void json_expect_string(const char *s, size_t len, const char *want)
{
	char *got = json_string_of(s, len);

	cr_expect_str_eq(got, want, "escaping %zu bytes", len);
	free(got);
}

#define JSON_EXPECT(lit, want) json_expect_string(lit, sizeof(lit) - 1, want)

Test(json, escapes_quotes_backslash_and_control_characters)
{
	JSON_EXPECT("plain", "\"plain\"");
	JSON_EXPECT("", "\"\"");
	JSON_EXPECT("a\"b\\c/d", "\"a\\\"b\\\\c/d\"");
	JSON_EXPECT("\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"");
	JSON_EXPECT("\x01\x1f\x7f x", "\"\\u0001\\u001f\\u007f x\"");
	JSON_EXPECT("a\0b", "\"a\\u0000b\"");
}

Test(json, keeps_valid_utf8_and_escapes_line_separators)
{
	JSON_EXPECT("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac "
		    "\xf0\x9f\x98\x80\"");
	JSON_EXPECT("\xef\xbf\xbf\xf4\x8f\xbf\xbf", "\"\xef\xbf\xbf\xf4\x8f\xbf\xbf\"");
	JSON_EXPECT("a\xe2\x80\xa8" "b\xe2\x80\xa9", "\"a\\u2028b\\u2029\"");
}

Test(json, replaces_each_invalid_utf8_byte)
{
	JSON_EXPECT("\xff", "\"\\ufffd\"");
	JSON_EXPECT("\x80x", "\"\\ufffdx\"");                        /* lone continuation */
	JSON_EXPECT("x\xc3", "\"x\\ufffd\"");                        /* truncated at the end */
	JSON_EXPECT("\xe2\x82x", "\"\\ufffd\\ufffdx\"");             /* truncated inside */
	JSON_EXPECT("\xc0\xaf", "\"\\ufffd\\ufffd\"");               /* overlong '/' */
	JSON_EXPECT("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"");     /* overlong, 3 bytes */
	JSON_EXPECT("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");     /* surrogate U+D800 */
	JSON_EXPECT("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* > U+10FFFF */
	JSON_EXPECT("\xf8\x88\x80\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"");
}

/* The escaper on its own (speedscope, the flame graph page): the same, and HTML-safe on demand. */
Test(json, put_string_escapes_alike_and_html_on_demand)
{
	const char *s = "<a href=\"x\">&\n\xff</a>";
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert(f);
	pa_json_put_string(f, s, 0);
	fputc(' ', f);
	pa_json_put_string(f, s, PA_JSON_HTML);
	fputc(' ', f);
	pa_json_put_chars(f, "a\"b\xc3", 4, 0);
	cr_assert_eq(fclose(f), 0);
	cr_expect_str_eq(text, "\"<a href=\\\"x\\\">&\\n\\ufffd</a>\" "
			 "\"\\u003ca href=\\\"x\\\"\\u003e\\u0026\\n\\ufffd\\u003c/a\\u003e\" "
			 "a\\\"b\\ufffd");
	free(text);
}

Test(json, null_string_is_null)
{
	struct json_buf b;

	json_buf_open(&b);
	pa_json_string(b.j, NULL);
	cr_expect_eq(json_buf_close(&b), 0);
	cr_expect_str_eq(b.text, "null\n");
	free(b.text);
}

Test(json, numbers_read_back_exactly)
{
	struct json_buf b;

	json_buf_open(&b);
	pa_json_array_begin(b.j);
	pa_json_uint(b.j, UINT64_MAX);
	pa_json_int(b.j, INT64_MIN);
	pa_json_double(b.j, 0.1);
	pa_json_double(b.j, 45.25);
	pa_json_double(b.j, 100.0 * 302 / 659);
	pa_json_double(b.j, 1e300);
	pa_json_double(b.j, NAN);
	pa_json_double(b.j, INFINITY);
	pa_json_bool(b.j, true);
	pa_json_null(b.j);
	pa_json_array_end(b.j);
	cr_expect_eq(json_buf_close(&b), 0);
	cr_expect_str_eq(b.text, "[\n  18446744073709551615,\n  -9223372036854775808,\n"
			 "  0.1,\n  45.25,\n  45.82701062215478,\n  1e+300,\n  null,\n  null,\n"
			 "  true,\n  null\n]\n");
	cr_expect_eq(strtod("45.82701062215478", NULL), 100.0 * 302 / 659);
	free(b.text);
}

Test(json, lays_out_two_levels_a_line_per_member_deeper_ones_inline)
{
	struct json_buf b;

	json_buf_open(&b);
	pa_json_object_begin(b.j);
	pa_json_key_string(b.j, "report", "top");
	pa_json_key(b.j, "empty");
	pa_json_array_begin(b.j);
	pa_json_array_end(b.j);
	pa_json_key(b.j, "rows");
	pa_json_array_begin(b.j);
	pa_json_object_begin(b.j);
	pa_json_key_uint(b.j, "n", 1);
	pa_json_key(b.j, "v");
	pa_json_array_begin(b.j);
	pa_json_int(b.j, -1);
	pa_json_int(b.j, 2);
	pa_json_array_end(b.j);
	pa_json_key_null(b.j, "x");
	pa_json_object_end(b.j);
	pa_json_object_begin(b.j);
	pa_json_object_end(b.j);
	pa_json_array_end(b.j);
	pa_json_key_bool(b.j, "k\"ey", false);
	pa_json_object_end(b.j);
	cr_expect_eq(json_buf_close(&b), 0);
	cr_expect_str_eq(b.text, "{\n  \"report\": \"top\",\n  \"empty\": [],\n  \"rows\": [\n"
			 "    {\"n\": 1, \"v\": [-1,2], \"x\": null},\n    {}\n  ],\n"
			 "  \"k\\\"ey\": false\n}\n");
	free(b.text);
}

Test(json, misuse_makes_end_fail)
{
	struct json_buf b;

	/* a value where a key is due */
	json_buf_open(&b);
	pa_json_object_begin(b.j);
	pa_json_uint(b.j, 1);
	pa_json_object_end(b.j);
	cr_expect_eq(json_buf_close(&b), -EINVAL);
	free(b.text);
	/* a key in an array, and a container left open */
	json_buf_open(&b);
	pa_json_array_begin(b.j);
	pa_json_key(b.j, "k");
	cr_expect_eq(json_buf_close(&b), -EINVAL);
	free(b.text);
	/* two top-level values */
	json_buf_open(&b);
	pa_json_uint(b.j, 1);
	pa_json_uint(b.j, 2);
	cr_expect_eq(json_buf_close(&b), -EINVAL);
	free(b.text);
	/* ending an array as an object; a key without its value */
	json_buf_open(&b);
	pa_json_object_begin(b.j);
	pa_json_key(b.j, "k");
	pa_json_object_end(b.j);
	cr_expect_eq(json_buf_close(&b), -EINVAL);
	free(b.text);
	/* nothing at all */
	json_buf_open(&b);
	cr_expect_eq(json_buf_close(&b), -EINVAL);
	free(b.text);
}

Test(json, too_deep_nesting_fails)
{
	struct json_buf b;

	json_buf_open(&b);
	for (int i = 0; i <= PA_JSON_MAX_DEPTH; i++)
		pa_json_array_begin(b.j);
	for (int i = 0; i <= PA_JSON_MAX_DEPTH; i++)
		pa_json_array_end(b.j);
	cr_expect_eq(json_buf_close(&b), -EINVAL);
	free(b.text);
	json_buf_open(&b);
	for (int i = 0; i < PA_JSON_MAX_DEPTH; i++)
		pa_json_array_begin(b.j);
	for (int i = 0; i < PA_JSON_MAX_DEPTH; i++)
		pa_json_array_end(b.j);
	cr_expect_eq(json_buf_close(&b), 0);
	free(b.text);
}

Test(json, write_error_is_eio)
{
	FILE *f = fopen("/dev/full", "w");
	struct pa_json *j;

	cr_assert(f, "/dev/full: %s", strerror(errno));
	setvbuf(f, NULL, _IONBF, 0);
	j = pa_json_new(f);
	pa_json_string(j, "x");
	cr_expect_eq(pa_json_end(j), -EIO);
	pa_json_free(j);
	fclose(f);
}

/*
 * Every byte value (0 to 255, in one string with its NUL) read back by
 * python3's json: valid JSON, and the text Python's own UTF-8 decoder
 * makes of those bytes, an invalid byte each becoming U+FFFD.
 */
Test(json, python_reads_back_every_byte)
{
	static const char py[] =
		"import json, sys\n"
		"d = json.load(open(sys.argv[1], encoding='utf-8'))\n"
		"want = bytes(range(256)).decode('utf-8', 'replace')\n"
		"assert d == {'s': want, 'k\\n': [1]}, (d, want)\n";
	char path[] = "/tmp/test_json.XXXXXX";
	unsigned char all[256];
	int fd = mkstemp(path), status;
	FILE *f = fdopen(fd, "w");
	struct pa_json *j = pa_json_new(f);
	pid_t pid;

	cr_assert(fd >= 0 && f && j);
	for (int i = 0; i < 256; i++)
		all[i] = (unsigned char)i;
	pa_json_object_begin(j);
	pa_json_key(j, "s");
	pa_json_string_len(j, (const char *)all, sizeof(all));
	pa_json_key(j, "k\n");
	pa_json_array_begin(j);
	pa_json_uint(j, 1);
	pa_json_array_end(j);
	pa_json_object_end(j);
	cr_assert_eq(pa_json_end(j), 0);
	pa_json_free(j);
	cr_assert_eq(fclose(f), 0);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		execl("/usr/bin/python3", "python3", "-c", py, path, (char *)NULL);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	unlink(path);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "python3 did not read the JSON back (status 0x%x)", status);
}
