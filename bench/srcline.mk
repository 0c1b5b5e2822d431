# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make bench-srcline`: pk_srcline against eu-addr2line -f -i -C over the
# same instructions (bench/srcline_bench.c): libc.so.6 with libc6-dbg's
# DWARF, every 10th instruction, and the C++ source-line fixture, all of
# its instructions.
SRCLINE_BENCH_FILES ?= /lib/x86_64-linux-gnu/libc.so.6:10 \
	$(BUILD)/fixtures_dbg/inline-cpp-gcc:1

$(BUILD)/bench/srcline_bench: bench/srcline_bench.c $(LIBS) bench/srcline.mk
	@mkdir -p $(@D)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIBS) $(LDLIBS) -o $@

.PHONY: bench-srcline
bench-srcline: $(BUILD)/bench/srcline_bench $(BUILD)/fixtures_dbg/inline-cpp-gcc
	$(Q)for f in $(SRCLINE_BENCH_FILES); do \
		$(BUILD)/bench/srcline_bench $${f%:*} $${f##*:} || exit 1; done
