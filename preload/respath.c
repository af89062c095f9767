/* realpath(3) with each distinct directory resolved once (see respath.h). */
#include "respath.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The kernel's own bound on links followed in one lookup (ELOOP past it). */
#define PP_RESPATH_MAX_LINKS 40

/* realpath of dir (len bytes, no NUL), from the cache or resolved now. */
static const char *pp_respath_dir(struct pp_respath *rp, const char *dir,
				  size_t len)
{
	struct pp_respath_dir *d;
	char name[PATH_MAX];

	if (len >= sizeof(name)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	memcpy(name, dir, len);
	name[len] = '\0';
	for (int i = 0; i < rp->n; i++) {
		if (strcmp(rp->dir[i].name, name) != 0)
			continue;
		errno = rp->dir[i].err;
		return rp->dir[i].real;
	}
	if (rp->n == PP_RESPATH_DIRS)
		pp_respath_release(rp);
	d = &rp->dir[rp->n];
	d->real = realpath(name, NULL);
	d->err = d->real ? 0 : errno;
	d->name = strdup(name);
	if (!d->name) {
		free(d->real);
		errno = ENOMEM;
		return NULL;
	}
	rp->n++;
	errno = d->err;
	/* A link's target is often in the real directory: it is its own. */
	if (d->real && strcmp(d->real, name) != 0 && rp->n < PP_RESPATH_DIRS) {
		struct pp_respath_dir *r = &rp->dir[rp->n];

		r->name = strdup(d->real);
		r->real = r->name ? strdup(d->real) : NULL;
		r->err = 0;
		if (r->real)
			rp->n++;
		else
			free(r->name);
		errno = 0;
	}
	return d->real;
}

/*
 * Splits path at its last '/' and resolves the directory part: "x" is in
 * ".", "/x" in "/". Puts the resolved directory and the last name in out.
 */
static int pp_respath_join(struct pp_respath *rp, const char *path, char *out)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *real;

	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
		/* Not a file's name: realpath takes it whole. */
		return realpath(path, out) ? 0 : -1;
	}
	if (!slash)
		real = pp_respath_dir(rp, ".", 1);
	else if (slash == path)
		real = pp_respath_dir(rp, "/", 1);
	else
		real = pp_respath_dir(rp, path, (size_t)(slash - path));
	if (!real)
		return -1;
	if (snprintf(out, PATH_MAX, "%s/%s", strcmp(real, "/") ? real : "",
		     base) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int pp_respath_resolve(struct pp_respath *rp, const char *name, char *out)
{
	char path[PATH_MAX], link[PATH_MAX];

	if (!name || !*name) {
		errno = ENOENT;
		return -1;
	}
	if (snprintf(path, sizeof(path), "%s", name) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (int links = 0; links <= PP_RESPATH_MAX_LINKS; links++) {
		ssize_t n;
		char *slash;

		if (pp_respath_join(rp, path, out) != 0)
			return -1;
		n = readlink(out, link, sizeof(link) - 1);
		if (n < 0)
			return errno == EINVAL ? 0 : -1; /* EINVAL: not a link */
		link[n] = '\0';
		if (link[0] == '/') {
			memcpy(path, link, (size_t)n + 1);
			continue;
		}
		/* A relative target is taken from the link's own directory. */
		slash = strrchr(out, '/');
		if (snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - out),
			     out, link) >= (int)sizeof(path)) {
			errno = ENAMETOOLONG;
			return -1;
		}
	}
	errno = ELOOP;
	return -1;
}

void pp_respath_release(struct pp_respath *rp)
{
	for (int i = 0; i < rp->n; i++) {
		free(rp->dir[i].name);
		free(rp->dir[i].real);
	}
	rp->n = 0;
}
