/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Internal interfaces of the eh_frame library, shared between its modules
 * and its unit tests. Not installed, not used by programs.
 */
#ifndef EH_INTERNAL_H
#define EH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libelf.h>
#include <linux/types.h>

#include "eh_frame/checksum.h"
#include "eh_frame/eh_table.h"

/* An options struct's FIELD if the caller's struct is big enough to hold
 * it (libbpf's OPTS_GET), else DEF. */
#define EH_OPT(o, field, def) \
	((o) && (o)->sz >= offsetof(__typeof__(*(o)), field) + sizeof((o)->field) ? \
	 (o)->field : (def))

/* Bounds on the work one file may cause (bad input must not explode). */
#define EH_MAX_STATE_DEPTH	64		/* remember_state nesting */
#define EH_MAX_ROWS		(1u << 26)	/* rows of one table */

/* ---- checksum.c: the 64-bit hash of cache files and content keys ------- */

/* eh_hash_update(), eh_hash_final(): eh_frame/checksum.h */
/* Checksum of a serialized table: the whole buffer with the header's
 * checksum field read as zero. */
__u64 eh_table_checksum(const void *buf, size_t size);

/* ---- call-frame information: cfi_parse.c --------------------------------- */

struct cfi_cie {
	__u64 offset;			/* in the section */
	const __u8 *insns, *insns_end;	/* initial instructions */
	__u64 code_align;
	__s64 data_align;
	__u64 ra_reg;
	__u8 version;
	__u8 fde_enc;			/* DW_EH_PE_* of FDE addresses */
	__u8 addr_size;
	bool has_z;			/* augmentation data length present */
	bool signal;			/* augmentation 'S' */
};

struct cfi_fde {
	__u64 offset;			/* in the section */
	__u64 pc_begin, pc_end;
	const __u8 *insns, *insns_end;
	__u32 cie;			/* index into cfi_section.cies */
};

struct cfi_section {
	const __u8 *data;
	size_t size;
	__u64 vaddr;
	bool eh_frame;			/* .eh_frame (else .debug_frame) syntax */
	const char *name;		/* for messages */
	struct cfi_cie *cies;
	size_t ncies;
	struct cfi_fde *fdes;
	size_t nfdes;
};

/* Walk every CIE and FDE of a section, decoding FDE address ranges. */
int eh_cfi_section_parse(struct cfi_section *s, const void *data, size_t size,
		      __u64 vaddr, bool eh_frame, char err[PK_ERR_LEN]);
void eh_cfi_section_free(struct cfi_section *s);

/* DW_EH_PE_* pointer at C (whose address in the ELF is FIELD_VADDR). */
struct dw_cursor;
int dw_read_pointer(struct dw_cursor *c, __u8 enc, __u64 field_vaddr,
		    __u8 addr_size, __u64 *out);

/* ---- call-frame interpreter: cfi_interp.c -------------------------------- */

enum cfi_rule_kind {
	CFI_RULE_UNMENTIONED = 0,	/* never set: the ABI default */
	CFI_RULE_UNDEFINED,
	CFI_RULE_SAME,
	CFI_RULE_OFFSET,		/* saved at CFA + value */
	CFI_RULE_VAL_OFFSET,		/* value is CFA + value */
	CFI_RULE_REGISTER,		/* in register value */
	CFI_RULE_EXPR,
	CFI_RULE_VAL_EXPR,
};

struct cfi_rule {
	__u8 kind;			/* enum cfi_rule_kind */
	__u32 expr_len;
	__s64 value;
	const __u8 *expr;
};

enum cfi_cfa_kind {
	CFI_CFA_REG_OFFSET = 0,		/* reg + offset */
	CFI_CFA_EXPR,			/* DWARF expression */
};

struct cfi_cfa {
	__u8 kind;			/* enum cfi_cfa_kind */
	__u32 expr_len;
	__u64 reg;
	__s64 offset;
	const __u8 *expr;
};

/* The rules we keep: CFA, the frame pointer, the return address and the
 * other callee-saved registers the walk tracks (rbx, r12-r15). */
struct cfi_state {
	struct cfi_cfa cfa;
	struct cfi_rule fp, ra;
	struct cfi_rule saved[PK_UNWIND_NSAVED];	/* rbx, r12-r15 */
	bool broken;		/* an instruction we cannot interpret was met:
				 * everything from here is unsupported */
};

/* Called for each row: STATE holds from PC until the next row. */
typedef int (*cfi_row_fn)(void *arg, __u64 pc, const struct cfi_state *state);

/* Run the CIE's initial instructions into INIT. */
int eh_cfi_run_cie(const struct cfi_section *s, const struct cfi_cie *cie,
		struct cfi_state *init, char err[PK_ERR_LEN]);
/* Run an FDE from the CIE's initial state INIT, reporting rows to FN. */
int eh_cfi_run_fde(const struct cfi_section *s, const struct cfi_fde *fde,
		const struct cfi_state *init, cfi_row_fn fn, void *arg,
		char err[PK_ERR_LEN]);

/* ---- rule_classify.c ------------------------------------------------------ */

