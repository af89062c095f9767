/* rootfiles: a run's content-named files, read once; see rootfiles.h. */
#include "rootfiles.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

struct pa_rootfile {
	struct pa_rootfile *next; /* in its slot's chain */
	size_t size;
	char *data;      /* NULL: a file found not to be what its name says */
	char path[]; /* NUL-terminated */
};

#define PA_ROOTFILES_MIN_SLOTS 64

static pthread_mutex_t pa_rootfiles_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pa_rootfile **pa_rootfiles_slot; /* nslots chains */
static size_t pa_rootfiles_nslots, pa_rootfiles_n;

static size_t pa_rootfiles_at(const char *path, size_t nslots)
{
	return (size_t)(pa_hash(path, strlen(path), 0) & (nslots - 1));
}

/* Under the lock. */
static struct pa_rootfile *pa_rootfiles_lookup(const char *path)
{
	if (!pa_rootfiles_nslots)
		return NULL;
	for (struct pa_rootfile *f = pa_rootfiles_slot[pa_rootfiles_at(path, pa_rootfiles_nslots)];
	     f; f = f->next)
		if (strcmp(f->path, path) == 0)
			return f;
	return NULL;
}

/* Under the lock: twice the slots once there are as many files as slots. */
static int pa_rootfiles_grow(void)
{
	size_t nslots = pa_rootfiles_nslots ? 2 * pa_rootfiles_nslots : PA_ROOTFILES_MIN_SLOTS;
	struct pa_rootfile **slot;

	if (pa_rootfiles_n < pa_rootfiles_nslots)
		return 0;
	slot = calloc(nslots, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < pa_rootfiles_nslots; i++) {
		while (pa_rootfiles_slot[i]) {
			struct pa_rootfile *f = pa_rootfiles_slot[i];
			size_t at = pa_rootfiles_at(f->path, nslots);

			pa_rootfiles_slot[i] = f->next;
			f->next = slot[at];
			slot[at] = f;
		}
	}
	free(pa_rootfiles_slot);
	pa_rootfiles_slot = slot;
	pa_rootfiles_nslots = nslots;
	return 0;
}

int pa_rootfiles_find(const char *path, char **data, size_t *size)
{
	const struct pa_rootfile *f;
	int ret = 0;

	*data = NULL;
	*size = 0;
	pthread_mutex_lock(&pa_rootfiles_lock);
	f = pa_rootfiles_lookup(path);
	if (f && !f->data) {
		ret = 2;
	} else if (f) {
		*data = malloc(f->size ? f->size : 1);
		if (*data) {
			memcpy(*data, f->data, f->size);
			*size = f->size;
			ret = 1;
		} else {
			ret = -ENOMEM;
		}
	}
	pthread_mutex_unlock(&pa_rootfiles_lock);
	return ret;
}

/*
 * Keeps path with a copy of the size bytes at data, or with none (data
 * NULL: marked bad). Returns 1 when path was kept already (its first stays),
 * 0 when kept now, or -ENOMEM with nothing kept.
 */
static int pa_rootfiles_add(const char *path, const void *data, size_t size)
{
	size_t len = strlen(path);
	struct pa_rootfile *f = malloc(sizeof(*f) + len + 1);
	size_t at;
	int ret = 0;

	if (f)
		f->data = NULL;
	if (!f || (data && !(f->data = malloc(size ? size : 1)))) {
		free(f);
		return -ENOMEM;
	}
	memcpy(f->path, path, len + 1);
	if (data)
		memcpy(f->data, data, size);
	f->size = data ? size : 0;
	pthread_mutex_lock(&pa_rootfiles_lock);
	if (pa_rootfiles_lookup(path)) {
		ret = 1;
	} else if (pa_rootfiles_grow() < 0) {
		ret = -ENOMEM;
	} else {
		at = pa_rootfiles_at(path, pa_rootfiles_nslots);
		f->next = pa_rootfiles_slot[at];
		pa_rootfiles_slot[at] = f;
		pa_rootfiles_n++;
		f = NULL;
	}
	pthread_mutex_unlock(&pa_rootfiles_lock);
	if (f) {
		free(f->data);
		free(f);
	}
	return ret;
}

int pa_rootfiles_keep(const char *path, const void *data, size_t size)
{
	int ret = pa_rootfiles_add(path, data ? data : "", size);

	return ret < 0 ? ret : 0;
}

int pa_rootfiles_mark_bad(const char *path)
{
	int ret = pa_rootfiles_add(path, NULL, 0);

	return ret < 0 ? ret : !ret;
}

void pa_rootfiles_release(void)
{
	pthread_mutex_lock(&pa_rootfiles_lock);
	for (size_t i = 0; i < pa_rootfiles_nslots; i++) {
		while (pa_rootfiles_slot[i]) {
			struct pa_rootfile *f = pa_rootfiles_slot[i];

			pa_rootfiles_slot[i] = f->next;
			free(f->data);
			free(f);
		}
	}
	free(pa_rootfiles_slot);
	pa_rootfiles_slot = NULL;
	pa_rootfiles_nslots = pa_rootfiles_n = 0;
	pthread_mutex_unlock(&pa_rootfiles_lock);
}
