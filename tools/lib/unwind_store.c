// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The unwind maps from user space. A table's rows and rules are memcpy'd
 * into the mmapped arrays; then, one map update each, its unwind_tables
 * entry, the allocation counters and last the unwind_files entry: the BPF
 * side finds a table only through unwind_files, so it never sees one that is
 * half-written.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#include "eh_frame/eh_table.h"
#include "lib/exec_segs.h"
#include "lib/unwind_store.h"
#include "lib/util/jobs.h"
#include "lib/util/text.h"
#include "lib/vdso_image.h"

/* Which table a file needs: its build-id, or (PK_UNWIND_NO_BUILD_ID) the
 * content hash of its cache key; as in pk_table_info. */
struct table_id {
	__u32 no_build_id;
	__u32 len;
	__u8 id[PK_UNWIND_BUILD_ID_MAX];
};

struct pk_unwind_store {
	struct pk_unwind_fds fds;
	bool own_fds;			/* opened from pins: closed on free */
	int dir_fd;			/* the pin directory: flock(2) */
	struct pk_unwind_alloc caps;	/* max_* only */
	__u32 *pcs;			/* the mmapped arrays */
	__u16 *rule_ids;
	struct pk_unwind_rule *rules;
	size_t pcs_len, rule_ids_len, rules_len;
	/* unwind_tables[0, nids) as read so far; room for max_tables, so a
	 * snapshot of the first entries stays valid while more are added */
	struct table_id *ids;
	__u32 nids;
	int vdso_fd;			/* -1 until the vDSO is first needed */
	size_t vdso_size;
	char *cache_dir;
	unsigned int jobs;
	FILE *log;
	const char *prog;
};

__u64 pk_kernel_dev(unsigned int major, unsigned int minor)
{
	return ((__u64)major << 20) | minor;
}

/* OPTS's FIELD, or DEF when OPTS is NULL */
#define OPT(o, field, def)	((o) ? (o)->field : (def))

static int lock(struct pk_unwind_store *s)
{
	while (flock(s->dir_fd, LOCK_EX))
		if (errno != EINTR)
			return -errno;
	return 0;
}

static void unlock(struct pk_unwind_store *s)
{
	flock(s->dir_fd, LOCK_UN);
}

static int read_alloc(const struct pk_unwind_store *s, struct pk_unwind_alloc *a)
{
	__u32 key = 0;

	return bpf_map_lookup_elem(s->fds.alloc, &key, a) ? -errno : 0;
}

static int write_alloc(const struct pk_unwind_store *s, const struct pk_unwind_alloc *a)
{
	__u32 key = 0;

	return bpf_map_update_elem(s->fds.alloc, &key, a, BPF_ANY) ? -errno : 0;
}

/* The map behind FD must have these sizes; its max_entries into *MAX. */
static int check_map(int fd, const char *name, __u32 key_size, __u32 value_size,
		     bool mmapable, __u32 *max, char err[PK_ERR_LEN])
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return pk_err(err, -errno, "unwind map %s: %s", name, strerror(errno));
	if (info.key_size != key_size || info.value_size != value_size ||
	    mmapable != !!(info.map_flags & BPF_F_MMAPABLE))
		return pk_err(err, -EINVAL, "unwind map %s: key %u, value %u bytes%s: not the layout of bpf/probekit.h",
			      name, info.key_size, info.value_size,
			      info.map_flags & BPF_F_MMAPABLE ? ", mmapable" : "");
	*max = info.max_entries;
	return 0;
}

static int map_array(int fd, const char *name, __u32 entries, size_t value_size,
		     void **out, size_t *len, char err[PK_ERR_LEN])
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	*len = ((size_t)entries * value_size + page - 1) / page * page;
	p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return pk_err(err, -errno, "cannot mmap unwind map %s: %s", name, strerror(errno));
	*out = p;
	return 0;
}

