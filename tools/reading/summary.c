// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <string.h>

#include "lib/session.h"
#include "profile/profile.h"
#include "reading/summary.h"

static const char *const end_names[PK_END__MAX] = {
	[PK_END_COMPLETE] = "complete",
	[PK_END_DEPTH] = "depth limit",
	[PK_END_NO_TABLE] = "no table yet",
	[PK_END_UNSUPPORTED] = "unsupported rule",
	[PK_END_READ_FAULT] = "read fault",
	[PK_END_LOOP] = "loop",
	[PK_END_FP_FALLBACK] = "frame-pointer fallback",
	[PK_END_NO_CFI] = "no CFI at PC",
};

void pk_summary_events(FILE *f, const struct pk_reader_stats *st,
		       const struct pk_event_desc *ev, unsigned int n, int keep)
{
	if (n == 1 && strcmp(ev[0].name, "cpu-clock") == 0)
		return;
	for (unsigned int e = 0; e < n && e < PK_MAX_EVENTS; e++) {
		unsigned long long w = st->event_weight[e];
		bool time = pk_event_folds_time(&ev[e]);

		fprintf(f, "probe-read: %s: %llu samples", ev[e].name,
			(unsigned long long)st->event_samples[e]);
		if (w && time)
			fprintf(f, ", %llu us blocked", (w + 500) / 1000);
		else if (w && ev[e].unit == PK_UNIT_NS)
			fprintf(f, ", %.3f s of CPU", w / 1e9);
		else if (w)	/* the weights: each sample stands for its period, or N of -c N */
			fprintf(f, " standing for %llu %s", w,
				ev[e].kind == PK_EVK_PERF ? "occurrences" : "hits");
		if (keep >= 0 && (unsigned int)keep != e)
			fprintf(f, " (not written: --event %s)\n", ev[keep].name);
		else
			fprintf(f, " (folded: %s)\n", time ? "microseconds off-CPU" : "samples");
	}
}

void pk_summary_ustack_ends(FILE *f, const struct pk_reader_stats *st)
{
	const char *sep = "";

	if (!st->dwarf)
		return;
	for (unsigned int e = 0; e < PK_END__MAX; e++) {
		double share = 100.0 * st->ends[e] / st->dwarf;

		if (!st->ends[e] || !end_names[e])
			continue;
		if (!*sep)
			fputs("user stacks:", f);
		/* A rare reason still shows, not as "0.0%". */
		if (share < 0.05)
			fprintf(f, "%s <0.1%% %s", sep, end_names[e]);
		else
			fprintf(f, "%s %.1f%% %s", sep, share, end_names[e]);
		sep = ",";
	}
	/* only walks that ended in no way this reader knows: no line */
	if (*sep && st->copies)
		fprintf(f, "; %.1f%% finished in user space (%llu of %llu copied stacks)",
			100.0 * st->finished / st->dwarf, (unsigned long long)st->finished,
			(unsigned long long)st->copies);
	if (*sep)
		fputc('\n', f);
}

void pk_summary_no_table(FILE *f, const struct pk_reader_stats *st)
{
	if (!st->no_table)
		return;
	fprintf(f, "unwind tables: %llu files reported without one, %llu added",
		(unsigned long long)st->no_table, (unsigned long long)st->tables_added);
	if (st->tables_gone)
		fprintf(f, ", %llu gone (process exited)", (unsigned long long)st->tables_gone);
	if (st->tables_failed)
		fprintf(f, ", %llu failed", (unsigned long long)st->tables_failed);
	fputc('\n', f);
}

void pk_summary_from_now(FILE *f, const struct pk_reader_stats *st)
{
	if (st->before_from)
		fprintf(f, "probe-read: %llu of them sampled before this reader started, dropped (--from-now)\n",
			(unsigned long long)st->before_from);
}

