/*
 * The INI configuration (preload/config.c): what a file says becomes the
 * events the profiler opens, and every mistake is reported with the file,
 * the line and the offending text.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

static struct pp_config cfg;
static struct pp_config_errors errs;

static void config_teardown(void)
{
	pp_config_release(&cfg);
}

TestSuite(config, .fini = config_teardown, .timeout = 30);

static int parse(const char *text)
{
	pp_config_release(&cfg);
	return pp_config_parse(&cfg, "t.ini", text, &errs);
}

/* All messages, one per line, for assertion failure output. */
static const char *all_errors(void)
{
	static char buf[PP_CONFIG_MAX_ERRORS * PP_CONFIG_MSG_MAX];

	buf[0] = '\0';
	for (unsigned i = 0; i < errs.n; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s\n",
			 errs.e[i].msg);
	return buf;
}

/* The text must fail with exactly one error, at line, containing each of parts. */
static void expect_error(const char *text, int line, const char *part1,
			 const char *part2)
{
	char prefix[32];

	cr_assert_eq(parse(text), -EINVAL, "accepted:\n%s", text);
	cr_assert_eq(errs.n, 1, "expected one error, got:\n%s", all_errors());
	snprintf(prefix, sizeof(prefix), "t.ini:%d: ", line);
	cr_assert(strncmp(errs.e[0].msg, prefix, strlen(prefix)) == 0,
		  "'%s' does not start with '%s'", errs.e[0].msg, prefix);
	cr_assert(strstr(errs.e[0].msg, part1), "'%s' lacks '%s'", errs.e[0].msg,
		  part1);
	if (part2)
		cr_assert(strstr(errs.e[0].msg, part2), "'%s' lacks '%s'",
			  errs.e[0].msg, part2);
}

static const struct pp_config_event *event(const char *name)
{
	for (unsigned i = 0; i < cfg.nevents; i++)
		if (strcmp(cfg.events[i].name, name) == 0)
			return &cfg.events[i];
	cr_assert_fail("no event %s", name);
	return NULL;
}

Test(config, embedded_default_is_config_default_ini)
{
	char path[4096], *file = malloc(PP_CONFIG_MAX_TEXT);
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/config/default.ini", PP_TEST_SOURCE_DIR);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	n = fread(file, 1, PP_CONFIG_MAX_TEXT - 1, f);
	fclose(f);
	file[n] = '\0';
	cr_assert_str_eq(pp_config_default_text(), file);
	free(file);
}

Test(config, embedded_default_samples_cpu_clock_every_ms)
{
	const struct pp_config_event *ev;

	cr_assert_eq(parse(pp_config_default_text()), 0, "%s", all_errors());
	cr_assert_str_eq(cfg.output, "pprof-data");
	cr_assert_eq(cfg.max_frames, 128);
	cr_assert(cfg.follow_exec && !cfg.strict && !cfg.unavailable_off);
	cr_assert_eq(cfg.mode_request, PPF_MODE_REQUEST_AUTO);
	cr_assert_not(cfg.whole_stacks, "the default writes each stack once");
	cr_assert_eq(cfg.nevents, 1);
	ev = event("cpu-clock");
	cr_assert_eq(ev->type, PERF_TYPE_SOFTWARE);
	cr_assert_eq(ev->config, PERF_COUNT_SW_CPU_CLOCK);
	cr_assert_eq(ev->period, 1000000);
	cr_assert(!ev->freq && ev->time_ns && ev->exclude_kernel &&
		  !ev->exclude_user && !ev->count_only);
}

