/* warn: the preload's stderr lines (preload/warn.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tst_it.h"
#include "warn.h"

/* What pp_warn wrote for "%s: %s", from a file stderr pointed to. */
static char *wn_line(const char *what, const char *why)
{
	char path[] = "/tmp/pa-warn-XXXXXX";
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	char *text;

	cr_assert(fd >= 0 && saved >= 0);
	cr_assert_eq(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	pp_warn("%s: %s", what, why);
	cr_assert_eq(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
	close(fd);
	text = tst_slurp(path, NULL);
	unlink(path);
	return text;
}

Test(warn, short_line_is_whole)
{
	char *text = wn_line("cannot create /tmp/x", "File exists");

	cr_assert_str_eq(text, "libpprof: cannot create /tmp/x: File exists\n");
	free(text);
}

/* A 5,000-character path keeps the line's start and its reason, in one line. */
Test(warn, long_line_keeps_its_start_and_end)
{
	static const char start[] = "cannot create the output directory under ";
	static char what[sizeof(start) + 5000];
	char *text;

	memcpy(what, start, strlen(start));
	memset(what + strlen(start), 'a', 5000);
	text = wn_line(what, "File name too long");
	cr_assert_leq(strlen(text), 1024);
	cr_assert(strncmp(text, "libpprof: cannot create the output directory under aaa",
			  54) == 0, "%s", text);
	cr_assert(strstr(text, "aaa [...] aaa"), "%s", text);
	cr_assert(strstr(text, "aaa: File name too long\n"), "%s", text);
	cr_assert_eq(strchr(text, '\n'), text + strlen(text) - 1, "more than one line");
	free(text);
}
