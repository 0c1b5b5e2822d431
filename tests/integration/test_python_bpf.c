// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The BPF Python walk, end to end, on the records themselves: a CPython 3.11
 * running a known chain (<module> -> a -> b -> c -> hot) is profiled with
 * -p, and the pinned ring buffer is consumed directly (no reader between).
 * Every sample of it must carry Python frames (PK_SAMPLE_PY, the walk
 * complete), exactly hot, c, b, a, <module> leaf first by the qualnames of
 * the pk_py_code_event records, each record received before the first
 * sample that uses its code, and only <module> an entry frame (the one
 * frame the C caller's eval loop call ran; the others were called from
 * Python within it).
 *
 * The fixture is sampled only once it is in its loop (it has used 0.2 s of
 * CPU; starting takes some 20 ms), and the session is unloaded before it is
 * killed: no sample is of its start or of its exit, where the chain is not
 * there. The same holds for an interpreter in a PID namespace of its own,
 * whose thread ids are not the kernel's; a stack deeper than the walk goes
 * is cut at PK_MAX_PY_DEPTH, and every sample says so.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "integration/profile_session.h"
#include "lib/session.h"
#include "test_util.h"

#define PYTHON		"/usr/bin/python3.11"

/* hot loops for ever, called once: every sample is of the whole chain
 * (a loop that called the chain again would be sampled, now and then,
 * between two calls). */
static const char script[] =
	"def hot():\n"
	"    x = 0\n"
	"    while True:\n"
	"        x += 1\n"
	"def c():\n"
	"    return hot()\n"
	"def b():\n"
	"    return c()\n"
	"def a():\n"
	"    return b()\n"
	"a()\n";

/* A stack deeper than the walk goes: down 200 times, then hot for ever
 * (once only: every sample is of the whole depth). */
static const char deep_script[] =
	"def hot():\n"
	"    x = 0\n"
	"    while True:\n"
	"        x += 1\n"
	"def down(k):\n"
	"    return down(k - 1) if k else hot()\n"
	"down(200)\n";

static const char *const chain[] = { "hot", "c", "b", "a", "<module>" };
#define CHAIN_LEN	(sizeof(chain) / sizeof(chain[0]))

#define MAX_CODES	256

struct seen {
	__u32 pid;
	bool deep;		/* deep_script: cut at PK_MAX_PY_DEPTH */
	struct {
		__u64 code;
		char name[PK_PY_NAME_MAX + 1];
	} codes[MAX_CODES];
	unsigned int ncodes;
	unsigned int samples, bad_flags, bad_end, bad_chain, unknown_code, bad_entry;
	unsigned int bad_instr, code_events, dup_codes;
	char first_bad[256];
};

static const char *code_name(const struct seen *s, __u64 code)
{
	for (unsigned int i = 0; i < s->ncodes; i++)
		if (s->codes[i].code == code)
			return s->codes[i].name;
	return NULL;
}

static void note_bad(struct seen *s, const char *what)
{
	if (!s->first_bad[0])
		snprintf(s->first_bad, sizeof(s->first_bad), "sample %u: %s", s->samples, what);
}

static void on_code(struct seen *s, const struct pk_py_code_event *e, size_t size)
{
	unsigned int n;

	if (size < sizeof(*e) || e->pid != s->pid)
		return;
	s->code_events++;
	ck_assert_uint_le(sizeof(*e) + e->name_len + e->file_len + e->linetable_len, size);
	ck_assert_uint_le(e->name_len, PK_PY_NAME_MAX);
	if (code_name(s, e->code))
		s->dup_codes++;		/* a stamp changed: counted, not expected */
	ck_assert_uint_lt(s->ncodes, MAX_CODES);
	n = s->ncodes++;
	s->codes[n].code = e->code;
	memcpy(s->codes[n].name, (const char *)(e + 1), e->name_len);
	s->codes[n].name[e->name_len] = '\0';
}

