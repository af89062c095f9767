/* perf_event_open for the sigtrap mode (DESIGN.md, Sampling modes). */
#include "events.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd.h"
#include "sampler.h"

static void pp_events_attr(struct perf_event_attr *attr,
			   const struct pp_config_event *ce, unsigned index)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = ce->type;
	attr->config = ce->config;
	if (ce->freq) {
		attr->freq = 1;
		attr->sample_freq = ce->period;
	} else {
		attr->sample_period = ce->period;
	}
	attr->exclude_kernel = ce->exclude_kernel ? 1 : 0;
	attr->exclude_hv = 1;
	attr->inherit = 1;
	attr->inherit_thread = 1;
	attr->remove_on_exec = 1;
	attr->sigtrap = 1;
	attr->sig_data = PP_SIGDATA_TAG | index;
}

static const char *pp_events_hint(int err)
{
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
		return "this machine does not provide the event (no hardware "
		       "PMU?); use a software event such as cpu-clock";
	case EACCES:
	case EPERM:
		return "not permitted: check /proc/sys/kernel/perf_event_paranoid "
		       "(events must exclude the kernel above 1) and seccomp";
	case EINVAL:
		return "the kernel refused the settings (sigtrap mode needs "
		       "Linux 5.13 or later; is the rate above "
		       "perf_event_max_sample_rate?)";
	case ENOSYS:
		return "perf_event_open is not available (kernel built without "
		       "perf events, or blocked by seccomp)";
	case EMFILE:
	case ENFILE:
		return "out of file descriptors";
	default:
		return "the kernel refused the event";
	}
}

static int pp_events_open_one(const struct pp_config_event *ce, unsigned index,
			      pid_t tid)
{
	struct perf_event_attr attr;
	int fd;

	pp_events_attr(&attr, ce, index);
	fd = (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	return pp_fd_move_high_sigsafe(fd);
}

int pp_events_open(struct pp_events *ev, const struct pp_config *cfg,
		   char *msg, size_t msg_size)
{
	memset(ev, 0, sizeof(*ev));
	for (unsigned i = 0; i < cfg->nevents; i++) {
		int fd = pp_events_open_one(&cfg->events[i], i, 0);

		if (fd < 0) {
			snprintf(msg, msg_size, "cannot open event %s: %s; %s",
				 cfg->events[i].name, strerror(-fd),
				 pp_events_hint(-fd));
			pp_events_close(ev);
			return fd;
		}
		ev->fds[ev->n++] = fd;
	}
	return 0;
}

/* Opens cfg's events on thread tid; all or none. */
static int pp_events_open_task(struct pp_events *ev, const struct pp_config *cfg,
			       pid_t tid)
{
	unsigned first = ev->n;

	if (ev->n + cfg->nevents > sizeof(ev->fds) / sizeof(ev->fds[0]))
		return -ENOSPC;
	for (unsigned i = 0; i < cfg->nevents; i++) {
		int fd = pp_events_open_one(&cfg->events[i], i, tid);

		if (fd < 0) {
			while (ev->n > first)
				close(ev->fds[--ev->n]);
			return fd;
		}
		ev->fds[ev->n++] = fd;
	}
	return 0;
}

int pp_events_open_others(struct pp_events *ev, const struct pp_config *cfg)
{
	pid_t self = (pid_t)syscall(SYS_gettid);
	DIR *dir = opendir("/proc/self/task");
	struct dirent *de;
	int opened = 0;

	if (!dir)
		return 0;
	while ((de = readdir(dir)) != NULL) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid > 0 && tid != self && pp_events_open_task(ev, cfg, tid) == 0)
			opened++;
	}
	closedir(dir);
	return opened;
}

void pp_events_disable(struct pp_events *ev)
{
	for (unsigned i = 0; i < ev->n; i++)
		ioctl(ev->fds[i], PERF_EVENT_IOC_DISABLE, 0);
}

void pp_events_close(struct pp_events *ev)
{
	for (unsigned i = 0; i < ev->n; i++)
		close(ev->fds[i]);
	ev->n = 0;
}
