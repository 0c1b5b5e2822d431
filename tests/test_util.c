// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

static const char *env_path(const char *var, const char *fallback,
			    const char *rel, char *buf, size_t len)
{
	const char *root = getenv(var);

	snprintf(buf, len, "%s/%s", root && *root ? root : fallback, rel);
	return buf;
}

const char *pk_test_build_path(const char *rel, char *buf, size_t len)
{
	return env_path("PROBEKIT_BUILD", "build", rel, buf, len);
}

const char *pk_test_src_path(const char *rel, char *buf, size_t len)
{
	return env_path("PROBEKIT_SRC", ".", rel, buf, len);
}

const char *pk_test_disk_path(const char *rel, char *buf, size_t len)
{
	if (getenv("PROBEKIT_DISK"))
		return env_path("PROBEKIT_DISK", "build", rel, buf, len);
	return pk_test_build_path(rel, buf, len);
}

const char *pk_test_path_in(const char *dir, const char *name)
{
	static char paths[8][4096];
	static int next;
	char *p = paths[next++ % 8];

	snprintf(p, sizeof(paths[0]), "%s/%s", dir, name);
	return p;
}

const char *pk_test_roots_path(const char *rel, char *buf, size_t len)
{
	return env_path("PROBEKIT_ROOTS", "/var/cache/probekit-roots", rel, buf, len);
}

void pk_test_roots_hold(void)
{
	char path[4096];
	int fd;

	pk_test_roots_path(".probekit-test.lock", path, sizeof(path));
	/* not closed: the lock goes with the process */
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	while (flock(fd, LOCK_EX) && errno == EINTR)
		;
}

static char cache_dir[64];

const char *pk_test_cache_dir(void)
{
	return cache_dir[0] ? cache_dir : NULL;
}

