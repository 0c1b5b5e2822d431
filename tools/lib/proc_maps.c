// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/proc_maps.h"
#include "lib/util/array.h"
#include "lib/util/text.h"

#define DELETED_SUFFIX " (deleted)"

/* Strict field parsers (no sign, no "0x", no overflow): the line format is
 * the kernel's, and anything else is a malformed line, not a guess. */
static bool parse_num(const char **p, const char *end, int base, __u64 *out)
{
	const char *s = *p;
	__u64 v = 0;
	int digits = 0;

	for (; s < end; s++, digits++) {
		int d = pk_hexval(*s);

		if (d < 0 || d >= base)
			break;
		if (v > (~0ULL - d) / base)
			return false;
		v = v * base + d;
	}
	if (!digits)
		return false;
	*p = s;
	*out = v;
	return true;
}

static bool expect(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return false;
	(*p)++;
	return true;
}

static bool parse_perms(const char **p, const char *end, __u32 *perms)
{
	static const char want[4] = { 'r', 'w', 'x', 'p' };
	static const __u32 bit[4] = { PK_MAP_R, PK_MAP_W, PK_MAP_X, PK_MAP_P };
	const char *s = *p;

	if (end - s < 4)
		return false;
	*perms = 0;
	for (int i = 0; i < 4; i++) {
		if (s[i] == want[i])
			*perms |= bit[i];
		else if (s[i] != '-' && !(i == 3 && s[i] == 's'))
			return false;
	}
	*p = s + 4;
	return true;
}

int pk_maps_parse_line(const char *line, size_t len, struct pk_mapping *m)
{
	const char *p = line, *end = line + len, *name;
	__u64 major, minor;
	size_t name_len;

	memset(m, 0, sizeof(*m));
	if (len && end[-1] == '\n')
		end--;
	if (!parse_num(&p, end, 16, &m->start) || !expect(&p, end, '-') ||
	    !parse_num(&p, end, 16, &m->end) || !expect(&p, end, ' ') ||
	    !parse_perms(&p, end, &m->perms) || !expect(&p, end, ' ') ||
	    !parse_num(&p, end, 16, &m->offset) || !expect(&p, end, ' ') ||
	    !parse_num(&p, end, 16, &major) || !expect(&p, end, ':') ||
	    !parse_num(&p, end, 16, &minor) || !expect(&p, end, ' ') ||
	    !parse_num(&p, end, 10, &m->inode) ||
	    m->start >= m->end || major > 0xfff || minor > 0xfffff)
		return -EBADMSG;
	if (p < end && *p != ' ')
		return -EBADMSG;
	m->dev_major = major;
	m->dev_minor = minor;
	/* The name is padded to a column; a path itself starts with '/', so
	 * only the padding is skipped and spaces inside the path are kept. */
	while (p < end && *p == ' ')
		p++;
	name = p;
	name_len = end - p;
	if (name_len >= sizeof(DELETED_SUFFIX) - 1 && name[0] == '/' &&
	    memcmp(end - (sizeof(DELETED_SUFFIX) - 1), DELETED_SUFFIX,
		   sizeof(DELETED_SUFFIX) - 1) == 0) {
		m->deleted = true;
		name_len -= sizeof(DELETED_SUFFIX) - 1;
	}
	if (name_len == 0)
		m->kind = PK_MAP_ANON;
	else if (name[0] == '/')
		m->kind = PK_MAP_FILE;
	else
		m->kind = PK_MAP_SPECIAL;
	m->name = strndup(name, name_len);
	return m->name ? 0 : -ENOMEM;
}

