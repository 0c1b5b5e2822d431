// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A JVM's hs_files value (bpf/hotspot_records.h): its vmStructs tables
 * read from a process that maps its libjvm (tools/lib/hotspot.c), reduced
 * to what the BPF walk and the reader need, and the frame slots HotSpot
 * does not describe.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "eh_frame/elf_file.h"
#include "lib/hotspot.h"
#include "lib/proc_maps.h"

/*
 * An interpreted frame on x86_64 (frame_x86.hpp of JDK 17, 21 and 25), in
 * words from its frame pointer, below the saved frame pointer (0) and the
 * return address (1):
 *   -1 sender sp      (frame::interpreter_frame_sender_sp_offset, described)
 *   -2 last sp        (frame::interpreter_frame_last_sp_offset, described)
 *   -3 Method*        (interpreter_frame_method_offset)
 *   -4 mirror, -5 mdp, -6 cache, -7 locals
 *   -8 bcp            (interpreter_frame_bcp_offset)
 * Only the first two are in the tables; the others are counted from the
 * last sp slot, as frame_x86.hpp counts them.
 */
#define PK_HS_INTERP_METHOD_FROM_LAST_SP	(-1)
#define PK_HS_INTERP_BCP_FROM_LAST_SP		(-6)

/* The index in pk_hotspot_wants of the member at offset AT of struct
 * pk_hotspot_vm. */
static size_t want_index(size_t at)
{
	size_t i = 0;

	while (i < pk_hotspot_n_wants && pk_hotspot_wants[i].at != at)
		i++;
	return i;
}

/* The width VM's types give the member at offset AT of struct
 * pk_hotspot_vm (0: not given). */
static __u8 want_width(const struct pk_hotspot_vm *vm, size_t at)
{
	size_t i = want_index(at);

	return i < pk_hotspot_n_wants ? vm->width[i] : 0;
}

/* Which of its names VM's member at offset AT was found under (1: the
 * first; 0: not found). */
static __u8 want_found(const struct pk_hotspot_vm *vm, size_t at)
{
	size_t i = want_index(at);

	return i < pk_hotspot_n_wants ? vm->found[i] : 0;
}

/* V into a u16 offset of OUT, or false when it does not fit (PK_HS_NONE
 * is kept for "none"). */
static bool off16(__u64 v, __u16 *out)
{
	if (v >= PK_HS_NONE)
		return false;
	*out = (__u16)v;
	return true;
}

/* What the reader needs for line numbers into OUT: ConstMethod's flags
 * and their line table bit, the pool's source file index (PK_HS_NONE
 * where VM does not describe them). The line tables' int coding is not
 * described: it lost its zero byte (UNSIGNED5) in JDK 21, with the flags
 * that became ConstMethodFlags, the line table bit's second name. */
static void hs_file_lines(const struct pk_hotspot_vm *vm, struct pk_hs_file *out)
{
	__u8 width = want_width(vm, offsetof(struct pk_hotspot_vm, constmethod_flags));
	__u8 bit = want_found(vm, offsetof(struct pk_hotspot_vm, has_linenumber_table));

	out->constmethod_flags = out->cpool_source_file_name_index = PK_HS_NONE;
	if (want_found(vm, offsetof(struct pk_hotspot_vm, constmethod_flags)) && bit &&
	    (width == 2 || width == 4) && vm->has_linenumber_table &&
	    vm->has_linenumber_table <= 0xffffffffu &&
	    off16(vm->constmethod_flags, &out->constmethod_flags)) {
		out->constmethod_flags_width = width;
		out->linetable_flag = vm->has_linenumber_table;
		out->flags |= bit == 2 ? PK_HS_LINES_U5 : 0;
	}
	if (!want_found(vm, offsetof(struct pk_hotspot_vm, cpool_source_file_name_index)) ||
	    !off16(vm->cpool_source_file_name_index, &out->cpool_source_file_name_index))
		out->cpool_source_file_name_index = PK_HS_NONE;
}

