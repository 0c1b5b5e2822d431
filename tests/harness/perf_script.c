// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/perf_script.h"
#include "output/folded.h"
#include "test_util.h"

#define KERNEL_DSO "[kernel.kallsyms]"
/* Upper half of the address space: the kernel's on x86-64 and arm64. */
#define KERNEL_HALF (1ULL << 63)

struct frame {
	char *name;
	bool kernel;
};

/* The sample being read, and everything read so far. */
struct parser {
	char *comm;		/* NULL between samples */
	struct frame *frames;	/* leaf first */
	size_t nframes;
	struct pk_fold_item *items;
	size_t nitems;
	char **dsos;
	size_t ndsos;
	unsigned long samples;
	unsigned int lineno;
	char *err;
	size_t errlen;
};

static int bad(struct parser *p, const char *what)
{
	snprintf(p->err, p->errlen, "perf script line %u: %s", p->lineno, what);
	return -EBADMSG;
}

static int add_dso(struct parser *p, const char *dso, size_t len)
{
	char **v;

	if (len == 0 || dso[0] != '/')
		return 0;	/* [unknown], [vdso]...: no file to read */
	/* consecutive frames mostly share a file; the rest is deduplicated
	 * once, at the end */
	if (p->ndsos && strlen(p->dsos[p->ndsos - 1]) == len &&
	    !strncmp(p->dsos[p->ndsos - 1], dso, len))
		return 0;
	if (!(v = pk_test_grow(p->dsos, p->ndsos, sizeof(*v))))
		return -ENOMEM;
	p->dsos = v;
	if (!(p->dsos[p->ndsos] = strndup(dso, len)))
		return -ENOMEM;
	p->ndsos++;
	return 0;
}

/* "IP SYM (DSO)", leading blanks allowed. */
static int add_frame(struct parser *p, const char *text)
{
	const char *sym, *dso, *end;
	struct frame *f;
	uint64_t ip;
	char *after;
	size_t dlen;

	while (*text == ' ' || *text == '\t')
		text++;
	if (!isxdigit((unsigned char)*text))
		return bad(p, "frame does not start with a hexadecimal address");
	errno = 0;
	ip = strtoull(text, &after, 16);
	if (errno || *after != ' ')
		return bad(p, "frame address is not followed by a symbol");
	sym = after + 1;
	end = sym + strlen(sym);
	if (end == sym || end[-1] != ')')
		return bad(p, "frame does not end with \"(DSO)\"");
	/* the last " (": a demangled SYM may hold parentheses itself */
	for (dso = end - 1; dso > sym && !(dso[-1] == ' ' && dso[0] == '('); dso--)
		;
	if (dso == sym)
		return bad(p, "frame has no symbol before \"(DSO)\"");
	dlen = (size_t)(end - 1 - (dso + 1));
	dso++;
	if (dlen == 7 && !strncmp(dso, "inlined", 7))
		return bad(p, "inlined frame: run perf script with --no-inline");
	if (!(f = pk_test_grow(p->frames, p->nframes, sizeof(*f))))
		return -ENOMEM;
	p->frames = f;
	f = &p->frames[p->nframes];
	f->kernel = (dlen == strlen(KERNEL_DSO) && !strncmp(dso, KERNEL_DSO, dlen)) ||
		    ip >= KERNEL_HALF;
	/* leaf first: kernel frames, then user frames, never back */
	if (f->kernel && p->nframes && !p->frames[p->nframes - 1].kernel)
		return bad(p, "kernel frame below a user frame");
	if (!(f->name = strndup(sym, (size_t)(dso - 2 - sym))))
		return -ENOMEM;
	p->nframes++;
	return f->kernel ? 0 : add_dso(p, dso, dlen);
}

/* Fold the sample read so far into one item, outermost frame first. */
static int end_sample(struct parser *p)
{
	const char **user, **kernel;
	size_t nk = 0, nu, i;
	struct pk_fold_item *items;
	char *stack = NULL;

	if (!p->comm)
		return 0;
	while (nk < p->nframes && p->frames[nk].kernel)
		nk++;
	nu = p->nframes - nk;
	user = calloc(nu + 1, sizeof(*user));
	kernel = calloc(nk + 1, sizeof(*kernel));
	if (user && kernel) {
		for (i = 0; i < nk; i++)
			kernel[i] = p->frames[nk - 1 - i].name;
		for (i = 0; i < nu; i++)
			user[i] = p->frames[p->nframes - 1 - i].name;
		stack = pk_fold_stack(p->comm, user, nu, kernel, nk);
	}
	free(user);
	free(kernel);
	for (i = 0; i < p->nframes; i++)
		free(p->frames[i].name);
	p->nframes = 0;
	free(p->comm);
	p->comm = NULL;
	if (!stack)
		return -ENOMEM;
	if (!(items = pk_test_grow(p->items, p->nitems, sizeof(*items)))) {
		free(stack);
		return -ENOMEM;
	}
	p->items = items;
	p->items[p->nitems].stack = stack;
	p->items[p->nitems].count = 1;
	p->nitems++;
	p->samples++;
	return 0;
}

