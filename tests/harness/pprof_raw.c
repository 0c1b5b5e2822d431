// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/pprof_raw.h"
#include "test_util.h"

bool ppr_go_available(void)
{
	char *argv[] = { "go", "version", NULL };
	int st = pk_test_run(argv, NULL, NULL);

	return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* go tool pprof ARGS... FILE, in a temporary HOME. */
static int run_pprof(const char *file, const char *const *args, size_t nargs, char **out,
		     char *err, size_t errlen)
{
	char dir[] = "/tmp/pk-pprof-XXXXXX";
	char home[64], cache[80], path[80];
	char *stderr_text = NULL, *argv[16];
	size_t n = 0;
	int st;

	*out = NULL;
	if (!mkdtemp(dir)) {
		snprintf(err, errlen, "mkdtemp: %s", strerror(errno));
		return -1;
	}
	snprintf(home, sizeof(home), "HOME=%s", dir);
	snprintf(cache, sizeof(cache), "GOCACHE=%s/cache", dir);
	snprintf(path, sizeof(path), "GOPATH=%s/go", dir);
	{
		char *head[] = { "env", home, cache, path, "GOFLAGS=", "go", "tool", "pprof" };
		char *rm[] = { "rm", "-rf", dir, NULL };

		for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
			argv[n++] = head[i];
		for (size_t i = 0; i < nargs && n < 14; i++)
			argv[n++] = (char *)args[i];
		argv[n++] = (char *)file;
		argv[n] = NULL;
		st = pk_test_run(argv, out, &stderr_text);
		pk_test_run(rm, NULL, NULL);
	}
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || !*out) {
		const char *e = stderr_text ? stderr_text : "";

		snprintf(err, errlen, "go tool pprof %s %s: status %d: %.*s", args[0], file,
			 st, (int)strcspn(e, "\n"), e);
		free(*out);
		*out = NULL;
		free(stderr_text);
		return -1;
	}
	free(stderr_text);
	return 0;
}

int ppr_run(const char *file, char **out, char *err, size_t errlen)
{
	static const char *const args[] = { "-raw", "-symbolize=none" };

	return run_pprof(file, args, 2, out, err, errlen);
}

int ppr_run_tags(const char *file, char **out, char *err, size_t errlen)
{
	static const char *const args[] = { "-tags", "-symbolize=none", "-sample_index=samples" };

	return run_pprof(file, args, 3, out, err, errlen);
}

int ppr_run_traces(const char *file, const char *sample_index, char **out, char *err,
		   size_t errlen)
{
	char si[300];
	const char *args[] = { "-traces", "-symbolize=none", "-unit=ns", si };

	snprintf(si, sizeof(si), "-sample_index=%s", sample_index);
	return run_pprof(file, args, 4, out, err, errlen);
}

static int traces_bad(char *err, size_t errlen, size_t line, const char *what)
{
	snprintf(err, errlen, "go tool pprof -traces line %zu: %s", line, what);
	return -EBADMSG;
}

