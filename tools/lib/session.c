// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/session.h"

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
	/* A loader before a field was added pins a shorter value: what it
	 * lacks reads as 0 (nevents 0: no events). */
	memset(info, 0, sizeof(*info));
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

int pk_session_reader_gen_next(int session_fd)
{
	struct pk_session info;
	__u32 key = 0;

	/* The whole value written back: probe-load writes it once before it
	 * pins it, and readers hold the lock, so nothing else changes it. */
	if (bpf_map_lookup_elem(session_fd, &key, &info))
		return -errno;
	info.reader_gen++;
	if (bpf_map_update_elem(session_fd, &key, &info, BPF_EXIST))
		return -errno;
	return 0;
}

const char *const pk_unwind_pins[PK_UNWIND_NMAPS] = {
	PK_PIN_UNWIND_FILES, PK_PIN_UNWIND_TABLES, PK_PIN_UNWIND_ROWS,
	PK_PIN_UNWIND_ALLOC, PK_PIN_UNWIND_SEEN, PK_PIN_PY_FILES, PK_PIN_HS_FILES,
	PK_PIN_V8_FILES,
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
		/* py_files, hs_files and v8_files came later: a session
		 * without them has no Python, Java or JavaScript frames */
		if (fds->fd[i] == -ENOENT && (&fds->fd[i] == &fds->py || &fds->fd[i] == &fds->hs ||
					      &fds->fd[i] == &fds->v8)) {
			fds->fd[i] = -1;
			continue;
		}
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
			/* a session of an older probe-load has fewer counters */
			if (errno == ENOENT) {
				out[i] = 0;
				continue;
			}
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

/* The implicit event of a session from before events. */
static void implicit_event(const struct pk_session *info, struct pk_event_desc *ev)
{
	memset(ev, 0, sizeof(*ev));
	strcpy(ev->name, "cpu-clock");
	ev->kind = PK_EVK_PERF;
	ev->unit = PK_UNIT_NS;
	ev->flags = PK_EVF_FREQ;
	ev->freq_hz = info->freq_hz;
}

/* What an fd's map is: -EBADMSG unless its type is TYPE, its values
 * VALUE_SIZE bytes and it has at least MIN_ENTRIES entries. */
static int check_map(int fd, __u32 type, __u32 value_size, __u32 min_entries)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (info.type != type || info.key_size != sizeof(__u32) ||
	    info.value_size != value_size || info.max_entries < min_entries)
		return -EBADMSG;
	return 0;
}

int pk_event_list_check(const struct pk_event_desc *ev, unsigned int n, char err[PK_ERR_LEN])
{
	if (n < 1 || n > PK_MAX_EVENTS)
		return pk_err(err, -EBADMSG, "%u events (1 to %d)", n, PK_MAX_EVENTS);
	for (unsigned int i = 0; i < n; i++) {
		const char *name = ev[i].name;
		size_t len = strnlen(name, sizeof(ev[i].name));

		if (len == sizeof(ev[i].name))
			return pk_err(err, -EBADMSG, "event %u: its name has no end", i);
		if (!len)
			return pk_err(err, -EBADMSG, "event %u: no name", i);
		for (size_t k = 0; k < len; k++)
			if ((unsigned char)name[k] < 0x20 || name[k] == 0x7f)
				return pk_err(err, -EBADMSG, "event %u: a control character in its name", i);
		if (ev[i].kind < PK_EVK_PERF || ev[i].kind > PK_EVK_USDT)
			return pk_err(err, -EBADMSG, "event %s: unknown kind %u", name, ev[i].kind);
		if (ev[i].unit > PK_UNIT_NS)
			return pk_err(err, -EBADMSG, "event %s: unknown unit %u", name, ev[i].unit);
		if ((ev[i].flags & PK_EVF_FREQ) && !ev[i].freq_hz)
			return pk_err(err, -EBADMSG, "event %s: sampled at a frequency of 0 Hz", name);
		for (unsigned int j = 0; j < i; j++)
			if (strcmp(ev[j].name, name) == 0)
				return pk_err(err, -EBADMSG, "event %s: listed twice (%u and %u)",
					      name, j, i);
	}
	return 0;
}

int pk_event_list_read(const char *pin_dir, const struct pk_session *info,
		       struct pk_event_desc *out, unsigned int *n)
{
	char ignored[PK_ERR_LEN];
	int fd, ret = 0;

	*n = 0;
	if (info->nevents == 0) {
		implicit_event(info, out);
		*n = 1;
		return 0;
	}
	fd = pk_pin_open(pin_dir, PK_PIN_EVENT_LIST);
	if (fd == -ENOENT) {
		implicit_event(info, out);
		*n = 1;
		return 0;
	}
	if (fd < 0)
		return fd;
	if (info->nevents > PK_MAX_EVENTS) {
		/* what pk_event_list_check names */
		*n = info->nevents;
		ret = -EBADMSG;
		goto out;
	}
	ret = check_map(fd, BPF_MAP_TYPE_ARRAY, sizeof(*out), info->nevents);
	if (ret)
		goto out;
	for (__u32 i = 0; i < info->nevents; i++) {
		if (bpf_map_lookup_elem(fd, &i, &out[i])) {
			ret = -errno;
			goto out;
		}
	}
	*n = info->nevents;
	ret = pk_event_list_check(out, *n, ignored);
out:
	close(fd);
	return ret;
}

int pk_event_counts_read(int fd, __u64 out[][PK_ECNT_SLOTS], unsigned int nevents)
{
	int ncpus = libbpf_num_possible_cpus();
	__u64 *percpu;
	int ret;

	if (ncpus < 0)
		return ncpus;
	if (nevents > PK_MAX_EVENTS)
		return -EINVAL;
	ret = check_map(fd, BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(__u64), nevents * PK_ECNT_SLOTS);
	if (ret)
		return ret;
	percpu = calloc(ncpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	for (__u32 e = 0; e < nevents && !ret; e++) {
		for (__u32 c = 0; c < PK_ECNT_SLOTS; c++) {
			__u32 key = e * PK_ECNT_SLOTS + c;

			if (bpf_map_lookup_elem(fd, &key, percpu)) {
				ret = -errno;
				break;
			}
			out[e][c] = 0;
			for (int cpu = 0; cpu < ncpus; cpu++)
				out[e][c] += percpu[cpu];
		}
	}
	free(percpu);
	return ret;
}