Test(config, several_events_and_counters)
{
	const struct pp_config_event *ev;

	cr_assert_eq(parse("[profile]\n"
			   "output = /tmp/out\n"
			   "max_frames = 64\n"
			   "follow_exec = no\n"
			   "unavailable = off\n"
			   "strict = true\n"
			   "mode = sigtrap\n"
			   "[sample cpu-clock]\n"
			   "period = 250us\n"
			   "[sample faults]\n"
			   "event = page-faults\n"
			   "period = 100\n"
			   "[sample raw]\n"
			   "event = r00c0\n"
			   "frequency = 2kHz\n"
			   "precise_ip = 2\n"
			   "[count cycles:u]\n"
			   "[count instructions]\n"
			   "exclude_user = yes\n"
			   "exclude_kernel = no\n"), 0, "%s", all_errors());
	cr_assert_str_eq(cfg.output, "/tmp/out");
	cr_assert_eq(cfg.max_frames, 64);
	cr_assert(!cfg.follow_exec && cfg.strict && cfg.unavailable_off);
	cr_assert_eq(cfg.mode_request, PPF_MODE_REQUEST_SIGTRAP);
	cr_assert_eq(cfg.nevents, 5);
	cr_assert_eq(event("cpu-clock")->period, 250000);
	ev = event("faults");
	cr_assert_str_eq(ev->spec, "page-faults");
	cr_assert_eq(ev->config, PERF_COUNT_SW_PAGE_FAULTS);
	cr_assert(ev->period == 100 && !ev->freq && !ev->time_ns);
	ev = event("raw");
	cr_assert(ev->type == PERF_TYPE_RAW && ev->config == 0xc0);
	cr_assert(ev->freq && ev->period == 2000 && ev->precise_ip == 2);
	ev = event("cycles:u");
	cr_assert(ev->count_only && ev->type == PERF_TYPE_HARDWARE &&
		  ev->config == PERF_COUNT_HW_CPU_CYCLES && ev->period == 0);
	ev = event("instructions");
	cr_assert(ev->exclude_user && !ev->exclude_kernel);
	/* In file order: three [sample] sections, then two [count] ones. */
	for (unsigned i = 0; i < cfg.nevents; i++)
		cr_assert_eq(!!cfg.events[i].count_only, i >= 3, "event %u, %s", i,
			     cfg.events[i].name);
}

Test(config, modifiers_in_the_name_win_over_keys)
{
	cr_assert_eq(parse("[count cpu-clock:k]\nexclude_kernel = yes\n"), 0,
		     "%s", all_errors());
	cr_assert(!cfg.events[0].exclude_kernel && cfg.events[0].exclude_user);
}

Test(config, durations_and_numbers)
{
	static const struct { char text[16]; uint64_t ns; } d[] = {
		{ "100us", 100000 }, { "1 ms", 1000000 }, { "2s", 2000000000 },
		{ "123456", 123456 }, { "3600s", 3600000000000ull },
	};
	char text[256];

	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		snprintf(text, sizeof(text), "[sample task-clock]\nperiod = %s\n",
			 d[i].text);
		cr_assert_eq(parse(text), 0, "%s: %s", d[i].text, all_errors());
		cr_assert_eq(cfg.events[0].period, d[i].ns, "%s", d[i].text);
	}
}

Test(config, comments_blanks_indentation_crlf_bom)
{
	cr_assert_eq(parse("\xef\xbb\xbf; comment\r\n"
			   "# another\r\n"
			   "\r\n"
			   "   [profile]   \r\n"
			   "\tmax_frames=32 ; why\r\n"
			   "    output   =   with spaces   \r\n"
			   "[sample cpu-clock]\r\n"
			   "  period = 2ms\r\n"
			   "  exclude_kernel = YES\r\n"), 0, "%s", all_errors());
	cr_assert_eq(cfg.max_frames, 32);
	cr_assert_str_eq(cfg.output, "with spaces");
	cr_assert_eq(cfg.events[0].period, 2000000);
}

Test(config, empty_sections_and_no_events_mean_defaults)
{
	cr_assert_eq(parse("[profile]\n[sample cpu-clock]\n"), 0, "%s", all_errors());
	cr_assert_eq(cfg.nevents, 1);
	cr_assert_eq(cfg.events[0].period, 1000000);
	/* No event section at all: what the embedded default samples. */
	cr_assert_eq(parse("[profile]\noutput = elsewhere\n"), 0, "%s", all_errors());
	cr_assert_str_eq(cfg.output, "elsewhere");
	cr_assert_eq(cfg.nevents, 1);
	cr_assert_str_eq(cfg.events[0].name, "cpu-clock");
	cr_assert_eq(parse(""), 0, "%s", all_errors());
	cr_assert_eq(cfg.nevents, 1);
}

Test(config, counters_only)
{
	cr_assert_eq(parse("[count page-faults]\n[count task-clock]\n"), 0, "%s",
		     all_errors());
	cr_assert_eq(cfg.nevents, 2);
	cr_assert(cfg.events[0].count_only && cfg.events[1].count_only);
}

Test(config, rejects_unknown_section_with_suggestion)
{
	expect_error("[sampel cpu-clock]\n", 1, "unknown section [sampel cpu-clock]",
		     "did you mean [sample cpu-clock]?");
	expect_error("[zzz]\n", 1, "unknown section [zzz]", "[profile]");
}

