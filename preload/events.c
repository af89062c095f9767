/* perf_event_open in the sigtrap and signal modes, and counters (DESIGN.md, Sampling modes). */
#include "events.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sigsafe/fd.h"
#include "sigsafe/sampsig.h"
#include "wall.h"

static void pp_events_attr(struct perf_event_attr *attr,
			   const struct pp_config_event *ce, unsigned index,
			   int mode)
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
	/*
	 * Sampling starts disabled: in the signal mode until its signal is
	 * routed, and at start-up until the process is set up (samples of the
	 * profiler's own start are of no use, and at a short period on a busy
	 * machine they kept the constructor from ever finishing).
	 */
	attr->disabled = 1;
	if (mode == PPF_MODE_SIGNAL) {
		/*
		 * With O_ASYNC the kernel signals every overflow (measured: 997
		 * signals for 1,000 overflows, with or without a ring buffer);
		 * the buffer holds the overflow's address (see
		 * PP_EVENTS_RB_PAGES).
		 */
		attr->wakeup_events = 1;
		attr->sample_type = PERF_SAMPLE_IP;
		/* Each overflow's period, for an event whose period the kernel adjusts. */
		if (pp_events_weighted(ce))
			attr->sample_type |= PERF_SAMPLE_PERIOD;
		return;
	}
	attr->inherit = 1;
	attr->inherit_thread = 1;
	attr->remove_on_exec = 1;
	attr->sigtrap = 1;
	attr->sig_data = PP_EVENTS_SIGDATA_TAG | index;
}

int pp_events_weighted(const struct pp_config_event *ce)
{
	return !ce->count_only && ce->freq && !ce->time_ns;
}

/*
 * Whether the calling thread opens a counter of its own for event ce: a
 * counting event, and in the sigtrap mode a weighted sampling event (its
 * twin, counting the same: the handler reads what each sample stands for).
 */
static int pp_events_thread_counts(const struct pp_config_event *ce, int mode)
{
	return ce->count_only || (mode == PPF_MODE_SIGTRAP && pp_events_weighted(ce));
}

