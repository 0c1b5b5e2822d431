/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Hand-assembled call-frame information for the eh_frame library's unit
 * tests: CIEs and FDEs in .eh_frame or .debug_frame syntax, byte by byte,
 * and the table they produce as dump text.
 */
#ifndef TEST_EH_UTIL_H
#define TEST_EH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eh_frame/eh_table.h"

/* Call-frame instructions (DWARF 5, 6.4.2) and operations used below. */
#define ADV(n)		(0x40 | (n))		/* DW_CFA_advance_loc */
#define OFS(r)		(0x80 | (r))		/* DW_CFA_offset, uleb follows */
#define RESTORE(r)	(0xc0 | (r))		/* DW_CFA_restore */
#define NOP		0x00
#define SET_LOC		0x01
#define ADV1		0x02
#define ADV2		0x03
#define ADV4		0x04
#define OFS_EXT		0x05
#define RESTORE_EXT	0x06
#define UNDEF		0x07
#define SAME		0x08
#define REGISTER	0x09
#define REMEMBER	0x0a
#define RESTORE_STATE	0x0b
#define DEF_CFA		0x0c
#define DEF_CFA_REG	0x0d
#define DEF_CFA_OFS	0x0e
#define DEF_CFA_EXPR	0x0f
#define EXPR		0x10
#define OFS_EXT_SF	0x11
#define DEF_CFA_SF	0x12
#define DEF_CFA_OFS_SF	0x13
#define VAL_OFS		0x14
#define VAL_OFS_SF	0x15
#define VAL_EXPR	0x16
#define ARGS_SIZE	0x2e
#define NEG_OFS_EXT	0x2f

#define RBP 6
#define RSP 7
#define RA 16

/* The usual x86_64 CIE program: CFA = rsp+8, return address at CFA-8. */
#define CIE_X86_64	DEF_CFA, RSP, 8, OFS(RA), 1

struct cfi_blob {
	uint8_t buf[1 << 20];
	size_t n;
	size_t len_pos;		/* of the entry being written */
	uint64_t vaddr;		/* the section's address */
	bool dwarf64;		/* next entries use 64-bit lengths */
};

void blob_init(struct cfi_blob *b, uint64_t vaddr);
void blob_u8(struct cfi_blob *b, uint8_t v);
void blob_u32(struct cfi_blob *b, uint32_t v);
void blob_u64(struct cfi_blob *b, uint64_t v);
void blob_uleb(struct cfi_blob *b, uint64_t v);
void blob_sleb(struct cfi_blob *b, int64_t v);
void blob_bytes(struct cfi_blob *b, const void *p, size_t n);
/* Entry framing: length placeholder ... patched length. */
void blob_begin(struct cfi_blob *b);
void blob_end(struct cfi_blob *b);

/* .eh_frame CIE with augmentation AUG ("zR" = pcrel sdata4 FDE addresses,
 * "zRS" = signal frame, "" = no augmentation, absolute 8-byte addresses).
 * Returns its offset. */
size_t eh_cie(struct cfi_blob *b, const char *aug, uint64_t caf, int64_t daf,
	      const uint8_t *insns, size_t n);
/* .eh_frame FDE for [PC, PC+RANGE) of the CIE at CIE_OFF (made with
 * augmentation AUG). */
size_t eh_fde(struct cfi_blob *b, size_t cie_off, const char *aug, uint64_t pc,
	      uint64_t range, const uint8_t *insns, size_t n);
/* .debug_frame CIE of VERSION (1, 3 or 4) and FDE. */
size_t dbg_cie(struct cfi_blob *b, uint8_t version, const uint8_t *insns, size_t n);
size_t dbg_fde(struct cfi_blob *b, size_t cie_off, uint64_t pc, uint64_t range,
	       const uint8_t *insns, size_t n);

/* One zR CIE running CIE_INSNS and one FDE [0x1000, 0x1020) running
 * FDE_INSNS must build exactly the rows WANT. */
void eh_expect_cie_fde(const char *want, const uint8_t *cie_insns, size_t cn,
		       const uint8_t *fde_insns, size_t fn);
/* The same with the CIE_X86_64 CIE program, and the FDE's program given
 * as bytes: CHECK_FDE(ROW(...) END("1020"), ADV(1), DEF_CFA_OFS, 16). */
#define CHECK_FDE(want, ...) \
	eh_expect_cie_fde(want, INSNS(CIE_X86_64), INSNS(__VA_ARGS__))
/* CIE is INSNS(...) of the CIE's program. */
#define CHECK_CIE_FDE(want, cie, ...) \
	eh_expect_cie_fde(want, cie, INSNS(__VA_ARGS__))
/* Rows of a table as dump text without '#' lines (malloc'ed). */
char *eh_rows_text(const struct eh_unwind_table *t);
/* Build a table from section bytes and return its rows as text, or NULL with
 * *RET and ERR set. */
char *eh_section_text(const struct cfi_blob *b, bool eh_frame, int *ret,
		      char err[PK_ERR_LEN]);

/* Building B must succeed with exactly the rows WANT. */
void eh_expect_rows(const struct cfi_blob *b, bool eh_frame, const char *want);

/* Expected dump lines: ROW("1000", "rsp+8 u c-8") for pc 0x1000. */
/* REST: "cfa rbp ra"; rbx and r12-r15 not saved. ROWS: all columns. */
#define ROWS(pc4, rest)	"000000000000" pc4 " " rest "\n"
#define ROW(pc4, rest)	ROWS(pc4, rest " u u u u u")
#define END(pc4)	ROW(pc4, "end u u")

/* Files for the ELF and cache tests. */
#define EH_TEST_LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"
/* mkdtemp under /tmp into BUF (at least 32 bytes). */
void eh_tmpdir(char *buf, size_t len);
/* rm -r */
void eh_rmtree(const char *path);
/* Regular files under DIR (0 if it does not exist). */
int eh_count_files(const char *dir);
/* Copy at most MAX bytes of SRC to DST (mode 0644). */
void eh_copy_file(const char *src, const char *dst, size_t max);
/* Replace the first occurrence of FIND (N bytes) in PATH by REPL (N bytes);
 * fails the test if absent. Returns its offset. */
size_t eh_patch_file(const char *path, const void *find, const void *repl, size_t n);

#define INSNS(...) ((const uint8_t[]){ __VA_ARGS__ }), sizeof((const uint8_t[]){ __VA_ARGS__ })

#endif
