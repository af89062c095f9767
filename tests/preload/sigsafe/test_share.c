/*
 * share: the profiler's share of the process's limits (preload/share.h).
 * Each test runs in its own process, so lowering its limits is safe.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <sys/resource.h>

#include "sigsafe/share.h"

static void sh_limit(int resource, rlim_t soft)
{
	struct rlimit rl;

	cr_assert_eq(getrlimit(resource, &rl), 0);
	rl.rlim_cur = soft;
	cr_assert_eq(setrlimit(resource, &rl), 0, "setrlimit: %s", strerror(errno));
}

Test(share, takes_at_most_a_quarter_of_the_descriptors)
{
	struct pp_share_cost two = { .bytes = 4096, .fds = 2 };

	pp_share_reset_sigsafe();
	sh_limit(RLIMIT_NOFILE, 40);
	for (int i = 0; i < 5; i++)
		cr_assert_eq(pp_share_take_sigsafe(&two), 0, "take %d of 5", i + 1);
	cr_assert_eq(pp_share_take_sigsafe(&two), -EMFILE);
	pp_share_give_sigsafe(&two);
	cr_assert_eq(pp_share_take_sigsafe(&two), 0, "what was given back is there again");
	/* A higher limit (the program raised it) makes room at once. */
	sh_limit(RLIMIT_NOFILE, 48);
	cr_assert_eq(pp_share_take_sigsafe(&two), 0);
	cr_assert_eq(pp_share_take_sigsafe(&two), -EMFILE);
}

Test(share, takes_at_most_an_eighth_of_the_address_space)
{
	struct pp_share_cost mib = { .bytes = 1 << 20, .fds = 0 };
	uint64_t limit = 16384ull << 20;

	pp_share_reset_sigsafe();
	sh_limit(RLIMIT_AS, limit);
	cr_assert_eq(pp_share_limit_sigsafe(RLIMIT_AS), limit);
	for (int i = 0; i < 2048; i++)
		cr_assert_eq(pp_share_take_sigsafe(&mib), 0, "take %d of 2048", i + 1);
	cr_assert_eq(pp_share_take_sigsafe(&mib), -ENOMEM);
	/* What is refused takes nothing, of either limit. */
	cr_assert_eq(pp_share_take_sigsafe(&(struct pp_share_cost){ .bytes = 1 << 20, .fds = 1 }),
		     -ENOMEM);
	pp_share_reset_sigsafe();
	cr_assert_eq(pp_share_take_sigsafe(&mib), 0, "a reset forgets what was held");
}

Test(share, no_address_space_limit_takes_anything)
{
	struct pp_share_cost huge = { .bytes = 1ull << 40, .fds = 0 };

	pp_share_reset_sigsafe();
	sh_limit(RLIMIT_AS, RLIM_INFINITY);
	cr_assert_eq(pp_share_limit_sigsafe(RLIMIT_AS), UINT64_MAX);
	cr_assert_eq(pp_share_room_sigsafe(), UINT64_MAX);
	cr_assert_eq(pp_share_take_sigsafe(&huge), 0);
}

Test(share, room_is_what_the_limit_leaves)
{
	uint64_t limit = 16384ull << 20, room;

	sh_limit(RLIMIT_AS, limit);
	room = pp_share_room_sigsafe();
	cr_assert(room > 0 && room < limit, "room %llu under a limit of %llu",
		  (unsigned long long)room, (unsigned long long)limit);
}
