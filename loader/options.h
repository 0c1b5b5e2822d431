/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* probe-load's command line, parsed into a struct so it can be unit-tested. */
#ifndef PK_LOAD_OPTIONS_H
#define PK_LOAD_OPTIONS_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "bpf/profile_sizes.h"
#include "eh_frame/errmsg.h"
#include "loader/events/event_spec.h"


#define PK_FREQ_DEFAULT		99
#define PK_RINGBUF_MAX		(1u << 30)

struct pk_load_opts {
	pid_t *pids;		/* -p, in order given (duplicates kept) */
	size_t npids;
	const char *cgroups[PK_MAX_CGROUPS];	/* --cgroup, in argv */
	size_t ncgroups;
	int cpu;		/* -C; -1: all */
	unsigned int freq;	/* -F */
	bool skip_idle;
	bool unload;
	bool verbose;
	bool help;
	bool version;
	const char *pin_dir;	/* points into argv or a constant */
	__u32 ringbuf_bytes;
	char **cmd;		/* after --, NULL-terminated; NULL: none */
	bool dwarf;		/* --unwind dwarf (default) or fp */
	__u32 table_rows;	/* --table-rows; 0: no limit but table_memory */
	__u64 table_memory;	/* --table-memory, bytes */
	__u32 stack_copy;	/* --stack-copy: bytes, <= PK_USTACK_COPY_MAX */
	unsigned int jobs;	/* -j: tables built at once; 0: online CPUs */
	struct pk_event_spec *events;	/* -e, in order given; none: CPU sampling */
	size_t nevents;
	__u64 sample_every;	/* -c; 0: not given */
	__u64 min_block_us;	/* --min-block */
	bool min_block_given;
	bool no_fentry;		/* --no-fentry */
	bool no_python;		/* --no-python */
	bool aggregate;		/* --aggregate */
	__u32 agg_entries;	/* --aggregate-entries */
	bool agg_entries_given;
	bool list;		/* --list */
	const char *list_pattern;	/* its PATTERN, in argv; NULL: all */
};

#define PK_MIN_BLOCK_US_DEFAULT	1

/* What the running system allows, checked by pk_load_opts_check(). */
struct pk_load_limits {
	unsigned int max_sample_rate;	/* kernel.perf_event_max_sample_rate */
	long page_size;
};

/* Parse ARGV into *O (defaults first). 0, or -EINVAL with a message in ERR.
 * Resets getopt's state, so it may be called more than once. */
int pk_load_opts_parse(struct pk_load_opts *o, int argc, char **argv,
		       char err[PK_ERR_LEN]);
/* Check the parsed values against the system's limits. 0 or -EINVAL. */
int pk_load_opts_check(const struct pk_load_opts *o,
		       const struct pk_load_limits *lim, char err[PK_ERR_LEN]);
void pk_load_opts_free(struct pk_load_opts *o);

/* The --help text. */
extern const char pk_load_usage[];

#endif
