# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# BPF objects that only tests load (tests/bpf/NAME.bpf.c): built as the
# product's are, each with its skeleton ("tests/bpf/NAME.skel.h"), before
# any test object.
TEST_BPF_SRCS := $(wildcard tests/bpf/*.bpf.c)
TEST_SKELS := $(TEST_BPF_SRCS:tests/bpf/%.bpf.c=$(BUILD)/tests/bpf/%.skel.h)

$(BUILD)/tests/bpf/%.bpf.o: tests/bpf/%.bpf.c
	@mkdir -p $(@D)
	$(bpf_object)

$(BUILD)/tests/bpf/%.skel.h: $(BUILD)/tests/bpf/%.bpf.o
	$(bpf_skeleton)

$(TEST_OBJS): | $(TEST_SKELS)
