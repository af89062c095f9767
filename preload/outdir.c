/*
 * Opening the output root safely; see outdir.h. The walk holds a descriptor
 * of the directory it has reached and opens the next component relative to
 * it with O_NOFOLLOW, so what is checked is what is used: no path is handed
 * to the kernel whole, and a link is read from the very inode whose owner
 * was checked. openat2's RESOLVE_NO_SYMLINKS would refuse every link, the
 * user's own too, and needs Linux 5.6: a walk by hand costs one openat per
 * component and an fstat where a decision is taken.
 */
#include "outdir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pprof/format.h"

/* Links followed at most in one walk, the kernel's own limit (MAXSYMLINKS). */
#define PP_OUTDIR_MAX_LINKS 40
/* Names tried for a process directory: EXE@HOST.PID, then EXE@HOST.PID.1 ... */
#define PP_OUTDIR_MAX_TRIES 100

/* What is wrong with a directory or link someone else could change. */
enum pp_outdir_verdict {
	PP_OUTDIR_TRUSTED,
	PP_OUTDIR_NOT_OWNED,   /* owned by another user (nor root, when allowed) */
	PP_OUTDIR_WRITABLE,    /* writable by all users, not sticky */
	PP_OUTDIR_GROUP_WRITABLE, /* writable by a group not yours, not sticky */
};

struct pp_outdir_walk {
	int fd;                /* the directory reached, O_PATH */
	char at[PATH_MAX];     /* its path, for messages ("" for /) */
	char todo[PATH_MAX];   /* the path being walked, links spliced in */
	size_t pos;            /* the next byte of todo to walk */
	unsigned links;        /* links followed so far */
	uid_t uid;             /* you: the effective uid */
	gid_t gid;             /* your group: the effective gid */
	char *why;             /* PP_OUTDIR_WHY_MAX bytes, the caller's */
};

/*
 * Whether st may be trusted by w: owned by you, or by root unless
 * mine_only, and (a directory) not writable by other users unless sticky.
 * Group write counts only for a group other than your own: with user
 * private groups (Fedora, RHEL: umask 002) your directories are 0775 and
 * their group is you alone. A link's own mode bits mean nothing.
 */
static enum pp_outdir_verdict pp_outdir_judge(const struct pp_outdir_walk *w,
					      const struct stat *st, int mine_only)
{
	if (st->st_uid != w->uid && (mine_only || st->st_uid != 0))
		return PP_OUTDIR_NOT_OWNED;
	if (S_ISLNK(st->st_mode) || (st->st_mode & S_ISVTX))
		return PP_OUTDIR_TRUSTED;
	if (st->st_mode & S_IWOTH)
		return PP_OUTDIR_WRITABLE;
	if ((st->st_mode & S_IWGRP) && st->st_gid != w->gid)
		return PP_OUTDIR_GROUP_WRITABLE;
	return PP_OUTDIR_TRUSTED;
}

/*
 * Says in w->why why st, described by fmt (the subject of the sentence), is
 * not trusted (verdict), and returns -EPERM.
 */
