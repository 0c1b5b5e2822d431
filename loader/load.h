/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One probe-load run's state, shared by the files that do its steps:
 * probe-load.c (the run: targets, tables, attachments, pins, the
 * command), load_config.c (the options checked, and the object
 * configured from them) and load_object.c (the object opened, loaded,
 * and the kernel's refusals said in one line).
 */
#ifndef PK_LOADER_LOAD_H
#define PK_LOADER_LOAD_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "bpf/probekit.h"
#include "bpf/profile.skel.h"
#include "lib/pins.h"
#include "lib/session.h"
#include "lib/unwind_store.h"
#include "loader/command.h"
#include "loader/events/events.h"
#include "loader/options.h"
#include "loader/system.h"

struct pk_load {
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

/* load_config.c */

/* The option values against this system's limits, before anything else:
 * a refusal (-EINVAL) is bad usage, like the parser's. */
int pk_load_check_limits(const struct pk_load_opts *o, char err[PK_ERR_LEN]);
/* Everything that can be refused without touching the kernel. */
int pk_load_preflight(struct pk_load *l);
/* The limits the store loads tables within (--table-memory, --table-rows). */
struct pk_unwind_alloc pk_load_unwind_caps(const struct pk_load_opts *o);
/* The object's configuration (its constants, map sizes, programs) from
 * the options, before it loads. */
int pk_load_configure(struct pk_load *l);

/* load_object.c */

/* libbpf's messages through probe-load's (its progress with VERBOSE). */
void pk_load_print_init(bool verbose);
/* Open, configure and load the object, without the programs the kernel
 * refuses where the session can do without them. */
int pk_load_programs(struct pk_load *l);

#endif /* PK_LOADER_LOAD_H */
