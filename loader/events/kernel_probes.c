// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/kallsyms.h"
#include "lib/util/array.h"
#include "loader/events/kernel_probes.h"
#include "loader/events/suggest.h"

#define TRACEFS		"/sys/kernel/tracing"
#define DEBUGFS_TRACING	"/sys/kernel/debug/tracing"

/* A kallsyms clone suffix: ".isra.0", ".constprop.0", ".part.0", ".cold". */
static bool is_clone_of(const char *sym, size_t len, const char *func, size_t flen)
{
	return len > flen && !memcmp(sym, func, flen) && sym[flen] == '.';
}

/* One name of the kernel's functions, looked at by find_ksym. */
static void consider(const char *name, size_t len, const char *func, bool *exact,
		     char clone[128], struct pk_suggest *sug)
{
	size_t flen = strlen(func);

	if (len == flen && !memcmp(name, func, flen))
		*exact = true;
	else if (!clone[0] && is_clone_of(name, len, func, flen) && len < 128)
		memcpy(clone, name, len), clone[len] = '\0';
	else
		pk_suggest_offer(sug, name, len);
}

int pk_kfunc_names(void (*fn)(const char *name, size_t len, void *arg), void *arg)
{
	FILE *f = fopen(TRACEFS "/available_filter_functions", "re");
	struct pk_symtab *tab;
	char line[512];

	if (f) {
		/* "NAME" or "NAME [module]" */
		while (fgets(line, sizeof(line), f))
			fn(line, strcspn(line, " \t\n"), arg);
		fclose(f);
		return 0;
	}
	tab = pk_kallsyms_load(NULL);
	if (!tab)
		return -errno;
	for (size_t i = 0; i < pk_symtab_count(tab); i++) {
		const char *name = pk_symtab_sym(tab, i)->name;

		if (name[0])	/* "": a data symbol, kept as a marker */
			fn(name, strlen(name), arg);
	}
	pk_symtab_free(tab);
	return 0;
}

struct ksym_lookup {
	const char *func;
	bool *exact;
	char *clone;
	struct pk_suggest *sug;
};

static void consider_name(const char *name, size_t len, void *arg)
{
	struct ksym_lookup *l = arg;

	consider(name, len, l->func, l->exact, l->clone, l->sug);
}

/* Find FUNC among the kernel's functions (pk_kfunc_names). *exact: FUNC
 * itself is there; CLONE: the first compiler clone of it. Every name goes
 * to SUG. */
static int find_ksym(const char *func, bool *exact, char clone[128], struct pk_suggest *sug)
{
	struct ksym_lookup l = { func, exact, clone, sug };

	*exact = false;
	clone[0] = '\0';
	return pk_kfunc_names(consider_name, &l);
}

/* Load the smallest fentry (RET: fexit) program on BTF_ID: whether this
 * kernel lets us. */
static int try_fentry(__u32 btf_id, bool ret)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		.expected_attach_type = ret ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY,
		.attach_btf_id = btf_id,
	);
	int fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "pk_fentry_probe", "GPL", insns, 2, &opts);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* Kprobes: a kprobe PMU (perf_event_open) or tracefs kprobe_events. */
static bool have_kprobes(void)
{
	const char *events;
	char path[256];

	if (!access("/sys/bus/event_source/devices/kprobe/type", F_OK))
		return true;
	if (pk_tracefs_events(&events, (char[PK_ERR_LEN]){ 0 }))
		return false;
	snprintf(path, sizeof(path), "%s/../kprobe_events", events);
	return !access(path, F_OK);
}