void pk_summary_aggregate(FILE *f, const struct pk_reader_stats *st, const __u64 *cnt)
{
	__u64 full = cnt ? cnt[PK_CNT_AGG_FULL] : 0;

	if (!st->agg_defs && !st->agg_counted && !st->agg_pending && !full &&
	    !(cnt && cnt[PK_CNT_AGG_COUNTED]))
		return;
	fprintf(f, "probe-read: %llu of them counted in the kernel (--aggregate), %llu sent to define their stacks",
		(unsigned long long)st->agg_counted, (unsigned long long)st->agg_defs);
	if (full)
		fprintf(f, "; %llu sent whole (the counts map was full: probe-load --aggregate-entries)",
			(unsigned long long)full);
	fputc('\n', f);
	if (st->agg_pending)
		fprintf(f, "probe-read: %llu samples counted in the kernel under stacks whose definition was lost (ring buffer full): not in the profile\n",
			(unsigned long long)st->agg_pending);
}

/* The walks that ended "unsupported rule", by what was not supported. */
void pk_summary_unsupported(FILE *f, const __u64 cnt[PK_CNT__MAX])
{
	static const struct {
		enum pk_counter cnt;
		const char *name;
	} kinds[] = {
		{ PK_CNT_UNSUP_CFA, "CFA expression" },
		{ PK_CNT_UNSUP_CFA_REG, "CFA register not known" },
		{ PK_CNT_UNSUP_RA, "return-address rule" },
		{ PK_CNT_UNSUP_RA_REG, "return-address register not known" },
		{ PK_CNT_UNSUP_NO_RULE, "no rule in the maps" },
	};
	const char *sep = "unsupported rules:";

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!cnt[kinds[i].cnt])
			continue;
		fprintf(f, "%s %llu %s", sep, (unsigned long long)cnt[kinds[i].cnt],
			kinds[i].name);
		sep = ",";
	}
	if (*sep == ',')
		fputc('\n', f);
}