/* Whether VM describes the member at offset AT of struct pk_hotspot_vm
 * as an int (or does not say its width), under its name WHICH (0: any),
 * and it fits a u16 offset into *TO. */
static bool scope_int(const struct pk_hotspot_vm *vm, size_t at, __u8 which, __u16 *to)
{
	__u8 found = want_found(vm, at), width = want_width(vm, at);

	return found && (!which || found == which) && (!width || width == 4) &&
	       off16(*(const __u64 *)((const char *)vm + at), to);
}

#define VM_AT(m)	offsetof(struct pk_hotspot_vm, m)

/* What BPF needs to send an nmethod's scopes (bpf/hotspot_nmethod.bpf.h)
 * into OUT, with PK_HS_SCOPES when VM describes all of it: JDK 17 and
 * 21's offsets from the nmethod, or 25's immutable and mutable data
 * (PK_HS_IMMUTABLE). That 25's metadata follows the relocations in its
 * mutable data is not described: it is nmethod::metadata_begin(), checked
 * against JDK 25 by the Java walk's tests. */
static void hs_file_scopes(const struct pk_hotspot_vm *vm, struct pk_hs_file *out)
{
	__u16 size, pc, scope, rel;
	bool ok;

	if (!want_found(vm, VM_AT(pcdesc_size)) || !off16(vm->pcdesc_size, &size) ||
	    size > 0xff || !scope_int(vm, VM_AT(pcdesc_pc_offset), 0, &pc) || pc + 4 > size ||
	    !scope_int(vm, VM_AT(pcdesc_scope_decode_offset), 0, &scope) || scope + 4 > size ||
	    !scope_int(vm, VM_AT(nmethod_scopes_pcs_offset), 0, &out->nmethod_scopes_pcs))
		return;
	if (want_found(vm, VM_AT(nmethod_immutable_data))) {
		ok = off16(vm->nmethod_immutable_data, &out->nmethod_scopes_data) &&
		     scope_int(vm, VM_AT(nmethod_scopes_data), 2, &out->nmethod_scopes_end) &&
		     scope_int(vm, VM_AT(nmethod_immutable_data_size), 0,
			       &out->nmethod_data_size) &&
		     want_found(vm, VM_AT(codeblob_mutable_data)) &&
		     off16(vm->codeblob_mutable_data, &out->nmethod_metadata) &&
		     scope_int(vm, VM_AT(codeblob_mutable_data_size), 0,
			       &out->codeblob_mutable_data_size) &&
		     scope_int(vm, VM_AT(codeblob_relocation_size), 0, &rel);
		if (ok) {
			out->codeblob_relocation_size = rel;
			out->flags |= PK_HS_IMMUTABLE;
		}
	} else {
		ok = want_found(vm, VM_AT(nmethod_scopes_data)) == 1 &&
		     want_width(vm, VM_AT(nmethod_scopes_data)) % 8 == 0 &&	/* a pointer */
		     off16(vm->nmethod_scopes_data, &out->nmethod_scopes_data) &&
		     scope_int(vm, VM_AT(nmethod_dependencies_offset), 0,
			       &out->nmethod_scopes_end) &&
		     scope_int(vm, VM_AT(nmethod_metadata_offset), 0, &out->nmethod_metadata);
	}
	if (!ok)
		return;
	out->pcdesc_size = size;
	out->pcdesc_pc_offset = pc;
	out->pcdesc_scope_decode_offset = scope;
	out->flags |= PK_HS_SCOPES;
}

