// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Suite pprof, profiles of the synthetic harness (pprof_run.h): several
 * events in one message, decoded and read by `go tool pprof`, Python
 * frames, and the cgroup and container labels.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen/profile.pb-c.h"
#include "harness/pprof_decode.h"
#include "harness/pprof_raw.h"
#include "harness/synth_profile.h"
#include "output/pprof.h"
#include "test_util.h"
#include "unit/output/pprof_run.h"

/* --- several events -------------------------------------------------------- */

/* The types of the synthetic profile's events, in order, "TYPE/UNIT". */
static const char *const ev_types[2 * PK_SYNTH_NEVENTS] = {
	"samples/count", "cpu/nanoseconds",
	"off-cpu-samples/count", "off-cpu/nanoseconds",
	"tracepoint:syscalls:sys_enter_write-samples/count",
	"tracepoint:syscalls:sys_enter_write/count",
};

/* A merged sample of the model: (stack, tid, cpu, event), its count and
 * weight, the weight a cpu-clock sample does not know being its count
 * times 1e9 / 99 ns. */
struct want_ev {
	const struct pk_stack_view *stack;
	__u32 tid, cpu, event;
	__u64 count, weight;
	bool matched;
};

static size_t want_events(const struct pk_profile *p, struct want_ev *w)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pk_sample_view *s = &p->samples[i];
		size_t j;

		for (j = 0; j < n; j++)
			if (w[j].stack == s->stack && w[j].tid == s->tid && w[j].cpu == s->cpu &&
			    w[j].event == s->event)
				break;
		if (j == n)
			w[n++] = (struct want_ev){ s->stack, s->tid, s->cpu, s->event, 0, 0, false };
		w[j].count += s->count;
		w[j].weight += s->weight ? s->weight : s->count * (1000000000ULL / 99);
	}
	return n;
}

START_TEST(test_events_decode)
{
	struct pk_profile p = pk_synth_profile_events(PK_GROUP_NONE, false);
	struct want_ev want[32];
	size_t nwant = want_events(&p, want);
	__u64 totals[2 * PK_SYNTH_NEVENTS] = { 0 }, got_totals[2 * PK_SYNTH_NEVENTS] = { 0 };
	Perftools__Profiles__Profile *m = pk_pp_written(&p);

	ck_assert_uint_eq(m->n_sample_type, 2 * PK_SYNTH_NEVENTS);
	for (size_t t = 0; t < m->n_sample_type; t++) {
		char name[300];

		snprintf(name, sizeof(name), "%s/%s", pk_test_pprof_str(m, m->sample_type[t]->type),
			 pk_test_pprof_str(m, m->sample_type[t]->unit));
		ck_assert_str_eq(name, ev_types[t]);
	}
	ck_assert_str_eq(pk_test_pprof_str(m, m->default_sample_type), "cpu");
	ck_assert_str_eq(pk_test_pprof_str(m, m->period_type->type), "cpu");
	ck_assert_str_eq(pk_test_pprof_str(m, m->period_type->unit), "nanoseconds");
	ck_assert_int_eq(m->period, 1000000000 / 99);
	ck_assert_uint_eq(m->n_sample, nwant);
	for (size_t i = 0; i < nwant; i++) {
		totals[2 * want[i].event] += want[i].count;
		totals[2 * want[i].event + 1] += want[i].weight;
	}
	for (size_t i = 0; i < m->n_sample; i++) {
		const Perftools__Profiles__Sample *s = m->sample[i];
		__u32 tid = pk_pp_label(m, s, "tid")->num, cpu = pk_pp_label(m, s, "cpu")->num;
		int event = -1;
		struct want_ev *w = NULL;

		ck_assert_uint_eq(s->n_value, 2 * PK_SYNTH_NEVENTS);
		/* one event's pair only, the others' values 0 */
		for (int e = 0; e < PK_SYNTH_NEVENTS; e++) {
			if (!s->value[2 * e] && !s->value[2 * e + 1])
				continue;
			ck_assert_msg(event < 0, "sample %zu has values of two events", i);
			event = e;
		}
		ck_assert_int_ge(event, 0);
		for (size_t j = 0; j < nwant && !w; j++) {
			const struct pk_stack_view *st = want[j].stack;
			bool same = want[j].event == (__u32)event && want[j].tid == tid &&
				    want[j].cpu == cpu &&
				    (__u32)pk_pp_label(m, s, "pid")->num == st->pid &&
				    s->n_location_id == (size_t)st->nkernel + st->nuser;

			for (size_t k = 0; same && k < s->n_location_id; k++)
				same = s->location_id[k] == st->locs[k]->id + 1;
			if (same && !want[j].matched)
				w = &want[j];
		}
		ck_assert_msg(w, "sample %zu (event %d, tid %u, cpu %u) matches nothing in the model",
			      i, event, tid, cpu);
		w->matched = true;
		ck_assert_int_eq(s->value[2 * event], w->count);
		ck_assert_int_eq(s->value[2 * event + 1], w->weight);
		for (int t = 0; t < 2 * PK_SYNTH_NEVENTS; t++)
			got_totals[t] += s->value[t];
	}
	for (int t = 0; t < 2 * PK_SYNTH_NEVENTS; t++)
		ck_assert_uint_eq(got_totals[t], totals[t]);
	/* the model's own sanity: off-cpu's weight is its own */
	ck_assert_uint_eq(totals[3], 700 + 700 + 1499 + 2500 + 100000000);
	ck_assert_uint_eq(totals[5], 50);
	perftools__profiles__profile__free_unpacked(m, NULL);

	/* an event past the table: refused */
	p.nevents = 2;
	pk_pp_check_refused(&p);
}
END_TEST

