# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Helpers of bench/dwarf.sh: the deep-recursion workload without and with
# frame pointers (same compiler, same code otherwise), and rbpos (ring
# buffer positions of a pinned session).
$(BUILD)/bench/deep-nofp: bench/deep.c bench/dwarf.mk
	@mkdir -p $(@D)
	$(call msg,BINARY,$@)
	$(Q)$(CLANG) -O2 -g -fomit-frame-pointer -momit-leaf-frame-pointer \
		-fno-optimize-sibling-calls -fasynchronous-unwind-tables $< -o $@

$(BUILD)/bench/deep-fp: bench/deep.c bench/dwarf.mk
	@mkdir -p $(@D)
	$(call msg,BINARY,$@)
	$(Q)$(CLANG) -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
		-fno-optimize-sibling-calls $< -o $@

$(BUILD)/bench/rbpos: bench/rbpos.c bench/dwarf.mk
	@mkdir -p $(@D)
	$(call msg,BINARY,$@)
	$(Q)$(CC) -O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra $(PKG_CFLAGS) $< -o $@ $(PKG_LIBS)

$(BUILD)/bench/cpurun: bench/cpurun.c bench/dwarf.mk
	@mkdir -p $(@D)
	$(call msg,BINARY,$@)
	$(Q)$(CC) -O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra $< -o $@
