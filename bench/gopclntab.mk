# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The .gopclntab reader's cost per address against the symbol-table and
# DWARF paths (bench/gopclntab_bench.c, run by bench/gopclntab.sh), on the
# Go fixture of each toolchain (tests/go.mk).
$(BUILD)/bench/gopclntab_bench: bench/gopclntab_bench.c $(LIBS) bench/gopclntab.mk
	@mkdir -p $(@D)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIBS) $(LDLIBS) -o $@

bench: $(BUILD)/bench/gopclntab_bench $(GO_FIXTURES)
