/*
 * Event names through libpfm4 (DESIGN.md: Library quirks). libpfm4 is loaded
 * with dlopen when a name must be resolved: loading it (relocating its event
 * tables) and pfm_initialize() cost ~1.2 ms of every process start. The
 * events of the embedded default (config/default.ini) are resolved with
 * libpfm4 when the library is built (tools/evname_gen.c writes
 * evname_builtin.h), so a process without PPROF_CONFIG never loads it.
 */
#include "evname.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <string.h>

#include "strdist.h"

#define PP_EVNAME_LIBPFM "libpfm.so.4"

/* The encodings resolved at build time, for the embedded default. */
struct pp_evname_builtin {
	const char *spec;
	int exclude_user;  /* as asked */
	int exclude_kernel;
	struct pp_evname result;
};

#ifdef PP_EVNAME_GENERATOR
static const struct pp_evname_builtin pp_evname_builtins[1];
static const unsigned pp_evname_nbuiltins = 0;
static pp_evname_record_fn pp_evname_recorder;

void pp_evname_record(pp_evname_record_fn fn)
{
	pp_evname_recorder = fn;
}
#else
#include "evname_builtin.h"
#endif

static struct {
	void *handle;
	int ready; /* pfm_initialize succeeded */
	int (*initialize)(void);
	void (*terminate)(void);
	const char *(*strerror)(int);
	int (*encode)(const char *, int, pfm_os_t, void *);
	int (*pmu_info)(pfm_pmu_t, pfm_pmu_info_t *);
	int (*event_next)(int);
	int (*event_info)(int, pfm_os_t, pfm_event_info_t *);
} pp_pfm;

/* Loads and starts libpfm4. Returns 0, or -EINVAL with why. */
static int pp_evname_init(char *why, size_t why_size)
{
	int ret;

	if (pp_pfm.ready)
		return 0;
	if (!pp_pfm.handle)
		pp_pfm.handle = dlopen(PP_EVNAME_LIBPFM, RTLD_NOW | RTLD_LOCAL);
	if (!pp_pfm.handle) {
		snprintf(why, why_size, "cannot load %s (Debian package libpfm4) "
			 "to resolve event names: %s", PP_EVNAME_LIBPFM, dlerror());
		return -EINVAL;
	}
	*(void **)&pp_pfm.initialize = dlsym(pp_pfm.handle, "pfm_initialize");
	*(void **)&pp_pfm.terminate = dlsym(pp_pfm.handle, "pfm_terminate");
	*(void **)&pp_pfm.strerror = dlsym(pp_pfm.handle, "pfm_strerror");
	*(void **)&pp_pfm.encode = dlsym(pp_pfm.handle, "pfm_get_os_event_encoding");
	*(void **)&pp_pfm.pmu_info = dlsym(pp_pfm.handle, "pfm_get_pmu_info");
	*(void **)&pp_pfm.event_next = dlsym(pp_pfm.handle, "pfm_get_event_next");
	*(void **)&pp_pfm.event_info = dlsym(pp_pfm.handle, "pfm_get_event_info");
	if (!pp_pfm.initialize || !pp_pfm.terminate || !pp_pfm.strerror ||
	    !pp_pfm.encode || !pp_pfm.pmu_info || !pp_pfm.event_next ||
	    !pp_pfm.event_info) {
		snprintf(why, why_size, "%s lacks the functions libpprof needs",
			 PP_EVNAME_LIBPFM);
		return -EINVAL;
	}
	ret = pp_pfm.initialize();
	if (ret != PFM_SUCCESS) {
		snprintf(why, why_size, "libpfm4 cannot start: %s", pp_pfm.strerror(ret));
		return -EINVAL;
	}
	pp_pfm.ready = 1;
	return 0;
}

static const struct pp_evname *pp_evname_builtin(const char *spec, int exclude_user,
						 int exclude_kernel)
{
	for (unsigned i = 0; i < pp_evname_nbuiltins; i++)
		if (strcmp(pp_evname_builtins[i].spec, spec) == 0 &&
		    pp_evname_builtins[i].exclude_user == exclude_user &&
		    pp_evname_builtins[i].exclude_kernel == exclude_kernel)
			return &pp_evname_builtins[i].result;
	return NULL;
}