int ppr_parse_traces(const char *text, struct ppr_traces *out, char *err, size_t errlen)
{
	static const char SEP[] = "-----------+";
	struct ppr_trace *t = NULL;
	bool frames = false;
	size_t lineno = 0;

	memset(out, 0, sizeof(*out));
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		char *line = strndup(p, len);
		const char *q;

		p += len + (p[len] == '\n');
		lineno++;
		if (!line)
			return -ENOMEM;
		if (!out->type && strncmp(line, "Type: ", 6) == 0) {
			out->type = strdup(line + 6);
		} else if (strncmp(line, SEP, sizeof(SEP) - 1) == 0) {
			struct ppr_trace *v = realloc(out->traces, (out->ntraces + 1) * sizeof(*v));

			if (!v) {
				free(line);
				return -ENOMEM;
			}
			out->traces = v;
			t = &v[out->ntraces++];
			memset(t, 0, sizeof(*t));
			frames = false;
		} else if (!t || !line[0]) {
			/* the header before the first trace */
		} else if (!frames && (q = strstr(line, ":  ")) && line[0] == ' ') {
			/* "      key:  value" */
			const char *k = line + strspn(line, " ");
			struct ppr_label *l = realloc(t->labels, (t->nlabels + 1) * sizeof(*l));

			if (!l) {
				free(line);
				return -ENOMEM;
			}
			t->labels = l;
			l = &l[t->nlabels++];
			memset(l, 0, sizeof(*l));
			l->key = strndup(k, q - k);
			l->value = strdup(q + 3);
			l->unit = strdup("");
		} else {
			/* "VALUEns   leaf", then "             caller" */
			const char *name = line;
			const char **f;

			if (!frames) {
				char *end;

				t->value = strtoll(line + strspn(line, " "), &end, 10);
				/* "0" has no unit */
				if (end == line + strspn(line, " ") ||
				    (t->value && strncmp(end, "ns", 2)) ||
				    (end[t->value ? 2 : 0] && end[t->value ? 2 : 0] != ' ')) {
					free(line);
					return traces_bad(err, errlen, lineno, "no value before the stack");
				}
				name = end + (t->value ? 2 : 0);
				frames = true;
			}
			name += strspn(name, " ");
			if (!*name) {		/* a sample without frames */
				free(line);
				continue;
			}
			/* an inlined function: "NAME (inline)" */
			len = strlen(name);
			if (len > 9 && strcmp(name + len - 9, " (inline)") == 0)
				line[name - line + len - 9] = '\0';
			f = realloc(t->frames, (t->nframes + 1) * sizeof(*f));
			if (!f) {
				free(line);
				return -ENOMEM;
			}
			t->frames = f;
			f[t->nframes++] = strdup(name);
		}
		free(line);
	}
	if (!out->type)
		return traces_bad(err, errlen, lineno, "no Type: line");
	return 0;
}

void ppr_traces_free(struct ppr_traces *t)
{
	for (size_t i = 0; i < t->ntraces; i++) {
		struct ppr_trace *tr = &t->traces[i];

		for (size_t k = 0; k < tr->nlabels; k++) {
			free(tr->labels[k].key);
			free(tr->labels[k].value);
			free(tr->labels[k].unit);
		}
		for (size_t k = 0; k < tr->nframes; k++)
			free((char *)tr->frames[k]);
		free(tr->labels);
		free(tr->frames);
	}
	free(t->traces);
	free(t->type);
	memset(t, 0, sizeof(*t));
}

/* The parse in progress: ids stand for locations and mappings until all
 * are read (samples come before the locations they name, and locations
 * before their mappings). */
struct parser {
	struct ppr_profile *p;
	unsigned long long **sample_loc_ids;	/* per sample */
	unsigned long long *loc_mapping_ids;	/* per location; 0: none */
	unsigned int lineno;
	char *err;
	size_t errlen;
};

static int bad(struct parser *ps, const char *what)
{
	snprintf(ps->err, ps->errlen, "go tool pprof -raw line %u: %s", ps->lineno, what);
	return -EBADMSG;
}

static size_t spaces(const char *s)
{
	size_t n = 0;

	while (s[n] == ' ')
		n++;
	return n;
}

static bool parse_ull(const char **s, int base, unsigned long long *v)
{
	char *end;

	if (!isxdigit((unsigned char)**s))
		return false;
	errno = 0;
	*v = strtoull(*s, &end, base);
	if (errno || end == *s)
		return false;
	*s = end;
	return true;
}

static bool parse_ll(const char **s, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(*s, &end, 10);
	if (errno || end == *s)
		return false;
	*s = end;
	return true;
}

/* "V1 V2 ...: ID ID ... " */
static int add_sample(struct parser *ps, const char *line)
{
	struct ppr_profile *p = ps->p;
	struct ppr_sample *s, *v;
	unsigned long long **ids, *idv = NULL, id;
	size_t nids = 0;
	const char *c = line;
	long long val;

	if (!(v = pk_test_grow(p->samples, p->nsamples, sizeof(*v))))
		return -ENOMEM;
	p->samples = v;
	if (!(ids = pk_test_grow(ps->sample_loc_ids, p->nsamples, sizeof(*ids))))
		return -ENOMEM;
	ps->sample_loc_ids = ids;
	s = &p->samples[p->nsamples];
	memset(s, 0, sizeof(*s));
	ids[p->nsamples] = NULL;
	p->nsamples++;

	for (;;) {
		c += spaces(c);
		if (*c == ':')
			break;
		if (!parse_ll(&c, &val))
			return bad(ps, "sample value is not a number");
		if (!(s->values = pk_test_grow(s->values, s->nvalues, sizeof(*s->values))))
			return -ENOMEM;
		s->values[s->nvalues++] = val;
	}
	if (s->nvalues != p->ntypes)
		return bad(ps, "sample has not one value per sample type");
	c++;
	for (;;) {
		c += spaces(c);
		if (!*c)
			break;
		if (!parse_ull(&c, 10, &id) || (*c && *c != ' '))
			return bad(ps, "sample location id is not a number");
		if (!(idv = pk_test_grow(ids[p->nsamples - 1], nids, sizeof(*idv))))
			return -ENOMEM;
		ids[p->nsamples - 1] = idv;
		idv[nids++] = id;
	}
	s->nlocs = nids;
	return 0;
}

