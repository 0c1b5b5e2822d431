# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make fuzz`: libFuzzer targets over every parser of untrusted bytes: the
# eh_frame library and probe-read's records, /proc text, JIT perf maps,
# demangler, Python line tables, _Py_DebugOffsets, HotSpot's vmStructs
# tables, Java line number tables and compiled methods' scopes, V8's
# postmortem metadata, Go's .gopclntab and cgroup paths' container ids
# (tests/fuzz/), built with clang, ASan and UBSan into $(BUILD)/fuzz/, each
# run for FUZZ_SECONDS from its seed corpus tests/fuzz/corpus/NAME/ (new
# inputs go to $(BUILD)/fuzz/corpus-NAME/, crashes to
# $(BUILD)/fuzz/NAME-crash-*).
# Any crash, leak, sanitizer report or failed check fails the target.

FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
FUZZ_CFLAGS  := -g -O1 -std=gnu11 -D_GNU_SOURCE -Wall -Wno-unused-parameter \
	-I. -Itools -Itests $(FUZZ_SAN) \
	$(shell $(PKG_CONFIG) --cflags libelf libdw 2>/dev/null)
FUZZ_LIBS    := $(shell $(PKG_CONFIG) --libs libelf libdw 2>/dev/null) -lz -liberty
# probe-read's parsers, with what they need of tools/
FUZZ_TOOL_SRCS := tools/symbolization/demangle.c tools/lib/util/strbuf.c \
	tools/reading/record.c tools/lib/proc_maps.c \
	tools/lib/kallsyms.c tools/lib/symtab.c tools/lib/util/strpool.c \
	tools/symbolization/perf_map.c tools/lib/proc_status.c tools/symbolization/plt.c \
	tools/symbolization/python_code.c tools/lib/util/u64map.c tools/lib/python.c \
	tools/symbolization/hotspot_lines.c tools/symbolization/hotspot_scopes.c \
	tools/lib/python_debug.c tools/lib/hotspot.c tools/lib/hotspot_vm.c \
	tools/lib/v8.c tools/lib/v8_vm.c \
	tools/symbolization/loc_cache.c tools/symbolization/gopclntab.c \
	tools/lib/container_id.c tools/lib/overlay.c tools/lib/mountinfo.c
# probe-load's parsers of the files it probes (uprobe symbols, USDT notes)
FUZZ_LOADER_SRCS := loader/events/elf_probe_sites.c loader/events/suggest.c

FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz_%.c,$(FUZZ_DIR)/fuzz_%,\
	$(wildcard tests/fuzz/fuzz_*.c))
# The library and the shared checks get coverage instrumentation only; the
# fuzzer's main() comes in at link time.
FUZZ_OBJS    := $(patsubst eh_frame/%.c,$(FUZZ_DIR)/obj/%.o,$(wildcard eh_frame/*.c)) \
	$(FUZZ_DIR)/obj/table_check.o $(FUZZ_DIR)/obj/elf_input.o \
	$(FUZZ_TOOL_SRCS:tools/%.c=$(FUZZ_DIR)/obj/tools/%.o) \
	$(FUZZ_LOADER_SRCS:%.c=$(FUZZ_DIR)/obj/src/%.o)

$(FUZZ_DIR)/obj/src/%.o: %.c
	@mkdir -p $(@D)
	$(call msg,FUZZ-CC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_DIR)/obj/%.o: eh_frame/%.c
	@mkdir -p $(@D)
	$(call msg,FUZZ-CC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_DIR)/obj/tools/%.o: tools/%.c
	@mkdir -p $(@D)
	$(call msg,FUZZ-CC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_DIR)/obj/%.o: tests/fuzz/%.c
	@mkdir -p $(@D)
	$(call msg,FUZZ-CC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

# A perf map line limit that small inputs reach.
$(FUZZ_DIR)/obj/tools/symbolization/perf_map.o $(FUZZ_DIR)/fuzz_perf_map: \
	FUZZ_CFLAGS += -DPK_PERF_MAP_LINE_MAX=200

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJS)
	$(call msg,FUZZER,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -MMD -MP $< $(FUZZ_OBJS) \
		$(FUZZ_LIBS) -o $@

.PHONY: fuzz-build
fuzz-build: $(FUZZ_TARGETS)

# One target after the other, each for FUZZ_SECONDS on one core.
fuzz: $(FUZZ_TARGETS)
	$(Q)set -e; for t in $(FUZZ_TARGETS); do \
		name=$${t##*/fuzz_}; \
		mkdir -p $(FUZZ_DIR)/corpus-$$name; \
		echo "  FUZZ     $$name for $(FUZZ_SECONDS) s"; \
		$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 \
			-artifact_prefix=$(FUZZ_DIR)/$$name-crash- \
			$(FUZZ_DIR)/corpus-$$name tests/fuzz/corpus/$$name \
			> $(FUZZ_DIR)/$$name.log 2>&1 || \
			{ tail -n 40 $(FUZZ_DIR)/$$name.log; \
			  echo "fuzz: $$name failed, see $(FUZZ_DIR)/$$name.log"; exit 1; }; \
		grep -E '^stat::number_of_executed_units|^Done' $(FUZZ_DIR)/$$name.log \
			| sed 's/^/           /'; \
	done
