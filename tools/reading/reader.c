// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/bpf.h>
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eh_frame/eh_table.h"
#include "eh_frame/unwind_table.h"
#include "lib/cgroup_path.h"
#include "lib/proc_maps.h"
#include "lib/unwind_store.h"
#include "lib/util/array.h"
#include "lib/util/u64map.h"
#include "reading/agg_defs.h"
#include "reading/reader.h"
#include "reading/record.h"
#include "reading/stack_agg.h"
#include "reading/ustack_finish.h"
#include "symbolization/symbolizer.h"

struct pk_reader {
	struct pk_stack_agg *agg;
	struct pk_symbolizer *sym;
	struct pk_ustack_finisher *finish;	/* walks the copied stacks on */
	struct pk_agg_defs *defs;		/* aggregated stacks (--aggregate) */
	struct pk_cgroup_paths cgroups;		/* root NULL: no names (not asked,
						 * or no cgroup2 mounted) */
	bool name_cgroups;
	struct pk_reader_stats stats;
	char *proc_root;
	struct pk_table_sink tables;	/* add NULL: none */
	FILE *log;
	bool timed;
	int tables_fd;
	unsigned int nevents, keep_event;
	__u64 from_ns;
	/* The samples since the last pk_reader_take, and the times of the
	 * first and the last taken (merged samples keep one time only). */
	struct pk_sample_view *samples;
	size_t nsamples, cap;
	__u64 first_ns, last_ns;
	struct pk_u64map merged;	/* untimed: (stack, tid, cpu) -> index + 1 */
	struct pk_sample_view *taken;	/* what the last pk_reader_take gave */
	__u64 takes;			/* pk_reader_take calls so far */
	__u32 next_stack_id;		/* ids are dense within a take's */
};

/* A distinct stack, symbolized: the view the formats read and its locations. */
struct stack_rec {
	struct pk_stack_view view;		/* first: samples point here */
	__u64 take;				/* the last take that held it */
	__u16 native;				/* user frames native in the view */
	__u16 named, lines, inlined, knamed;	/* of its native user / kernel frames */
	__u16 py, py_named, py_lines;		/* of its Python frames */
	__u16 py_left, eval_left;		/* what the merge could not pair */
	const struct pk_loc *locs[];
};

/* Named: a symbol (or a DWARF function), not "[unknown]", "[file+0xOFF]". */
static bool loc_named(const struct pk_loc *loc)
{
	return loc->frames[loc->nframes - 1].name[0] != '[';
}

struct pk_reader *pk_reader_new(const struct pk_reader_opts *opts)
{
	struct pk_symbolizer_opts sopts = {};
	struct pk_reader *r = calloc(1, sizeof(*r));
	char root[4096];

	if (!r)
		return NULL;
	r->tables_fd = -1;
	if (opts) {
		sopts.proc_root = opts->proc_root;
		sopts.kernel_root = opts->kernel_root;
		sopts.debug_dirs = opts->debug_dirs;
		sopts.ndebug_dirs = opts->ndebug_dirs;
		sopts.no_dwarf = opts->no_dwarf;
		sopts.roots_fd = opts->roots_fd;
		if (opts->keep_locs && !eh_cache_root(opts->cache_dir, root, sizeof(root)))
			sopts.cache_dir = root;
		if (opts->tables)
			r->tables = *opts->tables;
		r->log = opts->log;
		r->timed = opts->timed;
		if (opts->unwind_tables_fd > 0)
			r->tables_fd = opts->unwind_tables_fd;
		r->nevents = opts->nevents;
		r->keep_event = opts->keep_event;
		r->from_ns = opts->from_ns;
		r->name_cgroups = opts->cgroups;
	}
	if (r->name_cgroups && pk_cgroup_paths_init(&r->cgroups, opts->cgroup_root)) {
		free(r);
		return NULL;
	}
	if (!r->nevents || r->nevents > PK_MAX_EVENTS)
		r->nevents = r->nevents ? PK_MAX_EVENTS : 1;
	r->proc_root = strdup(opts && opts->proc_root ? opts->proc_root : "/proc");
	r->agg = pk_stack_agg_new();
	r->sym = pk_symbolizer_new(&sopts);
	r->finish = pk_ustack_finisher_new(&(struct pk_ustack_finisher_opts){
		.proc_root = r->proc_root, .cache_dir = opts ? opts->cache_dir : NULL,
		.debug_dirs = opts ? opts->debug_dirs : NULL,
		.ndebug_dirs = opts ? opts->ndebug_dirs : 0 });
	r->defs = pk_agg_defs_new();
	if (!r->agg || !r->sym || !r->proc_root || !r->finish || !r->defs) {
		pk_reader_free(r);
		return NULL;
	}
	return r;
}

