// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "eh_frame/elf_file.h"
#include "lib/exec_segs.h"

static int from_elf(Elf *elf, struct pk_file_seg *segs, __u32 *nsegs, char err[PK_ERR_LEN])
{
	size_t nph;
	GElf_Phdr ph;

	if (gelf_getclass(elf) != ELFCLASS64)
		return pk_err(err, -ENOEXEC, "not a 64-bit ELF file");
	if (elf_getphdrnum(elf, &nph))
		return pk_err(err, -ENOEXEC, "bad program headers: %s", elf_errmsg(-1));
	*nsegs = 0;
	for (size_t i = 0; i < nph; i++) {
		if (!gelf_getphdr(elf, i, &ph))
			return pk_err(err, -ENOEXEC, "bad program header %zu: %s", i,
				      elf_errmsg(-1));
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (*nsegs == PK_FILE_MAX_SEGS)
			return pk_err(err, -E2BIG, "more than %d executable segments",
				      PK_FILE_MAX_SEGS);
		segs[*nsegs].off = ph.p_offset;
		segs[*nsegs].end = ph.p_offset + ph.p_filesz;
		segs[*nsegs].bias = (__s64)(ph.p_vaddr - ph.p_offset);
		(*nsegs)++;
	}
	if (!*nsegs)
		return pk_err(err, -ENOEXEC, "no executable segment");
	return 0;
}

/* FN on PATH's ELF, opened without blocking (a FIFO named by mistake must
 * not hang the loader). */
static int with_elf(const char *path, int (*fn)(Elf *elf, void *arg), void *arg)
{
	Elf *elf;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	elf = eh_elf_begin(fd);
	ret = elf && elf_kind(elf) == ELF_K_ELF ? fn(elf, arg) : -ENOEXEC;
	elf_end(elf);
	close(fd);
	return ret;
}

struct segs_arg {
	struct pk_file_seg *segs;
	__u32 *nsegs;
	char *err;
};

static int segs_fn(Elf *elf, void *p)
{
	struct segs_arg *a = p;

	return from_elf(elf, a->segs, a->nsegs, a->err);
}

int pk_exec_segs(const char *path, struct pk_file_seg segs[PK_FILE_MAX_SEGS],
		 __u32 *nsegs, char err[PK_ERR_LEN])
{
	struct segs_arg a = { segs, nsegs, err };
	int ret;

	*nsegs = 0;
	err[0] = '\0';
	ret = with_elf(path, segs_fn, &a);
	if (ret && !err[0])
		pk_err(err, ret, ret == -ENOEXEC ? "not an ELF file" : "cannot open: %s",
		       strerror(-ret));
	return ret;
}

struct interp_arg {
	char *buf;
	size_t len;
};

static int interp_fn(Elf *elf, void *p)
{
	struct interp_arg *a = p;
	size_t nph, size;
	const char *image;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nph))
		return -ENOEXEC;
	image = elf_rawfile(elf, &size);
	for (size_t i = 0; i < nph; i++) {
		if (!gelf_getphdr(elf, i, &ph))
			return -ENOEXEC;
		if (ph.p_type != PT_INTERP)
			continue;
		if (!image || ph.p_offset > size || ph.p_filesz > size - ph.p_offset ||
		    !ph.p_filesz)
			return -ENOEXEC;
		/* p_filesz counts the NUL */
		if (ph.p_filesz > a->len)
			return -ENAMETOOLONG;
		memcpy(a->buf, image + ph.p_offset, ph.p_filesz);
		a->buf[ph.p_filesz - 1] = '\0';
		return 0;
	}
	return -ENOENT;
}

int pk_elf_interp(const char *path, char *buf, size_t len)
{
	struct interp_arg a = { buf, len };

	return with_elf(path, interp_fn, &a);
}
