/*
 * Unit tests for pp_config_default (preload/config.c): the default that a
 * process copies (parsed at build time) is what parsing the embedded text
 * gives, field for field, so that a process running the default samples
 * exactly what config/default.ini says.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "config.h"

static struct pp_config_errors errs;

Test(config_default, is_what_parsing_the_text_gives)
{
	static struct pp_config parsed, copied;
	char *ptext, *ctext;

	cr_assert_eq(pp_config_parse(&parsed, PP_CONFIG_EMBEDDED,
				     pp_config_default_text(), &errs), 0);
	cr_assert_eq(pp_config_default(&copied, &errs), 0);
	cr_expect_eq(errs.n, 0);
	cr_assert_not_null(parsed.text);
	/* The default's text is not copied: process.log never holds it. */
	cr_expect_null(copied.text, "the built-in default copied its text");
	cr_expect_str_eq(copied.source, PP_CONFIG_EMBEDDED);
	cr_expect_eq(copied.from_file, 0);
	cr_expect_gt(copied.nevents, 0);
	cr_expect_eq(copied.nevents, parsed.nevents);
	for (unsigned i = 0; i < parsed.nevents && i < copied.nevents; i++) {
		cr_expect_str_eq(copied.events[i].spec, parsed.events[i].spec);
		cr_expect_eq(copied.events[i].type, parsed.events[i].type);
		cr_expect_eq(copied.events[i].config, parsed.events[i].config);
		cr_expect_eq(copied.events[i].period, parsed.events[i].period);
		cr_expect_eq(copied.events[i].freq, parsed.events[i].freq);
	}
	/* Every other field too. */
	ptext = parsed.text;
	ctext = copied.text;
	parsed.text = copied.text = NULL;
	cr_expect(memcmp(&parsed, &copied, sizeof(parsed)) == 0,
		  "the built-in default differs from config/default.ini parsed");
	parsed.text = ptext;
	copied.text = ctext;
	pp_config_release(&parsed);
	pp_config_release(&copied);
	cr_expect_null(copied.text);
}

/* The copy is a process's own: changing it leaves the next copy whole. */
Test(config_default, each_copy_is_fresh)
{
	static struct pp_config a, b;

	cr_assert_eq(pp_config_default(&a, &errs), 0);
	snprintf(a.output, sizeof(a.output), "/elsewhere");
	a.nevents = 0;
	cr_assert_eq(pp_config_default(&b, &errs), 0);
	cr_expect_str_eq(b.output, "pprof-data");
	cr_expect_gt(b.nevents, 0);
	pp_config_release(&a);
	pp_config_release(&b);
}
