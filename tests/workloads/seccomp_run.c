/*
 * seccomp_run: runs a program with perf_event_open refused.
 *
 *   seccomp_run ERRNO PROGRAM [ARGS...]
 *
 * Installs a seccomp-BPF filter under which perf_event_open fails with errno
 * ERRNO (a number, e.g. 13 for EACCES, 38 for ENOSYS) and every other system
 * call runs as usual, then execs PROGRAM. The filter survives the exec, so
 * the profiler in PROGRAM meets the refusal in its constructor.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int seccomp_install(unsigned err)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = (unsigned short)(sizeof(code) / sizeof(code[0])),
		.filter = code,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

int main(int argc, char **argv)
{
	if (argc < 3 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: seccomp_run ERRNO PROGRAM [ARGS...]\n");
		return 2;
	}
	if (seccomp_install((unsigned)atoi(argv[1])) != 0) {
		perror("seccomp_run: seccomp");
		return 127;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
