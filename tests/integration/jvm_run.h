/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A JVM the HotSpot tests start and talk to: a fixture of
 * tests/fixtures/java/ (the class files the build put in fixtures_java)
 * under a JDK on the host or in a test root (tests/roots/in_root.sh, as a
 * container runs it), its stdin and stdout on pipes of the test's.
 */
#ifndef PK_JVM_RUN_H
#define PK_JVM_RUN_H

#include <stddef.h>
#include <sys/types.h>

struct pk_jvm {
	pid_t child;		/* what the test forked */
	pid_t pid;		/* the JVM, as the host sees it */
	pid_t nspid;		/* the JVM in its own PID namespace */
	int in;			/* its stdin: closing it ends the fixtures */
	int out;		/* its stdout */
};

/*
 * JAVA (a path in ROOT, a test root's name, or on the host when ROOT is
 * NULL) -cp <fixtures> ARGS... (NULL-ended: options, the class, its
 * arguments), started: back once it printed a line "ready".
 */
void pk_jvm_start(const char *root, const char *java, const char *const args[],
		  struct pk_jvm *vm);
/* Wait for a line WORD, or WORD then a space and more, from VM's stdout,
 * within 120 s (slowdown counted), or the test fails: what follows the
 * space into REST (LEN bytes, NUL-ended; NULL: dropped). */
void pk_jvm_wait_line(struct pk_jvm *vm, const char *word, char *rest, size_t len);
/* UNDER or its descendant (DEPTH levels down at most) that is a java, or
 * 0: in_root.sh's unshare forks the chroot that becomes it. */
pid_t pk_jvm_find(pid_t under, int depth);
/* PID's pid in its own PID namespace (the last of its NSpid). */
pid_t pk_jvm_ns_pid(pid_t pid);
/* Close VM's stdin and wait for it: it must exit 0. */
void pk_jvm_stop(struct pk_jvm *vm);

#endif
