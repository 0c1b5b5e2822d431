// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Suite load_session (test_load_session.c), what the sampler delivers: the
 * samples of the CPUs and the idle task a session keeps, those of the pids
 * it filters for, and a ring buffer too small, whose losses are counted.
 */
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/session.h"
#include "test_util.h"
#include "unit/loader/load_run.h"

/* --- what the sampler delivers --------------------------------------------- */

struct delivered {
	__u64 n, bad_cpu, idle, other_pid, bad_size, sizes;
	__u64 bad_event;	/* not event 0 (the default), or no weight */
	__u64 mappings, no_table;	/* the unwinder's reports, beside samples */
	__u64 runtime;		/* Python, Java, JavaScript reports (of whatever
				 * else runs on the CPU: another make check's) */
	int cpu;
	pid_t pid;
};

/* What a sample's header must say its size is: its frames, and after them,
 * where the walk reached a file whose table was not loaded yet (a slow
 * machine's first samples), the registers and the user stack it copied. */
static size_t sample_size(const struct pk_sample *s)
{
	size_t frames_end = s->frames_off + (s->kstack_len + s->ustack_len) * 8;
	const struct pk_ustack_copy *c;

	if (!(s->hdr.flags & PK_SAMPLE_USTACK_COPY))
		return frames_end;
	if (s->copy_off < frames_end || s->copy_off + sizeof(*c) > s->hdr.size)
		return 0;
	c = (const void *)((const char *)s + s->copy_off);
	return s->copy_off + sizeof(*c) + c->len;
}

static int on_sample(void *ctx, void *data, size_t size)
{
	struct delivered *d = ctx;
	const struct pk_sample *s = data;
	const struct pk_mapping_event *m = data;

	/* The DWARF walk reports mappings (and files without a table) before
	 * the samples that need them: whole records of their own size. */
	if (s->hdr.type == PK_EVENT_MAPPING || s->hdr.type == PK_EVENT_NO_TABLE) {
		size_t want = s->hdr.type == PK_EVENT_MAPPING ? sizeof(struct pk_mapping_event) :
								 sizeof(struct pk_no_table);

		if (s->hdr.size != want || size < want ||
		    (s->hdr.type == PK_EVENT_MAPPING && (m->vm_start >= m->vm_end ||
							 m->path_len >= sizeof(m->path))))
			d->bad_size++;
		else if (s->hdr.type == PK_EVENT_MAPPING)
			d->mappings++, d->other_pid += d->pid > 0 && m->pid != (__u32)d->pid;
		else
			d->no_table++;
		return 0;
	}
	/* The runtime walks' reports, of variable size past their struct. */
	if (s->hdr.type == PK_EVENT_PY_CODE || s->hdr.type == PK_EVENT_HS_METHOD ||
	    s->hdr.type == PK_EVENT_V8_SFI) {
		size_t least = s->hdr.type == PK_EVENT_PY_CODE ? sizeof(struct pk_py_code_event) :
			       s->hdr.type == PK_EVENT_HS_METHOD ? sizeof(struct pk_hs_method_event) :
								    sizeof(struct pk_v8_sfi_event);

		if (s->hdr.size < least || s->hdr.size > size)
			d->bad_size++;
		else
			d->runtime++;
		return 0;
	}
	d->n++;
	d->sizes += size;
	if (s->hdr.type != PK_EVENT_SAMPLE || s->frames_off != sizeof(*s) ||
	    s->hdr.size > size || s->hdr.size != sample_size(s) ||
	    s->kstack_len > PK_MAX_STACK_DEPTH || s->ustack_len > PK_MAX_STACK_DEPTH)
		d->bad_size++;
	/* cpu-clock's weight is its period: a frequency's, some nanoseconds */
	d->bad_event += s->event != 0 || s->weight == 0;
	d->bad_cpu += d->cpu >= 0 && s->cpu != (__u32)d->cpu;
	d->idle += s->tid == 0;
	d->other_pid += d->pid > 0 && s->pid != (__u32)d->pid;
	return 0;
}

static void drain(struct delivered *d)
{
	struct pk_session_fds fds;
	struct pk_session info;
	struct ring_buffer *rb;

	ck_assert_int_eq(pk_session_open(pk_ld_dir, &fds, &info), 0);
	rb = ring_buffer__new(fds.events, on_sample, d, NULL);
	ck_assert_ptr_nonnull(rb);
	ck_assert_int_ge(ring_buffer__consume(rb), 0);
	ring_buffer__free(rb);
	pk_session_close(&fds);
}

/* What D drained: at least LEAST samples, every record whole, every sample
 * of event 0, and none that the session's filters keep out (of another CPU
 * than D's, of another pid than D's, of the idle task). */