/* The table rule of STATE (SIGNAL for every row of an 'S' CIE). Fields
 * that do not apply to a type are zero, so equal rules compare equal. */
void eh_classify(const struct cfi_state *state, bool signal,
		 struct pk_unwind_rule *rule);
/* Classify a DW_CFA_def_cfa_expression (PLT1/PLT2/DEREF/UNSUPPORTED). */
void eh_classify_cfa_expr(const __u8 *expr, size_t len,
			  struct pk_unwind_rule *rule);

/* ---- table_build.c -------------------------------------------------------- */

struct eh_row {
	__u64 pc;
	struct pk_unwind_rule rule;
};

/* Rows sorted by pc, adjacent rules distinct, an END row in every gap and
 * after the last FDE. */
struct eh_rows {
	struct eh_row *v;
	size_t n, cap;
};

/* The row of a PC no FDE covers. */
extern const struct pk_unwind_rule eh_end_rule;

void eh_rows_free(struct eh_rows *rows);
/* Append, merging with the previous row when the rule is the same, and
 * replacing it when it starts at the same pc. */
int eh_rows_push(struct eh_rows *rows, __u64 pc, const struct pk_unwind_rule *rule);
/* eh_rows_push with the reason in ERR: -EINVAL (a PC before the last
 * row's), -E2BIG (more than EH_MAX_ROWS), -ENOMEM. */
int eh_rows_push_checked(struct eh_rows *rows, __u64 pc,
			 const struct pk_unwind_rule *rule, char err[PK_ERR_LEN]);
/* Rows of one CFI section. */
int eh_rows_from_section(struct eh_rows *rows, const void *data, size_t size,
			 __u64 vaddr, bool eh_frame, char err[PK_ERR_LEN]);
/* PRIMARY wherever it has a non-END row, SECONDARY elsewhere. */
int eh_rows_overlay(struct eh_rows *out, const struct eh_rows *primary,
		    const struct eh_rows *secondary);

/* ---- go_table.c ----------------------------------------------------------- */

struct pk_gopclntab;
/* Rows of a Go binary without CFI from its .gopclntab's SP deltas (pcsp):
 * CFA = RSP + delta + 8, RA at CFA-8, RBP at CFA-16 where the frame holds
 * it. -ENODATA when no function has a usable SP table. */
int eh_rows_from_gopclntab(struct eh_rows *rows, const struct pk_gopclntab *t,
			   char err[PK_ERR_LEN]);

/* Serialize ROWS into a table (interning rules); FLAGS, BUILD_ID go to the
 * header. */
int eh_table_from_rows(const struct eh_rows *rows, __u16 flags,
		       const __u8 *build_id, size_t build_id_len,
		       struct eh_unwind_table **out, char err[PK_ERR_LEN]);

/* ---- table_file.c --------------------------------------------------------- */

struct eh_unwind_table {
	void *buf;		/* header + arrays, as in the file */
	size_t size;
	bool mapped;		/* buf is an mmap of a cache file */
};

/* Every check eh_unwind_table_open makes; -EBADMSG with a reason. */
int eh_table_validate(const void *buf, size_t size, char err[PK_ERR_LEN]);
/* The canonical layout for NROWS and NRULES. */
void eh_table_layout(__u32 nrows, __u32 nrules, struct pk_unwind_header *h);

/* ---- elf_file.c ----------------------------------------------------------- */

struct eh_elf_file;

struct elf_section {
	const void *data;
	size_t size;
	__u64 vaddr;
};

/* Open PATH (mmapped, never copied), checking it is a 64-bit x86_64 ELF. */
int eh_elf_file_open(const char *path, struct eh_elf_file **out, char err[PK_ERR_LEN]);
void eh_elf_file_close(struct eh_elf_file *ef);
/* Section NAME's bytes (decompressed if SHF_COMPRESSED): -ENOENT if absent
 * or without bytes (NOBITS), -EINVAL if it lies past the end of the file. */
int eh_elf_file_section(struct eh_elf_file *ef, const char *name,
		      struct elf_section *out, char err[PK_ERR_LEN]);
/* The GNU build-id note; length 0 when there is none. */
const __u8 *eh_elf_file_build_id(const struct eh_elf_file *ef, size_t *len);
/* Its libelf handle (valid until eh_elf_file_close). */
Elf *eh_elf_file_elf(const struct eh_elf_file *ef);
/* The whole file as mapped. */
const void *eh_elf_file_bytes(const struct eh_elf_file *ef, size_t *len);
/* The separate debug file of EF (by build-id under DEBUG_ROOT, then by
 * .gnu_debuglink), or NULL. */
struct eh_elf_file *eh_elf_file_open_debug(struct eh_elf_file *ef, const char *path,
				      const char *debug_root);

/* ---- cache.c / table_build.c ---------------------------------------------- */

/* Build from an opened ELF (shared by eh_unwind_table_from_elf and the cache,
 * which already opened it for the key). */
int eh_table_from_elf_file(struct eh_elf_file *ef, const char *path,
			   const struct eh_unwind_build_opts *opts,
			   struct eh_unwind_table **out, char err[PK_ERR_LEN]);

#endif /* EH_INTERNAL_H */
