/*
 * fuzz_config: libFuzzer target for the configuration parser
 * (preload/config.c, on inih), as PPROF_CONFIG feeds it: the input is the
 * file's text, parsed by pp_config_parse. pp_config_load refuses a file with
 * a NUL byte or of more than PP_CONFIG_MAX_TEXT bytes before parsing, so
 * such inputs are left out. The seeds are the files in config/.
 *
 * Besides what ASan and UBSan catch, it checks what config.h and README
 * promise: a configuration that parses has 1..PP_CONFIG_MAX_EVENTS events
 * with values in their documented ranges; one that does not has its
 * problems, each message naming the file and a line of it, in line order;
 * a line longer than README's 198 characters is one of them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fuzz.h"

#define FZ_SOURCE "/fuzz/prof.ini"
#define FZ_LINE_MAX 198 /* README: "a line may be at most 198 characters long" */

static void fz_check_event(const struct pp_config_event *ev, unsigned i)
{
	FZ_CHECK(memchr(ev->name, '\0', sizeof(ev->name)) && ev->name[0] &&
		 memchr(ev->spec, '\0', sizeof(ev->spec)) && ev->spec[0], "event %u", i);
	FZ_CHECK(!(ev->exclude_kernel && ev->exclude_user), "[%s] excludes both", ev->name);
	FZ_CHECK(ev->count_only ? ev->period == 0 && !ev->freq : ev->period > 0,
		 "[%s] period %llu", ev->name, (unsigned long long)ev->period);
	FZ_CHECK(ev->precise_ip <= 3 && ev->line > 0, "[%s] precise_ip %u, line %d",
		 ev->name, ev->precise_ip, ev->line);
}

static void fz_check_config(const struct pp_config *cfg, const char *text)
{
	FZ_CHECK(cfg->nevents >= 1 && cfg->nevents <= PP_CONFIG_MAX_EVENTS, "%u events",
		 cfg->nevents);
	for (unsigned i = 0; i < cfg->nevents; i++)
		fz_check_event(&cfg->events[i], i);
	FZ_CHECK(cfg->max_frames >= 1 && cfg->max_frames <= PPF_MAX_FRAMES, "max_frames %u",
		 cfg->max_frames);
	FZ_CHECK(cfg->mode_request <= PPF_MODE_REQUEST_SIGNAL, "mode %u", cfg->mode_request);
	FZ_CHECK(cfg->signal >= 0, "signal %d", cfg->signal);
	FZ_CHECK(memchr(cfg->output, '\0', sizeof(cfg->output)) && cfg->output[0], "output");
	FZ_CHECK(cfg->from_file && strcmp(cfg->source, FZ_SOURCE) == 0, "source");
	FZ_CHECK(cfg->text && strcmp(cfg->text, text) == 0, "text");
}

/* Lines of text, and the first longer than FZ_LINE_MAX as README counts (0: none). */
static int fz_lines(const char *text, int *too_long)
{
	int n = 0;

	*too_long = 0;
	for (const char *s = text; *s; n++) {
		size_t len = strcspn(s, "\n");
		const char *p = s;

		if (n == 0 && len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
			p += 3, len -= 3; /* a UTF-8 BOM */
		while (len && (*p == ' ' || *p == '\t'))
			p++, len--; /* leading blanks */
		if (len && p[len - 1] == '\r')
			len--;
		if (len > FZ_LINE_MAX && !*too_long)
			*too_long = n + 1;
		s = p + len + (p[len] == '\r');
		s += *s == '\n';
	}
	return n;
}

static void fz_check_errors(const struct pp_config_errors *errs, int nlines, int too_long)
{
	char prefix[sizeof(FZ_SOURCE) + 16];
	bool at_long_line = false;

	FZ_CHECK(errs->n >= 1 && errs->n <= PP_CONFIG_MAX_ERRORS, "%u errors", errs->n);
	for (unsigned i = 0; i < errs->n; i++) {
		int line = errs->e[i].line;

		snprintf(prefix, sizeof(prefix), line ? "%s:%d: " : "%s: ", FZ_SOURCE, line);
		FZ_CHECK(memchr(errs->e[i].msg, '\0', sizeof(errs->e[i].msg)) &&
			 strncmp(errs->e[i].msg, prefix, strlen(prefix)) == 0,
			 "message %u (line %d): %.*s", i, line, PP_CONFIG_MSG_MAX, errs->e[i].msg);
		FZ_CHECK(line >= 0 && line <= nlines && (i == 0 || errs->e[i - 1].line <= line),
			 "message %u: line %d of %d", i, line, nlines);
		at_long_line = at_long_line || (line == too_long && strstr(errs->e[i].msg,
									     "characters long"));
	}
	FZ_CHECK(!too_long || at_long_line || errs->more, "line %d is too long, unsaid",
		 too_long);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pp_config_errors errs;
	struct pp_config cfg;
	int ret, nlines, too_long;
	char *text;

	if (size > PP_CONFIG_MAX_TEXT || memchr(data, '\0', size))
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	nlines = fz_lines(text, &too_long);
	ret = pp_config_parse(&cfg, FZ_SOURCE, text, &errs);
	FZ_CHECK(ret == 0 || ret == -EINVAL, "returned %d", ret);
	FZ_CHECK(ret == -EINVAL || !too_long, "line %d is too long, yet accepted", too_long);
	if (ret == 0)
		fz_check_config(&cfg, text);
	else
		fz_check_errors(&errs, nlines, too_long);
	pp_config_release(&cfg);
	free(text);
	return 0;
}
