/*
 * Integration: the names a real run's reports give glibc's aliased
 * functions and PLT stubs. workloads/pltcalls calls malloc, free and
 * memcpy through its PLT, and a tiny function of libpltcallee.so whose stub
 * gets a good share of the samples; top, folded, script and pprof (read
 * back by Go's pprof) all name malloc and free so (not __libc_malloc,
 * __libc_free or cfree), and the stub pltcallee_next@plt.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tst_it.h"

static struct tst_it it_names;

static void it_names_init(void)
{
	tst_init(&it_names);
}

static void it_names_fini(void)
{
	tst_release(&it_names);
}

TestSuite(it_names, .init = it_names_init, .fini = it_names_fini, .timeout = 180);

/* argv (argv[0] relative to the build directory); expects exit 0; its stdout, malloc'd. */
static char *it_names_out(const char *tag, const char *const *argv)
{
	struct tst_result r;
	char *out;

	tst_run(&it_names, tag, argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		  "%s: status 0x%x, stderr: %s", argv[0], r.status, r.err);
	out = r.out;
	r.out = NULL;
	tst_result_release(&r);
	return out;
}

/* The self samples of top's line for "name (module)", -1 if none. */
static long it_names_top_self(const char *top, const char *name, const char *module)
{
	char want[256];
	const char *line;

	snprintf(want, sizeof(want), "  %s (%s)\n", name, module);
	line = strstr(top, want);
	if (!line)
		return -1;
	while (line > top && line[-1] != '\n')
		line--;
	return strtol(line, NULL, 10);
}

/*
 * text (malloc'd, freed here), what tool wrote, has every string of want
 * (NULL-terminated) and none of malloc's and free's aliases.
 */
static void it_names_expect(const char *tool, char *text, const char *const *want)
{
	static const char *const aliases[] = { "__libc_malloc", "__libc_free", "cfree",
					       "__malloc", "__free" };

	for (size_t i = 0; want[i]; i++)
		cr_expect(strstr(text, want[i]), "%s has no \"%s\":\n%s", tool, want[i], text);
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		cr_expect_null(strstr(text, aliases[i]), "%s names %s:\n%s", tool, aliases[i], text);
	free(text);
}

Test(it_names, malloc_free_and_plt_stubs_in_every_report)
{
	const char *run[] = { "workloads/pltcalls", "0.4", NULL };
	const char *top[] = { "pprof-analyze", "top", it_names.data, NULL };
	const char *folded[] = { "pprof-analyze", "folded", it_names.data, NULL };
	const char *script[] = { "pprof-analyze", "script", it_names.data, NULL };
	char pb[TST_PATH_MAX], gopprof[TST_PATH_MAX];
	const char *pprof[] = { "pprof-analyze", "pprof", it_names.data, "-o", pb, NULL };
	const char *gotop[] = { gopprof, "-top", "-sample_index=samples", "-nodefraction=0",
				"-nodecount=100000", pb, NULL };
	struct tst_result r;
	char *text;

	tst_run_profiled(&it_names, "run", run, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "pltcalls: %s", r.err);
	tst_result_release(&r);

	text = it_names_out("top", top);
	cr_expect_gt(it_names_top_self(text, "malloc", "libc.so.6"), 0, "%s", text);
	cr_expect_geq(it_names_top_self(text, "free", "libc.so.6"), 0, "%s", text);
	cr_expect_gt(it_names_top_self(text, "pltcallee_next@plt", "pltcalls"), 0, "%s", text);
	cr_expect_null(strstr(text, "pltcalls+0x"), "a stub left unnamed:\n%s", text);
	it_names_expect("top", text, (const char *const[]){ NULL });

	it_names_expect("folded", it_names_out("folded", folded),
			(const char *const[]){ ";main;malloc", ";main;free",
					       ";main;pltcallee_next@plt ", NULL });
	it_names_expect("script", it_names_out("script", script),
			(const char *const[]){ " malloc+0x", " free+0x",
					       " pltcallee_next@plt+0x", NULL });

	snprintf(pb, sizeof(pb), "%s/cpu.pb.gz", it_names.tmp);
	free(it_names_out("pprof", pprof));
	tst_tool_path(gopprof, "go-pprof");
	cr_assert(access(gopprof, X_OK) == 0, "%s missing: run make tests-build", gopprof);
	it_names_expect("pprof", it_names_out("gopprof", gotop),
			(const char *const[]){ "  malloc\n", "  free\n", "  pltcallee_next@plt\n",
					       NULL });
}
