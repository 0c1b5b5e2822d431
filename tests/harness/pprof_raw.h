/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * `go tool pprof -raw`, the independent reader of pprof files: Go's own
 * decoder (github.com/google/pprof/profile, vendored in the go command)
 * prints a profile as text, parsed here back into samples, locations and
 * mappings to compare with what a test wrote.
 *
 * What pprof does to a profile before printing it (so compare with that in
 * mind, not with the file's ids): mappings of one file (same build-id, or
 * same path without one; same offset and size) in several processes become
 * one, and the locations in the later ones are moved by the difference of
 * the start addresses (address - mapping start is kept); locations equal
 * after that become one; mappings, locations and functions are numbered
 * again; adjacent mappings of one file are joined; the first mapping that
 * is not a library nor "[...]" is moved to the front.
 *
 * The text, as go 1.19's pprof prints it ("%6d" and the like: padding):
 *   PeriodType: TYPE UNIT
 *   Period: N
 *   [Time: ...] [Duration: ...]   Go's time.Time (to the nanosecond,
 *                                 local time), and the first 4 characters
 *                                 of time.Duration's text ("%.4v")
 *   Samples:
 *   TYPE/UNIT[dflt] TYPE/UNIT ...
 *         V1         V2: LOCID LOCID ...       leaf first
 *                   key:[value] key:[value]    string labels, by key
 *                   key:[N] key:[N]            numeric labels, by key
 *   Locations
 *        ID: 0xADDR M=MAPID NAME FILE:LINE s=START
 *                    NAME FILE:LINE s=START    each inlining level, innermost first
 *   Mappings
 *   ID: 0xSTART/0xLIMIT/0xOFFSET FILE BUILDID [FN][FL][LN][IN]
 * A location without mapping has no "M="; FILE and BUILDID may be empty.
 * Names may hold spaces; source files may not (the name ends at the last
 * space before FILE:LINE); a mapping's FILE may (BUILDID and the bits come
 * last and hold none). A label's value runs from "key:[" to the "]" that
 * ends the line or is followed by " KEY:["; a number with a unit is
 * printed "key:[N UNIT]". One value per key is assumed.
 */
#ifndef PPROF_RAW_H
#define PPROF_RAW_H

#include <stdbool.h>
#include <stddef.h>

struct ppr_mapping {
	unsigned long long id, start, limit, offset;
	char *file, *build_id;		/* "" when the profile has none */
	bool has_functions, has_filenames, has_line_numbers, has_inline_frames;
};

/* One inlining level of a location. */
struct ppr_line {
	char *name, *file;		/* file: "" when unknown */
	long long line;
};

struct ppr_location {
	unsigned long long id, address;
	const struct ppr_mapping *mapping;	/* NULL: none */
	struct ppr_line *lines;		/* innermost first */
	size_t nlines;
};

struct ppr_label {
	char *key, *value;		/* a number: its digits, "123" */
	char *unit;			/* a number's unit; "" when none, or a string */
	bool num;			/* from the numeric labels' line */
};

struct ppr_sample {
	long long *values;		/* one per sample type */
	size_t nvalues;
	const struct ppr_location **locs;	/* leaf first */
	size_t nlocs;
	/* The function names of the stack, leaf first, inline frames
	 * expanded (a location's lines in order): the stack as a profiler
	 * user reads it. Pointers into the locations. */
	const char **frames;
	size_t nframes;
	struct ppr_label *labels;
	size_t nlabels;
};

struct ppr_profile {
	char *period_type;		/* "TYPE UNIT", "" when absent */
	long long period;
	long long time_nanos;		/* "Time:", nanoseconds since the epoch;
					 * 0: no such line (time_nanos 0) */
	char **sample_types;		/* "TYPE/UNIT", "[dflt]" dropped */
	size_t ntypes;
	struct ppr_sample *samples;
	size_t nsamples;
	struct ppr_location *locs;
	size_t nlocs;
	struct ppr_mapping *mappings;
	size_t nmappings;
};

/* Whether `go` runs here (go version). */
bool ppr_go_available(void);

/*
 * `go tool pprof -raw -symbolize=none FILE` (no symbolization: the file's
 * own names) with HOME, GOCACHE and GOPATH in a temporary directory, so
 * that it neither needs nor touches the user's. 0 with the output in *OUT
 * (malloc'ed); -1 with one line in ERR (go's exit status and first line of
 * stderr).
 */
int ppr_run(const char *file, char **out, char *err, size_t errlen);

/* `go tool pprof -tags -sample_index=samples FILE`: each label's values
 * with their sample counts ("KEY: Total N", then "N (P%): VALUE" lines).
 * Same environment and errors as ppr_run(). */
int ppr_run_tags(const char *file, char **out, char *err, size_t errlen);

/*
 * Parse TEXT (ppr_run's output). 0; -EBADMSG with one line in ERR naming
 * the input line and what is wrong with it; -ENOMEM. Free OUT with
 * ppr_free() in every case.
 */
int ppr_parse(const char *text, struct ppr_profile *out, char *err, size_t errlen);
void ppr_free(struct ppr_profile *p);

/*
 * `go tool pprof -traces -sample_index=SAMPLE_INDEX -unit=ns` (values as
 * plain numbers with "ns" after them, whatever their unit; 0 alone):
 * what a user reads of one sample type, every sample with its value of
 * that type (0 for another event's). Same environment and errors as
 * ppr_run().
 */
int ppr_run_traces(const char *file, const char *sample_index, char **out, char *err,
		   size_t errlen);

/* One sample of -traces: its value, labels ("key: value", as printed)
 * and function names, leaf first, inline frames expanded (pprof's
 * " (inline)" after an inlined one dropped). */
struct ppr_trace {
	long long value;
	struct ppr_label *labels;
	size_t nlabels;
	const char **frames;
	size_t nframes;
};

struct ppr_traces {
	char *type;			/* the "Type:" line: the sample type shown */
	struct ppr_trace *traces;
	size_t ntraces;
};

/* Parse ppr_run_traces' TEXT. 0; -EBADMSG with one line in ERR; -ENOMEM.
 * Free OUT with ppr_traces_free() in every case. */
int ppr_parse_traces(const char *text, struct ppr_traces *out, char *err, size_t errlen);
void ppr_traces_free(struct ppr_traces *t);

/* The value of S's label KEY, or NULL. */
const char *ppr_label(const struct ppr_sample *s, const char *key);

#endif