const char *pp_events_hint(const struct pp_config_event *ce, int err)
{
	if ((err == EACCES || err == EPERM) && ce->kernel_only && !ce->exclude_kernel)
		return "not permitted: it happens only in the kernel, which "
		       "perf_event_paranoid above 1 leaves uncounted without "
		       "CAP_PERFMON (excluding the kernel, it would count "
		       "nothing)";
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
			      pid_t tid, int mode)
{
	struct perf_event_attr attr;
	int fd;

	pp_events_attr(&attr, ce, index, mode);
	fd = (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	return pp_fd_move_high_sigsafe(fd);
}

static size_t pp_events_rb_size(void)
{
	return PP_EVENTS_RB_PAGES * (size_t)sysconf(_SC_PAGESIZE);
}

/*
 * Signal mode: opens sampling event index for thread tid (0: the caller),
 * maps its ring buffer into *rb (NULL if that failed: samples are then not
 * checked for lateness) and routes its overflows to that thread as the
 * sampling signal; enables it when enable is set.
 */
static int pp_events_open_routed(const struct pp_config_event *ce,
				 unsigned index, pid_t tid, void **rb, int enable)
{
	struct f_owner_ex owner = {
		.type = F_OWNER_TID,
		.pid = tid ? tid : (pid_t)syscall(SYS_gettid),
	};
	int fd = pp_events_open_one(ce, index, tid, PPF_MODE_SIGNAL), err = 0;

	*rb = NULL;
	if (fd < 0)
		return fd;
	*rb = mmap(NULL, pp_events_rb_size(), PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd, 0);
	if (*rb == MAP_FAILED)
		*rb = NULL;
	/* System calls: the exported fcntl is the program's (hooks.c), which ours are hidden from. */
	if (syscall(SYS_fcntl, fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 ||
	    syscall(SYS_fcntl, fd, F_SETSIG, pp_sampsig_number_sigsafe()) != 0 ||
	    syscall(SYS_fcntl, fd, F_SETOWN_EX, &owner) != 0)
		err = -errno;
	if (!err) {
		pp_fd_tag_sigsafe(fd, (int)index + 1, *rb);
		if (enable && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0)
			err = -errno;
	}
	if (err) {
		pp_fd_close_sigsafe(fd);
		if (*rb)
			munmap(*rb, pp_events_rb_size());
		*rb = NULL;
		return err;
	}
	return fd;
}

/*
 * Set once the process ends: ring buffers are closed, not unmapped. A
 * thread's handler may have found its event's buffer just before the
 * ending thread closed it (signal mode, at exit), and reads it after.
 */
static int pp_events_ending;

void pp_events_process_ends(void)
{
	__atomic_store_n(&pp_events_ending, 1, __ATOMIC_RELEASE);
}

/*
 * Closes an event's fd (untagged first: a late signal is then not ours)
 * and unmaps its buffer, unless the process is ending (the mapping goes
 * with it).
 */
static void pp_events_close_one(int fd, void **rb)
{
	pp_fd_close_sigsafe(fd);
	if (*rb && !__atomic_load_n(&pp_events_ending, __ATOMIC_ACQUIRE))
		munmap(*rb, pp_events_rb_size());
	*rb = NULL;
}

/* "NAME" or "NAME (SPEC)" when the section names the event otherwise. */
static const char *pp_events_label(const struct pp_config_event *ce, char *buf,
				   size_t size)
{
	if (strcmp(ce->name, ce->spec) == 0)
		return ce->name;
	snprintf(buf, size, "%s (%s)", ce->name, ce->spec);
	return buf;
}

static void pp_events_refused(const struct pp_config *cfg, unsigned i, int err,
			      char (*lines)[PP_EVENTS_LINE_MAX])
{
	const struct pp_config_event *ce = &cfg->events[i];
	char label[2 * PPF_NAME_MAX + 4];

	snprintf(lines[i], PP_EVENTS_LINE_MAX, "cannot open %s event %s: %s; %s",
		 ce->count_only ? "counting" : "sampling",
		 pp_events_label(ce, label, sizeof(label)), strerror(-err),
		 pp_events_hint(ce, -err));
}

/*
 * Whether the kernel counts the event as the thread leaves the CPU: at
 * switch-out (kernel/sched/core.c, perf_event_task_sched_out), while the
 * thread goes to sleep in a system call. In the sigtrap mode the overflow's
 * SIGTRAP waits for the thread's return to user space (task work) and the
 * call is untouched; in the signal mode the signal is sent at once, wakes
 * the thread, and nanosleep, poll, select, epoll_wait ... fail with EINTR
 * whatever SA_RESTART says. cpu-migrations is counted at switch-in, once
 * the thread runs again.
 */
static int pp_events_switch_out(const struct pp_config_event *ce)
{
	return ce->type == PERF_TYPE_SOFTWARE &&
	       (ce->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
		ce->config == PERF_COUNT_SW_CGROUP_SWITCHES);
}

/* The signal mode does not sample a switch-out event: says why in lines[i]. */
static int pp_events_refuse_mode(const struct pp_config *cfg, unsigned i,
				 char (*lines)[PP_EVENTS_LINE_MAX])
{
	const struct pp_config_event *ce = &cfg->events[i];
	char label[2 * PPF_NAME_MAX + 4];

	snprintf(lines[i], PP_EVENTS_LINE_MAX, "cannot sample %s in the signal "
		 "mode: it overflows as a thread leaves the CPU, and its signal "
		 "would make the call the thread sleeps in fail with EINTR "
		 "(nanosleep, poll, ...); count it with [count %s], or sample it "
		 "in the sigtrap mode", pp_events_label(ce, label, sizeof(label)),
		 ce->spec);
	return -EOPNOTSUPP;
}

/*
 * Opens event i of cfg for the calling thread into te: a counter, or in the
 * signal mode a sampling event routed to it, enabled when enable is set.
 * Returns 0 or a negative errno.
 */
static int pp_events_thread_add(struct pp_tevents *te, const struct pp_config *cfg,
				unsigned i, int mode, int enable)
{
	struct pp_config_event twin = cfg->events[i];
	int fd;

	twin.count_only = 1;
	fd = pp_events_thread_counts(&cfg->events[i], mode) ?
	     pp_events_open_one(&twin, i, 0, mode) :
	     pp_events_open_routed(&cfg->events[i], i, 0, &te->rb[i], enable);

	if (fd < 0)
		return fd;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &te->id[i]) != 0) {
		pp_fd_close_sigsafe(fd);
		return -EINVAL;
	}
	te->fd[i] = fd;
	te->open |= 1u << i;
	return 0;
}

int pp_events_open(struct pp_events *ev, const struct pp_config *cfg, int mode,
		   struct pp_tevents *self, char (*lines)[PP_EVENTS_LINE_MAX])
{
	unsigned left = 0;

	/*
	 * Not the tables of fds and ring buffers (49 KiB, past n never read):
	 * zeroing them faulted 12 pages in at every process start.
	 */
	ev->n = 0;
	memset(ev->error, 0, sizeof(ev->error));
	ev->refused = 0;
	memset(self, 0, sizeof(*self));
	ev->mode = mode;
	for (unsigned i = 0; i < cfg->nevents; i++) {
		const struct pp_config_event *ce = &cfg->events[i];
		int fd;

		lines[i][0] = '\0';
		if (!ce->count_only && mode == PPF_MODE_SIGNAL && pp_events_switch_out(ce)) {
			fd = pp_events_refuse_mode(cfg, i, lines);
			ev->refused |= 1u << i;
		} else {
			fd = ce->count_only || mode == PPF_MODE_SIGNAL ?
			     pp_events_thread_add(self, cfg, i, mode, 0) :
			     pp_events_open_one(ce, i, 0, mode);
		}
		if (fd >= 0) {
			/* The weighted event's twin: without it, its samples count once each. */
			if (!ce->count_only && mode == PPF_MODE_SIGTRAP) {
				ev->rbs[ev->n] = NULL;
				ev->fds[ev->n++] = fd;
				if (pp_events_weighted(ce))
					pp_events_thread_add(self, cfg, i, mode, 0);
			}
			left++;
			continue;
		}
		if (!(ev->refused & (1u << i)))
			pp_events_refused(cfg, i, fd, lines);
		ev->error[i] = -fd;
		if (cfg->unavailable_off) {
			pp_events_close(ev);
			pp_events_thread_close(self);
			return fd;
		}
	}
	if (left)
		return 0;
	pp_events_close(ev);
	return -ENOENT;
}

