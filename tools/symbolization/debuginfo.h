/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * How every Dwfl of probe-read finds a file's separate debug information:
 * on this machine only. By build-id under /usr/lib/debug/.build-id, or
 * under probe-read's --debug-dir directories (libdwfl's
 * dwfl_build_id_find_debuginfo, their path in the callbacks a
 * pk_symfiles gives its Dwfls), else by the file's
 * .gnu_debuglink name beside the file, in its .debug/ directory and under
 * /usr/lib/debug, where gdb looks; a file found by name is taken only when
 * its build-id is the file's. A file named through a process's root
 * (PROC/PID/root/usr/bin/x, a container's or a chroot's) is looked for
 * under that root's /usr/lib/debug (PROC/PID/root/usr/lib/debug/usr/bin/),
 * where the root's -dbg packages put it, never under the host's.
 *
 * Not dwfl_standard_find_debuginfo: where it finds nothing it asks
 * debuginfod. Its client, which each Dwfl keeps until dwfl_end, holds a
 * curl handle and with it a socket pair: two descriptors for every file
 * probe-read keeps, whether or not a server is configured. And where
 * DEBUGINFOD_URLS is set, debug files would be downloaded while profiling.
 */
#ifndef PK_DEBUGINFO_H
#define PK_DEBUGINFO_H

#include <elfutils/libdwfl.h>

/* Offline callbacks: modules reported from their files at bias 0
 * (dwfl_report_elf), debug information found as above. */
extern const Dwfl_Callbacks pk_dwfl_callbacks;

/* Dwfl_Callbacks.find_debuginfo: an open descriptor and its path in
 * *DEBUGINFO_FILE_NAME (both the caller's), or -1. */
int pk_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
		      const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		      char **debuginfo_file_name);

#endif
