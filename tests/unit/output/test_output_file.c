// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * -o's files (output/output_file.c): a regular file is replaced only once
 * complete, a symbolic link's file is, the link kept, and whatever else a
 * path names (a device, a FIFO, an open file through /proc) is written in
 * place and kept. Each kind is made in a directory of the test's own
 * (devices by mknod, as root), never the machine's /dev.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/elf_fixture.h"
#include "output/output_file.h"
#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"

#define TEXT "main;a;b 3\n"

static char dir[64];

/* How many entries directory PATH holds: a temporary file left shows. */
static int entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* Open PATH as -o does, write TEXT, close with COMMIT: close's result. */
static int write_one(const char *path, bool commit, char err[PK_ERR_LEN])
{
	struct pk_output_file out = { 0 };
	int ret;

	ret = pk_output_files_open(&out, 1, &path, err);
	if (ret)
		return ret;
	ck_assert_int_eq(fputs(TEXT, out.f) >= 0, 1);
	return pk_output_file_close(&out, commit, err);
}

static void assert_holds(const char *path, const char *want)
{
	char *got = pk_test_read_file(path, NULL);

	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	free(got);
}

static void assert_char_dev(const char *path, unsigned int maj, unsigned int min)
{
	struct stat st;

	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert_msg(S_ISCHR(st.st_mode), "%s is no longer a character device (mode %o)",
		      path, st.st_mode);
	ck_assert_uint_eq(st.st_rdev, makedev(maj, min));
}

/* A new name and a regular file: written beside, renamed when complete,
 * never seen partial; a file given up leaves the old one as it was. */
START_TEST(test_regular_replaced_when_complete)
{
	char err[PK_ERR_LEN] = "";
	struct stat before, after;
	const char *path;

	eh_tmpdir(dir, sizeof(dir));
	path = pk_test_path_in(dir, "new.folded");
	ck_assert_int_eq(write_one(path, true, err), 0);
	assert_holds(path, TEXT);
	ck_assert_int_eq(entries(dir), 1);

	ck_assert_int_eq(stat(path, &before), 0);
	ck_assert_int_eq(write_one(path, false, err), 0);
	ck_assert_int_eq(stat(path, &after), 0);
	ck_assert_uint_eq(after.st_ino, before.st_ino);
	ck_assert_int_eq(entries(dir), 1);

	pk_fx_write_file(path, "old\n");
	ck_assert_int_eq(stat(path, &before), 0);
	ck_assert_int_eq(write_one(path, true, err), 0);
	ck_assert_int_eq(stat(path, &after), 0);
	ck_assert_uint_ne(after.st_ino, before.st_ino);	/* replaced, not rewritten */
	assert_holds(path, TEXT);
	ck_assert_int_eq(entries(dir), 1);
	eh_rmtree(dir);
}
END_TEST

/* A character device, as /dev/null: written to, the node kept; a write
 * the device refuses (/dev/full) is an error, the node kept too. */
START_TEST(test_char_device_written_in_place)
{
	char err[PK_ERR_LEN] = "";
	const char *null_dev, *full_dev;

	eh_tmpdir(dir, sizeof(dir));
	null_dev = pk_test_path_in(dir, "null");
	full_dev = pk_test_path_in(dir, "full");
	ck_assert_int_eq(mknod(null_dev, S_IFCHR | 0666, makedev(1, 3)), 0);
	ck_assert_int_eq(mknod(full_dev, S_IFCHR | 0666, makedev(1, 7)), 0);

	ck_assert_int_eq(write_one(null_dev, true, err), 0);
	assert_char_dev(null_dev, 1, 3);
	ck_assert_int_eq(write_one(null_dev, false, err), 0);
	assert_char_dev(null_dev, 1, 3);

	ck_assert_int_eq(write_one(full_dev, true, err), -ENOSPC);
	ck_assert_ptr_nonnull(strstr(err, full_dev));
	ck_assert_ptr_nonnull(strstr(err, strerror(ENOSPC)));
	assert_char_dev(full_dev, 1, 7);
	ck_assert_int_eq(entries(dir), 2);
	eh_rmtree(dir);
}
END_TEST