int pp_events_probe_sigtrap(void)
{
	struct pp_config_event ce = {
		.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY,
		.period = 1, .exclude_kernel = 1,
	};
	struct perf_event_attr attr;
	int fd;

	pp_events_attr(&attr, &ce, 0, PPF_MODE_SIGTRAP);
	attr.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
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
		else if (ev->mode == PPF_MODE_SIGNAL)
			fd = pp_events_open_routed(&cfg->events[i], i, tid, &ev->rbs[ev->n], 0);
		else
			fd = pp_events_open_one(&cfg->events[i], i, tid, ev->mode);
		if (ev->mode != PPF_MODE_SIGNAL && fd >= 0)
			ev->rbs[ev->n] = NULL;
		if (fd < 0) {
			while (ev->n > first) {
				ev->n--;
				pp_events_close_one(ev->fds[ev->n], &ev->rbs[ev->n]);
			}
			return fd;
		}
		ev->fds[ev->n++] = fd;
	}
	return 0;
}

uint32_t pp_events_count_attrs(const struct pp_events *ev, const struct pp_config *cfg,
			       struct perf_event_attr attrs[PP_CONFIG_MAX_EVENTS])
{
	uint32_t mask = 0;

	for (unsigned i = 0; i < cfg->nevents; i++) {
		struct pp_config_event twin = cfg->events[i];

		if (!pp_events_thread_counts(&twin, ev->mode) || ev->error[i])
			continue;
		twin.count_only = 1;
		pp_events_attr(&attrs[i], &twin, i, ev->mode);
		mask |= 1u << i;
	}
	return mask;
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

		/* The wall event's helper threads are the profiler's, not the program's. */
		if (tid > 0 && tid != self && !pp_wall_is_helper(tid) &&
		    pp_events_open_task(ev, cfg, tid) == 0)
			opened++;
	}
	closedir(dir);
	return opened;
}

void pp_events_enable(struct pp_events *ev, struct pp_tevents *self)
{
	for (unsigned i = 0; i < ev->n; i++)
		ioctl(ev->fds[i], PERF_EVENT_IOC_ENABLE, 0);
	for (unsigned i = 0; self && i < PP_CONFIG_MAX_EVENTS; i++)
		if ((self->open & (1u << i)) && pp_fd_tag_of_sigsafe(self->fd[i], NULL))
			ioctl(self->fd[i], PERF_EVENT_IOC_ENABLE, 0);
}

void pp_events_disable(struct pp_events *ev)
{
	for (unsigned i = 0; i < ev->n; i++)
		ioctl(ev->fds[i], PERF_EVENT_IOC_DISABLE, 0);
}

void pp_events_close(struct pp_events *ev)
{
	for (unsigned i = 0; i < ev->n; i++)
		pp_events_close_one(ev->fds[i], &ev->rbs[i]);
	ev->n = 0;
}

int pp_events_thread_open(struct pp_tevents *te, const struct pp_config *cfg,
			  const struct pp_events *ev)
{
	for (unsigned i = 0; i < cfg->nevents; i++) {
		int err;

		if ((!pp_events_thread_counts(&cfg->events[i], ev->mode) &&
		     ev->mode != PPF_MODE_SIGNAL) ||
		    ev->error[i] || (te->open & (1u << i)))
			continue;
		err = pp_events_thread_add(te, cfg, i, ev->mode, 0);
		if (err)
			return err;
	}
	return 0;
}

int pp_events_counter_read(const struct pp_tevents *te, unsigned i,
			   struct pp_counter_value *out)
{
	uint64_t buf[3];

	if (!pp_fd_tevent_ours_sigsafe(te, i))
		return -EBADF;
	if (read(te->fd[i], buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		return -EIO;
	out->value = buf[0];
	out->time_enabled = buf[1];
	out->time_running = buf[2];
	return 0;
}

void pp_events_thread_disable(struct pp_tevents *te)
{
	pp_fd_tevents_switch_sigsafe(te, PERF_EVENT_IOC_DISABLE, 0);
}

void pp_events_thread_enable(struct pp_tevents *te)
{
	pp_fd_tevents_switch_sigsafe(te, PERF_EVENT_IOC_ENABLE, 0);
}

void pp_events_thread_close(struct pp_tevents *te)
{
	for (unsigned i = 0; i < PP_CONFIG_MAX_EVENTS; i++)
		if (pp_fd_tevent_ours_sigsafe(te, i))
			pp_events_close_one(te->fd[i], &te->rb[i]);
	te->open = 0;
}
