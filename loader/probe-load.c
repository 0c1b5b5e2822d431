// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * probe-load: load the sampler, attach it to every CPU, pin it and exit.
 * Sampling goes on without this process until `probe-load --unload`.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bpf/probekit.h"
#include "bpf/profile.skel.h"
#include "eh_frame/eh_table.h"
#include "lib/cgroup.h"
#include "lib/cli.h"
#include "lib/pins.h"
#include "lib/proc_maps.h"
#include "lib/root_records.h"
#include "lib/session.h"
#include "lib/unwind_store.h"
#include "lib/util/strbuf.h"
#include "lib/version.h"
#include "loader/command.h"
#include "loader/events/catalog.h"
#include "loader/events/events.h"
#include "loader/events/kernel_probes.h"
#include "loader/kernel_btf.h"
#include "loader/load_log.h"
#include "loader/missing_watch.h"
#include "loader/options.h"
#include "loader/system.h"
#include "loader/target_watch.h"
#include "loader/unwind_files.h"

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

struct load {
	const struct pk_load_opts *opts;
	sigset_t saved_mask;	/* before blocking the stop signals */
	bool online[PK_MAX_CPUS];
	char online_list[256];
	char release[65];	/* uname -r */
	pid_t *tgids;		/* distinct target processes */
	int ntgids;
	struct pk_command cmd;
	struct pk_events events;
	bool refused;		/* an event refused: bad input, exit 2 */
	struct pk_pins pins;
	struct profile_bpf *skel;
	struct bpf_link *exec_report, *mmap_report;	/* pk_code_report's */
	struct pk_unwind_store *unwind;	/* --unwind dwarf */
	struct pk_unwind_stats unwind_stats;
	struct pk_session session;
	char kernel_btf[4096];	/* the types the object relocates against;
				 * "": libbpf reads the kernel's whole BTF */
	char err[PK_ERR_LEN];
};

/* The option values against this system's limits, before anything else:
 * a refusal (-EINVAL) is bad usage, like the parser's. */
static int check_limits(const struct pk_load_opts *o, char err[PK_ERR_LEN])
{
	struct pk_load_limits lim = { .page_size = sysconf(_SC_PAGESIZE) };
	int ret;

	ret = pk_read_uint("/proc/sys/kernel/perf_event_max_sample_rate", &lim.max_sample_rate);
	if (ret)
		return pk_err(err, ret, "cannot read /proc/sys/kernel/perf_event_max_sample_rate: %s",
			      strerror(-ret));
	return pk_load_opts_check(o, &lim, err);
}

/* Everything that can be refused without touching the kernel. */
static int preflight(struct load *l)
{
	const struct pk_load_opts *o = l->opts;
	struct utsname uts;
	int ret;

	ret = pk_check_caps(pk_effective_caps(), l->err);
	if (ret)
		return ret;
	uname(&uts);
	snprintf(l->release, sizeof(l->release), "%s", uts.release);
	ret = pk_check_kernel_release(uts.release, l->opts->dwarf, l->err);
	if (ret)
		return ret;
	ret = pk_check_btf(PK_BTF_VMLINUX, l->err);
	if (ret)
		return ret;
	ret = pk_online_cpus(l->online, PK_MAX_CPUS, l->online_list, sizeof(l->online_list));
	if (ret < 0)
		return pk_err(l->err, ret, "cannot read the online CPUs: %s", strerror(-ret));
	if (o->cpu >= 0) {
		if (o->cpu >= PK_MAX_CPUS || !l->online[o->cpu]) {
			l->refused = true;	/* a bad value, as the parser's */
			return pk_err(l->err, -EINVAL, "-C %d: no such CPU (online: %s)",
				      o->cpu, l->online_list);
		}
		memset(l->online, 0, sizeof(l->online));
		l->online[o->cpu] = true;
	}
	l->tgids = calloc(o->npids + 1, sizeof(*l->tgids));	/* + the command */
	if (!l->tgids)
		return pk_err(l->err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < o->npids; i++) {
		pid_t tgid;
		int j;

		ret = pk_resolve_tgid(o->pids[i], &tgid, l->err);
		if (ret)
			return ret;
		for (j = 0; j < l->ntgids && l->tgids[j] != tgid; j++)
			;
		if (j == l->ntgids)
			l->tgids[l->ntgids++] = tgid;
	}
	if (l->ntgids + (o->cmd != NULL) > PK_MAX_TARGETS)
		return pk_err(l->err, -E2BIG, "too many processes: at most %d can be profiled",
			      PK_MAX_TARGETS);
	return 0;
}

