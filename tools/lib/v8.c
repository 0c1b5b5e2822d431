// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * V8's postmortem metadata from the file (tools/lib/v8.h): one pass over
 * .dynsym, each v8dbg_ name matched against pk_v8_wants, its int read
 * from its section's bytes. Debian's libnode.so.115 has ~66000 dynamic
 * symbols, 531 of them v8dbg_; the prefix filters the rest.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "eh_frame/elf_file.h"
#include "lib/v8.h"

/* The int symbol SYM stands for: 0 and *V, or -EBADMSG (ERR says why).
 * In a PROGBITS section, its 4 bytes within the section and within the
 * file; in a NOBITS one (.bss: those whose value is 0), 0 when it lies
 * within the section. */
static int sym_value(Elf *elf, const GElf_Sym *sym, const char *name, __s32 *v,
		     char err[PK_ERR_LEN])
{
	Elf_Scn *scn = sym->st_shndx < SHN_LORESERVE ? elf_getscn(elf, sym->st_shndx) : NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	__u64 off;

	if (sym->st_size != sizeof(*v))
		return pk_err(err, -EBADMSG, "%s: %llu bytes, not an int", name,
			      (unsigned long long)sym->st_size);
	if (!scn || !gelf_getshdr(scn, &sh) ||
	    (sh.sh_type != SHT_PROGBITS && sh.sh_type != SHT_NOBITS))
		return pk_err(err, -EBADMSG, "%s: in no data section", name);
	if (sym->st_value < sh.sh_addr || sym->st_value - sh.sh_addr > sh.sh_size ||
	    sh.sh_size - (sym->st_value - sh.sh_addr) < sizeof(*v))
		return pk_err(err, -EBADMSG, "%s: outside its section", name);
	off = sym->st_value - sh.sh_addr;
	if (sh.sh_type == SHT_NOBITS) {
		*v = 0;
		return 0;
	}
	/* raw: the bytes as they are in the file (little-endian, checked) */
	d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size < off || d->d_size - off < sizeof(*v))
		return pk_err(err, -EBADMSG, "%s: its section's bytes are not in the file", name);
	memcpy(v, (const char *)d->d_buf + off, sizeof(*v));
	return 0;
}

/* Take the value of symbol NAME (prefix stripped) into OUT when it is a
 * want: 0, or -EBADMSG. */
static int take(Elf *elf, const GElf_Sym *sym, const char *name, struct pk_v8 *out,
		char err[PK_ERR_LEN])
{
	unsigned int alt;
	size_t w;
	__s32 v = 0;	/* set on success: gcc -O2 cannot see pk_err() is never 0 */
	int ret;

	if (pk_v8_want_match(name, &w, &alt))
		return 0;
	ret = sym_value(elf, sym, name - strlen(PK_V8_PREFIX), &v, err);
	if (ret)
		return ret;
	/* a later name of the same value: the first found stays, but two
	 * that disagree leave the value unknown */
	if (out->found[w]) {
		if (pk_v8_value(out, w) != v)
			return pk_err(err, -EBADMSG, "%s%s: %d, and %d under another name",
				      PK_V8_PREFIX, name, v, pk_v8_value(out, w));
		if (out->found[w] <= alt + 1)
			return 0;
	}
	memcpy((char *)out + pk_v8_wants[w].at, &v, sizeof(v));
	out->found[w] = alt + 1;
	return 0;
}

static int scan_dynsym(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct pk_v8 *out,
		       char err[PK_ERR_LEN])
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = data ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int ret;

		if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || strncmp(name, PK_V8_PREFIX, strlen(PK_V8_PREFIX)))
			continue;
		out->n_syms++;
		ret = take(elf, &sym, name + strlen(PK_V8_PREFIX), out, err);
		if (ret)
			return ret;
	}
	return 0;
}

int pk_v8_elf(Elf *elf, struct pk_v8 *out, char err[PK_ERR_LEN])
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;

	memset(out, 0, sizeof(*out));
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return pk_err(err, -ENOENT, "not a 64-bit little-endian ELF");
	while ((scn = elf_nextscn(elf, scn))) {
		int ret;

		if (!gelf_getshdr(scn, &sh))
			break;
		if (sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		ret = scan_dynsym(elf, scn, &sh, out, err);
		if (ret)
			return ret;
	}
	if (!out->n_syms)
		return pk_err(err, -ENOENT, "no %s symbols", PK_V8_PREFIX);
	for (size_t i = 0; i < pk_v8_n_wants; i++)
		if (pk_v8_wants[i].required && !out->found[i])
			return pk_err(err, -ENOTSUP, "V8 describes no %s%s", PK_V8_PREFIX,
				      pk_v8_wants[i].names[0]);
	return 0;
}

int pk_v8_file(const char *path, struct pk_v8 *out, char err[PK_ERR_LEN])
{
	Elf *elf;
	int fd, ret;

	memset(out, 0, sizeof(*out));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return pk_err(err, -errno, "%s: %m", path);
	elf = eh_elf_begin(fd);
	ret = elf ? pk_v8_elf(elf, out, err) : pk_err(err, -ENOENT, "%s: not an ELF", path);
	elf_end(elf);
	close(fd);
	return ret;
}