static int cmp_start(const void *a, const void *b)
{
	const struct pk_mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int pk_maps_parse(const char *text, size_t len, bool exec_only, struct pk_maps *out)
{
	const char *p = text, *end = text + len;
	size_t cap = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *eol = nl ? nl : end;
		struct pk_mapping m;

		err = pk_maps_parse_line(p, eol - p, &m);
		if (err)
			break;
		p = nl ? nl + 1 : end;
		if (exec_only && !(m.perms & PK_MAP_X)) {
			free(m.name);
			continue;
		}
		if (pk_array_reserve((void **)&out->v, &cap, sizeof(*out->v), out->n + 1, 32)) {
			free(m.name);
			err = -ENOMEM;
			break;
		}
		out->v[out->n++] = m;
	}
	if (!err) {
		/* The kernel lists mappings in order; sorting only guards the
		 * binary search against an input that is not. */
		if (out->n)
			qsort(out->v, out->n, sizeof(*out->v), cmp_start);
		for (size_t i = 1; i < out->n; i++)
			if (out->v[i].start < out->v[i - 1].end)
				err = -EBADMSG;
	}
	if (err)
		pk_maps_free(out);
	return err;
}

/* /proc files report size 0: read until EOF (and end the text with a NUL
 * the length does not count). */
static int read_all(int fd, char **text, size_t *len)
{
	size_t cap = 0, n = 0;
	char *buf = NULL;

	for (;;) {
		ssize_t r;

		if (pk_array_reserve((void **)&buf, &cap, 1, n + 1, 16384)) {
			free(buf);
			return -ENOMEM;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = -errno;

			free(buf);
			return err;
		}
		if (r == 0)
			break;
		n += r;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

int pk_proc_text_read(const char *path, char **text, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = read_all(fd, text, len);
	close(fd);
	return err;
}

int pk_maps_read(const char *proc_root, pid_t pid, bool exec_only, struct pk_maps *out)
{
	char path[4096], *text = NULL;
	size_t len = 0;	/* set by read_all(); gcc -O2 cannot see it */
	int err;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/%d/maps", proc_root ? proc_root : "/proc", (int)pid);
	err = pk_proc_text_read(path, &text, &len);
	if (err)
		return err;
	err = pk_maps_parse(text, len, exec_only, out);
	free(text);
	return err;
}

int pk_proc_for_each_pid(const char *proc_root, int (*fn)(void *ctx, pid_t pid), void *ctx)
{
	struct dirent *de;
	int ret = 0;
	DIR *d = opendir(proc_root ? proc_root : "/proc");

	if (!d)
		return -errno;
	while (!ret && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (!*end && pid > 0 && pid <= INT_MAX)
			ret = fn(ctx, pid);
	}
	closedir(d);
	return ret;
}

const struct pk_mapping *pk_maps_find(const struct pk_maps *maps, __u64 addr)
{
	size_t lo = 0, hi = maps->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct pk_mapping *m = &maps->v[mid];

		if (addr < m->start)
			hi = mid;
		else if (addr >= m->end)
			lo = mid + 1;
		else
			return m;
	}
	return NULL;
}

void pk_maps_free(struct pk_maps *maps)
{
	for (size_t i = 0; i < maps->n; i++)
		free(maps->v[i].name);
	free(maps->v);
	maps->v = NULL;
	maps->n = 0;
}

int pk_map_files_path(char *buf, size_t len, const char *proc_root, pid_t pid, __u64 start,
		      __u64 end)
{
	int n = snprintf(buf, len, "%s/%d/map_files/%llx-%llx", proc_root, (int)pid,
			 (unsigned long long)start, (unsigned long long)end);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int pk_map_files_named(char *path, char *name, size_t len, const char *proc_root, pid_t pid,
		       __u64 start, __u64 end)
{
	ssize_t n;
	int ret = pk_map_files_path(path, len, proc_root, pid, start, end);

	if (ret)
		return ret;
	name[0] = '\0';
	n = readlink(path, name, len - 1);
	if (n < 0 && (errno == ENOENT || errno == ESRCH))
		return -ESRCH;
	if (n > 0)
		name[n] = '\0';
	return 0;
}

int pk_path_hold(const char *path, char *buf, size_t len)
{
	/* O_NONBLOCK: a FIFO named by mistake must not hang the reader */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), n;

	if (fd < 0)
		return -errno;
	n = snprintf(buf, len, "/proc/self/fd/%d", fd);
	if (n < 0 || (size_t)n >= len) {
		close(fd);
		return -ENAMETOOLONG;
	}
	return fd;
}
