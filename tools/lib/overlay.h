/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Files seen through overlayfs, as kernels before 6.8 map them. Until
 * Linux 6.8 a file mapped through an overlay is the layer's own file in
 * the VMA, so the BPF walk, /proc/PID/maps and the kernel's mapping
 * reports give the device and inode of the layer's file system, while the
 * path they give is the overlay's, where stat() answers with the overlay's
 * device. Since 6.8 both are the overlay's (file_user_inode()). To find
 * the file the kernel names on either, a path on an overlay is followed to
 * the layer that provides it, as the overlay's mount options list them.
 */
#ifndef PK_OVERLAY_H
#define PK_OVERLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/*
 * The file of the overlay's layers that PATH shows: the upper layer's if it
 * has one, else the first lower layer's, into BUF and *ST. 0; -ENOENT when
 * PATH is on no overlay of this mount namespace or no layer holds it,
 * -ENAMETOOLONG, or -errno reading /proc/self/mountinfo.
 */
int pk_overlay_layer_file(const char *path, char *buf, size_t len, struct stat *st);

/* PATH is the file of device DEV (as st_dev has it) and inode INO: the
 * file itself, or on an overlay the layer's file it shows. */
bool pk_path_is_inode(const char *path, dev_t dev, ino_t ino);

/* The same with MOUNTINFO, the text of /proc/self/mountinfo. */
int pk_overlay_layer_file_in(const char *mountinfo, const char *path, char *buf, size_t len,
			     struct stat *st);

#endif
