# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The compiled workloads of bench/probe-read-system.sh: C through libc, libm
# and zlib, C++ through libstdc++; -O2 -g as distributions build, so without
# frame pointers.
$(BUILD)/bench/burn: bench/burn.c bench/probe-read-system.mk
	@mkdir -p $(@D)
	$(call msg,BINARY,$@)
	$(Q)$(CC) -O2 -g -std=gnu11 -Wall -Wextra $< -o $@ -lm -lz

$(BUILD)/bench/burn-cxx: bench/burn-cxx.cc bench/probe-read-system.mk
	@mkdir -p $(@D)
	$(call msg,BINARY,$@)
	$(Q)$(CXX) -O2 -g -Wall -Wextra $< -o $@