void pk_reader_free(struct pk_reader *r)
{
	size_t n;
	struct pk_stack *const *stacks;

	if (!r)
		return;
	if (r->agg) {
		stacks = pk_stack_agg_entries(r->agg, &n);
		for (size_t i = 0; i < n; i++)
			free(stacks[i]->user);
	}
	pk_stack_agg_free(r->agg);
	pk_symbolizer_free(r->sym);
	pk_ustack_finisher_free(r->finish);
	pk_agg_defs_free(r->defs);
	pk_cgroup_paths_free(&r->cgroups);
	pk_u64map_free(&r->merged);
	free(r->samples);
	free(r->taken);
	free(r->proc_root);
	free(r);
}

/* Whether LOC runs CPython's eval loop: a call of it runs Python frames. */
static bool loc_is_eval(const struct pk_loc *loc)
{
	static const char eval[] = "_PyEval_EvalFrameDefault";
	const char *name = loc->frames[loc->nframes - 1].name;
	size_t n = sizeof(eval) - 1;

	/* its hot/cold split's part, should a symbol table name it apart */
	return strncmp(name, eval, n) == 0 && (!name[n] || strcmp(name + n, ".cold") == 0);
}

/* Python frame I (0: the leaf) of S, symbolized into REC->locs[*OUT]. */
static bool put_py(struct pk_reader *r, const struct pk_stack *s, size_t i,
		   struct stack_rec *rec, size_t *out)
{
	const struct pk_loc *loc = pk_symbolizer_py_loc(r->sym, s->pid,
							s->frames[(size_t)s->klen + s->ulen + i]);

	if (!loc)
		return false;
	rec->locs[(*out)++] = loc;
	rec->py++;
	rec->py_named += loc_named(loc);
	rec->py_lines += loc->frames[0].line != 0;
	return true;
}

/*
 * The locations of a new stack. The leaf of each part is where the CPU
 * was; every other address is a return address.
 *
 * Python frames are merged into the user part as py-spy's and
 * OpenTelemetry's mixed mode do: native frames leaf first, each one in
 * _PyEval_EvalFrameDefault replaced by the Python frames that call of the
 * eval loop runs, from the next Python frame up to the next one that
 * entered it (PK_PY_FRAME_ENTRY): a group.
 *
 * Where eval frames and groups are not as many, the pairs are counted from
 * the end both walks have whole. Both walks complete (WHOLE): from the root,
 * as the mismatch is then at the leaf, where a call of the eval loop is
 * entered or left (its one frame not started yet, and skipped: the leaf
 * eval frame has no group and stays native; Python frames pushed before
 * the eval loop runs them: the extra groups go to the leaf eval frame).
 * Else from the leaf: Python frames left when the native walk was cut go
 * at the outer end, eval frames left when the Python walk was cut (or
 * failed) stay native.
 */
