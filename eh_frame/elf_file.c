// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * An ELF file opened with libelf over mmap (never copied): the checks that
 * make it ours (64-bit little-endian x86_64), section lookup with every
 * range checked against the real file size (a truncated file is mapped
 * short, and libelf trusts the headers), the GNU build-id note, and the
 * separate debug file found by build-id or .gnu_debuglink.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eh_frame/eh_internal.h"
#include "eh_frame/elf_file.h"
#include "eh_frame/hex.h"

static pthread_once_t libelf_once = PTHREAD_ONCE_INIT;

static void libelf_init(void)
{
	elf_version(EV_CURRENT);
}

Elf *eh_elf_begin(int fd)
{
	pthread_once(&libelf_once, libelf_init);
	return elf_begin(fd, ELF_C_READ_MMAP, NULL);
}

struct eh_elf_file {
	int fd;
	Elf *elf;
	const char *raw;
	size_t size;
	size_t shnum, shstrndx;
	dev_t dev;
	ino_t ino;
	__u8 build_id[PK_UNWIND_BUILD_ID_MAX];
	size_t build_id_len;
};

static bool in_file(const struct eh_elf_file *ef, __u64 off, __u64 len)
{
	return off <= ef->size && len <= ef->size - off;
}

static void find_build_id(struct eh_elf_file *ef)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(ef->elf, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !in_file(ef, sh.sh_offset, sh.sh_size))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off))) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + name_off, "GNU", 4) &&
			    nh.n_descsz && nh.n_descsz <= sizeof(ef->build_id)) {
				memcpy(ef->build_id, (char *)d->d_buf + desc_off,
				       nh.n_descsz);
				ef->build_id_len = nh.n_descsz;
				return;
			}
		}
	}
}

/* Before libelf sees the file: our own reading of the ELF header, so each
 * way of not being a usable x86_64 ELF gets its own reason (libelf would
 * quietly report a truncated file as having no sections). */
static int check_ident(int fd, size_t size, char err[PK_ERR_LEN])
{
	unsigned char id[sizeof(Elf64_Ehdr)] = { 0 };
	Elf64_Ehdr eh;
	ssize_t n = pread(fd, id, sizeof(id), 0);

	if (n < 0)
		return pk_err(err, -errno, "cannot read: %s", strerror(errno));
	if ((size_t)n < SELFMAG || memcmp(id, ELFMAG, SELFMAG))
		return pk_err(err, -ENOEXEC, "not an ELF file");
	if ((size_t)n > EI_CLASS && id[EI_CLASS] == ELFCLASS32)
		return pk_err(err, -ENOTSUP, "32-bit ELF: only 64-bit x86_64 is supported");
	if ((size_t)n < sizeof(eh))
		return pk_err(err, -ENOEXEC, "truncated ELF header (%zu bytes)", size);
	if (id[EI_CLASS] != ELFCLASS64)
		return pk_err(err, -ENOEXEC, "bad ELF class %u", id[EI_CLASS]);
	if (id[EI_DATA] != ELFDATA2LSB)
		return pk_err(err, -ENOTSUP, "big-endian ELF: only x86_64 is supported");
	memcpy(&eh, id, sizeof(eh));
	if (eh.e_machine != EM_X86_64)
		return pk_err(err, -ENOTSUP, "foreign architecture (e_machine %u): only x86_64 is supported",
			       eh.e_machine);
	/* e_shnum 0 with an offset: the count is in section 0, which must be
	 * there too */
	if (eh.e_shoff && (eh.e_shentsize != sizeof(Elf64_Shdr) ||
			   eh.e_shoff > size ||
			   (__u64)(eh.e_shnum ? eh.e_shnum : 1) * sizeof(Elf64_Shdr) >
			   size - eh.e_shoff))
		return pk_err(err, -EINVAL, "truncated ELF: section headers end past the end of the file");
	return 0;
}

static int check_header(struct eh_elf_file *ef, char err[PK_ERR_LEN])
{
	if (elf_kind(ef->elf) != ELF_K_ELF)
		return pk_err(err, -ENOEXEC, "not an ELF file");
	if (elf_getshdrnum(ef->elf, &ef->shnum) || elf_getshdrstrndx(ef->elf, &ef->shstrndx))
		return pk_err(err, -EINVAL, "truncated or bad ELF section headers: %s",
			       elf_errmsg(-1));
	/* extended numbering: the count came from section 0 */
	if (ef->shnum && !in_file(ef, elf64_getehdr(ef->elf)->e_shoff,
				  (__u64)ef->shnum * sizeof(Elf64_Shdr)))
		return pk_err(err, -EINVAL, "truncated ELF: section headers end past the end of the file");
	return 0;
}

