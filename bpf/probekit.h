/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The contract between the BPF programs and user space: event layout, loss
 * counters, session settings and the names of pinned objects; the
 * runtimes' walks have their part in bpf/python_records.h,
 * bpf/hotspot_records.h and bpf/v8_records.h, included here.
 *
 * Included by BPF code (after vmlinux.h) and by user space, so it uses only
 * fixed-width kernel types: from vmlinux.h in BPF, <linux/types.h> here.
 *
 * Growth rules, so that old readers keep working on new kernels' events:
 *  - every ring-buffer record starts with struct pk_event_hdr; a reader skips
 *    records whose type it does not know, using hdr.size;
 *  - new fields are appended before the variable-length tail and announced by
 *    a larger hdr.size / tail offset; fields are never moved or reused;
 *  - PK_PIN_LAYOUT_VERSION changes only when the pinned maps change in an
 *    incompatible way.
 */
#ifndef PROBEKIT_H
#define PROBEKIT_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "eh_frame/unwind_table.h"	/* struct pk_unwind_rule, in the unwind maps */

#define PK_TASK_COMM_LEN	16
/* Kernel frames, and user frames with --unwind fp: bpf_get_stack() fills at
 * most this. */
#define PK_MAX_STACK_DEPTH	127
/* User frames of the DWARF walk (--unwind dwarf). */
#define PK_MAX_USTACK_DEPTH	256
/* Python frames of a sample (bpf/python_records.h). */
#define PK_MAX_PY_DEPTH		128

/* Default pin directory; probe-load --pin-dir overrides it. */
#define PK_PIN_DIR_DEFAULT	"/sys/fs/bpf/probekit"
/* Names below the pin directory. */
#define PK_PIN_EVENTS		"events"	/* BPF_MAP_TYPE_RINGBUF */
#define PK_PIN_COUNTERS		"counters"	/* PERCPU_ARRAY [PK_CNT__MAX] of __u64 */
#define PK_PIN_SESSION		"session"	/* ARRAY [1] of struct pk_session */
#define PK_PIN_TARGETS		"targets"	/* HASH tgid -> __u8 pk_target_state */
#define PK_PIN_LINKS_DIR	"links"		/* one pinned link per attachment */
/* Unwind tables (--unwind dwarf), see "Unwind tables in the kernel" below. */
#define PK_PIN_UNWIND_FILES	"unwind_files"	/* HASH pk_file_key -> pk_file_info */
#define PK_PIN_UNWIND_TABLES	"unwind_tables"	/* ARRAY [max_tables] pk_table_info */
#define PK_PIN_UNWIND_ROWS	"unwind_rows"	/* ARRAY_OF_MAPS [max_tables]: a table's
						 * MMAPABLE ARRAY of pk_table_page */
#define PK_PIN_UNWIND_ALLOC	"unwind_alloc"	/* ARRAY [1] struct pk_unwind_alloc */
#define PK_PIN_UNWIND_SEEN	"unwind_seen"	/* LRU_HASH pk_file_key -> __u8: reported */
#define PK_PIN_MISSING		"missing"	/* RINGBUF of struct pk_no_table, with
						 * -- CMD only: probe-load's, not a reader's */
/* What the session samples (probe-load -e), see "Events" below. */
#define PK_PIN_EVENT_LIST	"event_list"	/* ARRAY [PK_MAX_EVENTS] of struct pk_event_desc */
#define PK_PIN_EVENT_COUNTS	"event_counts"	/* PERCPU_ARRAY [PK_MAX_EVENTS * PK_ECNT_SLOTS] of __u64 */
/* Python interpreters (see "Python" below). */
#define PK_PIN_PY_FILES		"py_files"	/* HASH pk_file_key -> struct pk_py_file */
/* HotSpot JVMs (see "HotSpot" below). */
#define PK_PIN_HS_FILES		"hs_files"	/* HASH pk_file_key -> struct pk_hs_file */
/* V8 (Node.js) files (see "V8" below). */
#define PK_PIN_V8_FILES		"v8_files"	/* HASH pk_file_key -> struct pk_v8_file */
/* In-kernel aggregation (probe-load --aggregate), see "Aggregation" below. */
#define PK_PIN_AGG_SLOT		"agg_slot"	/* ARRAY_OF_MAPS [1]: the counts map
						 * samples are counted in now */