static bool has_control(const struct pk_stack_view *st)
{
	for (size_t j = 0; j < (size_t)st->nkernel + st->nuser; j++)
		for (size_t k = 0; k < st->locs[j]->nframes; k++)
			for (const char *c = st->locs[j]->frames[k].name; *c; c++)
				if ((unsigned char)*c < 0x20)
					return true;
	return false;
}

static char *want_trace(const struct want_ev *w, long long value)
{
	const struct pk_stack_view *st = w->stack;
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);

	fprintf(f, "%lld comm=%s cpu=%u pid=%u tid=%u |", value, st->comm, w->cpu, st->pid,
		w->tid);
	for (size_t j = 0; j < (size_t)st->nkernel + st->nuser; j++)
		for (size_t k = 0; k < st->locs[j]->nframes; k++)
			fprintf(f, " %s", st->locs[j]->frames[k].name);
	fclose(f);
	return line;
}

static char *got_trace(const struct ppr_trace *t)
{
	static const char *const keys[] = { "comm", "cpu", "pid", "tid" };
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);

	fprintf(f, "%lld", t->value);
	ck_assert_uint_eq(t->nlabels, 4);
	for (size_t i = 0; i < 4; i++) {
		const char *v = NULL;

		for (size_t k = 0; k < t->nlabels; k++)
			if (!strcmp(t->labels[k].key, keys[i]))
				v = t->labels[k].value;
		ck_assert_msg(v, "no label %s", keys[i]);
		fprintf(f, " %s=%s", keys[i], v);
	}
	fputs(" |", f);
	for (size_t k = 0; k < t->nframes; k++)
		fprintf(f, " %s", t->frames[k]);
	fclose(f);
	return line;
}

/* go tool pprof -sample_index=TYPE shows each event's samples alone, with
 * their counts or weights, for each of the six types. */
