/*
 * seccomp_run: runs a program with perf_event_open refused, always or as a
 * kernel without perf_event_attr.sigtrap refuses it.
 *
 *   seccomp_run ERRNO PROGRAM [ARGS...]
 *   seccomp_run nosigtrap PROGRAM [ARGS...]
 *
 * Installs a seccomp-BPF filter on perf_event_open, then execs PROGRAM; the
 * filter survives the exec and is inherited by PROGRAM's threads and
 * children, so the profiler in PROGRAM meets it in its constructor.
 *
 * ERRNO (a number, e.g. 13 for EACCES, 38 for ENOSYS): every
 * perf_event_open fails with it; every other system call runs as usual.
 *
 * nosigtrap: as on Linux before 5.13, an event with sigtrap set is refused
 * with EINVAL (the bit was reserved and had to be zero) and any other call
 * runs as usual. The filter hands each perf_event_open to this process
 * (SECCOMP_RET_USER_NOTIF), which reads the perf_event_attr from the
 * caller's memory (/proc/TID/mem) and answers; the program runs in a child,
 * and this process exits with its status (128 + N when signal N killed it).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Installs a filter returning action for perf_event_open, with seccomp
 * flags; returns the seccomp call's result (a listener descriptor with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER, else 0), or -1.
 */
static int seccomp_install(unsigned action, unsigned flags)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = (unsigned short)(sizeof(code) / sizeof(code[0])),
		.filter = code,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

/* Sends descriptor fd over the socket sock; 0 or -1. */
static int seccomp_send_fd(int sock, int fd)
{
	char data = 0, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c;

	memset(ctl, 0, sizeof(ctl));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

/* Receives a descriptor from the socket sock; -1 if none came. */
static int seccomp_recv_fd(int sock)
{
	char data, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* Answers one stopped perf_event_open; 0, or -1 when the listener failed. */
static int seccomp_answer(int listener)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct perf_event_attr attr;
	char path[64];
	ssize_t got = -1;
	int mem;

	memset(&req, 0, sizeof(req));
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
		return errno == EINTR || errno == ENOENT ? 0 : -1;
	snprintf(path, sizeof(path), "/proc/%u/mem", req.pid);
	memset(&attr, 0, sizeof(attr));
	mem = open(path, O_RDONLY | O_CLOEXEC);
	if (mem >= 0) {
		/* Only what the caller says it passed: a short attr has no sigtrap bit. */
		got = pread(mem, &attr, sizeof(attr), (off_t)req.data.args[0]);
		close(mem);
	}
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	if (got >= (ssize_t)offsetof(struct perf_event_attr, sig_data) && attr.sigtrap)
		resp.error = -EINVAL;
	else
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	/* ENOENT: the caller went away (killed) while we looked. */
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) != 0 && errno != ENOENT)
		return -1;
	return 0;
}

/* seccomp_run nosigtrap PROGRAM [ARGS...] */
static int seccomp_nosigtrap(char **argv)
{
	int sv[2], listener, status;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		perror("seccomp_run: socketpair");
		return 127;
	}
	pid = fork();
	if (pid < 0) {
		perror("seccomp_run: fork");
		return 127;
	}
	if (pid == 0) {
		close(sv[0]);
		listener = seccomp_install(SECCOMP_RET_USER_NOTIF, SECCOMP_FILTER_FLAG_NEW_LISTENER);
		if (listener < 0 || seccomp_send_fd(sv[1], listener) != 0) {
			perror("seccomp_run: seccomp");
			_exit(127);
		}
		close(listener);
		close(sv[1]);
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	close(sv[1]);
	listener = seccomp_recv_fd(sv[0]);
	close(sv[0]);
	/* The listener hangs up when the last process under the filter is gone. */
	while (listener >= 0) {
		struct pollfd p = { .fd = listener, .events = POLLIN };

		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			break;
		if (p.revents & POLLIN) {
			if (seccomp_answer(listener) != 0)
				break;
		} else if (p.revents & (POLLHUP | POLLERR | POLLNVAL)) {
			break;
		}
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("seccomp_run: waitpid");
		return 127;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "nosigtrap") == 0)
		return seccomp_nosigtrap(argv + 2);
	if (argc < 3 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: seccomp_run ERRNO|nosigtrap PROGRAM [ARGS...]\n");
		return 2;
	}
	if (seccomp_install(SECCOMP_RET_ERRNO | ((unsigned)atoi(argv[1]) & SECCOMP_RET_DATA), 0) != 0) {
		perror("seccomp_run: seccomp");
		return 127;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