/* The limits the store loads tables within (--table-memory, --table-rows). */
static struct pk_unwind_alloc unwind_caps(const struct pk_load_opts *o)
{
	return (struct pk_unwind_alloc){
		.max_tables = PK_UNWIND_TABLES_MAX, .max_rows = o->table_rows,
		.max_bytes = o->table_memory,
	};
}

/* The unwind maps are declared with one entry, so that --unwind fp costs
 * nothing; with dwarf they get their real sizes. */
static int size_unwind_maps(struct load *l)
{
	struct profile_bpf *skel = l->skel;
	struct pk_unwind_alloc caps = unwind_caps(l->opts);
	const struct { struct bpf_map *map; __u32 n; } sizes[] = {
		{ skel->maps.unwind_files, PK_UNWIND_FILES_MAX },
		{ skel->maps.unwind_tables, caps.max_tables },
		{ skel->maps.unwind_rows, caps.max_tables },
		{ skel->maps.unwind_seen, PK_UNWIND_SEEN_MAX },
		{ skel->maps.py_files, PK_PY_FILES_MAX },
		{ skel->maps.py_procs, PK_PY_PROCS_MAX },
		{ skel->maps.py_threads, PK_PY_THREADS_MAX },
		{ skel->maps.py_code_seen, PK_PY_CODE_SEEN_MAX },
		{ skel->maps.hs_files, PK_HS_FILES_MAX },
		{ skel->maps.hs_procs, PK_HS_PROCS_MAX },
		{ skel->maps.hs_method_seen, PK_HS_METHOD_SEEN_MAX },
		{ skel->maps.v8_files, PK_V8_FILES_MAX },
		{ skel->maps.v8_procs, PK_V8_PROCS_MAX },
		{ skel->maps.v8_sfi_seen, PK_V8_SFI_SEEN_MAX },
	};
	int ret;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ret = bpf_map__set_max_entries(sizes[i].map, sizes[i].n);
		if (ret)
			return pk_err(l->err, ret, "unwind map %s: %s", bpf_map__name(sizes[i].map),
				      strerror(-ret));
	}
	return 0;
}