static struct stack_rec *symbolize(struct pk_reader *r, const struct pk_stack *s, __u32 id,
				   bool whole)
{
	size_t n = (size_t)s->klen + s->ulen + s->plen, out, py = 0;
	struct stack_rec *rec = malloc(sizeof(*rec) + (n ? n : 1) * sizeof(rec->locs[0]));
	size_t evals = 0, groups = 0, skip = 0, extra = 0;

	if (!rec)
		return NULL;
	*rec = (struct stack_rec){ 0 };
	rec->view = (struct pk_stack_view){
		.id = id, .pid = s->pid, .comm = s->comm, .nkernel = s->klen, .locs = rec->locs,
		.cgroup_id = s->cgroup_id,
	};
	/* named while the cgroup is most likely still there */
	if (r->cgroups.root && s->cgroup_id) {
		rec->view.cgroup = pk_cgroup_path(&r->cgroups, s->cgroup_id);
		if (!rec->view.cgroup)
			goto fail;
	}
	for (size_t i = 0; i < s->klen; i++) {
		rec->locs[i] = pk_symbolizer_kernel_loc(r->sym, s->frames[i], i > 0);
		if (!rec->locs[i])
			goto fail;
		rec->knamed += loc_named(rec->locs[i]);
	}
	if (s->plen && whole) {
		for (size_t i = s->klen; i < (size_t)s->klen + s->ulen; i++) {
			const struct pk_loc *loc = pk_symbolizer_user_loc(r->sym, s->pid,
									  s->frames[i], i > s->klen);

			if (!loc)
				goto fail;
			evals += loc_is_eval(loc);
		}
		for (size_t i = 0; i < s->plen; i++) {
			__u64 f = s->frames[(size_t)s->klen + s->ulen + i];

			groups += (f & PK_PY_FRAME_ENTRY) || i + 1 == s->plen;
		}
		skip = evals > groups ? evals - groups : 0;
		extra = groups > evals && evals ? groups - evals : 0;
	}
	out = s->klen;
	for (size_t i = s->klen; i < (size_t)s->klen + s->ulen; i++) {
		const struct pk_loc *loc = pk_symbolizer_user_loc(r->sym, s->pid, s->frames[i],
								  i > s->klen);

		if (!loc)
			goto fail;
		if (s->plen && loc_is_eval(loc)) {
			if (skip) {
				skip--;
				rec->eval_left++;
			} else if (py < s->plen) {
				size_t take = 1 + extra;

				extra = 0;
				for (; take && py < s->plen; take--) {
					__u64 f;

					do {
						f = s->frames[(size_t)s->klen + s->ulen + py];
						if (!put_py(r, s, py++, rec, &out))
							goto fail;
					} while (!(f & PK_PY_FRAME_ENTRY) && py < s->plen);
				}
				continue;
			} else {
				rec->eval_left++;
			}
		}
		rec->locs[out++] = loc;
		rec->native++;
		rec->named += loc_named(loc);
		rec->lines += loc->frames[0].line != 0;
		rec->inlined += loc->nframes > 1;
	}
	rec->py_left = s->plen - py;
	while (py < s->plen)
		if (!put_py(r, s, py++, rec, &out))
			goto fail;
	rec->view.nuser = (__u16)(out - s->klen);
	return rec;
fail:
	free(rec);
	return NULL;
}

static int log_sample(struct pk_reader *r, const struct pk_record_sample *rec,
		      const struct stack_rec *stack, __u64 n)
{
	__u64 key = 0;
	size_t idx;

	if (!r->timed) {
		/* One entry per (stack, thread, CPU, event): ids and tids fit
		 * 32 bits, CPUs and events far fewer; the hash only finds the
		 * candidate. */
		key = pk_hash64(((__u64)stack->view.id << 32 | rec->tid) ^
				pk_hash64((__u64)rec->event << 32 | (rec->cpu + 1)));
		for (;; key++) {
			idx = (size_t)pk_u64map_get(&r->merged, key);
			if (!idx)
				break;
			struct pk_sample_view *v = &r->samples[idx - 1];

			if (v->stack == &stack->view && v->tid == rec->tid && v->cpu == rec->cpu &&
			    v->event == rec->event) {
				v->count += n;
				v->weight = pk_sat_add(v->weight, rec->weight);
				return 0;
			}
		}
	}
	if (pk_array_reserve((void **)&r->samples, &r->cap, sizeof(*r->samples), r->nsamples + 1,
			     1024))
		return -ENOMEM;
	r->samples[r->nsamples++] = (struct pk_sample_view){
		.time_ns = rec->time_ns, .tid = rec->tid, .cpu = rec->cpu, .count = n,
		.stack = &stack->view, .weight = rec->weight, .event = rec->event,
	};
	if (!r->timed && pk_u64map_put(&r->merged, key, (void *)(uintptr_t)r->nsamples))
		return -ENOMEM;
	return 0;
}

/* A walk the kernel stopped for want of a table, with the stack copied:
 * walked on here with the file's table, into FRAMES (the sample's, then
 * the callers found) and *OUT, which points there. */
static int finish_walk(struct pk_reader *r, const struct pk_record_sample *rec,
		       __u64 frames[PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH + PK_MAX_PY_DEPTH],
		       struct pk_record_sample *out)
{
	size_t n = (size_t)rec->kstack_len + rec->ustack_len;
	struct pk_finish_result res;
	int ret;