Test(config, rejects_unknown_key_with_suggestion)
{
	expect_error("[sample cpu-clock]\n\nperoid = 1ms\n", 3,
		     "unknown key 'peroid'", "did you mean 'period'?");
	expect_error("[profile]\nbanana = 1\n", 2, "unknown key 'banana'",
		     "output, mode, max_frames");
}

Test(config, rejects_values_of_the_wrong_type)
{
	expect_error("[profile]\nfollow_exec = maybe\n", 2,
		     "follow_exec = 'maybe'", "yes or no");
	expect_error("[profile]\nmax_frames = lots\n", 2, "max_frames = 'lots'",
		     "1 to 512");
	expect_error("[sample cpu-clock]\nperiod = 1 fortnight\n", 2,
		     "period = '1 fortnight'", "500us");
	expect_error("[sample page-faults]\nperiod = 10ms\n", 2,
		     "period = '10ms'", "whole number of events");
	expect_error("[profile]\nmode = fast\n", 2, "mode = 'fast'",
		     "auto, sigtrap or signal");
	expect_error("[profile]\nunavailable = maybe\n", 2, "unavailable = 'maybe'",
		     "skip or off");
	expect_error("[profile]\nstacks = sometimes\n", 2, "stacks = 'sometimes'",
		     "once or whole");
}

Test(config, stacks_once_or_whole)
{
	cr_assert_eq(parse("[profile]\nstacks = whole\n"), 0, "%s", all_errors());
	cr_assert(cfg.whole_stacks);
	cr_assert_eq(parse("[profile]\nstacks = once\n"), 0, "%s", all_errors());
	cr_assert_not(cfg.whole_stacks);
}

Test(config, rejects_values_out_of_range)
{
	expect_error("[profile]\nmax_frames = 0\n", 2, "out of range", "1 to 512");
	expect_error("[profile]\nmax_frames = 513\n", 2, "out of range", NULL);
	expect_error("[sample cpu-clock]\nperiod = 99us\n", 2, "out of range", "100us");
	expect_error("[sample task-clock]\nperiod = 10us\n", 2, "out of range", "100us");
	expect_error("[sample cpu-clock]\nperiod = 99999999999999999999999\n", 2,
		     "out of range", NULL);
	expect_error("[sample page-faults]\nperiod = 0\n", 2, "out of range", NULL);
	expect_error("[sample cycles]\nfrequency = 1000\nprecise_ip = 4\n", 3,
		     "precise_ip = '4'", "0, 1, 2 or 3");
}

/* At most 10 kHz, or the kernel's perf_event_max_sample_rate when it is lower. */
Test(config, rejects_frequency_above_the_limit)
{
	char text[128];
	unsigned long long limit = 0;
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");

	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%llu", &limit), 1);
	fclose(f);
	if (limit > 10000)
		limit = 10000;
	snprintf(text, sizeof(text), "[sample cpu-clock]\nfrequency = %llu\n", limit);
	cr_assert_eq(parse(text), 0, "%s", all_errors());
	snprintf(text, sizeof(text), "[sample cpu-clock]\nfrequency = %llu\n",
		 limit + 1);
	expect_error(text, 2, "perf_event_max_sample_rate", NULL);
	expect_error("[sample cycles]\nfrequency = 20kHz\n", 2, "out of range",
		     "from 1 to");
}

Test(config, rejects_period_and_frequency_together)
{
	expect_error("[sample cpu-clock]\nperiod = 1ms\nfrequency = 99\n", 3,
		     "both a period and a frequency", NULL);
}

Test(config, rejects_unknown_event_with_suggestion)
{
	expect_error("[sample cpu-clok]\n", 1, "unknown event 'cpu-clok'",
		     "did you mean 'cpu-clock'?");
	expect_error("[sample x]\nevent = pagefaults\nperiod = 1\n", 2,
		     "unknown event 'pagefaults'", "page-faults");
	expect_error("[count qwertyuiop]\n", 1, "unknown event 'qwertyuiop'",
		     "rNNNN");
}

Test(config, rejects_duplicates)
{
	expect_error("[sample cpu-clock]\n[sample cpu-clock]\n", 2,
		     "appears twice", "first on line 1");
	expect_error("[sample a]\nevent = cpu-clock\n[sample b]\nevent = cpu-clock\n",
		     4, "same event as [sample a]", "line 1");
	expect_error("[profile]\noutput = a\noutput = b\n", 3, "given twice",
		     "first on line 2");
	expect_error("[profile]\n[profile]\n", 2, "[profile] appears twice", NULL);
	/* Counting and sampling the same event is allowed. */
	cr_assert_eq(parse("[sample page-faults]\nperiod = 10\n[count page-faults]\n"),
		     0, "%s", all_errors());
}

