# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# bench/overhead.sh's reference for the BPF time per sample: an empty
# perf_event program (bench/floor.bpf.c), built as the product's programs
# are, and its loader (bench/floor.c).
$(BUILD)/bench/%.bpf.o: bench/%.bpf.c bench/floor.mk
	@mkdir -p $(@D)
	$(bpf_object)

$(BUILD)/bench/%.skel.h: $(BUILD)/bench/%.bpf.o
	$(bpf_skeleton)

$(BUILD)/bench/floor: bench/floor.c $(BUILD)/bench/floor.skel.h bench/floor.mk
	@mkdir -p $(@D)
	$(call msg,BINARY,$@)
	$(Q)$(CC) -O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -I$(BUILD)/bench $(PKG_CFLAGS) $< \
		-o $@ $(PKG_LIBS)
