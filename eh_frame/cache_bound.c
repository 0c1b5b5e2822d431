// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cache's one bound (PROBEKIT_CACHE_MAX): every file under the root,
 * whoever wrote it (tables, probe-read's .locs, debug copies, the kernel
 * files), counts, and the least recently used go first. A file's last use
 * is the later of its access and modification times: a table hit sets the
 * access time itself (eh_cache_get), and the kernel's relatime sets it
 * within a day for the others. A temporary file younger than an hour is
 * being written and is never removed; an older one is a crashed writer's,
 * removed first. The most recently used file stays even above the bound.
 */
#include <errno.h>
#include <fts.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "eh_frame/eh_table.h"
#include "lib/util/array.h"
#include "lib/util/size.h"

/* A temporary file older than this was left by a writer that died. */
#define TEMP_STALE_S	3600

int eh_cache_max(unsigned long long *max)
{
	const char *env = getenv(EH_CACHE_MAX_ENV);

	*max = EH_CACHE_MAX_DEFAULT;
	if (env && *env && !pk_parse_size(env, max))
		return -EINVAL;
	return 0;
}

static enum eh_cache_kind kind_of(const FTSENT *e)
{
	const char *name = e->fts_name, *dot = strrchr(name, '.');

	if (strstr(name, ".tmp."))
		return EH_CACHE_TEMP;
	if (e->fts_parent && !strcmp(e->fts_parent->fts_name, "kernel") &&
	    e->fts_level == 2)
		return EH_CACHE_KERNEL;
	if (dot && !strcmp(dot, ".unwind"))
		return EH_CACHE_TABLES;
	if (dot && !strcmp(dot, ".locs"))
		return EH_CACHE_LOCS;
	if (dot && !strcmp(dot, ".debug"))
		return EH_CACHE_DEBUG;
	return EH_CACHE_OTHER;
}

struct cached {
	char *path;
	struct timespec used;
	unsigned long long bytes;
	enum eh_cache_kind kind;
	int removable;
};

static int ts_cmp(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	return a->tv_nsec < b->tv_nsec ? -1 : a->tv_nsec > b->tv_nsec;
}

/* What goes first: a crashed writer's temporary files, then the least
 * recently used (the same time: by path, for a stable order). */
static int by_use(const void *a, const void *b)
{
	const struct cached *x = a, *y = b;
	int c;

	if ((x->kind == EH_CACHE_TEMP) != (y->kind == EH_CACHE_TEMP))
		return x->kind == EH_CACHE_TEMP ? -1 : 1;
	c = ts_cmp(&x->used, &y->used);
	return c ? c : strcmp(x->path, y->path);
}

static void count(struct eh_cache_usage *u, const struct cached *c, int sign)
{
	u->files[c->kind] += sign;
	u->bytes[c->kind] += sign * (long long)c->bytes;
	u->total_files += sign;
	u->total_bytes += sign * (long long)c->bytes;
}

int eh_cache_trim(const char *root, unsigned long long max, struct eh_cache_usage *usage,
		  char err[PK_ERR_LEN])
{
	char *paths[] = { (char *)root, NULL };
	struct eh_cache_usage local;
	struct cached *files = NULL;
	size_t n = 0, cap = 0, newest = 0;
	struct timespec now;
	FTS *fts;
	FTSENT *e;
	int ret = 0;

	if (!usage)
		usage = &local;
	memset(usage, 0, sizeof(*usage));
	clock_gettime(CLOCK_REALTIME, &now);
	fts = fts_open(paths, FTS_PHYSICAL | FTS_XDEV | FTS_NOCHDIR, NULL);
	if (!fts)
		return pk_err(err, -errno, "cannot read the cache %s: %s", root, strerror(errno));
	while ((e = fts_read(fts))) {
		const struct stat *st = e->fts_statp;
		struct cached c;

		if (e->fts_info != FTS_F)
			continue;
		c = (struct cached){
			.used = ts_cmp(&st->st_atim, &st->st_mtim) > 0 ? st->st_atim : st->st_mtim,
			.bytes = (unsigned long long)st->st_blocks * 512,
			.kind = kind_of(e),
		};
		c.removable = c.kind != EH_CACHE_TEMP ||
			      now.tv_sec - st->st_mtim.tv_sec > TEMP_STALE_S;
		c.path = strdup(e->fts_path);
		if (!c.path || pk_array_reserve((void **)&files, &cap, sizeof(*files), n + 1, 256)) {
			free(c.path);
			ret = pk_err(err, -ENOMEM, "out of memory");
			break;
		}
		files[n++] = c;
		count(usage, &c, 1);
	}
	if (!ret && errno && errno != ENOENT)
		ret = pk_err(err, -errno, "cannot read the cache %s: %s", root, strerror(errno));
	fts_close(fts);
	if (n)
		qsort(files, n, sizeof(*files), by_use);
	/* the most recently used, kept whatever it takes: the last (the
	 * temporary files sort first) */
	newest = n && files[n - 1].kind != EH_CACHE_TEMP ? n - 1 : n;
	for (size_t i = 0; !ret && max && i < n && usage->total_bytes > max; i++) {
		if (!files[i].removable || i == newest)
			continue;
		if (unlink(files[i].path) && errno != ENOENT)
			continue;	/* another's, or read-only: left, and counted */
		count(usage, &files[i], -1);
		usage->removed_files++;
		usage->removed_bytes += files[i].bytes;
	}
	for (size_t i = 0; i < n; i++)
		free(files[i].path);
	free(files);
	return ret;
}

int eh_cache_keep_bound(const char *dir, struct eh_cache_usage *usage, char err[PK_ERR_LEN])
{
	unsigned long long max;
	char root[4096];
	int ret;

	if (usage)
		memset(usage, 0, sizeof(*usage));
	if (!eh_cache_written())
		return 0;
	ret = eh_cache_max(&max);
	if (ret)
		return pk_err(err, ret, EH_CACHE_MAX_ENV "=%s: not a size (bytes, or K, M, G)",
			      getenv(EH_CACHE_MAX_ENV));
	ret = eh_cache_root(dir, root, sizeof(root));
	if (ret)
		return pk_err(err, ret, "no cache directory");
	return eh_cache_trim(root, max, usage, err);
}