int pp_evname_encode(const char *spec, int exclude_user, int exclude_kernel,
		     struct pp_evname *out, char *why, size_t why_size)
{
	const struct pp_evname *known = pp_evname_builtin(spec, exclude_user,
							  exclude_kernel);
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	int plm = (exclude_user ? 0 : PFM_PLM3) | (exclude_kernel ? 0 : PFM_PLM0);
	int ret;

	if (known) {
		*out = *known;
		return 0;
	}
	ret = pp_evname_init(why, why_size);
	if (ret)
		return ret;
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	ret = pp_pfm.encode(spec, plm, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS) {
		snprintf(why, why_size, "%s", pp_pfm.strerror(ret));
		return ret == PFM_ERR_NOTFOUND ? -ENOENT : -EINVAL;
	}
	if (attr.sample_period || attr.freq) {
		snprintf(why, why_size, "give the rate with the period or "
			 "frequency key, not as a modifier");
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	out->type = attr.type;
	out->config = attr.config;
	out->config1 = attr.config1;
	out->config2 = attr.config2;
	out->exclude_user = attr.exclude_user;
	out->exclude_kernel = attr.exclude_kernel;
	out->precise_ip = attr.precise_ip;
	out->time_ns = attr.type == PERF_TYPE_SOFTWARE &&
		       (attr.config == PERF_COUNT_SW_CPU_CLOCK ||
			attr.config == PERF_COUNT_SW_TASK_CLOCK);
	out->kernel_only = attr.type == PERF_TYPE_SOFTWARE &&
			   (attr.config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
			    attr.config == PERF_COUNT_SW_CGROUP_SWITCHES ||
			    attr.config == PERF_COUNT_SW_CPU_MIGRATIONS);
#ifdef PP_EVNAME_GENERATOR
	if (pp_evname_recorder)
		pp_evname_recorder(spec, exclude_user, exclude_kernel, out);
#endif
	return 0;
}

/*
 * How a libpfm4 name reads to a user: the generic perf PMU's names are
 * written lower-case (as perf does), others as PMU::NAME.
 */
static void pp_evname_display(const char *pmu, const char *name, char *out,
			      size_t out_size)
{
	size_t i = 0;

	if (strcmp(pmu, "perf") != 0) {
		snprintf(out, out_size, "%s::%s", pmu, name);
		return;
	}
	for (; name[i] && i + 1 < out_size; i++)
		out[i] = (char)tolower((unsigned char)name[i]);
	out[i] = '\0';
}

int pp_evname_closest(const char *spec, char *out, size_t out_size)
{
	char want[128], cand[128], why[256];
	unsigned best = ~0u;
	int pmu;

	snprintf(want, sizeof(want), "%s", spec);
	want[strcspn(want, ":")] = '\0';
	if (pp_evname_init(why, sizeof(why)))
		return 0;
	pfm_for_all_pmus(pmu) {
		pfm_pmu_info_t pinfo = { .size = sizeof(pinfo) };

		if (pp_pfm.pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		for (int i = pinfo.first_event; i != -1; i = pp_pfm.event_next(i)) {
			pfm_event_info_t info = { .size = sizeof(info) };
			unsigned d;

			if (pp_pfm.event_info(i, PFM_OS_NONE, &info) != PFM_SUCCESS)
				continue;
			pp_evname_display(pinfo.name, info.name, cand, sizeof(cand));
			d = pp_strdist(want, cand);
			if (d < best) {
				best = d;
				snprintf(out, out_size, "%s", cand);
			}
		}
	}
	return pp_strdist_close(want, best);
}

void pp_evname_done(void)
{
	if (pp_pfm.ready)
		pp_pfm.terminate();
	pp_pfm.ready = 0;
	/* The handle stays: unloading would cost more than the memory it holds. */
}
