/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Between profile.bpf.c and probe-load only (what readers need is in
 * probekit.h): sizes probe-load may change before loading. */
#ifndef PK_PROFILE_H
#define PK_PROFILE_H

/* Entries of the targets map: processes profiled at once. */
#define PK_MAX_TARGETS		8192
/* Ring buffer bytes unless --ringbuf-size says otherwise. */
#define PK_RINGBUF_DEFAULT	(8u << 20)

#endif