	r->stats.copies++;
	for (size_t i = 0; i < n; i++)
		frames[i] = pk_record_frame(rec, i);
	ret = pk_ustack_finisher_walk(r->finish, rec, &frames[n],
				      PK_MAX_USTACK_DEPTH - rec->ustack_len, &res);
	if (ret)
		return ret;
	*out = *rec;
	if (res.end == PK_END_NO_TABLE && !res.n)
		return 0;	/* no table to go on with: as the kernel sent it */
	/* the Python frames go after the user frames, as the kernel put them */
	for (size_t i = 0; i < rec->py_len; i++)
		frames[n + res.n + i] = pk_record_frame(rec, n + i);
	out->frames = frames;
	out->ustack_len += res.n;
	out->ustack_end = res.end;
	out->fp_frames += res.fp_frames;
	if (res.end == PK_END_DEPTH)
		out->flags |= PK_SAMPLE_USTACK_TRUNC;
	r->stats.finished++;
	r->stats.finished_frames += res.n;
	return 0;
}

/* N samples of SAMPLE's stack (more than one: counted in the kernel,
 * --aggregate), whose weights sum to its weight. A stack is kept with the
 * frames found however its walk ended: a truncated stack still tells
 * where the time went. */
static int handle_sample(struct pk_reader *r, const struct pk_record_sample *sample, __u64 n)
{
	__u64 frames[PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH + PK_MAX_PY_DEPTH];
	const struct pk_record_sample *rec = sample;
	struct pk_record_sample finished;
	const struct stack_rec *st;
	struct pk_stack *s;
	bool is_new;
	int ret;

	/* An event the session does not have: nothing to name it by. */
	if (rec->event >= r->nevents) {
		r->stats.bad++;
		return 0;
	}
	r->stats.samples += n;
	/* --from-now: the backlog is read (its mapping reports name later
	 * samples) and dropped */
	if (rec->time_ns < r->from_ns) {
		r->stats.before_from += n;
		return 0;
	}
	r->stats.event_samples[rec->event] += n;
	r->stats.event_weight[rec->event] = pk_sat_add(r->stats.event_weight[rec->event],
						    rec->weight);
	/* --event: the others are counted, never symbolized. */
	if (r->keep_event && rec->event != r->keep_event - 1) {
		r->stats.filtered += n;
		return 0;
	}
	if (rec->flags & PK_SAMPLE_USTACK_COPY) {
		ret = finish_walk(r, sample, frames, &finished);
		if (ret)
			return ret;
		rec = &finished;
	}
	if (rec->flags & PK_SAMPLE_USTACK_DWARF) {
		r->stats.dwarf += n;
		if (rec->ustack_end < PK_END__MAX)
			r->stats.ends[rec->ustack_end] += n;
	}
	if (rec->flags & PK_SAMPLE_PY) {
		r->stats.py_samples += n;
		if (rec->py_end < PK_PY_END__MAX)
			r->stats.py_ends[rec->py_end] += n;
	}
	s = pk_stack_agg_add(r->agg, rec->pid, rec->comm, rec->cgroup_id, rec->frames, rec->kstack_len,
			     rec->ustack_len, rec->py_len, n, &is_new);
	if (!s)
		return -ENOMEM;
	if (is_new) {
		/* the walks' ends of the stack's first sample: the same
		 * frames end the same way (where a walk stops is in them) */
		s->user = symbolize(r, s, r->next_stack_id++,
				    rec->ustack_end == PK_END_COMPLETE &&
				    rec->py_end == PK_PY_END_COMPLETE);
		if (!s->user)
			return -ENOMEM;
		r->stats.stacks++;
	}
	st = s->user;
	r->stats.user_frames += st->native * n;
	r->stats.user_named += st->named * n;
	r->stats.user_lines += st->lines * n;
	r->stats.user_inlined += st->inlined * n;
	r->stats.kernel_frames += st->view.nkernel * n;
	r->stats.kernel_named += st->knamed * n;
	r->stats.py_frames += st->py * n;
	r->stats.py_named += st->py_named * n;
	r->stats.py_lines += st->py_lines * n;
	r->stats.py_left += st->py_left * n;
	r->stats.eval_left += st->eval_left * n;
	if (!r->nsamples || rec->time_ns < r->first_ns)
		r->first_ns = rec->time_ns;
	if (!r->nsamples || rec->time_ns > r->last_ns)
		r->last_ns = rec->time_ns;
	return log_sample(r, rec, st, n);
}