void pk_test_cache_begin(void)
{
	const char *given = getenv("PROBEKIT_CACHE_DIR");

	if (given && *given)	/* the caller's choice, left to the caller */
		return;
	snprintf(cache_dir, sizeof(cache_dir), "/tmp/pk-test-cache-XXXXXX");
	if (!mkdtemp(cache_dir) || setenv("PROBEKIT_CACHE_DIR", cache_dir, 1)) {
		fprintf(stderr, "cannot make the tests' cache directory: %s\n", strerror(errno));
		exit(EXIT_FAILURE);
	}
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

void pk_test_cache_end(void)
{
	if (cache_dir[0])
		nftw(cache_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

unsigned int pk_test_slowdown(void)
{
	const char *m = getenv("CK_TIMEOUT_MULTIPLIER");
	unsigned long v = m ? strtoul(m, NULL, 10) : 1;

	return v >= 1 && v <= 1000 ? (unsigned int)v : 1;
}

START_TEST(test_root_required_in_ci)
{
	ck_abort_msg("integration tests need root and CI=true: a skip is a failure");
}
END_TEST

bool pk_test_need_root(Suite *s, const char *why)
{
	const char *ci = getenv("CI");
	TCase *tc;

	if (geteuid() == 0)
		return true;
	if (ci && strcmp(ci, "true") == 0) {
		tc = tcase_create("needs_root");
		tcase_add_test(tc, test_root_required_in_ci);
		suite_add_tcase(s, tc);
	} else {
		fprintf(stderr, "SKIP: not root: %s\n", why);
	}
	return false;
}

/* Append everything readable from FD to *buf. Returns false at EOF. */
static bool drain(int fd, char **buf, size_t *len)
{
	char chunk[65536];
	ssize_t n = read(fd, chunk, sizeof(chunk));
	char *p;

	if (n < 0 && errno == EINTR)
		return true;
	if (n <= 0)
		return false;
	p = realloc(*buf, *len + n + 1);
	if (!p)
		return false;
	memcpy(p + *len, chunk, n);
	*len += n;
	p[*len] = '\0';
	*buf = p;
	return true;
}

int pk_test_run(char *const argv[], char **out, char **err)
{
	int po[2], pe[2], status = -1;
	char *bo = calloc(1, 1), *be = calloc(1, 1);
	size_t lo = 0, le = 0;
	bool open_o = true, open_e = true;
	pid_t pid;

	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		dup2(devnull, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		execvp(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	while (open_o || open_e) {
		struct pollfd p[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (open_o && p[0].revents)
			open_o = drain(po[0], &bo, &lo);
		if (open_e && p[1].revents)
			open_e = drain(pe[0], &be, &le);
	}
	close(po[0]);
	close(pe[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (out)
		*out = bo;
	else
		free(bo);
	if (err)
		*err = be;
	else
		free(be);
	return status;
}

void pk_test_die_with_parent(pid_t parent)
{
	/* The parent may have died before prctl: then nobody would tell us. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(127);
}

pid_t pk_test_spawn(char *const argv[], const char *out_path)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);
		int out = open(out_path ? out_path : "/dev/null",
			       O_WRONLY | O_CREAT | O_APPEND, 0644);

		pk_test_die_with_parent(parent);
		if (in < 0 || out < 0)
			_exit(127);
		dup2(in, 0);
		dup2(out, 1);
		dup2(out, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

int pk_test_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

void pk_test_copy_file(const char *from, const char *to, mode_t mode)
{
	size_t len;
	char *data = pk_test_read_file(from, &len);
	int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	ck_assert_ptr_nonnull(data);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
	free(data);
}

void pk_test_readelf_build_id(const char *file, char *hex, size_t len)
{
	char *out = NULL, *p;
	size_t n;

	ck_assert_int_eq(pk_test_run((char *const[]){ "readelf", "-n", (char *)file, NULL },
				     &out, NULL), 0);
	p = out ? strstr(out, "Build ID: ") : NULL;
	ck_assert_msg(p, "readelf -n %s: no build-id", file);
	p += strlen("Build ID: ");
	n = strspn(p, "0123456789abcdef");
	ck_assert_msg(n >= 2 && n < len, "readelf -n %s: a build-id of %zu digits", file, n);
	snprintf(hex, len, "%.*s", (int)n, p);
	free(out);
}

void pk_test_build_id_path(const char *dir, const char *hex, char *path, size_t len)
{
	snprintf(path, len, "%s/.build-id", dir);
	ck_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
	snprintf(path, len, "%s/.build-id/%.2s", dir, hex);
	ck_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
	ck_assert_int_lt(snprintf(path, len, "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2),
			 (int)len);
}

void pk_test_build_id_remove(const char *dir, const char *path)
{
	char sub[4096];
	const char *slash = strrchr(path, '/');

	unlink(path);
	ck_assert_ptr_nonnull(slash);
	snprintf(sub, sizeof(sub), "%.*s", (int)(slash - path), path);
	rmdir(sub);
	snprintf(sub, sizeof(sub), "%s/.build-id", dir);
	rmdir(sub);
}

char *pk_test_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			char *p = realloc(buf, cap = (cap ? cap * 2 : 65536));

			if (!p) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = p;
		}
		size_t r = fread(buf + n, 1, cap - n - 1, f);

		n += r;
		if (r == 0)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

void *pk_test_grow(void *v, size_t n, size_t size)
{
	if (n & (n - 1))
		return v;
	return realloc(v, (n ? 2 * n : 1) * size);
}

static char libbpf_log[1 << 20];
static size_t libbpf_log_len;

static int keep_libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	int n;

	(void)level;
	if (libbpf_log_len >= sizeof(libbpf_log) - 1)
		return 0;
	n = vsnprintf(libbpf_log + libbpf_log_len, sizeof(libbpf_log) - libbpf_log_len, fmt,
		      ap);
	if (n > 0)
		libbpf_log_len += (size_t)n;
	if (libbpf_log_len >= sizeof(libbpf_log))
		libbpf_log_len = sizeof(libbpf_log) - 1;
	return 0;
}

void pk_test_libbpf_log_start(void)
{
	libbpf_log_len = 0;
	libbpf_log[0] = '\0';
	libbpf_set_print(keep_libbpf_log);
}

void pk_test_libbpf_log_stop(void)
{
	libbpf_set_print(NULL);
}

const char *pk_test_libbpf_log(void)
{
	return libbpf_log;
}
