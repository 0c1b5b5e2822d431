# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make bench`: every bench/*.sh in turn, each given the (normal, not
# sanitized) build directory as BUILD. A script that fails fails the target.
# bench/walltime.c is the scripts' process timer.
BENCH_SCRIPTS := $(sort $(wildcard bench/*.sh))

$(BUILD)/bench/walltime: bench/walltime.c
	@mkdir -p $(@D)
	$(call msg,BINARY,$@)
	$(Q)$(CC) -O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra $< -o $@

bench: $(PROGRAMS) $(BUILD)/bench/walltime
	$(Q)set -e; for s in $(BENCH_SCRIPTS); do \
		echo "== $$s"; BUILD=$(BUILD) $$s; done

# bench/kprobe.sh's workload: write(2) in a loop, frame pointers kept (the
# user stacks bpftrace's ustack walks are frame-pointer walks).
$(BUILD)/bench/writer: bench/writer.c bench/bench.mk
	@mkdir -p $(@D)
	$(call msg,BINARY,$@)
	$(Q)$(CC) -O2 -g -std=gnu11 -Wall -Wextra -fno-omit-frame-pointer $< -o $@