static bool is_key_char(char c)
{
	return c && c != ' ' && c != ':' && c != '[' && c != ']';
}

/* Does " KEY:[" start at S? */
static bool key_starts(const char *s)
{
	if (*s++ != ' ' || !is_key_char(*s))
		return false;
	while (is_key_char(*s))
		s++;
	return s[0] == ':' && s[1] == '[';
}

/* "key:[value] key:[value]", string labels or numeric ones. */
static int add_labels(struct parser *ps, const char *line, bool num)
{
	struct ppr_sample *s;
	const char *c = line + spaces(line);

	if (!ps->p->nsamples)
		return bad(ps, "labels before any sample");
	s = &ps->p->samples[ps->p->nsamples - 1];
	while (*c) {
		const char *colon = strstr(c, ":["), *v, *end;
		struct ppr_label *l;

		if (!colon || colon == c)
			return bad(ps, "label is not KEY:[VALUE]");
		v = colon + 2;
		for (end = v; *end; end++)
			if (*end == ']' && (!end[1] || key_starts(end + 1)))
				break;
		if (!*end)
			return bad(ps, "label value has no closing ]");
		if (!(l = pk_test_grow(s->labels, s->nlabels, sizeof(*l))))
			return -ENOMEM;
		s->labels = l;
		l = &s->labels[s->nlabels++];
		l->key = strndup(c, colon - c);
		l->value = strndup(v, end - v);
		l->num = num;
		if (!l->key || !l->value)
			return -ENOMEM;
		c = end + 1;
		c += spaces(c);
	}
	return 0;
}

/* "N" or "N UNIT" */
static bool is_number(const char *v)
{
	if (*v == '-')
		v++;
	if (!isdigit((unsigned char)*v))
		return false;
	while (isdigit((unsigned char)*v))
		v++;
	return !*v || *v == ' ';
}

/* A sample's labels were marked numeric when on its second label line.
 * With a single line, it is the numeric one when all its values are
 * numbers: pprof prints string labels first, and each kind only when the
 * sample has some. */
static void settle_label_kinds(struct ppr_sample *s)
{
	bool all_numbers = true;

	for (size_t i = 0; i < s->nlabels; i++) {
		if (s->labels[i].num)
			return;
		all_numbers &= is_number(s->labels[i].value);
	}
	for (size_t i = 0; i < s->nlabels; i++)
		s->labels[i].num = all_numbers;
}

/* "N UNIT" into "N" and "UNIT". */
static int split_units(struct ppr_sample *s)
{
	for (size_t i = 0; i < s->nlabels; i++) {
		struct ppr_label *l = &s->labels[i];
		char *sp = l->num ? strchr(l->value, ' ') : NULL;

		if (!(l->unit = strdup(sp ? sp + 1 : "")))
			return -ENOMEM;
		if (sp)
			*sp = '\0';
	}
	return 0;
}

