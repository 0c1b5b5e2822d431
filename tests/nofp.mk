# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Fixtures of the DWARF unwinding tests (tests/integration/test_dwarf.c and
# the perf dwarf oracle): known call chains built WITHOUT frame pointers, so
# that only the CFI can unwind them. Every C/C++ program in tests/fixtures_nofp/
# is built by gcc and clang, as PIE and not, into
# $(BUILD)/fixtures_nofp/NAME-{gcc,clang}-{pie,nopie}; the Rust one by rustc
# into rust-rustc-{pie,nopie}; the shared libraries they load into
# $(BUILD)/fixtures_nofp/LIB-{gcc,clang}.so, beside them. loop.py runs under
# Debian's /usr/bin/python3.11 and needs no build.
#
# -O2 -fomit-frame-pointer: the code compilers ship by default. The chains
# survive by noinline/noipa and an asm barrier after each call (nofp.h);
# -fno-optimize-sibling-calls keeps every call a call.

NOFP_DIR := $(BUILD)/fixtures_nofp
NOFP_SRC := tests/fixtures_nofp
NOFP_COMPILERS := gcc clang
NOFP_LINKS := pie nopie
NOFP_CFLAGS := -O2 -g -fomit-frame-pointer -momit-leaf-frame-pointer \
	-fno-optimize-sibling-calls -fasynchronous-unwind-tables -I$(NOFP_SRC)
NOFP_PIE_pie   := -fPIE -pie
NOFP_PIE_nopie := -fno-pie -no-pie

NOFP_CC_gcc_c     := gcc
NOFP_CC_gcc_cpp   := g++
NOFP_CC_clang_c   := clang
NOFP_CC_clang_cpp := clang++