static void on_sample(struct seen *s, const struct pk_sample *smp, size_t size)
{
	const __u64 *frames;

	if (smp->pid != s->pid)
		return;
	s->samples++;
	ck_assert_uint_ge(smp->frames_off, 128);
	ck_assert_uint_le(smp->frames_off + (smp->kstack_len + smp->ustack_len + smp->py_len) *
			  sizeof(__u64), size);
	if (!(smp->hdr.flags & PK_SAMPLE_PY)) {
		s->bad_flags++;
		note_bad(s, "no PK_SAMPLE_PY");
		return;
	}
	if (smp->py_end != (s->deep ? PK_PY_END_DEPTH : PK_PY_END_COMPLETE)) {
		s->bad_end++;
		note_bad(s, "py_end not COMPLETE (DEPTH when deep)");
		return;
	}
	frames = (const __u64 *)((const char *)smp + smp->frames_off) +
		 smp->kstack_len + smp->ustack_len;
	if (s->deep) {
		/* hot, then down to the limit: none of them entered from C */
		if (smp->py_len != PK_MAX_PY_DEPTH) {
			s->bad_chain++;
			note_bad(s, "not PK_MAX_PY_DEPTH Python frames");
			return;
		}
		for (unsigned int i = 0; i < PK_MAX_PY_DEPTH; i++) {
			const char *name = code_name(s, frames[i] & PK_PY_CODE_MASK);

			if (!name || strcmp(name, i ? "down" : "hot") ||
			    (frames[i] & PK_PY_FRAME_ENTRY)) {
				s->bad_chain++;
				note_bad(s, name ? name : "a code object with no event before it");
				return;
			}
		}
		return;
	}
	if (smp->py_len != CHAIN_LEN) {
		char why[64];

		snprintf(why, sizeof(why), "%u Python frames", smp->py_len);
		s->bad_chain++;
		note_bad(s, why);
		return;
	}
	for (unsigned int i = 0; i < CHAIN_LEN; i++) {
		const char *name = code_name(s, frames[i] & PK_PY_CODE_MASK);
		__u64 instr = (frames[i] >> PK_PY_INSTR_SHIFT) & PK_PY_INSTR_MASK;
		bool entry = frames[i] & PK_PY_FRAME_ENTRY;

		if (!name) {
			s->unknown_code++;
			note_bad(s, "a code object with no event before it");
			return;
		}
		if (strcmp(name, chain[i])) {
			s->bad_chain++;
			note_bad(s, name);
			return;
		}
		if (entry != (i == CHAIN_LEN - 1)) {
			s->bad_entry++;
			note_bad(s, "PK_PY_FRAME_ENTRY");
			return;
		}
		/* an instruction of the code, known: the first is RESUME, done */
		if (instr < 2 || instr == PK_PY_INSTR_UNKNOWN) {
			s->bad_instr++;
			note_bad(s, "instruction index");
			return;
		}
	}
}

static int on_record(void *ctx, void *data, size_t size)
{
	const struct pk_event_hdr *h = data;

	if (size < sizeof(*h))
		return 0;
	if (h->type == PK_EVENT_PY_CODE)
		on_code(ctx, data, size);
	else if (h->type == PK_EVENT_SAMPLE && size >= sizeof(struct pk_sample))
		on_sample(ctx, data, size);
	return 0;
}

/* The one child of process PARENT, once it has forked it. */
static pid_t child_of(pid_t parent)
{
	char path[64];
	int child = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", parent, parent);
	for (int i = 0; i < 3000 && child <= 0; i++) {
		FILE *f = fopen(path, "r");

		ck_assert_ptr_nonnull(f);
		if (fscanf(f, "%d", &child) != 1)
			child = 0;
		fclose(f);
		if (child <= 0)
			usleep(10000);
	}
	ck_assert_int_gt(child, 0);
	return child;
}

/* The chain's samples, its interpreter run as ARGV, in a PID namespace of
 * its own when PIDNS (unshare forks it: it is unshare's child), where its
 * thread ids are not the kernel's: the walk finds its thread all the same. */