/* "NAME FILE:LINE s=START[(SYSTEM_NAME)]" or "??" */
static int add_line(struct parser *ps, struct ppr_location *loc, const char *text)
{
	const char *s_at = NULL, *colon, *sp;
	struct ppr_line *ln;
	long long v;

	if (!(ln = pk_test_grow(loc->lines, loc->nlines, sizeof(*ln))))
		return -ENOMEM;
	loc->lines = ln;
	ln = &loc->lines[loc->nlines++];
	memset(ln, 0, sizeof(*ln));
	if (strcmp(text, "??") == 0) {
		ln->name = strdup("??");
		ln->file = strdup("");
		return ln->name && ln->file ? 0 : -ENOMEM;
	}
	/* the last " s=N" that ends the text or starts "(SYSTEM_NAME)" */
	for (const char *c = text; (c = strstr(c, " s=")); c++) {
		const char *d = c + 3;

		if (*d == '-')
			d++;
		if (!isdigit((unsigned char)*d))
			continue;
		while (isdigit((unsigned char)*d))
			d++;
		if (!*d || (*d == '(' && text[strlen(text) - 1] == ')'))
			s_at = c;
	}
	if (!s_at)
		return bad(ps, "location line does not end in s=START");
	for (colon = s_at; colon > text && *colon != ':'; colon--)
		;
	if (*colon != ':')
		return bad(ps, "location line has no FILE:LINE");
	sp = colon + 1;
	if (!parse_ll(&sp, &v) || sp != s_at)
		return bad(ps, "location line number is not a number");
	ln->line = v;
	for (sp = colon; sp > text && *sp != ' '; sp--)
		;
	if (*sp != ' ')
		return bad(ps, "location line has no space between NAME and FILE");
	ln->name = strndup(text, sp - text);
	ln->file = strndup(sp + 1, colon - sp - 1);
	return ln->name && ln->file ? 0 : -ENOMEM;
}

/* "ID: 0xADDR [M=MAPID ][[F] ]LINE" */
static int add_location(struct parser *ps, const char *line)
{
	struct ppr_profile *p = ps->p;
	struct ppr_location *loc;
	unsigned long long *mids, mid = 0;
	const char *c = line + spaces(line);

	if (!(loc = pk_test_grow(p->locs, p->nlocs, sizeof(*loc))))
		return -ENOMEM;
	p->locs = loc;
	if (!(mids = pk_test_grow(ps->loc_mapping_ids, p->nlocs, sizeof(*mids))))
		return -ENOMEM;
	ps->loc_mapping_ids = mids;
	loc = &p->locs[p->nlocs++];
	memset(loc, 0, sizeof(*loc));
	mids[p->nlocs - 1] = 0;

	if (!parse_ull(&c, 10, &loc->id) || strncmp(c, ": 0x", 4))
		return bad(ps, "location does not start with ID: 0xADDRESS");
	c += 2;
	if (!parse_ull(&c, 16, &loc->address) || *c != ' ')
		return bad(ps, "location address is not hexadecimal");
	c++;
	if (strncmp(c, "M=", 2) == 0) {
		c += 2;
		if (!parse_ull(&c, 10, &mid) || *c != ' ')
			return bad(ps, "location mapping id is not a number");
		c++;
	}
	mids[p->nlocs - 1] = mid;
	if (strncmp(c, "[F] ", 4) == 0)
		c += 4;
	return *c ? add_line(ps, loc, c) : 0;
}

/* "ID: 0xSTART/0xLIMIT/0xOFFSET FILE BUILDID BITS" */
static int add_mapping(struct parser *ps, const char *line)
{
	struct ppr_profile *p = ps->p;
	struct ppr_mapping *m;
	const char *c = line, *bits, *bid;

	if (!(m = pk_test_grow(p->mappings, p->nmappings, sizeof(*m))))
		return -ENOMEM;
	p->mappings = m;
	m = &p->mappings[p->nmappings++];
	memset(m, 0, sizeof(*m));
	if (!parse_ull(&c, 10, &m->id) || strncmp(c, ": ", 2))
		return bad(ps, "mapping does not start with ID: ");
	c += 2;
	if (!parse_ull(&c, 16, &m->start) || *c++ != '/' ||
	    !parse_ull(&c, 16, &m->limit) || *c++ != '/' ||
	    !parse_ull(&c, 16, &m->offset) || *c++ != ' ')
		return bad(ps, "mapping range is not 0xSTART/0xLIMIT/0xOFFSET");
	if (!(bits = strrchr(c, ' ')))
		return bad(ps, "mapping has no build-id and bits");
	for (bid = bits - 1; bid >= c && *bid != ' '; bid--)
		;
	if (bid < c)
		return bad(ps, "mapping has no file and build-id");
	m->file = strndup(c, bid - c);
	m->build_id = strndup(bid + 1, bits - bid - 1);
	if (!m->file || !m->build_id)
		return -ENOMEM;
	bits++;
	m->has_functions = strstr(bits, "[FN]");
	m->has_filenames = strstr(bits, "[FL]");
	m->has_line_numbers = strstr(bits, "[LN]");
	m->has_inline_frames = strstr(bits, "[IN]");
	return 0;
}