/* Check every map against the layout and CAPS, and mmap the arrays. */
static int attach_maps(struct pk_unwind_store *s, char err[PK_ERR_LEN])
{
	const struct pk_unwind_alloc *c = &s->caps;
	__u32 files, tables, pcs, rule_ids, rules, alloc, seen;
	void *p;
	int ret;

	if ((ret = check_map(s->fds.files, PK_PIN_UNWIND_FILES, sizeof(struct pk_file_key),
			     sizeof(struct pk_file_info), false, &files, err)) ||
	    (ret = check_map(s->fds.tables, PK_PIN_UNWIND_TABLES, sizeof(__u32),
			     sizeof(struct pk_table_info), false, &tables, err)) ||
	    (ret = check_map(s->fds.pcs, PK_PIN_UNWIND_PCS, sizeof(__u32),
			     sizeof(struct pk_pcs_chunk), true, &pcs, err)) ||
	    (ret = check_map(s->fds.rule_ids, PK_PIN_UNWIND_RULE_IDS, sizeof(__u32),
			     sizeof(struct pk_rule_ids_chunk), true, &rule_ids, err)) ||
	    (ret = check_map(s->fds.rules, PK_PIN_UNWIND_RULES, sizeof(__u32),
			     sizeof(struct pk_unwind_rule), true, &rules, err)) ||
	    (ret = check_map(s->fds.alloc, PK_PIN_UNWIND_ALLOC, sizeof(__u32),
			     sizeof(struct pk_unwind_alloc), false, &alloc, err)) ||
	    (ret = check_map(s->fds.seen, PK_PIN_UNWIND_SEEN, sizeof(struct pk_file_key),
			     sizeof(__u8), false, &seen, err)))
		return ret;
	if (!c->max_tables || !c->max_rows || !c->max_rules ||
	    tables < c->max_tables || (__u64)pcs * PK_PCS_PER_CHUNK < c->max_rows ||
	    (__u64)rule_ids * PK_RULE_IDS_PER_CHUNK < c->max_rows || rules < c->max_rules)
		return pk_err(err, -EINVAL, "unwind maps too small for %u tables, %u rows, %u rules",
			      c->max_tables, c->max_rows, c->max_rules);
	ret = map_array(s->fds.pcs, PK_PIN_UNWIND_PCS, pcs, sizeof(struct pk_pcs_chunk),
			&p, &s->pcs_len, err);
	if (ret)
		return ret;
	s->pcs = p;
	ret = map_array(s->fds.rule_ids, PK_PIN_UNWIND_RULE_IDS, rule_ids,
			sizeof(struct pk_rule_ids_chunk), &p, &s->rule_ids_len, err);
	if (ret)
		return ret;
	s->rule_ids = p;
	ret = map_array(s->fds.rules, PK_PIN_UNWIND_RULES, rules, sizeof(struct pk_unwind_rule),
			&p, &s->rules_len, err);
	if (ret)
		return ret;
	s->rules = p;
	s->ids = calloc(c->max_tables, sizeof(*s->ids));
	if (!s->ids)
		return pk_err(err, -ENOMEM, "out of memory");
	return 0;
}

/* Read unwind_tables[nids, upto): tables someone else (probe-load,
 * probe-read) added since we last looked. Under the lock. */
static int refresh_ids(struct pk_unwind_store *s, __u32 upto)
{
	struct pk_table_info ti;

	for (; s->nids < upto && s->nids < s->caps.max_tables; s->nids++) {
		struct table_id *id = &s->ids[s->nids];

		if (bpf_map_lookup_elem(s->fds.tables, &s->nids, &ti))
			return -errno;
		id->no_build_id = !!(ti.flags & PK_UNWIND_NO_BUILD_ID);
		id->len = ti.build_id_len < sizeof(id->id) ? ti.build_id_len : sizeof(id->id);
		memcpy(id->id, ti.build_id, id->len);
	}
	return 0;
}

/* The table of ID among the first N known, or -1. Tables are few (at most
 * max_tables, thousands): a linear search costs less than keeping a hash. */
static int find_id(const struct pk_unwind_store *s, const struct table_id *id, __u32 n)
{
	for (__u32 i = 0; i < n; i++)
		if (s->ids[i].len == id->len && s->ids[i].no_build_id == id->no_build_id &&
		    !memcmp(s->ids[i].id, id->id, id->len))
			return i;
	return -1;
}

