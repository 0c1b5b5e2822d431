/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A compiled Java method's report (struct pk_hs_nmethod_event, bpf/probekit.h):
 * the bytes a reader needs to name a PC of an nmethod with the methods
 * C1 or C2 inlined there, copied while the JVM lives so that a reader
 * after its exit names them too. A compiled frame is its PC and compile id
 * (pk_hs_frame()); the walk notes the nmethod of each (uw_state hs_blob),
 * and the sample's note loop reports it once per reader generation, with
 * the Method*s of its metadata table (the inlined methods among them).
 *
 * Where the parts are (bpf/hotspot_records.h, pk_hs_file's nmethod_*
 * members): offsets the JVM describes, but for JDK 25's metadata table,
 * which is not: it follows the relocations in the nmethod's mutable data
 * (nmethod::metadata_begin()), checked on JDK 25 by the Java walk's tests.
 * The decoding is the reader's (symbolization/hotspot_scopes.h).
 */
#ifndef PK_HOTSPOT_NMETHOD_BPF_H
#define PK_HOTSPOT_NMETHOD_BPF_H

/* nmethods reported per process, with the stamp of their compile id and
 * method in the reader generation they went to. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, struct hs_method_key);	/* the nmethod as method */
	__type(value, __u64);
} hs_nmethod_seen SEC(".maps");

/* An nmethod's parts' bounds: [pcs, pcs_end) its PcDescs, [scopes,
 * scopes_end) its scopes, [meta, meta_end) its metadata. */
struct hs_nm_parts {
	__u64 pcs, pcs_end, scopes, scopes_end, meta, meta_end;
};

/* A pk_hs_nmethod_event under assembly: PcDescs at data[0], the scopes
 * after them, the metadata after those (each start bounded by the parts
 * before it, so the buffer holds all three at their bounds); the parts'
 * bounds after it, off the stack (the deepest call chain goes through
 * here: 6.1 refuses one over 512 bytes). */
struct hs_nmethod_buf {
	struct pk_hs_nmethod_event e;
	__u8 data[PK_HS_PCS_MAX + PK_HS_SCOPES_MAX + PK_HS_META_MAX];
	struct hs_nm_parts parts;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hs_nmethod_buf);
} hs_nmethod_bufs SEC(".maps");

/* The user bytes [LO, HI) into MB's data at AT, MAX at most (CUT into
 * *FLAGS when there were more): their number; 0 when there are none or
 * they cannot be read. */
static __always_inline __u32 hs_nm_copy(struct hs_nmethod_buf *mb, __u32 at, __u64 lo,
					__u64 hi, __u32 max, __u32 *flags, __u32 cut)
{
	__u64 len;

	if (!lo || hi <= lo)
		return 0;
	len = hi - lo;
	if (len > max) {
		len = max;
		*flags |= cut;
	}
	barrier_var(len);
	barrier_var(at);
	if (!len || len > max || at > PK_HS_PCS_MAX + PK_HS_SCOPES_MAX)
		return 0;
	if (bpf_probe_read_user(&mb->data[at], len, (const void *)lo))
		return 0;
	return len;
}

static __always_inline bool hs_nm_parts(const struct pk_hs_file *f, __u64 blob,
					struct hs_nm_parts *o)
{
	__s64 pcs, end, a, b;
	__u64 base, mut;

	if (!hs_int(blob + f->nmethod_scopes_pcs, &pcs) ||
	    !hs_int(blob + f->nmethod_scopes_end, &end) ||
	    !hs_ptr(blob + f->nmethod_scopes_data, &base))
		return false;
	if (!(f->flags & PK_HS_IMMUTABLE)) {
		/* 17, 21: from the nmethod; the scopes' begin a pointer */
		if (!hs_int(blob + f->nmethod_metadata, &a))
			return false;
		o->pcs = blob + pcs;
		o->pcs_end = blob + end;
		o->scopes = base;
		o->scopes_end = o->pcs;
		o->meta = blob + a;
		o->meta_end = base;
		return true;
	}
	/* 25: from its immutable data (BASE) and its mutable data */
	if (!hs_int(blob + f->nmethod_data_size, &a) ||
	    !hs_ptr(blob + f->nmethod_metadata, &mut) ||
	    !hs_int(blob + f->codeblob_relocation_size, &b) || b < 0)
		return false;
	o->pcs = base + pcs;
	o->pcs_end = base + end;
	o->scopes = o->pcs_end;
	o->scopes_end = base + a;
	o->meta = mut + b;
	if (!hs_int(blob + f->codeblob_mutable_data_size, &a))
		return false;
	o->meta_end = mut + a;
	return true;
}

