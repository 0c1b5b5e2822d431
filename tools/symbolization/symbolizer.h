/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Sampled addresses to symbolized locations (struct pk_loc, profile.h), the
 * one symbolizer every output format reads through.
 *
 * User addresses are found in the process's mappings: first the ones the
 * kernel reported at sample time (PK_EVENT_MAPPING: file identity, range,
 * path), which name frames of processes long gone; else /proc/PID/maps,
 * read the first time an address is looked up and again when an address
 * falls outside all of them (after exec or dlopen). A mapped file is read
 * once (symfile.h) and shared by every process mapping it, or any copy of
 * it with the same build-id; each (pid, address) is resolved once.
 *
 * Names (struct pk_frame.name), as returned:
 *   function name, demangled (C++, Rust)
 *   [file+0xADDR]   in a mapped file without a symbol there: ADDR is the
 *                   ELF virtual address (what eu-addr2line -e FILE takes),
 *                   or the file offset when the file could not be read
 *   [vdso+0xADDR], [heap], [stack], [anon:NAME]  special mappings
 *   [anon]          anonymous executable memory (JIT code)
 *   [unknown]       no mapping holds the address (or the process exited
 *                   before its mappings could be read)
 *   name [module]   a kernel module's symbol, a BPF program's ("[bpf]")
 *
 * Python frames (pk_py_frame) are named by the code objects the kernel
 * reported (PK_EVENT_PY_CODE, python_code.h): co_qualname, co_filename
 * and the instruction's line, or [py:0xCODE] while no report named it.
 */
#ifndef PK_SYMBOLIZER_H
#define PK_SYMBOLIZER_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "eh_frame/errmsg.h"
#include "profile/profile.h"
#include "symbolization/hotspot_method.h"
#include "symbolization/hotspot_scopes.h"
#include "symbolization/v8_function.h"
#include "symbolization/python_code.h"

struct pk_symbolizer_opts {
	const char *proc_root;		/* NULL: "/proc" */
	const char *kernel_root;	/* the kernel's files: kallsyms, modules,
					 * sys/kernel/random/boot_id (the
					 * tests' fake); NULL: "/proc" */
	const char *const *debug_dirs;	/* .build-id trees; NULL: /usr/lib/debug */
	size_t ndebug_dirs;
	bool no_dwarf;			/* function names only: no inline frames,
					 * no source lines, no DWARF read */
	const char *cache_dir;		/* the cache root (eh_cache_root) where
					 * what is resolved is kept for the next
					 * reader (loc_cache.h, kernel_syms.h);
					 * NULL: nowhere */
	int roots_fd;			/* the session's roots (PK_PIN_ROOTS,
					 * lib/root_records.h): kept while a
					 * process lives, looked in once it is
					 * gone; <= 0: none */
};

struct pk_symbolizer_stats {
	__u64 maps_reads;	/* /proc/PID/maps reads */
	__u64 modules;		/* files whose symbols were loaded */
	__u64 lookups;		/* addresses resolved (cache misses) */
	__u64 cached;		/* of those, answered by what an earlier
				 * reader saved (loc_cache.h, kernel_syms.h) */
	__u64 kernel_mappings;	/* mappings the kernel reported */
	__u64 procs_forgotten;	/* processes gone and forgotten */
	__u64 files_freed;	/* files no process kept names (pk_symfiles_sweep) */
	__u64 py_codes;		/* Python code objects known (latest of each) */
	__u64 go_refused;	/* Go binaries whose .gopclntab was not read */
	char go_err[PK_ERR_LEN];	/* the last one's reason: one line */
};

/* A mapping the kernel reported at sample time (PK_EVENT_MAPPING). */
struct pk_kernel_mapping {
	__u32 pid;
	bool vdso;		/* the vDSO: dev, ino, path unused */
	__u64 start, end;	/* [start, end) */
	__u64 pgoff;		/* file offset of start, in bytes */
	__u64 dev, ino;		/* the inode, dev as glibc's dev_t (makedev) */
	const char *path;	/* the path the kernel gave (checked against
				 * dev and ino before use); may be NULL */
	const __u8 *build_id;	/* when known (its unwind table's); may be NULL */
	size_t build_id_len;
};

struct pk_symbolizer;

/* NULL with errno set on failure. */
struct pk_symbolizer *pk_symbolizer_new(const struct pk_symbolizer_opts *opts);
void pk_symbolizer_free(struct pk_symbolizer *sym);

/* Read PID's mappings now if they were never read (call when a process is
 * first seen, while it lives). 0, or -errno when they could not be read. */
int pk_symbolizer_add_pid(struct pk_symbolizer *sym, __u32 pid);

/* PID's mappings changed (a file mapped where another was, after dlclose):
 * read them again now and forget the names resolved so far, which may be
 * the old file's. 0, or -errno when they could not be read. */
int pk_symbolizer_maps_changed(struct pk_symbolizer *sym, __u32 pid);

/* Record M. 1 when it took the place of another file's mapping in its
 * process (the locations resolved so far were forgotten, as by
 * pk_symbolizer_maps_changed), 0 otherwise, or -ENOMEM. */
