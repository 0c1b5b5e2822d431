// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Stacks that no unwinder can walk, made on purpose while the CPU spins in
 * them: the DWARF walk must end, and say why. Usage: hostile MODE SECONDS
 * (of CPU time)
 *
 *   rsp    RSP at an unmapped address: every read of the stack faults
 *          ("read fault");
 *   fake   RSP inside a buffer full of one return address, into this very
 *          code: each frame's caller is the same code again, one CFA higher,
 *          for far more than 256 frames ("depth limit");
 *   loop   RBP, which the CFA of this alloca frame is computed from, below
 *          RSP: the CFA does not move up the stack ("loop");
 *   zero   code without a table (an anonymous executable page, as a JIT
 *          makes), RBP at a frame whose return address is 0: a
 *          frame-pointer step that ends the stack ("complete"), with no
 *          caller frame to mark as found by it.
 *
 * No signal may arrive while RSP is bad (the kernel could not push a signal
 * frame), so there is no timer signal: short bursts, and a read of the
 * CPU time used (cpu_budget.h) in between.
 */
#include <string.h>
#include <sys/mman.h>

#include "nofp.h"

#define BURST	(1ul << 20)	/* loop iterations with the stack broken */

NOFP_FN void bad_rsp(void)
{
	unsigned long n = BURST;

	__asm__ __volatile__("mov %%rsp, %%r12\n\t"
			     "mov $0x1000, %%rsp\n\t"
			     "1: dec %0\n\t"
			     "jnz 1b\n\t"
			     "mov %%r12, %%rsp"
			     : "+r"(n) : : "r12", "memory", "cc");
}

/* 32 KiB of return addresses: thousands of frames of any size. */
static unsigned long fake[4096];
extern char hostile_fake_pc[];

NOFP_FN void fake_stack(void)
{
	unsigned long n = BURST;

	__asm__ __volatile__("mov %%rsp, %%r12\n\t"
			     "mov %1, %%rsp\n\t"
			     ".globl hostile_fake_pc\n"
			     "hostile_fake_pc:\n\t"
			     "dec %0\n\t"
			     "jnz hostile_fake_pc\n\t"
			     "mov %%r12, %%rsp"
			     : "+r"(n) : "r"(&fake[16]) : "r12", "memory", "cc");
}

NOFP_FN void rbp_below(int size)
{
	/* alloca: a frame of variable size, so its CFA is RBP-based */
	volatile char *buf = __builtin_alloca(size);
	unsigned long n = BURST;

	buf[0] = 1;
	__asm__ __volatile__("mov %%rbp, %%r12\n\t"
			     "lea -64(%%rsp), %%rbp\n\t"
			     "1: dec %0\n\t"
			     "jnz 1b\n\t"
			     "mov %%r12, %%rbp"
			     : "+r"(n) : : "r12", "memory", "cc");
	nofp_sink += buf[0];
}

/* dec %rdi; jnz .-3; ret: spins RDI times, then returns */
static const unsigned char spin_code[] = { 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };

NOFP_FN void zero_ra(void (*code)(void))
{
	/* the frame RBP points at: saved RBP, then the return address */
	volatile unsigned long frame[2] = { 0, 0 };

	/* RSP 128 bytes lower first: the call must not overwrite the red
	 * zone, where frame may be (the compiler sees no call here) */
	__asm__ __volatile__("mov %%rbp, %%r12\n\t"
			     "mov %0, %%rbp\n\t"
			     "mov %1, %%rdi\n\t"
			     "sub $128, %%rsp\n\t"
			     "call *%2\n\t"
			     "add $128, %%rsp\n\t"
			     "mov %%r12, %%rbp"
			     : : "r"(frame), "r"(BURST), "r"(code)
			     : "rdi", "r12", "memory", "cc");
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	double end = cpu_budget_used() + (argc > 2 ? atof(argv[2]) : 0);
	void *code = NULL;

	if (argc != 3 || atof(argv[2]) <= 0 ||
	    (strcmp(mode, "rsp") && strcmp(mode, "fake") && strcmp(mode, "loop") &&
	     strcmp(mode, "zero"))) {
		static const char usage[] = "usage: hostile rsp|fake|loop|zero SECONDS\n";

		(void)!write(2, usage, sizeof(usage) - 1);
		return 2;
	}
	/* a return address into the spinning loop: a caller looked up at
	 * return address - 1 lands on its first instruction */
	for (size_t i = 0; i < sizeof(fake) / sizeof(fake[0]); i++)
		fake[i] = (unsigned long)hostile_fake_pc + 1;
	if (!strcmp(mode, "zero")) {
		code = mmap(NULL, sizeof(spin_code), PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (code == MAP_FAILED)
			return 1;
		memcpy(code, spin_code, sizeof(spin_code));
		if (mprotect(code, sizeof(spin_code), PROT_READ | PROT_EXEC))
			return 1;
	}
	while (cpu_budget_used() < end) {
		if (!strcmp(mode, "rsp"))
			bad_rsp();
		else if (!strcmp(mode, "fake"))
			fake_stack();
		else if (code)
			zero_ra((void (*)(void))code);
		else
			rbp_below(argc * 16);
		NOFP_AFTER_CALL();
	}
	return 0;
}