Test(config, rejects_long_line_clearly_and_keeps_counting_lines)
{
	char text[1024];

	snprintf(text, sizeof(text), "[profile]\noutput = %0300d\n[sampel x]\n", 7);
	cr_assert_eq(parse(text), -EINVAL);
	cr_assert_eq(errs.n, 2, "%s", all_errors());
	cr_assert(strstr(errs.e[0].msg, "t.ini:2: the line is 309 characters long"),
		  "%s", errs.e[0].msg);
	cr_assert(strstr(errs.e[1].msg, "t.ini:3: unknown section [sampel x]"),
		  "%s", errs.e[1].msg);
}

Test(config, rejects_misplaced_and_malformed_lines)
{
	expect_error("output = x\n", 1, "outside any section", NULL);
	expect_error("[profile]\njust words\n", 2, "'just words'",
		     "expected 'key = value'");
	expect_error("[profile\n", 1, "closing ]", NULL);
	expect_error("[sample]\n", 1, "[sample] needs an event", NULL);
	expect_error("[profile x]\n", 1, "takes no name", NULL);
	expect_error("[count page-faults]\nperiod = 5\n", 2, "takes no period", NULL);
	expect_error("[sample cpu-clock]\nexclude_user = yes\n", 1,
		     "excludes both user and kernel", NULL);
	expect_error("[sample page-faults]\n", 1, "needs a period", NULL);
}

Test(config, signal_mode_and_its_signal)
{
	cr_assert_eq(parse("[profile]\nmode = signal\nsignal = SIGPROF\n"), 0,
		     "%s", all_errors());
	cr_assert_eq(cfg.mode_request, PPF_MODE_REQUEST_SIGNAL);
	cr_assert_eq(cfg.signal, SIGPROF);
	cr_assert_eq(parse("[profile]\nsignal = rtmax-3\n"), 0, "%s", all_errors());
	cr_assert_eq(cfg.signal, SIGRTMAX - 3);
	cr_assert_eq(parse("[profile]\nsignal = SIGRTMIN\n"), 0, "%s", all_errors());
	cr_assert_eq(cfg.signal, SIGRTMIN);
	cr_assert_eq(parse("[profile]\nsignal = 12\n"), 0, "%s", all_errors());
	cr_assert_eq(cfg.signal, SIGUSR2);
	cr_assert_eq(parse("[profile]\nsignal = auto\n"), 0, "%s", all_errors());
	cr_assert_eq(cfg.signal, 0);
	expect_error("[profile]\nsignal = SIGSEGV\n", 2, "signal = 'SIGSEGV'",
		     "SIGRTMIN+N");
	expect_error("[profile]\nsignal = 9\n", 2, "signal = '9'", NULL);
	expect_error("[profile]\nsignal = SIGRTMAX-99\n", 2, "SIGRTMAX-99", NULL);
	/* A sign needs its number, right after it. */
	expect_error("[profile]\nsignal = SIGRTMIN+\n", 2, "signal = 'SIGRTMIN+'", NULL);
	expect_error("[profile]\nsignal = RTMIN+ 3\n", 2, "signal = 'RTMIN+ 3'", NULL);
}

/* A section line holds its [name] and at most a comment: "[profile] junk" was taken whole. */
Test(config, rejects_text_after_a_sections_bracket)
{
	expect_error("[profile] junk\nmode = signal\n", 1, "'[profile] junk'",
		     "text after the section's ]");
	cr_assert_eq(parse("[profile]   ; the profile's keys\nmode = signal\n"), 0, "%s",
		     all_errors());
	cr_assert_eq(cfg.mode_request, PPF_MODE_REQUEST_SIGNAL);
}

Test(config, mode_from_the_environment)
{
	unsetenv("PPROF_CONFIG");
	unsetenv("PPROF_FOLLOW_EXEC");
	setenv("PPROF_MODE", "signal", 1);
	cr_assert_eq(pp_config_load(&cfg, &errs), 0, "%s", all_errors());
	cr_assert_eq(cfg.mode_request, PPF_MODE_REQUEST_SIGNAL);
	pp_config_release(&cfg);
	setenv("PPROF_MODE", "fast", 1);
	cr_assert_neq(pp_config_load(&cfg, &errs), 0);
	cr_assert(strstr(errs.e[0].msg, "PPROF_MODE=fast"), "%s", errs.e[0].msg);
	unsetenv("PPROF_MODE");
}

