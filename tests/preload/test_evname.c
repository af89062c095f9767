/*
 * Unit tests for preload/evname.c: event names to perf encodings with
 * libpfm4 (generic names, modifiers, raw encodings), the default's event
 * without loading libpfm4, and "did you mean" for an unknown name.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

#include "evname.h"

/* spec encoded with the default levels (user and kernel), expecting success. */
static struct pp_evname en_encode(const char *spec, int exclude_user, int exclude_kernel)
{
	struct pp_evname e;
	char why[256] = "";

	cr_assert_eq(pp_evname_encode(spec, exclude_user, exclude_kernel, &e, why, sizeof(why)), 0,
		     "%s: %s", spec, why);
	return e;
}

/* The embedded default's event is resolved at build time: libpfm4 stays unloaded. */
Test(evname, default_event_needs_no_libpfm)
{
	struct pp_evname e = en_encode("cpu-clock", 0, 1);

	cr_expect_eq(e.type, PERF_TYPE_SOFTWARE);
	cr_expect_eq(e.config, PERF_COUNT_SW_CPU_CLOCK);
	cr_expect(e.time_ns);
	cr_expect(e.exclude_kernel && !e.exclude_user);
	cr_expect_null(dlopen("libpfm.so.4", RTLD_NOW | RTLD_NOLOAD), "libpfm4 was loaded");
}

Test(evname, generic_names_by_libpfm)
{
	struct pp_evname e = en_encode("cycles", 0, 0);

	cr_expect_eq(e.type, PERF_TYPE_HARDWARE);
	cr_expect_eq(e.config, PERF_COUNT_HW_CPU_CYCLES);
	cr_expect_not(e.time_ns);
	e = en_encode("page-faults", 0, 0);
	cr_expect_eq(e.type, PERF_TYPE_SOFTWARE);
	cr_expect_eq(e.config, PERF_COUNT_SW_PAGE_FAULTS);
	cr_expect_not(e.kernel_only);
	e = en_encode("task-clock", 0, 0);
	cr_expect_eq(e.config, PERF_COUNT_SW_TASK_CLOCK);
	cr_expect(e.time_ns, "task-clock counts nanoseconds");
	e = en_encode("context-switches", 0, 0);
	cr_expect(e.kernel_only, "a context switch happens in the kernel");
	e = en_encode("CPU-CLOCK", 0, 0);
	cr_expect_eq(e.config, PERF_COUNT_SW_CPU_CLOCK, "names ignore case");
}

/* :u and :k in the name win over the levels asked for. */
Test(evname, modifiers_win_over_the_default_levels)
{
	struct pp_evname e = en_encode("instructions:u", 0, 0);

	cr_expect_eq(e.config, PERF_COUNT_HW_INSTRUCTIONS);
	cr_expect(!e.exclude_user && e.exclude_kernel);
	e = en_encode("instructions:k", 0, 1);
	cr_expect(e.exclude_user && !e.exclude_kernel);
	e = en_encode("instructions", 1, 0);
	cr_expect(e.exclude_user && !e.exclude_kernel, "no modifier: the levels asked for");
}

Test(evname, raw_encoding)
{
	struct pp_evname e = en_encode("r01c2", 0, 0);

	cr_expect_eq(e.type, PERF_TYPE_RAW);
	cr_expect_eq(e.config, 0x1c2);
}

Test(evname, unknown_name_and_its_closest)
{
	struct pp_evname e;
	char why[256] = "", near[128] = "";

	cr_expect_eq(pp_evname_encode("cyclez", 0, 0, &e, why, sizeof(why)), -ENOENT);
	cr_expect_neq(why[0], '\0', "a reason");
	cr_expect_null(strchr(why, '\n'));
	cr_expect_eq(pp_evname_closest("cyclez:u", near, sizeof(near)), 1);
	cr_expect_str_eq(near, "cycles");
	cr_expect_eq(pp_evname_closest("page-fault", near, sizeof(near)), 1);
	cr_expect_str_eq(near, "page-faults");
	cr_expect_eq(pp_evname_closest("xyzzy-plugh-frobnicate", near, sizeof(near)), 0,
		     "nothing close: %s", near);
}

/* A rate belongs in the period or frequency key, not in the name. */
Test(evname, refuses_a_rate_in_the_name)
{
	struct pp_evname e;
	char why[256] = "";

	cr_expect_eq(pp_evname_encode("cycles:period=1000", 0, 0, &e, why, sizeof(why)), -EINVAL,
		     "%s", why);
	cr_expect_str_eq(why, "give the rate with the period or frequency key, not as a "
			 "modifier");
	cr_expect_eq(pp_evname_encode("cycles:nonsense", 0, 0, &e, why, sizeof(why)), -EINVAL);
	cr_expect_neq(why[0], '\0');
}