START_TEST(test_events_go)
{
	struct pk_profile p = pk_synth_profile_events(PK_GROUP_NONE, false);
	struct pk_sample_view v[32];
	struct want_ev want[32];
	size_t n = 0, nwant;
	char *path, *text, err[512];

	if (!pk_pp_need_go())
		return;
	/* pprof's text cannot carry a newline in a name, and -traces prints
	 * no sample without frames: those stacks out */
	for (size_t i = 0; i < p.nsamples; i++)
		if (!has_control(p.samples[i].stack) &&
		    p.samples[i].stack->nkernel + p.samples[i].stack->nuser)
			v[n++] = p.samples[i];
	ck_assert_uint_lt(n, p.nsamples);
	p.samples = v;
	p.nsamples = n;
	nwant = want_events(&p, want);
	path = pk_pp_write_to_file(&p);
	for (int t = 0; t < 2 * PK_SYNTH_NEVENTS; t++) {
		char type[300], *wants[32], *gots[32];
		struct ppr_traces got;
		size_t nw = 0, k;

		snprintf(type, sizeof(type), "%.*s", (int)strcspn(ev_types[t], "/"), ev_types[t]);
		for (size_t i = 0; i < nwant; i++) {
			long long value = t % 2 ? want[i].weight : want[i].count;

			if (want[i].event == (__u32)t / 2 && value)
				wants[nw++] = want_trace(&want[i], value);
		}
		ck_assert_uint_gt(nw, 0);
		memset(gots, 0, sizeof(gots));
		ck_assert_msg(ppr_run_traces(path, type, &text, err, sizeof(err)) == 0, "%s", err);
		ck_assert_msg(ppr_parse_traces(text, &got, err, sizeof(err)) == 0, "%s\n%s", err, text);
		ck_assert_str_eq(got.type, type);
		/* every sample, those of the other events with 0; pprof merges
		 * samples of one stack and labels (their values summed), so
		 * that only the event of TYPE adds to each value */
		ck_assert_msg(got.ntraces <= nwant && got.ntraces >= nw,
			      "-sample_index=%s: %zu traces, %zu in the model\n%s",
			      type, got.ntraces, nwant, text);
		k = 0;
		for (size_t i = 0; i < got.ntraces; i++)
			if (got.traces[i].value) {
				ck_assert_uint_lt(k, nw);
				gots[k++] = got_trace(&got.traces[i]);
			}
		ck_assert_msg(k == nw, "-sample_index=%s: %zu samples with a value, %zu in the model\n%s",
			      type, k, nw, text);
		qsort(wants, nw, sizeof(*wants), pk_pp_cmp_strp);
		qsort(gots, nw, sizeof(*gots), pk_pp_cmp_strp);
		for (size_t i = 0; i < nw; i++) {
			ck_assert_msg(gots[i], "-sample_index=%s: %zu samples with a value, %zu in the model", type, i, nw);
			ck_assert_str_eq(gots[i], wants[i]);
			free(gots[i]);
			free(wants[i]);
		}
		ppr_traces_free(&got);
		free(text);
	}
	unlink(path);
	free(path);
}
END_TEST

/* Python frames as Go's pprof reads them: function QUALNAME in FILE, the
 * line on the location's line, no mapping; -traces shows the stacks with
 * the Python names in place of the eval loop's. */
