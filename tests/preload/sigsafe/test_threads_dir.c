/*
 * Where threads' logs go (preload/sigsafe/threads.h): beside the process's
 * log at the output root, <name>.thread-<tid>.log, with no directory made;
 * threads that make theirs at once all get one; a root whose descriptor the
 * program closed is found again by its path; a name with no room left is
 * refused and nothing is made.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sigsafe/logfile.h"
#include "sigsafe/threads.h"

/* A process's output as the preload sets it up: <root>/<name>.log. */
struct td_root {
	char root[64];
	char path[128];
	char name[NAME_MAX + 1];
	struct pp_thread_dir dir;
};

static void td_setup(struct td_root *r, const char *name)
{
	char log[PATH_MAX];
	int fd;

	strcpy(r->root, "/tmp/pa-threads-dir-XXXXXX");
	cr_assert(mkdtemp(r->root), "mkdtemp: %s", strerror(errno));
	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->path, sizeof(r->path), "%s/%.40s", r->root, r->name);
	snprintf(log, sizeof(log), "%s/%s.log", r->root, r->name);
	fd = open(log, O_CREAT | O_EXCL | O_WRONLY, 0600);
	cr_assert_geq(fd, 0, "%s: %s", log, strerror(errno));
	close(fd);
	r->dir = (struct pp_thread_dir){ .pid = (int)getpid(), .path = r->path,
					 .root = r->root, .name = r->name };
	r->dir.rootfd = open(r->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(r->dir.rootfd, 0);
	pp_logfile_same_file_sigsafe(r->dir.rootfd, &r->dir.root_dev, &r->dir.root_ino);
}

/* Entries of the root: how many, and how many of them directories. */
static void td_count(const struct td_root *r, int *files, int *dirs)
{
	DIR *d = opendir(r->root);
	struct dirent *e;

	cr_assert_not_null(d);
	*files = *dirs = 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			struct stat st;
			char p[PATH_MAX];

			snprintf(p, sizeof(p), "%s/%s", r->root, e->d_name);
			cr_assert_eq(lstat(p, &st), 0);
			*files += S_ISREG(st.st_mode);
			*dirs += S_ISDIR(st.st_mode);
		}
	closedir(d);
}

/* A thread's log file is there, a thread log (its header says so). */
static void td_expect_log(const struct td_root *r, int tid)
{
	char file[PATH_MAX];
	struct ppf_file_header h;
	FILE *f;

	snprintf(file, sizeof(file), "%s/%s.thread-%d.log", r->root, r->name, tid);
	f = fopen(file, "rb");
	cr_assert_not_null(f, "%s: %s", file, strerror(errno));
	cr_expect_eq(fread(&h, sizeof(h), 1, f), 1);
	cr_expect_eq(h.kind, PPF_FILE_THREAD, "%s", file);
	fclose(f);
}

struct td_racer {
	struct td_root *r;
	pthread_barrier_t *go;
	struct pp_thread t;
	int err;
};

static void *td_race(void *arg)
{
	struct td_racer *x = arg;

	pp_logfile_init_sigsafe(&x->t.log);
	x->t.tid = pp_threads_gettid_sigsafe();
	pthread_barrier_wait(x->go);
	x->err = pp_threads_open_log_sigsafe(&x->t, &x->r->dir, "racer");
	return NULL;
}

/* Threads whose first samples come at once: each gets its log beside the process's. */
Test(threads_dir, threads_at_once_each_get_a_log_beside_the_process_log)
{
	enum { N = 16 };
	static struct td_racer x[N];
	struct td_root r;
	pthread_t th[N];
	pthread_barrier_t go;
	int files, dirs;

	td_setup(&r, "app@host.1");
	pthread_barrier_init(&go, NULL, N);
	for (int i = 0; i < N; i++) {
		x[i] = (struct td_racer){ .r = &r, .go = &go, .err = -1 };
		cr_assert_eq(pthread_create(&th[i], NULL, td_race, &x[i]), 0);
	}
	for (int i = 0; i < N; i++) {
		pthread_join(th[i], NULL);
		cr_expect_eq(x[i].err, 0, "thread %d: %s", i, strerror(-x[i].err));
		td_expect_log(&r, x[i].t.tid);
		pp_logfile_close_sigsafe(&x[i].t.log);
	}
	td_count(&r, &files, &dirs);
	cr_expect_eq(files, N + 1, "the process's log and one per thread");
	cr_expect_eq(dirs, 0, "a directory was made");
}

/*
 * A daemon that closed every descriptor (the root's too) and opened others
 * in their place: the root is found again by its path, and the log made
 * there, not in whatever the number names now.
 */
Test(threads_dir, a_closed_root_is_found_again_by_its_path)
{
	struct td_root r;
	struct pp_thread t = { 0 };
	int files, dirs, other, fd;
	char elsewhere[] = "/tmp/pa-threads-dir-other-XXXXXX";

	td_setup(&r, "app@host.2");
	cr_assert(mkdtemp(elsewhere));
	other = open(elsewhere, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(other, 0);
	fd = r.dir.rootfd;
	cr_assert_eq(dup2(other, fd), fd, "%s", strerror(errno));
	close(other);
	pp_share_reset_sigsafe();
	pp_logfile_init_sigsafe(&t.log);
	t.tid = pp_threads_gettid_sigsafe();
	cr_assert_eq(pp_threads_open_log_sigsafe(&t, &r.dir, "daemon"), 0);
	td_expect_log(&r, t.tid);
	pp_logfile_close_sigsafe(&t.log);
	td_count(&r, &files, &dirs);
	cr_expect_eq(files, 2);
	{
		DIR *d = opendir(elsewhere);
		struct dirent *e;
		int n = 0;

		cr_assert_not_null(d);
		while ((e = readdir(d)))
			n += e->d_name[0] != '.';
		closedir(d);
		cr_expect_eq(n, 0, "the log went where the number points now");
	}
	close(fd);
}

/* A name that leaves no room for the thread log's: refused, nothing made. */
Test(threads_dir, a_name_with_no_room_left_is_refused)
{
	char name[NAME_MAX + 1], buf[NAME_MAX + 1];
	struct td_root r;
	struct pp_thread t = { 0 };
	int files, dirs;

	memset(name, 'a', NAME_MAX - 8);
	name[NAME_MAX - 8] = '\0';
	td_setup(&r, name);
	pp_logfile_init_sigsafe(&t.log);
	t.tid = pp_threads_gettid_sigsafe();
	cr_expect_eq(pp_threads_open_log_sigsafe(&t, &r.dir, "long"), -ENAMETOOLONG);
	cr_expect_eq(pp_threads_dir_file_sigsafe(&r.dir, buf, sizeof(buf), "wall.log"),
		     -ENAMETOOLONG);
	td_count(&r, &files, &dirs);
	cr_expect_eq(files, 1, "only the process's log");
	cr_expect_eq(dirs, 0);
}
