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
