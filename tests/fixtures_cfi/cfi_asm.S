/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Hand-written CFI for the readelf oracle test: the rule classes compilers
 * rarely emit, produced by a real assembler (gas through gcc, LLVM's
 * integrated assembler through clang). Both .eh_frame and .debug_frame are
 * emitted, so the test also sees .eh_frame win where both cover a PC.
 * Each function is callable and returns; main calls the safe ones.
 */
	.cfi_sections .eh_frame, .debug_frame
	.text

/* remember_state/restore_state around an early return: the restore must
 * bring back the CFA rule (rbp+16), not only the saved registers. */
	.globl	asm_remember
	.type	asm_remember, @function
asm_remember:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushq	%rbx
	.cfi_offset %rbx, -24
	testq	%rdi, %rdi
	je	1f
	.cfi_remember_state
	popq	%rbx
	.cfi_restore %rbx
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	movl	$1, %eax
	ret
1:
	.cfi_restore_state
	xorl	%eax, %eax
	popq	%rbx
	.cfi_restore %rbx
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	ret
	.cfi_endproc
	.size	asm_remember, .-asm_remember

/* CFA on RAX, as hand-written crypto code does while it realigns the stack:
 * usable in the leaf frame only. */
	.globl	asm_cfa_rax
	.type	asm_cfa_rax, @function
asm_cfa_rax:
	.cfi_startproc
	movq	%rsp, %rax
	.cfi_def_cfa_register %rax
	subq	$64, %rsp
	andq	$-32, %rsp
	movq	%rdi, (%rsp)
	movq	%rax, %rsp
	.cfi_def_cfa_register %rsp
	xorl	%eax, %eax
	ret
	.cfi_endproc
	.size	asm_cfa_rax, .-asm_cfa_rax

/* CFA = R11 - 8 (negative offset), then an unsupported RBP rule (kept in a
 * register) and a same-value RBP. */
	.globl	asm_cfa_r11
	.type	asm_cfa_r11, @function
asm_cfa_r11:
	.cfi_startproc
	leaq	-8(%rsp), %r11
	.cfi_def_cfa %r11, 16
	movq	%rbp, %r10
	.cfi_register %rbp, %r10
	nop
	.cfi_same_value %rbp
	nop
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	asm_cfa_r11, .-asm_cfa_r11

/* Dereferenced CFAs written as raw DWARF expressions:
 *   0x0f len DW_OP_breg7(rsp) N DW_OP_deref [DW_OP_plus_uconst M]
 * then an expression that is neither a PLT form nor a dereference. */
	.globl	asm_deref
	.type	asm_deref, @function
asm_deref:
	.cfi_startproc
	subq	$24, %rsp
	.cfi_def_cfa_offset 32
	leaq	32(%rsp), %rax
	movq	%rax, 8(%rsp)
	.cfi_escape 0x0f, 0x03, 0x77, 0x08, 0x06
	nop
	.cfi_escape 0x0f, 0x05, 0x77, 0x08, 0x06, 0x23, 0x00
	nop
	movq	%rax, 16(%rsp)
	subq	$8, 16(%rsp)
	.cfi_escape 0x0f, 0x05, 0x77, 0x10, 0x06, 0x23, 0x08
	nop
	.cfi_escape 0x0f, 0x04, 0x77, 0x20, 0x31, 0x1c
	nop
	addq	$24, %rsp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	asm_deref, .-asm_deref

/* The two glibc .plt CFA expressions, as ld writes them for .plt (lit11)
 * and for IBT-enabled .plt.sec-style entries (lit10):
 *   rsp+8 + (((rip & 15) >= N) << 3)
 * and a dereference based on RBP. Never called. */
	.globl	asm_plt_forms
	.type	asm_plt_forms, @function
asm_plt_forms:
	.cfi_startproc
	.cfi_escape 0x0f, 0x0b, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22
	nop
	.cfi_escape 0x0f, 0x0b, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3a, 0x2a, 0x33, 0x24, 0x22
	nop
	.cfi_escape 0x0f, 0x05, 0x76, 0x70, 0x06, 0x23, 0x10
	nop
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	asm_plt_forms, .-asm_plt_forms

/* RBP saved at a positive CFA offset and the return address somewhere else
 * than CFA-8 (unsupported). */
	.globl	asm_odd_slots
	.type	asm_odd_slots, @function
asm_odd_slots:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, 8
	nop
	.cfi_offset %rip, -16
	nop
	.cfi_offset %rip, -8
	.cfi_offset %rbp, -16
	popq	%rbp
	.cfi_def_cfa_offset 8
	.cfi_restore %rbp
	ret
	.cfi_endproc
	.size	asm_odd_slots, .-asm_odd_slots

/* An outermost frame (like _start): the return address is undefined. */
	.globl	asm_outermost
	.type	asm_outermost, @function
asm_outermost:
	.cfi_startproc
	.cfi_undefined %rip
	xorl	%ebp, %ebp
	nop
	ret
	.cfi_endproc
	.size	asm_outermost, .-asm_outermost

/* A gap: code no FDE covers, between two functions that have one. */
	.globl	asm_no_cfi
	.type	asm_no_cfi, @function
asm_no_cfi:
	nop
	nop
	ret
	.size	asm_no_cfi, .-asm_no_cfi

/* A signal trampoline: CIE augmentation "S"; the CFA is the saved stack
 * pointer in the ucontext, as in glibc's __restore_rt. Never called. */
	.globl	asm_sigreturn
	.type	asm_sigreturn, @function
	nop
asm_sigreturn:
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_escape 0x0f, 0x04, 0x77, 0xa0, 0x01, 0x06
	.cfi_escape 0x10, 0x06, 0x02, 0x77, 0x78
	.cfi_escape 0x10, 0x10, 0x03, 0x77, 0xa8, 0x01
	movq	$15, %rax
	syscall
	.cfi_endproc
	.size	asm_sigreturn, .-asm_sigreturn

/* A "simple" FDE with nothing but the CIE defaults and one advance. */
	.globl	asm_simple
	.type	asm_simple, @function
asm_simple:
	.cfi_startproc simple
	.cfi_def_cfa %rsp, 8
	.cfi_offset %rip, -8
	pushq	%rax
	.cfi_adjust_cfa_offset 8
	popq	%rax
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
	.size	asm_simple, .-asm_simple

	.globl	main
	.type	main, @function
main:
	.cfi_startproc
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	movl	$1, %edi
	call	asm_remember
	xorl	%edi, %edi
	call	asm_remember
	call	asm_cfa_rax
	call	asm_cfa_r11
	call	asm_deref
	call	asm_odd_slots
	call	asm_outermost
	call	asm_no_cfi
	call	asm_simple
	xorl	%eax, %eax
	popq	%rbx
	.cfi_def_cfa_offset 8
	.cfi_restore %rbx
	ret
	.cfi_endproc
	.size	main, .-main

	.section .note.GNU-stack,"",@progbits
