/* The embedded default configuration and the environment that adjusts it. */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PP_CONFIG_DEFAULT_OUTPUT "pprof-data"
#define PP_CONFIG_DEFAULT_FRAMES 128
/* 1 ms of CPU per sample: about 1000 samples per second per busy thread. */
#define PP_CONFIG_DEFAULT_PERIOD_NS 1000000

void pp_config_default(struct pp_config *cfg)
{
	struct pp_config_event *ev = &cfg->events[0];

	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->output, sizeof(cfg->output), "%s",
		 PP_CONFIG_DEFAULT_OUTPUT);
	cfg->max_frames = PP_CONFIG_DEFAULT_FRAMES;
	cfg->nevents = 1;
	snprintf(ev->name, sizeof(ev->name), "cpu-clock");
	ev->type = PERF_TYPE_SOFTWARE;
	ev->config = PERF_COUNT_SW_CPU_CLOCK;
	ev->period = PP_CONFIG_DEFAULT_PERIOD_NS;
	ev->exclude_kernel = 1;
	ev->time_ns = 1;
}

int pp_config_from_env(struct pp_config *cfg)
{
	const char *out = getenv("PPROF_OUTPUT");
	char cwd[4096];
	int n;

	if (out && *out)
		snprintf(cfg->output, sizeof(cfg->output), "%s", out);
	if (cfg->output[0] == '/')
		return 0;
	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	n = snprintf(cwd + strlen(cwd), sizeof(cwd) - strlen(cwd), "/%s",
		     cfg->output);
	if (n < 0 || (size_t)n >= sizeof(cwd) - 1)
		return -ENAMETOOLONG;
	memcpy(cfg->output, cwd, sizeof(cfg->output));
	return 0;
}
