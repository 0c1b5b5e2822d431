// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/proc_maps.h"
#include "lib/vdso_image.h"

int pk_vdso_memfd(size_t *size, char err[PK_ERR_LEN])
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	const struct pk_mapping *m;
	struct pk_maps maps;
	ssize_t n;
	int fd, ret;

	if (!base)
		return pk_err(err, -ENOENT, "no vDSO in this process");
	/* The image's size is its mapping's: the ELF headers would give it
	 * too, but /proc says it without trusting the image. */
	ret = pk_maps_read(NULL, getpid(), false, &maps);
	if (ret)
		return pk_err(err, ret, "cannot read /proc/self/maps: %s", strerror(-ret));
	m = pk_maps_find(&maps, base);
	if (!m || m->start != base || strcmp(m->name, "[vdso]")) {
		pk_maps_free(&maps);
		return pk_err(err, -ENOENT, "no [vdso] mapping at 0x%lx", base);
	}
	*size = m->end - m->start;
	pk_maps_free(&maps);
	fd = memfd_create("vdso", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return pk_err(err, -errno, "memfd_create: %s", strerror(errno));
	n = write(fd, (const void *)base, *size);
	if (n != (ssize_t)*size) {
		ret = n < 0 ? -errno : -EIO;
		close(fd);
		return pk_err(err, ret, "cannot copy the vDSO: %s", strerror(-ret));
	}
	/* what is read later is what was written now */
	fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
	return fd;
}

int pk_vdso_path(int *fd, size_t *size, char *buf, size_t len, char err[PK_ERR_LEN])
{
	if (*fd < 0) {
		int made = pk_vdso_memfd(size, err);

		if (made < 0)
			return made;
		*fd = made;
	}
	snprintf(buf, len, "/proc/self/fd/%d", *fd);
	return 0;
}
