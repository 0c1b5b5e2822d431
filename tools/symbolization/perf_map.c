// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/proc_status.h"
#include "lib/util/array.h"
#include "lib/util/strpool.h"
#include "lib/util/text.h"
#include "symbolization/perf_map.h"

/* One line: [start, end) named NAME. Its index is its line's order. */
struct entry {
	__u64 start, end;
	const char *name;
};

#define NO_ENTRY UINT32_MAX

/* [lo, the next range's lo) is named by entries[entry] (NO_ENTRY: by
 * nothing). Ranges cover the whole address space, from 0. */
struct range {
	__u64 lo;
	__u32 entry;
};

struct pk_perf_map {
	struct entry *entries;
	size_t nentries, entries_cap;
	struct range *ranges;
	size_t nranges;
	struct pk_strpool names;	/* kept across refreshes: names handed
					 * out stay valid until the map is freed */
	char *line;			/* a line split across reads */
	size_t line_len, line_cap;
	bool overlong;			/* the line being read is past the limit */
	struct pk_perf_map_stats stats;
	/* The file, to open again for pk_perf_map_refresh; NULL: fed by hand. */
	char *path;
	char *root;			/* non-NULL: PATH is inside this root */
	uid_t owner;
	dev_t dev;
	ino_t ino;
};

struct pk_perf_map *pk_perf_map_new(void)
{
	return calloc(1, sizeof(struct pk_perf_map));
}

void pk_perf_map_free(struct pk_perf_map *m)
{
	if (!m)
		return;
	pk_strpool_free(&m->names);
	free(m->entries);
	free(m->ranges);
	free(m->line);
	free(m->path);
	free(m->root);
	free(m);
}

const struct pk_perf_map_stats *pk_perf_map_stats(const struct pk_perf_map *m)
{
	return &m->stats;
}

/* --- parsing ---------------------------------------------------------------- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A hex number at *P, before END, with or without 0x: false when there is
 * none or it does not fit 64 bits; else *P is moved past it. */
static bool parse_hex(const char **p, const char *end, __u64 *v)
{
	const char *s = *p;
	__u64 x = 0;
	int d;

	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && pk_hexval(s[2]) >= 0)
		s += 2;
	if (s == end || pk_hexval(*s) < 0)
		return false;
	for (; s < end && (d = pk_hexval(*s)) >= 0; s++) {
		if (x >> 60)
			return false;
		x = x << 4 | (__u64)d;
	}
	*v = x;
	*p = s;
	return true;
}

static int add_entry(struct pk_perf_map *m, __u64 start, __u64 size, const char *name,
		     size_t len)
{
	struct entry *e;

	if (pk_array_reserve((void **)&m->entries, &m->entries_cap, sizeof(*m->entries),
			     m->nentries + 1, 64))
		return -ENOMEM;
	e = &m->entries[m->nentries];
	e->name = pk_strpool_addn(&m->names, name, len);
	if (!e->name)
		return -ENOMEM;
	e->start = start;
	/* SIZE 0 covers START alone (perf: end == start matches START) */
	e->end = start + (size ? size : 1);
	if (e->end < start)
		e->end = UINT64_MAX;
	m->nentries++;
	m->stats.entries++;
	return 0;
}

/* One line, without its newline. 0 (an entry or a line skipped) or
 * -ENOMEM. */
static int parse_line(struct pk_perf_map *m, const char *s, size_t n)
{
	const char *p = s, *end = s + n, *name;
	__u64 start, size;

	if (memchr(s, '\0', n) || !parse_hex(&p, end, &start) || p == end || !is_blank(*p))
		goto garbage;
	while (p < end && is_blank(*p))
		p++;
	if (!parse_hex(&p, end, &size) || p == end || !is_blank(*p))
		goto garbage;
	/* NAME: the rest, past one blank; something in it besides blanks */
	name = ++p;
	while (p < end && is_blank(*p))
		p++;
	/* entry indices are __u32 in the ranges */
	if (p == end || m->nentries >= NO_ENTRY - 1)
		goto garbage;
	return add_entry(m, start, size, name, end - name);
garbage:
	m->stats.garbage++;
	return 0;
}

/* Keep N more bytes of the line being read (it goes on past this read). */
static int hold(struct pk_perf_map *m, const char *s, size_t n)
{
	if (m->overlong)
		return 0;
	if (m->line_len + n > PK_PERF_MAP_LINE_MAX) {
		m->overlong = true;
		m->line_len = 0;
		return 0;
	}
	/* 256 doubled to hold at most PK_PERF_MAP_LINE_MAX (256 << 8) bytes
	 * stays within it */
	if (pk_array_reserve((void **)&m->line, &m->line_cap, 1, m->line_len + n, 256))
		return -ENOMEM;
	memcpy(m->line + m->line_len, s, n);
	m->line_len += n;
	return 0;
}