static int add_sample_types(struct parser *ps, const char *line)
{
	struct ppr_profile *p = ps->p;
	const char *c = line;

	while (*(c += spaces(c))) {
		size_t n = strcspn(c, " ");
		char **v, *t;

		if (!(v = pk_test_grow(p->sample_types, p->ntypes, sizeof(*v))))
			return -ENOMEM;
		p->sample_types = v;
		if (!(t = strndup(c, n)))
			return -ENOMEM;
		if (n > 6 && strcmp(t + n - 6, "[dflt]") == 0)
			t[n - 6] = '\0';
		if (!strchr(t, '/')) {
			free(t);
			return bad(ps, "sample type is not TYPE/UNIT");
		}
		p->sample_types[p->ntypes++] = t;
		c += n;
	}
	return 0;
}

static int cmp_loc(const void *a, const void *b)
{
	const struct ppr_location *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Ids to pointers, once everything is read. */
static int resolve(struct parser *ps)
{
	struct ppr_profile *p = ps->p;

	for (size_t i = 0; i < p->nlocs; i++) {
		unsigned long long mid = ps->loc_mapping_ids[i];

		if (!mid)
			continue;
		for (size_t j = 0; j < p->nmappings; j++)
			if (p->mappings[j].id == mid)
				p->locs[i].mapping = &p->mappings[j];
		if (!p->locs[i].mapping) {
			snprintf(ps->err, ps->errlen, "go tool pprof -raw: location %llu names mapping %llu, which is not there",
				 p->locs[i].id, mid);
			return -EBADMSG;
		}
	}
	/* sorted by id for the samples' look-ups; mappings stay where the
	 * locations point */
	if (p->nlocs)
		qsort(p->locs, p->nlocs, sizeof(*p->locs), cmp_loc);
	for (size_t i = 0; i < p->nsamples; i++) {
		struct ppr_sample *s = &p->samples[i];
		size_t nframes = 0;

		settle_label_kinds(s);
		if (split_units(s))
			return -ENOMEM;
		s->locs = calloc(s->nlocs + 1, sizeof(*s->locs));
		if (!s->locs)
			return -ENOMEM;
		for (size_t j = 0; j < s->nlocs; j++) {
			struct ppr_location key = { .id = ps->sample_loc_ids[i][j] };

			s->locs[j] = !p->nlocs ? NULL :
				bsearch(&key, p->locs, p->nlocs, sizeof(key), cmp_loc);
			if (!s->locs[j]) {
				snprintf(ps->err, ps->errlen, "go tool pprof -raw: sample %zu names location %llu, which is not there",
					 i + 1, key.id);
				return -EBADMSG;
			}
			nframes += s->locs[j]->nlines;
		}
		if (!(s->frames = calloc(nframes + 1, sizeof(*s->frames))))
			return -ENOMEM;
		for (size_t j = 0; j < s->nlocs; j++)
			for (size_t k = 0; k < s->locs[j]->nlines; k++)
				s->frames[s->nframes++] = s->locs[j]->lines[k].name;
	}
	return 0;
}

/* Go's time.Time.String(): "2006-01-02 15:04:05.999999999 -0700 MST",
 * the fraction without its trailing zeros (none when 0). */
static bool parse_go_time(const char *s, long long *ns)
{
	struct tm tm = { 0 };
	long long frac = 0;
	int n = 0, digits = 0, oh, om;
	char sign;

	if (sscanf(s, "%d-%d-%d %d:%d:%d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
		   &tm.tm_min, &tm.tm_sec, &n) != 6)
		return false;
	s += n;
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s); s++, digits++)
			frac = frac * 10 + (*s - '0');
	if (digits > 9 || sscanf(s, " %c%2d%2d", &sign, &oh, &om) != 3 ||
	    (sign != '+' && sign != '-'))
		return false;
	for (; digits < 9; digits++)
		frac *= 10;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*ns = ((long long)timegm(&tm) - (sign == '-' ? -1 : 1) * (oh * 3600LL + om * 60)) *
	      1000000000LL + frac;
	return true;
}

enum section { HEADER, SAMPLE_TYPES, SAMPLES, LOCATIONS, MAPPINGS };

