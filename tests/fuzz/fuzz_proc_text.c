// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The two text formats probe-read parses: /proc/PID/maps (paths are any
 * bytes a process chose) and /proc/kallsyms. The first input byte picks the
 * parser; a parsed table must answer lookups anywhere.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kallsyms.h"
#include "lib/proc_maps.h"
#include "lib/symtab.h"

static void maps(const char *text, size_t len)
{
	struct pk_maps m;

	if (pk_maps_parse(text, len, false, &m) == 0) {
		pk_maps_find(&m, 0);
		pk_maps_find(&m, 0x7fffffffffffULL);
		pk_maps_find(&m, ~0ULL);
		pk_maps_free(&m);
	}
}

static void kallsyms(const char *text, size_t len)
{
	FILE *f = fmemopen((void *)text, len, "r");
	struct pk_symtab *tab;
	const char *mod;

	if (!f)
		return;
	tab = pk_kallsyms_parse(f);
	fclose(f);
	if (tab) {
		pk_kallsyms_lookup(tab, 0, NULL);
		/* a module only with a name */
		if (!pk_kallsyms_lookup(tab, 0xffffffff81000000ULL, &mod) && mod)
			abort();
		if (!pk_kallsyms_lookup(tab, ~0ULL, &mod) && mod)
			abort();
		pk_symtab_free(tab);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size < 1)
		return 0;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if (data[0] & 1)
		kallsyms(text, size - 1);
	else
		maps(text, size - 1);
	free(text);
	return 0;
}
