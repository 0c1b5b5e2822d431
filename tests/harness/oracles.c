// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/oracles.h"
#include "test_util.h"

/* Debian's interpreter, where python3-jsonschema is installed (the python3
 * first on PATH may be another one). */
#define PYTHON		"/usr/bin/python3"
#define SPEEDSCOPE_DIR	"npm/node_modules/speedscope/dist/release"

static int exit_status(int status)
{
	return status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The speedscope bundle the npm package ships (its name holds a hash). */
static int speedscope_bundle(char *buf, size_t len)
{
	char dir[512], pattern[600];
	glob_t g;
	int err = -ENOENT;

	pk_test_build_path(SPEEDSCOPE_DIR, dir, sizeof(dir));
	snprintf(pattern, sizeof(pattern), "%s/speedscope-*.js", dir);
	if (glob(pattern, 0, NULL, &g) == 0) {
		if (g.gl_pathc == 1 && strlen(g.gl_pathv[0]) < len) {
			strcpy(buf, g.gl_pathv[0]);
			err = 0;
		} else {
			err = -EPROTO;	/* not the release layout we know */
		}
		globfree(&g);
	}
	return err;
}

static void first_line(const char *text, char err[PK_ORACLE_ERR_LEN])
{
	size_t n = text ? strcspn(text, "\n") : 0;

	if (!err)
		return;
	if (n >= PK_ORACLE_ERR_LEN)
		n = PK_ORACLE_ERR_LEN - 1;
	memcpy(err, text ? text : "", n);
	err[n] = '\0';
}

static int perf_fold(const char *path, const char *opt, char **folded_out)
{
	char bundle[600], script[512], *out = NULL, *errtext = NULL;
	char *argv[] = { "node", script, bundle, (char *)path, (char *)opt, NULL };
	int err = speedscope_bundle(bundle, sizeof(bundle)), st;

	*folded_out = NULL;
	if (err)
		return err;
	pk_test_src_path("tests/oracles/perf_fold.mjs", script, sizeof(script));
	st = exit_status(pk_test_run(argv, &out, &errtext));
	switch (st) {
	case 0:
		*folded_out = out;
		out = NULL;
		break;
	case 127:	/* no node */
		err = -ENOENT;
		break;
	case 1:		/* bad usage, unreadable input */
		err = -EIO;
		break;
	default:
		err = -EPROTO;
	}
	if (err && err != -ENOENT)
		fprintf(stderr, "perf_fold.mjs: %s", errtext ? errtext : "(no message)\n");
	free(out);
	free(errtext);
	return err;
}

int pk_test_stackcollapse_perf(const char *perf_text_path, char **folded_out)
{
	return perf_fold(perf_text_path, NULL, folded_out);
}

int pk_test_stackcollapse_perf_tid(const char *perf_text_path, char **folded_out)
{
	return perf_fold(perf_text_path, "--tid", folded_out);
}

static int speedscope_check(const char *json_path, const char *what, char **out,
			    char err[PK_ORACLE_ERR_LEN])
{
	char schema[600], script[512], *text = NULL, *errtext = NULL;
	char *argv[] = { PYTHON, script, schema, (char *)json_path, (char *)what, NULL };
	int ret = 0;

	if (out)
		*out = NULL;
	if (err)
		err[0] = '\0';
	pk_test_build_path(SPEEDSCOPE_DIR "/file-format-schema.json", schema, sizeof(schema));
	pk_test_src_path("tests/oracles/speedscope_check.py", script, sizeof(script));
	if (access(schema, R_OK) || access(PYTHON, X_OK))
		return -ENOENT;
	switch (exit_status(pk_test_run(argv, &text, &errtext))) {
	case 0:
		if (out) {
			*out = text;
			text = NULL;
		}
		break;
	case 4:		/* not valid */
		first_line(errtext, err);
		ret = -EBADMSG;
		break;
	case 3:		/* no python3-jsonschema */
	case 127:
		ret = -ENOENT;
		break;
	case 2:		/* bad usage, unreadable file */
		first_line(errtext, err);
		ret = -EIO;
		break;
	default:
		first_line(errtext, err);
		fprintf(stderr, "speedscope_check.py: %s", errtext ? errtext : "(no message)\n");
		ret = -EPROTO;
	}
	free(text);
	free(errtext);
	return ret;
}

int pk_test_speedscope_validate(const char *json_path, char err[PK_ORACLE_ERR_LEN])
{
	return speedscope_check(json_path, "validate", NULL, err);
}

int pk_test_speedscope_dump(const char *json_path, const char *what, char **out)
{
	return speedscope_check(json_path, what, out, NULL);
}

int pk_test_speedscope_count(const char *json_path, __u64 *samples, __u64 *weight)
{
	unsigned long long n, w;
	char *out, *last;
	size_t len;
	int err = speedscope_check(json_path, "summary", &out, NULL);

	if (err)
		return err;
	/* The last line: "total\tSAMPLES\tWEIGHT". */
	len = strlen(out);
	if (len && out[len - 1] == '\n')
		out[--len] = '\0';
	last = strrchr(out, '\n');
	last = last ? last + 1 : out;
	if (sscanf(last, "total\t%llu\t%llu", &n, &w) != 2) {
		free(out);
		return -EPROTO;
	}
	*samples = n;
	*weight = w;
	free(out);
	return 0;
}

int pk_test_jfr_fold(const char *jfr, const char *recording, char **folded_out)
{
	char script[512], *errtext = NULL;
	char *argv[] = { PYTHON, script, (char *)jfr, (char *)recording, NULL };
	int err = 0;

	*folded_out = NULL;
	pk_test_src_path("tests/oracles/jfr_fold.py", script, sizeof(script));
	if (access(jfr, X_OK) || access(PYTHON, X_OK))
		return -ENOENT;
	switch (exit_status(pk_test_run(argv, folded_out, &errtext))) {
	case 0:
		break;
	case 4:		/* a stack cut at the depth */
		err = -EBADMSG;
		break;
	case 2:		/* bad usage, jfr failed */
		err = -EIO;
		break;
	default:
		err = -EPROTO;
	}
	if (err) {
		fprintf(stderr, "jfr_fold.py: %s", errtext ? errtext : "(no message)\n");
		free(*folded_out);
		*folded_out = NULL;
	}
	free(errtext);
	return err;
}

bool pk_test_oracle_missing(int err, const char *what)
{
	const char *ci = getenv("CI");

	if (err != -ENOENT)
		return false;
	if (ci && strcmp(ci, "true") == 0)
		ck_abort_msg("oracle missing: %s (make test-deps; make test-programs installs the "
			     "npm oracles): in CI a skip is a failure", what);
	fprintf(stderr, "SKIP: oracle missing: %s\n", what);
	return true;
}