static int configure(struct load *l)
{
	const struct pk_load_opts *o = l->opts;
	struct profile_bpf *skel = l->skel;
	bool follow = l->ntgids > 0;
	unsigned int max_stack = PK_MAX_STACK_DEPTH;
	int ret;

	skel->rodata->filter_pids = follow;
	skel->rodata->skip_idle = o->skip_idle;
	skel->rodata->target_cpu = o->cpu;
	for (size_t i = 0; i < o->ncgroups; i++) {
		struct pk_cgroup cg;

		ret = pk_cgroup_resolve(o->cgroups[i], NULL, &cg, l->err);
		if (ret)
			return ret;
		skel->rodata->cgroup_ids[i] = cg.id;
		skel->rodata->cgroup_levels[i] = cg.level;
	}
	skel->rodata->ncgroups = o->ncgroups;
	skel->rodata->dwarf = o->dwarf;
	skel->rodata->stack_copy = o->stack_copy;
	/* -- CMD: probe-load loads what the command maps while it waits
	 * (loader/missing_watch.h); else the ring takes one page */
	skel->rodata->missing_ring = o->dwarf && o->cmd;
	if (!skel->rodata->missing_ring) {
		ret = bpf_map__set_max_entries(skel->maps.missing, sysconf(_SC_PAGESIZE));
		if (ret)
			return pk_err(l->err, ret, "missing ring: %s", strerror(-ret));
	}
	/* Python frames need the DWARF walk, which finds the interpreter */
	skel->rodata->python = o->dwarf && !o->no_python;
	/* A quarter full: the reader, polling every 100 ms, still has three
	 * quarters of room to catch up at any rate. */
	skel->rodata->wakeup_bytes = o->ringbuf_bytes / 4;
	if (pk_read_uint("/proc/sys/kernel/perf_event_max_stack", &max_stack) == 0 &&
	    max_stack < PK_MAX_STACK_DEPTH)
		skel->rodata->stack_depth = max_stack;
	ret = bpf_map__set_max_entries(skel->maps.events, o->ringbuf_bytes);
	if (ret)
		return pk_err(l->err, ret, "ring buffer size: %s", strerror(-ret));
	if (o->dwarf && (ret = size_unwind_maps(l)))
		return ret;
	/* The stack copies of walks that stop for want of a table: one
	 * buffer per CPU. */
	if (o->dwarf) {
		ret = libbpf_num_possible_cpus();
		if (ret > 0)
			ret = bpf_map__set_max_entries(skel->maps.uw_copy_bufs, ret);
		if (ret < 0)
			return pk_err(l->err, ret, "uw_copy_bufs: %s", strerror(-ret));
	}
	/* Mapping reports name the frames of processes gone before they are
	 * read: the DWARF walk sends them; with fp, the same VMA lookup does
	 * where the kernel has it (the maple tree, 6.1): mm_struct's, which
	 * the kernel types kept for the object have where the kernel does. */
	skel->rodata->fp_mappings = !o->dwarf &&
		pk_kernel_has_struct(l->kernel_btf[0] ? l->kernel_btf : NULL, "maple_tree");
	if (o->dwarf || skel->rodata->fp_mappings) {
		ret = bpf_map__set_max_entries(skel->maps.mappings_seen, PK_MAPPINGS_SEEN_MAX);
		if (ret)
			return pk_err(l->err, ret, "mappings_seen: %s", strerror(-ret));
	}
	/* --aggregate: both counts maps sized, the first one in the slot. */
	skel->rodata->aggregate = o->aggregate;
	if (o->aggregate) {
		ret = bpf_map__set_max_entries(skel->maps.agg_counts0, o->agg_entries);
		if (!ret)
			ret = bpf_map__set_max_entries(skel->maps.agg_counts1, o->agg_entries);
		if (ret)
			return pk_err(l->err, ret, "counts maps: %s", strerror(-ret));
	}
	/* Without targets there is nothing for the fork/exit programs to do. */
	bpf_program__set_autoload(skel->progs.pk_follow_fork, follow);
	bpf_program__set_autoload(skel->progs.pk_forget_exit, follow);
	bpf_program__set_autoload(skel->progs.pk_command_exec, o->cmd != NULL);
	/* Code mapped by exec and mmap reported as it is mapped: tables
	 * before the first samples need them (the DWARF walk only). */
	bpf_program__set_autoload(skel->progs.pk_code_report, o->dwarf);
	return 0;
}

static void unwind_fds(const struct profile_bpf *skel, struct pk_unwind_fds *fds)
{
	fds->files = bpf_map__fd(skel->maps.unwind_files);
	fds->tables = bpf_map__fd(skel->maps.unwind_tables);
	fds->rows = bpf_map__fd(skel->maps.unwind_rows);
	fds->alloc = bpf_map__fd(skel->maps.unwind_alloc);
	fds->seen = bpf_map__fd(skel->maps.unwind_seen);
	fds->py = bpf_map__fd(skel->maps.py_files);
	fds->hs = bpf_map__fd(skel->maps.hs_files);
	fds->v8 = bpf_map__fd(skel->maps.v8_files);
}

/* Give LIST's files their tables. */
static int add_files(struct load *l, int ret, struct pk_unwind_files *list,
		     struct pk_unwind_stats *st)
{
	if (!ret)
		ret = pk_unwind_store_add(l->unwind, list->v, list->n, st, l->err);
	pk_unwind_files_free(list);
	return ret;
}

/* --unwind dwarf: the tables of what the targets run now, before sampling
 * starts (what they map later is reported by the BPF side and loaded by
 * probe-read). */
static int load_tables(struct load *l)
{
	const struct pk_load_opts *o = l->opts;
	struct pk_unwind_store_opts so = {
		.jobs = o->jobs, .log = stderr, .prog = "probe-load",
	};
	struct pk_unwind_alloc caps = unwind_caps(o);
	/* the command's pid is last; it has not exec'd yet */
	int npids = l->ntgids - (o->cmd != NULL);
	struct pk_unwind_stats *st = &l->unwind_stats;
	struct pk_unwind_files list;
	struct pk_unwind_fds fds;
	int ret;

	if (!o->dwarf)
		return 0;
	unwind_fds(l->skel, &fds);
	ret = pk_unwind_store_create(&fds, &caps, o->pin_dir, &so, &l->unwind, l->err);
	if (ret)
		return ret;
	if (npids > 0)
		ret = add_files(l, pk_unwind_files_pids(&list, NULL, l->tgids, npids, l->err),
				&list, st);
	if (!ret && o->cmd)
		ret = add_files(l, pk_unwind_files_command(&list, o->cmd[0], l->err), &list, st);
	if (!ret && !npids && !o->cmd)
		ret = add_files(l, pk_unwind_files_system(&list, NULL, l->err), &list, st);
	return ret;
}

