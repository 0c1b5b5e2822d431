// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The reference of bench/overhead.sh's BPF time per sample: a perf_event
 * program that does nothing. What the kernel's run-time statistics give
 * for it is what any program costs on this machine before its first
 * instruction of work (its call, its code's first line, the statistics
 * themselves), measured in the same run as probekit's.
 */
#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("perf_event")
int floor_empty(void *ctx)
{
	(void)ctx;
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
