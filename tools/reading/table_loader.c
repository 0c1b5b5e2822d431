// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdlib.h>
#include <string.h>

#include "reading/table_loader.h"

struct pk_table_loader {
	const char *pin_dir;
	struct pk_unwind_store *store;
	int open_ret;		/* < 0: opening failed, not tried again */
	double next_reclaim;	/* pk_now_s() of the next give-back; 0: not set */
};

struct pk_table_loader *pk_table_loader_new(const char *pin_dir)
{
	struct pk_table_loader *l = calloc(1, sizeof(*l));

	if (l)
		l->pin_dir = pin_dir;
	return l;
}

void pk_table_loader_free(struct pk_table_loader *l)
{
	if (!l)
		return;
	pk_unwind_store_free(l->store);
	free(l);
}

/* The store, opened at the first file that needs it. */
static int loader_store(struct pk_table_loader *l, char err[PK_ERR_LEN])
{
	/* One table at a time: the files come one event at a time. */
	struct pk_unwind_store_opts opts = { .jobs = 1, .prog = "probe-read" };

	/* A store that would not open will not open for the next file
	 * either; the reader has logged the first failure. */
	if (l->open_ret)
		return pk_err(err, l->open_ret, "cannot open the unwind tables: %s",
			      strerror(-l->open_ret));
	if (!l->store)
		l->open_ret = pk_unwind_store_open(l->pin_dir, &opts, &l->store, err);
	return l->open_ret;
}

static int loader_add(void *ctx, const struct pk_unwind_file *file, char err[PK_ERR_LEN])
{
	struct pk_table_loader *l = ctx;
	int ret = loader_store(l, err);

	return ret ? ret : pk_unwind_store_add(l->store, file, 1, NULL, err);
}

static void loader_forget(void *ctx, const struct pk_file_key *key)
{
	struct pk_table_loader *l = ctx;
	char err[PK_ERR_LEN];

	if (!loader_store(l, err))
		pk_unwind_store_forget(l->store, key);
}

struct pk_table_sink pk_table_loader_sink(struct pk_table_loader *l)
{
	return (struct pk_table_sink){ .add = loader_add, .forget = loader_forget, .ctx = l };
}

int pk_table_loader_tick(struct pk_table_loader *l, double now, char err[PK_ERR_LEN])
{
	struct pk_unwind_stats st = { 0 };
	int ret;

	if (!l->next_reclaim)
		l->next_reclaim = now + PK_TABLE_RECLAIM_S;
	/* a store that did not open was said so once, when it failed */
	if (now < l->next_reclaim || l->open_ret)
		return 0;
	l->next_reclaim = now + PK_TABLE_RECLAIM_S;
	ret = loader_store(l, err);
	if (!ret)
		ret = pk_unwind_store_reclaim(l->store, &st, err);
	return ret ? ret : (int)st.freed;
}
