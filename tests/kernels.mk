# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make check-kernels`: the kernel matrix (tests/kernels/README.md). Boots
# each kernel of tests/kernels/kernels.list in QEMU (KVM where it works,
# TCG otherwise) over this very tree and runs the BPF loads and the suites
# that load real BPF there, against the sanitized build `make check` uses.
#   KERNELS="6.1 host"   a part of the matrix ("host": this machine, natively)
#   KERNELS="6.1:dwarf"  chosen suites on one kernel
#   KERNEL_CACHE=DIR     where the packages are kept (fetched once)
.PHONY: check-kernels

DEB_TEST_PKGS += qemu-system-x86 busybox-static kmod
KERNELS ?=
export KERNEL_CACHE ?= /var/cache/probekit-kernels

check-kernels:
	$(Q)$(MAKE) --no-print-directory test-deps
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/san SANITIZE=1 WERROR=1 test-programs
	$(Q)tests/kernels/matrix.sh $(BUILD)/san $(BUILD)/kernels $(KERNELS)
