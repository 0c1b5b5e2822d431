// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The unwind store's maps: made (probe-load) or opened from their pins
 * (probe-read), checked against the layout of bpf/probekit.h; the pin
 * directory's lock; the allocation counters; the ids of the tables
 * unwind_tables holds.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/unwind_store_internal.h"
#include "lib/util/text.h"

__u64 pk_kernel_dev(unsigned int major, unsigned int minor)
{
	return ((__u64)major << 20) | minor;
}

__u64 pk_user_dev(__u64 kernel_dev)
{
	return makedev(kernel_dev >> 20, kernel_dev & 0xfffff);
}

/* OPTS's FIELD, or DEF when OPTS is NULL */
#define OPT(o, field, def)	((o) ? (o)->field : (def))

int pk_unwind_store_lock(struct pk_unwind_store *s)
{
	while (flock(s->dir_fd, LOCK_EX))
		if (errno != EINTR)
			return -errno;
	return 0;
}

void pk_unwind_store_unlock(struct pk_unwind_store *s)
{
	flock(s->dir_fd, LOCK_UN);
}

int pk_unwind_alloc_read(const struct pk_unwind_store *s, struct pk_unwind_alloc *a)
{
	__u32 key = 0;

	return bpf_map_lookup_elem(s->fds.alloc, &key, a) ? -errno : 0;
}

int pk_unwind_alloc_write(const struct pk_unwind_store *s, const struct pk_unwind_alloc *a)
{
	__u32 key = 0;

	return bpf_map_update_elem(s->fds.alloc, &key, a, BPF_ANY) ? -errno : 0;
}

/* The map behind FD must have this layout; its max_entries into *MAX. */
static int check_map(int fd, const char *name, __u32 type, __u32 key_size, __u32 value_size,
		     __u32 *max, char err[PK_ERR_LEN])
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return pk_err(err, -errno, "unwind map %s: %s", name, strerror(errno));
	if (info.type != type || info.key_size != key_size || info.value_size != value_size)
		return pk_err(err, -EINVAL, "unwind map %s: type %u, key %u, value %u bytes: not the layout of bpf/probekit.h",
			      name, info.type, info.key_size, info.value_size);
	*max = info.max_entries;
	return 0;
}

int pk_unwind_maps_create(const struct pk_unwind_alloc *caps, __u32 nfiles,
			   struct pk_unwind_fds *fds)
{
	LIBBPF_OPTS(bpf_map_create_opts, inner_o, .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	LIBBPF_OPTS(bpf_map_create_opts, outer_o);
	LIBBPF_OPTS(bpf_map_create_opts, files_o, .map_flags = BPF_F_NO_PREALLOC);
	int inner, ret = 0;

	for (int i = 0; i < PK_UNWIND_NMAPS; i++)
		fds->fd[i] = -1;
	inner = bpf_map_create(BPF_MAP_TYPE_ARRAY, "pk_table", sizeof(__u32),
			       sizeof(union pk_table_page), 1, &inner_o);
	if (inner < 0)
		return -errno;
	outer_o.inner_map_fd = inner;
	fds->files = bpf_map_create(BPF_MAP_TYPE_HASH, PK_PIN_UNWIND_FILES,
				    sizeof(struct pk_file_key), sizeof(struct pk_file_info),
				    nfiles, &files_o);
	fds->tables = bpf_map_create(BPF_MAP_TYPE_ARRAY, PK_PIN_UNWIND_TABLES, sizeof(__u32),
				     sizeof(struct pk_table_info), caps->max_tables, NULL);
	fds->rows = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, PK_PIN_UNWIND_ROWS, sizeof(__u32),
				   sizeof(__u32), caps->max_tables, &outer_o);
	fds->alloc = bpf_map_create(BPF_MAP_TYPE_ARRAY, PK_PIN_UNWIND_ALLOC, sizeof(__u32),
				    sizeof(struct pk_unwind_alloc), 1, NULL);
	fds->seen = bpf_map_create(BPF_MAP_TYPE_LRU_HASH, PK_PIN_UNWIND_SEEN,
				   sizeof(struct pk_file_key), sizeof(__u8), 64, NULL);
	fds->py = bpf_map_create(BPF_MAP_TYPE_HASH, PK_PIN_PY_FILES, sizeof(struct pk_file_key),
				 sizeof(struct pk_py_file), 64, NULL);
	fds->hs = bpf_map_create(BPF_MAP_TYPE_HASH, PK_PIN_HS_FILES, sizeof(struct pk_file_key),
				 sizeof(struct pk_hs_file), 64, NULL);
	fds->v8 = bpf_map_create(BPF_MAP_TYPE_HASH, PK_PIN_V8_FILES, sizeof(struct pk_file_key),
				 sizeof(struct pk_v8_file), 64, NULL);
	for (int i = 0; i < PK_UNWIND_NMAPS && !ret; i++)
		if (fds->fd[i] < 0)
			ret = -errno;
	close(inner);
	if (ret)
		pk_unwind_fds_close(fds);
	return ret;
}