int pk_perf_map_feed(struct pk_perf_map *m, const char *buf, size_t len)
{
	int err = 0;

	m->stats.bytes += len;
	while (len && !err) {
		const char *nl = memchr(buf, '\n', len);
		size_t n = nl ? (size_t)(nl - buf) : len;

		if (!nl) {
			err = hold(m, buf, n);
			break;
		}
		/* A whole line in BUF is parsed where it is. */
		if (m->line_len == 0 && !m->overlong) {
			if (n > PK_PERF_MAP_LINE_MAX)
				m->stats.too_long++;
			else
				err = parse_line(m, buf, n);
		} else {
			err = hold(m, buf, n);
			if (!err && m->overlong)
				m->stats.too_long++;
			else if (!err)
				err = parse_line(m, m->line, m->line_len);
			m->line_len = 0;
			m->overlong = false;
		}
		buf = nl + 1;
		len -= n + 1;
	}
	m->stats.pending = m->line_len;
	return err;
}

/* --- the ranges ------------------------------------------------------------- */

/* A start or end point of an entry. */
struct point {
	__u64 at;
	__u32 entry;
};

static int cmp_point(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* Max-heap of entry indices: the latest line on top. */
static void heap_push(__u32 *h, size_t *n, __u32 v)
{
	size_t i = (*n)++;

	for (; i && h[(i - 1) / 2] < v; i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = v;
}

static void heap_pop(__u32 *h, size_t *n)
{
	__u32 v = h[--*n];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < *n) {
		if (c + 1 < *n && h[c + 1] > h[c])
			c++;
		if (h[c] <= v)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = v;
}

/*
 * The address space cut into ranges, each named by the latest line that
 * covers it: a sweep over the entries' start and end points in address
 * order with the entries that started so far on a heap by line order; an
 * entry that has ended leaves the heap when it comes to the top. O(n log n).
 */
int pk_perf_map_finish(struct pk_perf_map *m)
{
	size_t n = m->nentries, i = 0, j = 0, nheap = 0, nr = 0, named = 0;
	struct point *starts = malloc((n ? n : 1) * sizeof(*starts));
	struct point *ends = malloc((n ? n : 1) * sizeof(*ends));
	__u32 *heap = malloc((n ? n : 1) * sizeof(*heap));
	struct range *r = malloc((2 * n + 1) * sizeof(*r));

	if (!starts || !ends || !heap || !r) {
		free(starts);
		free(ends);
		free(heap);
		free(r);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++) {
		starts[k] = (struct point){ m->entries[k].start, (__u32)k };
		ends[k] = (struct point){ m->entries[k].end, (__u32)k };
	}
	qsort(starts, n, sizeof(*starts), cmp_point);
	qsort(ends, n, sizeof(*ends), cmp_point);
	r[nr++] = (struct range){ 0, NO_ENTRY };
	while (i < n || j < n) {
		__u64 at = i < n && (j == n || starts[i].at <= ends[j].at) ? starts[i].at : ends[j].at;
		__u32 top;

		for (; i < n && starts[i].at == at; i++)
			heap_push(heap, &nheap, starts[i].entry);
		for (; j < n && ends[j].at == at; j++)
			;
		while (nheap && m->entries[heap[0]].end <= at)
			heap_pop(heap, &nheap);
		top = nheap ? heap[0] : NO_ENTRY;
		if (top == r[nr - 1].entry)
			continue;
		if (r[nr - 1].lo == at)
			r[nr - 1].entry = top;	/* only at address 0 */
		else
			r[nr++] = (struct range){ at, top };
	}
	for (size_t k = 0; k < nr; k++)
		named += r[k].entry != NO_ENTRY;
	free(starts);
	free(ends);
	free(heap);
	free(m->ranges);
	m->ranges = r;
	m->nranges = nr;
	m->stats.ranges = named;
	return 0;
}

const char *pk_perf_map_lookup(const struct pk_perf_map *m, __u64 addr, __u64 *start)
{
	size_t lo = 0, hi = m->nranges;
	const struct entry *e;

	if (!hi)
		return NULL;
	/* the last range with lo <= addr; ranges[0].lo is 0 */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->ranges[mid].lo <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (m->ranges[lo].entry == NO_ENTRY)
		return NULL;
	e = &m->entries[m->ranges[lo].entry];
	if (start)
		*start = e->start;
	return e->name;
}

/* --- the file --------------------------------------------------------------- */

#define OPEN_FLAGS (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)

/* REL inside ROOT (a process's: /proc/PID/root, or the directory kept of
 * it): its absolute symlinks and ".." stay in that root (a container's
 * /tmp cannot point at the host's files). */
static int open_in_root(const char *root, const char *rel)
{
	struct open_how how = {
		.flags = OPEN_FLAGS,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int dfd, fd, err;

	dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	fd = (int)syscall(SYS_openat2, dfd, rel, &how, sizeof(how));
	/* before Linux 5.6: the path as it is */
	if (fd < 0 && errno == ENOSYS)
		fd = openat(dfd, rel, OPEN_FLAGS);
	err = errno;
	close(dfd);
	return fd < 0 ? -err : fd;
}

/* The file, if it may be read: a regular file with one link, owned by the
 * owner or root. */
static int open_checked(const struct pk_perf_map *m, struct stat *st)
{
	int fd = m->root ? open_in_root(m->root, m->path) : open(m->path, OPEN_FLAGS);
	int err = 0;

	if (fd < 0)
		return m->root ? fd : -errno;
	if (fstat(fd, st))
		err = -errno;
	else if (!S_ISREG(st->st_mode))
		err = -EINVAL;
	else if ((st->st_uid != m->owner && st->st_uid != 0) || st->st_nlink != 1)
		err = -EPERM;
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* Feed the file from FROM up to its size when it was opened (a file still
 * being written is read as far as it was then). */
static int read_file(struct pk_perf_map *m, int fd, __u64 from, __u64 size)
{
	char buf[16384];

	while (from < size) {
		size_t want = size - from < sizeof(buf) ? size - from : sizeof(buf);
		ssize_t got = pread(fd, buf, want, (off_t)from);
		int err;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			break;
		err = pk_perf_map_feed(m, buf, (size_t)got);
		if (err)
			return err;
		from += (__u64)got;
	}
	return 0;
}

int pk_perf_map_refresh(struct pk_perf_map *m)
{
	size_t before = m->nentries;
	struct stat st;
	__u64 from = m->stats.bytes;
	int fd, err, fin;

	if (!m->path)
		return -EINVAL;
	fd = open_checked(m, &st);
	if (fd < 0)
		return fd;
	if (st.st_dev != m->dev || st.st_ino != m->ino || (__u64)st.st_size < from) {
		/* Another file, or rewritten: read it all. */
		m->dev = st.st_dev;
		m->ino = st.st_ino;
		m->nentries = 0;
		m->nranges = 0;		/* they name entries no longer there */
		m->line_len = 0;
		m->overlong = false;
		memset(&m->stats, 0, sizeof(m->stats));
		before = 0;
		from = 0;
	} else if ((__u64)st.st_size == from) {
		close(fd);
		return 0;
	}
	err = read_file(m, fd, from, (__u64)st.st_size);
	close(fd);
	/* what was read before an error is named too */
	fin = pk_perf_map_finish(m);
	if (!err)
		err = fin;
	return err ? err : (int)(m->nentries - before > INT32_MAX ? INT32_MAX : m->nentries - before);
}

/* The map at PATH (malloc'ed, taken), inside ROOT (malloc'ed, taken;
 * NULL: none), owned by OWNER or root. */
static struct pk_perf_map *load(char *path, char *root, uid_t owner)
{
	struct pk_perf_map *m = path ? pk_perf_map_new() : NULL;
	int err;

	if (!m) {
		free(path);
		free(root);
		errno = ENOMEM;
		return NULL;
	}
	m->path = path;
	m->root = root;
	m->owner = owner;
	/* no file yet: the first refresh reads it all */
	m->ino = 0;
	m->dev = (dev_t)-1;
	err = pk_perf_map_refresh(m);
	if (err < 0) {
		pk_perf_map_free(m);
		errno = -err;
		return NULL;
	}
	return m;
}

struct pk_perf_map *pk_perf_map_load(const char *path, uid_t owner)
{
	return load(strdup(path), NULL, owner);
}

struct pk_perf_map *pk_perf_map_load_in(const char *root, pid_t nstgid, uid_t owner)
{
	char *rel, *dir = strdup(root);

	if (!dir || asprintf(&rel, "tmp/perf-%d.map", (int)nstgid) < 0) {
		free(dir);
		errno = ENOMEM;
		return NULL;
	}
	return load(rel, dir, owner);
}

struct pk_perf_map *pk_perf_map_load_pid(pid_t pid)
{
	char root[32];
	uid_t euid = 0;
	pid_t nstgid = 0;	/* both set by pk_proc_ids(); gcc -O2 cannot see it */
	int err = pid > 0 ? pk_proc_ids(NULL, pid, &euid, &nstgid) : -EINVAL;

	if (err) {
		errno = -err;
		return NULL;
	}
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	return pk_perf_map_load_in(root, nstgid, euid);
}
