// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>

#include "folded.h"
#include "formats.h"

static const struct {
	const char *name;
	bool timed, binary;
} formats[PK_FORMAT__MAX] = {
	[PK_FORMAT_FOLDED]	= { "folded", false, false },
	[PK_FORMAT_PERF]	= { "perf", true, false },
	[PK_FORMAT_PPROF]	= { "pprof", false, true },
	[PK_FORMAT_SPEEDSCOPE]	= { "speedscope", true, false },
};

int pk_format_parse(const char *name, enum pk_format *out)
{
	for (int i = 0; i < PK_FORMAT__MAX; i++)
		if (strcmp(name, formats[i].name) == 0) {
			*out = i;
			return 0;
		}
	return -EINVAL;
}

const char *pk_format_name(enum pk_format fmt)
{
	return formats[fmt].name;
}

bool pk_format_timed(enum pk_format fmt)
{
	return formats[fmt].timed;
}

bool pk_format_binary(enum pk_format fmt)
{
	return formats[fmt].binary;
}

int pk_format_write(enum pk_format fmt, FILE *f, const struct pk_profile *p)
{
	switch (fmt) {
	case PK_FORMAT_FOLDED:
		return pk_folded_write(f, p);
	default:
		return -ENOTSUP;	/* INTEGRATE: the writers as they land */
	}
}
