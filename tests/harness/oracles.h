/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Independent readers of probe-read's perf text and speedscope output, for
 * the unit tests of the writers and for integration tests on real
 * profiles. Each runs a tool that probekit did not write:
 *
 *   perf text   speedscope's own `perf script` reader (the one behind its
 *               "linux perf" import), taken out of the npm package
 *               speedscope pinned in tests/oracles_npm.mk and run by Node
 *               (tests/oracles/perf_fold.mjs). No npm or Debian package
 *               ships stackcollapse-perf.pl itself; this reader parses the
 *               same lines the same way (header: comm, pid/tid, time,
 *               event; frame: address, symbol, "(module)"), but needs a
 *               module path without spaces.
 *   speedscope  the JSON schema speedscope ships (file-format-schema.json,
 *               same package), checked by Debian's python3-jsonschema
 *               under /usr/bin/python3 (tests/oracles/speedscope_check.py).
 *   Java        the JVM's own sampler: a JFR recording's execution samples,
 *               as the JDK's `jfr print --json` gives them, read by
 *               tests/oracles/jfr_fold.py.
 *
 * Every function returns 0; -ENOENT when the oracle is not installed (see
 * pk_test_oracle_missing()); -EBADMSG when a speedscope file is not valid;
 * -EIO when the input could not be read; -EPROTO when the oracle itself
 * failed (say another speedscope release, whose reader perf_fold.mjs does
 * not recognize). The oracle's one-line complaint goes to stderr, or to
 * ERR where there is one.
 */
#ifndef PK_TEST_ORACLES_H
#define PK_TEST_ORACLES_H

#include <linux/types.h>
#include <stdbool.h>

#define PK_ORACLE_ERR_LEN 256

/* The perf text at PATH folded the way stackcollapse-perf.pl --kernel
 * folds it: "comm;root;...;leaf COUNT" lines, sorted by bytes, a count per
 * sample, "_[k]" on kernel frames, "+0x..." offsets dropped. FOLDED_OUT is
 * malloc'ed. */
int pk_test_stackcollapse_perf(const char *perf_text_path, char **folded_out);
/* The same with "comm-PID/TID" roots (stackcollapse-perf.pl --tid). */
int pk_test_stackcollapse_perf_tid(const char *perf_text_path, char **folded_out);

/* The speedscope file at JSON_PATH is strict UTF-8 JSON, valid under
 * speedscope's schema, with frame indices in range and a weight per
 * sample. -EBADMSG with the first problem in ERR. */
int pk_test_speedscope_validate(const char *json_path, char err[PK_ORACLE_ERR_LEN]);
/* Samples and the sum of their weights over all profiles of a valid file. */
int pk_test_speedscope_count(const char *json_path, __u64 *samples, __u64 *weight);
/*
 * What a valid file holds, as text (malloc'ed):
 *   "summary"  "NAME\tSAMPLES\tWEIGHT" per profile, then "total\t...\t..."
 *   "fold"     "PROFILE;root;...;leaf WEIGHT", sorted, merged
 *   "stacks"   the same per sample, in the file's order
 *   "frames"   per frame, ["name", "file"|null, line|null] in ASCII JSON
 *   "span"     "NAME\tUNIT\tSTARTVALUE\tENDVALUE" per profile, exact
 */
int pk_test_speedscope_dump(const char *json_path, const char *what, char **out);

/* The execution samples of the JFR recording at RECORDING, read by JFR
 * (a JDK's bin/jfr), as folded stacks: "THREAD;root;...;leaf COUNT" lines,
 * THREAD the Java thread's name, frames `package.Class.method`, sorted by
 * bytes (malloc'ed). -EBADMSG when a stack was too deep to be whole. */
int pk_test_jfr_fold(const char *jfr, const char *recording, char **folded_out);

/* After ERR from one of the above: true when the test must stop because
 * the oracle is missing -- a note on stderr, or with CI=true a failure
 * (in CI a skip is a failure). False for any other ERR. */
bool pk_test_oracle_missing(int err, const char *what);

#endif
