// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The on-disk cache: one table file per build-id under the cache root,
 * reused when valid, rebuilt when absent, corrupt or forced. The hit path
 * reads only the ELF's build-id note and maps + checks the table file; it
 * never parses call-frame information.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eh_frame/eh_internal.h"
#include "eh_frame/hex.h"

#define NO_BUILD_ID_PREFIX "nb-"

static int fit(char *buf, size_t len, int n)
{
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int eh_cache_root(const char *dir, char *buf, size_t len)
{
	const char *env = getenv(EH_CACHE_ENV), *xdg, *home;

	if (dir && *dir)
		return fit(buf, len, snprintf(buf, len, "%s", dir));
	if (env && *env)
		return fit(buf, len, snprintf(buf, len, "%s", env));
	if (geteuid() == 0)
		return fit(buf, len, snprintf(buf, len, "/var/cache/probekit"));
	xdg = getenv("XDG_CACHE_HOME");
	if (xdg && *xdg == '/')	/* the XDG spec ignores relative paths */
		return fit(buf, len, snprintf(buf, len, "%s/probekit", xdg));
	home = getenv("HOME");
	if (home && *home)
		return fit(buf, len, snprintf(buf, len, "%s/.cache/probekit", home));
	return -ENOENT;
}

/* The build-id in hex, or "nb-" and the hash of the whole file's bytes: a
 * copy of the file anywhere gets the same key, any change a new one. */
static int key_of(const struct eh_elf_file *ef, char *buf, size_t len)
{
	const __u8 *id;
	const void *bytes;
	size_t n, size;
	__u64 h;
	__u8 be[8];
	int i;

	id = eh_elf_file_build_id(ef, &n);
	if (n)
		return eh_hex(id, n, buf, len);
	/* a buffer that is too short fails before the whole file is read */
	if (len < sizeof(NO_BUILD_ID_PREFIX))
		return -ENAMETOOLONG;
	bytes = eh_elf_file_bytes(ef, &size);
	h = eh_hash_final(eh_hash_update(EH_HASH_INIT, bytes, size), size);
	for (i = 0; i < 8; i++)
		be[i] = (__u8)(h >> (56 - 8 * i));
	memcpy(buf, NO_BUILD_ID_PREFIX, sizeof(NO_BUILD_ID_PREFIX) - 1);
	return eh_hex(be, sizeof(be), buf + sizeof(NO_BUILD_ID_PREFIX) - 1,
		      len - (sizeof(NO_BUILD_ID_PREFIX) - 1));
}

int eh_cache_key(const char *path, char *buf, size_t len, char err[PK_ERR_LEN])
{
	struct eh_elf_file *ef;
	int ret;

	ret = eh_elf_file_open(path, &ef, err);
	if (ret)
		return ret;
	ret = key_of(ef, buf, len);
	if (ret)
		pk_err(err, ret, "cache key does not fit in %zu bytes", len);
	eh_elf_file_close(ef);
	return ret;
}

int eh_cache_path(const char *root, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);

	if (klen < 3 || strchr(key, '/'))
		return -EINVAL;
	/* nb-<hash> goes to nb/<hash>: keeps the 2-hex directories for
	 * build-ids only */
	if (!strncmp(key, NO_BUILD_ID_PREFIX, sizeof(NO_BUILD_ID_PREFIX) - 1))
		return fit(buf, len, snprintf(buf, len, "%s/nb/%s.unwind", root,
					      key + sizeof(NO_BUILD_ID_PREFIX) - 1));
	return fit(buf, len, snprintf(buf, len, "%s/%.2s/%s.unwind", root, key,
				      key + 2));
}

/*
 * Every write of the cache goes through eh_cache_mkdirs() and
 * eh_cache_file_begin()/_commit(), whoever writes (tables, probe-read's
 * own caches, probe-load's kernel types): their failures are counted here,
 * so that a program says once, at its end, that the cache was not written
 * (eh_cache_unsaved()), rather than once a file. Its writers run on
 * several threads (pk_jobs).
 */
static pthread_mutex_t unsaved_lock = PTHREAD_MUTEX_INITIALIZER;
static struct eh_cache_unsaved unsaved;
/* and the writes that took: the bound is kept where the cache grew */
static bool written;

/* FILE was not written, for RET (a negative errno): counted. RET. */
static int note_unsaved(const char *file, int ret)
{
	const char *slash = strrchr(file, '/');

	pthread_mutex_lock(&unsaved_lock);
	if (!unsaved.writes++) {
		unsaved.error = ret;
		snprintf(unsaved.dir, sizeof(unsaved.dir), "%.*s",
			 slash && slash != file ? (int)(slash - file) : 1, slash ? file : ".");
	}
	pthread_mutex_unlock(&unsaved_lock);
	return ret;
}

bool eh_cache_written(void)
{
	bool ret;

	pthread_mutex_lock(&unsaved_lock);
	ret = written;
	pthread_mutex_unlock(&unsaved_lock);
	return ret;
}

void eh_cache_unsaved(struct eh_cache_unsaved *out)
{
	pthread_mutex_lock(&unsaved_lock);
	*out = unsaved;
	pthread_mutex_unlock(&unsaved_lock);
}

int eh_cache_mkdirs(const char *file, char err[PK_ERR_LEN])
{
	char dir[4096];
	char *p;

	if (fit(dir, sizeof(dir), snprintf(dir, sizeof(dir), "%s", file)))
		return note_unsaved(file, pk_err(err, -ENAMETOOLONG, "cache path too long"));
	p = strrchr(dir, '/');
	if (!p || p == dir)
		return 0;
	*p = '\0';
	for (p = dir + 1; ; p++) {
		bool last = *p == '\0';

		if (*p != '/' && !last)
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			return note_unsaved(file, pk_err(err, -errno, "cannot create %s: %s", dir,
							 strerror(errno)));
		if (last)
			return 0;
		*p = '/';
	}
}

