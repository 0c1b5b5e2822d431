// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "probekit.h"

SEC("perf_event")
int profile_sample(struct bpf_perf_event_data *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