int pk_hotspot_hs_file(const struct pk_hotspot_vm *vm, __u64 bias, struct pk_hs_file *out,
		       char err[PK_ERR_LEN])
{
	const struct { __u64 v; __u16 *to; const char *name; } offs[] = {
		{ vm->garray_len, &out->garray_len, "GrowableArrayBase._len" },
		{ vm->garray_data, &out->garray_data, "GrowableArray._data" },
		{ vm->codeheap_memory, &out->codeheap_memory, "CodeHeap._memory" },
		{ vm->codeheap_segmap, &out->codeheap_segmap, "CodeHeap._segmap" },
		{ vm->codeheap_log2_segment_size, &out->codeheap_log2_segment_size,
		  "CodeHeap._log2_segment_size" },
		{ vm->vspace_low, &out->vspace_low, "VirtualSpace._low" },
		{ vm->vspace_high_boundary, &out->vspace_high_boundary,
		  "VirtualSpace._high_boundary" },
		{ vm->stubqueue_stub_buffer, &out->stubqueue_buffer, "StubQueue._stub_buffer" },
		{ vm->stubqueue_buffer_limit, &out->stubqueue_buffer_limit,
		  "StubQueue._buffer_limit" },
		{ vm->codeblob_name, &out->codeblob_name, "CodeBlob._name" },
		{ vm->codeblob_blob_size, &out->codeblob_size, "CodeBlob._size" },
		{ vm->codeblob_frame_complete_offset, &out->codeblob_frame_complete_offset,
		  "CodeBlob._frame_complete_offset" },
		{ vm->codeblob_frame_size, &out->codeblob_frame_size, "CodeBlob._frame_size" },
		{ vm->codeblob_code_begin, &out->codeblob_code_begin, "CodeBlob._code_begin" },
		{ vm->codeblob_code_end, &out->codeblob_code_end, "CodeBlob._code_end" },
		{ vm->nmethod_method, &out->nmethod_method, "nmethod._method" },
		{ vm->nmethod_compile_id, &out->nmethod_compile_id, "nmethod._compile_id" },
		{ vm->method_const_method, &out->method_const_method, "Method._constMethod" },
		{ vm->constmethod_constants, &out->constmethod_constants,
		  "ConstMethod._constants" },
		{ vm->constmethod_code_size, &out->constmethod_code_size,
		  "ConstMethod._code_size" },
		{ vm->constmethod_name_index, &out->constmethod_name_index,
		  "ConstMethod._name_index" },
		{ vm->constmethod_signature_index, &out->constmethod_signature_index,
		  "ConstMethod._signature_index" },
		{ vm->constmethod_size, &out->constmethod_size, "sizeof(ConstMethod)" },
		{ vm->cpool_size, &out->cpool_size, "sizeof(ConstantPool)" },
		{ vm->cpool_pool_holder, &out->cpool_pool_holder, "ConstantPool._pool_holder" },
		{ vm->klass_name, &out->klass_name, "Klass._name" },
		{ vm->symbol_length, &out->symbol_length, "Symbol._length" },
		{ vm->symbol_body, &out->symbol_body, "Symbol._body" },
	};
	__s64 last_sp = vm->frame_interp_last_sp, sender_sp = vm->frame_interp_sender_sp;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		if (!off16(offs[i].v, offs[i].to))
			return pk_err(err, -ERANGE, "HotSpot's %s is %llu: past what the walk reads",
				      offs[i].name, (unsigned long long)offs[i].v);
	/* the frame constants are ints: the tables give them as a u64 */
	last_sp = (__s32)last_sp;
	sender_sp = (__s32)sender_sp;
	if (sender_sp != -1 || last_sp != -2)
		return pk_err(err, -ENOTSUP,
			      "HotSpot's interpreter frame is not frame_x86.hpp's (sender sp %lld, last sp %lld)",
			      (long long)sender_sp, (long long)last_sp);
	if (vm->heapblock_size > 0xffff)
		return pk_err(err, -ERANGE, "HotSpot's sizeof(HeapBlock) is %llu",
			      (unsigned long long)vm->heapblock_size);
	out->codecache_heaps = vm->codecache_heaps - bias;
	out->codecache_low_bound = vm->codecache_low_bound - bias;
	out->codecache_high_bound = vm->codecache_high_bound - bias;
	out->interp_code = vm->interp_code - bias;
	out->heapblock_size = vm->heapblock_size;
	out->flags = vm->code_is_offset ? PK_HS_CODE_OFFSET : 0;
	out->frame_interp_sender_sp = sender_sp;
	out->frame_interp_last_sp = last_sp;
	out->frame_interp_method = last_sp + PK_HS_INTERP_METHOD_FROM_LAST_SP;
	out->frame_interp_bcp = last_sp + PK_HS_INTERP_BCP_FROM_LAST_SP;
	/* an int, but an int16_t from JDK 23 on; the types say which */
	out->frame_complete_width = want_width(vm, offsetof(struct pk_hotspot_vm,
							    codeblob_frame_complete_offset));
	if (!out->frame_complete_width)
		out->frame_complete_width = 4;
	if (out->frame_complete_width != 2 && out->frame_complete_width != 4)
		return pk_err(err, -ENOTSUP, "HotSpot's CodeBlob._frame_complete_offset is %u bytes",
			      out->frame_complete_width);
	hs_file_lines(vm, out);
	hs_file_scopes(vm, out);
	return 0;
}

