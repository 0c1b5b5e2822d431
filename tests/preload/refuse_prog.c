// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LD_PRELOAD=refuse_prog.so PK_REFUSE_PROG=NAME[,NAME...] probe-load ...
 *
 * Makes the running kernel really refuse the BPF programs named: their
 * BPF_PROG_LOAD goes to the kernel with one instruction, `exit` with R0
 * never set, which every verifier refuses ("R0 !read_ok"), through the
 * same log and errno as any refusal. The tests of what probe-load does when
 * the kernel refuses one program (tests/unit/loader/test_load_session.c) use
 * it where every program of the object loads. libbpf enters the kernel
 * through libc's syscall(), which this wraps.
 */
#include <dlfcn.h>
#include <linux/bpf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static bool named(const char *name)
{
	const char *list = getenv("PK_REFUSE_PROG");
	size_t n = strnlen(name, BPF_OBJ_NAME_LEN);

	while (list && *list) {
		size_t len = strcspn(list, ",");

		if (len == n && !memcmp(list, name, n))
			return true;
		list += len + (list[len] == ',');
	}
	return false;
}

long syscall(long nr, ...)
{
	static long (*next)(long, ...);
	static const struct bpf_insn refused[] = { { .code = BPF_JMP | BPF_EXIT } };
	union bpf_attr attr;
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!next)
		next = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (nr == __NR_bpf && a[0] == BPF_PROG_LOAD && a[1] &&
	    (size_t)a[2] >= offsetof(union bpf_attr, prog_name) + BPF_OBJ_NAME_LEN &&
	    named(((union bpf_attr *)a[1])->prog_name)) {
		memset(&attr, 0, sizeof(attr));
		memcpy(&attr, (void *)a[1], (size_t)a[2] < sizeof(attr) ? (size_t)a[2] : sizeof(attr));
		attr.insns = (unsigned long)refused;
		attr.insn_cnt = 1;
		/* the program's BTF lines and functions are of the code replaced */
		attr.func_info_cnt = attr.line_info_cnt = 0;
		attr.func_info = attr.line_info = 0;
		return next(nr, a[0], (long)&attr, a[2], a[3], a[4], a[5]);
	}
	return next(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