#define PK_PIN_AGG_COUNTS0	"agg_counts0"	/* HASH __u64 -> struct pk_agg_value */
#define PK_PIN_AGG_COUNTS1	"agg_counts1"	/* the other one */
/* The roots of the session's processes that run in another root than
 * probe-load's (a chroot, a container), where the host reaches them, or
 * in another pid namespace: made and filled from user space
 * (lib/root_records.h), never by BPF. */
#define PK_PIN_ROOTS		"roots"		/* HASH tgid -> struct pk_root_record */

/* 4: struct pk_session grew reader_gen (a reader of 3 would read past its
 * buffer; one of 4 could not tell readers apart in a session of 3).
 * 5: struct pk_hs_file (hs_files, which a reader's table loader writes)
 * grew the nmethods' scopes, and a compiled Java frame holds its PC, not
 * its Method* (a reader of 4 would name it by the PC). */
#define PK_PIN_LAYOUT_VERSION	5

/* A process's root as a directory of ours (PK_PIN_ROOTS): what a reader
 * after the process exited looks for the root's files in, and what names
 * and owns the perf map its JIT wrote there (/tmp/perf-NSTGID.map). A
 * session from a loader before it has no such map. */
#define PK_ROOT_PATH_MAX	1024
struct pk_root_record {
	char path[PK_ROOT_PATH_MAX];	/* absolute, NUL-terminated; "/": ours */
	__u32 nstgid;			/* its tgid in its own pid namespace */
	__u32 euid;			/* its effective uid */
};

enum pk_event_type {
	PK_EVENT_SAMPLE = 1,	/* struct pk_sample */
	PK_EVENT_NO_TABLE = 2,	/* struct pk_no_table: a file without a table */
	PK_EVENT_MAPPING = 3,	/* struct pk_mapping_event: where a file is mapped */
	PK_EVENT_PY_CODE = 4,	/* struct pk_py_code_event: a Python code object */
	PK_EVENT_HS_METHOD = 5,	/* struct pk_hs_method_event: a Java method */
	PK_EVENT_V8_SFI = 6,	/* struct pk_v8_sfi_event: a JavaScript function */
	PK_EVENT_HS_NMETHOD = 7,/* struct pk_hs_nmethod_event: a compiled Java
				 * method and its inlining scopes */
};

struct pk_event_hdr {
	__u16 type;		/* enum pk_event_type */
	__u16 size;		/* bytes of the whole record, header included */
	__u32 flags;		/* per-type flags */
};

/* pk_sample.hdr.flags */
enum pk_sample_flags {
	PK_SAMPLE_KSTACK_ERR	= 1u << 0, /* kernel stack could not be read */
	PK_SAMPLE_USTACK_ERR	= 1u << 1, /* user stack could not be read */
	PK_SAMPLE_KSTACK_TRUNC	= 1u << 2, /* kernel stack deeper than PK_MAX_STACK_DEPTH */
	PK_SAMPLE_USTACK_TRUNC	= 1u << 3, /* user stack deeper than PK_MAX_STACK_DEPTH */
	PK_SAMPLE_USTACK_DWARF	= 1u << 4, /* user stack from the DWARF walk:
					    * ustack_end and fp_mask are set */
	PK_SAMPLE_USTACK_COPY	= 1u << 5, /* layout 4: the walk stopped in a
					    * file with no table yet (ustack_end
					    * PK_END_NO_TABLE) and a struct
					    * pk_ustack_copy is at copy_off */
	PK_SAMPLE_PY		= 1u << 6, /* layout 5: a Python walk ran; py_len
					    * and py_end are set */
	PK_SAMPLE_AGG_DEF	= 1u << 7, /* layout 6 (--aggregate): the first
					    * sample of its stack in the counts
					    * map now in agg_slot; agg_hash is
					    * set ("Aggregation" below) */
	/* layout 7 has no flag: cgroup_id is in every sample */
};

