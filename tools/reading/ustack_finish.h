/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The user-space end of a DWARF walk that stopped in a file whose table was
 * not in the kernel yet (PK_SAMPLE_USTACK_COPY): from the registers and the
 * copy of the stack the sample carries, the rest of the frames, walked with
 * the same tables (the eh2table cache, eh_frame/) and the same evaluation of
 * a rule (eh_frame/unwind_step.h) as the BPF walk, so that the stack is the
 * one the kernel would have found had it had the table.
 *
 * PCs are mapped to files through the process's mappings: the ones the
 * kernel reported (PK_EVENT_MAPPING, at exec, mmap and sample time), which
 * last after the process, else /proc/PID/maps while it lives. A file is
 * read through /proc/PID/map_files while its process lives, else at the
 * path the kernel reported when that path still holds the same inode, else
 * (deleted, or in another mount namespace) as the copy of its build-id in
 * a debug directory.
 */
#ifndef PK_USTACK_FINISH_H
#define PK_USTACK_FINISH_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "reading/record.h"

struct pk_ustack_finisher_opts {
	const char *proc_root;		/* NULL: "/proc" */
	const char *cache_dir;		/* the eh2table cache; NULL: its default */
	const char *const *debug_dirs;	/* .build-id trees where a file gone is
					 * found by its build-id; NULL:
					 * /usr/lib/debug */
	size_t ndebug_dirs;
};

/* A mapping of a process, as PK_EVENT_MAPPING reports it. */
struct pk_finish_mapping {
	__u32 pid;
	bool vdso;
	__u64 start, end;		/* [start, end) */
	__u64 pgoff;			/* file offset of start, in bytes */
	__u64 dev, ino;			/* the kernel's dev_t (MAJOR << 20 | MINOR) */
	const char *path;		/* may be NULL */
	const __u8 *build_id;		/* may be NULL */
	size_t build_id_len;
};

/* What a walk did: the frames appended to the sample's, and how it ended. */
struct pk_finish_result {
	size_t n;			/* frames appended */
	size_t fp_frames;		/* of those, found by a frame-pointer step */
	__u8 end;			/* enum pk_ustack_end; PK_END_NO_TABLE: a
					 * file on the way has no table (yet) */
};

struct pk_ustack_finisher;

/* NULL when out of memory. */
struct pk_ustack_finisher *pk_ustack_finisher_new(const struct pk_ustack_finisher_opts *opts);
void pk_ustack_finisher_free(struct pk_ustack_finisher *f);

/* Record M (replacing what it overlaps in its process). 0 or -ENOMEM. */
int pk_ustack_finisher_add_mapping(struct pk_ustack_finisher *f,
				   const struct pk_finish_mapping *m);

/* Walk on from the last user frame of SAMPLE (which carries a copy): up to
 * MAX frames into OUT, callers of that frame, outermost last. 0 or
 * -ENOMEM. */
int pk_ustack_finisher_walk(struct pk_ustack_finisher *f, const struct pk_record_sample *sample,
			    __u64 *out, size_t max, struct pk_finish_result *res);

/* Forget the processes that are gone and that no call used since the last
 * sweep (their copied samples were read), so that a reader that runs for
 * days holds the mappings of the processes that live. How many. */
size_t pk_ustack_finisher_sweep(struct pk_ustack_finisher *f);

#endif
