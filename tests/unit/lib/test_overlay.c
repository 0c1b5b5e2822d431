// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * lib/overlay: the layer's file that a path on an overlay shows, from a
 * mountinfo text over real folders of layers (no mount needed): the upper
 * layer first, then the lower ones in order; mounts below the overlay,
 * bind mounts of a folder of it, escaped names and the options of the new
 * mount API.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/overlay.h"
#include "test_util.h"

static char dir[] = "/tmp/pk-ovl-XXXXXX";

static void touch(const char *rel)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
}

static void mk(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	ck_assert_int_eq(mkdir(path, 0700), 0);
}

/* up/ has both and top; l1/ has both, low1 and sub/x; l 2/ has low2;
 * data/ has data (a data-only layer) */
static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	mk("up");
	mk("l1");
	mk("l1/sub");
	mk("l 2");
	mk("data");
	touch("up/both");
	touch("up/top");
	touch("l1/both");
	touch("l1/low1");
	touch("l1/sub/x");
	touch("l 2/low2");
	touch("data/data");
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(dir, "/tmp/pk-ovl-XXXXXX");
}

/* A mountinfo: the root, the overlay at /merged (lowerdir l1 and "l 2",
 * then data after "::"), a tmpfs under it at /merged/tmp, and "/merged
 * b", a bind mount of its folder sub. */
static char *mountinfo(void)
{
	char *text;

	ck_assert_int_ge(asprintf(&text,
		"22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro\n"
		"36 22 0:40 / /merged rw,relatime shared:2 - overlay overlay "
		"rw,lowerdir=%s/l1:%s/l\\0402::%s/data,upperdir=%s/up,workdir=%s/work\n"
		"37 36 0:41 / /merged/tmp rw,nosuid - tmpfs tmpfs rw\n"
		"38 22 0:40 /sub /merged\\040b rw - overlay overlay "
		"rw,lowerdir=%s/l1,upperdir=%s/up,workdir=%s/work\n",
		dir, dir, dir, dir, dir, dir, dir, dir), 0);
	return text;
}

static int layer_of(const char *text, const char *path, char *buf)
{
	struct stat st;
	int ret = pk_overlay_layer_file_in(text, path, buf, 256, &st);

	if (!ret) {
		char want[256];
		struct stat ws;

		ck_assert_int_eq(stat(buf, &ws), 0);
		ck_assert_uint_eq(ws.st_ino, st.st_ino);
		snprintf(want, sizeof(want), "%s/", dir);
		ck_assert_msg(!strncmp(buf, want, strlen(want)), "%s not in %s", buf, dir);
		memmove(buf, buf + strlen(want), strlen(buf + strlen(want)) + 1);
	}
	return ret;
}

START_TEST(test_upper_first_then_lowers)
{
	char *text = mountinfo(), buf[256];

	ck_assert_int_eq(layer_of(text, "/merged/both", buf), 0);
	ck_assert_str_eq(buf, "up/both");
	ck_assert_int_eq(layer_of(text, "/merged/top", buf), 0);
	ck_assert_str_eq(buf, "up/top");
	ck_assert_int_eq(layer_of(text, "/merged/low1", buf), 0);
	ck_assert_str_eq(buf, "l1/low1");
	/* "l 2": the space escaped as \040 */
	ck_assert_int_eq(layer_of(text, "/merged/low2", buf), 0);
	ck_assert_str_eq(buf, "l 2/low2");
	ck_assert_int_eq(layer_of(text, "/merged/sub/x", buf), 0);
	ck_assert_str_eq(buf, "l1/sub/x");
	free(text);
}
END_TEST

START_TEST(test_not_on_the_overlay)
{
	char *text = mountinfo(), buf[256];

	ck_assert_int_eq(layer_of(text, "/usr/bin/sh", buf), -ENOENT);
	/* the tmpfs mounted on the overlay holds it */
	ck_assert_int_eq(layer_of(text, "/merged/tmp/both", buf), -ENOENT);
	/* a name that only starts like the mount point */
	ck_assert_int_eq(layer_of(text, "/mergedx/both", buf), -ENOENT);
	/* in no layer; only in the data-only layer after "::" */
	ck_assert_int_eq(layer_of(text, "/merged/none", buf), -ENOENT);
	ck_assert_int_eq(layer_of(text, "/merged/data", buf), -ENOENT);
	free(text);
}
END_TEST

START_TEST(test_bind_mount_of_a_folder)
{
	char *text = mountinfo(), buf[256];

	ck_assert_int_eq(layer_of(text, "/merged b/x", buf), 0);
	ck_assert_str_eq(buf, "l1/sub/x");
	free(text);
}
END_TEST

START_TEST(test_new_mount_api_layers)
{
	char *text, buf[256];

	ck_assert_int_ge(asprintf(&text,
		"40 1 0:50 / /m rw - overlay overlay rw,lowerdir+=%s/l1,lowerdir+=%s/l\\0402,"
		"upperdir=%s/up,workdir=%s/work\n", dir, dir, dir, dir), 0);
	ck_assert_int_eq(layer_of(text, "/m/low2", buf), 0);
	ck_assert_str_eq(buf, "l 2/low2");
	ck_assert_int_eq(layer_of(text, "/m/both", buf), 0);
	ck_assert_str_eq(buf, "up/both");
	free(text);
}
END_TEST

START_TEST(test_malformed_lines)
{
	static const char *const bad[] = {
		"", "\n\n", "36 22 0:40 / /merged", "36 22 0:40 / /merged rw shared:2\n",
		"36 22 0:40 / /merged rw - overlay\n", "36 22 0:40 / /merged rw - overlay o\n",
		"36 22 0:40 / /merged rw - overlay o rw,lowerdir=\n",
		"36 22 0:40 / /merged rw - overlay o rw,lowerdir=::,upperdir=\\\n",
	};
	char buf[256];
	struct stat st;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(pk_overlay_layer_file_in(bad[i], "/merged/x", buf, sizeof(buf),
							  &st), -ENOENT);
}
END_TEST

/* This machine's own: a path on no overlay (the build's root is none in
 * CI or the guests), and a file is its own inode. */
START_TEST(test_path_is_inode)
{
	struct stat st;
	char buf[256];

	ck_assert_int_eq(stat("/proc/self/exe", &st), 0);
	ck_assert(pk_path_is_inode("/proc/self/exe", st.st_dev, st.st_ino));
	ck_assert(!pk_path_is_inode("/proc/self/exe", st.st_dev, st.st_ino + 1));
	ck_assert(!pk_path_is_inode("/nonexistent", st.st_dev, st.st_ino));
	ck_assert_int_eq(pk_overlay_layer_file("/proc/self/exe", buf, sizeof(buf), &st),
			 -ENOENT);
}
END_TEST

Suite *suite_overlay_layers(void)
{
	Suite *s = suite_create("overlay_layers");
	TCase *tc = tcase_create("layers");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_upper_first_then_lowers);
	tcase_add_test(tc, test_not_on_the_overlay);
	tcase_add_test(tc, test_bind_mount_of_a_folder);
	tcase_add_test(tc, test_new_mount_api_layers);
	tcase_add_test(tc, test_malformed_lines);
	tcase_add_test(tc, test_path_is_inode);
	suite_add_tcase(s, tc);
	return s;
}
