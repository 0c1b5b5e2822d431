// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The session's events as probe-read reads them from the pins (session.h):
 * maps made and pinned here the way bpf/probekit.h lays them out, then
 * read back; a pinned map is input, so lists no loader writes and maps of
 * another shape are refused. Root only (BPF maps).
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/session.h"
#include "test_util.h"

static char dir[128];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/sys/fs/bpf/probekit-test-events-%d", (int)getpid());
	ck_assert_int_eq(mkdir(dir, 0700), 0);
}

static void teardown(void)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, PK_PIN_EVENT_LIST);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", dir, PK_PIN_EVENT_COUNTS);
	unlink(path);
	rmdir(dir);
}

/* An event_list map of MAX entries of VALUE_SIZE bytes holding EV[0..N),
 * pinned under dir. */
static void pin_list(const struct pk_event_desc *ev, unsigned int n, __u32 max,
		     __u32 value_size)
{
	char path[256];
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, sizeof(__u32), value_size, max, NULL);

	ck_assert_int_ge(fd, 0);
	for (__u32 i = 0; i < n; i++)
		ck_assert_int_eq(bpf_map_update_elem(fd, &i, &ev[i], 0), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, PK_PIN_EVENT_LIST);
	unlink(path);
	ck_assert_int_eq(bpf_obj_pin(fd, path), 0);
	close(fd);
}

static struct pk_event_desc event(const char *name, __u32 kind, __u32 unit)
{
	struct pk_event_desc ev = { .kind = kind, .unit = unit, .sample_every = 1 };

	strcpy(ev.name, name);
	return ev;
}