# Programs (every .c or .cpp but the libraries' and parts' sources) and
# libraries.
NOFP_LIB_NAMES := shlib_lib plugin reuse_lib1 reuse_lib2 nocfi_mid nocfi_tail
NOFP_PROGS := $(filter-out $(NOFP_LIB_NAMES),\
	$(basename $(notdir $(wildcard $(NOFP_SRC)/*.c $(NOFP_SRC)/*.cpp))))
NOFP_HDRS := $(wildcard $(NOFP_SRC)/*.h) tests/cpu_budget.h

# What a program links with, per compiler: shlib needs its library.
NOFP_NEEDS_shlib = $(NOFP_DIR)/libnofp_shlib-$(1).so
NOFP_LDLIBS_shlib = -L$(NOFP_DIR) -lnofp_shlib-$(1) -Wl,-rpath,'$$$$ORIGIN'
NOFP_LDLIBS_threads = -pthread
NOFP_LDLIBS_ev_block = -pthread
NOFP_LDLIBS_dlopen = -ldl
NOFP_LDLIBS_dlclose_reuse = -ldl
# nocfi links a part built without CFI but with a frame pointer (and no
# -g: .debug_frame would be CFI too).
# nocfi_tail, with CFI, after it: mid is a gap between FDEs.
NOFP_NEEDS_nocfi = $(NOFP_DIR)/nocfi_mid-$(1).o $(NOFP_DIR)/nocfi_tail-$(1).o
NOFP_LDLIBS_nocfi = $(NOFP_DIR)/nocfi_mid-$(1).o $(NOFP_DIR)/nocfi_tail-$(1).o
NOFP_NOCFI_CFLAGS := -O2 -g0 -fno-omit-frame-pointer -fno-asynchronous-unwind-tables \
	-fno-unwind-tables -fno-optimize-sibling-calls -fPIC -I$(NOFP_SRC)
# Libraries loaded at run time, built with their program.
NOFP_NEEDS_dlopen = $(NOFP_DIR)/plugin-$(1).so
NOFP_NEEDS_dlclose_reuse = $(NOFP_DIR)/reuse_lib1-$(1).so $(NOFP_DIR)/reuse_lib2-$(1).so

NOFP_FIXTURES :=

# $(1) library source name, $(2) output name, $(3) compiler
define nofp_lib
NOFP_FIXTURES += $(NOFP_DIR)/$(2)-$(3).so
$(NOFP_DIR)/$(2)-$(3).so: $(NOFP_SRC)/$(1).c $(NOFP_HDRS) tests/nofp.mk
	@mkdir -p $$(@D)
	$$(call msg,NOFP,$$@)
	$$(Q)$(NOFP_CC_$(3)_c) $(NOFP_CFLAGS) -fPIC -shared -Wl,-soname,$(2)-$(3).so \
		$$< -o $$@
endef

# $(1) program, $(2) source suffix (c or cpp), $(3) compiler, $(4) pie or nopie
define nofp_prog
NOFP_FIXTURES += $(NOFP_DIR)/$(1)-$(3)-$(4)
$(NOFP_DIR)/$(1)-$(3)-$(4): $(NOFP_SRC)/$(1).$(2) $(NOFP_HDRS) tests/nofp.mk \
		$(call NOFP_NEEDS_$(1),$(3))
	@mkdir -p $$(@D)
	$$(call msg,NOFP,$$@)
	$$(Q)$(NOFP_CC_$(3)_$(2)) $(NOFP_CFLAGS) $(NOFP_PIE_$(4)) -DNOFP_CC='"$(3)"' \
		$$< -o $$@ $(call NOFP_LDLIBS_$(1),$(3))
endef

# $(1) compiler: nocfi's part without CFI, and the one with CFI after it
define nofp_nocfi_part
$(NOFP_DIR)/nocfi_mid-$(1).o: $(NOFP_SRC)/nocfi_mid.c $(NOFP_HDRS) tests/nofp.mk
	@mkdir -p $$(@D)
	$$(call msg,NOFP,$$@)
	$$(Q)$(NOFP_CC_$(1)_c) $(NOFP_NOCFI_CFLAGS) -c $$< -o $$@
$(NOFP_DIR)/nocfi_tail-$(1).o: $(NOFP_SRC)/nocfi_tail.c $(NOFP_HDRS) tests/nofp.mk
	@mkdir -p $$(@D)
	$$(call msg,NOFP,$$@)
	$$(Q)$(NOFP_CC_$(1)_c) $(NOFP_CFLAGS) -fPIC -c $$< -o $$@
endef

$(foreach c,$(NOFP_COMPILERS),\
	$(eval $(call nofp_nocfi_part,$(c)))\
	$(eval $(call nofp_lib,shlib_lib,libnofp_shlib,$(c)))\
	$(eval $(call nofp_lib,plugin,plugin,$(c)))\
	$(eval $(call nofp_lib,reuse_lib1,reuse_lib1,$(c)))\
	$(eval $(call nofp_lib,reuse_lib2,reuse_lib2,$(c))))
$(foreach p,$(NOFP_PROGS),$(foreach c,$(NOFP_COMPILERS),$(foreach l,$(NOFP_LINKS),\
	$(eval $(call nofp_prog,$(p),$(if $(wildcard $(NOFP_SRC)/$(p).cpp),cpp,c),$(c),$(l))))))

# Rust, with Debian's rustc (not a rustup toolchain earlier in PATH): no
# frame pointers in the fixture's code; std comes as Debian built it.
NOFP_RUSTC ?= /usr/bin/rustc
NOFP_RUSTFLAGS := -C force-frame-pointers=no -C opt-level=2 -g
NOFP_RUST_pie   := -C relocation-model=pie
NOFP_RUST_nopie := -C relocation-model=static -C link-arg=-no-pie
define nofp_rust
NOFP_FIXTURES += $(NOFP_DIR)/rust-rustc-$(1)
$(NOFP_DIR)/rust-rustc-$(1): $(NOFP_SRC)/rust.rs tests/nofp.mk
	@mkdir -p $$(@D)
	$$(call msg,NOFP,$$@)
	$$(Q)$(NOFP_RUSTC) $(NOFP_RUSTFLAGS) $(NOFP_RUST_$(1)) $$< -o $$@
endef
$(foreach l,$(NOFP_LINKS),$(eval $(call nofp_rust,$(l))))

.PHONY: nofp-fixtures
nofp-fixtures: $(NOFP_FIXTURES)
test-programs: $(NOFP_FIXTURES)
