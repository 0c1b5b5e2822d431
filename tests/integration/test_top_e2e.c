// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end, probe-read --top in a terminal: a pty (openpty) of 100x24,
 * the view of a session profiling fp_chain, whose CPU time is all in hot().
 * The first refresh after the backlog is read shows hot() as the heaviest
 * function by self share; q (or Ctrl-C, the terminal's SIGINT) ends the
 * view with exit status 0, the terminal's modes as they were, the
 * session's pins in place: a probe-read after it reads on.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "integration/profile_session.h"
#include "lib/util/clock.h"
#include "test_util.h"

/* Refreshes (one a second) the heaviest function may take to show: the
 * first holds the backlog, which already has hot()'s samples. */
#define MAX_REFRESHES	2
/* How long a test waits on the view at most, a bound for a broken build,
 * not a measure: the refreshes are counted. */
#define WAIT_S		60

struct top_run {
	pid_t fixture, view;
	int master, slave;
	struct termios before;
	char *out;		/* what the view wrote, NUL-terminated */
	size_t len, cap;
};

/* One read of what the view wrote, appended to t->out: its length, 0 or
 * -1 as read(2) returns them. */
static ssize_t take(struct top_run *t)
{
	ssize_t n;

	if (t->len + 4096 + 1 > t->cap) {
		t->cap = t->cap ? 2 * t->cap : 65536;
		t->out = realloc(t->out, t->cap);
		ck_assert_ptr_nonnull(t->out);
	}
	n = read(t->master, t->out + t->len, 4096);
	if (n > 0) {
		t->len += n;
		t->out[t->len] = '\0';
	}
	return n;
}

/* Read what the view wrote for at most MS milliseconds; false once the
 * pty has nothing more to give (the view exited). */
static bool pump(struct top_run *t, int ms)
{
	struct pollfd pfd = { .fd = t->master, .events = POLLIN };

	if (poll(&pfd, 1, ms) <= 0)
		return true;
	return take(t) > 0;
}

/*
 * Everything the view wrote before it exited, which waitpid does not wait
 * for: its last writes (the summary) may still be on their way to the
 * master side when it is reaped. The slave stays open here (finish()
 * reads its modes), so the master never reads end of file: read without
 * blocking until it has nothing left. A read that finds nothing first
 * waits for the pty's buffer work (n_tty_read: tty_buffer_flush_work), so
 * nothing the exited view wrote is still on its way when it says EAGAIN.
 */
static void drain_exited(struct top_run *t)
{
	int flags = fcntl(t->master, F_GETFL);
	ssize_t n;

	ck_assert_int_ge(flags, 0);
	ck_assert_int_eq(fcntl(t->master, F_SETFL, flags | O_NONBLOCK), 0);
	while ((n = take(t)) > 0 || (n < 0 && errno == EINTR))
		;
	ck_assert_msg(n < 0 && (errno == EAGAIN || errno == EIO), "reading the pty: %s",
		      n ? strerror(errno) : "end of file");
	ck_assert_int_eq(fcntl(t->master, F_SETFL, flags), 0);
}

/* fp_chain running, profiled, with some of its samples in the ring buffer;
 * then probe-read --top on a pty of its own. */
static void start_top(struct top_run *t)
{
	char fixture[4096], reader[4096], pid[16];
	char *fargv[] = { fixture, "600", NULL };
	const char *load[] = { "-F", "199", "-p", pid, NULL };
	struct winsize ws = { .ws_row = 24, .ws_col = 100 };
	pid_t parent = getpid();

	memset(t, 0, sizeof(*t));
	pk_test_build_path("fixtures/fp_chain", fixture, sizeof(fixture));
	pk_test_build_path("probe-read", reader, sizeof(reader));
	t->fixture = pk_test_spawn(fargv, NULL);
	ck_assert_int_gt(t->fixture, 0);
	snprintf(pid, sizeof(pid), "%d", t->fixture);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_int_eq(pk_e2e_wait_more_cpu(t->fixture, 0.3, WAIT_S), 0);

	ck_assert_int_eq(openpty(&t->master, &t->slave, NULL, NULL, &ws), 0);
	ck_assert_int_eq(tcgetattr(t->slave, &t->before), 0);
	ck_assert(t->before.c_lflag & ICANON);
	t->view = fork();
	ck_assert_int_ge(t->view, 0);
	if (t->view == 0) {
		pk_test_die_with_parent(parent);
		setsid();
		ioctl(t->slave, TIOCSCTTY, 0);
		dup2(t->slave, 0);
		dup2(t->slave, 1);
		dup2(t->slave, 2);
		close(t->master);
		execl(reader, reader, "--pin-dir", pk_e2e_pin_dir(), "--top", (char *)NULL);
		_exit(127);
	}
}

/* The refreshes the view drew until its first function row reads hot(),
 * with the share given; fails past MAX_REFRESHES. */
static int wait_for_hot(struct top_run *t)
{
	double deadline = pk_now_s() + WAIT_S;

	while (pk_now_s() < deadline) {
		char *p = t->out ? t->out : "";
		int refresh = 0;

		for (; (p = strstr(p, "Symbol")); p++) {
			char *row = strchr(p, '\n'), *end = row ? strchr(row + 1, '\n') : NULL, *hot;
			double self = 0, total = 0;

			refresh++;
			if (!end)
				break;	/* the row is not all there yet */
			hot = strstr(row + 1, "[.] hot\x1b[K");
			if (sscanf(row + 1, "%lf%% %lf%%", &self, &total) == 2 && hot && hot < end) {
				ck_assert_msg(self >= 90 && total >= self, "hot: self %.2f%%, total %.2f%%",
					      self, total);
				return refresh;
			}
			ck_assert_msg(refresh < MAX_REFRESHES, "refresh %d does not show hot first:\n%s",
				      refresh, t->out);
		}
		ck_assert_msg(pump(t, 200), "the view exited:\n%s", t->out ? t->out : "");
	}
	ck_abort_msg("no view within %d s:\n%s", WAIT_S, t->out ? t->out : "");
	return 0;
}

/* The view's exit status, once it has exited (reading what it writes, so
 * that it never blocks on a full pty). */
static int wait_view(struct top_run *t)
{
	double deadline = pk_now_s() + WAIT_S;
	int status;
	pid_t r;

	while ((r = waitpid(t->view, &status, WNOHANG)) == 0 && pk_now_s() < deadline)
		pump(t, 100);
	ck_assert_msg(r == t->view, "the view did not exit:\n%s", t->out);
	drain_exited(t);
	return status;
}

/* The terminal as before, the session intact: another reader reads the
 * fixture's samples on. */
static void finish(struct top_run *t)
{
	const char *read[] = { "-d", "1", NULL };
	char *out = NULL, *err = NULL;
	struct pk_e2e_summary sum;
	struct termios after;

	ck_assert_int_eq(tcgetattr(t->slave, &after), 0);
	ck_assert_uint_eq(after.c_lflag & (ICANON | ECHO | ISIG),
			  t->before.c_lflag & (ICANON | ECHO | ISIG));
	ck_assert_ptr_nonnull(strstr(t->out, "\x1b[?25h"));	/* the cursor shown again */
	ck_assert_int_eq(pk_e2e_wait_more_cpu(t->fixture, 0.2, WAIT_S), 0);
	ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
	ck_assert_msg(pk_e2e_parse_summary(err, &sum), "no summary: %s", err);
	ck_assert_uint_gt(sum.read, 0);
	ck_assert_ptr_nonnull(strstr(out, ";hot "));
	kill(t->fixture, SIGKILL);
	pk_test_wait(t->fixture);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	close(t->master);
	close(t->slave);
	free(t->out);
	free(out);
	free(err);
}

START_TEST(test_top_quits_on_q)
{
	struct top_run t;
	int status, refreshes;

	start_top(&t);
	refreshes = wait_for_hot(&t);
	ck_assert_int_eq(write(t.master, "q", 1), 1);
	status = wait_view(&t);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x:\n%s", status,
		      t.out);
	fprintf(stderr, "top: hot() first at refresh %d, q: exit 0\n", refreshes);
	finish(&t);
}
END_TEST

