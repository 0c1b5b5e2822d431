/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * HotSpot JVMs (OpenJDK's libjvm.so) and the description they give of
 * themselves: whether a file is a HotSpot (the gHotSpotVM* symbols its
 * .dynsym exports for the serviceability agent), and the reader of those
 * tables from a live process's memory (tools/lib/hotspot.c), which keeps
 * the struct offsets, type sizes, static addresses and constants a walk of
 * Java frames needs (struct pk_hotspot_vm).
 *
 * The tables: gHotSpotVMStructs (type name, field name, type string,
 * whether static, offset for a member, address for a static), gHotSpotVMTypes
 * (type name, superclass name, flags, size), gHotSpotVMIntConstants and
 * gHotSpotVMLongConstants (name, value). Each exported symbol is a pointer to
 * its array, which ends with an entry whose name is NULL; the layout of one
 * entry (its stride, the offset of each member) is given by other exported
 * symbols (gHotSpotVMStructEntryTypeNameOffset, ...), so nothing of the
 * entries' layout is written here. The arrays hold pointers (the names), so
 * they are read from the process, where the loader relocated them, not from
 * the file. A process controls every byte read: counts, lengths and strings
 * are bounded (PK_HS_MAX_*), and a table that does not end within them is
 * refused.
 *
 * What comes next (issue 33), and what it takes from here:
 * - whoever loads libjvm.so's unwind table (probe-load, probe-read's table
 *   loader) reads these tables once per process and hands BPF a value per
 *   process, as Python's py_files value, with the offsets below;
 * - the BPF walk, at a PC that is in none of the files with a table, looks
 *   it up in the code cache: CodeCache::_low_bound/_high_bound say whether
 *   the PC is in it; the heap holding it (CodeCache::_heaps, a GrowableArray:
 *   _len, _data; each CodeHeap's _memory VirtualSpace bounds) gives its
 *   segment map (_segmap's _low, _log2_segment_size): from the PC's segment
 *   ((PC - _memory's _low) >> _log2_segment_size), the map's bytes are
 *   followed back (each a step, in segments, toward its block's start,
 *   which holds 0; 0xff: a free segment) to the HeapBlock holding the
 *   CodeBlob, which follows the block's header (sizeof(HeapBlock)); the
 *   steps are bounded, as the map is the process's;
 * - a compiled frame (an nmethod, or a stub) is unwound by the blob's own
 *   numbers: _frame_size (words, the return address at its top), the PC
 *   against the code begin and _frame_complete_offset telling a prologue
 *   (where the frame is not built yet) from the body; its Method
 *   (nmethod _method) and _compile_id are reported, the compile id so that
 *   a method freed or recompiled since is never named by another's name;
 *   inlined methods come from the scopes (_scopes_pcs_offset, PcDesc,
 *   _scopes_data), which BPF sends with the nmethod (bpf/hotspot_nmethod.bpf.h)
 *   and the reader decodes (symbolization/hotspot_scopes.h);
 * - an interpreted frame (a PC in the interpreter's codelet blob) keeps the
 *   frame pointer: the Method* and the bytecode pointer are slots below it
 *   (frame::interpreter_frame_*), the sender's sp at
 *   frame::interpreter_frame_sender_sp_offset. The tables describe only
 *   the sender sp and last sp slots: the method and bcp slots are the
 *   frame_x86.hpp layout, counted from the last sp slot, to be checked
 *   against each JDK tested (17, 21, 25) rather than read;
 * - names are reported as Python's code objects are: Method -> _constMethod
 *   -> _constants (ConstantPool) -> _pool_holder (the Klass) -> _name, and
 *   the method's name and signature from the pool's entries at
 *   _name_index and _signature_index (Symbols: _length, _body), read while
 *   the JVM lives; the line from the line number table that follows the
 *   bytecodes (ConstMethod _code_size bytes past sizeof(ConstMethod)) when
 *   its flag says it has one.
 */
#ifndef PK_HOTSPOT_H
#define PK_HOTSPOT_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

#include "bpf/probekit.h"

#include "eh_frame/errmsg.h"
#include "lib/util/strpool.h"

/* Bounds on what a process may make the reader read. Debian's OpenJDK 17
 * has 788 struct entries, 768 types, 484 constants; 21 and 25 as many or
 * fewer (tests/integration/test_hotspot_e2e.c). */
#define PK_HS_MAX_ENTRIES	16384	/* per table */
#define PK_HS_MAX_STRIDE	256	/* bytes of one entry */
#define PK_HS_MAX_NAME		256	/* bytes of a name, its NUL included */

/* The exported symbols the reader needs, in libjvm.so's .dynsym. */
enum pk_hotspot_sym {
	PK_HS_STRUCTS,			/* gHotSpotVMStructs: a pointer to the array */
	PK_HS_STRUCT_STRIDE,
	PK_HS_STRUCT_TYPE_NAME,		/* gHotSpotVMStructEntryTypeNameOffset */
	PK_HS_STRUCT_FIELD_NAME,
	PK_HS_STRUCT_TYPE_STRING,
	PK_HS_STRUCT_IS_STATIC,
	PK_HS_STRUCT_OFFSET,
	PK_HS_STRUCT_ADDRESS,
	PK_HS_TYPES,
	PK_HS_TYPE_STRIDE,
	PK_HS_TYPE_TYPE_NAME,
	PK_HS_TYPE_SIZE,
	PK_HS_INTS,
	PK_HS_INT_STRIDE,
	PK_HS_INT_NAME,
	PK_HS_INT_VALUE,
	PK_HS_LONGS,
	PK_HS_LONG_STRIDE,
	PK_HS_LONG_NAME,
	PK_HS_LONG_VALUE,
	PK_HS_NSYMS
};

/* What pk_hotspot_elf() found: the value (a vaddr of the file) of each
 * symbol whose bit is set in FOUND. */
struct pk_hotspot_syms {
	__u64 addr[PK_HS_NSYMS];
	__u32 found;
};

/* The symbol's name ("gHotSpotVMStructs"). */
const char *pk_hotspot_sym_name(enum pk_hotspot_sym sym);

/*
 * Whether ELF is a HotSpot libjvm: gHotSpotVMStructs in its .dynsym. 0:
 * *OUT holds every symbol of enum pk_hotspot_sym; -ENOENT: not a HotSpot
 * (or not a 64-bit ELF); -ENOTSUP: a HotSpot missing one of them (*OUT
 * says which are found: the caller names the first missing).
 */
int pk_hotspot_elf(Elf *elf, struct pk_hotspot_syms *out);

/* pk_hotspot_elf() of the file at PATH; other negative errno: open. */
int pk_hotspot_file(const char *path, struct pk_hotspot_syms *out);

/*
 * The process's memory: up to LEN bytes at ADDR into BUF. The number read
 * (short when the range crosses into unmapped memory), or negative errno.
 */
typedef long (*pk_hotspot_read_fn)(void *ctx, __u64 addr, void *buf, size_t len);

/* A pk_hotspot_read_fn over process_vm_readv(2); CTX points to a pid_t. */
long pk_hotspot_read_pid(void *ctx, __u64 addr, void *buf, size_t len);

/* One entry of the tables, as read. */
struct pk_hotspot_entry {
	const char *type;	/* the struct's or type's name; a constant's */
	const char *field;	/* a struct entry's member; NULL otherwise */
	const char *type_string;	/* a struct entry's member's C type */
	__u64 value;		/* member offset, static address, type size,
				 * constant value */
	bool is_static;		/* a struct entry's static: VALUE an address */
};

/* The four tables of one process. */
struct pk_hotspot_tables {
	struct pk_hotspot_entry *structs, *types, *ints, *longs;
	size_t n_structs, n_types, n_ints, n_longs;
	struct pk_strpool names;	/* where the names live */
	unsigned long reads;		/* calls of the read function it took */
};

/*
 * Read the four tables of the process MEM reads, whose libjvm is loaded
 * with BIAS (its load address minus the file's vaddrs) and has the symbols
 * SYMS. 0: *OUT filled (pk_hotspot_tables_free() it); -ENOMEM; -EIO: a read
 * failed; -EBADMSG: a table that does not hold (a stride or member offset
 * out of bounds, a table past PK_HS_MAX_ENTRIES, a name not ended within
 * PK_HS_MAX_NAME). ERR says which table and why.
 */
int pk_hotspot_tables_read(const struct pk_hotspot_syms *syms, __u64 bias,
			   pk_hotspot_read_fn read, void *ctx, struct pk_hotspot_tables *out,
			   char err[PK_ERR_LEN]);

/*
 * pk_hotspot_tables_read() once the JVM has filled its tables: a libjvm
 * just mapped (the launcher's dlopen(), which probe-load -- java reports
 * at once) has not run its initializers yet, and its table pointers and
 * strides read 0 for some milliseconds (-EBADMSG). Read again every
 * PK_HS_SETTLE_STEP_MS while the answer is -EBADMSG, for WAIT_MS at most;
 * any other answer is returned at once.
 */
#define PK_HS_SETTLE_STEP_MS	10
int pk_hotspot_tables_read_settled(const struct pk_hotspot_syms *syms, __u64 bias,
				   pk_hotspot_read_fn read, void *ctx, unsigned int wait_ms,
				   struct pk_hotspot_tables *out, char err[PK_ERR_LEN]);

void pk_hotspot_tables_free(struct pk_hotspot_tables *t);

/* Lookups in the tables: 0 and *VALUE, or -ENOENT. */
int pk_hotspot_field(const struct pk_hotspot_tables *t, const char *type, const char *field,
		     __u64 *value);
int pk_hotspot_type_size(const struct pk_hotspot_tables *t, const char *type, __u64 *value);
int pk_hotspot_int(const struct pk_hotspot_tables *t, const char *name, __u64 *value);
int pk_hotspot_long(const struct pk_hotspot_tables *t, const char *name, __u64 *value);

/*
 * What the Java walk and the symbolizer read a JVM with (issue 33). Member
 * offsets and sizes in bytes, static addresses as the process sees them.
 * Each has an entry in pk_hotspot_wants (hotspot_vm.c) that names it and
 * the names it is found under in the tables, per JDK.
 */
struct pk_hotspot_vm {
	/* statics */
	__u64 codecache_heaps;		/* CodeCache::_heaps (GrowableArray<CodeHeap*>*) */
	__u64 codecache_low_bound;	/* CodeCache::_low_bound (address) */
	__u64 codecache_high_bound;
	__u64 interp_code;		/* AbstractInterpreter::_code (StubQueue*) */
	/* StubQueue: the interpreter's codelets, [_stub_buffer, + _buffer_limit) */
	__u64 stubqueue_stub_buffer, stubqueue_buffer_limit;
	/* GrowableArray: its length and element array */
	__u64 garray_len, garray_data;
	/* CodeHeap and its VirtualSpaces */
	__u64 codeheap_size, codeheap_memory, codeheap_segmap, codeheap_log2_segment_size;
	__u64 vspace_low_boundary, vspace_high_boundary, vspace_low, vspace_high;
	__u64 heapblock_size;
	/* CodeBlob: the code bounds are pointers (JDK 17, 21) or offsets from
	 * the blob (JDK 25): code_is_offset says which */
	__u64 codeblob_size, codeblob_name, codeblob_blob_size;
	__u64 codeblob_frame_complete_offset, codeblob_frame_size;
	__u64 codeblob_code_begin, codeblob_code_end;
	bool code_is_offset;
	/* nmethod (some of them CompiledMethod's in JDK 17 and 21) */
	__u64 nmethod_size, nmethod_method, nmethod_compile_id, nmethod_entry_bci;
	__u64 nmethod_orig_pc_offset, nmethod_deopt_handler, nmethod_scopes_pcs_offset;
	__u64 nmethod_scopes_data, nmethod_metadata_offset, nmethod_dependencies_offset;
	/* JDK 25: nmethod's data out of the blob */
	__u64 nmethod_immutable_data, nmethod_immutable_data_size;
	__u64 codeblob_mutable_data, codeblob_mutable_data_size, codeblob_relocation_size;
	/* Method, ConstMethod, ConstantPool, Klass, Symbol */
	__u64 method_size, method_const_method, method_code;
	__u64 constmethod_size, constmethod_constants, constmethod_code_size;
	__u64 constmethod_flags, constmethod_name_index, constmethod_signature_index;
	__u64 constmethod_method_idnum;
	__u64 cpool_size, cpool_pool_holder, cpool_source_file_name_index;
	__u64 klass_name;
	__u64 symbol_size, symbol_length, symbol_body;
	/* PcDesc, for the scopes of inlined methods */
	__u64 pcdesc_size, pcdesc_pc_offset, pcdesc_scope_decode_offset;
	/* frame:: constants (words from the frame pointer), described ones */
	__s64 frame_interp_sender_sp, frame_interp_last_sp, frame_entry_call_wrapper;
	__u64 oop_size;
	__u64 has_linenumber_table;	/* ConstMethod's flag bit */

	/* Per entry of pk_hotspot_wants: 0 not found, else which of its
	 * names matched (1: the first); for a member, the size of its C type
	 * where the types table gives it (0: not given), as the walk reads
	 * it with that width (a u2 in one JDK, an int in another). */
	__u8 found[80];
	__u8 width[80];
};

/* What one member of struct pk_hotspot_vm is read from. */
enum pk_hotspot_kind { PK_HS_FIELD, PK_HS_STATIC, PK_HS_SIZE, PK_HS_INT_CONST };

struct pk_hotspot_want {
	enum pk_hotspot_kind kind;
	const char *types;	/* the type's names, '|' between them */
	const char *fields;	/* the member's names (a constant's, a size's: NULL) */
	size_t at;		/* offsetof() in struct pk_hotspot_vm */
	bool required;		/* the walk cannot do without it */
};

extern const struct pk_hotspot_want pk_hotspot_wants[];
extern const size_t pk_hotspot_n_wants;

/*
 * Fill *OUT from T. 0: every required member found; -ENOTSUP: one is
 * missing (ERR names the first). Either way OUT->found says which members
 * are set; pk_hotspot_missing() names those that are not.
 */
int pk_hotspot_vm_extract(const struct pk_hotspot_tables *t, struct pk_hotspot_vm *out,
			  char err[PK_ERR_LEN]);

/* "Type.field" names of the members of VM not found, ", " between them,
 * into BUF (truncated to LEN); their count. */
size_t pk_hotspot_missing(const struct pk_hotspot_vm *vm, char *buf, size_t len);

/* The load bias of ELF mapped at MAP_START from file offset MAP_OFFSET (a
 * line of /proc/PID/maps): what its vaddrs are moved by. 0 and *BIAS, or
 * -ENOENT: no PT_LOAD holds that offset. */
int pk_hotspot_bias(Elf *elf, __u64 map_start, __u64 map_offset, __u64 *bias);

/*
 * The hs_files value (bpf/hotspot_records.h) of VM, a JVM whose libjvm
 * is loaded with BIAS: its statics as the file's vaddrs. 0; -ERANGE: an
 * offset past what the value holds; -ENOTSUP: an interpreter frame that is
 * not the x86_64 one the walk knows. ERR says which.
 */
int pk_hotspot_hs_file(const struct pk_hotspot_vm *vm, __u64 bias, struct pk_hs_file *out,
		       char err[PK_ERR_LEN]);

/*
 * The hs_files value of the libjvm at PATH (a way to the file), mapped by
 * process PID at VM_START (one of its mappings): its tables read from PID,
 * once it filled them (pk_hotspot_tables_read_settled(): a JVM that just
 * mapped its libjvm is waited for, 2 s at most). 0; -ENOENT: not a HotSpot (or not an ELF); -ENOTSUP: a HotSpot whose
 * tables lack what the walk needs, or no PID (0) to read them from; other
 * negative errno (open, the process gone, a read). ERR says why but for
 * -ENOENT.
 */
int pk_hotspot_process(const char *path, pid_t pid, __u64 vm_start, struct pk_hs_file *out,
		       char err[PK_ERR_LEN]);

#endif
