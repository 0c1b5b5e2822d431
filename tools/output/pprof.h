/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * pprof's format: a gzipped profile.proto message (tools/output/
 * profile.proto), the file `go tool pprof`, Grafana Pyroscope, Polar Signals
 * and most profile viewers read. Encoded by the code protoc-c generates
 * from profile.proto, compressed by zlib.
 *
 * What a pk_profile becomes:
 *   sample types   [samples, count], [cpu, nanoseconds]: each sample's
 *                  values are COUNT and COUNT * period_ns
 *   period         [cpu, nanoseconds], period_ns
 *   time_nanos     start_ns + boot_to_real_ns (wall clock)
 *   duration_nanos end_ns - start_ns
 *   Mapping        one per pk_map that a sample reaches, id = map id + 1:
 *                  start, end, pgoff, the module's path and build-id (hex,
 *                  as pprof and Go print it). The has_* bits say what the
 *                  symbolizer found there, so that pprof only symbolizes
 *                  mappings we could not: has_functions when a location
 *                  in it has a symbol, has_filenames / has_line_numbers
 *                  when a frame has a source file / line, and
 *                  has_inline_frames when its lines were read (DWARF gives
 *                  the inline chain with the lines) or a location has
 *                  more than one frame.
 *   Location       one per pk_loc, id = loc id + 1, mapping 0 without a
 *                  map. Its address is the runtime address as sampled,
 *                  the return address itself for a caller frame (as
 *                  pprof's format allows: readers find the call
 *                  instruction themselves); its lines already name the
 *                  call, so nothing needs the address to symbolize. One
 *                  Line per pk_frame, innermost first (the inlined code,
 *                  then what it is inlined into), as pprof wants.
 *   Function       one per distinct (name, file): name and system_name are
 *                  the demangled name, filename the source file or "".
 *   Sample         the locations leaf first: the kernel part (leaf ..
 *                  root), then the user part (leaf .. root); labels pid,
 *                  tid, cpu (numbers, each with its key as unit: pprof
 *                  drops a 0 that has no unit) and comm (string, an empty
 *                  one "[unknown]": pprof drops ""). Samples with the
 *                  same stack, tid and cpu are merged, their values
 *                  summed. p->group does not change the file: every
 *                  sample carries all four labels whatever it asks, and
 *                  pprof groups by them when viewing (-tagroot=pid,
 *                  -tags, -tagfocus).
 *
 * The bytes depend on the profile alone (samples ordered by stack id, tid,
 * cpu; locations, mappings and functions by id; the gzip header holds no
 * time), so the same input writes the same file.
 */
#ifndef PK_PPROF_H
#define PK_PPROF_H

#include <stdio.h>

#include "profile.h"

/*
 * Write P to F. 0; -EINVAL when P is inconsistent (an id not below its
 * count, two objects with one id, a location without frames); -ENOMEM;
 * or the -errno of a failed write (-EIO when the stream gave none).
 */
int pk_pprof_write(FILE *f, const struct pk_profile *p);

#endif