/* The file offset of PID's mapping at VM_START into *OFFSET. */
static int map_offset(pid_t pid, __u64 vm_start, __u64 *offset)
{
	struct pk_maps maps;
	int ret = pk_maps_read(NULL, pid, false, &maps);

	if (ret)
		return ret;
	ret = -ESRCH;
	for (size_t i = 0; i < maps.n; i++)
		if (maps.v[i].start == vm_start) {
			*offset = maps.v[i].offset;
			ret = 0;
			break;
		}
	pk_maps_free(&maps);
	return ret;
}

/* How long a JVM whose libjvm was just mapped is given to fill its tables
 * (its initializers ran in a few milliseconds on the machines measured;
 * one of about ten probe-load -e off-cpu -- java runs, at a load of 7 to
 * 10 on 2 cores, read them before: "stride 0", and the JVM got native
 * frames only for its whole life). */
#define HS_SETTLE_MS	2000

int pk_hotspot_process(const char *path, pid_t pid, __u64 vm_start, struct pk_hs_file *out,
		       char err[PK_ERR_LEN])
{
	struct pk_hotspot_tables t;
	struct pk_hotspot_syms syms;
	struct pk_hotspot_vm vm;
	__u64 offset, bias;
	Elf *elf;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = eh_elf_begin(fd);
	if (!elf) {
		close(fd);
		return -ENOENT;
	}
	ret = pk_hotspot_elf(elf, &syms);
	if (ret == -ENOTSUP) {
		for (int i = 0; i < PK_HS_NSYMS; i++)
			if (!(syms.found & 1u << i)) {
				pk_err(err, ret, "exports no %s",
				       pk_hotspot_sym_name((enum pk_hotspot_sym)i));
				break;
			}
	}
	if (!ret && !pid)
		ret = pk_err(err, -ENOTSUP, "no process to read its vmStructs from");
	if (!ret && (ret = map_offset(pid, vm_start, &offset)))
		pk_err(err, ret, "its mapping in process %d: %s", (int)pid, strerror(-ret));
	if (!ret && (ret = pk_hotspot_bias(elf, vm_start, offset, &bias)))
		pk_err(err, ret, "no segment at its mapping's offset 0x%llx",
		       (unsigned long long)offset);
	elf_end(elf);
	close(fd);
	if (ret)
		return ret;
	ret = pk_hotspot_tables_read_settled(&syms, bias, pk_hotspot_read_pid, &pid,
					     HS_SETTLE_MS, &t, err);
	if (ret)
		return ret;
	ret = pk_hotspot_vm_extract(&t, &vm, err);
	pk_hotspot_tables_free(&t);
	return ret ? ret : pk_hotspot_hs_file(&vm, bias, out, err);
}