int pk_symbolizer_add_mapping(struct pk_symbolizer *sym, const struct pk_kernel_mapping *m);

/* The location of user address ADDR in PID. RET: ADDR is a return
 * address, looked up minus one so that a call ending its function is
 * charged to that function. NULL only when out of memory. */
const struct pk_loc *pk_symbolizer_user_loc(struct pk_symbolizer *sym, __u32 pid,
					    __u64 addr, bool ret);
/* The same for a kernel address ("[unknown]" when kallsyms has nothing). */
const struct pk_loc *pk_symbolizer_kernel_loc(struct pk_symbolizer *sym, __u64 addr, bool ret);

/* Record the code object D names (the latest report of a (pid, code)
 * wins). 1 when it took the place of another in its process (the
 * locations of it resolved so far are not handed out again), 0 otherwise,
 * or -ENOMEM. */
int pk_symbolizer_add_py_code(struct pk_symbolizer *sym, const struct pk_py_code_desc *d);

/* The location of Python frame FRAME (pk_py_frame) of PID: one per (code,
 * line). NULL only when out of memory. */
const struct pk_loc *pk_symbolizer_py_loc(struct pk_symbolizer *sym, __u32 pid, __u64 frame);

/* Record the method D names (the latest report of a (pid, Method*) wins).
 * 1 when it took the place of another name (stacks symbolized with the
 * old one are symbolized anew), 0 otherwise, or -ENOMEM. */
int pk_symbolizer_add_hs_method(struct pk_symbolizer *sym, const struct pk_hs_method_desc *d);

/* Record the compiled method D reports (the latest report of a (pid,
 * compile id, code) wins), as pk_symbolizer_add_hs_method(). */
int pk_symbolizer_add_hs_nmethod(struct pk_symbolizer *sym, const struct pk_hs_nmethod_desc *d);

/* The location of Java frame FRAME (pk_hs_frame) of PID: its method,
 * "package.Class.method", or "[java:0xMETHOD]" while no report names it;
 * a compiled frame's the methods inlined at its PC, innermost first, as
 * its nmethod's report says (symbolization/hotspot_scopes.h), or its
 * nmethod's method alone, or "[java:0xPC]" while no report names it.
 * NULL only when out of memory. */
const struct pk_loc *pk_symbolizer_hs_loc(struct pk_symbolizer *sym, __u32 pid, __u64 frame);

/* Record the function D names (the latest report of a (pid, SFI) wins),
 * as pk_symbolizer_add_hs_method(). */
int pk_symbolizer_add_v8_sfi(struct pk_symbolizer *sym, const struct pk_v8_sfi_desc *d);

/* The location of JavaScript frame FRAME (pk_v8_frame) of PID: its
 * function, "name" ("(anonymous)" for a function without one) in its
 * script's file, or "[js:0xSFI]" while no report names it. NULL only
 * when out of memory. */
const struct pk_loc *pk_symbolizer_v8_loc(struct pk_symbolizer *sym, __u32 pid, __u64 frame);

/* The name of ADDR as it is (no minus one): the function that holds it
 * (the outermost of its inline frames). NULL only when out of memory. */
const char *pk_symbolizer_user(struct pk_symbolizer *sym, __u32 pid, __u64 addr);
const char *pk_symbolizer_kernel(struct pk_symbolizer *sym, __u64 addr);

/*
 * Ids. A location's and a mapping's id is dense from 0 within a numbering:
 * pk_symbolizer_renumber starts one, and every location handed out from
 * then on (or passed to pk_symbolizer_number) is given an id of it, its
 * mapping too, if it has none of it yet. A reader that writes one profile
 * after another numbers the locations of each anew, so that ids (which the
 * formats index arrays by) stay below what one profile holds, however long
 * it runs. Locations from an earlier numbering keep ids that may now be
 * another's: use only the ones numbered in this one.
 */
void pk_symbolizer_renumber(struct pk_symbolizer *sym);
const struct pk_loc *pk_symbolizer_number(struct pk_symbolizer *sym, const struct pk_loc *loc);

/*
 * Forget every process IN_USE says is in no use (no location of it will be
 * read again) and whose /proc entry is gone: its mappings, locations and
 * names are freed, so that a reader's memory follows the processes that
 * live, not all that ever ran. A later sample of the pid reads it anew.
 * Then the files no kept process names are let go of (pk_symfiles_sweep:
 * after a second call that finds them unnamed too). Returns how many
 * processes were forgotten.
 */
size_t pk_symbolizer_forget_gone(struct pk_symbolizer *sym,
				 bool (*in_use)(void *ctx, __u32 pid), void *ctx);

/* How many locations, mappings and modules exist so far: the ids below. */
void pk_symbolizer_counts(const struct pk_symbolizer *sym, size_t *nlocs, size_t *nmaps,
			  size_t *nmodules);

void pk_symbolizer_stats(const struct pk_symbolizer *sym, struct pk_symbolizer_stats *st);

#endif
