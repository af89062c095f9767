/* Event names through libpfm4 (DESIGN.md: Library quirks). */
#include "evname.h"

#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <string.h>

#include "strdist.h"

static int pp_evname_ready;

static int pp_evname_init(char *why, size_t why_size)
{
	int ret;

	if (pp_evname_ready)
		return 0;
	ret = pfm_initialize();
	if (ret != PFM_SUCCESS) {
		snprintf(why, why_size, "libpfm4 cannot start: %s", pfm_strerror(ret));
		return -EINVAL;
	}
	pp_evname_ready = 1;
	return 0;
}

int pp_evname_encode(const char *spec, int exclude_user, int exclude_kernel,
		     struct pp_evname *out, char *why, size_t why_size)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	int plm = (exclude_user ? 0 : PFM_PLM3) | (exclude_kernel ? 0 : PFM_PLM0);
	int ret = pp_evname_init(why, why_size);

	if (ret)
		return ret;
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	ret = pfm_get_os_event_encoding(spec, plm, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS) {
		snprintf(why, why_size, "%s", pfm_strerror(ret));
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
			    attr.config == PERF_COUNT_SW_CPU_MIGRATIONS);
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
	char want[128], cand[128], why[128];
	unsigned best = ~0u;
	int pmu;

	snprintf(want, sizeof(want), "%s", spec);
	want[strcspn(want, ":")] = '\0';
	if (pp_evname_init(why, sizeof(why)))
		return 0;
	pfm_for_all_pmus(pmu) {
		pfm_pmu_info_t pinfo = { .size = sizeof(pinfo) };

		if (pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		for (int i = pinfo.first_event; i != -1; i = pfm_get_event_next(i)) {
			pfm_event_info_t info = { .size = sizeof(info) };
			unsigned d;

			if (pfm_get_event_info(i, PFM_OS_NONE, &info) != PFM_SUCCESS)
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
	if (!pp_evname_ready)
		return;
	pfm_terminate();
	pp_evname_ready = 0;
}
