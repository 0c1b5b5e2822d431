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

# The guests' loads and suites run a build of their own, without the
# sanitizers (still WERROR=1): under TCG, ASan costs a third of a guest's
# time (the dwarf suite on 6.12: 1,056 s sanitized, 750 s without), and
# make check runs every suite sanitized on the host. It is also the build
# a user's `make` makes, which make check never builds. readers.sh keeps
# the sanitized probe-load and probe-read make check built: ASan is how it
# sees a reader write past the modules' ranges, a path only a guest has.
check-kernels:
	$(Q)$(MAKE) --no-print-directory test-deps
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/san SANITIZE=1 WERROR=1 \
		$(BUILD)/san/probe-load $(BUILD)/san/probe-read
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/guest WERROR=1 test-programs
	$(Q)PK_READERS_BUILD=$(BUILD)/san \
		tests/kernels/matrix.sh $(BUILD)/guest $(BUILD)/kernels $(KERNELS)
