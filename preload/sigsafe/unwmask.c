/* The signal mask libunwind sees inside the handler's unwind; see unwmask.h. */
#include "unwmask.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's signal set: one bit per signal 1..64 (bit sig - 1). */
#define PP_UNWMASK_KSET_SIZE sizeof(uint64_t)
/* Bits the kernel never blocks. */
#define PP_UNWMASK_UNBLOCKABLE ((1ull << (SIGKILL - 1)) | (1ull << (SIGSTOP - 1)))

/* The handler's sa_mask (pp_unwmask_handler_mask_sigsafe); atomic. */
static uint64_t pp_unwmask_handler;
static int pp_unwmask_handler_set;

struct pp_unwmask_state {
	int active;
	int known;        /* kernel and entry hold the kernel's mask */
	uint64_t entry;   /* the kernel's mask when the window started */
	uint64_t kernel;  /* the kernel's mask now */
	uint64_t view;    /* what libunwind set */
	unsigned long syscalls;
};

static __thread struct pp_unwmask_state pp_unwmask __attribute__((tls_model("initial-exec")));

/* Runs in signal context. */
uint64_t pp_unwmask_bits_sigsafe(const sigset_t *set)
{
	uint64_t bits;

	memcpy(&bits, set, sizeof(bits));
	return bits;
}

/* Runs in signal context. rt_sigprocmask on kernel sets; 0 or an errno. */
static int pp_unwmask_syscall_sigsafe(int how, const uint64_t *set, uint64_t *old)
{
	pp_unwmask.syscalls++;
	if (syscall(SYS_rt_sigprocmask, how, set, old, PP_UNWMASK_KSET_SIZE) != 0)
		return errno;
	return 0;
}

/* Async-signal-safe. */
void pp_unwmask_handler_mask_sigsafe(const sigset_t *sa_mask)
{
	__atomic_store_n(&pp_unwmask_handler, pp_unwmask_bits_sigsafe(sa_mask), __ATOMIC_RELAXED);
	__atomic_store_n(&pp_unwmask_handler_set, 1, __ATOMIC_RELEASE);
}

/*
 * Runs in signal context. The kernel's mask while the handler runs is the
 * interrupted code's, the handler's sa_mask and its own signal (no
 * SA_NODEFER), less what cannot be blocked: known without a system call
 * once the handler's sa_mask is.
 */
void pp_unwmask_enter_sigsafe(const sigset_t *interrupted, int sig)
{
	struct pp_unwmask_state *s = &pp_unwmask;

	s->known = __atomic_load_n(&pp_unwmask_handler_set, __ATOMIC_ACQUIRE);
	if (s->known) {
		s->entry = (pp_unwmask_bits_sigsafe(interrupted) |
			    __atomic_load_n(&pp_unwmask_handler, __ATOMIC_RELAXED) |
			    1ull << (sig - 1)) & ~PP_UNWMASK_UNBLOCKABLE;
		s->kernel = s->view = s->entry;
	}
	__atomic_store_n(&s->active, 1, __ATOMIC_RELAXED);
}

/* Runs in signal context. Puts back the kernel's mask if a call had to add to it. */
void pp_unwmask_leave_sigsafe(void)
{
	int saved = errno;

	__atomic_store_n(&pp_unwmask.active, 0, __ATOMIC_RELAXED);
	if (pp_unwmask.known && pp_unwmask.kernel != pp_unwmask.entry)
		pp_unwmask_syscall_sigsafe(SIG_SETMASK, &pp_unwmask.entry, NULL);
	errno = saved;
}

/* Runs in signal context. */
int pp_unwmask_enter_blocked_sigsafe(uint64_t *saved)
{
	uint64_t all = ~0ull;
	sigset_t full;

	if (pp_unwmask_syscall_sigsafe(SIG_SETMASK, &all, saved) != 0)
		return -1;
	memset(&full, 0xff, sizeof(full));
	pp_unwmask_enter_sigsafe(&full, SIGTRAP);
	return 0;
}

/* Runs in signal context. */
void pp_unwmask_leave_blocked_sigsafe(const uint64_t *saved)
{
	pp_unwmask_leave_sigsafe();
	pp_unwmask_syscall_sigsafe(SIG_SETMASK, saved, NULL);
}

/* Runs in signal context. */
int pp_unwmask_active_sigsafe(void)
{
	return __atomic_load_n(&pp_unwmask.active, __ATOMIC_RELAXED);
}

/* Runs in signal context. */
int pp_unwmask_change_sigsafe(int how, const sigset_t *set, sigset_t *old)
{
	struct pp_unwmask_state *s = &pp_unwmask;
	uint64_t next, more;
	int err;

	if (set && how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK)
		return EINVAL;
	if (!s->known) {
		err = pp_unwmask_syscall_sigsafe(SIG_BLOCK, NULL, &s->entry);
		if (err)
			return err;
		s->kernel = s->view = s->entry;
		s->known = 1;
	}
	/* set is read before old is written: they may be the same set. */
	next = set ? pp_unwmask_bits_sigsafe(set) : 0;
	if (old) {
		sigemptyset(old);
		memcpy(old, &s->view, sizeof(s->view));
	}
	if (!set)
		return 0;
	if (how == SIG_BLOCK)
		next |= s->view;
	else if (how == SIG_UNBLOCK)
		next = s->view & ~next;
	next &= ~PP_UNWMASK_UNBLOCKABLE;
	/* Only what the kernel's mask lets through needs the kernel. */
	more = next & ~s->kernel;
	if (more) {
		err = pp_unwmask_syscall_sigsafe(SIG_BLOCK, &more, NULL);
		if (err)
			return err;
		s->kernel |= more;
	}
	s->view = next;
	return 0;
}

/* Runs in signal context. */
unsigned long pp_unwmask_syscalls_sigsafe(void)
{
	return pp_unwmask.syscalls;
}
