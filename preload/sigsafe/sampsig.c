/* The sampling signal; see sampsig.h. */
#include "sampsig.h"

static int pp_sampsig = SIGTRAP; /* atomic */

/* Async-signal-safe. */
void pp_sampsig_set_sigsafe(int sig)
{
	__atomic_store_n(&pp_sampsig, sig, __ATOMIC_RELEASE);
}

/* Runs in signal context. */
int pp_sampsig_number_sigsafe(void)
{
	return __atomic_load_n(&pp_sampsig, __ATOMIC_ACQUIRE);
}

/* Runs in signal context. */
void pp_sampsig_mask_sigsafe(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, pp_sampsig_number_sigsafe());
}
