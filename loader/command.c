// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/util/text.h"
#include "loader/command.h"

static void reap(pid_t pid)
{
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* In the child: wait for the go byte (EOF: probe-load failed or died),
 * then exec. A failed exec reports its errno on EXEC_FD. */
static void __attribute__((noreturn))
child(char *const argv[], const sigset_t *mask, int release_fd, int exec_fd)
{
	char go = 0;
	int e;

	while (read(release_fd, &go, 1) < 0 && errno == EINTR)
		;
	if (go == 'g') {
		sigprocmask(SIG_SETMASK, mask, NULL);
		execvp(argv[0], argv);
		e = errno;
		if (write(exec_fd, &e, sizeof(e)) < 0)
			_exit(127);
	}
	_exit(127);
}

int pk_command_start(struct pk_command *c, char *const argv[],
		     const sigset_t *exec_mask, char err[PK_ERR_LEN])
{
	int release[2], exec[2];

	c->pid = -1;
	c->release_fd = c->exec_fd = -1;
	c->name = argv[0];
	/* Close-on-exec: the command inherits neither pipe. */
	if (pipe2(release, O_CLOEXEC))
		return pk_err(err, -errno, "pipe: %s", strerror(errno));
	if (pipe2(exec, O_CLOEXEC)) {
		close(release[0]);
		close(release[1]);
		return pk_err(err, -errno, "pipe: %s", strerror(errno));
	}
	c->pid = fork();
	if (c->pid == 0) {
		/* Named as the exec will name it, for what sees the child
		 * before its exec completes (ps, the off-CPU and probe events
		 * of a system-wide session): not sampled as a target until
		 * then (PK_TARGET_HELD). */
		prctl(PR_SET_NAME, pk_base_name(argv[0]));
		close(release[1]);
		close(exec[0]);
		child(argv, exec_mask, release[0], exec[1]);
	}
	close(release[0]);
	close(exec[1]);
	if (c->pid < 0) {
		close(release[1]);
		close(exec[0]);
		return pk_err(err, -errno, "fork: %s", strerror(errno));
	}
	c->release_fd = release[1];
	c->exec_fd = exec[0];
	return 0;
}

static void close_pipes(struct pk_command *c)
{
	if (c->release_fd >= 0)
		close(c->release_fd);
	if (c->exec_fd >= 0)
		close(c->exec_fd);
	c->release_fd = c->exec_fd = -1;
}

static void done(struct pk_command *c)
{
	close_pipes(c);
	c->pid = -1;
}

int pk_command_release(struct pk_command *c, char err[PK_ERR_LEN])
{
	ssize_t n;
	int e = 0;

	if (write(c->release_fd, "g", 1) != 1) {
		e = errno;
	} else {
		close(c->release_fd);
		c->release_fd = -1;
		while ((n = read(c->exec_fd, &e, sizeof(e))) < 0 && errno == EINTR)
			;
		if (n == 0)
			e = 0;		/* EOF: the exec closed the pipe */
		else if (n != sizeof(e))
			e = EIO;
	}
	if (e) {
		reap(c->pid);
		done(c);
		return pk_err(err, -e, "%s: %s", c->name, strerror(e));
	}
	close_pipes(c);
	return 0;
}

static pid_t waited;

/* What the terminal would have sent the command alone. */
static void forward(int sig)
{
	kill(waited, sig);
}

/* POLL's work until the command exits (its pidfd readable), or until
 * POLL is done with or cannot go on; the caller reaps it. */
static void poll_while_running(pid_t pid, struct pk_command_poll *p)
{
	int pidfd = pidfd_open(pid, 0), timeout = p->timeout_ms, n;

	if (pidfd < 0)
		return;
	while (timeout >= -1) {
		struct pollfd fds[2] = { { .fd = pidfd, .events = POLLIN },
					 { .fd = p->fd, .events = POLLIN } };

		n = poll(fds, 2, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || fds[0].revents)
			break;
		timeout = p->run(p->ctx);
	}
	close(pidfd);
}

/*
 * As perf record -- CMD waits: the command shares our process group, so
 * the terminal's Ctrl-C and Ctrl-\ reach it directly, and we ignore them
 * (the command decides whether they end it); a TERM or HUP sent to us only
 * is passed on.
 */
int pk_command_wait(struct pk_command *c, const sigset_t *mask, struct pk_command_poll *work)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, fwd = { .sa_handler = forward };
	int status;

	waited = c->pid;
	sigaction(SIGINT, &ign, NULL);
	sigaction(SIGQUIT, &ign, NULL);
	sigaction(SIGTERM, &fwd, NULL);
	sigaction(SIGHUP, &fwd, NULL);
	sigprocmask(SIG_SETMASK, mask, NULL);
	if (work)
		poll_while_running(c->pid, work);
	while (waitpid(c->pid, &status, 0) < 0)
		if (errno != EINTR)
			return 127;
	c->pid = -1;
	/* as a shell reports it: 128 + the signal that ended it */
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

void pk_command_abort(struct pk_command *c)
{
	pid_t pid = c->pid;

	if (pid < 0)
		return;
	done(c);	/* EOF on the release pipe: the child exits */
	reap(pid);
}
