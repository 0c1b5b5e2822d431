// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* CFI assembler for the eh_frame unit tests (see test_eh_util.h). */
#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"

void blob_init(struct cfi_blob *b, uint64_t vaddr)
{
	memset(b, 0, sizeof(*b));
	b->vaddr = vaddr;
}

void blob_bytes(struct cfi_blob *b, const void *p, size_t n)
{
	ck_assert_uint_le(b->n + n, sizeof(b->buf));
	if (n)
		memcpy(b->buf + b->n, p, n);
	b->n += n;
}

void blob_u8(struct cfi_blob *b, uint8_t v)
{
	blob_bytes(b, &v, 1);
}

void blob_u32(struct cfi_blob *b, uint32_t v)
{
	blob_bytes(b, &v, 4);
}

void blob_u64(struct cfi_blob *b, uint64_t v)
{
	blob_bytes(b, &v, 8);
}

void blob_uleb(struct cfi_blob *b, uint64_t v)
{
	do {
		uint8_t byte = v & 0x7f;

		v >>= 7;
		blob_u8(b, byte | (v ? 0x80 : 0));
	} while (v);
}

void blob_sleb(struct cfi_blob *b, int64_t v)
{
	for (;;) {
		uint8_t byte = v & 0x7f;

		v >>= 7;
		if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40))) {
			blob_u8(b, byte);
			return;
		}
		blob_u8(b, byte | 0x80);
	}
}

void blob_begin(struct cfi_blob *b)
{
	if (b->dwarf64)
		blob_u32(b, 0xffffffffu);
	b->len_pos = b->n;
	if (b->dwarf64)
		blob_u64(b, 0);
	else
		blob_u32(b, 0);
}

void blob_end(struct cfi_blob *b)
{
	if (b->dwarf64) {
		uint64_t len = b->n - b->len_pos - 8;

		memcpy(b->buf + b->len_pos, &len, 8);
	} else {
		uint32_t len = (uint32_t)(b->n - b->len_pos - 4);

		memcpy(b->buf + b->len_pos, &len, 4);
	}
}

static size_t entry_start(const struct cfi_blob *b)
{
	return b->n;
}

size_t eh_cie(struct cfi_blob *b, const char *aug, uint64_t caf, int64_t daf,
	      const uint8_t *insns, size_t n)
{
	size_t off = entry_start(b);
	const char *a;

	blob_begin(b);
	if (b->dwarf64)
		blob_u64(b, 0);
	else
		blob_u32(b, 0);		/* CIE id */
	blob_u8(b, 1);			/* version */
	blob_bytes(b, aug, strlen(aug) + 1);
	blob_uleb(b, caf);
	blob_sleb(b, daf);
	blob_u8(b, RA);
	if (aug[0] == 'z') {
		size_t data = 0;

		for (a = aug + 1; *a; a++)
			data += *a == 'R';
		blob_uleb(b, data);
		for (a = aug + 1; *a; a++)
			if (*a == 'R')
				blob_u8(b, 0x1b);	/* pcrel | sdata4 */
	}
	blob_bytes(b, insns, n);
	blob_end(b);
	return off;
}

size_t eh_fde(struct cfi_blob *b, size_t cie_off, const char *aug, uint64_t pc,
	      uint64_t range, const uint8_t *insns, size_t n)
{
	size_t off = entry_start(b);

	blob_begin(b);
	if (b->dwarf64)
		blob_u64(b, b->n - cie_off);
	else
		blob_u32(b, (uint32_t)(b->n - cie_off));	/* back to the CIE */
	if (strchr(aug, 'R')) {
		blob_u32(b, (uint32_t)(pc - (b->vaddr + b->n)));
		blob_u32(b, (uint32_t)range);
	} else {
		blob_u64(b, pc);
		blob_u64(b, range);
	}
	if (aug[0] == 'z')
		blob_uleb(b, 0);
	blob_bytes(b, insns, n);
	blob_end(b);
	return off;
}

