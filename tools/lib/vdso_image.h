/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The vDSO has no file to read its unwind table from: this process's copy
 * (the kernel maps the same image into every 64-bit process) goes into a
 * memfd, which the ELF and cache code read like any file. */
#ifndef PK_VDSO_IMAGE_H
#define PK_VDSO_IMAGE_H

#include <stddef.h>

#include "eh_frame/errmsg.h"

/* A sealed-size memfd holding this process's vDSO image; *SIZE its bytes
 * (the [vdso] mapping of /proc/self/maps). Returns the fd, or a negative
 * errno with one line in ERR (-ENOENT: no vDSO). */
int pk_vdso_memfd(size_t *size, char err[PK_ERR_LEN]);

/* The path of this process's vDSO image as a file (/proc/self/fd/N) into
 * BUF: the memfd *FD, made at the first call (*FD -1) with its *SIZE, and
 * the caller's to close. 0, or a negative errno with one line in ERR. */
int pk_vdso_path(int *fd, size_t *size, char *buf, size_t len, char err[PK_ERR_LEN]);

#endif
