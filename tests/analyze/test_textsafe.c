/* Unit tests for analyze/textsafe.c: names made safe for line formats and for UTF-8. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textsafe.h"

/* Control characters become '?', and in a folded frame ';' becomes ':'; UTF-8 stays. */
Test(textsafe, names_are_cleaned_for_line_formats)
{
	char s[] = "a;b\nc\td\x1b[31m\x7f\xc3\xa9";
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	cr_assert(out);
	pa_text_put(out, s, false);
	fputc('|', out);
	pa_text_put(out, s, true);
	cr_assert_eq(fclose(out), 0);
	cr_expect_str_eq(text, "a;b?c?d?[31m?\xc3\xa9|a:b?c?d?[31m?\xc3\xa9");
	free(text);
	pa_text_clean(s, strlen(s), true);
	cr_expect_str_eq(s, "a:b?c?d?[31m?\xc3\xa9");
}

/*
 * Valid UTF-8 is given back as it is; each byte that starts no valid
 * sequence (a stray continuation, a truncated, overlong or surrogate
 * sequence, one above U+10FFFF) becomes U+FFFD in a copy.
 */
Test(textsafe, invalid_utf8_becomes_replacement_characters)
{
	const char *ok = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";
	const struct {
		const char *in, *out;
	} bad[] = {
		{ "\xff\xfeok", "\xef\xbf\xbd\xef\xbf\xbdok" },
		{ "a\x80" "b", "a\xef\xbf\xbd" "b" },
		{ "end\xc3", "end\xef\xbf\xbd" },
		{ "\xc0\xafx", "\xef\xbf\xbd\xef\xbf\xbdx" },
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
	};
	char *own;

	cr_expect_eq(pa_text_utf8(ok, &own), ok);
	cr_expect_null(own);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *v = pa_text_utf8(bad[i].in, &own);

		cr_assert_not_null(v);
		cr_expect_str_eq(v, bad[i].out, "case %zu", i);
		cr_expect_eq(v, own);
		free(own);
	}
}
