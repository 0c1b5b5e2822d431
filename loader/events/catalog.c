// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/array.h"
#include "loader/events/catalog.h"
#include "loader/events/elf_probe_sites.h"
#include "loader/events/event_spec.h"
#include "loader/events/kernel_probes.h"

struct names {
	char **v;
	size_t n, cap;
	const char *pattern;	/* NULL: all */
	bool whole;		/* PATTERN on the whole name, else on the part added */
	const char *format;	/* "KIND:%s" or "KIND:FILE:%s" */
	const char *file;
	int err;
};

bool pk_catalog_match(const char *pattern, const char *name)
{
	if (strpbrk(pattern, "*?["))
		return !fnmatch(pattern, name, 0);
	return strstr(name, pattern) != NULL;
}

static void add(struct names *ns, const char *part)
{
	char *name;
	int ret;

	if (ns->err || (ns->pattern && !ns->whole && !pk_catalog_match(ns->pattern, part)))
		return;
	ret = pk_array_reserve((void **)&ns->v, &ns->cap, sizeof(*ns->v), ns->n + 1, 256);
	if (!ret)
		ret = ns->file ? asprintf(&name, ns->format, ns->file, part) :
				 asprintf(&name, ns->format, part);
	if (ret < 0) {
		ns->err = -ENOMEM;
		return;
	}
	if (ns->pattern && ns->whole && !pk_catalog_match(ns->pattern, name))
		free(name);
	else
		ns->v[ns->n++] = name;
}

static void add_kfunc(const char *name, size_t len, void *arg)
{
	char copy[256];

	/* kallsyms' padding before a function (__pfx_FUNC, 6.2) and local
	 * labels are no functions to probe */
	if ((len > 6 && !strncmp(name, "__pfx_", 6)) || name[0] == '.')
		return;
	snprintf(copy, sizeof(copy), "%.*s", (int)len, name);
	add(arg, copy);
}

static void add_tracepoint(const char *category, const char *name, void *arg)
{
	char both[512];

	snprintf(both, sizeof(both), "%s:%s", category, name);
	add(arg, both);
}

static void add_name(const char *name, void *arg)
{
	add(arg, name);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* uprobe:FILE[:PATTERN], uretprobe:FILE[:PATTERN], usdt:FILE[:PATTERN]:
 * FILE's functions (unless usdt) and USDT notes. */
static int list_file(struct names *ns, const char *kind, const char *rest, char err[PK_ERR_LEN])
{
	const char *slash = strrchr(rest, '/');
	const char *colon = strchr(slash ? slash : rest, ':');
	char *given = strndup(rest, colon ? (size_t)(colon - rest) : strlen(rest)), *path = NULL;
	char format[32];
	int ret;

	if (!given)
		return pk_err(err, -ENOMEM, "out of memory");
	ret = pk_probe_file(given, &path, err);
	free(given);
	if (ret)
		return ret;
	ns->file = path;
	ns->pattern = colon && colon[1] ? colon + 1 : NULL;
	if (strcmp(kind, "usdt")) {
		snprintf(format, sizeof(format), "%s:%%s:%%s", kind);
		ns->format = format;
		ret = pk_elf_func_names(path, add_name, ns, err);
	}
	ns->format = "usdt:%s:%s";
	if (!ret)
		ret = pk_elf_usdt_names(path, add_name, ns, err);
	free(path);
	ns->file = NULL;
	return ret;
}

static int list_system(struct names *ns, const char *pattern, char err[PK_ERR_LEN])
{
	const char *name;
	int ret;

	/* every kind matched on the whole name, as -e spells it */
	ns->pattern = pattern;
	ns->whole = true;
	ns->format = "%s";
	for (size_t i = 0; (name = pk_event_spec_name(i)); i++)
		add(ns, name);
	ns->format = "tracepoint:%s";
	ret = pk_tracepoint_names(add_tracepoint, ns, err);
	if (ret)
		return ret;
	ns->format = "kprobe:%s";
	ret = pk_kfunc_names(add_kfunc, ns);
	if (ret)
		return pk_err(err, ret, "cannot read the kernel's functions: %s", strerror(-ret));
	return 0;
}

int pk_catalog_print(const char *pattern, FILE *out, char err[PK_ERR_LEN])
{
	static const char *const file_kinds[] = { "uprobe", "uretprobe", "usdt" };
	struct names ns = { 0 };
	int ret = 1;

	for (size_t i = 0; pattern && ret == 1 && i < 3; i++) {
		size_t len = strlen(file_kinds[i]);

		if (!strncmp(pattern, file_kinds[i], len) && pattern[len] == ':')
			ret = list_file(&ns, file_kinds[i], pattern + len + 1, err);
	}
	if (ret == 1)
		ret = list_system(&ns, pattern, err);
	if (!ret && ns.err)
		ret = pk_err(err, ns.err, "out of memory");
	if (!ret) {
		qsort(ns.v, ns.n, sizeof(*ns.v), by_name);
		for (size_t i = 0; i < ns.n; i++)
			if (!i || strcmp(ns.v[i], ns.v[i - 1]))
				fprintf(out, "%s\n", ns.v[i]);
	}
	for (size_t i = 0; i < ns.n; i++)
		free(ns.v[i]);
	free(ns.v);
	return ret;
}