int eh_cache_file_begin(struct eh_cache_file *f, const char *file, char err[PK_ERR_LEN])
{
	int ret = 0;

	f->fd = -1;
	f->path = file;
	if (fit(f->tmp, sizeof(f->tmp), snprintf(f->tmp, sizeof(f->tmp), "%s.tmp.XXXXXX", file)))
		return note_unsaved(file, pk_err(err, -ENAMETOOLONG, "cache path too long"));
	f->fd = mkostemp(f->tmp, O_CLOEXEC);
	if (f->fd < 0)
		return note_unsaved(file, pk_err(err, -errno, "cannot create %s: %s", f->tmp,
						 strerror(errno)));
	/* mkstemp makes 0600 */
	if (fchmod(f->fd, 0644)) {
		ret = pk_err(err, -errno, "cannot chmod %s: %s", f->tmp, strerror(errno));
		close(f->fd);
		unlink(f->tmp);
		f->fd = -1;
	}
	return ret ? note_unsaved(file, ret) : 0;
}

int eh_cache_file_put(struct eh_cache_file *f, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(f->fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= w;
	}
	return 0;
}

int eh_cache_file_commit(struct eh_cache_file *f, int failed, char err[PK_ERR_LEN])
{
	int ret = failed;

	if (f->fd < 0)
		return failed ? failed : -EBADF;
	if (ret)
		pk_err(err, ret, "cannot write %s: %s", f->tmp, strerror(-ret));
	if (close(f->fd) && !ret)
		ret = pk_err(err, -errno, "cannot write %s: %s", f->tmp, strerror(errno));
	f->fd = -1;
	if (!ret && rename(f->tmp, f->path))
		ret = pk_err(err, -errno, "cannot rename to %s: %s", f->path, strerror(errno));
	if (ret) {
		unlink(f->tmp);
		note_unsaved(f->path, ret);
	} else {
		pthread_mutex_lock(&unsaved_lock);
		written = true;
		pthread_mutex_unlock(&unsaved_lock);
	}
	return ret;
}

int eh_cache_write(const char *file, const void *buf, size_t n, char err[PK_ERR_LEN])
{
	struct eh_cache_file f;
	int ret = eh_cache_file_begin(&f, file, err);

	if (ret)
		return ret;
	return eh_cache_file_commit(&f, eh_cache_file_put(&f, buf, n), err);
}

static bool same_build_id(const struct eh_unwind_table *t, const struct eh_elf_file *ef)
{
	const struct pk_unwind_header *h = eh_unwind_table_header(t);
	const __u8 *id;
	size_t n;

	id = eh_elf_file_build_id(ef, &n);
	return h->build_id_len == n && !memcmp(h->build_id, id, n);
}

int eh_cache_get(const char *path, const struct eh_cache_opts *opts,
		 struct eh_unwind_table **out, char *cache_path, size_t cache_path_len,
		 char err[PK_ERR_LEN])
{
	char root[4096], key[2 * PK_UNWIND_BUILD_ID_MAX + 1], file[4096];
	struct eh_unwind_table *t = NULL;
	struct eh_elf_file *ef;
	int ret, result = EH_CACHE_BUILT;

	ret = eh_cache_root(EH_OPT(opts, cache_dir, NULL), root, sizeof(root));
	if (ret)
		return pk_err(err, ret, ret == -ENOENT ?
			       "no cache directory: set HOME or " EH_CACHE_ENV :
			       "cache directory path too long");
	ret = eh_elf_file_open(path, &ef, err);
	if (ret)
		return ret;
	ret = key_of(ef, key, sizeof(key));
	if (!ret)
		ret = eh_cache_path(root, key, file, sizeof(file));
	if (ret) {
		ret = pk_err(err, ret, "cache path too long");
		goto out;
	}
	if (cache_path && fit(cache_path, cache_path_len,
			      snprintf(cache_path, cache_path_len, "%s", file))) {
		ret = pk_err(err, -ENAMETOOLONG, "cache path does not fit the buffer");
		goto out;
	}

	if (!EH_OPT(opts, force, false)) {
		ret = eh_unwind_table_open(file, &t, NULL);
		if (!ret && same_build_id(t, ef)) {
			/* used now: the cache's bound removes the least
			 * recently used first, whatever relatime did */
			utimensat(AT_FDCWD, file, (struct timespec[]){ { .tv_nsec = UTIME_NOW },
								       { .tv_nsec = UTIME_OMIT } }, 0);
			result = EH_CACHE_HIT;
			goto done;
		}
		eh_unwind_table_free(t);
		t = NULL;
		if (!ret || ret == -EBADMSG)
			result = EH_CACHE_REBUILT;
	}

	ret = eh_table_from_elf_file(ef, path, EH_OPT(opts, build, NULL), &t, err);
	if (ret)
		goto out;
	/* the cache only saves the next build: a table that cannot be kept
	 * (a full disk, a read-only one) is used all the same */
	ret = eh_cache_mkdirs(file, err);
	if (!ret)
		ret = eh_unwind_table_write(t, file, err);
	if (ret)
		result = EH_CACHE_UNSAVED;
done:
	if (out) {
		*out = t;
		t = NULL;
	}
	ret = result;
out:
	eh_unwind_table_free(t);
	eh_elf_file_close(ef);
	return ret;
}