/* How a DWARF walk of the user stack ended (pk_sample.ustack_end). */
enum pk_ustack_end {
	PK_END_NONE = 0,	/* no walk: --unwind fp, or no user context (kernel thread) */
	PK_END_COMPLETE,	/* an undefined return address (outermost frame), or a
				 * zero one (the end of a JIT's frame chain) */
	PK_END_DEPTH,		/* PK_MAX_USTACK_DEPTH frames and more to go */
	PK_END_NO_TABLE,	/* stopped in a file whose table is not loaded
				 * (yet): no frame-pointer step there, which
				 * would invent frames in code built without
				 * them; the sample may carry the rest of the
				 * stack (PK_SAMPLE_USTACK_COPY) */
	PK_END_UNSUPPORTED,	/* a rule the unwinder cannot evaluate here */
	PK_END_READ_FAULT,	/* user memory could not be read (not resident, bad pointer) */
	PK_END_LOOP,		/* the CFA did not move up the stack */
	PK_END_FP_FALLBACK,	/* stopped in a frame-pointer step (no table: JIT,
				 * anonymous code, a table refused for room) */
	PK_END_NO_CFI,		/* stopped in a frame-pointer step in a file with a
				 * table, at a PC no FDE covers (code built without
				 * CFI: -fno-asynchronous-unwind-tables, V8's
				 * builtins, hand-written assembly) */
	PK_END__MAX,
};

/*
 * One stack sample. The tail holds kstack_len kernel addresses (leaf first)
 * followed by ustack_len user addresses (leaf first), starting at
 * frames_off bytes from the start of the record. The first user address is
 * the interrupted instruction pointer; the others are return addresses.
 */
struct pk_sample {
	struct pk_event_hdr hdr;
	__u64 time_ns;		/* bpf_ktime_get_boot_ns() */
	__u32 pid;		/* tgid */
	__u32 tid;
	__u32 cpu;
	__u16 kstack_len;
	__u16 ustack_len;
	__u16 frames_off;	/* offset of the address tail */
	__u16 __pad[3];
	char comm[PK_TASK_COMM_LEN];
	/* Since layout 2 (frames_off >= 96); with PK_SAMPLE_USTACK_DWARF only: */
	__u8  ustack_end;	/* enum pk_ustack_end */
	__u8  __pad2;
	__u16 fp_frames;	/* user frames without a rule (PK_CNT_FP_FRAMES) */
	__u32 __pad3;
	__u64 fp_mask[PK_MAX_USTACK_DEPTH / 64]; /* bit i: user frame i (0: the
						  * interrupted PC) is the return
						  * address a frame-pointer step found */
	/* Since layout 3 (frames_off >= 112), in every sample: */
	__u64 weight;		/* what the sample stands for, in its event's
				 * unit (pk_event_desc.weight_unit): nanoseconds
				 * blocked (off-cpu), the event's period (perf
				 * events: nanoseconds for cpu-clock), hits (one
				 * in N sampled: N) */
	__u16 event;		/* index into event_list */
	__u16 __pad4[3];
	/* Since layout 4 (frames_off >= 120): */
	__u16 copy_off;		/* with PK_SAMPLE_USTACK_COPY: offset of the
				 * struct pk_ustack_copy after the frames */
	__u16 __pad5[3];
	/* Since layout 5 (frames_off >= 128); with PK_SAMPLE_PY only: */
	__u16 py_len;		/* Python frames after the user frames */
	__u8  py_end;		/* enum pk_py_end */
	__u8  __pad6;
	__u32 __pad7;
	/* Since layout 6 (frames_off >= 136); with PK_SAMPLE_AGG_DEF only: */
	__u64 agg_hash;		/* the key the stack's later samples are
				 * counted under (pk_agg_value) */
	/* Since layout 7 (frames_off >= 144), in every sample: */
	__u64 cgroup_id;	/* the task's cgroup v2 id (the directory's
				 * inode number under the cgroup2 mount;
				 * bpf_get_current_cgroup_id); 0: none (a
				 * cgroup v1 only host) */
	/* __u64 frames[kstack_len + ustack_len + py_len] at frames_off: kernel,
	 * user (native), then Python frames (pk_py_frame), each part leaf first */
	/* struct pk_ustack_copy at copy_off, with PK_SAMPLE_USTACK_COPY */
};

/*
 * What a walk that stopped in a file with no table yet leaves for user
 * space to finish it with, once it has the file's table: the registers of
 * the last user frame (the sample's last user address, regs[PK_DWARF_RIP])
 * and the user stack from its RSP up, as perf's --call-graph dwarf copies
 * it. len bytes of stack follow the struct.
 */
/* bytes of stack copied at most (probe-load --stack-copy: 32 KiB unless
 * told); what a record's 16-bit size leaves beside the deepest stacks */
#define PK_USTACK_COPY_MAX	61440

enum pk_ustack_copy_flags {
	PK_COPY_EXACT_PC	= 1u << 0, /* regs[RIP] is where execution stopped
					    * (the leaf, a signal frame), not a
					    * return address */
	PK_COPY_TRUNC		= 1u << 1, /* the stack went on past the copy */
	PK_COPY_HOLES		= 1u << 2, /* holes is not 0 */
};