static int parse_line(struct parser *ps, enum section *sec, const char *line,
		      unsigned int *label_lines)
{
	struct ppr_profile *p = ps->p;
	size_t sp = spaces(line);

	switch (*sec) {
	case HEADER:
		if (strncmp(line, "PeriodType: ", 12) == 0) {
			free(p->period_type);
			return (p->period_type = strdup(line + 12)) ? 0 : -ENOMEM;
		}
		if (strncmp(line, "Period: ", 8) == 0) {
			const char *c = line + 8;

			return parse_ll(&c, &p->period) && !*c ? 0 :
				bad(ps, "period is not a number");
		}
		if (strncmp(line, "Time: ", 6) == 0)
			return parse_go_time(line + 6, &p->time_nanos) ? 0 :
				bad(ps, "not a Go time");
		if (strcmp(line, "Samples:") == 0)
			*sec = SAMPLE_TYPES;
		return 0;	/* Duration:, Comment: */
	case SAMPLE_TYPES:
		*sec = SAMPLES;
		return add_sample_types(ps, line);
	case SAMPLES:
		if (strcmp(line, "Locations") == 0) {
			*sec = LOCATIONS;
			return 0;
		}
		if (!line[sp])
			return bad(ps, "empty line among the samples");
		/* sample values start within 11 columns (" %10d"), labels
		 * after 16 */
		if (sp >= 16) {
			if (++*label_lines > 2)
				return bad(ps, "more than two label lines");
			return add_labels(ps, line, *label_lines == 2);
		}
		*label_lines = 0;
		return add_sample(ps, line);
	case LOCATIONS:
		if (strcmp(line, "Mappings") == 0) {
			*sec = MAPPINGS;
			return 0;
		}
		if (isdigit((unsigned char)line[sp]))
			return add_location(ps, line);
		if (sp >= 13 && line[sp] && p->nlocs)
			return add_line(ps, &p->locs[p->nlocs - 1], line + sp);
		return bad(ps, "neither a location nor an inlined frame");
	case MAPPINGS:
		if (!*line)
			return 0;
		return add_mapping(ps, line);
	}
	return 0;
}

int ppr_parse(const char *text, struct ppr_profile *out, char *err, size_t errlen)
{
	struct parser ps = { .p = out, .err = err, .errlen = errlen };
	enum section sec = HEADER;
	unsigned int label_lines = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!(out->period_type = strdup("")))
		return -ENOMEM;
	while (*text) {
		size_t n = strcspn(text, "\n");
		char *line = strndup(text, n);

		ps.lineno++;
		if (!line) {
			ret = -ENOMEM;
			break;
		}
		ret = parse_line(&ps, &sec, line, &label_lines);
		free(line);
		if (ret)
			break;
		text += n + (text[n] == '\n');
	}
	if (!ret && sec != MAPPINGS) {
		snprintf(err, errlen, "go tool pprof -raw: output ends before its Mappings section");
		ret = -EBADMSG;
	}
	if (!ret)
		ret = resolve(&ps);
	for (size_t i = 0; i < out->nsamples; i++)
		free(ps.sample_loc_ids[i]);
	free(ps.sample_loc_ids);
	free(ps.loc_mapping_ids);
	return ret;
}

void ppr_free(struct ppr_profile *p)
{
	free(p->period_type);
	for (size_t i = 0; i < p->ntypes; i++)
		free(p->sample_types[i]);
	free(p->sample_types);
	for (size_t i = 0; i < p->nsamples; i++) {
		struct ppr_sample *s = &p->samples[i];

		free(s->values);
		free(s->locs);
		free(s->frames);
		for (size_t j = 0; j < s->nlabels; j++) {
			free(s->labels[j].key);
			free(s->labels[j].value);
			free(s->labels[j].unit);
		}
		free(s->labels);
	}
	free(p->samples);
	for (size_t i = 0; i < p->nlocs; i++) {
		for (size_t j = 0; j < p->locs[i].nlines; j++) {
			free(p->locs[i].lines[j].name);
			free(p->locs[i].lines[j].file);
		}
		free(p->locs[i].lines);
	}
	free(p->locs);
	for (size_t i = 0; i < p->nmappings; i++) {
		free(p->mappings[i].file);
		free(p->mappings[i].build_id);
	}
	free(p->mappings);
	memset(p, 0, sizeof(*p));
}

const char *ppr_label(const struct ppr_sample *s, const char *key)
{
	for (size_t i = 0; i < s->nlabels; i++)
		if (strcmp(s->labels[i].key, key) == 0)
			return s->labels[i].value;
	return NULL;
}
