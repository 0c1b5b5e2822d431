/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What probe-read does with ring-buffer records: validate, aggregate raw
 * stacks, symbolize each distinct stack once (when first seen, while its
 * process still runs, after the mappings the kernel reported before it),
 * and hand the samples over as a profile (profile.h) for any output format.
 */
#ifndef PK_READER_H
#define PK_READER_H

#include <linux/types.h>
#include <stddef.h>
#include <stdio.h>

#include "bpf/probekit.h"
#include "eh_frame/errmsg.h"
#include "lib/unwind_store.h"
#include "profile/profile.h"

/*
 * Where the files of PK_EVENT_NO_TABLE records go to get a table: probe-read
 * gives a table_loader (the unwind store), tests a recorder. The reader
 * calls add() once per event whose file is still there, with the path the
 * store reads it from.
 */
struct pk_table_sink {
	/* 0: FILE has a table now, or was refused (the sink logged why);
	 * or a negative errno with one line in ERR. */
	int (*add)(void *ctx, const struct pk_unwind_file *file, char err[PK_ERR_LEN]);
	/* KEY's process was gone before its file could be read: let the
	 * kernel report the file again (may be NULL). */
	void (*forget)(void *ctx, const struct pk_file_key *key);
	void *ctx;
};

struct pk_reader_opts {
	const char *proc_root;		/* NULL: "/proc" */
	const char *kernel_root;	/* the kernel's files: kallsyms, modules,
					 * sys/kernel/random/boot_id (the
					 * tests' fake); NULL: "/proc" */
	const struct pk_table_sink *tables; /* NULL: no-table events only counted */
	FILE *log;			/* the first failure to add a table; NULL: stderr */
	bool timed;			/* keep every sample in time order (formats
					 * with timestamps); else samples of one
					 * stack, thread and CPU are merged */
	int unwind_tables_fd;		/* the session's unwind_tables map, to name
					 * a mapping's build-id; <= 0: none */
	int roots_fd;			/* the session's roots (pk_symbolizer_opts);
					 * <= 0: none */
	const char *const *debug_dirs;	/* .build-id trees; NULL: /usr/lib/debug */
	size_t ndebug_dirs;
	bool no_dwarf;			/* names only (pk_symbolizer_opts) */
	unsigned int nevents;		/* the session's events: a sample of an
					 * event at or past it is bad; 0: one */
	unsigned int keep_event;	/* index + 1 of the only event whose
					 * samples are kept (--event), the others
					 * counted only; 0: every event's */
	const char *cache_dir;		/* the eh2table cache the copied stacks
					 * are finished with; NULL: its default */
	bool keep_locs;			/* resolved addresses kept in the location
					 * caches under cache_dir's root, and read
					 * back by the next reader (loc_cache.h) */
	bool cgroups;			/* name each stack's cgroup (pk_stack_view
					 * cgroup): --per-cgroup, pprof's labels */
	const char *cgroup_root;	/* the tree cgroup ids are looked up in
					 * (tests); NULL: the cgroup2 mount */
	__u64 from_ns;			/* --from-now: samples taken before it
					 * (CLOCK_BOOTTIME) are dropped, and a
					 * profile covers its whole reading time
					 * (pk_reader_take); 0: the backlog kept */
};