/* Check every map against the layout and CAPS. */
static int attach_maps(struct pk_unwind_store *s, char err[PK_ERR_LEN])
{
	const struct pk_unwind_alloc *c = &s->caps;
	__u32 files, tables, rows, alloc, seen, py, hs, v8;
	int ret;

	if ((ret = check_map(s->fds.files, PK_PIN_UNWIND_FILES, BPF_MAP_TYPE_HASH,
			     sizeof(struct pk_file_key), sizeof(struct pk_file_info), &files, err)) ||
	    (ret = check_map(s->fds.tables, PK_PIN_UNWIND_TABLES, BPF_MAP_TYPE_ARRAY,
			     sizeof(__u32), sizeof(struct pk_table_info), &tables, err)) ||
	    (ret = check_map(s->fds.rows, PK_PIN_UNWIND_ROWS, BPF_MAP_TYPE_ARRAY_OF_MAPS,
			     sizeof(__u32), sizeof(__u32), &rows, err)) ||
	    (ret = check_map(s->fds.alloc, PK_PIN_UNWIND_ALLOC, BPF_MAP_TYPE_ARRAY, sizeof(__u32),
			     sizeof(struct pk_unwind_alloc), &alloc, err)) ||
	    (ret = check_map(s->fds.seen, PK_PIN_UNWIND_SEEN, BPF_MAP_TYPE_LRU_HASH,
			     sizeof(struct pk_file_key), sizeof(__u8), &seen, err)) ||
	    (s->fds.py >= 0 &&
	     (ret = check_map(s->fds.py, PK_PIN_PY_FILES, BPF_MAP_TYPE_HASH,
			      sizeof(struct pk_file_key), sizeof(struct pk_py_file), &py, err))) ||
	    (s->fds.hs >= 0 &&
	     (ret = check_map(s->fds.hs, PK_PIN_HS_FILES, BPF_MAP_TYPE_HASH,
			      sizeof(struct pk_file_key), sizeof(struct pk_hs_file), &hs, err))) ||
	    (s->fds.v8 >= 0 &&
	     (ret = check_map(s->fds.v8, PK_PIN_V8_FILES, BPF_MAP_TYPE_HASH,
			      sizeof(struct pk_file_key), sizeof(struct pk_v8_file), &v8, err))))
		return ret;
	if (!c->max_tables || !c->max_bytes || tables < c->max_tables || rows < c->max_tables)
		return pk_err(err, -EINVAL, "unwind maps too small for %u tables", c->max_tables);
	s->ids = calloc(c->max_tables, sizeof(*s->ids));
	if (!s->ids)
		return pk_err(err, -ENOMEM, "out of memory");
	return 0;
}

int pk_unwind_store_refresh_ids(struct pk_unwind_store *s, const struct pk_unwind_alloc *a)
{
	struct pk_table_info ti;

	if (a->epoch != s->epoch) {
		s->nids = 0;
		s->epoch = a->epoch;
	}
	for (; s->nids < a->tables && s->nids < s->caps.max_tables; s->nids++) {
		struct pk_unwind_id *id = &s->ids[s->nids];

		if (bpf_map_lookup_elem(s->fds.tables, &s->nids, &ti))
			return -errno;
		memset(id, 0, sizeof(*id));
		if (!ti.nrows)
			continue;	/* free */
		id->no_build_id = !!(ti.flags & PK_UNWIND_NO_BUILD_ID);
		id->len = ti.build_id_len < sizeof(id->id) ? ti.build_id_len : sizeof(id->id);
		memcpy(id->id, ti.build_id, id->len);
	}
	return 0;
}

/* The table of ID among IDS[0, N), or -1. Tables are few (at most
 * max_tables, thousands): a linear search costs less than keeping a hash. */
int pk_unwind_ids_find(const struct pk_unwind_id *ids, const struct pk_unwind_id *id, __u32 n)
{
	for (__u32 i = 0; i < n; i++)
		if (ids[i].len && ids[i].len == id->len && ids[i].no_build_id == id->no_build_id &&
		    !memcmp(ids[i].id, id->id, id->len))
			return i;
	return -1;
}