/* The definition of an aggregated stack: a sample, and what names the
 * stack's counts from now on, those read before it included. */
static int handle_def(struct pk_reader *r, const struct pk_record_sample *rec)
{
	struct pk_agg_pending pending = { 0 };
	struct pk_record_sample counted;
	int ret;

	/* one of an event the session does not have is bad: not kept */
	if (rec->event < r->nevents) {
		ret = pk_agg_defs_put(r->defs, rec, r->takes, &pending);
		if (ret)
			return ret;
		r->stats.agg_defs++;
	}
	ret = handle_sample(r, rec, 1);
	if (ret || !pending.count)
		return ret;
	counted = *rec;
	counted.time_ns = pending.time_ns;
	counted.weight = pending.weight;
	r->stats.agg_counted += pending.count;
	return handle_sample(r, &counted, pending.count);
}

int pk_reader_add_counts(struct pk_reader *r, __u64 key, const struct pk_agg_value *v,
			 __u64 time_ns)
{
	const struct pk_record_sample *def;
	struct pk_record_sample rec;

	/* a stack sampled once since the swap: its definition was all */
	if (!v->count)
		return 0;
	def = pk_agg_defs_get(r->defs, key, r->takes);
	if (!def)
		return pk_agg_defs_pend(r->defs, key, v->count, v->weight, time_ns);
	rec = *def;
	rec.time_ns = time_ns;
	rec.weight = v->weight;
	r->stats.agg_counted += v->count;
	return handle_sample(r, &rec, v->count);
}

/* The build-id of unwind table TABLE, from the session's maps. */
static size_t table_build_id(const struct pk_reader *r, __u32 table, __u8 *id)
{
	struct pk_table_info info;

	if (r->tables_fd < 0 || table == PK_TABLE_NONE ||
	    bpf_map_lookup_elem(r->tables_fd, &table, &info) ||
	    (info.flags & PK_UNWIND_NO_BUILD_ID) || info.build_id_len > sizeof(info.build_id))
		return 0;
	memcpy(id, info.build_id, info.build_id_len);
	return info.build_id_len;
}

/* Where the kernel found a file mapped, before the first sample through
 * it: what names that sample's frames, then and after the process exits.
 * A file mapped where another was (dlclose, then dlopen) seals the
 * process's stacks: the same addresses are other code from now on. */
static int handle_mapping(struct pk_reader *r, const struct pk_record_mapping *ev)
{
	__u8 id[sizeof(((struct pk_table_info *)0)->build_id)];
	struct pk_kernel_mapping m = {
		.pid = ev->pid, .vdso = ev->flags & PK_MAPPING_VDSO,
		.start = ev->vm_start, .end = ev->vm_end, .pgoff = ev->vm_pgoff << 12,
		.dev = pk_user_dev(ev->dev), .ino = ev->ino,
		.path = ev->path[0] == '/' && !(ev->flags & PK_MAPPING_PATH_TRUNC) ? ev->path : NULL,
		.build_id = id,
	};
	int ret;

	r->stats.mappings++;
	/* the build-id the kernel read from the mapped ELF, else its table's */
	if (ev->build_id_len) {
		memcpy(id, ev->build_id, ev->build_id_len);
		m.build_id_len = ev->build_id_len;
	} else {
		m.build_id_len = table_build_id(r, ev->table, id);
	}
	ret = pk_ustack_finisher_add_mapping(r->finish, &(struct pk_finish_mapping){
		.pid = ev->pid, .vdso = m.vdso, .start = ev->vm_start, .end = ev->vm_end,
		.pgoff = m.pgoff, .dev = ev->dev, .ino = ev->ino, .path = m.path,
		.build_id = id, .build_id_len = m.build_id_len });
	if (ret < 0)
		return ret;
	ret = pk_symbolizer_add_mapping(r->sym, &m);
	if (ret < 0)
		return ret;
	if (ret)
		pk_stack_agg_seal_pid(r->agg, ev->pid);
	return 0;
}

/* The kernel reported a mapped file without a table: give it one, read
 * through the mapping while its process lives (the file may have been
 * replaced or unlinked since, its path is no way to it). Never fatal: the
 * walk falls back to frame pointers meanwhile. */