START_TEST(test_top_ends_on_ctrl_c)
{
	struct top_run t;
	int status;

	start_top(&t);
	wait_for_hot(&t);
	ck_assert_int_eq(write(t.master, "\x03", 1), 1);	/* the terminal's SIGINT */
	status = wait_view(&t);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x:\n%s", status,
		      t.out);
	/* the reader's summary, as after any read */
	ck_assert_ptr_nonnull(strstr(t.out, "samples read"));
	finish(&t);
}
END_TEST

/*
 * Any event: off-CPU time of ev_block, which sleeps in main -> wait_here
 * twenty times. Of a session of two events the view needs one (--event;
 * exit 2 without it, as for -f svg); its shares are then of the time blocked, nearly
 * all under wait_here(). Without a terminal the view is plain text, a
 * block a second, and it ends when the fixture does.
 */
START_TEST(test_top_any_event)
{
	char path[4096];
	const char *load[] = { "-e", "off-cpu", "-e", "cpu-clock", "--", path, "sleep", NULL };
	const char *top[] = { "--top", NULL };
	const char *top_event[] = { "--top", "--event", "off-cpu", NULL };
	const char *svg[] = { "-f", "svg", NULL };
	char *out = NULL, *err = NULL, *last, *row;
	double self, total;

	pk_e2e_fixture_nofp("ev_block-gcc-pie", path, sizeof(path));
	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_int_eq(pk_e2e_read(top, &out, &err), 2);
	ck_assert_msg(strstr(err, "--top: the session has 2 events") && pk_e2e_one_line(err),
		      "%s", err);
	free(out);
	free(err);
	/* as a flame graph's frames would */
	ck_assert_int_eq(pk_e2e_read(svg, &out, &err), 2);
	ck_assert_msg(strstr(err, "-f svg: the session has 2 events") && pk_e2e_one_line(err),
		      "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(pk_e2e_read(top_event, &out, &err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	ck_assert_ptr_null(strchr(out, '\x1b'));	/* not a terminal: no escapes */
	last = out;
	for (char *p = out; (p = strstr(p, "off-cpu: ")); p++)
		last = p;
	ck_assert_msg(!strncmp(last, "off-cpu: ", 9), "no view: %s", out);
	row = strstr(last, "[.] wait_here\n");
	ck_assert_msg(row, "no wait_here in the last view:\n%s", last);
	while (row > last && row[-1] != '\n')
		row--;
	ck_assert_int_eq(sscanf(row, "%lf%% %lf%%", &self, &total), 2);
	ck_assert_msg(total >= 90 && self == 0, "wait_here: self %.2f%%, total %.2f%%:\n%s", self,
		      total, last);
	fprintf(stderr, "top off-cpu: wait_here total %.2f%%\n", total);
	free(out);
	free(err);
}
END_TEST

Suite *suite_top_e2e(void)
{
	Suite *s = suite_create("top_e2e");
	TCase *tc;

	if (!pk_test_need_root(s, "loads BPF programs"))
		return s;
	tc = pk_e2e_tcase(s, "pty", 120);
	tcase_add_test(tc, test_top_quits_on_q);
	tcase_add_test(tc, test_top_ends_on_ctrl_c);
	tcase_add_test(tc, test_top_any_event);
	return s;
}
