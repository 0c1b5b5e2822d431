# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Fixtures of the source-line tests (tests/unit/symbolization/test_srcline.c): inlined code
# at -O2 -g, read by pk_srcline and by eu-addr2line, the oracle. Every C and
# C++ program in tests/fixtures_dbg/ is built into
# $(BUILD)/fixtures_dbg/NAME-VARIANT (NAME.c) or NAME-cpp-VARIANT (NAME.cpp):
#   gcc            the toolchain's defaults (DWARF 5, .debug_aranges)
#   gcc-dwarf4     DWARF 4: .debug_ranges, file numbers from 1
#   clang          no .debug_aranges (clang's default): units found by
#                  their own ranges, where eu-addr2line 0.188 finds none
#   clang-aranges  the same code with .debug_aranges, so that eu-addr2line
#                  is the oracle for the clang build too
# Plain compiler flags otherwise: the test reads the DWARF compilers emit.

DBG_DIR := $(BUILD)/fixtures_dbg
DBG_SRC := tests/fixtures_dbg
DBG_C_PROGS := $(basename $(notdir $(wildcard $(DBG_SRC)/*.c)))
DBG_CPP_PROGS := $(basename $(notdir $(wildcard $(DBG_SRC)/*.cpp)))
DBG_HDRS := $(wildcard $(DBG_SRC)/*.h)
DBG_VARIANTS := gcc gcc-dwarf4 clang clang-aranges

DBG_CC_c   := gcc
DBG_CC_cpp := g++
DBG_CLANG_c   := clang
DBG_CLANG_cpp := clang++
DBG_DRIVER_gcc           = $(DBG_CC_$(1))
DBG_DRIVER_gcc-dwarf4    = $(DBG_CC_$(1))
DBG_DRIVER_clang         = $(DBG_CLANG_$(1))
DBG_DRIVER_clang-aranges = $(DBG_CLANG_$(1))
DBG_FLAGS_gcc           := -g
DBG_FLAGS_gcc-dwarf4    := -gdwarf-4
DBG_FLAGS_clang         := -g
DBG_FLAGS_clang-aranges := -g -gdwarf-aranges

DBG_FIXTURES :=

# $(1) program, $(2) source suffix (c or cpp), $(3) variant, $(4) output name
define dbg_prog
DBG_FIXTURES += $(DBG_DIR)/$(4)
$(DBG_DIR)/$(4): $(DBG_SRC)/$(1).$(2) $(DBG_HDRS) tests/dbg.mk
	@mkdir -p $$(@D)
	$$(call msg,DBG,$$@)
	$$(Q)$(call DBG_DRIVER_$(3),$(2)) -O2 $(DBG_FLAGS_$(3)) -I$(DBG_SRC) $$< -o $$@
endef

$(foreach p,$(DBG_C_PROGS),$(foreach v,$(DBG_VARIANTS),\
	$(eval $(call dbg_prog,$(p),c,$(v),$(p)-$(v)))))
$(foreach p,$(DBG_CPP_PROGS),$(foreach v,$(DBG_VARIANTS),\
	$(eval $(call dbg_prog,$(p),cpp,$(v),$(p)-cpp-$(v)))))

.PHONY: dbg-fixtures
dbg-fixtures: $(DBG_FIXTURES)
test-programs: $(DBG_FIXTURES)
