// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session.h"

int pk_pin_path(char *buf, size_t len, const char *pin_dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", pin_dir ? pin_dir : PK_PIN_DIR_DEFAULT, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int pk_pin_open(const char *pin_dir, const char *name)
{
	char path[PATH_MAX];
	int fd, ret = pk_pin_path(path, sizeof(path), pin_dir, name);

	if (ret)
		return ret;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

int pk_session_open(const char *pin_dir, struct pk_session_fds *fds,
		    struct pk_session *info)
{
	__u32 key = 0;
	int ret;

	fds->events = fds->counters = fds->targets = -1;
	/* The session map is pinned last: without it, nothing is loaded (or a
	 * load is still under way). */
	fds->session = pk_pin_open(pin_dir, PK_PIN_SESSION);
	if (fds->session < 0) {
		ret = fds->session;
		goto err;
	}
	if (bpf_map_lookup_elem(fds->session, &key, info)) {
		ret = -errno;
		goto err;
	}
	if (info->layout_version != PK_PIN_LAYOUT_VERSION) {
		ret = -EPROTO;
		goto err;
	}
	fds->events = pk_pin_open(pin_dir, PK_PIN_EVENTS);
	fds->counters = pk_pin_open(pin_dir, PK_PIN_COUNTERS);
	fds->targets = pk_pin_open(pin_dir, PK_PIN_TARGETS);
	ret = fds->events < 0 ? fds->events : fds->counters < 0 ? fds->counters :
	      fds->targets < 0 ? fds->targets : 0;
	if (ret == 0)
		return 0;
err:
	pk_session_close(fds);
	return ret;
}

void pk_session_close(struct pk_session_fds *fds)
{
	int *all[] = { &fds->events, &fds->counters, &fds->session, &fds->targets };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (*all[i] >= 0)
			close(*all[i]);
		*all[i] = -1;
	}
}

const char *const pk_unwind_pins[PK_UNWIND_NMAPS] = {
	PK_PIN_UNWIND_FILES, PK_PIN_UNWIND_TABLES, PK_PIN_UNWIND_PCS,
	PK_PIN_UNWIND_RULE_IDS, PK_PIN_UNWIND_RULES, PK_PIN_UNWIND_ALLOC,
	PK_PIN_UNWIND_SEEN,
};

_Static_assert(sizeof(struct pk_unwind_fds) == PK_UNWIND_NMAPS * sizeof(int),
	       "pk_unwind_fds: one int per pin");

int pk_unwind_fds_open(const char *pin_dir, struct pk_unwind_fds *fds)
{
	int ret = 0;

	for (int i = 0; i < PK_UNWIND_NMAPS; i++)
		fds->fd[i] = -1;
	for (int i = 0; i < PK_UNWIND_NMAPS && !ret; i++) {
		fds->fd[i] = pk_pin_open(pin_dir, pk_unwind_pins[i]);
		if (fds->fd[i] < 0)
			ret = fds->fd[i];
	}
	if (ret)
		pk_unwind_fds_close(fds);
	return ret;
}

void pk_unwind_fds_close(struct pk_unwind_fds *fds)
{
	for (int i = 0; i < PK_UNWIND_NMAPS; i++) {
		if (fds->fd[i] >= 0)
			close(fds->fd[i]);
		fds->fd[i] = -1;
	}
}

int pk_counters_read(int counters_fd, __u64 out[PK_CNT__MAX])
{
	int ncpus = libbpf_num_possible_cpus();
	__u64 *percpu;
	int ret = 0;

	if (ncpus < 0)
		return ncpus;
	percpu = calloc(ncpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	for (__u32 i = 0; i < PK_CNT__MAX; i++) {
		if (bpf_map_lookup_elem(counters_fd, &i, percpu)) {
			ret = -errno;
			break;
		}
		out[i] = 0;
		for (int c = 0; c < ncpus; c++)
			out[i] += percpu[c];
	}
	free(percpu);
	return ret;
}

int pk_targets_count(int targets_fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), key, next;
	void *prev = NULL;
	int n = 0;

	if (bpf_obj_get_info_by_fd(targets_fd, &info, &len))
		return -errno;
	/* A key deleted under us restarts the walk at the first key: bound it. */
	while ((__u32)n < info.max_entries) {
		if (bpf_map_get_next_key(targets_fd, prev, &next))
			return errno == ENOENT ? n : -errno;
		key = next;
		prev = &key;
		n++;
	}
	return n;
}

int pk_targets_empty(int targets_fd)
{
	__u32 key;

	if (bpf_map_get_next_key(targets_fd, NULL, &key) == 0)
		return 0;
	return errno == ENOENT ? 1 : -errno;
}
