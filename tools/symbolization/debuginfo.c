// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eh_frame/elf_file.h"
#include "symbolization/debug_plain.h"
#include "symbolization/debuginfo.h"

const Dwfl_Callbacks pk_dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = pk_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* PATH opened when it is another file than MAIN (no file is its own debug
 * file) whose build-id is ID (LEN bytes); else -1. */
static int open_if_same_build(const char *path, const unsigned char *id, int len,
			      const struct stat *main)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	const void *bits;
	struct stat st;
	bool same = false;
	Elf *elf;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && !(main && st.st_dev == main->st_dev &&
				     st.st_ino == main->st_ino)) {
		elf = eh_elf_begin(fd);
		same = elf && dwelf_elf_gnu_build_id(elf, &bits) == len && !memcmp(bits, id, len);
		elf_end(elf);
	}
	if (!same) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The length of FILE's leading PROC/PID/root (or PROC/self/root) when
 * FILE is named through a process's root, as the symbolizer opens the
 * files of a process in another root; else 0. */
static size_t root_prefix_len(const char *file)
{
	for (const char *p = strstr(file, "/root/"); p; p = strstr(p + 1, "/root/")) {
		const char *c = p;

		while (c > file && c[-1] != '/')
			c--;
		if (c == file || c == p)
			continue;
		if ((size_t)(p - c) == 4 && !strncmp(c, "self", 4))
			return (size_t)(p - file) + 5;
		if ((size_t)strspn(c, "0123456789") == (size_t)(p - c))
			return (size_t)(p - file) + 5;
	}
	return 0;
}

/* LINK beside FILE, in its .debug/ and under /usr/lib/debug (the root's
 * when FILE is named through a process's root: a root's file has its
 * debug files there, never in the host's): the first that has build-id
 * ID, its path in *NAME. */
static int search_beside(const char *file, const char *link, const unsigned char *id, int len,
			 const struct stat *main, char **name)
{
	const char *slash = strrchr(file, '/');
	int dlen = slash ? (int)(slash - file) : 1;
	const char *dir = slash ? file : ".";
	int rlen = (int)root_prefix_len(file);
	char path[PATH_MAX];
	int fd, n;

	for (int i = 0; i < 3; i++) {
		static const char *const fmt[] = { "%.*s/%s", "%.*s/.debug/%s" };

		if (i == 2 && dir[0] != '/')
			break;
		if (i < 2)
			n = snprintf(path, sizeof(path), fmt[i], dlen, dir, link);
		else	/* ROOT/usr/lib/debug/DIR/LINK, DIR as the root names it */
			n = snprintf(path, sizeof(path), "%.*s/usr/lib/debug%.*s/%s", rlen, file,
				     dlen - rlen, dir + rlen, link);
		if (n < 0 || n >= (int)sizeof(path))
			continue;
		fd = open_if_same_build(path, id, len, main);
		if (fd >= 0) {
			*name = strdup(path);
			if (*name)
				return fd;
			close(fd);
			return -1;
		}
	}
	return -1;
}

int pk_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
		      const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		      char **debuginfo_file_name)
{
	const unsigned char *id;
	struct stat main_st;
	bool have_main;
	GElf_Addr vaddr;
	char *canon;
	int len, fd;

	len = dwfl_module_build_id(mod, &id, &vaddr);
	/* The module's own debug file (an alternate, dwz, file is asked for
	 * by its path, which has a '/'), uncompressed once for all readers.
	 * libdwfl's search would keep the file it opened. */
	if (len > 0 && (!debuglink_file || !strchr(debuglink_file, '/'))) {
		fd = pk_debug_plain_find(id, len, debuginfo_file_name);
		if (fd >= 0)
			return fd;
	}
	fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
					  debuglink_file, debuglink_crc, debuginfo_file_name);
	if (fd >= 0)
		return fd;
	/* By name only with a build-id to check the find by (the CRC is not
	 * read: every file of a distribution has a build-id), and only a
	 * plain name, as the link holds. An alternate (dwz) file, looked up
	 * here too, has another build-id than the module's: found by its own
	 * above, never by name. */
	if (len <= 0 || !file_name || !debuglink_file || !*debuglink_file ||
	    strchr(debuglink_file, '/'))
		return -1;
	have_main = stat(file_name, &main_st) == 0;
	fd = search_beside(file_name, debuglink_file, id, len, have_main ? &main_st : NULL,
			   debuginfo_file_name);
	/* a file opened through a link (/proc/PID/map_files/...) has its
	 * debug file beside its target */
	canon = fd < 0 ? realpath(file_name, NULL) : NULL;
	if (canon && strcmp(canon, file_name))
		fd = search_beside(canon, debuglink_file, id, len, have_main ? &main_st : NULL,
				   debuginfo_file_name);
	free(canon);
	return fd >= 0 ? pk_debug_plain_open(fd, id, len, debuginfo_file_name) : fd;
}