START_TEST(test_implicit)
{
	struct pk_session info = { .freq_hz = 49, .nevents = 0 };
	struct pk_event_desc ev[PK_MAX_EVENTS];
	struct pk_event_desc two[2] = {
		event("off-cpu", PK_EVK_OFFCPU, PK_UNIT_NS),
		event("page-faults", PK_EVK_PERF, PK_UNIT_COUNT),
	};
	unsigned int n = 99;

	/* nevents 0: a session from before events, whatever is pinned */
	pin_list(two, 2, PK_MAX_EVENTS, sizeof(two[0]));
	ck_assert_int_eq(pk_event_list_read(dir, &info, ev, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(ev[0].name, "cpu-clock");
	ck_assert_uint_eq(ev[0].kind, PK_EVK_PERF);
	ck_assert_uint_eq(ev[0].unit, PK_UNIT_NS);
	ck_assert_uint_eq(ev[0].flags, PK_EVF_FREQ);
	ck_assert_uint_eq(ev[0].freq_hz, 49);
	ck_assert_uint_eq(ev[0].prog_ids[0], 0);
	/* no event_list pin: the same */
	teardown();
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	info.nevents = 2;
	n = 99;
	ck_assert_int_eq(pk_event_list_read(dir, &info, ev, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(ev[0].name, "cpu-clock");
}
END_TEST

START_TEST(test_read)
{
	struct pk_event_desc in[3] = {
		event("cpu-clock", PK_EVK_PERF, PK_UNIT_NS),
		event("off-cpu", PK_EVK_OFFCPU, PK_UNIT_NS),
		event("uprobe:/usr/bin/my app:hot_fn", PK_EVK_UPROBE, PK_UNIT_COUNT),
	};
	struct pk_session info = { .freq_hz = 99, .nevents = 3 };
	struct pk_event_desc ev[PK_MAX_EVENTS];
	unsigned int n;

	in[0].flags = PK_EVF_FREQ;
	in[0].freq_hz = 999;
	in[1].min_block_ns = 1000;
	in[1].prog_ids[0] = 17;
	in[1].prog_ids[1] = 18;
	in[2].sample_every = 10;
	pin_list(in, 3, PK_MAX_EVENTS, sizeof(in[0]));
	ck_assert_int_eq(pk_event_list_read(dir, &info, ev, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_mem_eq(ev, in, sizeof(in));
	/* only the entries the session counts */
	info.nevents = 2;
	ck_assert_int_eq(pk_event_list_read(dir, &info, ev, &n), 0);
	ck_assert_uint_eq(n, 2);
	/* a map of exactly nevents entries */
	pin_list(in, 3, 3, sizeof(in[0]));
	info.nevents = 3;
	ck_assert_int_eq(pk_event_list_read(dir, &info, ev, &n), 0);
	ck_assert_uint_eq(n, 3);
}
END_TEST

/* Lists no loader writes: -EBADMSG, and pk_event_list_check says why. */
static void check_bad(const struct pk_event_desc *in, unsigned int nin, unsigned int nevents,
		      const char *why)
{
	struct pk_session info = { .freq_hz = 99, .nevents = nevents };
	struct pk_event_desc ev[PK_MAX_EVENTS];
	char err[PK_ERR_LEN];
	unsigned int n;

	pin_list(in, nin, PK_MAX_EVENTS, sizeof(in[0]));
	ck_assert_int_eq(pk_event_list_read(dir, &info, ev, &n), -EBADMSG);
	ck_assert_int_eq(pk_event_list_check(ev, n, err), -EBADMSG);
	ck_assert_str_eq(err, why);
}

START_TEST(test_bad_lists)
{
	struct pk_event_desc in[3] = {
		event("cpu-clock", PK_EVK_PERF, PK_UNIT_NS),
		event("off-cpu", PK_EVK_OFFCPU, PK_UNIT_NS),
		event("kprobe:vfs_write", PK_EVK_KPROBE, PK_UNIT_COUNT),
	};
	struct pk_event_desc bad[3];

	memcpy(bad, in, sizeof(in));
	memset(bad[1].name, 'x', sizeof(bad[1].name));
	check_bad(bad, 3, 3, "event 1: its name has no end");
	memcpy(bad, in, sizeof(in));
	bad[2].name[0] = '\0';
	check_bad(bad, 3, 3, "event 2: no name");
	memcpy(bad, in, sizeof(in));
	strcpy(bad[1].name, "off\ncpu");
	check_bad(bad, 3, 3, "event 1: a control character in its name");
	memcpy(bad, in, sizeof(in));
	strcpy(bad[2].name, "cpu-clock");
	check_bad(bad, 3, 3, "event cpu-clock: listed twice (0 and 2)");
	memcpy(bad, in, sizeof(in));
	bad[1].kind = 0;
	check_bad(bad, 3, 3, "event off-cpu: unknown kind 0");
	bad[1].kind = PK_EVK_USDT + 1;
	check_bad(bad, 3, 3, "event off-cpu: unknown kind 7");
	memcpy(bad, in, sizeof(in));
	bad[2].unit = PK_UNIT_NS + 1;
	check_bad(bad, 3, 3, "event kprobe:vfs_write: unknown unit 2");
	memcpy(bad, in, sizeof(in));
	bad[0].flags = PK_EVF_FREQ;
	check_bad(bad, 3, 3, "event cpu-clock: sampled at a frequency of 0 Hz");
	/* more events than there may be */
	check_bad(in, 3, PK_MAX_EVENTS + 1, "17 events (1 to 16)");
	/* the entries the session does not count are not read */
	memcpy(bad, in, sizeof(in));
	bad[2].kind = 99;
	pin_list(bad, 3, PK_MAX_EVENTS, sizeof(bad[0]));
	{
		struct pk_session info = { .freq_hz = 99, .nevents = 2 };
		struct pk_event_desc ev[PK_MAX_EVENTS];
		unsigned int n;

		ck_assert_int_eq(pk_event_list_read(dir, &info, ev, &n), 0);
		ck_assert_uint_eq(n, 2);
	}
}
END_TEST

/* A map of another shape is never read into the caller's array. */
START_TEST(test_bad_maps)
{
	struct pk_event_desc in[2] = {
		event("cpu-clock", PK_EVK_PERF, PK_UNIT_NS),
		event("off-cpu", PK_EVK_OFFCPU, PK_UNIT_NS),
	};
	struct pk_session info = { .freq_hz = 99, .nevents = 2 };
	struct {
		struct pk_event_desc ev[PK_MAX_EVENTS];
		char guard[64];
	} out;
	unsigned int n;

	in[0].flags = PK_EVF_FREQ;
	in[0].freq_hz = 99;
	/* fewer entries than the session says */
	pin_list(in, 1, 1, sizeof(in[0]));
	ck_assert_int_eq(pk_event_list_read(dir, &info, out.ev, &n), -EBADMSG);
	/* larger values than struct pk_event_desc: would overrun OUT */
	{
		unsigned char big[sizeof(struct pk_event_desc) + 64];
		int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, sizeof(big), 16, NULL);
		char path[256];

		ck_assert_int_ge(fd, 0);
		snprintf(path, sizeof(path), "%s/%s", dir, PK_PIN_EVENT_LIST);
		unlink(path);
		ck_assert_int_eq(bpf_obj_pin(fd, path), 0);
		close(fd);
		memset(out.guard, 0x5a, sizeof(out.guard));
		ck_assert_int_eq(pk_event_list_read(dir, &info, out.ev, &n), -EBADMSG);
		for (size_t i = 0; i < sizeof(out.guard); i++)
			ck_assert_uint_eq((unsigned char)out.guard[i], 0x5a);
	}
	/* smaller ones */
	pin_list(in, 0, 16, sizeof(struct pk_event_desc) - 8);
	ck_assert_int_eq(pk_event_list_read(dir, &info, out.ev, &n), -EBADMSG);
}
END_TEST

START_TEST(test_counts)
{
	int ncpus = libbpf_num_possible_cpus();
	int fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, NULL, 4, 8,
				PK_MAX_EVENTS * PK_ECNT_SLOTS, NULL);
	__u64 *percpu = calloc(ncpus, 8);
	__u64 out[3][PK_ECNT_SLOTS];
	int small;

	ck_assert_int_gt(ncpus, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_ptr_nonnull(percpu);
	/* key e * 8 + c holds, on CPU k, e * 1000 + c * 10 + k */
	for (__u32 e = 0; e < 3; e++)
		for (__u32 c = 0; c < PK_ECNT_SLOTS; c++) {
			__u32 key = e * PK_ECNT_SLOTS + c;

			for (int k = 0; k < ncpus; k++)
				percpu[k] = e * 1000 + c * 10 + k;
			ck_assert_int_eq(bpf_map_update_elem(fd, &key, percpu, 0), 0);
		}
	memset(out, 0xff, sizeof(out));
	ck_assert_int_eq(pk_event_counts_read(fd, out, 3), 0);
	for (__u32 e = 0; e < 3; e++)
		for (__u32 c = 0; c < PK_ECNT_SLOTS; c++)
			ck_assert_uint_eq(out[e][c], (__u64)ncpus * (e * 1000 + c * 10) +
						     (__u64)ncpus * (ncpus - 1) / 2);
	ck_assert_int_eq(pk_event_counts_read(fd, out, PK_MAX_EVENTS + 1), -EINVAL);
	close(fd);

	/* too few entries for the events; not per CPU; other values */
	small = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, NULL, 4, 8, 2 * PK_ECNT_SLOTS, NULL);
	ck_assert_int_ge(small, 0);
	ck_assert_int_eq(pk_event_counts_read(small, out, 2), 0);
	ck_assert_int_eq(pk_event_counts_read(small, out, 3), -EBADMSG);
	close(small);
	small = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 8, PK_MAX_EVENTS * PK_ECNT_SLOTS, NULL);
	ck_assert_int_ge(small, 0);
	ck_assert_int_eq(pk_event_counts_read(small, out, 1), -EBADMSG);
	close(small);
	small = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, NULL, 4, 4, PK_MAX_EVENTS * PK_ECNT_SLOTS, NULL);
	ck_assert_int_ge(small, 0);
	ck_assert_int_eq(pk_event_counts_read(small, out, 1), -EBADMSG);
	close(small);
	free(percpu);
}
END_TEST

Suite *suite_event_list(void)
{
	Suite *s = suite_create("event_list");
	TCase *tc;

	if (!pk_test_need_root(s, "BPF maps are made and pinned"))
		return s;
	tc = tcase_create("pins");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_implicit);
	tcase_add_test(tc, test_read);
	tcase_add_test(tc, test_bad_lists);
	tcase_add_test(tc, test_bad_maps);
	tcase_add_test(tc, test_counts);
	suite_add_tcase(s, tc);
	return s;
}