struct pk_ustack_copy {
	__u64 regs[17];		/* DWARF numbering, 0..PK_DWARF_RIP (16) */
	__u32 regs_valid;	/* bit r: regs[r] is known (the leaf: all) */
	__u32 flags;		/* enum pk_ustack_copy_flags */
	__u64 start;		/* user address of stack[0]: RSP less the red
				 * zone (PK_USTACK_COPY_BELOW), where an
				 * epilogue leaves registers its CFI may still
				 * say are saved */
	__u32 len;		/* bytes of stack from start after the struct */
	__u32 holes;		/* bit i: the bytes of the copy in the i-th page
				 * from start's (its own: 0) could not be read
				 * (never touched, not resident): zeros */
	__u64 start_stack;	/* the process's initial stack pointer
				 * (mm->start_stack, where the kernel left
				 * argc): the SP of its entry frame */
	/* __u8 stack[len] */
};

/* The x86-64 ABI's red zone: the bytes below RSP a copy starts at. */
#define PK_USTACK_COPY_BELOW	128

#define PK_SAMPLE_MAX_SIZE \
	(sizeof(struct pk_sample) + \
	 (PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH + PK_MAX_PY_DEPTH) * sizeof(__u64))
/* With the stack copy: what a record can hold (hdr.size is 16 bits). */
#define PK_SAMPLE_COPY_MAX_SIZE \
	(PK_SAMPLE_MAX_SIZE + sizeof(struct pk_ustack_copy) + PK_USTACK_COPY_MAX)

/* A file-backed executable mapping whose file has no table: sent once per
 * file (unwind_seen), so that probe-read can build and load its table. The
 * file is /proc/PID/map_files/VM_START-VM_END while the mapping lasts. */
struct pk_no_table {
	struct pk_event_hdr hdr;
	__u64 dev;		/* kernel dev_t of the inode's super block */
	__u64 ino;
	__u64 vm_start;
	__u64 vm_end;
	__u64 vm_pgoff;		/* in pages */
	__u32 pid;		/* tgid */
	__u32 __pad;
};
/*
 * A file-backed executable mapping (or the vDSO) that a sample's user stack
 * went through, sent before the first sample of its process that needs it
 * (--unwind dwarf): what names the frames in it after the process is gone.
 * Sent once per (process, mapping) and reader (pk_session reader_gen)
 * while mappings_seen remembers it.
 *
 * path is the file's path as its dentries name it, up to the root of the
 * mount namespace the file was opened in: what a process in another mount
 * namespace, or a file deleted or renamed since, no longer has at that
 * path. A reader checks it against dev and ino before trusting it.
 */
#define PK_MAPPING_PATH_MAX	256
#define PK_MAPPING_BUILD_ID_MAX	32	/* GNU's SHA-1 is 20 */

enum pk_mapping_flags {
	PK_MAPPING_VDSO		= 1u << 0, /* the vDSO: dev, ino and path unset */
	PK_MAPPING_PATH_TRUNC	= 1u << 1, /* the path was longer: the leading
					    * components are missing */
};

struct pk_mapping_event {
	struct pk_event_hdr hdr;	/* flags: enum pk_mapping_flags */
	__u32 pid;		/* tgid */
	__u32 table;		/* unwind_tables index when the file had a table
				 * at the time; PK_TABLE_NONE otherwise */
	__u64 vm_start;
	__u64 vm_end;
	__u64 vm_pgoff;		/* in pages */
	__u64 dev;		/* kernel dev_t of the inode's super block */
	__u64 ino;
	__u16 path_len;		/* bytes of path before its NUL */
	__u16 __pad[3];
	char path[PK_MAPPING_PATH_MAX];	/* NUL-terminated */
	/* Since hdr.size >= PK_MAPPING_BUILD_ID_END: the file's GNU build-id,
	 * read from its ELF note in the process's memory at report time, so
	 * that the file can be named by any copy of it once it is deleted or
	 * its process gone. 0: not read (the ELF header's page not resident
	 * yet: the report is sent again, a few times, until it is). */
	__u32 build_id_len;
	__u32 __pad2;
	__u8 build_id[PK_MAPPING_BUILD_ID_MAX];
};

/* A mapping event with the build-id fields is at least this big. */
#define PK_MAPPING_BUILD_ID_END	(sizeof(struct pk_mapping_event))

