# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Fixtures of the readelf oracle test (tests/unit/eh_frame/test_eh_oracle.c): every
# C and C++ source in tests/fixtures_cfi/ built with gcc and clang at -O0, -O2
# and -O3 into $(BUILD)/oracle/NAME-{gcc,clang}-{O0,O2,O3}, every assembly
# source into $(BUILD)/oracle/NAME-{gcc,clang}. Plain compiler flags on
# purpose (no frame-pointer or sanitizer flags): the test checks the CFI the
# toolchains normally emit.

ORACLE_DIR  := $(BUILD)/oracle
ORACLE_SRCS := $(wildcard tests/fixtures_cfi/*.c tests/fixtures_cfi/*.cpp)
ORACLE_ASM  := $(wildcard tests/fixtures_cfi/*.S)
ORACLE_COMPILERS := gcc clang
ORACLE_LEVELS := O0 O2 O3

# Driver per compiler and source suffix.
ORACLE_DRIVER_gcc_c     := gcc
ORACLE_DRIVER_gcc_cpp   := g++
ORACLE_DRIVER_gcc_S     := gcc
ORACLE_DRIVER_clang_c   := clang
ORACLE_DRIVER_clang_cpp := clang++
ORACLE_DRIVER_clang_S   := clang

# Extra flags per fixture name: cfi_dbg is cfi_c.c with .debug_frame only.
ORACLE_FLAGS_cfi_dbg := -fno-asynchronous-unwind-tables -fno-unwind-tables

# $(1) source, $(2) compiler, $(3) optimization level (empty for assembly)
define oracle_fixture
ORACLE_FIXTURES += $(ORACLE_DIR)/$(basename $(notdir $(1)))-$(2)$(if $(3),-$(3))
$(ORACLE_DIR)/$(basename $(notdir $(1)))-$(2)$(if $(3),-$(3)): $(1) tests/oracle.mk
	@mkdir -p $$(@D)
	$$(call msg,ORACLE,$$@)
	$$(Q)$(ORACLE_DRIVER_$(2)_$(subst .,,$(suffix $(1)))) -g $(if $(3),-$(3)) \
		$(ORACLE_FLAGS_$(basename $(notdir $(1)))) -Itests/fixtures_cfi $$< -o $$@
endef

ORACLE_FIXTURES :=
$(foreach s,$(ORACLE_SRCS),$(foreach c,$(ORACLE_COMPILERS),$(foreach o,$(ORACLE_LEVELS),\
	$(eval $(call oracle_fixture,$(s),$(c),$(o))))))
$(foreach s,$(ORACLE_ASM),$(foreach c,$(ORACLE_COMPILERS),\
	$(eval $(call oracle_fixture,$(s),$(c),))))

.PHONY: oracle-fixtures
oracle-fixtures: $(ORACLE_FIXTURES)
test-programs: $(ORACLE_FIXTURES)