START_TEST(test_python_go)
{
	static const struct {
		const char *name, *file;
		long long line;
	} want_locs[] = {
		{ "Job.run", "/srv/app/job.py", 12 },
		{ "<module>", "/srv/app/main.py", 3 },
		{ "caf\xc3\xa9.\xc3\xbc" "ber", "/srv/app/util.py", 0 },
		{ "[py:0x7f1200004000]", "", 0 },
		{ "<module>", "/srv/app/other.py", 1 },
	};
	static const struct {
		const char *frames;
		long long value;
	} want_traces[] = {
		{ "Job.run|method_vectorcall_NOARGS|<module>|Py_RunMain", 3 },
		{ "do_syscall_64|caf\xc3\xa9.\xc3\xbc" "ber|Job.run|<module>|Py_RunMain", 1 },
		{ "[py:0x7f1200004000]|_PyEval_EvalFrameDefault|<module>|Py_RunMain", 1 },
	};
	struct pk_profile p = pk_synth_python_profile(PK_GROUP_NONE, false);
	long long got_values[3] = { 0 };
	struct ppr_profile got;
	struct ppr_traces traces;
	char *path, *text, err[512];

	if (!pk_pp_need_go())
		return;
	path = pk_pp_write_to_file(&p);
	ck_assert_msg(ppr_run(path, &text, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(ppr_parse(text, &got, err, sizeof(err)) == 0, "%s\n%s", err, text);
	for (size_t w = 0; w < sizeof(want_locs) / sizeof(want_locs[0]); w++) {
		size_t found = 0;

		for (size_t i = 0; i < got.nlocs; i++) {
			const struct ppr_location *l = &got.locs[i];

			if (l->nlines != 1 || strcmp(l->lines[0].name, want_locs[w].name) ||
			    strcmp(l->lines[0].file, want_locs[w].file))
				continue;
			ck_assert_ptr_null(l->mapping);
			ck_assert_int_eq(l->lines[0].line, want_locs[w].line);
			found++;
		}
		ck_assert_msg(found == 1, "%s in %s: %zu locations\n%s", want_locs[w].name,
			      want_locs[w].file, found, text);
	}
	ppr_free(&got);
	free(text);

	ck_assert_msg(ppr_run_traces(path, "samples", &text, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(ppr_parse_traces(text, &traces, err, sizeof(err)) == 0, "%s\n%s", err, text);
	for (size_t i = 0; i < traces.ntraces; i++) {
		char joined[512] = "";
		size_t w;

		if (!traces.traces[i].value && !traces.traces[i].nframes)
			continue;	/* what the parser makes of the closing rule */
		for (size_t k = 0; k < traces.traces[i].nframes; k++) {
			if (k)
				strcat(joined, "|");
			strncat(joined, traces.traces[i].frames[k], 100);
		}
		for (w = 0; w < 3; w++)
			if (!strcmp(joined, want_traces[w].frames))
				break;
		ck_assert_msg(w < 3, "trace %s is not in the model\n%s", joined, text);
		got_values[w] += traces.traces[i].value;
	}
	for (size_t w = 0; w < 3; w++)
		ck_assert_msg(got_values[w] == want_traces[w].value, "%s: %lld samples\n%s",
			      want_traces[w].frames, got_values[w], text);
	ppr_traces_free(&traces);
	free(text);
	unlink(path);
	free(path);
}
END_TEST

/* The label KEY of S, or NULL when S has none. */
static const Perftools__Profiles__Label *label_or_null(const Perftools__Profiles__Profile *m,
						       const Perftools__Profiles__Sample *s,
						       const char *key)
{
	for (size_t i = 0; i < s->n_label; i++)
		if (strcmp(pk_test_pprof_str(m, s->label[i]->key), key) == 0)
			return s->label[i];
	return NULL;
}

/* Every sample whose cgroup was named carries it as the label "cgroup",
 * and the container's id as "container_id" where the path names one; a
 * stack whose cgroup was not looked up has neither. */
START_TEST(test_cgroup_labels)
{
	static const struct {
		const char *cgroup, *container;
		long long count;
	} want[] = {
		{ "/system.slice/docker-" PK_SYNTH_CONTAINER_ID ".scope", PK_SYNTH_CONTAINER_ID, 2 },
		{ "/user.slice", NULL, 1 },
		{ "cgroup:30", NULL, 1 },
		{ NULL, NULL, 1 },
	};
	struct pk_profile p = pk_synth_cgroup_profile(PK_GROUP_NONE, false);
	bool seen[4] = { false };
	Perftools__Profiles__Profile *m = pk_pp_written(&p);

	ck_assert_uint_eq(m->n_sample, 4);
	for (size_t i = 0; i < m->n_sample; i++) {
		const Perftools__Profiles__Sample *s = m->sample[i];
		const Perftools__Profiles__Label *cg = label_or_null(m, s, "cgroup");
		const Perftools__Profiles__Label *cid = label_or_null(m, s, "container_id");
		size_t w;

		for (w = 0; w < 4; w++)
			if (want[w].cgroup ? cg && !strcmp(pk_test_pprof_str(m, cg->str), want[w].cgroup) : !cg)
				break;
		ck_assert_msg(w < 4, "sample %zu: cgroup %s", i, cg ? pk_test_pprof_str(m, cg->str) : "(none)");
		ck_assert(!seen[w]);
		seen[w] = true;
		ck_assert_int_eq(s->value[0], want[w].count);
		ck_assert_str_eq(pk_test_pprof_str(m, pk_pp_label(m, s, "comm")->str), "svc");
		if (want[w].container) {
			ck_assert_ptr_nonnull(cid);
			ck_assert_str_eq(pk_test_pprof_str(m, cid->str), want[w].container);
			ck_assert_int_eq(cid->num, 0);
		} else {
			ck_assert_ptr_null(cid);
		}
		ck_assert_uint_eq(s->n_label, 4 + (cg != NULL) + (cid != NULL));
		if (cg)
			ck_assert_int_eq(cg->num, 0);
	}
	perftools__profiles__profile__free_unpacked(m, NULL);
}
END_TEST


void pk_pp_events_tests(TCase *tc)
{
	tcase_add_test(tc, test_events_decode);
	tcase_add_test(tc, test_events_go);
	tcase_add_test(tc, test_python_go);
	tcase_add_test(tc, test_cgroup_labels);
}