/* One line: what probe-load added, and what the tables hold and cost. */
static void print_unwind_summary(struct load *l)
{
	const struct pk_unwind_stats *st = &l->unwind_stats;
	struct pk_unwind_alloc a;
	char all[256] = "";

	if (pk_unwind_store_alloc(l->unwind, &a) == 0)
		pk_unwind_alloc_describe(&a, all, sizeof(all));
	fprintf(stderr, "probe-load: unwind tables: %u tables, %u rows, %llu kernel bytes "
		"(%u built, %u cached, %u refused); in all %s\n", st->tables, st->rows,
		(unsigned long long)st->kernel_bytes, st->built, st->hit, st->refused, all);
}

/* The targets, the command's child (last) held until its exec. */
static int add_targets(struct load *l)
{
	int fd = bpf_map__fd(l->skel->maps.targets);
	__u8 state;

	for (int i = 0; i < l->ntgids; i++) {
		state = l->opts->cmd && i == l->ntgids - 1 ? PK_TARGET_HELD : PK_TARGET_LIVE;
		if (bpf_map_update_elem(fd, &l->tgids[i], &state, BPF_ANY))
			return pk_err(l->err, -errno, "cannot add target %d: %s",
				      (int)l->tgids[i], strerror(errno));
	}
	return 0;
}

/* A target that exited while we loaded was missed by pk_forget_exit. */
static void drop_exited_targets(struct load *l)
{
	int fd = bpf_map__fd(l->skel->maps.targets);

	for (int i = 0; i < l->ntgids; i++)
		if (!pk_process_alive(l->tgids[i]))
			bpf_map_delete_elem(fd, &l->tgids[i]);
}

/* Attach PROG into *LINK, WHAT naming its hook in the message. */
static int attach_one(struct load *l, struct bpf_program *prog, struct bpf_link **link,
		      const char *what)
{
	*link = bpf_program__attach(prog);
	if (!*link)
		return pk_err(l->err, -errno, "cannot attach to %s: %s", what, strerror(errno));
	return 0;
}

static int attach_follow(struct load *l)
{
	struct profile_bpf *skel = l->skel;

	if (!l->ntgids)
		return 0;
	return attach_one(l, skel->progs.pk_follow_fork, &skel->links.pk_follow_fork,
			  "sched_process_fork") ?:
	       attach_one(l, skel->progs.pk_forget_exit, &skel->links.pk_forget_exit,
			  "sched_process_exit") ?:
	       (l->opts->cmd ? attach_one(l, skel->progs.pk_command_exec,
					  &skel->links.pk_command_exec, "sched_process_exec") : 0);
}

/* The tracepoints of targets' forks and exits and of the code reports are
 * found by libbpf through tracefs: mounted where no one did, as perf does,
 * so that a first run on a bare machine works. */
static int need_tracefs(struct load *l)
{
	const char *dir;

	if (!l->ntgids && !l->opts->dwarf)
		return 0;
	return pk_tracefs_events(&dir, l->err);
}

/* pk_code_report at tracepoint CATEGORY:NAME, its cookie HOOK, into *LINK. */
static int attach_code_report(struct load *l, const char *category, const char *name,
			      enum pk_code_hook hook, struct bpf_link **link)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, opts, .bpf_cookie = hook);

	*link = bpf_program__attach_tracepoint_opts(l->skel->progs.pk_code_report, category,
						    name, &opts);
	if (!*link)
		return pk_err(l->err, -errno, "cannot attach to %s:%s: %s", category, name,
			      strerror(errno));
	return 0;
}

/* The code reports, with --unwind dwarf (autoloaded then only). */
static int attach_code_reports(struct load *l)
{
	if (!l->opts->dwarf)
		return 0;
	return attach_code_report(l, "sched", "sched_process_exec", PK_CODE_HOOK_EXEC,
				  &l->exec_report) ?:
	       attach_code_report(l, "syscalls", "sys_exit_mmap", PK_CODE_HOOK_MMAP,
				  &l->mmap_report);
}

