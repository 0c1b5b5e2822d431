// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <string.h>

#include "lib/container_id.h"
#include "test_util.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID2 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

static void check(const char *path, const char *want)
{
	char id[PK_CONTAINER_ID_LEN + 1];
	bool got = pk_container_id(path, id);

	ck_assert_msg(got == (want != NULL), "%s: %s", path, got ? id : "none");
	ck_assert_str_eq(id, want ? want : "");
}

/* Each runtime's way of naming a container's cgroup. */
START_TEST(test_forms)
{
	check("/system.slice/docker-" ID ".scope", ID);
	check("/docker/" ID, ID);
	check("/system.slice/cri-containerd-" ID ".scope", ID);
	check("/kubepods.slice/kubepods-burstable.slice/"
	      "kubepods-burstable-pod1234abcd_5678_90ef_1234_567890abcdef.slice/"
	      "cri-containerd-" ID ".scope", ID);
	check("/machine.slice/libpod-" ID ".scope", ID);
	check("/kubepods.slice/kubepods-pod1f2e.slice/crio-" ID ".scope", ID);
	check("/kubepods/burstable/pod1234abcd-5678-90ef-1234-567890abcdef/" ID, ID);
	check("/kubepods/pod1234abcd-5678-90ef-1234-567890abcdef/" ID, ID);
	/* cgroupfs drivers leave out ".scope" */
	check("/libpod_parent/libpod-" ID, ID);
	/* a container's own sub-cgroup: the container's id */
	check("/system.slice/docker-" ID ".scope/init.scope", ID);
	/* the innermost of two (docker in docker) */
	check("/docker/" ID2 "/docker/" ID, ID);
	/* a trailing or doubled '/' changes nothing */
	check("/docker/" ID "/", ID);
	check("//system.slice//docker-" ID ".scope", ID);
	check("docker-" ID ".scope", ID);
}
END_TEST

/* Paths that name no container, and ids that are not ids. */
START_TEST(test_none)
{
	check("", NULL);
	check("/", NULL);
	check("/user.slice/user-1000.slice/session-2.scope", NULL);
	check("/system.slice/docker.service", NULL);
	check("cgroup:1234", NULL);
	/* a helper's scope, not the container's */
	check("/machine.slice/libpod-conmon-" ID ".scope", NULL);
	check("/system.slice/crio-conmon-" ID ".scope", NULL);
	/* a pod's own cgroup, and an id not under kubepods */
	check("/kubepods/burstable/pod1234abcd-5678-90ef-1234-567890abcdef", NULL);
	check("/other/pod1234/" ID, NULL);
	check("/" ID, NULL);
	/* one hex digit short, one too many, upper case, not hex */
	check("/docker/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde", NULL);
	check("/docker/" ID "0", NULL);
	check("/docker/0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef", NULL);
	check("/docker/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeg", NULL);
	check("/system.slice/docker-" ID ".scop", NULL);
	check("/system.slice/docker-.scope", NULL);
	check("/system.slice/docker-" ID ".scope.scope", NULL);
	/* "docker" as a prefix of a longer parent's name */
	check("/mydocker/" ID, NULL);
}
END_TEST

Suite *suite_container_id(void)
{
	Suite *s = suite_create("container_id");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_forms);
	tcase_add_test(tc, test_none);
	suite_add_tcase(s, tc);
	return s;
}