/* Metadata entries whose methods a report names at most. */
#define HS_NM_METHODS	(PK_HS_META_MAX / 8)

/*
 * Report the nmethod at BLOB of process TGID, whose compiled frame had
 * compile id CID14 (its low bits), unless reported with the same stamp, and
 * the methods of its metadata table. A global function: verified once.
 */
__noinline int pk_hs_note_nmethod(__u32 tgid, __u64 blob, __u64 cid14)
{
	struct hs_method_key key = { .tgid = tgid, .method = blob };
	const struct pk_hs_file *f;
	struct hs_nmethod_buf *mb;
	struct hs_proc *p;
	__u64 method = 0, code = 0, end = 0, stamp, m;
	__u32 zero = 0, flags = 0, at, n, size;
	__s64 cid;

	p = hs_proc_get(tgid);
	mb = bpf_map_lookup_elem(&hs_nmethod_bufs, &zero);
	if (!p || !mb || !blob)
		return 0;
	f = &p->f;
	if (!hs_int(blob + f->nmethod_compile_id, &cid) ||
	    ((__u64)cid & PK_HS_INFO_MASK) != cid14 ||	/* another since the walk */
	    !hs_ptr(blob + f->nmethod_method, &method) || !method)
		return 0;
	stamp = ((__u64)cid * 0x9e3779b97f4a7c15ull ^ method) * 0x9e3779b97f4a7c15ull;
	stamp = pk_report_stamp(stamp ^ p->mm);
	if (pk_report_seen(&hs_nmethod_seen, &key, stamp))
		return 0;
	if (!hs_code_begin(f, blob, &code))
		return 0;
	if (f->flags & PK_HS_CODE_OFFSET) {
		__s64 off;

		if (!hs_int(blob + f->codeblob_code_end, &off))
			return 0;
		end = blob + off;
	} else if (!hs_ptr(blob + f->codeblob_code_end, &end)) {
		return 0;
	}
	mb->e.pid = tgid;
	mb->e.compile_id = cid;
	mb->e.nmethod = blob;
	mb->e.method = method;
	mb->e.code_begin = code;
	mb->e.code_size = end > code && end - code < 0xffffffffull ? end - code : 0;
	mb->e.pcdesc_size = f->pcdesc_size;
	mb->e.pcdesc_pc_offset = f->pcdesc_pc_offset;
	mb->e.pcdesc_scope_decode_offset = f->pcdesc_scope_decode_offset;
	mb->e.pcs_len = mb->e.scopes_len = mb->e.metadata_len = 0;
	at = 0;
	if ((f->flags & PK_HS_SCOPES) && hs_nm_parts(f, blob, &mb->parts)) {
		n = hs_nm_copy(mb, 0, mb->parts.pcs, mb->parts.pcs_end, PK_HS_PCS_MAX, &flags,
			       PK_HS_NM_PCS_CUT);
		mb->e.pcs_len = n;
		at = n;
		n = hs_nm_copy(mb, at, mb->parts.scopes, mb->parts.scopes_end, PK_HS_SCOPES_MAX,
			       &flags, PK_HS_NM_SCOPES_CUT);
		mb->e.scopes_len = n;
		at += n;
		n = hs_nm_copy(mb, at, mb->parts.meta, mb->parts.meta_end, PK_HS_META_MAX, &flags,
			       PK_HS_NM_META_CUT);
		mb->e.metadata_len = n;
		at += n;
	}
	if (f->flags & PK_HS_LINES_U5)
		flags |= PK_HS_NM_NO_ZERO;
	size = sizeof(mb->e) + at;
	if (!pk_report_close(mb, &size, sizeof(mb->e) + sizeof(mb->data), PK_EVENT_HS_NMETHOD,
			     flags))
		return 0;
	/* the methods first: a reader names the scopes from them */
	pk_hs_note_method(tgid, method);
	for (__u32 i = 0; i < HS_NM_METHODS; i++) {
		if (i >= mb->e.metadata_len / 8)
			break;
		if (hs_ptr(mb->parts.meta + 8 * i, &m) && m && m != method)
			pk_hs_note_method(tgid, m);
	}
	pk_report_out(mb, size, &hs_nmethod_seen, &key, &stamp);
	return 0;
}

#endif