int pk_kfunc_resolve(const char *func, bool ret_probe, bool no_fentry, struct pk_kfunc *kf,
		     char err[PK_ERR_LEN])
{
	const char *tramp = ret_probe ? "fexit" : "fentry";
	char close_names[256];
	struct pk_suggest sug;
	struct btf *btf;
	bool exact = false;
	int id, ret, fentry_ret = -ENOENT;

	memset(kf, 0, sizeof(*kf));
	pk_suggest_init(&sug, func);
	ret = find_ksym(func, &exact, kf->ksym, &sug);
	if (ret) {
		pk_suggest_free(&sug);
		return pk_err(err, ret, "cannot read the kernel's functions: %s", strerror(-ret));
	}
	if (!exact && !kf->ksym[0]) {
		ret = pk_err(err, -ENOENT, "no such kernel function%s",
			     pk_suggest_str(&sug, close_names, sizeof(close_names)));
		pk_suggest_free(&sug);
		return ret;
	}
	pk_suggest_free(&sug);
	if (exact)
		snprintf(kf->ksym, sizeof(kf->ksym), "%s", func);
	if (no_fentry) {
		if (have_kprobes())
			return 0;
		return pk_err(err, -EOPNOTSUPP, "--no-fentry, and this kernel has no kprobes (CONFIG_KPROBES)");
	}
	/* fentry needs FUNC in BTF under its own name; a clone has none */
	btf = exact ? btf__load_vmlinux_btf() : NULL;
	id = btf ? btf__find_by_name_kind(btf, func, BTF_KIND_FUNC) : -ENOENT;
	btf__free(btf);
	if (id > 0) {
		fentry_ret = try_fentry(id, ret_probe);
		if (!fentry_ret) {
			kf->fentry = true;
			kf->btf_id = id;
			return 0;
		}
	}
	if (have_kprobes())
		return 0;
	if (id <= 0)
		return pk_err(err, -EOPNOTSUPP, "not in the kernel's BTF (no %s) and this kernel has no kprobes (CONFIG_KPROBES)",
			      tramp);
	return pk_err(err, -EOPNOTSUPP, "this kernel refuses %s here (%s) and has no kprobes (CONFIG_KPROBES)",
		      tramp, strerror(-fentry_ret));
}

int pk_ksym_range(const char *name, __u64 *lo, __u64 *hi)
{
	struct pk_symtab *tab = pk_kallsyms_load(NULL);
	int ret;

	if (!tab)
		return -errno;
	ret = pk_kallsyms_range(tab, name, lo, hi);
	pk_symtab_free(tab);
	return ret;
}

int pk_tracefs_events(const char **dir, char err[PK_ERR_LEN])
{
	struct stat st;

	if (!stat(TRACEFS "/events", &st)) {
		*dir = TRACEFS "/events";
		return 0;
	}
	if (!stat(DEBUGFS_TRACING "/events", &st)) {
		*dir = DEBUGFS_TRACING "/events";
		return 0;
	}
	/* as perf does: mount tracefs where the kernel expects it */
	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL) && errno != EBUSY)
		return pk_err(err, -errno, "tracefs is not mounted and mounting it failed: "
			      "%s; mount it (mount -t tracefs tracefs " TRACEFS ")",
			      strerror(errno));
	*dir = TRACEFS "/events";
	return 0;
}

