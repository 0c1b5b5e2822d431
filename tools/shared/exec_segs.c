// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "exec_segs.h"

static int from_elf(Elf *elf, struct pk_file_seg *segs, __u32 *nsegs, char err[PK_ERR_LEN])
{
	size_t nph;
	GElf_Phdr ph;

	if (elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64)
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

/* elf_version() sets a global: once, as files are read by several threads */
static pthread_once_t libelf_once = PTHREAD_ONCE_INIT;

static void init_libelf(void)
{
	elf_version(EV_CURRENT);
}

int pk_exec_segs(const char *path, struct pk_file_seg segs[PK_FILE_MAX_SEGS],
		 __u32 *nsegs, char err[PK_ERR_LEN])
{
	Elf *elf;
	int fd, ret;

	*nsegs = 0;
	/* O_NONBLOCK: a FIFO named by mistake must not hang the loader */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return pk_err(err, -errno, "cannot open: %s", strerror(errno));
	pthread_once(&libelf_once, init_libelf);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		ret = pk_err(err, -ENOEXEC, "not an ELF file");
	else
		ret = from_elf(elf, segs, nsegs, err);
	elf_end(elf);
	close(fd);
	return ret;
}
