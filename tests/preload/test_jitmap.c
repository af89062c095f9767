/*
 * Tests of preload/jitmap.c: the calling process's /tmp/perf-<pid>.map
 * copied whole beside its log as <name>.perf.map (0600); nothing copied
 * for a map older than the process, another user's, a link, a FIFO (no
 * wait), or none at all. Each test runs in a process of its own
 * (Criterion): its pid's map is its own.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jitmap.h"
#include "tst_it.h"
#include "tst_log.h"

static char pm_map[64];

static void pm_setup(void)
{
	tst_log_dir_setup();
	snprintf(pm_map, sizeof(pm_map), "/tmp/perf-%d.map", (int)getpid());
	unlink(pm_map);
}

static void pm_teardown(void)
{
	unlink(pm_map);
	tst_log_dir_teardown();
}

TestSuite(jitmap, .init = pm_setup, .fini = pm_teardown, .timeout = 10);

/* An hour ago, in CLOCK_REALTIME ns: the process "started" then. */
static uint64_t pm_hour_ago(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec - 3600) * 1000000000ull;
}

/* In an hour: every map on disk is older than such a process. */
static uint64_t pm_hour_ahead(void)
{
	return pm_hour_ago() + 7200 * 1000000000ull;
}

static int pm_root(void)
{
	int fd = open(tst_log_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	cr_assert_geq(fd, 0, "%s", strerror(errno));
	return fd;
}

/* The copy's contents (malloc'd), or NULL when there is none. */
static char *pm_copy(void)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/app@h.1.perf.map", tst_log_dir);
	return access(path, F_OK) == 0 ? tst_slurp(path, NULL) : NULL;
}

static void pm_write_map(const char *text)
{
	FILE *f = fopen(pm_map, "w");

	cr_assert(f, "%s: %s", pm_map, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

Test(jitmap, copies_the_map_whole)
{
	char big[200000], *copy;
	size_t n = 0;
	struct stat st;
	char path[4200];
	int root = pm_root();

	while (n + 40 < sizeof(big))
		n += (size_t)snprintf(big + n, sizeof(big) - n, "%zx 10 LazyCompile:*f%zu\n",
				      0x10000 + n, n);
	pm_write_map(big);
	pp_jitmap_keep(root, "app@h.1", pm_hour_ago);
	copy = pm_copy();
	cr_assert(copy, "no copy");
	cr_expect_str_eq(copy, big);
	snprintf(path, sizeof(path), "%s/app@h.1.perf.map", tst_log_dir);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0600);
	free(copy);
	close(root);
}

Test(jitmap, no_map_no_copy)
{
	int root = pm_root();

	pp_jitmap_keep(root, "app@h.1", pm_hour_ago);
	cr_expect_null(pm_copy());
	close(root);
}

Test(jitmap, a_map_older_than_the_process_is_another_process_s)
{
	int root = pm_root();

	pm_write_map("1000 10 stale\n");
	pp_jitmap_keep(root, "app@h.1", pm_hour_ahead);
	cr_expect_null(pm_copy());
	close(root);
}

Test(jitmap, not_another_users_map_nor_a_link_nor_a_fifo)
{
	char other[4200];
	int root = pm_root();

	/* A link to a file of ours (planted by another user in /tmp). */
	snprintf(other, sizeof(other), "%s/target", tst_log_dir);
	{
		FILE *f = fopen(other, "w");

		cr_assert(f);
		fputs("1000 10 planted\n", f);
		fclose(f);
	}
	cr_assert_eq(symlink(other, pm_map), 0);
	pp_jitmap_keep(root, "app@h.1", pm_hour_ago);
	cr_expect_null(pm_copy(), "followed a link");
	unlink(pm_map);
	/* A FIFO: the open must not wait for a writer. */
	cr_assert_eq(mkfifo(pm_map, 0600), 0);
	pp_jitmap_keep(root, "app@h.1", pm_hour_ago);
	cr_expect_null(pm_copy(), "copied a FIFO");
	unlink(pm_map);
	if (geteuid() == 0) {
		pm_write_map("1000 10 nobodys\n");
		cr_assert_eq(chown(pm_map, 65534, 65534), 0);
		pp_jitmap_keep(root, "app@h.1", pm_hour_ago);
		cr_expect_null(pm_copy(), "copied another user's map");
	}
	close(root);
}