static void assert_filtered(const struct delivered *d, __u64 least)
{
	ck_assert_uint_ge(d->n, least);
	ck_assert_msg(!d->bad_size && !d->bad_event && !d->bad_cpu && !d->other_pid && !d->idle,
		      "of %llu samples: %llu badly sized, %llu not of event 0, %llu of another "
		      "CPU, %llu of another pid, %llu of the idle task", (unsigned long long)d->n,
		      (unsigned long long)d->bad_size, (unsigned long long)d->bad_event,
		      (unsigned long long)d->bad_cpu, (unsigned long long)d->other_pid,
		      (unsigned long long)d->idle);
}

START_TEST(test_cpu_and_idle_filters)
{
	struct delivered d = { .cpu = 0, .pid = -1 };
	struct pk_session_fds fds;
	struct pk_session info;
	__u64 c[PK_CNT__MAX];

	/* --no-python: the walk's knob and the session's flag off (the Python
	 * walk itself: suite python_bpf) */
	LOAD_OK("-C", "0", "--skip-idle", "-F", "997", "--no-python");
	ck_assert(pk_ld_pinned("links/e0-cpu0") && !pk_ld_pinned("links/e0-cpu1"));
	ck_assert_int_eq(pk_session_open(pk_ld_dir, &fds, &info), 0);
	pk_session_close(&fds);
	ck_assert_uint_eq(info.flags, PK_SESSION_SKIP_IDLE | PK_SESSION_FILTER_CPU |
			  PK_SESSION_DWARF);
	ck_assert_int_eq(info.cpu, 0);
	ck_assert_uint_eq(info.ncpus, 1);
	/* Whether CPU 0 is ever idle meanwhile depends on the machine: the
	 * delivered samples must hold no idle one either way. */
	do {
		pk_ld_sleep_ms(10);
		pk_ld_read_counters(c);
	} while (c[PK_CNT_SAMPLES] + c[PK_CNT_FILTERED] < 50);
	drain(&d);
	assert_filtered(&d, c[PK_CNT_SAMPLES]);
	LOAD_OK("--unload");
}
END_TEST

START_TEST(test_pid_filter)
{
	struct delivered d = { .cpu = -1 };
	__u64 c[PK_CNT__MAX];
	char pid[16];

	d.pid = pk_ld_spin_child();
	snprintf(pid, sizeof(pid), "%d", (int)d.pid);
	LOAD_OK("-p", pid, "-F", "997");
	pk_ld_wait_counter(PK_CNT_SAMPLES, c);
	drain(&d);
	kill(d.pid, SIGKILL);
	waitpid(d.pid, NULL, 0);
	assert_filtered(&d, 1);
	/* the child's own mappings, reported for the DWARF walk */
	ck_assert_uint_gt(d.mappings, 0);
	LOAD_OK("--unload");
}
END_TEST

/* A one-page ring buffer nobody reads fills up: the rest is counted as
 * lost, never silently dropped. Each record takes at least its 8-byte
 * header and 56 + 8 bytes (one frame: the interrupted instruction). The
 * target is killed once the ring is full and before the count is read:
 * records differ in size (a stack copy takes kilobytes where no table is
 * loaded yet, as on a slow machine), so a full ring may still take a
 * smaller one. */
START_TEST(test_tiny_ringbuf_counts_losses)
{
	struct delivered d = { .cpu = -1 };
	long page = sysconf(_SC_PAGESIZE);
	char size[32], pid[16];
	__u64 c[PK_CNT__MAX];

	d.pid = pk_ld_spin_child();
	snprintf(size, sizeof(size), "%ld", page);
	snprintf(pid, sizeof(pid), "%d", (int)d.pid);
	LOAD_OK("--ringbuf-size", size, "-F", "4999", "-p", pid);
	pk_ld_wait_counter(PK_CNT_RINGBUF_FULL, c);
	kill(d.pid, SIGKILL);
	waitpid(d.pid, NULL, 0);
	pk_ld_read_counters(c);
	ck_assert_uint_gt(c[PK_CNT_SAMPLES], 0);
	ck_assert_uint_le(c[PK_CNT_SAMPLES], page / (8 + sizeof(struct pk_sample) + 8));
	drain(&d);
	ck_assert_uint_eq(d.other_pid, 0);
	ck_assert_uint_eq(d.n, c[PK_CNT_SAMPLES]);
	ck_assert_uint_eq(d.bad_size, 0);
	ck_assert_uint_eq(d.bad_event, 0);
	LOAD_OK("--unload");
}
END_TEST

void pk_ld_samples_tcase(Suite *s)
{
	TCase *tc = pk_ld_root_case(s, "samples");

	tcase_add_test(tc, test_cpu_and_idle_filters);
	tcase_add_test(tc, test_pid_filter);
	tcase_add_test(tc, test_tiny_ringbuf_counts_losses);
}