/* A FIFO with a reader: the reader gets the profile, and the FIFO stays. */
START_TEST(test_fifo_reader_gets_profile)
{
	char err[PK_ERR_LEN] = "", got[256] = "";
	int results[2], status;
	const char *fifo;
	struct stat st;
	ssize_t n = 0;
	pid_t pid;

	eh_tmpdir(dir, sizeof(dir));
	fifo = pk_test_path_in(dir, "fifo");
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(pipe(results), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {	/* the viewer: all it reads from the FIFO, to the pipe */
		char buf[256];
		int fd = open(fifo, O_RDONLY);

		close(results[0]);
		while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
			if (write(results[1], buf, n) != n)
				_exit(1);
		_exit(fd < 0 || n < 0);
	}
	close(results[1]);
	ck_assert_int_eq(write_one(fifo, true, err), 0);
	n = read(results[0], got, sizeof(got) - 1);
	ck_assert_int_eq(n, (ssize_t)strlen(TEXT));
	ck_assert_str_eq(got, TEXT);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(results[0]);
	ck_assert_int_eq(lstat(fifo, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_int_eq(entries(dir), 1);
	eh_rmtree(dir);
}
END_TEST

/* A symbolic link (a relative one, to another directory, through a second
 * link): the file at its end is replaced, written beside itself; the links
 * stay as they were. A link to nothing yet makes the file it names. */
START_TEST(test_symlink_followed_to_its_file)
{
	char err[PK_ERR_LEN] = "", text[128];
	const char *link, *file;
	struct stat before, after;
	ssize_t n;

	eh_tmpdir(dir, sizeof(dir));
	ck_assert_int_eq(mkdir(pk_test_path_in(dir, "links"), 0755), 0);
	ck_assert_int_eq(mkdir(pk_test_path_in(dir, "data"), 0755), 0);
	file = pk_test_path_in(dir, "data/cpu.folded");
	pk_fx_write_file(file, "old\n");
	ck_assert_int_eq(symlink("cpu.folded", pk_test_path_in(dir, "data/latest")), 0);
	ck_assert_int_eq(symlink("../data/latest", pk_test_path_in(dir, "links/out")), 0);
	link = pk_test_path_in(dir, "links/out");
	ck_assert_int_eq(stat(file, &before), 0);

	ck_assert_int_eq(write_one(link, true, err), 0);
	assert_holds(file, TEXT);
	ck_assert_int_eq(stat(file, &after), 0);
	ck_assert_uint_ne(after.st_ino, before.st_ino);
	n = readlink(link, text, sizeof(text) - 1);
	ck_assert_int_gt(n, 0);
	text[n] = '\0';
	ck_assert_str_eq(text, "../data/latest");
	ck_assert_int_eq(entries(pk_test_path_in(dir, "links")), 1);
	ck_assert_int_eq(entries(pk_test_path_in(dir, "data")), 2);

	/* dangling: the file is made where the link points */
	ck_assert_int_eq(symlink("data/later.folded", pk_test_path_in(dir, "dangling")), 0);
	ck_assert_int_eq(write_one(pk_test_path_in(dir, "dangling"), true, err), 0);
	assert_holds(pk_test_path_in(dir, "data/later.folded"), TEXT);
	ck_assert_int_eq(lstat(pk_test_path_in(dir, "dangling"), &after), 0);
	ck_assert(S_ISLNK(after.st_mode));
	ck_assert_int_eq(entries(pk_test_path_in(dir, "data")), 3);
	eh_rmtree(dir);
}
END_TEST

/* A link to a device is written through, the device kept. */
START_TEST(test_symlink_to_device)
{
	char err[PK_ERR_LEN] = "";
	struct stat st;

	eh_tmpdir(dir, sizeof(dir));
	ck_assert_int_eq(mknod(pk_test_path_in(dir, "null"), S_IFCHR | 0666, makedev(1, 3)), 0);
	ck_assert_int_eq(symlink("null", pk_test_path_in(dir, "out")), 0);
	ck_assert_int_eq(write_one(pk_test_path_in(dir, "out"), true, err), 0);
	assert_char_dev(pk_test_path_in(dir, "null"), 1, 3);
	ck_assert_int_eq(lstat(pk_test_path_in(dir, "out"), &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(entries(dir), 2);
	eh_rmtree(dir);
}
END_TEST

/* /dev/stdout and /proc/self/fd/N name an open file: what it is (a pipe,
 * a file opened for appending) is written, nothing renamed over it. */
START_TEST(test_open_file_through_proc)
{
	char err[PK_ERR_LEN] = "", path[64], got[256] = "";
	int p[2], saved, fd;
	struct stat before, after;
	const char *file;

	ck_assert_int_eq(pipe(p), 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[1]);
	ck_assert_int_eq(write_one(path, true, err), 0);
	ck_assert_int_eq(read(p[0], got, sizeof(got) - 1), (ssize_t)strlen(TEXT));
	ck_assert_str_eq(got, TEXT);

	/* /dev/stdout, a link to /proc/self/fd/1, with a pipe as stdout */
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	ck_assert_int_eq(dup2(p[1], STDOUT_FILENO), STDOUT_FILENO);
	ck_assert_int_eq(write_one("/dev/stdout", true, err), 0);
	ck_assert_int_eq(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
	memset(got, 0, sizeof(got));
	ck_assert_int_eq(read(p[0], got, sizeof(got) - 1), (ssize_t)strlen(TEXT));
	ck_assert_str_eq(got, TEXT);
	close(p[0]);
	close(p[1]);

	/* a regular file behind the fd: the same inode, written */
	eh_tmpdir(dir, sizeof(dir));
	file = pk_test_path_in(dir, "held");
	pk_fx_write_file(file, "old\n");
	fd = open(file, O_WRONLY | O_APPEND);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &before), 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ck_assert_int_eq(write_one(path, true, err), 0);
	ck_assert_int_eq(stat(file, &after), 0);
	ck_assert_uint_eq(after.st_ino, before.st_ino);
	assert_holds(file, TEXT);
	close(fd);
	ck_assert_int_eq(entries(dir), 1);
	eh_rmtree(dir);
}
END_TEST

/* What cannot be written is one error naming the path, and nothing made:
 * a directory, a socket, a loop of links, a missing directory. */
START_TEST(test_unwritable_targets)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char err[PK_ERR_LEN] = "";
	int s;

	eh_tmpdir(dir, sizeof(dir));
	ck_assert_int_eq(mkdir(pk_test_path_in(dir, "sub"), 0755), 0);
	ck_assert_int_eq(write_one(pk_test_path_in(dir, "sub"), true, err), -EISDIR);
	ck_assert_ptr_nonnull(strstr(err, pk_test_path_in(dir, "sub")));

	s = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_ge(s, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", pk_test_path_in(dir, "sock"));
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(write_one(pk_test_path_in(dir, "sock"), true, err), -ENXIO);
	close(s);

	ck_assert_int_eq(symlink("loop2", pk_test_path_in(dir, "loop1")), 0);
	ck_assert_int_eq(symlink("loop1", pk_test_path_in(dir, "loop2")), 0);
	ck_assert_int_eq(write_one(pk_test_path_in(dir, "loop1"), true, err), -ELOOP);
	ck_assert_ptr_nonnull(strstr(err, pk_test_path_in(dir, "loop1")));

	ck_assert_int_eq(write_one(pk_test_path_in(dir, "missing/out.folded"), true, err), -ENOENT);
	ck_assert_int_eq(entries(dir), 4);	/* sub, sock, loop1, loop2 */
	eh_rmtree(dir);
}
END_TEST

Suite *suite_output_file(void)
{
	Suite *s = suite_create("output_file");
	TCase *tc = tcase_create("regular");

	tcase_add_test(tc, test_regular_replaced_when_complete);
	tcase_add_test(tc, test_unwritable_targets);
	suite_add_tcase(s, tc);
	tc = tcase_create("symlink");
	tcase_add_test(tc, test_symlink_followed_to_its_file);
	suite_add_tcase(s, tc);
	tc = tcase_create("proc");
	tcase_add_test(tc, test_open_file_through_proc);
	suite_add_tcase(s, tc);
	if (!pk_test_need_root(s, "device nodes are made with mknod"))
		return s;
	tc = tcase_create("in_place");
	tcase_add_test(tc, test_char_device_written_in_place);
	tcase_add_test(tc, test_fifo_reader_gets_profile);
	tcase_add_test(tc, test_symlink_to_device);
	suite_add_tcase(s, tc);
	return s;
}