int eh_elf_file_open(const char *path, struct eh_elf_file **out, char err[PK_ERR_LEN])
{
	struct eh_elf_file *ef;
	struct stat st;
	int ret;

	ef = calloc(1, sizeof(*ef));
	if (!ef)
		return pk_err(err, -ENOMEM, "out of memory");
	/* O_NONBLOCK: a FIFO must not hang us before fstat rejects it */
	ef->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (ef->fd < 0) {
		ret = pk_err(err, -errno, "cannot open: %s", strerror(errno));
		goto fail;
	}
	if (fstat(ef->fd, &st)) {
		ret = pk_err(err, -errno, "cannot stat: %s", strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = pk_err(err, -EISDIR, "is a directory");
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = pk_err(err, -EINVAL, "not a regular file");
		goto fail;
	}
	if (st.st_size == 0) {
		ret = pk_err(err, -ENOEXEC, "empty file");
		goto fail;
	}
	ef->dev = st.st_dev;
	ef->ino = st.st_ino;
	ret = check_ident(ef->fd, st.st_size, err);
	if (ret)
		goto fail;
	ef->elf = eh_elf_begin(ef->fd);
	if (!ef->elf) {
		ret = pk_err(err, -EINVAL, "cannot read ELF: %s", elf_errmsg(-1));
		goto fail;
	}
	ef->raw = elf_rawfile(ef->elf, &ef->size);
	if (!ef->raw || ef->size != (size_t)st.st_size) {
		ret = pk_err(err, -EINVAL, "cannot map the file: %s", elf_errmsg(-1));
		goto fail;
	}
	ret = check_header(ef, err);
	if (ret)
		goto fail;
	find_build_id(ef);
	*out = ef;
	return 0;
fail:
	eh_elf_file_close(ef);
	return ret;
}

void eh_elf_file_close(struct eh_elf_file *ef)
{
	if (!ef)
		return;
	if (ef->elf)
		elf_end(ef->elf);
	if (ef->fd >= 0)
		close(ef->fd);
	free(ef);
}

static Elf_Scn *find_section(struct eh_elf_file *ef, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(ef->elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(ef->elf, ef->shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

int eh_elf_file_section(struct eh_elf_file *ef, const char *name,
		      struct elf_section *out, char err[PK_ERR_LEN])
{
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;

	scn = find_section(ef, name, &sh);
	if (!scn || sh.sh_type == SHT_NOBITS)
		return -ENOENT;
	if (!in_file(ef, sh.sh_offset, sh.sh_size))
		return pk_err(err, -EINVAL, "truncated ELF: section %s ends past the end of the file",
			       name);
	if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return pk_err(err, -EINVAL, "cannot decompress section %s: %s",
			       name, elf_errmsg(-1));
	d = elf_getdata(scn, NULL);
	if (!d)
		return pk_err(err, -EINVAL, "cannot read section %s: %s", name,
			       elf_errmsg(-1));
	if (!d->d_buf || !d->d_size)
		return -ENOENT;
	out->data = d->d_buf;
	out->size = d->d_size;
	out->vaddr = sh.sh_addr;
	return 0;
}

const __u8 *eh_elf_file_build_id(const struct eh_elf_file *ef, size_t *len)
{
	*len = ef->build_id_len;
	return ef->build_id;
}

Elf *eh_elf_file_elf(const struct eh_elf_file *ef)
{
	return ef->elf;
}

const void *eh_elf_file_bytes(const struct eh_elf_file *ef, size_t *len)
{
	*len = ef->size;
	return ef->raw;
}

/* The file named by FMT if it is an ELF other than EF with EF's build-id
 * (when both have one); NULL if not, or if the name does not fit. */
static struct eh_elf_file *try_debug(struct eh_elf_file *ef, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static struct eh_elf_file *try_debug(struct eh_elf_file *ef, const char *fmt, ...)
{
	char candidate[PATH_MAX];
	struct eh_elf_file *dbg;
	struct stat st;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(candidate, sizeof(candidate), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(candidate))
		return NULL;
	if (stat(candidate, &st) || (st.st_dev == ef->dev && st.st_ino == ef->ino))
		return NULL;
	if (eh_elf_file_open(candidate, &dbg, NULL))
		return NULL;
	if (ef->build_id_len && dbg->build_id_len &&
	    (dbg->build_id_len != ef->build_id_len ||
	     memcmp(dbg->build_id, ef->build_id, ef->build_id_len))) {
		eh_elf_file_close(dbg);
		return NULL;
	}
	return dbg;
}

struct eh_elf_file *eh_elf_file_open_debug(struct eh_elf_file *ef, const char *path,
				      const char *debug_root)
{
	char dir[PATH_MAX], hex[2 * PK_UNWIND_BUILD_ID_MAX + 1];
	struct elf_section link;
	struct eh_elf_file *dbg;
	const char *name, *slash;

	if (ef->build_id_len >= 2 &&
	    !eh_hex(ef->build_id, ef->build_id_len, hex, sizeof(hex)) &&
	    (dbg = try_debug(ef, "%s/.build-id/%.2s/%s.debug", debug_root, hex, hex + 2)))
		return dbg;

	if (eh_elf_file_section(ef, ".gnu_debuglink", &link, NULL))
		return NULL;
	name = link.data;
	if (!memchr(name, 0, link.size) || !*name || strchr(name, '/'))
		return NULL;
	if (!realpath(path, dir))
		return NULL;
	slash = strrchr(dir, '/');
	dir[slash ? slash - dir : 0] = '\0';	/* "" for files in / */

	/* gdb's order: next to the file, its .debug/, the global root */
	if ((dbg = try_debug(ef, "%s/%s", dir, name)) ||
	    (dbg = try_debug(ef, "%s/.debug/%s", dir, name)))
		return dbg;
	return try_debug(ef, "%s%s/%s", debug_root, dir, name);
}
