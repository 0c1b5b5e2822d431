# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Libraries the tests put under a real program with LD_PRELOAD:
# tests/preload/NAME.c -> $(BUILD)/preload/NAME.so. refuse_prog.so makes
# the running kernel refuse the BPF programs named (probe-load's refusal
# path, tests/unit/loader/test_load_session.c). Built without the
# sanitizers, which must come first in a sanitized program's libraries.
PRELOAD_SRCS := $(wildcard tests/preload/*.c)
PRELOADS := $(PRELOAD_SRCS:tests/preload/%.c=$(BUILD)/preload/%.so)
PRELOAD_CFLAGS := -O2 -g -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -fPIC \
	$(if $(filter 1,$(WERROR)),-Werror)

$(BUILD)/preload/%.so: tests/preload/%.c tests/preload.mk
	@mkdir -p $(@D)
	$(call msg,PRELOAD,$@)
	$(Q)$(CC) $(PRELOAD_CFLAGS) -shared $< -o $@ -ldl

test-programs: $(PRELOADS)
