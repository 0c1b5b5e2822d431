// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * probe-load: load the sampler, attach it to every CPU, pin it and exit.
 * Sampling goes on without this process until `probe-load --unload`.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bpf/probekit.h"
#include "bpf/profile.skel.h"
#include "lib/cli.h"
#include "lib/pins.h"
#include "lib/proc_maps.h"
#include "lib/root_records.h"
#include "lib/session.h"
#include "lib/unwind_store.h"
#include "lib/version.h"
#include "loader/command.h"
#include "loader/events/catalog.h"
#include "loader/events/events.h"
#include "loader/load.h"
#include "loader/missing_watch.h"
#include "loader/options.h"
#include "loader/system.h"
#include "loader/target_watch.h"
#include "loader/unwind_files.h"

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
static int add_files(struct pk_load *l, int ret, struct pk_unwind_files *list,
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
static int load_tables(struct pk_load *l)
{
	const struct pk_load_opts *o = l->opts;
	struct pk_unwind_store_opts so = {
		.jobs = o->jobs, .log = stderr, .prog = "probe-load",
	};
	struct pk_unwind_alloc caps = pk_load_unwind_caps(o);
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
static void print_unwind_summary(struct pk_load *l)
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
static int add_targets(struct pk_load *l)
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
static void drop_exited_targets(struct pk_load *l)
{
	int fd = bpf_map__fd(l->skel->maps.targets);

	for (int i = 0; i < l->ntgids; i++)
		if (!pk_process_alive(l->tgids[i]))
			bpf_map_delete_elem(fd, &l->tgids[i]);
}

/* Attach PROG into *LINK, WHAT naming its hook in the message. */
static int attach_one(struct pk_load *l, struct bpf_program *prog, struct bpf_link **link,
		      const char *what)
{
	*link = bpf_program__attach(prog);
	if (!*link)
		return pk_err(l->err, -errno, "cannot attach to %s: %s", what, strerror(errno));
	return 0;
}

static int attach_follow(struct pk_load *l)
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
static int need_tracefs(struct pk_load *l)
{
	const char *dir;

	if (!l->ntgids && !l->opts->dwarf)
		return 0;
	return pk_tracefs_events(&dir, l->err);
}

/* pk_code_report at tracepoint CATEGORY:NAME, its cookie HOOK, into *LINK. */
static int attach_code_report(struct pk_load *l, const char *category, const char *name,
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
static int attach_code_reports(struct pk_load *l)
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

static int write_session(struct pk_load *l)
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
static int pin_roots(struct pk_load *l)
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
static int pin_all(struct pk_load *l)
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
static void disconnect_links(struct pk_load *l)
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
	if (o->verbose && st)
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
	struct pk_load *l = calloc(1, sizeof(*l));
	int ret;

	if (!l) {
		fprintf(stderr, "probe-load: out of memory\n");
		return PK_EXIT_ERROR;
	}
	l->opts = o;
	l->cmd.pid = -1;
	hold_stop_signals(&stop, &l->saved_mask);
	ret = pk_load_preflight(l);
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
	ret = pk_load_programs(l);
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
	for (unsigned int i = 0; o->verbose && i < l->events.n; i++)
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
		ret = pk_load_check_limits(&opts, err);
	if (ret) {
		pk_load_opts_free(&opts);
		return pk_cli_parse_failed("probe-load", ret, err);
	}
	pk_load_print_init(opts.verbose);
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
