// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "bpf/probekit.h"
#include "lib/pins.h"
#include "lib/session.h"

#define BPFFS_ROOT	"/sys/fs/bpf"

static bool is_bpffs(const char *path)
{
	struct statfs st;

	return statfs(path, &st) == 0 && st.f_type == BPF_FS_MAGIC;
}

static bool below(const char *path, const char *root)
{
	size_t n = strlen(root);

	return strncmp(path, root, n) == 0 && path[n] == '/';
}

/* DIR's parent must be a bpffs; mount the usual one if that is where DIR
 * goes and it is missing (systemd mounts it, minimal systems may not). */
static int ensure_bpffs(const char *dir, char err[PK_ERR_LEN])
{
	char parent[PATH_MAX];
	char *slash;

	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (slash == parent)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (below(dir, BPFFS_ROOT) && !is_bpffs(BPFFS_ROOT) &&
	    mount("bpf", BPFFS_ROOT, "bpf", 0, "mode=0700"))
		return pk_err(err, -errno, "cannot mount bpffs at " BPFFS_ROOT ": %s",
			      strerror(errno));
	if (!is_bpffs(parent))
		return pk_err(err, -ENOTDIR, "--pin-dir %s: %s is not on a bpf filesystem",
			      dir, parent);
	return 0;
}

static bool exists(const char *dir, const char *name)
{
	char path[PATH_MAX];

	return pk_pin_path(path, sizeof(path), dir, name) == 0 &&
	       access(path, F_OK) == 0;
}

static int already_loaded(const char *dir, char err[PK_ERR_LEN])
{
	return pk_err(err, -EEXIST,
		      "a session is already loaded at %s (probe-load --unload%s%s to stop it)",
		      dir, strcmp(dir, PK_PIN_DIR_DEFAULT) ? " --pin-dir " : "",
		      strcmp(dir, PK_PIN_DIR_DEFAULT) ? dir : "");
}

int pk_pins_claim(struct pk_pins *p, const char *dir, char err[PK_ERR_LEN])
{
	char links[PATH_MAX];
	int ret;

	memset(p, 0, sizeof(*p));
	p->dir = dir;
	ret = pk_pin_path(links, sizeof(links), dir, PK_PIN_LINKS_DIR);
	if (ret)
		return pk_err(err, ret, "--pin-dir %s: path too long", dir);
	/* Refuse before touching anything (and before mounting). */
	if (exists(dir, PK_PIN_LINKS_DIR) || exists(dir, PK_PIN_SESSION))
		return already_loaded(dir, err);
	ret = ensure_bpffs(dir, err);
	if (ret)
		return ret;
	if (mkdir(dir, 0700) == 0)
		p->created_dir = true;
	else if (errno != EEXIST)
		return pk_err(err, -errno, "cannot create %s: %s", dir, strerror(errno));
	if (mkdir(links, 0700)) {
		ret = errno == EEXIST ? already_loaded(dir, err) :
		      pk_err(err, -errno, "cannot create %s: %s", links, strerror(errno));
		if (p->created_dir)
			rmdir(dir);
		return ret;
	}
	p->claimed = true;
	return 0;
}

int pk_pins_add(struct pk_pins *p, int fd, const char *name, char err[PK_ERR_LEN])
{
	char path[PATH_MAX];
	int ret = pk_pin_path(path, sizeof(path), p->dir, name);

	if (ret)
		return pk_err(err, ret, "pin %s/%s: path too long", p->dir, name);
	if (bpf_obj_pin(fd, path))
		return pk_err(err, -errno, "cannot pin %s: %s", path, strerror(errno));
	return 0;
}

int pk_pins_detach(const char *dir)
{
	char links[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	pk_pin_path(links, sizeof(links), dir, PK_PIN_LINKS_DIR);
	d = opendir(links);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		/* ENOENT: unpinned at the same time by the other party that
		 * may, the target watcher or an --unload */
		if (pk_pin_path(path, sizeof(path), links, de->d_name) == 0 &&
		    unlink(path) && errno != ENOENT && !ret)
			ret = -errno;
	}
	if (d)
		closedir(d);
	return ret;
}

/* Remove what a session pins under DIR and DIR/links; never anything
 * else. Returns the first error other than "was not there". */
static int remove_pins(const char *dir, bool remove_dir)
{
	/* the session map last, as it was pinned last; the unwind maps may
	 * be absent (--unwind fp), and so may the counts maps (no
	 * --aggregate), the missing ring (no -- CMD) and the roots (a
	 * loader from before them) */
	static const char *const maps[] = {
		PK_PIN_EVENTS, PK_PIN_COUNTERS, PK_PIN_TARGETS,
		PK_PIN_UNWIND_FILES, PK_PIN_UNWIND_TABLES, PK_PIN_UNWIND_ROWS,
		PK_PIN_UNWIND_ALLOC, PK_PIN_UNWIND_SEEN, PK_PIN_MISSING, PK_PIN_PY_FILES, PK_PIN_HS_FILES,
		PK_PIN_V8_FILES,
		PK_PIN_EVENT_LIST,
		PK_PIN_EVENT_COUNTS, PK_PIN_AGG_SLOT, PK_PIN_AGG_COUNTS0, PK_PIN_AGG_COUNTS1,
		PK_PIN_ROOTS, PK_PIN_SESSION,
	};
	char links[PATH_MAX], path[PATH_MAX];
	int ret = pk_pins_detach(dir);

	pk_pin_path(links, sizeof(links), dir, PK_PIN_LINKS_DIR);
	if (rmdir(links) && errno != ENOENT && !ret)
		ret = -errno;
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
		pk_pin_path(path, sizeof(path), dir, maps[i]);
		if (unlink(path) && errno != ENOENT && !ret)
			ret = -errno;
	}
	/* Files of someone else's in DIR stay, and so does DIR. */
	if (remove_dir && rmdir(dir) && errno != ENOTEMPTY && errno != ENOENT && !ret)
		ret = -errno;
	return ret;
}

void pk_pins_abort(struct pk_pins *p)
{
	if (p->claimed)
		remove_pins(p->dir, p->created_dir);
	p->claimed = false;
}

int pk_pins_unload(const char *dir, char err[PK_ERR_LEN])
{
	int ret;

	/* Without links/ and session there is no session of ours here (and
	 * DIR may be someone else's directory: leave it alone). */
	if (!exists(dir, PK_PIN_LINKS_DIR) && !exists(dir, PK_PIN_SESSION))
		return pk_err(err, -ENOENT, "nothing loaded at %s", dir);
	ret = remove_pins(dir, true);
	if (ret)
		return pk_err(err, ret, "cannot remove the pins under %s: %s", dir,
			      strerror(-ret));
	return 0;
}
