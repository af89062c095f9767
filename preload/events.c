/* perf_event_open for the sigtrap mode and for counters (DESIGN.md, Sampling modes). */
#include "events.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
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
	attr->config1 = ce->config1;
	attr->config2 = ce->config2;
	attr->exclude_kernel = ce->exclude_kernel ? 1 : 0;
	attr->exclude_user = ce->exclude_user ? 1 : 0;
	attr->exclude_hv = 1;
	if (ce->count_only) {
		attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				    PERF_FORMAT_TOTAL_TIME_RUNNING;
		return;
	}
	if (ce->freq) {
		attr->freq = 1;
		attr->sample_freq = ce->period;
	} else {
		attr->sample_period = ce->period;
	}
	attr->precise_ip = ce->precise_ip & 3;
	attr->inherit = 1;
	attr->inherit_thread = 1;
	attr->remove_on_exec = 1;
	attr->sigtrap = 1;
	attr->sig_data = PP_SIGDATA_TAG | index;
}

const char *pp_events_hint(int err)
{
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return "this machine does not provide it (no hardware PMU, as "
		       "in most virtual machines?); use a software event such "
		       "as cpu-clock or task-clock instead";
	case EACCES:
	case EPERM:
		return "not permitted: with perf_event_paranoid above 1 events "
		       "must set exclude_kernel = yes; seccomp may also forbid it";
	case EINVAL:
		return "the kernel refused the settings (sigtrap mode needs "
		       "Linux 5.13 or later; precise_ip too high for this CPU?)";
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

static void pp_events_refused(const struct pp_config *cfg, unsigned i, int err,
			      char (*lines)[PP_EVENTS_LINE_MAX])
{
	const struct pp_config_event *ce = &cfg->events[i];

	snprintf(lines[i], PP_EVENTS_LINE_MAX, "cannot open %s event %s%s%s%s: "
		 "%s; %s", ce->count_only ? "counting" : "sampling", ce->name,
		 strcmp(ce->name, ce->spec) ? " (" : "",
		 strcmp(ce->name, ce->spec) ? ce->spec : "",
		 strcmp(ce->name, ce->spec) ? ")" : "", strerror(-err),
		 pp_events_hint(-err));
}

/* Opens counting event i of cfg for tid into c. Returns 0 or a negative errno. */
static int pp_events_counter_add(struct pp_counters *c, const struct pp_config *cfg,
				 unsigned i, pid_t tid)
{
	int fd = pp_events_open_one(&cfg->events[i], i, tid);

	if (fd < 0)
		return fd;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &c->id[i]) != 0) {
		pp_fd_close_sigsafe(fd);
		return -EINVAL;
	}
	c->fd[i] = fd;
	c->open |= 1u << i;
	return 0;
}

int pp_events_open(struct pp_events *ev, const struct pp_config *cfg,
		   struct pp_counters *self, char (*lines)[PP_EVENTS_LINE_MAX])
{
	unsigned left = 0;

	memset(ev, 0, sizeof(*ev));
	memset(self, 0, sizeof(*self));
	for (unsigned i = 0; i < cfg->nevents; i++) {
		int fd = cfg->events[i].count_only ?
			 pp_events_counter_add(self, cfg, i, 0) :
			 pp_events_open_one(&cfg->events[i], i, 0);

		lines[i][0] = '\0';
		if (fd >= 0) {
			if (!cfg->events[i].count_only)
				ev->fds[ev->n++] = fd;
			left++;
			continue;
		}
		pp_events_refused(cfg, i, fd, lines);
		ev->error[i] = -fd;
		if (cfg->unavailable_off) {
			pp_events_close(ev);
			pp_events_counters_close(self);
			return fd;
		}
	}
	if (left)
		return 0;
	pp_events_close(ev);
	return -ENOENT;
}

/* Opens cfg's sampling events on thread tid; all or none. */
static int pp_events_open_task(struct pp_events *ev, const struct pp_config *cfg,
			       pid_t tid)
{
	unsigned first = ev->n;

	for (unsigned i = 0; i < cfg->nevents; i++) {
		int fd;

		if (cfg->events[i].count_only || ev->error[i])
			continue;
		if (ev->n == sizeof(ev->fds) / sizeof(ev->fds[0]))
			fd = -ENOSPC;
		else
			fd = pp_events_open_one(&cfg->events[i], i, tid);
		if (fd < 0) {
			while (ev->n > first)
				pp_fd_close_sigsafe(ev->fds[--ev->n]);
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
		pp_fd_close_sigsafe(ev->fds[i]);
	ev->n = 0;
}

int pp_events_counters_open(struct pp_counters *c, const struct pp_config *cfg,
			    const struct pp_events *ev, pid_t tid)
{
	for (unsigned i = 0; i < cfg->nevents; i++) {
		int err;

		if (!cfg->events[i].count_only || ev->error[i] ||
		    (c->open & (1u << i)))
			continue;
		err = pp_events_counter_add(c, cfg, i, tid);
		if (err)
			return err;
	}
	return 0;
}

/* Whether counter i's fd still is the event we opened (the app may reuse numbers). */
static int pp_events_counter_ours(const struct pp_counters *c, unsigned i)
{
	uint64_t id;

	if (!(c->open & (1u << i)))
		return 0;
	return ioctl(c->fd[i], PERF_EVENT_IOC_ID, &id) == 0 && id == c->id[i];
}

int pp_events_counter_read(const struct pp_counters *c, unsigned i,
			   struct pp_counter_value *out)
{
	uint64_t buf[3];

	if (!pp_events_counter_ours(c, i))
		return -EBADF;
	if (read(c->fd[i], buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		return -EIO;
	out->value = buf[0];
	out->time_enabled = buf[1];
	out->time_running = buf[2];
	return 0;
}

void pp_events_counters_close(struct pp_counters *c)
{
	for (unsigned i = 0; i < PP_CONFIG_MAX_EVENTS; i++)
		if (pp_events_counter_ours(c, i))
			pp_fd_close_sigsafe(c->fd[i]);
	c->open = 0;
}