static void handle_no_table(struct pk_reader *r, const struct pk_record_no_table *ev)
{
	struct pk_unwind_file file = { .key = { .dev = ev->dev, .ino = ev->ino } };
	char path[PATH_MAX], name[PATH_MAX], err[PK_ERR_LEN];
	int ret;

	r->stats.no_table++;
	if (!r->tables.add)
		return;
	if (ev->dev != PK_VDSO_DEV || ev->ino != PK_VDSO_INO) {
		ret = pk_map_files_named(path, name, sizeof(path), r->proc_root, ev->pid,
					 ev->vm_start, ev->vm_end);
		/* the process has exited (or unmapped it): nothing to read */
		if (ret == -ESRCH) {
			r->stats.tables_gone++;
			if (r->tables.forget)
				r->tables.forget(r->tables.ctx, &file.key);
			return;
		}
		if (ret) {
			r->stats.tables_failed++;
			return;
		}
		file.name = name[0] ? name : NULL;
		file.path = path;
		file.pid = ev->pid;
		file.vm_start = ev->vm_start;
	}
	ret = r->tables.add(r->tables.ctx, &file, err);
	if (ret == 0) {
		r->stats.tables_added++;
		return;
	}
	/* One line: what fails once (the maps, the store) fails for every
	 * file; the summary has the count. */
	if (!r->stats.tables_failed++)
		fprintf(r->log ? r->log : stderr, "probe-read: %s\n", err);
}

/* After a runtime's name report of process PID was recorded (RET: the
 * symbolizer's answer): one that took another's place seals the process's
 * stacks, as a file mapped where another was does: the same frames name
 * other code now. */
static int named(struct pk_reader *r, int ret, __u32 pid)
{
	if (ret < 0)
		return ret;
	if (ret)
		pk_stack_agg_seal_pid(r->agg, pid);
	return 0;
}

/* A code object named: frames of it are named from now on. */
static int handle_py_code(struct pk_reader *r, const struct pk_py_code_desc *d)
{
	r->stats.py_codes++;
	return named(r, pk_symbolizer_add_py_code(r->sym, d), d->pid);
}

/* A Java method named: as a Python code object. */
static int handle_hs_method(struct pk_reader *r, const struct pk_hs_method_desc *d)
{
	r->stats.hs_methods++;
	return named(r, pk_symbolizer_add_hs_method(r->sym, d), d->pid);
}

/* A compiled Java method and its scopes: as a Java method. */
static int handle_hs_nmethod(struct pk_reader *r, const struct pk_hs_nmethod_desc *d)
{
	r->stats.hs_nmethods++;
	return named(r, pk_symbolizer_add_hs_nmethod(r->sym, d), d->pid);
}

/* A JavaScript function named: as a Java method. */
static int handle_v8_sfi(struct pk_reader *r, const struct pk_v8_sfi_desc *d)
{
	r->stats.v8_sfis++;
	return named(r, pk_symbolizer_add_v8_sfi(r->sym, d), d->pid);
}

int pk_reader_handle(struct pk_reader *r, const void *data, size_t size)
{
	struct pk_record rec;

	switch (pk_record_parse(data, size, &rec)) {
	case PK_RECORD_BAD:
		r->stats.bad++;
		return 0;
	case PK_RECORD_SKIP:
		r->stats.skipped++;
		return 0;
	case PK_RECORD_NO_TABLE:
		handle_no_table(r, &rec.no_table);
		return 0;
	case PK_RECORD_MAPPING:
		return handle_mapping(r, &rec.mapping);
	case PK_RECORD_PY_CODE:
		return handle_py_code(r, &rec.py_code);
	case PK_RECORD_HS_METHOD:
		return handle_hs_method(r, &rec.hs_method);
	case PK_RECORD_V8_SFI:
		return handle_v8_sfi(r, &rec.v8_sfi);
	case PK_RECORD_HS_NMETHOD:
		return handle_hs_nmethod(r, &rec.hs_nmethod);
	case PK_RECORD_SAMPLE:
		break;
	}
	if (rec.sample.flags & PK_SAMPLE_AGG_DEF)
		return handle_def(r, &rec.sample);
	return handle_sample(r, &rec.sample, 1);
}

static bool stack_in_take(void *ctx, struct pk_stack *s)
{
	const struct pk_reader *r = ctx;

	return ((const struct stack_rec *)s->user)->take == r->takes;
}