int pk_unwind_id_from_key(const char *key, struct pk_unwind_id *id)
{
	size_t n;

	memset(id, 0, sizeof(*id));
	if (!strncmp(key, "nb-", 3)) {
		id->no_build_id = 1;
		key += 3;
	}
	n = strlen(key);
	if (n % 2 || n / 2 > sizeof(id->id) || !n)
		return -EINVAL;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = pk_hexval_lower(key[2 * i]), lo = pk_hexval_lower(key[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		id->id[i] = hi << 4 | lo;
	}
	id->len = n / 2;
	return 0;
}

static struct pk_unwind_store *store_new(const struct pk_unwind_store_opts *opts)
{
	struct pk_unwind_store *s = calloc(1, sizeof(*s));
	const char *dir = OPT(opts, cache_dir, NULL);
	long ncpus;

	if (!s)
		return NULL;
	for (int i = 0; i < PK_UNWIND_NMAPS; i++)
		s->fds.fd[i] = -1;
	s->dir_fd = s->vdso_fd = -1;
	s->jobs = OPT(opts, jobs, 0);
	if (!s->jobs) {
		ncpus = sysconf(_SC_NPROCESSORS_ONLN);
		s->jobs = ncpus > 0 ? ncpus : 1;
	}
	s->log = OPT(opts, log, NULL);
	s->prog = OPT(opts, prog, NULL);
	if (!s->prog)
		s->prog = "probekit";
	if (dir && !(s->cache_dir = strdup(dir))) {
		free(s);
		return NULL;
	}
	return s;
}

static int open_dir(struct pk_unwind_store *s, const char *pin_dir, char err[PK_ERR_LEN])
{
	s->dir_fd = open(pin_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dir_fd < 0)
		return pk_err(err, -errno, "cannot open %s: %s", pin_dir, strerror(errno));
	return 0;
}

int pk_unwind_store_create(const struct pk_unwind_fds *fds, const struct pk_unwind_alloc *caps,
			    const char *pin_dir, const struct pk_unwind_store_opts *opts,
			    struct pk_unwind_store **out, char err[PK_ERR_LEN])
{
	struct pk_unwind_store *s;
	int ret;

	*out = NULL;
	if (caps->tables || caps->live || caps->rows || caps->rules || caps->bytes)
		return pk_err(err, -EINVAL, "unwind store: a new store starts empty");
	s = store_new(opts);
	if (!s)
		return pk_err(err, -ENOMEM, "out of memory");
	s->fds = *fds;
	s->caps = *caps;
	ret = open_dir(s, pin_dir, err);
	if (!ret)
		ret = attach_maps(s, err);
	if (!ret && (ret = pk_unwind_store_lock(s)) == 0) {
		ret = pk_unwind_alloc_write(s, caps);
		pk_unwind_store_unlock(s);
	}
	if (ret && !err[0])
		pk_err(err, ret, "cannot write unwind_alloc: %s", strerror(-ret));
	if (ret) {
		pk_unwind_store_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

int pk_unwind_store_open(const char *pin_dir, const struct pk_unwind_store_opts *opts,
			  struct pk_unwind_store **out, char err[PK_ERR_LEN])
{
	const char *dir = pin_dir ? pin_dir : PK_PIN_DIR_DEFAULT;
	struct pk_unwind_alloc a;
	struct pk_unwind_store *s;
	int ret;

	*out = NULL;
	err[0] = '\0';
	s = store_new(opts);
	if (!s)
		return pk_err(err, -ENOMEM, "out of memory");
	s->own_fds = true;
	ret = pk_unwind_fds_open(dir, &s->fds);
	if (ret == -ENOENT)
		pk_err(err, ret, "no unwind tables at %s (loaded with probe-load --unwind fp?)", dir);
	else if (ret)
		pk_err(err, ret, "cannot open the unwind maps at %s: %s", dir, strerror(-ret));
	if (!ret)
		ret = open_dir(s, dir, err);
	if (!ret && (ret = pk_unwind_alloc_read(s, &a)))
		pk_err(err, ret, "cannot read unwind_alloc: %s", strerror(-ret));
	if (!ret) {
		s->caps = (struct pk_unwind_alloc){ .max_tables = a.max_tables,
			.max_rows = a.max_rows, .max_bytes = a.max_bytes };
		ret = attach_maps(s, err);
	}
	if (!ret && (ret = pk_unwind_store_lock(s)) == 0) {
		ret = pk_unwind_alloc_read(s, &a);
		if (!ret)
			ret = pk_unwind_store_refresh_ids(s, &a);
		pk_unwind_store_unlock(s);
		if (ret)
			pk_err(err, ret, "cannot read unwind_tables: %s", strerror(-ret));
	}
	if (ret) {
		pk_unwind_store_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

int pk_unwind_store_alloc(struct pk_unwind_store *s, struct pk_unwind_alloc *out)
{
	return pk_unwind_alloc_read(s, out);
}

void pk_unwind_store_free(struct pk_unwind_store *s)
{
	if (!s)
		return;
	if (s->own_fds)
		pk_unwind_fds_close(&s->fds);
	if (s->dir_fd >= 0)
		close(s->dir_fd);
	if (s->vdso_fd >= 0)
		close(s->vdso_fd);
	free(s->ids);
	free(s->cache_dir);
	free(s);
}
