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

/* How often a reader gives back the tables of files no process maps. */
#define PK_TABLE_RECLAIM_S	60

/* Called as the reader runs, NOW from pk_now_s(): every PK_TABLE_RECLAIM_S
 * seconds from the first call, give back the tables of files that no
 * process maps any more (pk_unwind_store_reclaim), so that their kernel
 * memory returns though no table needs the room. The tables given back,
 * or a negative errno with one line in ERR. */
int pk_table_loader_tick(struct pk_table_loader *l, double now, char err[PK_ERR_LEN]);

#endif
