// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/proc_maps.h"
#include "lib/root_records.h"
#include "lib/session.h"
#include "lib/session_lock.h"
#include "lib/util/array.h"
#include "loader/missing_watch.h"

/* How often reports held for a reader look again whether it still runs. */
#define HOLD_RECHECK_MS	250

struct pk_missing_watch {
	int ring_fd;
	struct ring_buffer *rb;
	int links_fd;			/* the session's links/: a reader's flock */
	int roots_fd;			/* the session's roots (-1: none) */
	struct pk_unwind_store *store;
	struct pk_no_table *pending;	/* reports not loaded yet, a file once */
	size_t n, cap;
	struct pk_unwind_stats st;
};

static bool same_file(const struct pk_no_table *a, const struct pk_no_table *b)
{
	return a->dev == b->dev && a->ino == b->ino;
}

/* A report into pending: what the kernel sends again (its samples' ring
 * was full, the file stays without a table until loaded) is there once. */
static int take_report(void *ctx, void *data, size_t size)
{
	struct pk_missing_watch *w = ctx;
	const struct pk_no_table *ev = data;

	if (size < sizeof(*ev) || ev->hdr.type != PK_EVENT_NO_TABLE ||
	    ev->vm_start >= ev->vm_end)
		return 0;
	/* its root, while it lives, for a reader after it exited
	 * (lib/root_records.h): a process in another root maps the root's
	 * files, each reported; gone, there is nothing to keep */
	if (w->roots_fd >= 0)
		pk_root_records_put(w->roots_fd, "/proc", (pid_t)ev->pid);
	for (size_t i = 0; i < w->n; i++)
		if (same_file(&w->pending[i], ev))
			return 0;
	if (pk_array_reserve((void **)&w->pending, &w->cap, sizeof(*w->pending), w->n + 1, 16))
		return -ENOMEM;
	w->pending[w->n++] = *ev;
	return 0;
}

int pk_missing_watch_open(const char *pin_dir, unsigned int jobs,
			  struct pk_missing_watch **out, char err[PK_ERR_LEN])
{
	struct pk_unwind_store_opts so = { .jobs = jobs, .log = stderr, .prog = "probe-load" };
	struct pk_missing_watch *w = calloc(1, sizeof(*w));
	char path[PATH_MAX];
	int ret;

	*out = NULL;
	if (!w)
		return pk_err(err, -ENOMEM, "out of memory");
	w->ring_fd = w->links_fd = -1;
	/* none from a loader before it: roots are then not recorded */
	w->roots_fd = pk_pin_open(pin_dir, PK_PIN_ROOTS);
	ret = pk_pin_path(path, sizeof(path), pin_dir, PK_PIN_MISSING);
	if (!ret && (w->ring_fd = bpf_obj_get(path)) < 0)
		ret = -errno;
	if (!ret && !(w->rb = ring_buffer__new(w->ring_fd, take_report, w, NULL)))
		ret = -errno;
	if (ret) {
		pk_err(err, ret, "%s: %s", path, strerror(-ret));
		goto fail;
	}
	ret = pk_pin_path(path, sizeof(path), pin_dir, PK_PIN_LINKS_DIR);
	if (!ret && (w->links_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		ret = -errno;
	if (ret) {
		pk_err(err, ret, "%s: %s", path, strerror(-ret));
		goto fail;
	}
	ret = pk_unwind_store_open(pin_dir, &so, &w->store, err);
	if (ret)
		goto fail;
	*out = w;
	return 0;
fail:
	pk_missing_watch_free(w);
	return ret;
}

int pk_missing_watch_fd(const struct pk_missing_watch *w)
{
	return ring_buffer__epoll_fd(w->rb);
}

/* The pending reports' files, to read through their processes' map_files
 * (gone files taken out of unwind_seen, so that they are reported again
 * when mapped again, as probe-read does), into FILES; PATHS and NAMES
 * hold their strings. The count. */
static int pending_files(struct pk_missing_watch *w, struct pk_unwind_file *files,
			 char (*paths)[PATH_MAX], char (*names)[PATH_MAX])
{
	int n = 0;

	for (size_t i = 0; i < w->n; i++) {
		const struct pk_no_table *ev = &w->pending[i];
		struct pk_unwind_file *f = &files[n];
		int ret;

		*f = (struct pk_unwind_file){ .key = { .dev = ev->dev, .ino = ev->ino } };
		if (ev->dev == PK_VDSO_DEV && ev->ino == PK_VDSO_INO) {
			n++;		/* path NULL: the vDSO, read from here */
			continue;
		}
		ret = pk_map_files_named(paths[n], names[n], PATH_MAX, "/proc", ev->pid,
					 ev->vm_start, ev->vm_end);
		if (ret == -ESRCH)
			pk_unwind_store_forget(w->store, &f->key);
		if (ret)
			continue;
		f->path = paths[n];
		f->name = names[n][0] ? names[n] : NULL;
		f->pid = ev->pid;
		f->vm_start = ev->vm_start;
		n++;
	}
	return n;
}

/* Load the pending reports' files, together: their tables are built in
 * parallel, and go into the kernel in one batch. */
static int load_pending(struct pk_missing_watch *w, char err[PK_ERR_LEN])
{
	struct pk_unwind_file *files = calloc(w->n, sizeof(*files));
	char (*paths)[PATH_MAX] = calloc(w->n, sizeof(*paths));
	char (*names)[PATH_MAX] = calloc(w->n, sizeof(*names));
	int ret = -ENOMEM;

	if (files && paths && names)
		ret = pk_unwind_store_add(w->store, files, pending_files(w, files, paths, names),
					  &w->st, err);
	else
		pk_err(err, ret, "out of memory");
	free(files);
	free(paths);
	free(names);
	w->n = 0;
	return ret;
}

int pk_missing_watch_run(struct pk_missing_watch *w, char err[PK_ERR_LEN])
{
	int ret = ring_buffer__consume(w->rb);

	if (ret < 0 && ret != -EINTR)
		return pk_err(err, ret, "the missing ring: %s", strerror(-ret));
	if (!w->n)
		return -1;
	/* a reader loads them from its own ring: not twice */
	if (pk_flock_holder(w->links_fd) > 0)
		return HOLD_RECHECK_MS;
	ret = load_pending(w, err);
	return ret == -1 ? -EIO : ret < 0 ? ret : -1;
}

const struct pk_unwind_stats *pk_missing_watch_stats(const struct pk_missing_watch *w)
{
	return &w->st;
}

void pk_missing_watch_free(struct pk_missing_watch *w)
{
	if (!w)
		return;
	ring_buffer__free(w->rb);
	if (w->ring_fd >= 0)
		close(w->ring_fd);
	if (w->links_fd >= 0)
		close(w->links_fd);
	if (w->roots_fd >= 0)
		close(w->roots_fd);
	pk_unwind_store_free(w->store);
	free(w->pending);
	free(w);
}