/* Indices into the per-CPU counters map: every sample that is not delivered
 * is counted under exactly one reason, so nothing is lost silently. */
enum pk_counter {
	PK_CNT_SAMPLES = 0,	/* samples written to the ring buffer */
	PK_CNT_RINGBUF_FULL,	/* dropped: ring buffer had no room */
	PK_CNT_KSTACK_ERR,	/* delivered, kernel stack unreadable */
	PK_CNT_USTACK_ERR,	/* delivered, user stack unreadable */
	PK_CNT_FILTERED,	/* not a target (pid/cpu/idle filter) */
	/* Layout 2: how delivered DWARF walks ended, one per sample ... */
	PK_CNT_END_COMPLETE,	/* pk_end_counter(): PK_CNT_END_COMPLETE +
				 * enum pk_ustack_end - 1 up to FP_FALLBACK */
	PK_CNT_END_DEPTH,
	PK_CNT_END_NO_TABLE,
	PK_CNT_END_UNSUPPORTED,
	PK_CNT_END_READ_FAULT,
	PK_CNT_END_LOOP,
	PK_CNT_END_FP_FALLBACK,
	/* ... and frames, samples dropped or not */
	PK_CNT_FP_FRAMES,	/* user frames without a rule (no table, or no FDE
				 * at the PC): unwound by a frame-pointer step
				 * (or stopped there) */
	PK_CNT_NO_TABLE_FRAMES,	/* of those, in a file with no table yet */
	PK_CNT_NO_TABLE_EVENTS,	/* pk_no_table events sent */
	PK_CNT_NO_TABLE_LOST,	/* pk_no_table events the ring buffer had no room for */
	PK_CNT_MAPPING_EVENTS,	/* pk_mapping_event events sent */
	PK_CNT_MAPPING_LOST,	/* pk_mapping_event events the ring buffer had no room for */
	PK_CNT_NESTED,		/* dropped: the CPU was already building a sample
				 * (a program preempted or interrupted by another) */
	PK_CNT_END_NO_CFI,	/* a DWARF walk ended PK_END_NO_CFI */
	/* Walks that ended PK_END_UNSUPPORTED, by what was not supported
	 * (samples dropped or not): */
	PK_CNT_UNSUP_CFA,	/* a CFA rule of no class (an expression, ...) */
	PK_CNT_UNSUP_CFA_REG,	/* a CFA from a register this frame does not know */
	PK_CNT_UNSUP_RA,	/* a return-address rule of no class */
	PK_CNT_UNSUP_RA_REG,	/* an RA in a register this frame does not know */
	PK_CNT_UNSUP_NO_RULE,	/* the unwind maps had no rule where the table said */
	/* Layout 4: samples sent with a copy of the user stack (the ones the
	 * ring buffer had no room for are in PK_CNT_RINGBUF_FULL), their
	 * bytes, and the exec reports. */
	PK_CNT_USTACK_COPIES,
	PK_CNT_USTACK_COPY_BYTES,
	PK_CNT_EXEC_EVENTS,	/* pk_exec_event events sent */
	PK_CNT_EXEC_LOST,	/* pk_exec_event events the ring buffer had no room for */
	/* Layout 5: Python walks, by how they ended (enum pk_py_end, from
	 * PK_PY_END_COMPLETE on: PK_CNT_PY_COMPLETE + end - 1), and code
	 * reports */
	PK_CNT_PY_COMPLETE,
	PK_CNT_PY_DEPTH,
	PK_CNT_PY_NO_THREAD,
	PK_CNT_PY_READ_FAULT,
	PK_CNT_PY_CODE_EVENTS,	/* pk_py_code_event events sent */
	PK_CNT_PY_CODE_LOST,	/* ... the ring buffer had no room for */
	/* Layout 6 (--aggregate): samples counted in the counts map, not
	 * sent (their walks' ends and errors are counted above as the
	 * others'); and samples the map had no room for, sent whole. */
	PK_CNT_AGG_COUNTED,
	PK_CNT_AGG_FULL,
	PK_CNT__MAX,
};

/* The counter of delivered walks that ended with END (not PK_END_NONE):
 * the first endings are counted in a row, later ones where the counters
 * grew. */
static inline __u32 pk_end_counter(__u32 end)
{
	if (end == PK_END_NO_CFI)
		return PK_CNT_END_NO_CFI;
	return PK_CNT_END_COMPLETE + end - PK_END_COMPLETE;
}