/* An eh_cache_key() ("<hex>" or "nb-<hex>") as a table_id. */
static int id_from_key(const char *key, struct table_id *id)
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
	if (caps->tables || caps->rows || caps->rules)
		return pk_err(err, -EINVAL, "unwind store: a new store starts empty");
	s = store_new(opts);
	if (!s)
		return pk_err(err, -ENOMEM, "out of memory");
	s->fds = *fds;
	s->caps = *caps;
	ret = open_dir(s, pin_dir, err);
	if (!ret)
		ret = attach_maps(s, err);
	if (!ret && (ret = lock(s)) == 0) {
		ret = write_alloc(s, caps);
		unlock(s);
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
		pk_err(err, ret, "no unwind tables at %s (loaded with --unwind fp?)", dir);
	else if (ret)
		pk_err(err, ret, "cannot open the unwind maps at %s: %s", dir, strerror(-ret));
	if (!ret)
		ret = open_dir(s, dir, err);
	if (!ret && (ret = read_alloc(s, &a)))
		pk_err(err, ret, "cannot read unwind_alloc: %s", strerror(-ret));
	if (!ret) {
		s->caps = (struct pk_unwind_alloc){ .max_tables = a.max_tables,
			.max_rows = a.max_rows, .max_rules = a.max_rules };
		ret = attach_maps(s, err);
	}
	if (!ret && (ret = lock(s)) == 0) {
		ret = read_alloc(s, &a);
		if (!ret)
			ret = refresh_ids(s, a.tables);
		unlock(s);
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

/* One file of an add(): what the worker found, for the serial part. */
struct item {
	const char *path;		/* what to read */
	const char *name;		/* for messages */
	struct pk_file_key key;
	bool skip;			/* already had an entry */
	int status;			/* < 0: refused (msg), 0: table known, > 0:
					 * enum eh_cache_result, table in t */
	struct table_id id;
	struct pk_file_seg segs[PK_FILE_MAX_SEGS];
	__u32 nsegs;
	struct eh_unwind_table *t;
	char msg[PK_ERR_LEN];
};

struct batch {
	struct pk_unwind_store *s;
	struct item *items;
	__u32 nknown;			/* ids[0, nknown) the workers may read */
	struct eh_cache_opts copts;
	struct pk_unwind_stats st;
	int ret;			/* first map failure */
	char *err;
};

/* Parallel part: segments, identity and (unless known) the table. */
static void work(void *arg, int i)
{
	struct batch *b = arg;
	struct item *it = &b->items[i];
	char key[2 * PK_UNWIND_BUILD_ID_MAX + 8];

	if (it->skip || it->status < 0)	/* the vDSO could not be copied */
		return;
	it->status = eh_cache_key(it->path, key, sizeof(key), it->msg);
	if (!it->status && (it->status = id_from_key(key, &it->id)))
		pk_err(it->msg, it->status, "bad cache key %s", key);
	if (it->status)
		return;
	it->status = pk_exec_segs(it->path, it->segs, &it->nsegs, it->msg);
	if (it->status)
		return;
	if (it->key.dev == PK_VDSO_DEV && it->key.ino == PK_VDSO_INO) {
		/* mapped whole: the file offset is pc - vm_start */
		it->segs[0].off = 0;
		it->segs[0].end = b->s->vdso_size;
		it->nsegs = 1;
	}
	if (find_id(b->s, &it->id, b->nknown) >= 0)
		return;		/* status 0: loaded already */
	it->status = eh_cache_get(it->path, &b->copts, &it->t, NULL, 0, it->msg);
	if (it->status < 0 && !it->msg[0])
		pk_err(it->msg, it->status, "%s", strerror(-it->status));
}

static int put_file(struct batch *b, const struct item *it, __u32 table, __u32 flags)
{
	struct pk_file_info fi = { .table = table, .flags = flags, .nsegs = it->nsegs };

	memcpy(fi.segs, it->segs, sizeof(fi.segs));
	if (bpf_map_update_elem(b->s->fds.files, &it->key, &fi, BPF_ANY))
		return -errno;
	b->st.files++;
	return 0;
}

static void refuse(struct batch *b, const struct item *it, const char *why)
{
	struct pk_unwind_store *s = b->s;
	int ret;

	fprintf(s->log ? s->log : stderr, "%s: %s: unwind table refused: %s\n", s->prog,
		it->name, why);
	ret = put_file(b, it, PK_TABLE_NONE, PK_FILE_REFUSED);
	if (ret == -E2BIG)	/* unwind_files full: it stays "no table" */
		fprintf(s->log ? s->log : stderr, "%s: %s: unwind_files is full\n", s->prog,
			it->name);
	else if (ret && !b->ret)
		b->ret = pk_err(b->err, ret, "cannot add to unwind_files: %s", strerror(-ret));
	b->st.refused++;
}

/* Why T does not fit in what is left after A, or "" when it does. */
static void room(const struct pk_unwind_store *s, const struct pk_unwind_alloc *a,
		 const struct pk_unwind_header *h, char why[PK_ERR_LEN])
{
	why[0] = '\0';
	if (h->nrows > a->max_rows - a->rows)
		snprintf(why, PK_ERR_LEN, "%u rows, %u free of %u (--table-rows)",
			 h->nrows, a->max_rows - a->rows, a->max_rows);
	else if (h->nrules > a->max_rules - a->rules)
		snprintf(why, PK_ERR_LEN, "%u rules, %u free of %u (--table-rows / 16)",
			 h->nrules, a->max_rules - a->rules, a->max_rules);
	else if (a->tables >= a->max_tables || a->tables >= s->caps.max_tables)
		snprintf(why, PK_ERR_LEN, "%u tables loaded, the most there is room for",
			 a->tables);
}

/* Copy IT's table into the maps; under the lock, with A just read. */
static int load_table(struct batch *b, struct item *it, struct pk_unwind_alloc *a)
{
	struct pk_unwind_store *s = b->s;
	const struct pk_unwind_header *h = eh_unwind_table_header(it->t);
	const char *base = (const char *)h;
	struct pk_table_info ti = {
		.row_start = a->rows, .nrows = h->nrows,
		.rule_start = a->rules, .nrules = h->nrules,
		.pc_base = h->pc_base, .pc_end = h->pc_end,
		.build_id_len = it->id.len, .flags = h->flags,
	};
	__u32 idx = a->tables;
	char why[PK_ERR_LEN];
	int ret;

	room(s, a, h, why);
	if (why[0]) {
		refuse(b, it, why);
		return 0;
	}
	/* the cache file's arrays as they are: rule ids stay table-local */
	memcpy(s->pcs + a->rows, base + h->pcs_off, (size_t)h->nrows * sizeof(__u32));
	memcpy(s->rule_ids + a->rows, base + h->rule_ids_off, (size_t)h->nrows * sizeof(__u16));
	memcpy(s->rules + a->rules, base + h->rules_off,
	       (size_t)h->nrules * sizeof(struct pk_unwind_rule));
	memcpy(ti.build_id, it->id.id, it->id.len);
	if (bpf_map_update_elem(s->fds.tables, &idx, &ti, BPF_ANY))
		return pk_err(b->err, -errno, "cannot add to unwind_tables: %s", strerror(errno));
	a->tables++;
	a->rows += h->nrows;
	a->rules += h->nrules;
	ret = write_alloc(s, a);
	if (ret)
		return pk_err(b->err, ret, "cannot write unwind_alloc: %s", strerror(-ret));
	s->ids[idx] = it->id;
	s->nids = idx + 1;
	b->st.tables++;
	b->st.rows += h->nrows;
	b->st.rules += h->nrules;
	b->st.kernel_bytes += (__u64)h->nrows * (sizeof(__u32) + sizeof(__u16)) +
			      (__u64)h->nrules * sizeof(struct pk_unwind_rule);
	if (it->status == EH_CACHE_HIT)
		b->st.hit++;
	else
		b->st.built++;
	ret = put_file(b, it, idx, 0);
	if (ret == -E2BIG)
		fprintf(s->log ? s->log : stderr, "%s: %s: unwind_files is full\n", s->prog,
			it->name);
	else if (ret)
		return pk_err(b->err, ret, "cannot add to unwind_files: %s", strerror(-ret));
	return 0;
}

/* Serial part, in file order: into the maps under the lock. */
static int place(struct batch *b, struct item *it)
{
	struct pk_unwind_store *s = b->s;
	struct pk_file_info fi;
	struct pk_unwind_alloc a;
	int idx, ret;

	if (!bpf_map_lookup_elem(s->fds.files, &it->key, &fi))
		return 0;	/* another file of this batch, or another process */
	if (it->status == -ENOENT || it->status == -ESRCH) {
		/* gone (the process that mapped it exited): no entry, so that
		 * a process that maps it later gets it reported again */
		b->st.gone++;
		pk_unwind_store_forget(s, &it->key);
		return 0;
	}
	if (it->status < 0) {
		refuse(b, it, it->msg);
		return 0;
	}
	ret = read_alloc(s, &a);
	if (!ret)
		ret = refresh_ids(s, a.tables);
	if (ret)
		return pk_err(b->err, ret, "cannot read the unwind maps: %s", strerror(-ret));
	idx = find_id(s, &it->id, s->nids);
	if (idx >= 0) {
		ret = put_file(b, it, idx, 0);
		if (ret == -E2BIG)
			fprintf(s->log ? s->log : stderr, "%s: %s: unwind_files is full\n",
				s->prog, it->name);
		else if (ret)
			return pk_err(b->err, ret, "cannot add to unwind_files: %s",
				      strerror(-ret));
		b->st.shared++;
		return 0;
	}
	if (!it->t)	/* known to the workers, so known here: cannot happen */
		return pk_err(b->err, -EPROTO, "%s: unwind table lost", it->name);
	return load_table(b, it, &a);
}

static void done(void *arg, int i)
{
	struct batch *b = arg;
	struct item *it = &b->items[i];
	int ret;

	if (!it->skip && !b->ret) {
		ret = lock(b->s);
		if (ret)
			b->ret = pk_err(b->err, ret, "cannot lock the pin directory: %s",
					strerror(-ret));
		else {
			ret = place(b, it);
			if (ret && !b->ret)
				b->ret = ret;
			unlock(b->s);
		}
	}
	eh_unwind_table_free(it->t);
	it->t = NULL;
}

/* The vDSO's memfd, made when first needed; its path into BUF. */
static int vdso_path(struct pk_unwind_store *s, char *buf, size_t len, char err[PK_ERR_LEN])
{
	if (s->vdso_fd < 0) {
		int fd = pk_vdso_memfd(&s->vdso_size, err);

		if (fd < 0)
			return fd;
		s->vdso_fd = fd;
	}
	snprintf(buf, len, "/proc/self/fd/%d", s->vdso_fd);
	return 0;
}

int pk_unwind_store_add(struct pk_unwind_store *s, const struct pk_unwind_file *files, int n,
			 struct pk_unwind_stats *st, char err[PK_ERR_LEN])
{
	struct batch b = { .s = s, .err = err };
	struct pk_file_info fi;
	struct pk_unwind_alloc a;
	char vdso[64] = "", vdso_err[PK_ERR_LEN] = "";
	int ret;

	err[0] = '\0';
	if (n <= 0)
		return 0;
	b.items = calloc(n, sizeof(*b.items));
	if (!b.items)
		return pk_err(err, -ENOMEM, "out of memory");
	b.copts = (struct eh_cache_opts){ .sz = sizeof(b.copts), .cache_dir = s->cache_dir };
	for (int i = 0; i < n; i++) {
		struct item *it = &b.items[i];
		bool is_vdso = !files[i].path;

		it->key = is_vdso ? (struct pk_file_key){ PK_VDSO_DEV, PK_VDSO_INO } : files[i].key;
		it->path = files[i].path;
		it->name = files[i].name ? files[i].name : is_vdso ? "[vdso]" : files[i].path;
		/* what has an entry costs one lookup, not a table */
		it->skip = !bpf_map_lookup_elem(s->fds.files, &it->key, &fi);
		if (it->skip || !is_vdso)
			continue;
		if (!vdso[0] && !vdso_err[0])
			vdso_path(s, vdso, sizeof(vdso), vdso_err);
		it->path = vdso;
		if (!vdso[0]) {
			it->status = -ENOENT;
			snprintf(it->msg, sizeof(it->msg), "%s", vdso_err);
		}
	}
	/* What the workers may compare with: fixed before they start. */
	ret = lock(s);
	if (!ret) {
		ret = read_alloc(s, &a);
		if (!ret)
			ret = refresh_ids(s, a.tables);
		unlock(s);
	}
	if (ret) {
		free(b.items);
		return pk_err(err, ret, "cannot read the unwind maps: %s", strerror(-ret));
	}
	b.nknown = s->nids;
	ret = pk_jobs_run(n, s->jobs, work, done, &b);
	free(b.items);
	if (ret)
		return pk_err(err, ret, "cannot start table builders: %s", strerror(-ret));
	if (st) {
		st->files += b.st.files;
		st->tables += b.st.tables;
		st->rows += b.st.rows;
		st->rules += b.st.rules;
		st->kernel_bytes += b.st.kernel_bytes;
		st->built += b.st.built;
		st->hit += b.st.hit;
		st->shared += b.st.shared;
		st->refused += b.st.refused;
		st->gone += b.st.gone;
	}
	return b.ret;
}

int pk_unwind_store_forget(struct pk_unwind_store *s, const struct pk_file_key *key)
{
	if (bpf_map_delete_elem(s->fds.seen, key) && errno != ENOENT)
		return -errno;
	return 0;
}

int pk_unwind_store_alloc(struct pk_unwind_store *s, struct pk_unwind_alloc *out)
{
	return read_alloc(s, out);
}

void pk_unwind_store_free(struct pk_unwind_store *s)
{
	if (!s)
		return;
	if (s->pcs)
		munmap(s->pcs, s->pcs_len);
	if (s->rule_ids)
		munmap(s->rule_ids, s->rule_ids_len);
	if (s->rules)
		munmap(s->rules, s->rules_len);
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
