// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The test roots (tests/roots/README.md): each root `make test-deps` made
 * holds the runtimes its line of roots.list names, and in_root.sh runs a
 * command there as a container would (its own PID namespace, where it is
 * PID 1, and /proc; the source tree's fixtures at /mnt/probekit), leaving
 * no mount behind on the host.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_util.h"

static const struct test_root {
	const char *name;
	const char *python;	/* and PYTHON + "d", its -dbg build */
	const char *java_version;	/* `java -version`'s first quoted text starts so */
	const char *node_version;	/* `node --version` starts so */
} roots[] = {
	{ "trixie", "3.13", "\"21.", "v20." },
	{ "sid", "3.14", "\"25.", "v24." },
};

static char *in_root(const struct test_root *r, const char *script, int *status)
{
	char root[256], tool[256];
	char *argv[] = { tool, root, "/bin/sh", "-c", (char *)script, NULL };
	char *out = NULL, *err = NULL;

	pk_test_roots_path(r->name, root, sizeof(root));
	pk_test_src_path("tests/roots/in_root.sh", tool, sizeof(tool));
	*status = pk_test_run(argv, &out, &err);
	ck_assert_msg(*status == 0, "in_root.sh %s: exit %d: %s", root, *status, err);
	free(err);
	return out;
}

START_TEST(test_root_runtimes)
{
	const struct test_root *r = &roots[_i];
	char script[512], want[256];
	char *out;
	int status;

	snprintf(script, sizeof(script),
		 "echo pid $$; "
		 "python%s -c 'import sys; print(\"%%d.%%d\" %% sys.version_info[:2])'; "
		 "python%sd -c 'import sys; print(hasattr(sys, \"gettotalrefcount\"))'; "
		 "java -version 2>&1 | head -n 1 | cut -d' ' -f3; node --version; "
		 "test -f /mnt/probekit/tests/fixtures/python/chain.py && echo fixtures",
		 r->python, r->python);
	out = in_root(r, script, &status);
	snprintf(want, sizeof(want), "pid 1\n%s\nTrue\n", r->python);
	ck_assert_msg(!strncmp(out, want, strlen(want)), "%s: %s", r->name, out);
	ck_assert_msg(strstr(out, r->java_version) && strstr(out, r->node_version) &&
		      strstr(out, "\nfixtures\n"), "%s: %s", r->name, out);
	free(out);
}
END_TEST

/* The namespace's mounts (its /proc, the source tree) end with it. */
START_TEST(test_no_mount_left)
{
	char root[256], line[4096];
	int status;
	FILE *f;

	free(in_root(&roots[0], "true", &status));
	pk_test_roots_path("", root, sizeof(root));
	f = fopen("/proc/self/mountinfo", "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		ck_assert_msg(!strstr(line, root), "left mounted: %s", line);
	fclose(f);
}
END_TEST

Suite *suite_roots(void)
{
	Suite *s = suite_create("roots");
	TCase *tc;

	if (!pk_test_need_root(s, "the roots run in namespaces of their own"))
		return s;
	tc = tcase_create("runtimes");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_root_runtimes, 0, sizeof(roots) / sizeof(roots[0]));
	tcase_add_test(tc, test_no_mount_left);
	suite_add_tcase(s, tc);
	return s;
}
