/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * probe-read's struct pk_table_sink: the unwind store of the session at a
 * pin directory, opened at the first file that needs it (most sessions,
 * and every --unwind fp one, never report one).
 */
#ifndef PK_TABLE_LOADER_H
#define PK_TABLE_LOADER_H

#include "reading/reader.h"

struct pk_table_loader;

/* PIN_DIR (NULL: the default) must outlive the loader. NULL: out of memory. */
struct pk_table_loader *pk_table_loader_new(const char *pin_dir);
void pk_table_loader_free(struct pk_table_loader *l);

/* The sink that adds files through L. */
struct pk_table_sink pk_table_loader_sink(struct pk_table_loader *l);

#endif