int pk_tracepoint_names(void (*fn)(const char *category, const char *name, void *arg),
			void *arg, char err[PK_ERR_LEN])
{
	char path[512], id[1024];
	const char *events;
	struct dirent *cat, *tp;
	DIR *d, *sub;
	int ret = pk_tracefs_events(&events, err);

	if (ret)
		return ret;
	d = opendir(events);
	if (!d)
		return pk_err(err, -errno, "%s: %s", events, strerror(errno));
	while ((cat = readdir(d))) {
		if (cat->d_type != DT_DIR || cat->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", events, cat->d_name);
		sub = opendir(path);
		/* with an id: a tracepoint (ftrace's own events have none) */
		while (sub && (tp = readdir(sub))) {
			if (tp->d_type != DT_DIR || tp->d_name[0] == '.')
				continue;
			snprintf(id, sizeof(id), "%s/%s/id", path, tp->d_name);
			if (!access(id, F_OK))
				fn(cat->d_name, tp->d_name, arg);
		}
		if (sub)
			closedir(sub);
	}
	closedir(d);
	return 0;
}

/* Offer the entries of DIR (subdirectories: categories, tracepoints). */
static void offer_dir(struct pk_suggest *sug, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (de->d_type == DT_DIR && de->d_name[0] != '.')
			pk_suggest_offer(sug, de->d_name, strlen(de->d_name));
	if (d)
		closedir(d);
}

int pk_tracepoint_check(const char *category, const char *name, char err[PK_ERR_LEN])
{
	char path[512], close_names[256];
	struct pk_suggest sug;
	const char *events;
	struct stat st;
	int ret;

	ret = pk_tracefs_events(&events, err);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/%s/%s/id", events, category, name);
	if (!stat(path, &st))
		return 0;
	snprintf(path, sizeof(path), "%s/%s", events, category);
	if (stat(path, &st)) {
		pk_suggest_init(&sug, category);
		offer_dir(&sug, events);
		ret = pk_err(err, -ENOENT, "no tracepoint category %s%s", category,
			     pk_suggest_str(&sug, close_names, sizeof(close_names)));
	} else {
		pk_suggest_init(&sug, name);
		offer_dir(&sug, path);
		ret = pk_err(err, -ENOENT, "no such tracepoint in %s%s", category,
			     pk_suggest_str(&sug, close_names, sizeof(close_names)));
	}
	pk_suggest_free(&sug);
	return ret;
}

struct glob_matches {
	const char *pattern[2];	/* kernel functions: [0]; tracepoints: both */
	char **v;
	size_t n, cap;
	int err;
};

static void keep(struct glob_matches *m, const char *name, size_t len)
{
	for (size_t i = 0; i < m->n && i < PK_GLOB_MATCHES_MAX; i++)	/* listed twice */
		if (strlen(m->v[i]) == len && !memcmp(m->v[i], name, len))
			return;
	/* past the cap, only counted: the refusal says how many */
	if (m->n < PK_GLOB_MATCHES_MAX &&
	    pk_array_reserve((void **)&m->v, &m->cap, sizeof(*m->v), m->n + 1, 64)) {
		m->err = -ENOMEM;
		return;
	}
	if (m->n < PK_GLOB_MATCHES_MAX && !(m->v[m->n] = strndup(name, len))) {
		m->err = -ENOMEM;
		return;
	}
	m->n++;
}

static void match_kfunc(const char *name, size_t len, void *arg)
{
	struct glob_matches *m = arg;
	char copy[256];

	if (len >= sizeof(copy) || m->err)
		return;
	memcpy(copy, name, len);
	copy[len] = '\0';
	if (!fnmatch(m->pattern[0], copy, 0) && strncmp(copy, "__pfx_", 6))
		keep(m, copy, len);
}

static void match_tracepoint(const char *category, const char *name, void *arg)
{
	struct glob_matches *m = arg;
	char both[512];

	if (m->err || fnmatch(m->pattern[0], category, 0) || fnmatch(m->pattern[1], name, 0))
		return;
	snprintf(both, sizeof(both), "%s:%s", category, name);
	keep(m, both, strlen(both));
}

void pk_glob_free(char **v, size_t n)
{
	for (size_t i = 0; i < n && i < PK_GLOB_MATCHES_MAX; i++)
		free(v[i]);
	free(v);
}

/* What the walk found, into *V and *N, or refused: none, or too many. */
static int glob_done(struct glob_matches *m, const char *what, char ***v, size_t *n,
		     char err[PK_ERR_LEN])
{
	int ret = 0;

	if (m->err)
		ret = pk_err(err, m->err, "out of memory");
	else if (!m->n)
		ret = pk_err(err, -ENOENT, "no %s matches", what);
	else if (m->n > PK_GLOB_MATCHES_MAX)
		ret = pk_err(err, -E2BIG, "%zu %ss match, more than the %d one event attaches (a narrower pattern, or several -e)",
			     m->n, what, PK_GLOB_MATCHES_MAX);
	if (ret) {
		pk_glob_free(m->v, m->n);
		return ret;
	}
	*v = m->v;
	*n = m->n;
	return 0;
}

int pk_kfunc_glob(const char *pattern, char ***v, size_t *n, char err[PK_ERR_LEN])
{
	struct glob_matches m = { .pattern = { pattern } };
	int ret;

	/* one kprobe per function: fentry would take a program each */
	if (!have_kprobes())
		return pk_err(err, -EOPNOTSUPP, "a pattern attaches kprobes, and this kernel has no kprobes (CONFIG_KPROBES)");
	ret = pk_kfunc_names(match_kfunc, &m);
	if (ret) {
		pk_glob_free(m.v, m.n);
		return pk_err(err, ret, "cannot read the kernel's functions: %s", strerror(-ret));
	}
	return glob_done(&m, "kernel function", v, n, err);
}

int pk_tracepoint_glob(const char *category, const char *name, char ***v, size_t *n,
		       char err[PK_ERR_LEN])
{
	struct glob_matches m = { .pattern = { category, name } };
	int ret = pk_tracepoint_names(match_tracepoint, &m, err);

	if (ret) {
		pk_glob_free(m.v, m.n);
		return ret;
	}
	return glob_done(&m, "tracepoint", v, n, err);
}
