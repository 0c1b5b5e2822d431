/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The symbolizer's own data, shared by its files: symbolizer.c
 * (processes and their maps, numbering, forgetting), symbolizer_user.c
 * (files and native locations), symbolizer_python.c (Python's code
 * objects) and symbolizer_kernel.c (the kernel's and its modules'
 * symbols). Nothing outside tools/symbolization/symbolizer*.c includes it.
 */
#ifndef PK_SYMBOLIZER_INTERNAL_H
#define PK_SYMBOLIZER_INTERNAL_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/proc_maps.h"
#include "lib/util/strpool.h"
#include "lib/util/u64map.h"
#include "symbolization/symbolizer.h"
#include "symbolization/symfile.h"

/* What a frame no symbol names is called. */
#define PK_SYM_UNKNOWN	"[unknown]"

/* A mapping the kernel reported. */
struct pk_sym_kmap {
	__u64 start, end, pgoff, dev, ino;
	bool vdso;
	const char *path;		/* pooled; may be NULL */
	__u8 build_id[PK_BUILD_ID_MAX];
	size_t build_id_len;
	struct pk_symfile *file;	/* NULL: not looked up yet */
	struct pk_map *map;		/* NULL: not made yet */
};

struct pk_sym_proc {
	__u32 pid;
	bool gone;		/* maps can no longer be read */
	bool read_once;
	bool root_seen;		/* its root looked at (pk_proc_roots_see) */
	const char *root;	/* pooled: its root as the session kept it
				 * (lib/root_records.h); NULL: none */
	__u32 nstgid, euid;	/* kept with the root: its perf map's
				 * (nstgid 0: none kept) */
	bool jit_kept_tried;	/* the perf map looked for in the kept root */
	__u64 last_read_ns;
	struct pk_maps maps;
	struct pk_symfile **files;	/* per /proc mapping, on first use */
	struct pk_map **pmaps;		/* per /proc mapping, on first use */
	struct pk_sym_kmap *kmaps;	/* sorted by start, non-overlapping */
	size_t nk, capk;
	struct pk_perf_map *jit;	/* /tmp/perf-PID.map; NULL: none (yet) */
	__u64 jit_read_ns;		/* last load or refresh; 0: never */
	struct pk_u64map locs;	/* addr << 1 | ret -> struct pk_loc */
	/* Python frames: code entry's serial << 16 | instruction + 1, and
	 * serial << 32 | line, -> struct pk_loc; code -> the location of a
	 * code no report named yet */
	struct pk_u64map py_instrs, py_lines, py_unknown;
	/* Java frames: Method* -> struct pk_hs_method (symbolizer_hotspot.c),
	 * named or "[java:0x...]"; its serial << 32 | line -> struct pk_loc */
	struct pk_u64map hs_methods, hs_lines;
	/* compiled Java frames: compile id's low bits -> struct pk_hs_nm
	 * (its nmethods, the latest first); pk_hs_frame() -> its location
	 * with the serial it was made at */
	struct pk_u64map hs_nmethods, hs_compiled;
	__u32 hs_serial;	/* the last given (a method's or nmethod's report) */
	/* JavaScript frames: SFI -> struct pk_loc (named, or "[js:0x...]") */
	struct pk_u64map v8_sfis;
	/* every file its locations name, held while it is kept: its maps may
	 * be read anew, its locations stay (forget_gone) */
	struct pk_u64map used;	/* file address -> struct pk_symfile */
	/* its locations, mappings and names: freed with it (forget_gone) */
	struct pk_strpool pool;
};

struct pk_symbolizer {
	char proc_root[256];
	bool no_dwarf;
	struct pk_u64map procs;		/* pid -> struct pk_sym_proc */
	struct pk_symfiles *files;
	struct pk_u64map klocs;		/* kernel addr << 1 | ret -> struct pk_loc */
	struct pk_kernel_syms *ksyms;
	struct pk_u64map kmaps;		/* hash(module name) -> struct pk_map */
	struct pk_strpool pool;		/* the kernel's names, locations, maps */
	struct pk_symfile *vdso;	/* our own vDSO's image; NULL: not tried */
	struct pk_py_codes *py;		/* Python code objects, per process */
	struct pk_proc_roots *roots;	/* the processes' roots' debug files */
	int roots_fd;			/* the session's roots map; <= 0: none */
	int vdso_fd;
	size_t nlocs, nmaps;
	__u32 round;			/* of numbering: pk_symbolizer_renumber */
	struct pk_symbolizer_stats stats;
};

/* A location and a mapping with the numbering round their id is of: an id
 * from an earlier round may be another's now, and is given anew. */
struct pk_sym_loc_rec {
	struct pk_loc pub;
	__u32 round;
};

struct pk_sym_map_rec {
	struct pk_map pub;
	__u32 round;
};

/* A mapping of PGOFF in [START, END) of MODULE, pooled in POOL. */
struct pk_map *pk_symbolizer_map_new(struct pk_symbolizer *sym, struct pk_strpool *pool,
				     __u64 start, __u64 end, __u64 pgoff,
				     const struct pk_module *module);

/* A location of NFRAMES frames (to fill), pooled in POOL. */
struct pk_loc *pk_symbolizer_loc_new(struct pk_symbolizer *sym, struct pk_strpool *pool,
				     __u64 addr, bool kernel, size_t nframes);

/* A location of one frame named NAME (pooled or static). */
struct pk_loc *pk_symbolizer_named_loc(struct pk_symbolizer *sym, struct pk_strpool *pool,
				       __u64 addr, bool kernel, const char *name);

/* PID's entry, made on first use; NULL when out of memory. */
struct pk_sym_proc *pk_symbolizer_proc_get(struct pk_symbolizer *sym, __u32 pid);

/* P's /proc/PID/maps read (again): 0, or a negative errno, when what was
 * read before is kept (P is gone on ENOENT or ESRCH). */
int pk_symbolizer_read_maps(struct pk_symbolizer *sym, struct pk_sym_proc *p);

/* The kernel-reported mapping of P holding ADDR, by binary search; NULL:
 * none. */
struct pk_sym_kmap *pk_symbolizer_kmap_find(struct pk_sym_proc *p, __u64 addr);

#endif
