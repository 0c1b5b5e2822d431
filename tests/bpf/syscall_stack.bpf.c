// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Whether the running kernel gives a BPF program at syscalls:sys_enter_write
 * a kernel stack at all: Linux 6.1 runs syscall tracepoints' programs on the
 * task's user registers, so bpf_get_stack() finds no kernel frame there;
 * later kernels give the tracepoint's own. tests/integration/
 * test_event_sources.c asks this of the kernel before it expects the
 * syscall's kernel entry in probekit's stacks of that event.
 */
#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>

const volatile __u32 target_tgid;

__u64 hits, with_kernel_stack;

SEC("tracepoint/syscalls/sys_enter_write")
int syscall_stack(void *ctx)
{
	__u64 ips[4];

	if (bpf_get_current_pid_tgid() >> 32 != target_tgid)
		return 0;
	__sync_fetch_and_add(&hits, 1);
	if (bpf_get_stack(ctx, ips, sizeof(ips), 0) > 0)
		__sync_fetch_and_add(&with_kernel_stack, 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
