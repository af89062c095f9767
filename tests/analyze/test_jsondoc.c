/*
 * Unit tests for analyze/jsondoc.c: the opening every --format json
 * document shares (report, event, header, counts), on the "profile" and
 * "events" runs (tst_run.h), and a function's members.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsondoc.h"
#include "report.h"
#include "tst_run.h"

TestSuite(jsondoc, .init = tst_prof_setup, .fini = tst_prof_teardown, .timeout = 30);

/* A document of run with only its opening, malloc'd. */
static char *jd_doc(const struct pa_run *run, const struct pa_filter *f,
		    const struct pa_jsondoc_counts *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct pa_json *j;

	cr_assert(out);
	cr_assert_eq(pa_jsondoc_begin(out, "top", run, f, c, &j), 0);
	cr_assert_eq(pa_jsondoc_end(j), 0);
	cr_assert_eq(fclose(out), 0);
	return text;
}

/* top's document opens with what its text's header line says, word for word. */
Test(jsondoc, opening_says_what_the_text_header_says)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_error err = { 0 };
	struct pa_profile *prof;
	struct pa_jsondoc_counts c;
	char *text, *top = tst_prof_report(&pa_report_top, 0), want[2048];

	cr_assert_eq(pa_events_choose(tst_prof_run, &f, NULL, PA_EVENTS_SAMPLES, &err), 0);
	prof = tst_prof_build_filter(&f);
	c = pa_jsondoc_profile_counts(prof);
	text = jd_doc(tst_prof_run, &f, &c);
	cr_assert(strncmp(top, "# ", 2) == 0, "%s", top);
	snprintf(want, sizeof(want),
		 "{\n"
		 "  \"report\": \"top\",\n"
		 "  \"event\": {\n"
		 "    \"name\": \"cpu-clock\",\n"
		 "    \"spec\": \"cpu-clock\",\n"
		 "    \"kind\": \"sample\",\n"
		 "    \"period\": 1000000,\n"
		 "    \"unit\": \"ns\",\n"
		 "    \"period_text\": \"1 ms of CPU\",\n"
		 "    \"scope\": \"user+kernel\",\n"
		 "    \"settings_differ\": false\n"
		 "  },\n"
		 "  \"header\": \"%.*s\",\n"
		 "  \"samples\": 15,\n"
		 "  \"processes\": 2,\n"
		 "  \"threads\": 3,\n"
		 "  \"lost\": 3,\n"
		 "  \"notes\": []\n"
		 "}\n", (int)strcspn(top + 2, "\n"), top + 2);
	cr_expect_str_eq(text, want);
	free(text);
	free(top);
	pa_profile_free(prof);
}

/* Every event: "event" is null; no lost count known: null; a report without a header: null. */
Test(jsondoc, unknowns_are_null)
{
	struct pa_filter f = PA_FILTER_ALL;
	struct pa_jsondoc_counts c = { .samples = 20, .nprocesses = 2, .nthreads = 3 };
	char *text = jd_doc(tst_prof_run, &f, &c);

	cr_expect(strstr(text, "\n  \"event\": null,\n"), "%s", text);
	cr_expect(strstr(text, "\n  \"header\": \"all events, 20 samples\",\n"), "%s", text);
	cr_expect(strstr(text, "\n  \"lost\": null,\n  \"notes\": []\n}\n"), "%s", text);
	free(text);
	c.no_header = true;
	text = jd_doc(tst_prof_run, &f, &c);
	cr_expect(strstr(text, "\n  \"header\": null,\n  \"samples\": 20,\n"), "%s", text);
	free(text);
}

/* app and tool set cpu-clock differently (tst_run.h's events run): no period, no scope. */
Test(jsondoc, event_set_differently_has_no_period, .init = tst_events_setup,
     .fini = tst_events_teardown)
{
	struct pa_filter f = tst_events_choose(0, "cpu-clock", PA_EVENTS_SAMPLES);
	struct pa_jsondoc_counts c = { .samples = 9, .nprocesses = 2, .nthreads = 3 };
	char *text = jd_doc(tst_events_run, &f, &c);

	cr_expect(strstr(text, "\n    \"period\": null,\n    \"unit\": null,\n"
			 "    \"period_text\": null,\n    \"scope\": null,\n"
			 "    \"settings_differ\": true\n  },\n"), "%s", text);
	free(text);
}

/* "function", "module" (the basename) and "module_path" of a function, in rows. */
Test(jsondoc, function_names_its_module)
{
	const struct pa_func in_libc = { .name = "memcpy", .module = "/usr/lib/libc.so.6" };
	const struct pa_func nowhere = { .name = "[unknown]" };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct pa_json *j = pa_json_new(out);

	cr_assert(out && j);
	pa_json_object_begin(j);
	pa_json_key_array(j, "rows");
	pa_json_object_begin(j);
	pa_jsondoc_func(j, &in_libc);
	pa_json_object_end(j);
	pa_json_object_begin(j);
	pa_jsondoc_func(j, &nowhere);
	pa_json_object_end(j);
	pa_json_array_end(j);
	pa_json_object_end(j);
	cr_assert_eq(pa_json_end(j), 0);
	pa_json_free(j);
	cr_assert_eq(fclose(out), 0);
	cr_expect_str_eq(text,
		"{\n"
		"  \"rows\": [\n"
		"    {\"function\": \"memcpy\", \"module\": \"libc.so.6\", "
		"\"module_path\": \"/usr/lib/libc.so.6\"},\n"
		"    {\"function\": \"[unknown]\", \"module\": null, \"module_path\": null}\n"
		"  ]\n"
		"}\n");
	free(text);
}
