/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A loaded session as seen from user space: the maps probe-load pinned
 * under the pin directory (see bpf/probekit.h for the names and layouts).
 * Used by probe-read to find its input and by probe-load itself.
 */
#ifndef PK_SESSION_H
#define PK_SESSION_H

#include <linux/types.h>
#include <stddef.h>

#include "bpf/probekit.h"
#include "eh_frame/errmsg.h"

struct pk_session_fds {
	int events, counters, session, targets;
};

/* The unwind maps (bpf/probekit.h, "Unwind tables in the kernel"), pinned
 * with --unwind dwarf; fd[i] is the map pinned as pk_unwind_pins[i]. py_files
 * ("Python"), hs_files ("HotSpot") and v8_files ("V8") go with them: whoever loads a file's
 * table adds it there. */
#define PK_UNWIND_NMAPS	8
struct pk_unwind_fds {
	union {
		struct {
			int files, tables, rows, alloc, seen, py, hs, v8;
		};
		int fd[PK_UNWIND_NMAPS];
	};
};
extern const char *const pk_unwind_pins[PK_UNWIND_NMAPS];

/* Open the pinned maps of the session at PIN_DIR (NULL: PK_PIN_DIR_DEFAULT)
 * and read its settings into *info. -ENOENT: nothing loaded there; -EPROTO:
 * pin layout version differs; other negative errno otherwise. fds not
 * opened are -1 (on error, none is left open). */
int pk_session_open(const char *pin_dir, struct pk_session_fds *fds,
		    struct pk_session *info);
/* Close what pk_session_open() opened; fds become -1. */
void pk_session_close(struct pk_session_fds *fds);

/* A new reader generation in the session SESSION_FD (struct pk_session
 * reader_gen, bumped): the BPF side sends again the once-per-object reports
 * (bpf/sample.bpf.h pk_report_gen()), for a reader that was not told what
 * an earlier one was. A reader calls it when it starts and when it stops
 * reading the ring buffer, only under the session's lock
 * (lib/session_lock.h). 0 or negative errno. */
int pk_session_reader_gen_next(int session_fd);

/* Open the unwind maps pinned at PIN_DIR (NULL: the default). -ENOENT when
 * the session has none (--unwind fp); on error none is left open. py is -1
 * for a session of a loader from before py_files, hs before hs_files, v8
 * before v8_files. */
int pk_unwind_fds_open(const char *pin_dir, struct pk_unwind_fds *fds);
/* Close what is open; fds become -1. */
void pk_unwind_fds_close(struct pk_unwind_fds *fds);

/* Sum the per-CPU counters into out[PK_CNT__MAX]. 0 or negative errno. */
int pk_counters_read(int counters_fd, __u64 out[PK_CNT__MAX]);

/*
 * The session's events, what pk_sample.event indexes, into OUT (room for
 * PK_MAX_EVENTS) and their number into *N (>= 1). A session without events
 * (INFO->nevents 0: a loader from before them) or without the event_list
 * pin has one, implicit: "cpu-clock", a perf event at INFO->freq_hz in
 * nanoseconds. 0; -EBADMSG when the pinned list is not one a loader
 * writes (then OUT and *N hold what was read, and pk_event_list_check on
 * them says why); other negative errno when it cannot be read.
 */
int pk_event_list_read(const char *pin_dir, const struct pk_session *info,
		       struct pk_event_desc *out, unsigned int *n);

/* Whether EV[0..N) is an event list to trust: 1 to PK_MAX_EVENTS
 * entries, each name a NUL-terminated string of printable characters
 * (it goes into output formats and file names), no name twice, kind and
 * unit known, a frequency where PK_EVF_FREQ says there is one. 0, or
 * -EBADMSG with the first problem in ERR. */
int pk_event_list_check(const struct pk_event_desc *ev, unsigned int n, char err[PK_ERR_LEN]);

/* The per-event counters (event_counts, opened with pk_pin_open) of the
 * first NEVENTS events, summed over CPUs: OUT[e][enum pk_event_counter].
 * 0; -EBADMSG when the map has not the layout bpf/probekit.h gives (too
 * few entries, another value size); other negative errno. */
int pk_event_counts_read(int fd, __u64 out[][PK_ECNT_SLOTS], unsigned int nevents);

/* Number of entries in the targets map (processes still being profiled), or
 * negative errno. 0 is exact; while targets come and go a non-zero count is
 * a snapshot. */
int pk_targets_count(int targets_fd);
/* 1 when the targets map is empty (every target has exited), 0 when not,
 * or negative errno: one syscall, where pk_targets_count walks the map. */
int pk_targets_empty(int targets_fd);

/* "PIN_DIR/NAME" into BUF (PIN_DIR NULL: the default). -ENAMETOOLONG if it
 * does not fit. */
int pk_pin_path(char *buf, size_t len, const char *pin_dir, const char *name);
/* The object pinned as PIN_DIR/NAME: an fd, or negative errno. */
int pk_pin_open(const char *pin_dir, const char *name);

#endif