static __u64 clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int write_session(struct load *l)
{
	const struct pk_load_opts *o = l->opts;
	struct pk_session *s = &l->session;
	__u32 key = 0;

	s->layout_version = PK_PIN_LAYOUT_VERSION;
	s->flags = (l->ntgids ? PK_SESSION_FILTER_PIDS : 0) |
		   (o->skip_idle ? PK_SESSION_SKIP_IDLE : 0) |
		   (o->cpu >= 0 ? PK_SESSION_FILTER_CPU : 0) |
		   (o->cmd ? PK_SESSION_COMMAND : 0) |
		   (o->dwarf ? PK_SESSION_DWARF : 0) |
		   (o->dwarf && !o->no_python ? PK_SESSION_PYTHON : 0) |
		   (o->aggregate ? PK_SESSION_AGGREGATE : 0);
	/* Boot clock: bpf_ktime_get_boot_ns() keeps counting in suspend. */
	s->start_time_ns = clock_ns(CLOCK_BOOTTIME);
	s->start_realtime_ns = clock_ns(CLOCK_REALTIME);
	s->freq_hz = o->freq;
	s->cpu = o->cpu;
	s->ncpus = pk_events_ncpus(&l->events);
	s->ntargets = l->ntgids;
	s->ringbuf_bytes = o->ringbuf_bytes;
	s->nevents = l->events.n;
	if (bpf_map_update_elem(bpf_map__fd(l->skel->maps.session), &key, s, BPF_ANY))
		return pk_err(l->err, -errno, "cannot write the session settings: %s",
			      strerror(errno));
	return 0;
}

static int put_root(void *ctx, pid_t pid)
{
	pk_root_records_put(*(int *)ctx, "/proc", pid);	/* gone: nothing to keep */
	return 0;
}

/* The session's record of its processes' roots (lib/root_records.h),
 * with those of the targets already (-p, or system-wide every process
 * running now): a reader after they exited finds their roots' files
 * there. A command's are kept as it maps them (loader/missing_watch.h). */
static int pin_roots(struct load *l)
{
	int fd = pk_root_records_create(), ret;

	if (fd < 0)
		return pk_err(l->err, fd, "cannot make the roots map: %s", strerror(-fd));
	for (int i = 0; i < l->ntgids; i++)
		put_root(&fd, l->tgids[i]);
	if (!l->ntgids && !l->opts->cmd)
		pk_proc_for_each_pid(NULL, put_root, &fd);	/* unlisted: none kept */
	ret = pk_pins_add(&l->pins, fd, PK_PIN_ROOTS, l->err);
	close(fd);
	return ret;
}

