/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel's types that a BPF object's CO-RE relocations need, as a BTF
 * file of a few KiB for libbpf's btf_custom_path, in place of the
 * megabytes of /sys/kernel/btf/vmlinux that libbpf otherwise reads,
 * indexes and searches by name once per type the object relocates.
 */
#ifndef PK_LOADER_KERNEL_BTF_H
#define PK_LOADER_KERNEL_BTF_H

#include <stddef.h>

/* The program that makes the file, `bpftool gen min_core_btf` (the tool
 * BTFHub makes such files with, from libbpf's own relocation code):
 * this variable's value, else bpftool in $PATH, else /usr/sbin/bpftool. */
#define PK_BPFTOOL_ENV	"PROBEKIT_BPFTOOL"

/*
 * The path, into PATH (LEN bytes), of the BTF file holding the running
 * kernel's types that OBJ (the ELF BPF object, OBJ_LEN bytes) relocates
 * against: kept as kernel/<boot id>-<object hash>.btf under CACHE_ROOT,
 * made there first when it is missing or unreadable, then used by every
 * later load of that object in this boot. 0, or a negative errno when
 * there is none to be had (no bpftool, a cache that cannot be written):
 * libbpf reads the kernel's whole BTF then, as it would anyway. A file
 * is made under a temporary name and renamed, so none is ever partial.
 */
int pk_kernel_btf_for(const void *obj, size_t obj_len, const char *cache_root, char *path,
		      size_t len);

#endif