static bool is_pid_tid(const char *tok, size_t len)
{
	size_t i = 0, digits;

	for (digits = 0; i < len && isdigit((unsigned char)tok[i]); i++)
		digits++;
	if (!digits || i == len || tok[i++] != '/')
		return false;
	for (digits = 0; i < len && isdigit((unsigned char)tok[i]); i++)
		digits++;
	return digits && i == len;
}

/* "COMM PID/TID[ IP SYM (DSO)]": the first PID/TID token after the first
 * word ends COMM, which may hold spaces. */
static int start_sample(struct parser *p, const char *line)
{
	const char *tok = line, *end, *comm_end;
	int ret;

	for (;;) {
		while (*tok && *tok != ' ')
			tok++;
		while (*tok == ' ')
			tok++;
		if (!*tok)
			return bad(p, "sample header without PID/TID");
		for (end = tok; *end && *end != ' '; end++)
			;
		if (is_pid_tid(tok, (size_t)(end - tok)))
			break;
	}
	for (comm_end = tok; comm_end > line && comm_end[-1] == ' '; comm_end--)
		;
	if (!(p->comm = strndup(line, (size_t)(comm_end - line))))
		return -ENOMEM;
	while (*end == ' ')
		end++;
	if (*end && (ret = add_frame(p, end)))
		return ret;
	return 0;
}

static int parse_line(struct parser *p, char *line)
{
	int ret;

	if (!*line)
		return end_sample(p);
	if (*line == '\t' || *line == ' ') {
		if (!p->comm)
			return bad(p, "frame line outside a sample");
		return add_frame(p, line);
	}
	/* a sample without call chain has no blank line after it */
	if ((ret = end_sample(p)))
		return ret;
	return start_sample(p, line);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int finish(struct parser *p, struct ps_stacks *out)
{
	size_t len = 0, n = 0;
	FILE *f;
	int ret;

	if (p->ndsos)
		qsort(p->dsos, p->ndsos, sizeof(*p->dsos), cmp_str);
	for (size_t i = 0; i < p->ndsos; i++) {
		if (n && !strcmp(p->dsos[n - 1], p->dsos[i]))
			free(p->dsos[i]);
		else
			p->dsos[n++] = p->dsos[i];
	}
	out->dsos = p->dsos;
	out->ndsos = n;
	p->dsos = NULL;
	p->ndsos = 0;
	out->samples = p->samples;
	f = open_memstream(&out->folded, &len);
	if (!f)
		return -ENOMEM;
	ret = pk_fold_write(f, p->items, p->nitems);
	if (fclose(f) || ret)
		return -ENOMEM;	/* the only write error of a memory stream */
	return 0;
}

int ps_stacks_parse(const char *script, struct ps_stacks *out, char *err, size_t errlen)
{
	struct parser p = { .err = err, .errlen = errlen };
	char *copy = strdup(script ? script : ""), *line, *next;
	int ret = copy ? 0 : -ENOMEM;

	memset(out, 0, sizeof(*out));
	for (line = copy; !ret && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		p.lineno++;
		ret = parse_line(&p, line);
	}
	if (!ret)
		ret = end_sample(&p);
	if (!ret)
		ret = finish(&p, out);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "perf script: out of memory");
	for (size_t i = 0; i < p.nframes; i++)
		free(p.frames[i].name);
	free(p.frames);
	free(p.comm);
	for (size_t i = 0; i < p.nitems; i++)
		free((char *)p.items[i].stack);
	free(p.items);
	for (size_t i = 0; i < p.ndsos; i++)
		free(p.dsos[i]);
	free(p.dsos);
	free(copy);
	return ret;
}

void ps_stacks_free(struct ps_stacks *s)
{
	free(s->folded);
	for (size_t i = 0; i < s->ndsos; i++)
		free(s->dsos[i]);
	free(s->dsos);
	memset(s, 0, sizeof(*s));
}