__attribute__((format(printf, 5, 6)))
static int pp_outdir_refuse(struct pp_outdir_walk *w, const struct stat *st,
			    enum pp_outdir_verdict verdict, int mine_only,
			    const char *fmt, ...)
{
	char what[PP_OUTDIR_WHY_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (verdict == PP_OUTDIR_NOT_OWNED)
		snprintf(w->why, PP_OUTDIR_WHY_MAX, "%.900s is owned by uid %u, not by "
			 "you (uid %u)%s", what, (unsigned)st->st_uid,
			 (unsigned)w->uid, mine_only ? "" : " or root");
	else if (verdict == PP_OUTDIR_WRITABLE)
		snprintf(w->why, PP_OUTDIR_WHY_MAX, "%.900s is writable by every user "
			 "(mode %04o) and not sticky", what,
			 (unsigned)(st->st_mode & 07777));
	else
		snprintf(w->why, PP_OUTDIR_WHY_MAX, "%.900s is writable by group %u, "
			 "not yours (gid %u), and not sticky (mode %04o)", what,
			 (unsigned)st->st_gid, (unsigned)w->gid,
			 (unsigned)(st->st_mode & 07777));
	return -EPERM;
}

/* The walk's directory as a path, for messages. */
static const char *pp_outdir_at(const struct pp_outdir_walk *w)
{
	return w->at[0] ? w->at : "/";
}

/* Starts (again) at /. */
static int pp_outdir_restart(struct pp_outdir_walk *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->at[0] = '\0';
	w->fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	return w->fd < 0 ? -errno : 0;
}

/*
 * The next component of the path into name (NAME_MAX + 1 bytes). Returns 1,
 * 0 at the end, or -ENAMETOOLONG.
 */
static int pp_outdir_next(struct pp_outdir_walk *w, char *name)
{
	const char *p = w->todo + w->pos;
	size_t len;

	p += strspn(p, "/");
	len = strcspn(p, "/");
	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(name, p, len);
	name[len] = '\0';
	w->pos = (size_t)(p + len - w->todo);
	return len > 0;
}

/* Moves the walk into fd, the directory name of the one it was in. */
static void pp_outdir_enter(struct pp_outdir_walk *w, int fd, const char *name)
{
	size_t len = strlen(w->at);
	char *slash;

	close(w->fd);
	w->fd = fd;
	if (strcmp(name, "..") == 0) {
		slash = strrchr(w->at, '/');
		if (slash)
			*slash = '\0';
	} else if (len + 1 + strlen(name) < sizeof(w->at)) {
		w->at[len] = '/';
		memcpy(w->at + len + 1, name, strlen(name) + 1);
	}
}

/*
 * Makes the missing directory name (0700, yours) where the walk is, even in
 * a directory others can change: whatever they put in its place later is
 * not yours (or is a link of theirs), and the walk refuses it then.
 */
static int pp_outdir_make(struct pp_outdir_walk *w, const char *name)
{
	if (mkdirat(w->fd, name, 0700) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/*
 * Puts target in front of what is left of the path: the walk goes on from
 * the link's directory, or from / for an absolute target.
 */
static int pp_outdir_splice(struct pp_outdir_walk *w, const char *target)
{
	size_t tlen = strlen(target), rest = strlen(w->todo + w->pos);

	if (tlen + 1 + rest >= sizeof(w->todo))
		return -ENAMETOOLONG;
	memmove(w->todo + tlen + 1, w->todo + w->pos, rest + 1);
	memcpy(w->todo, target, tlen);
	w->todo[tlen] = '/';
	w->pos = 0;
	return target[0] == '/' ? pp_outdir_restart(w) : 0;
}

/*
 * name, where the walk is, is not a directory: follows it if it is a link
 * the rule trusts, else refuses it (or -ENOTDIR).
 */
static int pp_outdir_link(struct pp_outdir_walk *w, const char *name)
{
	char target[PATH_MAX];
	struct stat st, dir;
	enum pp_outdir_verdict v;
	int fd = openat(w->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), err = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || fstat(w->fd, &dir) != 0) {
		err = -errno;
		goto out_close;
	}
	if (!S_ISLNK(st.st_mode)) {
		err = -ENOTDIR;
		goto out_close;
	}
	if (++w->links > PP_OUTDIR_MAX_LINKS) {
		err = -ELOOP;
		goto out_close;
	}
	v = pp_outdir_judge(w, &st, 0);
	if (v != PP_OUTDIR_TRUSTED) {
		err = pp_outdir_refuse(w, &st, v, 0, "the symbolic link %s/%s",
				       w->at, name);
		goto out_close;
	}
	v = pp_outdir_judge(w, &dir, 0);
	if (v != PP_OUTDIR_TRUSTED) {
		err = pp_outdir_refuse(w, &dir, v, 0, "%s (holding the symbolic "
				       "link %s)", pp_outdir_at(w), name);
		goto out_close;
	}
	n = readlinkat(fd, "", target, sizeof(target));
	if (n <= 0 || n >= (ssize_t)sizeof(target)) {
		/* An empty link leads nowhere, as the kernel says too. */
		err = n < 0 ? -errno : n == 0 ? -ENOENT : -ENAMETOOLONG;
		goto out_close;
	}
	target[n] = '\0';
	err = pp_outdir_splice(w, target);
out_close:
	close(fd);
	return err;
}

/* Walks into the component name: a directory, made if missing, or a link. */
static int pp_outdir_step(struct pp_outdir_walk *w, const char *name)
{
	int fd, err;

	if (strcmp(name, ".") == 0)
		return 0;
	for (int made = 0;; made = 1) {
		fd = openat(w->fd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0)
			break;
		/* A link (ENOTDIR; ELOOP where O_PATH is not honoured) or a file. */
		if (errno == ENOTDIR || errno == ELOOP)
			return pp_outdir_link(w, name);
		if (errno != ENOENT || made)
			return -errno;
		err = pp_outdir_make(w, name);
		if (err)
			return err;
	}
	pp_outdir_enter(w, fd, name);
	return 0;
}

int pp_outdir_open(const char *path, char *why)
{
	struct pp_outdir_walk w = { .fd = -1, .uid = geteuid(), .gid = getegid(),
				    .why = why };
	char name[NAME_MAX + 1];
	enum pp_outdir_verdict v;
	struct stat st;
	int err;

	why[0] = '\0';
	if (path[0] != '/')
		return -EINVAL;
	if (snprintf(w.todo, sizeof(w.todo), "%s", path) >= (int)sizeof(w.todo))
		return -ENAMETOOLONG;
	err = pp_outdir_restart(&w);
	while (!err && (err = pp_outdir_next(&w, name)) > 0)
		err = pp_outdir_step(&w, name);
	if (!err && fstat(w.fd, &st) != 0)
		err = -errno;
	if (!err && (v = pp_outdir_judge(&w, &st, 1)) != PP_OUTDIR_TRUSTED)
		err = w.links ? pp_outdir_refuse(&w, &st, v, 1, "%s, where it leads,",
						 pp_outdir_at(&w))
			      : pp_outdir_refuse(&w, &st, v, 1, "it");
	if (err) {
		if (w.fd >= 0)
			close(w.fd);
		return err;
	}
	return w.fd;
}

int pp_outdir_process_name(char *name, size_t size, const char *base, const char *host,
			   int pid, int k)
{
	/* Room for the host, ".PID.K" and the longest suffix; the base gets the rest. */
	int room = NAME_MAX - PP_OUTDIR_SUFFIX_ROOM - (int)strlen(host) - 1 - 24;
	int len = snprintf(name, size, "%.*s%s%s.%d", room > 1 ? room : 1, base,
			   host[0] ? "@" : "", host, pid);

	if (len >= 0 && (size_t)len < size && k)
		len += snprintf(name + len, size - (size_t)len, ".%d", k);
	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}

int pp_outdir_make_process(int rootfd, const char *base, const char *host, int pid,
			   char *name, size_t name_size,
			   int (*create)(int rootfd, const char *file))
{
	char file[NAME_MAX + 1];
	struct stat st;

	for (int k = 0; k < PP_OUTDIR_MAX_TRIES; k++) {
		int err = pp_outdir_process_name(name, name_size, base, host, pid, k);

		if (err)
			return err;
		if (snprintf(file, sizeof(file), "%s%s", name, PPF_LOG_SUFFIX) >= (int)sizeof(file))
			return -ENAMETOOLONG;
		if (fstatat(rootfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		if (errno != ENOENT)
			return -errno;
		err = create(rootfd, file);
		if (err != -EEXIST)
			return err;
	}
	return -EEXIST;
}
