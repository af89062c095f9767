/*
 * Integration: modules loaded and unloaded at run time. libburn.so and then
 * libreload.so are loaded at the same address in turn; each sample must be
 * named from the module that was there when it was taken.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>
#include <sys/wait.h>

#include "tst_it.h"

static struct tst_it it_mod;

static void it_mod_init(void)
{
	tst_init(&it_mod);
}

static void it_mod_fini(void)
{
	tst_release(&it_mod);
}

TestSuite(it_modules, .init = it_mod_init, .fini = it_mod_fini, .timeout = 120);

Test(it_modules, same_address_reuse_is_not_confused)
{
	const char *argv[] = { "workloads/dlreuse", "0.1", "3", NULL };
	struct tst_result r;
	struct pa_profile *p;
	struct pa_run *run;
	uint64_t unresolved = 0;

	tst_run_profiled(&it_mod, "reuse", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	/* Without the reuse this test would check nothing special. */
	cr_assert(strstr(r.out, "same address yes"), "%s", r.out);
	run = tst_load(&it_mod);
	p = tst_profile(run, 0, 0);
	/* 3 x 0.1 s each, at one sample per ms. */
	cr_expect_geq(tst_self(p, "burn_gamma"), 150);
	cr_expect_geq(tst_self(p, "burn_delta"), 150);
	cr_expect_eq(tst_self(p, "reload_pad"), 0, "libburn.so's samples named from libreload.so");
	for (size_t i = 0; i < p->nfuncs; i++)
		if (strstr(p->funcs[i].name, ".so+0x"))
			unresolved += p->funcs[i].self;
	cr_expect_lt(unresolved, 5, "%llu samples left unresolved", (unsigned long long)unresolved);
	pa_profile_free(p);
	pa_run_free(run);
	tst_result_release(&r);
}

/*
 * A program that takes a loaded library's memory away itself (ehgone):
 * the segment with its unwind tables made unreadable, unmapped, replaced,
 * or the page with its headers unmapped. libunwind reads those at a sample
 * in the library: the program was killed by SIGSEGV inside the handler.
 * It runs to the end, its samples there keep their leaf, and once the
 * memory is readable again its stacks are whole again.
 */
struct it_mod_way {
	char how[16];
};

static struct it_mod_way it_mod_ways[] = { { "mprotect" }, { "munmap" }, { "anon" }, { "headers" } };

ParameterizedTestParameters(it_modules, library_memory_taken_away_by_the_program)
{
	return cr_make_param_array(struct it_mod_way, it_mod_ways,
				   sizeof(it_mod_ways) / sizeof(it_mod_ways[0]));
}

ParameterizedTest(struct it_mod_way *way, it_modules, library_memory_taken_away_by_the_program)
{
	const char *how[] = { way->how };
	const char *argv[] = { "workloads/ehgone", way->how, "0.2", NULL };
	char done[64];
	struct tst_result r;
	struct pa_profile *p;
	struct pa_run *run;
	/* 0.2 s of CPU per burn at one sample per ms: half of it at least. */
	const uint64_t least = 100;

	tst_run_profiled(&it_mod, *how, argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: status %d: %s", *how,
		  r.status, r.err);
	snprintf(done, sizeof(done), "ehgone: %s done\n", *how);
	cr_expect_str_eq(r.out, done);
	run = tst_load(&it_mod);
	p = tst_profile(run, 0, 0);
	cr_expect_geq(tst_stack_count(p, "main;ehgone_burn;ehgone_before"), least, "%s", *how);
	cr_expect_geq(tst_self(p, "ehgone_during"), least, "%s", *how);
	if (strcmp(*how, "headers") != 0)
		cr_expect_geq(tst_stack_count(p, "main;ehgone_burn;ehgone_after"), least,
			      "%s: stacks not whole again once the memory is back", *how);
	pa_profile_free(p);
	pa_run_free(run);
	tst_result_release(&r);
}

/*
 * A guard page in the program's own .bss flipped with mprotect (guardflip):
 * libunwind never reads a writable segment, so the flips are passed on as
 * they come. Each took the slow path (samples held to the leaf, the module
 * map rescanned) in this stop's first version: another thread's stacks
 * were whole for 65 of 1479 samples.
 */
Test(it_modules, a_guard_page_in_the_programs_data_leaves_stacks_whole)
{
	const char *argv[] = { "workloads/guardflip", "0.3", NULL };
	struct tst_result r;
	struct pa_profile *p;
	struct pa_run *run;
	uint64_t self, whole;

	tst_run_profiled(&it_mod, "guardflip", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	cr_expect_str_eq(r.out, "guardflip: flipped\n");
	run = tst_load(&it_mod);
	p = tst_profile(run, 0, 0);
	self = tst_self(p, "guard_inner");
	whole = tst_stack_count(p, "main;guard_outer;guard_inner");
	cr_expect_geq(self, 150, "%llu samples in guard_inner", (unsigned long long)self);
	cr_expect_geq(whole, self * 95 / 100, "%llu of %llu samples with their stack",
		      (unsigned long long)whole, (unsigned long long)self);
	pa_profile_free(p);
	pa_run_free(run);
	tst_result_release(&r);
}
