// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * probe-load reads the ELF file a uprobe or USDT event names: any file the
 * user points it at. The input is such a file; every site found must lie in
 * the file, the refusals must say why in one line, and a USDT note's
 * descriptor parser is fed the raw input too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "loader/events/elf_probe_sites.h"

static void check_err(const char *err)
{
	if (!err[0] || strchr(err, '\n'))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pk_probe_site site, *sites = NULL;
	struct pk_usdt_note note;
	char path[64], err[PK_ERR_LEN];
	size_t n = 99;
	int fd, ret;

	if (!pk_usdt_note_parse(data, size, &note)) {
		if ((const uint8_t *)note.provider < data || (const uint8_t *)note.name >= data + size ||
		    !memchr(note.name, '\0', data + size - (const uint8_t *)note.name))
			abort();
	}
	fd = memfd_create("fuzz_elf", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	err[0] = '\0';
	ret = pk_elf_usdt_sites(path, "pkt", "tick", &sites, &n, err);
	if (ret) {
		check_err(err);
		if (sites || n)
			abort();
	} else {
		if (!n)
			abort();
		for (size_t i = 0; i < n; i++)
			if (sites[i].offset >= size || sites[i].ref_ctr_offset >= size)
				abort();
		free(sites);
	}
	err[0] = '\0';
	ret = pk_elf_func_site(path, "hot_fn", &site, err);
	if (ret)
		check_err(err);
	else if (site.offset >= size)
		abort();
	close(fd);
	return 0;
}