static void check_walk(bool pidns, bool deep)
{
	char *code = (char *)(deep ? deep_script : script);
	char *argv[] = { PYTHON, "-c", code, NULL };
	char *ns_argv[] = { "unshare", "--pid", "--fork", PYTHON, "-c", code, NULL };
	static struct seen s;
	struct ring_buffer *rb;
	char pidbuf[16];
	__u64 cnt[PK_CNT__MAX];
	pid_t pid, spawned;
	int fd, cfd;

	memset(&s, 0, sizeof(s));
	s.deep = deep;
	ck_assert_msg(access(PYTHON, X_OK) == 0, PYTHON " is needed (Debian's python3.11)");
	spawned = pk_test_spawn(pidns ? ns_argv : argv, NULL);
	ck_assert_int_gt(spawned, 0);
	pid = pidns ? child_of(spawned) : spawned;
	s.pid = pid;
	/* in its loop: past the interpreter's start (some 20 ms of CPU) */
	ck_assert_int_eq(pk_e2e_wait_cpu(pid, 0.2, 30), 0);
	snprintf(pidbuf, sizeof(pidbuf), "%d", pid);
	{
		const char *args[] = { "-p", pidbuf, "-F", "499", NULL };

		ck_assert_int_eq(pk_e2e_load(args), 0);
	}
	fd = pk_pin_open(pk_e2e_pin_dir(), PK_PIN_EVENTS);
	ck_assert_int_ge(fd, 0);
	cfd = pk_pin_open(pk_e2e_pin_dir(), PK_PIN_COUNTERS);
	ck_assert_int_ge(cfd, 0);
	ck_assert_int_eq(pk_e2e_wait_more_cpu(pid, 1.0, 60), 0);
	/* stop sampling first: its exit is no sample */
	ck_assert_int_eq(pk_e2e_unload(), 0);
	kill(pid, SIGKILL);
	if (pidns)
		kill(spawned, SIGKILL);
	pk_test_wait(spawned);
	/* what every sample counted, the last ones too */
	ck_assert_int_eq(pk_counters_read(cfd, cnt), 0);
	close(cfd);

	rb = ring_buffer__new(fd, on_record, &s, NULL);
	ck_assert_ptr_nonnull(rb);
	ck_assert_int_ge(ring_buffer__consume(rb), 0);
	ring_buffer__free(rb);
	close(fd);

	/* 1 s of CPU at 499 Hz: some 500 samples; at least half on a slow host */
	ck_assert_uint_ge(s.samples, 100);
	ck_assert_msg(s.bad_flags + s.bad_end + s.bad_chain + s.unknown_code + s.bad_entry +
		      s.bad_instr == 0,
		      "of %u samples: %u without Python, %u incomplete, %u another chain, %u unknown code, %u entry, %u instr; first: %s",
		      s.samples, s.bad_flags, s.bad_end, s.bad_chain, s.unknown_code, s.bad_entry,
		      s.bad_instr, s.first_bad);
	/* each code object met reported once, and nothing changed */
	ck_assert_uint_eq(s.dup_codes, 0);
	if (deep) {
		/* cut, and counted so: every walk stopped at the depth limit */
		ck_assert_uint_eq(cnt[PK_CNT_PY_DEPTH], s.samples);
		ck_assert_uint_eq(cnt[PK_CNT_PY_COMPLETE] + cnt[PK_CNT_PY_NO_THREAD] +
				  cnt[PK_CNT_PY_READ_FAULT] + cnt[PK_CNT_PY_CODE_LOST], 0);
		return;
	}
	for (unsigned int i = 0; i < CHAIN_LEN; i++) {
		unsigned int n = 0;

		for (unsigned int j = 0; j < s.ncodes; j++)
			n += !strcmp(s.codes[j].name, chain[i]);
		ck_assert_msg(n == 1, "%u code events named %s", n, chain[i]);
	}
	/* the counters agree: every walk complete, no code event lost */
	ck_assert_uint_eq(cnt[PK_CNT_PY_COMPLETE], s.samples);
	ck_assert_uint_eq(cnt[PK_CNT_PY_DEPTH] + cnt[PK_CNT_PY_NO_THREAD] +
			  cnt[PK_CNT_PY_READ_FAULT] + cnt[PK_CNT_PY_CODE_LOST], 0);
	ck_assert_uint_ge(cnt[PK_CNT_PY_CODE_EVENTS], CHAIN_LEN);
}

START_TEST(test_python_frames_in_samples)
{
	check_walk(false, false);
}
END_TEST

START_TEST(test_python_in_pid_namespace)
{
	check_walk(true, false);
}
END_TEST

/* A Python stack deeper than PK_MAX_PY_DEPTH: its first frames, the rest
 * cut and counted (PK_PY_END_DEPTH), never silently. */
START_TEST(test_python_depth_limit)
{
	check_walk(false, true);
}
END_TEST

/* --no-python: the same process, no Python walk, no code event. */
START_TEST(test_no_python_option)
{
	char *argv[] = { PYTHON, "-c", (char *)script, NULL };
	__u64 cnt[PK_CNT__MAX];
	char pidbuf[16];
	pid_t pid;

	pid = pk_test_spawn(argv, NULL);
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(pk_e2e_wait_cpu(pid, 0.2, 30), 0);
	snprintf(pidbuf, sizeof(pidbuf), "%d", pid);
	{
		const char *args[] = { "-p", pidbuf, "-F", "499", "--no-python", NULL };

		ck_assert_int_eq(pk_e2e_load(args), 0);
	}
	ck_assert_int_eq(pk_e2e_wait_more_cpu(pid, 0.1, 60), 0);
	pk_e2e_counters(cnt);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	kill(pid, SIGKILL);
	pk_test_wait(pid);
	ck_assert_uint_gt(cnt[PK_CNT_SAMPLES], 0);
	ck_assert_uint_eq(cnt[PK_CNT_PY_COMPLETE] + cnt[PK_CNT_PY_DEPTH] +
			  cnt[PK_CNT_PY_NO_THREAD] + cnt[PK_CNT_PY_READ_FAULT] +
			  cnt[PK_CNT_PY_CODE_EVENTS] + cnt[PK_CNT_PY_CODE_LOST], 0);
}
END_TEST

Suite *suite_python_bpf(void)
{
	Suite *s = suite_create("python_bpf");
	TCase *tc;

	if (!pk_test_need_root(s, "profiling loads BPF programs"))
		return s;
	tc = pk_e2e_tcase(s, "walk", 120);
	tcase_add_test(tc, test_python_frames_in_samples);
	tcase_add_test(tc, test_python_in_pid_namespace);
	tcase_add_test(tc, test_python_depth_limit);
	tcase_add_test(tc, test_no_python_option);
	return s;
}
