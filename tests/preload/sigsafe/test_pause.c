/*
 * pause (preload/sigsafe/pause.c): one switch of the process's events at a
 * time. A thread stuck inside a switch (here: held in its ioctl by a
 * seccomp listener, as a thread stopped there would be) keeps the unit's
 * lock; the process's end waits for it a while, then goes on without it,
 * and no other thread switches meanwhile: the switches (the marks the wall
 * event reads) alternate, paused and not, with none lost.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sigsafe/pause.h"

TestSuite(pause, .timeout = 60);

static struct pp_events tpa_ev;
static int tpa_listener = -1;

/*
 * The calling thread's filter: its ioctl PERF_EVENT_IOC_DISABLE goes to a
 * listener (into tpa_listener), anything else runs. 0, or -1.
 */
static int tpa_hold_disables(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PERF_EVENT_IOC_DISABLE, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = (unsigned short)(sizeof(code) / sizeof(code[0])),
				   .filter = code };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	tpa_listener = (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
				    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	return tpa_listener >= 0 ? 0 : -1;
}

static void *tpa_pauser(void *arg)
{
	int *ok = arg;

	*ok = tpa_hold_disables() == 0;
	__atomic_store_n(ok + 1, 1, __ATOMIC_RELEASE);
	if (*ok)
		pp_pause_call_sigsafe(1); /* held in its ioctl, the lock taken */
	return NULL;
}

Test(pause, no_switch_while_another_thread_is_inside_one)
{
	struct pp_pause_mark marks[16];
	struct pp_records_paused out;
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	uint32_t n, k;
	uint64_t upto;
	pthread_t th;
	int ok[2] = { 0, 0 };

	tpa_ev.n = 1;
	tpa_ev.fds[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(tpa_ev.fds[0], 0);
	pp_pause_configure_sigsafe(&tpa_ev, 0);
	pp_pause_start_sigsafe();
	cr_assert_eq(pthread_create(&th, NULL, tpa_pauser, ok), 0);
	while (!__atomic_load_n(&ok[1], __ATOMIC_ACQUIRE))
		sched_yield();
	if (!ok[0]) {
		pthread_join(th, NULL);
		cr_skip_test("no seccomp listener here (Linux 5.5 and later): cannot hold a "
			     "thread inside a switch");
	}
	memset(&req, 0, sizeof(req));
	cr_assert_eq(ioctl(tpa_listener, SECCOMP_IOCTL_NOTIF_RECV, &req), 0);
	/* The thread is inside its switch to paused. The end waits, then goes on. */
	pp_pause_stop_sigsafe(0, &out);
	pp_pause_resume_after_stop_sigsafe();
	pp_pause_call_sigsafe(0);
	pp_pause_call_sigsafe(1);
	pp_pause_call_sigsafe(0);
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	cr_assert_eq(ioctl(tpa_listener, SECCOMP_IOCTL_NOTIF_SEND, &resp), 0);
	pthread_join(th, NULL);
	/* Settled: not paused, and the switches alternate from the start's. */
	cr_expect_not(pp_pause_paused_sigsafe());
	n = pp_pause_marks_sigsafe(0, marks, 16, &k, &upto);
	cr_assert_eq(n, k);
	cr_assert_geq(k, 2, "%u switches", k);
	cr_expect_eq(marks[0].paused, 0);
	for (uint32_t i = 1; i < k; i++)
		cr_expect_neq(marks[i].paused, marks[i - 1].paused,
			      "switch %u of %u: paused %d again", i, k, marks[i].paused);
	cr_expect_eq(marks[k - 1].paused, 0);
	close(tpa_ev.fds[0]);
}
