// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * C fixture for the readelf oracle test: functions whose call-frame
 * information differs at -O0/-O2/-O3 and between gcc and clang (dynamic
 * stack allocation, variadic calls, setjmp, deep pushes, tail calls,
 * vectorized loops, cold paths). Built without frame-pointer flags, so the
 * compilers emit their normal CFI. Run, it exits 0.
 */
#include <alloca.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jmp_buf env;
volatile int sink;

__attribute__((noinline)) static long fib(long n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* alloca and a VLA force a frame-pointer-based CFA even at -O2. */
__attribute__((noinline)) static int dynamic_stack(int n)
{
	char *a = alloca(n + 1);
	int vla[n + 1];

	memset(a, 1, n + 1);
	for (int i = 0; i <= n; i++)
		vla[i] = a[i] + i;
	return vla[n];
}

__attribute__((noinline)) static int sum_va(int count, ...)
{
	va_list ap;
	int s = 0;

	va_start(ap, count);
	for (int i = 0; i < count; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}

/* Many live values: callee-saved registers pushed and popped around the
 * body, with an early return in the middle (remember/restore_state). */
__attribute__((noinline)) static long many_regs(long *v, int n)
{
	long a = 0, b = 1, c = 2, d = 3, e = 4, f = 5;

	if (n <= 0)
		return -1;
	for (int i = 0; i < n; i++) {
		a += v[i] * b;
		b ^= v[i] + c;
		c += a >> 3;
		d -= b * e;
		e += c | f;
		f ^= d + sink;
		sink = (int)(a + f);
	}
	return a + b + c + d + e + f;
}

__attribute__((noinline, noreturn)) static void jump_back(int v)
{
	longjmp(env, v);
}

__attribute__((noinline)) static int with_setjmp(int v)
{
	volatile int r = 0;

	if (setjmp(env) == 0)
		jump_back(v + 1);
	else
		r = v;
	return r;
}

__attribute__((noinline)) static void vec_add(float *restrict out,
					      const float *restrict a,
					      const float *restrict b, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = a[i] * 2.0f + b[i];
}

__attribute__((noinline)) static int big_frame(int k)
{
	char buf[8192];

	snprintf(buf, sizeof(buf), "%d-%d", k, k * 3);
	return (int)strlen(buf);
}

__attribute__((noinline)) static int tail(int x)
{
	return sum_va(3, x, x + 1, x + 2);	/* a sibling call at -O2 */
}

__attribute__((noinline, cold)) static void fail(const char *what)
{
	fprintf(stderr, "cfi_c: %s\n", what);
	abort();
}

int main(int argc, char **argv)
{
	long v[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	float a[64], b[64], out[64];
	int n = argc + 5;

	for (int i = 0; i < 64; i++) {
		a[i] = i;
		b[i] = 64 - i;
	}
	vec_add(out, a, b, 64);
	if (fib(n) <= 0 || dynamic_stack(n) != n + 1 || tail(n) != 3 * n + 3)
		fail("wrong result");
	if (with_setjmp(n) != n || big_frame(n) < 3 || out[3] != 67.0f)
		fail("wrong result");
	sink = (int)many_regs(v, argc > 100 ? 0 : 8);
	(void)argv;
	return 0;
}