static void stack_drop(void *ctx, struct pk_stack *s)
{
	struct pk_reader *r = ctx;

	r->stats.stacks_dropped++;
	free(s->user);
}

static bool pid_in_use(void *ctx, __u32 pid)
{
	return pk_u64map_get(ctx, pid) != NULL;
}

/*
 * What the previous take's profile held and this one's does not is freed:
 * the stacks no sample of it holds, and the processes they alone named
 * once they are gone (their mappings, locations and names). What is left
 * is numbered anew, densely: a reader that writes a profile every interval
 * for days holds what its intervals hold, not all it ever read.
 */
static void trim_to_take(struct pk_reader *r)
{
	struct pk_stack *const *stacks;
	struct pk_u64map pids = { 0 };
	bool pids_ok = true;
	size_t n;

	r->takes++;
	for (size_t i = 0; i < r->nsamples; i++)
		((struct stack_rec *)r->samples[i].stack)->take = r->takes;
	pk_stack_agg_retain(r->agg, stack_in_take, stack_drop, r);
	stacks = pk_stack_agg_entries(r->agg, &n);
	pk_symbolizer_renumber(r->sym);
	for (size_t i = 0; i < n; i++) {
		struct stack_rec *rec = stacks[i]->user;

		rec->view.id = (__u32)i;
		for (size_t k = 0; k < (size_t)rec->view.nkernel + rec->view.nuser; k++)
			pk_symbolizer_number(r->sym, rec->locs[k]);
		if (pids_ok && pk_u64map_put(&pids, stacks[i]->pid, (void *)1))
			pids_ok = false;
	}
	r->next_stack_id = (__u32)n;
	/* without the set, nothing can be shown unused: all is kept */
	if (pids_ok) {
		struct pk_symbolizer_stats st;

		r->stats.procs_forgotten += pk_symbolizer_forget_gone(r->sym, pid_in_use, &pids);
		pk_symbolizer_stats(r->sym, &st);
		r->stats.files_freed = st.files_freed;
	}
	pk_u64map_free(&pids);
	pk_ustack_finisher_sweep(r->finish);
	/* what was freed goes back to the system, not only to malloc: an
	 * interval's peak is not held for the rest of the run */
	malloc_trim(0);
}

void pk_reader_take(struct pk_reader *r, __u64 start_ns, __u64 end_ns, struct pk_profile *p)
{
	struct pk_sample_view *samples = r->samples;

	/* A profile says the time it holds: without --from-now that is
	 * its samples' (the backlog the buffer held when the reader started
	 * included); with it, the time read, and a sample read late in it
	 * widens it. */
	if (r->from_ns) {
		p->start_ns = r->nsamples && r->first_ns < start_ns ? r->first_ns : start_ns;
		p->end_ns = r->nsamples && r->last_ns > end_ns ? r->last_ns : end_ns;
	} else {
		p->start_ns = r->nsamples ? r->first_ns : start_ns;
		p->end_ns = r->nsamples ? r->last_ns : end_ns;
	}
	/* the last profile's samples are done with: what they alone held goes */
	free(r->taken);
	r->taken = NULL;
	trim_to_take(r);
	/* a stack's definition comes again with each map it is counted
	 * in: the ones the last two takes used are all that can still be */
	pk_agg_defs_expire(r->defs, r->takes - 1);
	p->nsamples = r->nsamples;
	p->samples = samples;
	p->nstacks = r->next_stack_id;
	pk_symbolizer_counts(r->sym, &p->nlocs, &p->nmaps, &p->nmodules);
	/* The next interval starts empty; these stay until the next take. */
	r->samples = NULL;
	r->nsamples = r->cap = 0;
	pk_u64map_free(&r->merged);
	memset(&r->merged, 0, sizeof(r->merged));
	r->taken = samples;
}

void pk_reader_stats(const struct pk_reader *r, struct pk_reader_stats *st)
{
	struct pk_symbolizer_stats ss;
	struct pk_agg_defs_stats as;

	pk_symbolizer_stats(r->sym, &ss);
	pk_agg_defs_stats(r->defs, &as);
	*st = r->stats;
	st->agg_pending = as.pending;
	st->addrs_resolved = ss.lookups;
	st->addrs_cached = ss.cached;
	st->go_refused = ss.go_refused;
	memcpy(st->go_err, ss.go_err, sizeof(st->go_err));
}
