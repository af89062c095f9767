/*
 * evname: event names to perf_event_attr encodings, with libpfm4: the
 * generic perf names (cpu-clock, cycles, page-faults, ...), raw rNNNN
 * encodings, PMU-specific names (PMU::EVENT:UMASK) and modifiers (:u, :k,
 * :precise=N). Runs in the constructor, never in signal context.
 */
#ifndef PP_EVNAME_H
#define PP_EVNAME_H

#include <stddef.h>
#include <stdint.h>

struct pp_evname {
	uint32_t type;
	uint64_t config;
	uint64_t config1;
	uint64_t config2;
	int exclude_user;
	int exclude_kernel;
	unsigned precise_ip;
	int time_ns; /* cpu-clock or task-clock: the count is nanoseconds */
	int kernel_only; /* happens only in kernel context (context-switches,
			    cgroup-switches, cpu-migrations): excluding the
			    kernel counts 0 */
};

/*
 * Encodes spec. exclude_user/exclude_kernel are the default privilege
 * levels; modifiers in spec (":u", ":k") take precedence. Returns 0, or
 * -ENOENT (unknown name) / -EINVAL (bad modifier or encoding) with one line
 * saying why in why (no newline).
 */
int pp_evname_encode(const char *spec, int exclude_user, int exclude_kernel,
		     struct pp_evname *out, char *why, size_t why_size);

/*
 * The known event name closest to spec (ignoring its modifiers), written to
 * out; returns 1 if one is close enough to suggest, else 0.
 */
int pp_evname_closest(const char *spec, char *out, size_t out_size);

#ifdef PP_EVNAME_GENERATOR
/* Build-time generator only: fn sees every encoding made with libpfm4. */
typedef void (*pp_evname_record_fn)(const char *spec, int exclude_user,
				    int exclude_kernel, const struct pp_evname *out);
void pp_evname_record(pp_evname_record_fn fn);
#endif

/* Frees libpfm4's tables (after the configuration is resolved). */
void pp_evname_done(void);

#endif
