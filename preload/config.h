/*
 * config: what to sample. This version knows the embedded default only
 * (cpu-clock, 1 ms of CPU per sample, user space); the INI file comes later.
 */
#ifndef PP_CONFIG_H
#define PP_CONFIG_H

#include <stdint.h>

#include "pprof/format.h"

#define PP_CONFIG_MAX_EVENTS 16

struct pp_config_event {
	char name[PPF_NAME_MAX];
	uint32_t type;      /* perf_event_attr.type */
	uint64_t config;    /* perf_event_attr.config */
	uint64_t period;    /* sample_period, or Hz when freq */
	int freq;
	int exclude_kernel;
	int time_ns;        /* the counter counts nanoseconds */
};

struct pp_config {
	char output[4096];  /* output root, absolute after pp_config_resolve */
	unsigned max_frames;
	unsigned nevents;
	struct pp_config_event events[PP_CONFIG_MAX_EVENTS];
};

/* Fills cfg with the embedded default. */
void pp_config_default(struct pp_config *cfg);

/*
 * Applies the environment: PPROF_OUTPUT (output root, default ./pprof-data),
 * made absolute against the current directory. Returns 0 or a negative errno.
 */
int pp_config_from_env(struct pp_config *cfg);

#endif
