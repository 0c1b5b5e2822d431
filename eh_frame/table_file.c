// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The table as a file: canonical layout, validation, atomic write and
 * read-only mapping. A table in memory is always its serialized bytes, so
 * writing is one write() and a mapped cache file is used as is.
 *
 * Validation trusts nothing in the header: the layout must be the one the
 * writer computes from nrows/nrules and match the real file size, and the
 * checksum covers the header (checksum field as zero) and every payload
 * byte, so any corrupted or truncated file is -EBADMSG and gets rebuilt.
 *
 * No fsync before the rename: the cache is a cache. Readers never see a
 * partial file (rename is atomic), and a file torn by a crash fails the
 * size or checksum check and is rebuilt; skipping fsync keeps the cold
 * build from paying for a disk flush.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eh_frame/eh_internal.h"

#define ALIGN8(x) (((x) + 7) & ~(__u64)7)

void eh_table_layout(__u32 nrows, __u32 nrules, struct pk_unwind_header *h)
{
	h->nrows = nrows;
	h->nrules = nrules;
	h->header_size = sizeof(*h);
	h->pcs_off = ALIGN8(sizeof(*h));
	h->rule_ids_off = ALIGN8(h->pcs_off + (__u64)nrows * sizeof(__u32));
	h->rules_off = ALIGN8(h->rule_ids_off + (__u64)nrows * sizeof(__u16));
	h->file_size = h->rules_off + (__u64)nrules * sizeof(struct pk_unwind_rule);
}

static int corrupt(char err[PK_ERR_LEN], const char *what)
{
	return pk_err(err, -EBADMSG, "corrupt table: %s", what);
}

static bool rule_ok(const struct pk_unwind_rule *r)
{
	return r->cfa_type <= PK_CFA_UNSUPPORTED && r->fp_type <= PK_FP_UNSUPPORTED &&
	       r->ra_type <= PK_RA_REGISTER &&
	       (r->ra_type != PK_RA_REGISTER || r->ra_reg < PK_DWARF_RIP) &&
	       !r->__pad[0] && !r->__pad[1];
}

int eh_table_validate(const void *buf, size_t size, char err[PK_ERR_LEN])
{
	const struct pk_unwind_header *h = buf;
	struct pk_unwind_header want;
	const struct pk_unwind_rule *rules;
	const __u16 *ids;
	const __u32 *pcs;
	__u32 i;

	if (size < sizeof(*h))
		return corrupt(err, "truncated header");
	if (memcmp(h->magic, PK_UNWIND_MAGIC, sizeof(h->magic)))
		return corrupt(err, "bad magic");
	if (h->version != PK_UNWIND_VERSION)
		return pk_err(err, -EBADMSG, "corrupt table: unsupported version %u",
			       h->version);
	if (h->arch != 62 && h->arch != 183)
		return corrupt(err, "unknown architecture");
	if (h->flags & ~(__u16)(PK_UNWIND_HAS_EH_FRAME | PK_UNWIND_HAS_DEBUG_FRAME |
				PK_UNWIND_NO_BUILD_ID | PK_UNWIND_HAS_GOPCLNTAB))
		return corrupt(err, "unknown flags");
	if (h->build_id_len > PK_UNWIND_BUILD_ID_MAX)
		return corrupt(err, "build-id length");
	if (h->header_size != sizeof(*h))
		return corrupt(err, "header size");
	if (!h->nrows || h->nrows > EH_MAX_ROWS || !h->nrules ||
	    h->nrules > PK_UNWIND_MAX_RULES || h->nrules > h->nrows)
		return corrupt(err, "row or rule count");
	eh_table_layout(h->nrows, h->nrules, &want);
	if (h->pcs_off != want.pcs_off || h->rule_ids_off != want.rule_ids_off ||
	    h->rules_off != want.rules_off || h->file_size != want.file_size)
		return corrupt(err, "section offsets");
	if (h->file_size != size)
		return corrupt(err, "file size does not match the header (truncated?)");
	if (h->checksum != eh_table_checksum(buf, size))
		return corrupt(err, "checksum mismatch");

	/* A correct checksum over a buggy writer's output must still not
	 * send a reader out of bounds. */
	pcs = (const __u32 *)((const char *)buf + h->pcs_off);
	ids = (const __u16 *)((const char *)buf + h->rule_ids_off);
	rules = (const struct pk_unwind_rule *)((const char *)buf + h->rules_off);
	if (pcs[0] != 0 || h->pc_end < h->pc_base ||
	    h->pc_end - h->pc_base != pcs[h->nrows - 1])
		return corrupt(err, "address range");
	for (i = 0; i < h->nrows; i++)
		if (ids[i] >= h->nrules || (i && pcs[i] <= pcs[i - 1]))
			return corrupt(err, "rows not sorted or rule id out of range");
	for (i = 0; i < h->nrules; i++)
		if (!rule_ok(&rules[i]))
			return corrupt(err, "unknown rule type");
	return 0;
}

int eh_unwind_table_open(const char *path, struct eh_unwind_table **out,
		       char err[PK_ERR_LEN])
{
	struct eh_unwind_table *t;
	struct stat st;
	void *map;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return pk_err(err, -errno, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st)) {
		ret = pk_err(err, -errno, "cannot stat: %s", strerror(errno));
		goto out_fd;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = pk_err(err, -EBADMSG, "corrupt table: not a regular file");
		goto out_fd;
	}
	if ((size_t)st.st_size < sizeof(struct pk_unwind_header)) {
		ret = corrupt(err, "truncated header");
		goto out_fd;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED) {
		ret = pk_err(err, -errno, "cannot map: %s", strerror(errno));
		goto out_fd;
	}
	ret = eh_table_validate(map, st.st_size, err);
	if (!ret) {
		t = calloc(1, sizeof(*t));
		if (!t) {
			ret = pk_err(err, -ENOMEM, "out of memory");
		} else {
			t->buf = map;
			t->size = st.st_size;
			t->mapped = true;
			*out = t;
		}
	}
	if (ret)
		munmap(map, st.st_size);
out_fd:
	close(fd);
	return ret;
}

int eh_unwind_table_write(const struct eh_unwind_table *t, const char *path,
			char err[PK_ERR_LEN])
{
	return eh_cache_write(path, t->buf, t->size, err);
}

const struct pk_unwind_header *eh_unwind_table_header(const struct eh_unwind_table *t)
{
	return t->buf;
}

size_t eh_unwind_table_size(const struct eh_unwind_table *t)
{
	return t->size;
}

void eh_unwind_table_free(struct eh_unwind_table *t)
{
	if (!t)
		return;
	if (t->mapped)
		munmap(t->buf, t->size);
	else
		free(t->buf);
	free(t);
}