/* A target's value in the targets map. */
enum pk_target_state {
	PK_TARGET_LIVE = 1,	/* sampled */
	/* probe-load -- CMD's child until its exec completes: what it runs
	 * until then is probe-load's code, named as the command but not the
	 * command's (perf shows it as "perf-exec"), and with no table of
	 * probe-load's files loaded its stacks would end unnamed. Not sampled;
	 * followed (its code reports are the command's). */
	PK_TARGET_HELD = 2,
};

/* pk_code_report's attach cookies: the hook it was attached to. */
enum pk_code_hook {
	PK_CODE_HOOK_EXEC = 1,	/* sched:sched_process_exec */
	PK_CODE_HOOK_MMAP,	/* syscalls:sys_exit_mmap */
};

enum pk_session_flags {
	PK_SESSION_FILTER_PIDS	= 1u << 0, /* only tgids in the targets map */
	PK_SESSION_SKIP_IDLE	= 1u << 1,
	PK_SESSION_FILTER_CPU	= 1u << 2,
	PK_SESSION_COMMAND	= 1u << 3, /* started with probe-load -- CMD */
	PK_SESSION_DWARF	= 1u << 4, /* --unwind dwarf: unwind maps pinned */
	PK_SESSION_PYTHON	= 1u << 5, /* Python frames walked (not --no-python) */
	PK_SESSION_AGGREGATE	= 1u << 6, /* --aggregate: the agg_ maps pinned */
};

/* What probe-load configured, for probe-read and for humans (bpftool map dump). */
struct pk_session {
	__u32 layout_version;	/* PK_PIN_LAYOUT_VERSION */
	__u32 flags;		/* enum pk_session_flags */
	__u64 start_time_ns;	/* same clock as pk_sample.time_ns */
	__u64 start_realtime_ns;/* wall clock at start_time_ns */
	__u32 freq_hz;
	__s32 cpu;		/* -1: all CPUs */
	__u32 ncpus;		/* perf events opened */
	__u32 ntargets;		/* initial targets (0: all processes) */
	__u32 ringbuf_bytes;
	__u32 nevents;		/* entries of event_list; 0: a loader before
				 * events, whose samples are all cpu-clock */
	/* Bumped by each reader as it starts and as it stops reading
	 * (pk_session_reader_gen_next(), under the session's lock): the
	 * reports sent once per runtime object or mapping
	 * (PK_EVENT_HS_METHOD, PK_EVENT_V8_SFI, PK_EVENT_PY_CODE,
	 * PK_EVENT_MAPPING) are sent once per reader generation, so a
	 * reader after another one is told again what the earlier one was
	 * (bpf/sample.bpf.h pk_report_gen()). */
	__u32 reader_gen;
	__u32 __pad;
};

/*
 * Unwind tables in the kernel (--unwind dwarf). A cache file's table
 * (eh_frame/unwind_table.h) is copied into a BPF_F_MMAPABLE array of its
 * own, made to its size, by memcpy through mmap: no syscall per row. The
 * arrays are the inner maps of unwind_rows (ARRAY_OF_MAPS, indexed by
 * table; BPF_F_INNER_MAP lets their sizes differ), so room grows with what
 * is loaded, up to a limit in kernel bytes (probe-load --table-memory), and
 * a table no live mapping uses is given back whole.
 *
 * A table's array holds 4 KiB pages (union pk_table_page):
 *
 *   __u32 pcs[nrows]          from page 0
 *   __u16 rule_ids[nrows]     from u16 index rule_ids_at (= 2 * nrows)
 *   struct pk_unwind_rule     from page rules_page, PK_RULES_PER_PAGE a page
 *
 * Rule ids are local to the table. unwind_tables[i] describes unwind_rows[i].
 * A freed index may be handed out again: its gen then changes, and the BPF
 * rule cache, keyed by (table, gen), never serves the old table's rules.
 * Tables are added and freed under an flock(2) of the pin directory, so
 * probe-load and probe-read may both do it; unwind_alloc keeps the counts.
 *
 * unwind_files maps a file as the kernel sees it (the inode of a VMA's
 * vm_file) to its table. Every file with the same build-id shares one table.
 */
