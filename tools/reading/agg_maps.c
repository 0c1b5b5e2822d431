// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/session.h"
#include "reading/agg_maps.h"

static int map_info(int fd, struct bpf_map_info *info)
{
	__u32 len = sizeof(*info);

	memset(info, 0, len);
	return bpf_obj_get_info_by_fd(fd, info, &len) ? -errno : 0;
}

int pk_agg_maps_open(struct pk_agg_maps *m, const char *pin_dir, char err[PK_ERR_LEN])
{
	static const char *const names[2] = { PK_PIN_AGG_COUNTS0, PK_PIN_AGG_COUNTS1 };
	struct bpf_map_info info;
	int ret;

	*m = (struct pk_agg_maps){ .slot = -1, .counts = { -1, -1 } };
	m->slot = pk_pin_open(pin_dir, PK_PIN_AGG_SLOT);
	if (m->slot < 0) {
		ret = m->slot;
		goto fail;
	}
	for (int i = 0; i < 2; i++) {
		m->counts[i] = pk_pin_open(pin_dir, names[i]);
		if (m->counts[i] < 0) {
			ret = m->counts[i];
			goto fail;
		}
		ret = map_info(m->counts[i], &info);
		if (ret)
			goto fail;
		if (info.type != BPF_MAP_TYPE_HASH || info.key_size != sizeof(__u64) ||
		    info.value_size != sizeof(struct pk_agg_value) || !info.max_entries ||
		    (i && info.max_entries != m->entries)) {
			pk_agg_maps_close(m);
			return pk_err(err, -EBADMSG, "the session's %s is not a counts map of this probe-read's",
				      names[i]);
		}
		m->ids[i] = info.id;
		m->entries = info.max_entries;
	}
	m->keys = calloc(m->entries, sizeof(*m->keys));
	m->vals = calloc(m->entries, sizeof(*m->vals));
	if (!m->keys || !m->vals) {
		ret = -ENOMEM;
		goto fail;
	}
	return 0;
fail:
	pk_agg_maps_close(m);
	return pk_err(err, ret, "cannot open the counts maps at %s: %s", pin_dir, strerror(-ret));
}

void pk_agg_maps_close(struct pk_agg_maps *m)
{
	if (m->slot >= 0)
		close(m->slot);
	for (int i = 0; i < 2; i++)
		if (m->counts[i] >= 0)
			close(m->counts[i]);
	free(m->keys);
	free(m->vals);
	*m = (struct pk_agg_maps){ .slot = -1, .counts = { -1, -1 } };
}

/* The index of the map in the slot, or a negative errno. */
static int in_slot(const struct pk_agg_maps *m)
{
	__u32 zero = 0, id;

	if (bpf_map_lookup_elem(m->slot, &zero, &id))
		return -errno;
	for (int i = 0; i < 2; i++)
		if (m->ids[i] == id)
			return i;
	return -EBADMSG;	/* someone else's map in our slot */
}

int pk_agg_maps_swap(struct pk_agg_maps *m)
{
	int cur = in_slot(m);
	__u32 zero = 0, fd;

	if (cur < 0)
		return cur;
	fd = m->counts[!cur];
	if (bpf_map_update_elem(m->slot, &zero, &fd, BPF_ANY))
		return -errno;
	m->swaps++;
	return cur;
}

int pk_agg_maps_drain(struct pk_agg_maps *m, int i,
		      int (*fn)(void *ctx, __u64 key, const struct pk_agg_value *v), void *ctx)
{
	__u64 batch = 0;	/* the kernel's place in the hash table (a bucket) */
	bool first = true;
	int ret;

	for (;;) {
		__u32 n = m->entries;
		int err = 0;

		/* a batch as big as the map: never ENOSPC for a bucket that
		 * does not fit */
		if (bpf_map_lookup_and_delete_batch(m->counts[i], first ? NULL : &batch, &batch,
						    m->keys, m->vals, &n, NULL))
			err = -errno;
		if (err && err != -ENOENT)
			return err;
		for (__u32 k = 0; k < n && k < m->entries; k++) {
			ret = fn(ctx, m->keys[k], &m->vals[k]);
			if (ret)
				return ret;
		}
		if (err == -ENOENT)
			return 0;	/* the last batch */
		first = false;
	}
}

struct add_ctx {
	struct pk_reader *reader;
	__u64 time_ns;
};

static int add_counts(void *ctx, __u64 key, const struct pk_agg_value *v)
{
	const struct add_ctx *c = ctx;

	return pk_reader_add_counts(c->reader, key, v, c->time_ns);
}

int pk_agg_maps_read(struct pk_agg_maps *m, struct ring_buffer *rb, struct pk_reader *reader,
		     __u64 time_ns, bool only_spare, char err[PK_ERR_LEN])
{
	struct add_ctx c = { .reader = reader, .time_ns = time_ns };
	int old, ret;

	if (only_spare) {
		old = in_slot(m);
		if (old < 0)
			return pk_err(err, old, "cannot read the counts map slot: %s", strerror(-old));
		old = !old;
	} else {
		old = pk_agg_maps_swap(m);
		if (old < 0)
			return pk_err(err, old, "cannot swap the counts maps: %s", strerror(-old));
		ret = ring_buffer__consume(rb);
		if (ret < 0)
			return pk_err(err, ret, "cannot read the ring buffer: %s", strerror(-ret));
	}
	ret = pk_agg_maps_drain(m, old, add_counts, &c);
	if (ret)
		return pk_err(err, ret, "cannot read the counts map: %s", strerror(-ret));
	return 0;
}