static double pct(__u64 part, __u64 whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

void pk_summary_symbols(FILE *f, const struct pk_reader_stats *st)
{
	const char *sep = "symbols:";

	if (st->user_frames) {
		fprintf(f, "%s %.1f%% of user frames named, %.1f%% with a source line, %.1f%% inlined",
			sep, pct(st->user_named, st->user_frames),
			pct(st->user_lines, st->user_frames),
			pct(st->user_inlined, st->user_frames));
		sep = ";";
	}
	if (st->kernel_frames) {
		fprintf(f, "%s %.1f%% of kernel frames named", sep,
			pct(st->kernel_named, st->kernel_frames));
		sep = ";";
	}
	if (*sep == ';' && st->addrs_resolved)
		fprintf(f, "; %llu addresses, %llu from earlier readers' caches",
			(unsigned long long)st->addrs_resolved,
			(unsigned long long)st->addrs_cached);
	if (*sep == ';')
		fputc('\n', f);
	/* a Go binary whose table was refused: why its frames are addresses */
	if (st->go_refused > 1)
		fprintf(f, "symbols: %s (and %llu more Go files)\n", st->go_err,
			(unsigned long long)st->go_refused - 1);
	else if (st->go_refused)
		fprintf(f, "symbols: %s\n", st->go_err);
}

static const char *const py_end_names[PK_PY_END__MAX] = {
	[PK_PY_END_NONE] = "no walk",
	[PK_PY_END_COMPLETE] = "complete",
	[PK_PY_END_DEPTH] = "depth limit",
	[PK_PY_END_NO_THREAD] = "no thread state",
	[PK_PY_END_READ_FAULT] = "read fault",
};

void pk_summary_python(FILE *f, const struct pk_reader_stats *st)
{
	const char *sep = ";";

	if (!st->py_samples && !st->py_frames)
		return;
	fprintf(f, "python: %llu frames in %llu samples with a Python walk, %.1f%% named, %.1f%% with a line",
		(unsigned long long)st->py_frames, (unsigned long long)st->py_samples,
		pct(st->py_named, st->py_frames), pct(st->py_lines, st->py_frames));
	if (st->py_left)
		fprintf(f, "; %llu past the native frames (put outermost)",
			(unsigned long long)st->py_left);
	if (st->eval_left)
		fprintf(f, "; %llu eval frames without Python frames (kept native)",
			(unsigned long long)st->eval_left);
	for (unsigned int e = 0; e < PK_PY_END__MAX; e++) {
		if (!st->py_ends[e] || !py_end_names[e] || !st->py_samples)
			continue;
		fprintf(f, "%s %.1f%% %s", sep, pct(st->py_ends[e], st->py_samples), py_end_names[e]);
		sep = ",";
	}
	fputc('\n', f);
}

/* What to do about samples lost to a full ring buffer: each option named
 * with the tool that takes it. */
const char pk_summary_lost_hint[] =
	"probe-read: the ring buffer was full: read while the session samples (a reader\n"
	"  running beside it, or probe-read --interval), or load it again with a larger\n"
	"  probe-load --ringbuf-size, a lower probe-load -F, or probe-load -c N to keep\n"
	"  one hit in N of a probe or tracepoint\n";

void pk_summary_print(FILE *f, const struct pk_reader *reader, int counters_fd,
		      const struct pk_event_desc *events, unsigned int nevents, int keep)
{
	__u64 cnt[PK_CNT__MAX];
	struct pk_reader_stats st;
	char bad[64] = "";
	int ret;

	pk_reader_stats(reader, &st);
	if (st.bad)
		snprintf(bad, sizeof(bad), ", %llu bad records", (unsigned long long)st.bad);
	ret = pk_counters_read(counters_fd, cnt);
	if (ret) {
		fprintf(f, "probe-read: %llu samples read%s (loss counters unreadable: %s)\n",
			(unsigned long long)st.samples, bad, strerror(-ret));
	} else {
		fprintf(f, "probe-read: %llu samples read, %llu lost (ring buffer full), %llu failed stacks%s\n",
			(unsigned long long)st.samples, (unsigned long long)cnt[PK_CNT_RINGBUF_FULL],
			(unsigned long long)(cnt[PK_CNT_KSTACK_ERR] + cnt[PK_CNT_USTACK_ERR]), bad);
	}
	if (!ret && cnt[PK_CNT_RINGBUF_FULL])
		fprintf(f, "%s", pk_summary_lost_hint);
	pk_summary_aggregate(f, &st, ret ? NULL : cnt);
	pk_summary_from_now(f, &st);
	pk_summary_events(f, &st, events, nevents, keep);
	pk_summary_ustack_ends(f, &st);
	if (!ret)
		pk_summary_unsupported(f, cnt);
	pk_summary_no_table(f, &st);
	pk_summary_symbols(f, &st);
	pk_summary_python(f, &st);
	if (!ret && cnt[PK_CNT_USTACK_COPIES])
		fprintf(f, "probe-read: %llu samples sent with their user stack copied (no table yet), %.1f KiB each on average\n",
			(unsigned long long)cnt[PK_CNT_USTACK_COPIES],
			cnt[PK_CNT_USTACK_COPY_BYTES] / 1024.0 / cnt[PK_CNT_USTACK_COPIES]);
	if (!ret && cnt[PK_CNT_MAPPING_LOST])
		fprintf(f, "probe-read: %llu mapping reports lost (ring buffer full): frames of processes that exited before they were read may be unnamed\n",
			(unsigned long long)cnt[PK_CNT_MAPPING_LOST]);
	if (!ret && cnt[PK_CNT_PY_CODE_LOST])
		fprintf(f, "probe-read: %llu Python code reports lost (ring buffer full): their frames read [py:0xADDR]\n",
			(unsigned long long)cnt[PK_CNT_PY_CODE_LOST]);
}