#define PK_TABLE_PAGE		4096
#define PK_PCS_PER_PAGE		(PK_TABLE_PAGE / 4)
#define PK_RULE_IDS_PER_PAGE	(PK_TABLE_PAGE / 2)
#define PK_RULES_PER_PAGE	(PK_TABLE_PAGE / sizeof(struct pk_unwind_rule))
#define PK_FILE_MAX_SEGS	4	/* executable PT_LOADs per file */
#define PK_TABLE_NONE		0xffffffffu

union pk_table_page {
	__u32 pcs[PK_PCS_PER_PAGE];
	__u16 rule_ids[PK_RULE_IDS_PER_PAGE];
	struct pk_unwind_rule rules[PK_RULES_PER_PAGE];
	__u8 bytes[PK_TABLE_PAGE];
};

struct pk_file_key {
	__u64 dev;		/* kernel dev_t: MAJOR << 20 | MINOR */
	__u64 ino;
};

/* The vDSO has no file: its key. */
#define PK_VDSO_DEV	0ULL
#define PK_VDSO_INO	(~0ULL)

/* ELF vaddr = file offset + bias, for file offsets in [off, end). */
struct pk_file_seg {
	__u64 off;
	__u64 end;
	__s64 bias;		/* p_vaddr - p_offset */
};

enum pk_file_flags {
	PK_FILE_REFUSED = 1u << 0, /* no table (no room, no CFI, unreadable):
				    * frame-pointer steps, not "no table yet" */
	PK_FILE_PYTHON	= 1u << 1, /* a Python interpreter: py_files has it */
	PK_FILE_HOTSPOT	= 1u << 2, /* a HotSpot libjvm: hs_files has it */
	PK_FILE_V8	= 1u << 3, /* a V8 (node, libnode): v8_files has it */
};

struct pk_file_info {
	__u32 table;		/* index into unwind_tables, or PK_TABLE_NONE */
	__u32 flags;		/* enum pk_file_flags */
	__u32 nsegs;
	__u32 __pad;
	struct pk_file_seg segs[PK_FILE_MAX_SEGS];
};

struct pk_table_info {
	__u32 nrows;		/* 0: a free index (no inner map) */
	__u32 nrules;
	__u32 rule_ids_at;	/* u16 index of rule_ids[0] in the table's array */
	__u32 rules_page;	/* page of rules[0] */
	__u64 pc_base;		/* as in pk_unwind_header: ELF vaddrs */
	__u64 pc_end;
	/* for user space: which table this is (the header's build-id, or with
	 * PK_UNWIND_NO_BUILD_ID in flags its content hash) */
	__u32 build_id_len;
	__u32 flags;		/* pk_unwind_header.flags */
	__u8  build_id[64];	/* PK_UNWIND_BUILD_ID_MAX */
	__u32 gen;		/* bumped each time the index is handed out */
	__u32 pages;		/* of its array */
	__u64 bytes;		/* kernel bytes its array costs */
};

/* What is loaded, what it costs and the limits probe-load chose. */
struct pk_unwind_alloc {
	__u32 tables;		/* indices handed out so far (the high mark) */
	__u32 live;		/* tables loaded now */
	__u32 rows, rules;	/* of the tables loaded now */
	__u64 bytes;		/* kernel bytes of the tables loaded now */
	__u64 max_bytes;	/* --table-memory */
	__u32 max_tables;	/* entries of unwind_rows and unwind_tables */
	__u32 max_rows;		/* --table-rows; 0: only max_bytes limits */
	__u32 freed;		/* tables given back so far */
	__u32 epoch;		/* bumped by every give-back: re-read the tables */
	__u64 freed_bytes;	/* kernel bytes given back so far */
};

/* The runtimes' walks: their frames, files and reports. */
#include "bpf/python_records.h"
#include "bpf/hotspot_records.h"
#include "bpf/v8_records.h"

/*
 * Aggregation (probe-load --aggregate). A sample whose stack the counts map
 * in agg_slot already holds is not sent: its count and weight are added
 * to the stack's entry there, keyed by a 64-bit hash of all a sample says
 * but its time, thread, CPU and weight (pid, comm, cgroup, event, flags,
 * the walks' ends, fp_mask, every frame). The first sample of a stack in the
 * map is sent whole, with PK_SAMPLE_AGG_DEF and the key in agg_hash: the
 * definition the counts are read by. A sample that needs its user stack
 * copied (ustack_end PK_END_NO_TABLE) is always sent whole, and so is one
 * the map has no room for (PK_CNT_AGG_FULL).
 *
 * The reader drains by swapping maps: it puts the other counts map in
 * agg_slot (an update of a map of maps waits until no program that may
 * still use the old one runs), reads the ring buffer, where every
 * definition of the old map's keys now is, then reads and empties the old
 * map, which is the other one next time. Each map starts empty, so each
 * swap sends the definitions of the stacks sampled since again: a lost
 * definition costs the counts of one swap, not the session's.
 *
 * What an aggregated sample loses is its time (the reader knows only
 * between which swaps it was taken), its thread and its CPU.
 */