/* The session map goes last: it is what tells readers a session is there. */
static int pin_all(struct load *l)
{
	struct profile_bpf *skel = l->skel;
	struct pk_pins *p = &l->pins;
	int ret;

	ret = pk_events_pin(&l->events, p, l->err);
	if (!ret && skel->links.pk_follow_fork)
		ret = pk_pins_add(p, bpf_link__fd(skel->links.pk_follow_fork),
				  PK_PIN_LINKS_DIR "/fork", l->err);
	if (!ret && skel->links.pk_forget_exit)
		ret = pk_pins_add(p, bpf_link__fd(skel->links.pk_forget_exit),
				  PK_PIN_LINKS_DIR "/exit", l->err);
	if (!ret && skel->links.pk_command_exec)
		ret = pk_pins_add(p, bpf_link__fd(skel->links.pk_command_exec),
				  PK_PIN_LINKS_DIR "/command_exec", l->err);
	if (!ret && l->exec_report)
		ret = pk_pins_add(p, bpf_link__fd(l->exec_report), PK_PIN_LINKS_DIR "/exec",
				  l->err);
	if (!ret && l->mmap_report)
		ret = pk_pins_add(p, bpf_link__fd(l->mmap_report), PK_PIN_LINKS_DIR "/mmap",
				  l->err);
	if (!ret)
		ret = pk_pins_add(p, bpf_map__fd(skel->maps.events), PK_PIN_EVENTS, l->err);
	if (!ret)
		ret = pk_pins_add(p, bpf_map__fd(skel->maps.counters), PK_PIN_COUNTERS, l->err);
	if (!ret && skel->rodata->missing_ring)
		ret = pk_pins_add(p, bpf_map__fd(skel->maps.missing), PK_PIN_MISSING, l->err);
	if (!ret)
		ret = pk_pins_add(p, bpf_map__fd(skel->maps.targets), PK_PIN_TARGETS, l->err);
	if (!ret)
		ret = pk_pins_add(p, bpf_map__fd(skel->maps.event_list), PK_PIN_EVENT_LIST, l->err);
	if (!ret)
		ret = pk_pins_add(p, bpf_map__fd(skel->maps.event_counts), PK_PIN_EVENT_COUNTS,
				  l->err);
	if (l->opts->dwarf) {
		struct pk_unwind_fds fds;

		unwind_fds(skel, &fds);
		for (int i = 0; !ret && i < PK_UNWIND_NMAPS; i++)
			ret = pk_pins_add(p, fds.fd[i], pk_unwind_pins[i], l->err);
	}
	if (!ret && l->opts->aggregate)
		ret = pk_pins_add(p, bpf_map__fd(skel->maps.agg_slot), PK_PIN_AGG_SLOT, l->err);
	if (!ret && l->opts->aggregate)
		ret = pk_pins_add(p, bpf_map__fd(skel->maps.agg_counts0), PK_PIN_AGG_COUNTS0,
				  l->err);
	if (!ret && l->opts->aggregate)
		ret = pk_pins_add(p, bpf_map__fd(skel->maps.agg_counts1), PK_PIN_AGG_COUNTS1,
				  l->err);
	if (!ret)
		ret = pin_roots(l);
	if (!ret)
		ret = pk_pins_add(p, bpf_map__fd(skel->maps.session), PK_PIN_SESSION, l->err);
	return ret;
}

/* Destroying a link detaches it (and disables its perf event) unless it is
 * disconnected first; the pins keep them alive after we exit. */
static void disconnect_links(struct load *l)
{
	pk_events_disconnect(&l->events);
	if (l->skel->links.pk_follow_fork)
		bpf_link__disconnect(l->skel->links.pk_follow_fork);
	if (l->skel->links.pk_forget_exit)
		bpf_link__disconnect(l->skel->links.pk_forget_exit);
	if (l->skel->links.pk_command_exec)
		bpf_link__disconnect(l->skel->links.pk_command_exec);
	if (l->exec_report)
		bpf_link__disconnect(l->exec_report);
	if (l->mmap_report)
		bpf_link__disconnect(l->mmap_report);
}

/* The kernel types the object relocates against (loader/kernel_btf.h),
 * made once a boot. Without them libbpf reads the kernel's whole BTF, as
 * it does anyway for the events whose hooks it names (fentry, off-cpu). */
static void find_kernel_btf(struct load *l)
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
static int open_object(struct load *l)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo,
		    .btf_custom_path = l->kernel_btf[0] ? l->kernel_btf : NULL);
	int ret;

	profile_bpf__destroy(l->skel);
	l->skel = profile_bpf__open_opts(&oo);
	if (!l->skel)
		return pk_err(l->err, -errno, "cannot open the BPF object: %s", strerror(errno));
	ret = configure(l);
	if (!ret && (ret = pk_events_configure(&l->events, l->skel, l->err)))
		l->refused = ret == -EINVAL;
	return ret;
}

/* Load the object, reading libbpf's account of it into LOG. */
static int load_object(struct load *l, struct pk_load_log *log)
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
static int refused_program(struct load *l, const struct pk_load_log *log, int ret)
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

/* Open, configure and load the object, without the programs the kernel
 * refuses where the session can do without them. */
static int load_programs(struct load *l)
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

/*
 * Ctrl-C (or a TERM, HUP, QUIT) in the middle of a load must not leave half
 * a session pinned: they are held off while loading and, if one came, the
 * load is undone before the command is released.
 */
static void hold_stop_signals(sigset_t *set, sigset_t *saved)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
	sigprocmask(SIG_BLOCK, set, saved);
}

static bool stop_signal_pending(const sigset_t *set)
{
	sigset_t pending;

	sigpending(&pending);
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(set, sig) == 1 && sigismember(&pending, sig) == 1)
			return true;
	return false;
}

