/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Separate debug files read without inflating them again. Debian's
 * -dbgsym and -dbg files compress their .debug_* sections (SHF_COMPRESSED,
 * zlib), and libdw inflates every one of them when it opens the file:
 * libc's 4 MiB file costs about 40 ms of CPU each time a reader needs one
 * of its lines. The first reader that opens a compressed debug file
 * writes an uncompressed copy into the cache (<root>/<2 hex>/<rest>.debug,
 * by build-id as the unwind tables; written whole, then renamed), which
 * later readers map instead: libdw then reads only the pages it touches.
 * A copy whose build-id is not the file's is not used.
 */
#ifndef PK_DEBUG_PLAIN_H
#define PK_DEBUG_PLAIN_H

/* Keep the copies under ROOT (the cache root; NULL: keep none, the
 * default). For every Dwfl of this process (debuginfo.h). 0 or -ENOMEM. */
int pk_debug_plain_set_root(const char *root);

/*
 * FD, an open debug file of build-id ID (LEN bytes) found at *PATH: if it
 * has compressed debug sections and a root is set, the descriptor of its
 * uncompressed copy (made now if there is none; FD is then closed and
 * *PATH, the caller's to free, names the copy); else FD itself.
 */
int pk_debug_plain_open(int fd, const unsigned char *id, int len, char **path);

/* The uncompressed copy of the debug file of build-id ID (LEN bytes) under
 * /usr/lib/debug/.build-id, made now if that file is compressed and there
 * is none: its descriptor and, in *PATH (the caller's to free), its path;
 * -1 when there is no copy to read (the file is not compressed, or there
 * is none). Before libdwfl's own search by build-id, which would keep the
 * compressed file it opened. */
int pk_debug_plain_find(const unsigned char *id, int len, char **path);

#endif