struct pk_agg_value {
	__u64 count;		/* samples */
	__u64 weight;		/* the sum of their weights */
};

/*
 * Events (probe-load -e). Every program that takes a sample knows the index
 * of its event in event_list (a BPF cookie, or a constant per program), and
 * puts it in pk_sample.event; pk_sample.weight is in the event's unit.
 * Readers name samples by their event's name; a session from a loader
 * before events (nevents 0) has one implicit cpu-clock event.
 */
#define PK_MAX_EVENTS		16
#define PK_EVENT_NAME_MAX	256
/* probe-load --cgroup given at most this often. */
#define PK_MAX_CGROUPS		16

enum pk_event_kind {
	PK_EVK_PERF = 1,	/* a perf event: cpu-clock, cycles, instructions,
				 * cache-misses, page-faults, major-faults */
	PK_EVK_OFFCPU,		/* off-cpu: from sched_switch, blocked time */
	PK_EVK_KPROBE,		/* kprobe:FUNC, by fentry or a kprobe;
				 * kretprobe:FUNC (PK_EVF_RETURN), by fexit
				 * or a kretprobe */
	PK_EVK_TRACEPOINT,	/* tracepoint:CATEGORY:NAME */
	PK_EVK_UPROBE,		/* uprobe:PATH:SYMBOL; uretprobe:PATH:SYMBOL
				 * (PK_EVF_RETURN) */
	PK_EVK_USDT,		/* usdt:PATH:PROVIDER:NAME */
};

enum pk_event_unit {
	PK_UNIT_COUNT = 0,	/* weights count occurrences (events, hits) */
	PK_UNIT_NS,		/* weights are nanoseconds (cpu-clock, off-cpu) */
};

enum pk_event_flags {
	PK_EVF_FENTRY	= 1u << 0, /* kprobe:FUNC attached by fentry (else a kprobe),
				    * kretprobe:FUNC by fexit (else a kretprobe) */
	PK_EVF_FREQ	= 1u << 1, /* a perf event sampled at freq_hz (else every
				    * sample_every occurrences) */
	PK_EVF_RETURN	= 1u << 2, /* kretprobe, uretprobe: at the function's return,
				    * with the stack it returns to */
};

struct pk_event_desc {
	char name[PK_EVENT_NAME_MAX];	/* canonical: "cpu-clock", "off-cpu",
					 * "kprobe:vfs_write", "kretprobe:vfs_write",
					 * "tracepoint:block:block_rq_issue",
					 * "uprobe:/abs/path:sym", "uretprobe:...",
					 * "usdt:/abs/path:prov:name" */
	__u32 kind;		/* enum pk_event_kind */
	__u32 unit;		/* enum pk_event_unit of pk_sample.weight */
	__u32 flags;		/* enum pk_event_flags */
	__u32 freq_hz;		/* with PK_EVF_FREQ */
	__u64 sample_every;	/* one occurrence in N is sampled: a perf event's
				 * period, -c N for probes; 1 for off-cpu */
	__u64 min_block_ns;	/* off-cpu: shorter blocks are counted, not sampled */
	__u32 prog_ids[2];	/* the BPF programs that run for it, for their
				 * run time (kernel.bpf_stats_enabled); 0: none.
				 * off-cpu: [0] runs at every context switch */
	__u32 __pad[2];
};

/* Per-event counters: key event * PK_ECNT_SLOTS + enum pk_event_counter. */
#define PK_ECNT_SLOTS		8
enum pk_event_counter {
	PK_ECNT_HITS = 0,	/* times it fired for a target (after -p/-C) */
	PK_ECNT_SAMPLES,	/* samples sent to the ring buffer, or counted
				 * in the counts map (--aggregate) */
	PK_ECNT_SKIPPED,	/* hits not sampled (one in N) */
	PK_ECNT_SHORT,		/* off-cpu: blocks shorter than --min-block */
	PK_ECNT_LOST,		/* samples dropped: no room, or nested */
	PK_ECNT__MAX,
};

#endif /* PROBEKIT_H */