/* An event's pattern attaches up to PK_GLOB_MATCHES_MAX links, two fds
 * each: the soft limit up to the hard one, as perf raises it. After the
 * command is forked, which keeps the limit it was given. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* The missing watch's work while the command runs: one line when it
 * fails, and no more work. */
static int watch_run(void *ctx)
{
	char err[PK_ERR_LEN];
	int ret = pk_missing_watch_run(ctx, err);

	if (ret < -1)
		fprintf(stderr, "probe-load: %s; the command's new files get their tables "
			"from probe-read\n", err);
	return ret;
}

/*
 * Wait for the command. With --unwind dwarf, meanwhile, the tables of what
 * it execs and maps (loader/missing_watch.h): through the pins, since
 * nothing of the load is held any more.
 */
static int wait_command(const struct pk_load_opts *o, struct pk_command *cmd,
			const sigset_t *mask)
{
	struct pk_missing_watch *w = NULL;
	struct pk_command_poll work = { .timeout_ms = -1, .run = watch_run };
	const struct pk_unwind_stats *st;
	char err[PK_ERR_LEN];
	int ret;

	if (o->dwarf && pk_missing_watch_open(o->pin_dir, o->jobs, &w, err))
		fprintf(stderr, "probe-load: %s; the command's new files get their tables "
			"from probe-read\n", err);
	if (w) {
		work.fd = pk_missing_watch_fd(w);
		work.ctx = w;
	}
	ret = pk_command_wait(cmd, mask, w ? &work : NULL);
	st = w ? pk_missing_watch_stats(w) : NULL;
	if (verbose && st)
		fprintf(stderr, "probe-load: while %s ran: %u tables, %u rows (%u built, %u "
			"cached, %u refused, %u gone)\n", cmd->name, st->tables, st->rows,
			st->built, st->hit, st->refused, st->gone);
	pk_missing_watch_free(w);
	return ret;
}

static int load(const struct pk_load_opts *o)
{
	char err[PK_ERR_LEN];
	bool refused;
	sigset_t stop, saved_mask;
	struct pk_command cmd;
	struct load *l = calloc(1, sizeof(*l));
	int ret;

	if (!l) {
		fprintf(stderr, "probe-load: out of memory\n");
		return PK_EXIT_ERROR;
	}
	l->opts = o;
	l->cmd.pid = -1;
	hold_stop_signals(&stop, &l->saved_mask);
	ret = preflight(l);
	if (ret)
		goto cleanup;
	/* Before anything is claimed or built: an event that is not there
	 * refuses the session at once. */
	ret = pk_events_resolve(&l->events, &(struct pk_events_params){
		.events = o->events, .nevents = o->nevents, .freq = o->freq,
		.sample_every = o->sample_every, .min_block_us = o->min_block_us,
		.no_fentry = o->no_fentry,
	}, l->online, PK_MAX_CPUS, l->err);
	if (ret) {
		l->refused = ret == -EINVAL;
		goto cleanup;
	}
	/* Claim the pin directory before the costly part: a second load is
	 * refused at once. */
	ret = pk_pins_claim(&l->pins, o->pin_dir, l->err);
	if (ret)
		goto cleanup;
	if (o->cmd) {
		ret = pk_command_start(&l->cmd, o->cmd, &l->saved_mask, l->err);
		if (ret)
			goto cleanup;
		l->tgids[l->ntgids++] = l->cmd.pid;
	}

	raise_nofile();
	ret = load_programs(l);
	if (ret)
		goto cleanup;
	ret = add_targets(l);
	if (ret)
		goto cleanup;
	ret = load_tables(l);
	if (ret)
		goto cleanup;
	ret = need_tracefs(l);
	if (!ret)
		ret = attach_follow(l);
	if (!ret)
		ret = attach_code_reports(l);
	if (ret)
		goto cleanup;
	drop_exited_targets(l);
	ret = pk_events_attach(&l->events, l->skel, l->err);
	if (ret) {
		l->refused = ret == -EINVAL;
		goto cleanup;
	}
	ret = write_session(l);
	if (ret)
		goto cleanup;
	ret = pin_all(l);
	if (ret)
		goto cleanup;
	if (stop_signal_pending(&stop)) {
		ret = pk_err(l->err, -EINTR, "interrupted: nothing loaded");
		goto cleanup;
	}
	/* once loaded: a failed load says one thing, why */
	if (o->dwarf)
		print_unwind_summary(l);
	pk_cli_cache_done("probe-load", NULL, stderr);
	if (o->cmd) {
		ret = pk_command_release(&l->cmd, l->err);
		if (ret)
			goto cleanup;
		fprintf(stderr, "probekit: profiling pid %d\n", (int)l->tgids[l->ntgids - 1]);
	}
	disconnect_links(l);
	for (unsigned int i = 0; verbose && i < l->events.n; i++)
		fprintf(stderr, "probe-load: event %u: %s (%zu attachment%s), pinned at %s\n", i,
			l->events.v[i].desc.name, l->events.v[i].nlinks,
			l->events.v[i].nlinks == 1 ? "" : "s", o->pin_dir);

cleanup:
	if (ret) {
		fprintf(stderr, "probe-load: %s\n", l->err);
		pk_command_abort(&l->cmd);
		pk_pins_abort(&l->pins);
	}
	pk_events_free(&l->events);
	pk_unwind_store_free(l->unwind);
	bpf_link__destroy(l->exec_report);
	bpf_link__destroy(l->mmap_report);
	profile_bpf__destroy(l->skel);
	free(l->tgids);
	refused = l->refused;
	cmd = l->cmd;
	saved_mask = l->saved_mask;
	free(l);
	if (ret)
		return refused ? PK_EXIT_USAGE : PK_EXIT_ERROR;
	/* nothing held that would keep a link alive: the watcher may start */
	if ((o->npids || o->cmd) && pk_target_watch_start(o->pin_dir, err))
		fprintf(stderr, "probe-load: %s; sampling goes on until --unload\n", err);
	if (cmd.pid <= 0)
		return PK_EXIT_OK;
	/* the command in the foreground, with no fd of the session's: libbpf
	 * leaves a disconnected link's fd open (its destroy only frees it),
	 * and a link fd held here kept sampling going past --unload until
	 * the command exited */
	close_range(3, ~0U, 0);
	return wait_command(o, &cmd, &saved_mask);
}

