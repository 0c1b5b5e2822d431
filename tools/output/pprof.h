/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * pprof's format: a gzipped profile.proto message (tools/output/
 * profile.proto), the file `go tool pprof`, Grafana Pyroscope, Polar Signals
 * and most profile viewers read. Encoded by the code protoc-c generates
 * from profile.proto, compressed by zlib.
 *
 * What a pk_profile becomes:
 *   sample types   two per event, in the profile's order: for cpu-clock
 *                  [samples, count], [cpu, nanoseconds] (the names of
 *                  every pprof CPU profile), for any other event E
 *                  [E-samples, count], [E, nanoseconds] (off-cpu: the time
 *                  blocked) or [E, count] (occurrences: a probe sampled one
 *                  hit in N counts N). Each sample's values are its count
 *                  and weight (pk_sample_weight: count * period_ns for a
 *                  cpu-clock sample from before events) under its event's
 *                  two types, 0 under the others', so that `go tool pprof
 *                  -sample_index=off-cpu` (or =samples, =E-samples) reads
 *                  one event alone
 *   default_sample_type  the first event's weight
 *   period         the first event's weight type and nominal period
 *                  (pk_event_period: period_ns for cpu-clock, 0 for off-cpu)
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
 *                  same stack, tid, cpu and event are merged, their
 *                  values summed. p->group does not change the file: every
 *                  sample carries all four labels whatever it asks, and
 *                  pprof groups by them when viewing (-tagroot=pid,
 *                  -tags, -tagfocus).
 *
 * The bytes depend on the profile alone (samples ordered by stack id, tid,
 * cpu, event; locations, mappings and functions by id; the gzip header
 * holds no time), so the same input writes the same file.
 */
#ifndef PK_PPROF_H
#define PK_PPROF_H

#include <stdio.h>

#include "profile/profile.h"

/*
 * Write P to F. 0; -EINVAL when P is inconsistent (an id not below its
 * count, two objects with one id, a location without frames, a sample's
 * event not in the table, more than PK_MAX_EVENTS events); -ENOMEM;
 * or the -errno of a failed write (-EIO when the stream gave none).
 */
int pk_pprof_write(FILE *f, const struct pk_profile *p);

#endif
