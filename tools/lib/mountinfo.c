// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <string.h>

#include "lib/mountinfo.h"

void pk_mount_unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

bool pk_mount_parse(char *line, struct pk_mount *m)
{
	char *f[6], *save = NULL, *p;
	int n = 0;

	for (p = strtok_r(line, " ", &save); p && n < 6; p = strtok_r(NULL, " ", &save))
		f[n++] = p;
	if (n < 6)
		return false;
	/* optional fields, then "-", then type, source, super options */
	while (p && strcmp(p, "-"))
		p = strtok_r(NULL, " ", &save);
	if (!p || !(m->fstype = strtok_r(NULL, " ", &save)) || !strtok_r(NULL, " ", &save) ||
	    !(m->options = strtok_r(NULL, " \n", &save)))
		return false;
	m->dev = f[2];
	m->root = f[3];
	m->point = f[4];
	pk_mount_unescape(f[3]);
	pk_mount_unescape(f[4]);
	return true;
}
