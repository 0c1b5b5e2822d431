// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The text formats of /proc the tools parse: /proc/PID/maps (paths are any
 * bytes a process chose), /proc/kallsyms and /proc/self/mountinfo (mount
 * points and overlay options too). The first input byte picks the parser
 * (0, 1, 2 modulo 3); a parsed table must answer lookups anywhere.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kallsyms.h"
#include "lib/overlay.h"
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

static void mountinfo(const char *text)
{
	static const char *const paths[] = { "/", "/tmp/x", "/merged/a b/c", "" };
	char buf[256];
	struct stat st;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		pk_overlay_layer_file_in(text, paths[i], buf, sizeof(buf), &st);
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
	switch (data[0] % 3) {
	case 0:
		maps(text, size - 1);
		break;
	case 1:
		kallsyms(text, size - 1);
		break;
	default:
		mountinfo(text);
	}
	free(text);
	return 0;
}