Test(config, reports_every_problem_in_line_order)
{
	cr_assert_eq(parse("[sample cpu-clock]\nperiod = x\n[profile]\n"
			   "max_frames = 0\nbogus = 1\n"), -EINVAL);
	cr_assert_eq(errs.n, 3, "%s", all_errors());
	cr_assert_eq(errs.e[0].line, 2);
	cr_assert_eq(errs.e[1].line, 4);
	cr_assert_eq(errs.e[2].line, 5);
}

Test(config, at_most_sixteen_events)
{
	char text[4096] = "";

	for (int i = 0; i < 17; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "[count e%d]\nevent = r%x\n", i, i + 1);
	expect_error(text, 33, "more than 16 events", NULL);
}

/* pp_config_load reads PPROF_CONFIG and the environment. */
Test(config, load_makes_the_file_path_absolute_and_env_overrides)
{
	char dir[] = "/tmp/pp-config-XXXXXX", cwd[4096], want[4200];
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(dir), 0);
	f = fopen("p.ini", "w");
	fputs("[profile]\noutput = out\nfollow_exec = yes\n", f);
	fclose(f);
	setenv("PPROF_CONFIG", "p.ini", 1);
	unsetenv("PPROF_OUTPUT");
	setenv("PPROF_FOLLOW_EXEC", "0", 1);
	cr_assert_eq(pp_config_load(&cfg, &errs), 0, "%s", all_errors());
	snprintf(want, sizeof(want), "%s/p.ini", dir);
	cr_assert_str_eq(getenv("PPROF_CONFIG"), want);
	cr_assert_str_eq(cfg.source, want);
	snprintf(want, sizeof(want), "%s/out", dir);
	cr_assert_str_eq(cfg.output, want);
	cr_assert_eq(cfg.follow_exec, 0);
	pp_config_release(&cfg);
	setenv("PPROF_OUTPUT", "/elsewhere", 1);
	cr_assert_eq(pp_config_load(&cfg, &errs), 0, "%s", all_errors());
	cr_assert_str_eq(cfg.output, "/elsewhere");
	unlink("p.ini");
	cr_assert_eq(chdir(cwd), 0);
	rmdir(dir);
}

Test(config, load_names_an_unreadable_or_binary_file)
{
	char path[] = "/tmp/pp-config-XXXXXX";
	int fd = mkstemp(path);

	setenv("PPROF_CONFIG", "/nonexistent/x.ini", 1);
	cr_assert_neq(pp_config_load(&cfg, &errs), 0);
	cr_assert(strstr(errs.e[0].msg, "PPROF_CONFIG=/nonexistent/x.ini") &&
		  strstr(errs.e[0].msg, "No such file"), "%s", errs.e[0].msg);
	pp_config_release(&cfg);
	cr_assert_eq(write(fd, "[profile]\n\0x", 12), 12);
	close(fd);
	setenv("PPROF_CONFIG", path, 1);
	cr_assert_neq(pp_config_load(&cfg, &errs), 0);
	cr_assert(strstr(errs.e[0].msg, "byte 10 is a NUL"), "%s", errs.e[0].msg);
	unlink(path);
	unsetenv("PPROF_CONFIG");
}

Test(config, load_rejects_a_bad_follow_exec_variable)
{
	unsetenv("PPROF_CONFIG");
	setenv("PPROF_FOLLOW_EXEC", "maybe", 1);
	cr_assert_neq(pp_config_load(&cfg, &errs), 0);
	cr_assert(strstr(errs.e[0].msg, "PPROF_FOLLOW_EXEC=maybe"), "%s",
		  errs.e[0].msg);
}

/*
 * Context switches, cgroup switches and migrations happen only in the
 * kernel: they count there by default, and excluding the kernel (which
 * would count nothing) is an error.
 */
Test(config, kernel_only_events_count_in_the_kernel)
{
	static const char *const names[] = { "context-switches", "cgroup-switches",
					     "cpu-migrations" };
	char text[128];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(text, sizeof(text), "[count %s]\n", names[i]);
		cr_assert_eq(parse(text), 0, "%s: %s", names[i], all_errors());
		cr_expect(cfg.events[0].kernel_only && !cfg.events[0].exclude_kernel &&
			  !cfg.events[0].exclude_user, "%s", names[i]);
		snprintf(text, sizeof(text), "[sample %s]\nperiod = 1\n"
			 "exclude_kernel = yes\n", names[i]);
		expect_error(text, 3, names[i], "it counts nothing");
	}
}
