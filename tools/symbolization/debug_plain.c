// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eh_frame/eh_table.h"
#include "eh_frame/elf_file.h"
#include "eh_frame/hex.h"
#include "symbolization/debug_plain.h"

static char *root;

int pk_debug_plain_set_root(const char *dir)
{
	char *r = dir ? strdup(dir) : NULL;

	if (dir && !r)
		return -ENOMEM;
	free(root);
	root = r;
	return 0;
}

static bool compressed_debug(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strncmp(name, ".debug_", 7))
			return true;
	}
	return false;
}

/* IN, its compressed sections inflated, written to the new file FD, its
 * layout left to libelf (a debug file's program headers describe the
 * stripped file's, not its own). 0 or -1. */
static int write_plain(Elf *in, int fd)
{
	Elf *out = elf_begin(fd, ELF_C_WRITE, NULL);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t phnum;
	int ret = -1;

	if (!out || !gelf_getehdr(in, &eh) || !gelf_newehdr(out, gelf_getclass(in)) ||
	    elf_getphdrnum(in, &phnum) || (phnum && !gelf_newphdr(out, phnum)))
		goto out;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(in, i, &ph) || !gelf_update_phdr(out, i, &ph))
			goto out;
	}
	while ((scn = elf_nextscn(in, scn))) {
		Elf_Scn *copy = elf_newscn(out);
		Elf_Data *d = NULL;
		GElf_Shdr sh;

		if (!copy || !gelf_getshdr(scn, &sh) ||
		    ((sh.sh_flags & SHF_COMPRESSED) &&
		     (elf_compress(scn, 0, 0) < 0 || !gelf_getshdr(scn, &sh))))
			goto out;
		while ((d = elf_getdata(scn, d))) {
			Elf_Data *nd = elf_newdata(copy);

			if (!nd)
				goto out;
			*nd = *d;	/* IN's bytes: IN outlives the write */
		}
		if (!gelf_update_shdr(copy, &sh))
			goto out;
	}
	if (gelf_update_ehdr(out, &eh) && elf_update(out, ELF_C_WRITE) >= 0)
		ret = 0;
out:
	elf_end(out);
	return ret;
}

/* PATH opened if it is an ELF file of build-id ID; else -1. */
static int open_same(const char *path, const unsigned char *id, int len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? eh_elf_begin(fd) : NULL;
	const void *bits;
	bool same = elf && dwelf_elf_gnu_build_id(elf, &bits) == len && !memcmp(bits, id, len);

	elf_end(elf);
	if (!same && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int pk_debug_plain_open(int fd, const unsigned char *id, int len, char **path)
{
	char hex[2 * 64 + 1], plain[4096], err[PK_ERR_LEN], *name;
	struct eh_cache_file f;
	Elf *elf;
	int pfd, n;

	if (!root || len < 2 || len > 64 || eh_hex(id, len, hex, sizeof(hex)))
		return fd;
	n = snprintf(plain, sizeof(plain), "%s/%.2s/%s.debug", root, hex, hex + 2);
	if (n < 0 || n >= (int)sizeof(plain))
		return fd;
	pfd = open_same(plain, id, len);
	if (pfd < 0) {
		elf = eh_elf_begin(fd);
		if (!elf || !compressed_debug(elf)) {
			elf_end(elf);
			return fd;
		}
		/* a copy is only an accelerator: on any error, none */
		if (!eh_cache_mkdirs(plain, err) && !eh_cache_file_begin(&f, plain, err))
			eh_cache_file_commit(&f, write_plain(elf, f.fd) ? -EIO : 0, err);
		elf_end(elf);
		pfd = open_same(plain, id, len);
	}
	name = pfd >= 0 ? strdup(plain) : NULL;
	if (!name) {
		if (pfd >= 0)
			close(pfd);
		return fd;
	}
	close(fd);
	free(*path);
	*path = name;
	return pfd;
}

int pk_debug_plain_find(const unsigned char *id, int len, char **path)
{
	char hex[2 * 64 + 1], plain[4096], orig[4096];
	char *name = NULL;
	int fd;

	if (!root || len < 2 || len > 64 || eh_hex(id, len, hex, sizeof(hex)) ||
	    snprintf(plain, sizeof(plain), "%s/%.2s/%s.debug", root, hex, hex + 2) >=
	    (int)sizeof(plain) ||
	    snprintf(orig, sizeof(orig), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2) >=
	    (int)sizeof(orig))
		return -1;
	fd = open_same(plain, id, len);
	if (fd >= 0) {
		name = strdup(plain);
		if (!name) {
			close(fd);
			return -1;
		}
		free(*path);
		*path = name;
		return fd;
	}
	fd = open_same(orig, id, len);
	if (fd < 0 || !(name = strdup(orig))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	fd = pk_debug_plain_open(fd, id, len, &name);
	/* not compressed (or no copy made): libdwfl's own search takes it */
	if (!strcmp(name, orig)) {
		close(fd);
		free(name);
		return -1;
	}
	free(*path);
	*path = name;
	return fd;
}
