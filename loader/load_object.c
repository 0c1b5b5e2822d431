// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * probe-load's BPF object opened, configured and loaded; a program the
 * kernel refuses said in one line, and left out where the session can do
 * without it (loader/load.h).
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eh_frame/eh_table.h"
#include "lib/util/strbuf.h"
#include "loader/kernel_btf.h"
#include "loader/load.h"
#include "loader/load_log.h"

/* -v: libbpf's progress too, and the verifier's log of a refusal */
static bool verbose;
/* While the object loads: libbpf's warnings read for a refused program,
 * and those about it held back, for one line to say it instead (-v shows
 * them all as they come). */
static struct pk_load_log *capture;
static struct pk_strbuf held;

/* libbpf's warnings are worth seeing; its progress chatter is not. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *msg;
	int ret;

	if (level != LIBBPF_WARN && !verbose)
		return 0;
	if (!capture || level != LIBBPF_WARN)
		return vfprintf(stderr, fmt, ap);
	ret = vasprintf(&msg, fmt, ap);
	if (ret < 0)
		return ret;
	if (pk_load_log_feed(capture, msg) && !verbose)
		pk_strbuf_puts(&held, msg);
	else
		fputs(msg, stderr);
	free(msg);
	return ret;
}

void pk_load_print_init(bool verbose_)
{
	verbose = verbose_;
	libbpf_set_print(libbpf_print);
}

/* The kernel types the object relocates against (loader/kernel_btf.h),
 * made once a boot. Without them libbpf reads the kernel's whole BTF, as
 * it does anyway for the events whose hooks it names (fentry, off-cpu). */
static void find_kernel_btf(struct pk_load *l)
{
	char root[4096];
	const void *obj;
	size_t len;
	int ret;

	obj = profile_bpf__elf_bytes(&len);
	ret = eh_cache_root(NULL, root, sizeof(root));
	if (!ret)
		ret = pk_kernel_btf_for(obj, len, root, l->kernel_btf, sizeof(l->kernel_btf));
	if (ret)
		l->kernel_btf[0] = '\0';
	if (verbose && ret)
		fprintf(stderr, "probe-load: kernel types: all of %s (no bpftool gen min_core_btf: %s)\n",
			PK_BTF_VMLINUX, strerror(-ret));
	else if (verbose)
		fprintf(stderr, "probe-load: kernel types: %s\n", l->kernel_btf);
}

/* Open the BPF object afresh and configure it for the session's events. */
static int open_object(struct pk_load *l)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo,
		    .btf_custom_path = l->kernel_btf[0] ? l->kernel_btf : NULL);
	int ret;

	profile_bpf__destroy(l->skel);
	l->skel = profile_bpf__open_opts(&oo);
	if (!l->skel)
		return pk_err(l->err, -errno, "cannot open the BPF object: %s", strerror(errno));
	ret = pk_load_configure(l);
	if (!ret && (ret = pk_events_configure(&l->events, l->skel, l->err)))
		l->refused = ret == -EINVAL;
	return ret;
}

/* Load the object, reading libbpf's account of it into LOG. */
static int load_object(struct pk_load *l, struct pk_load_log *log)
{
	char *held_text;
	int ret;

	memset(log, 0, sizeof(*log));
	capture = log;
	ret = profile_bpf__load(l->skel);
	capture = NULL;
	held_text = pk_strbuf_finish(&held);
	/* said in one line instead, unless no program was named */
	if (held_text && !(ret && log->refused))
		fputs(held_text, stderr);
	free(held_text);
	return ret;
}

/* What a program no event runs is there for. */
static const char *prog_role(const char *prog)
{
	static const struct { const char *prog, *role; } roles[] = {
		{ "pk_code_report", "dwarf unwinding (code reports)" },
		{ "pk_follow_fork", "following the targets' forks" },
		{ "pk_forget_exit", "following the targets' exits" },
		{ "pk_command_exec", "sampling the command from its exec" },
	};

	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		if (!strcmp(prog, roles[i].prog))
			return roles[i].role;
	return "the session";
}

/*
 * The kernel refused LOG's program (libbpf stops at the first), said in one
 * line: what it serves, the kernel, the program and the verifier's reason.
 * A program that runs some of the session's events only is left out with
 * that line as a warning, those events dropped, and 0 returned to load the
 * object again (a failed load cannot be retried); one that the whole
 * session needs, or that runs every event left, refuses the session.
 */
static int refused_program(struct pk_load *l, const struct pk_load_log *log, int ret)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(l->skel->obj, log->prog);
	bool drop[PK_MAX_EVENTS] = {};
	char what[256] = "";
	unsigned int n = 0;

	for (unsigned int i = 0; prog && i < l->events.n; i++) {
		size_t len = strlen(what);

		if (pk_events_prog(l->skel, &l->events.v[i]) != prog)
			continue;
		drop[i] = true;
		n++;
		snprintf(what + len, sizeof(what) - len, "%s%s", len ? ", " : "",
			 l->events.v[i].desc.name);
	}
	if (!n)
		snprintf(what, sizeof(what), "%s", prog_role(log->prog));
	ret = pk_err(l->err, ret, "%s: Linux %s refused %s: %s%s", what, l->release, log->prog,
		     log->why[0] ? log->why : strerror(-ret), verbose ? "" : log->has_log ? " (probe-load -v shows the verifier's log)" :
		     " (probe-load -v shows libbpf's log)");
	if (!n || n == l->events.n)
		return ret;
	fprintf(stderr, "probe-load: %s; the other events go on without it\n", l->err);
	for (unsigned int i = l->events.n; i-- > 0;)
		if (drop[i])
			pk_events_drop(&l->events, i);
	return 0;
}

int pk_load_programs(struct pk_load *l)
{
	struct pk_load_log log;
	int ret;

	find_kernel_btf(l);
	for (;;) {
		ret = open_object(l);
		if (ret)
			return ret;
		ret = load_object(l, &log);
		if (!ret)
			return 0;
		if (!log.refused)
			return pk_err(l->err, ret, "cannot load the BPF programs: %s%s",
				      strerror(-ret),
				      verbose ? "" : " (probe-load -v shows libbpf's log)");
		ret = refused_program(l, &log, ret);
		if (ret)
			return ret;
	}
}