size_t dbg_cie(struct cfi_blob *b, uint8_t version, const uint8_t *insns, size_t n)
{
	size_t off = entry_start(b);

	blob_begin(b);
	if (b->dwarf64)
		blob_u64(b, ~0ull);
	else
		blob_u32(b, 0xffffffffu);
	blob_u8(b, version);
	blob_u8(b, 0);			/* no augmentation */
	if (version >= 4) {
		blob_u8(b, 8);		/* address size */
		blob_u8(b, 0);		/* segment selector size */
	}
	blob_uleb(b, 1);
	blob_sleb(b, -8);
	if (version == 1)
		blob_u8(b, RA);
	else
		blob_uleb(b, RA);
	blob_bytes(b, insns, n);
	blob_end(b);
	return off;
}

size_t dbg_fde(struct cfi_blob *b, size_t cie_off, uint64_t pc, uint64_t range,
	       const uint8_t *insns, size_t n)
{
	size_t off = entry_start(b);

	blob_begin(b);
	if (b->dwarf64)
		blob_u64(b, cie_off);
	else
		blob_u32(b, (uint32_t)cie_off);
	blob_u64(b, pc);
	blob_u64(b, range);
	blob_bytes(b, insns, n);
	blob_end(b);
	return off;
}

char *eh_rows_text(const struct eh_unwind_table *t)
{
	char *all = NULL, *rows, *line, *save = NULL;
	size_t len = 0, n = 0;
	FILE *f = open_memstream(&all, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(eh_unwind_table_dump(t, f), 0);
	fclose(f);
	rows = calloc(1, len + 1);
	ck_assert_ptr_nonnull(rows);
	/* appended at N: strcat would rescan the whole text for every line */
	for (line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#')
			n += sprintf(rows + n, "%s\n", line);
	free(all);
	return rows;
}

char *eh_section_text(const struct cfi_blob *b, bool eh_frame, int *ret,
		      char err[PK_ERR_LEN])
{
	struct eh_unwind_table *t = NULL;
	char *text;

	err[0] = '\0';
	*ret = eh_unwind_table_from_section(b->buf, b->n, b->vaddr, eh_frame, &t, err);
	if (*ret)
		return NULL;
	text = eh_rows_text(t);
	eh_unwind_table_free(t);
	return text;
}

void eh_expect_rows(const struct cfi_blob *b, bool eh_frame, const char *want)
{
	char err[PK_ERR_LEN];
	int ret;
	char *got = eh_section_text(b, eh_frame, &ret, err);

	ck_assert_msg(got, "build failed: %d %s", ret, err);
	ck_assert_str_eq(got, want);
	free(got);
}

void eh_expect_cie_fde(const char *want, const uint8_t *cie_insns, size_t cn,
		       const uint8_t *fde_insns, size_t fn)
{
	static struct cfi_blob b;	/* 1 MiB: not on the stack */
	size_t cie;

	blob_init(&b, 0x200000);
	cie = eh_cie(&b, "zR", 1, -8, cie_insns, cn);
	eh_fde(&b, cie, "zR", 0x1000, 0x20, fde_insns, fn);
	eh_expect_rows(&b, true, want);
}

void eh_tmpdir(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/pk-eh-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(buf));
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

void eh_rmtree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int nfiles_found;

static int count_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	nfiles_found += flag == FTW_F;
	return 0;
}

int eh_count_files(const char *dir)
{
	nfiles_found = 0;
	nftw(dir, count_one, 16, FTW_PHYS);
	return nfiles_found;
}

void eh_copy_file(const char *src, const char *dst, size_t max)
{
	size_t len;
	char *data = pk_test_read_file(src, &len);
	FILE *f;

	ck_assert_ptr_nonnull(data);
	f = fopen(dst, "w");
	ck_assert_ptr_nonnull(f);
	if (len > max)
		len = max;
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
	free(data);
}

size_t eh_patch_file(const char *path, const void *find, const void *repl, size_t n)
{
	size_t len, off;
	char *data = pk_test_read_file(path, &len);
	char *at;
	FILE *f;

	ck_assert_ptr_nonnull(data);
	at = memmem(data, len, find, n);
	ck_assert_msg(at, "pattern not found in %s", path);
	off = (size_t)(at - data);
	f = fopen(path, "r+");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, (long)off, SEEK_SET), 0);
	ck_assert_uint_eq(fwrite(repl, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
	free(data);
	return off;
}
