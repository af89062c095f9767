/*
 * Integration: modules loaded and unloaded at run time. libburn.so and then
 * libreload.so are loaded at the same address in turn; each sample must be
 * named from the module that was there when it was taken.
 */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/wait.h>

#include "pa_it.h"

static struct pa_it it_mod;

static void it_mod_init(void)
{
	pa_it_init(&it_mod);
}

static void it_mod_fini(void)
{
	pa_it_release(&it_mod);
}

TestSuite(it_modules, .init = it_mod_init, .fini = it_mod_fini, .timeout = 120);

Test(it_modules, same_address_reuse_is_not_confused)
{
	const char *argv[] = { "workloads/dlreuse", "0.1", "3", NULL };
	struct pa_it_result r;
	struct pa_profile *p;
	struct pa_run *run;
	uint64_t unresolved = 0;

	pa_it_run_profiled(&it_mod, "reuse", argv, NULL, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
	/* Without the reuse this test would check nothing special. */
	cr_assert(strstr(r.out, "same address yes"), "%s", r.out);
	run = pa_it_load(&it_mod);
	p = pa_it_profile(run, 0, 0);
	/* 3 x 0.1 s each, at one sample per ms. */
	cr_expect_geq(pa_it_self(p, "burn_gamma"), 150);
	cr_expect_geq(pa_it_self(p, "burn_delta"), 150);
	cr_expect_eq(pa_it_self(p, "reload_pad"), 0, "libburn.so's samples named from libreload.so");
	for (size_t i = 0; i < p->nfuncs; i++)
		if (strstr(p->funcs[i].name, ".so+0x"))
			unresolved += p->funcs[i].self;
	cr_expect_lt(unresolved, 5, "%llu samples left unresolved", (unsigned long long)unresolved);
	pa_profile_free(p);
	pa_run_free(run);
	pa_it_result_release(&r);
}
