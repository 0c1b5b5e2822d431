// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A thread in a syscall whose SYSCALL is the last instruction its FDE
 * covers, as __restore_rt's rt_sigreturn and _exit's exit_group are: the
 * PC the kernel saved, the instruction after it, has no CFI. main ->
 * zr_reader -> zr_chunk -> sys_read_end, read(2) of /dev/zero in 16 MiB
 * chunks (the kernel clears the user buffer), no frame pointers. Big
 * chunks, few returns to user mode: a sample that lands on the return
 * itself (pop, ret) is in code without CFI for real, and cut there.
 * Usage: syscall_end SECONDS
 */
#include <fcntl.h>
#include <unistd.h>

#include "nofp.h"

static char buf[16 << 20];

/* long sys_read_end(int fd, void *buf, size_t len): read(2) by SYSCALL
 * (its arguments where the call put them), %rbx pushed so that the CFA is
 * not the entry's; the FDE ends after the SYSCALL, the return is in none. */
long sys_read_end(int fd, void *p, size_t len);
__asm__(
	".text\n"
	".globl sys_read_end\n"
	".type sys_read_end, @function\n"
	"sys_read_end:\n"
	".cfi_startproc\n"
	"	push %rbx\n"
	".cfi_adjust_cfa_offset 8\n"
	".cfi_offset %rbx, -16\n"
	"	xor %eax, %eax\n"	/* __NR_read */
	"	syscall\n"
	".cfi_endproc\n"
	"	pop %rbx\n"
	"	ret\n"
	".size sys_read_end, .-sys_read_end\n");

NOFP_FN void zr_chunk(int fd)
{
	if (sys_read_end(fd, buf, sizeof(buf)) < 0)
		exit(1);
	NOFP_AFTER_CALL();
}

NOFP_FN void zr_reader(int fd)
{
	volatile char pad[56];

	pad[0] = 1;
	while (!nofp_stop)
		zr_chunk(fd);
	nofp_sink += pad[0];
}

int main(int argc, char **argv)
{
	int fd = open("/dev/zero", O_RDONLY);

	nofp_arm(argc, argv, 1, "syscall_end SECONDS");
	if (fd < 0)
		return 1;
	zr_reader(fd);
	NOFP_AFTER_CALL();
	return 0;
}