struct pk_reader_stats {
	__u64 samples;		/* valid sample records */
	__u64 bad;		/* malformed records (or samples of an event
				 * the session does not have), skipped */
	__u64 skipped;		/* records of unknown types, skipped */
	__u64 stacks;		/* distinct raw stacks */
	__u64 dwarf;		/* samples whose user stack is a DWARF walk */
	__u64 ends[PK_END__MAX]; /* of those, by how the walk ended (a newer
				  * writer's unknown reason: in dwarf only);
				  * a walk finished here counts as it ended */
	__u64 copies;		/* samples whose walk stopped for want of a
				 * table, with the stack copied ... */
	__u64 finished;		/* ... of those, walked on here with the
				 * file's table (finished in user space) */
	__u64 finished_frames;	/* the frames those walks added */
	__u64 no_table;		/* PK_EVENT_NO_TABLE records */
	__u64 tables_added;	/* files given a table (or refused by the store) */
	__u64 tables_gone;	/* files whose process exited first (no map_files) */
	__u64 tables_failed;	/* files the sink failed on */
	__u64 mappings;		/* PK_EVENT_MAPPING records */
	/* Frames of the samples read (each sample's, not each distinct
	 * stack's): how many got a name, a source line, inlined callees. */
	__u64 user_frames, user_named, user_lines, user_inlined;
	__u64 kernel_frames, kernel_named;
	/* Distinct addresses symbolized, and of those, the ones an earlier
	 * reader's location cache answered (keep_locs). */
	__u64 addrs_resolved, addrs_cached;
	/* Go binaries named by address: their .gopclntab not read, the
	 * last one's reason (symbolizer.h) */
	__u64 go_refused;
	char go_err[PK_ERR_LEN];
	/* Python (layout 5): samples with a Python walk, by how it ended (a
	 * newer writer's unknown reason: in py_samples only), and over
	 * every sample's frames: the Python frames read, those a code report
	 * named, those with a line; the Python frames no native eval frame
	 * was left for (put at the outer end: the native walk was cut) and
	 * the eval frames no Python frame was left for (kept native), in
	 * samples with Python frames. */
	__u64 py_samples, py_ends[PK_PY_END__MAX];
	__u64 py_frames, py_named, py_lines, py_left, eval_left;
	__u64 py_codes;		/* PK_EVENT_PY_CODE records */
	__u64 hs_methods;	/* PK_EVENT_HS_METHOD records */
	__u64 hs_nmethods;	/* PK_EVENT_HS_NMETHOD records */
	__u64 v8_sfis;		/* PK_EVENT_V8_SFI records */
	/* By event: the samples and the sum of their weights (0 for samples
	 * whose weight is not known: layouts before events). */
	__u64 event_samples[PK_MAX_EVENTS];
	__u64 event_weight[PK_MAX_EVENTS];
	__u64 filtered;		/* samples of other events than keep_event */
	__u64 before_from;	/* of samples, those taken before from_ns:
				 * dropped (not in event_samples) */
	/* Freed at takes: stacks no sample of the take held, processes gone
	 * that only such stacks named, files no process kept names
	 * (pk_reader_take). */
	__u64 stacks_dropped, procs_forgotten, files_freed;
	/* --aggregate: definitions read (in samples), samples read from the
	 * counts maps (in samples too), and samples counted under keys no
	 * definition came for (yet; at the end: lost, not in samples). */
	__u64 agg_defs, agg_counted, agg_pending;
};

struct pk_reader;

struct pk_reader *pk_reader_new(const struct pk_reader_opts *opts);
void pk_reader_free(struct pk_reader *r);

/* One record as the ring buffer delivered it. 0 (malformed records are
 * counted, not errors), or -ENOMEM. */
int pk_reader_handle(struct pk_reader *r, const void *data, size_t size);

/* The samples handled since the last call, as a profile (the caller
 * fills the rest of *P's settings: frequency, clock, grouping) whose span
 * is what it holds: from its first sample to its last (CLOCK_BOOTTIME)
 * where it has samples, else the reading time [START_NS, END_NS]; with
 * from_ns, the reading time [START_NS, END_NS] (widened to a sample taken
 * before START_NS but read after it, in an interval after the first). The reader keeps what *P points
 * to until the next call or pk_reader_free; the samples it held are
 * dropped then, so that an interval holds only its own, and so are the
 * stacks no sample of the new profile holds and the processes gone that
 * only they named: a reader taking a profile every interval holds what an
 * interval holds, however long it runs. Ids (stacks, locations, mappings)
 * are dense within each profile. */
void pk_reader_take(struct pk_reader *r, __u64 start_ns, __u64 end_ns, struct pk_profile *p);

/* V's samples of the aggregated stack KEY (bpf/probekit.h "Aggregation"),
 * read from a counts map at TIME_NS after the ring buffer that holds its
 * definitions: handled as V->count samples of the stack its definition
 * says, weighing V->weight in all, or kept until a definition of KEY
 * comes. 0 or -ENOMEM. */
int pk_reader_add_counts(struct pk_reader *r, __u64 key, const struct pk_agg_value *v,
			 __u64 time_ns);

void pk_reader_stats(const struct pk_reader *r, struct pk_reader_stats *st);

#endif
