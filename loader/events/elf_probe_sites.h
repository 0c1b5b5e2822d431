/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Where a uprobe goes in a file: the file offset of a function symbol, or of
 * each site of a USDT probe (its .note.stapsdt notes) with the file offset of
 * its semaphore, which the kernel increments while the uprobe is attached
 * (the uprobe's ref_ctr_offset).
 *
 * libbpf resolves both too, but its USDT link is a set of uprobe links with
 * no fd of its own, which cannot be pinned: probekit attaches one pinned
 * uprobe per site instead. Stacks need no USDT arguments.
 */
#ifndef PK_ELF_PROBE_SITES_H
#define PK_ELF_PROBE_SITES_H

#include <linux/types.h>
#include <stddef.h>

#include "eh_frame/errmsg.h"

struct pk_probe_site {
	__u64 offset;		/* file offset of the instruction */
	__u64 ref_ctr_offset;	/* file offset of the USDT semaphore; 0: none */
};

/* The file offset of function SYM (.symtab, else .dynsym) in PATH. -ENOENT
 * with the reason (and close names) in ERR when it has none. */
int pk_elf_func_site(const char *path, const char *sym, struct pk_probe_site *site,
		     char err[PK_ERR_LEN]);

/* GIVEN made absolute (malloc'ed into *PATH): as it is when it holds a '/',
 * else the first executable of that name in PATH, as bpftrace finds
 * uprobe:python3.11:main. -ENOENT, or -errno, with the reason in ERR. */
int pk_probe_file(const char *given, char **path, char err[PK_ERR_LEN]);

/* Call FN with the name of every function PATH defines (.symtab, then
 * .dynsym: a name may come twice). */
int pk_elf_func_names(const char *path, void (*fn)(const char *name, void *arg), void *arg,
		      char err[PK_ERR_LEN]);

/* Call FN with "PROVIDER:NAME" of every USDT note of PATH (once a site). */
int pk_elf_usdt_names(const char *path, void (*fn)(const char *name, void *arg), void *arg,
		      char err[PK_ERR_LEN]);

/* Every site of USDT probe PROVIDER:NAME in PATH, into *SITES (malloc'ed).
 * -ENOENT with the reason in ERR when there is none. */
int pk_elf_usdt_sites(const char *path, const char *provider, const char *name,
		      struct pk_probe_site **sites, size_t *n, char err[PK_ERR_LEN]);

/* One stapsdt note's descriptor (DESC, LEN bytes, 64-bit addresses): its
 * three addresses and its provider and name, pointing into DESC. -EINVAL
 * when it is malformed. Exposed for the fuzzer. */
struct pk_usdt_note {
	__u64 pc, base, semaphore;
	const char *provider, *name;
};
int pk_usdt_note_parse(const void *desc, size_t len, struct pk_usdt_note *note);

#endif
