// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The symbolizer's JavaScript frames: V8 functions as the process
 * reported them (bpf/v8_records.h), named as V8's profiler names them:
 * the function's name, "(anonymous)" for one without, in its script's
 * file. */
#include <errno.h>
#include <string.h>

#include "bpf/probekit.h"
#include "symbolization/symbolizer_internal.h"

/* The Latin-1 bytes S[0, LEN) as UTF-8, pooled in P. */
static const char *latin1(struct pk_sym_proc *p, const char *s, size_t len)
{
	char buf[2 * PK_V8_FILE_MAX + 1];
	size_t n = 0;

	for (size_t i = 0; i < len && n + 2 < sizeof(buf); i++) {
		unsigned char c = s[i];

		if (c < 0x80) {
			buf[n++] = c;
		} else {
			buf[n++] = 0xc0 | c >> 6;
			buf[n++] = 0x80 | (c & 0x3f);
		}
	}
	return pk_strpool_addn(&p->pool, buf, n);
}

/* A JavaScript location of P: NAME in FILE (NULL: unknown) at LINE (0:
 * unknown). */
static struct pk_loc *v8_new_loc(struct pk_symbolizer *sym, struct pk_sym_proc *p, __u64 sfi,
				 const char *name, const char *file, __u32 line)
{
	struct pk_loc *loc = pk_symbolizer_loc_new(sym, &p->pool, sfi, false, 1);

	if (!loc || !name)
		return NULL;
	loc->js = true;
	((struct pk_frame *)loc->frames)[0] = (struct pk_frame){ .name = name, .file = file,
								 .line = line };
	return loc;
}

int pk_symbolizer_add_v8_sfi(struct pk_symbolizer *sym, const struct pk_v8_sfi_desc *d)
{
	struct pk_sym_proc *p = pk_symbolizer_proc_get(sym, d->pid);
	const char *name, *file = NULL;
	const struct pk_loc *old;
	struct pk_loc *loc;

	if (!p)
		return -ENOMEM;
	old = pk_u64map_get(&p->v8_sfis, d->sfi);
	if ((d->flags & PK_V8_NAME_UNREADABLE) && old)
		return 0;	/* named as it was */
	if (d->flags & PK_V8_NAME_UNREADABLE)
		name = pk_strpool_printf(&p->pool, "[js:0x%llx]", (unsigned long long)d->sfi);
	else if (!d->name_len)
		name = "(anonymous)";
	else
		name = latin1(p, d->name, d->name_len);
	if (d->file_len)
		file = latin1(p, d->file, d->file_len);
	if (old && name && !strcmp(old->frames[0].name, name) &&
	    !strcmp(old->frames[0].file ? old->frames[0].file : "", file ? file : "")) {
		/* the same, or the same without its line: named as it was */
		if (old->frames[0].line == d->line || !d->line)
			return 0;
		/* the line an earlier report lacked (its source unreadable
		 * at that moment: sent again, bpf/v8_walk.bpf.h): the frames
		 * named so far, which hold this location, get it too */
		if (!old->frames[0].line) {
			((struct pk_frame *)old->frames)[0].line = d->line;
			return 0;
		}
	}
	loc = v8_new_loc(sym, p, d->sfi, name, file, d->line);
	if (!loc || pk_u64map_put(&p->v8_sfis, d->sfi, loc))
		return -ENOMEM;
	/* frames named otherwise until now are named anew */
	return old ? 1 : 0;
}

const struct pk_loc *pk_symbolizer_v8_loc(struct pk_symbolizer *sym, __u32 pid, __u64 frame)
{
	struct pk_sym_proc *p = pk_symbolizer_proc_get(sym, pid);
	__u64 sfi = frame & PK_V8_SFI_MASK;
	struct pk_loc *loc;

	if (!p)
		return NULL;
	loc = pk_u64map_get(&p->v8_sfis, sfi);
	if (!loc) {
		loc = v8_new_loc(sym, p, sfi,
				 pk_strpool_printf(&p->pool, "[js:0x%llx]", (unsigned long long)sfi),
				 NULL, 0);
		if (!loc || pk_u64map_put(&p->v8_sfis, sfi, loc))
			return NULL;
	}
	return pk_symbolizer_number(sym, loc);
}
