// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>

#include "output/folded.h"
#include "output/formats.h"
#include "output/perf_text.h"
#include "output/pprof.h"
#include "output/speedscope.h"
#include "output/svg.h"

static const struct {
	const char *name;
	bool timed, binary, one_event;
	int (*write)(FILE *f, const struct pk_profile *p);
} formats[PK_FORMAT__MAX] = {
	[PK_FORMAT_FOLDED]	= { "folded", false, false, true, pk_folded_write },
	[PK_FORMAT_PERF]	= { "perf", true, false, false, pk_perf_text_write },
	[PK_FORMAT_PPROF]	= { "pprof", false, true, false, pk_pprof_write },
	[PK_FORMAT_SPEEDSCOPE]	= { "speedscope", true, false, false, pk_speedscope_write },
	[PK_FORMAT_SVG]		= { "svg", false, false, true, pk_svg_write },
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

bool pk_format_one_event(enum pk_format fmt)
{
	return formats[fmt].one_event;
}

int pk_format_write(enum pk_format fmt, FILE *f, const struct pk_profile *p)
{
	return formats[fmt].write(f, p);
}