static int unload(const struct pk_load_opts *o)
{
	char err[PK_ERR_LEN];
	int ret = pk_pins_unload(o->pin_dir, err);

	/* nothing to stop is no failure (a cleanup trap's case), as bpftool
	 * and perf have it; said, so that a wrong --pin-dir is seen */
	if (ret && ret != -ENOENT) {
		fprintf(stderr, "probe-load: %s\n", err);
		return PK_EXIT_ERROR;
	}
	if (ret)
		fprintf(stderr, "probe-load: %s\n", err);
	return PK_EXIT_OK;
}

static int list(const struct pk_load_opts *o)
{
	char err[PK_ERR_LEN];
	int ret = pk_catalog_print(o->list_pattern, stdout, err);

	if (!ret)
		return fflush(stdout) ? PK_EXIT_ERROR : PK_EXIT_OK;
	fprintf(stderr, "probe-load: --list%s%s: %s\n", o->list_pattern ? " " : "",
		o->list_pattern ? o->list_pattern : "", err);
	/* uprobe:FILE that is not there, or not an ELF file: the user's */
	return ret == -ENOENT || ret == -ENOEXEC || ret == -EINVAL ? PK_EXIT_USAGE :
	       PK_EXIT_ERROR;
}

int main(int argc, char **argv)
{
	struct pk_load_opts opts;
	char err[PK_ERR_LEN];
	int ret;

	ret = pk_load_opts_parse(&opts, argc, argv, err);
	if (!ret && !opts.help && !opts.version && !opts.unload && !opts.list)
		ret = check_limits(&opts, err);
	if (ret) {
		pk_load_opts_free(&opts);
		return pk_cli_parse_failed("probe-load", ret, err);
	}
	verbose = opts.verbose;
	libbpf_set_print(libbpf_print);
	if (opts.help)
		ret = fputs(pk_load_usage, stdout) == EOF ? PK_EXIT_ERROR : PK_EXIT_OK;
	else if (opts.version)
		ret = printf("probe-load (probekit) %s\n", PK_VERSION) < 0 ?
		      PK_EXIT_ERROR : PK_EXIT_OK;
	else if (opts.unload)
		ret = unload(&opts);
	else if (opts.list)
		ret = list(&opts);
	else
		ret = pk_cli_cache_check("probe-load") ?: load(&opts);
	pk_load_opts_free(&opts);
	return ret;
}
