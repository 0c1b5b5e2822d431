# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The Debian roots of tests/roots/roots.list (Debian 13 and sid: newer
# Pythons, JDKs and Node.js than Debian 12 has), made by `make test-deps`
# with debootstrap and kept in $(ROOTS_CACHE), outside the tree; the tests
# run fixtures in them with tests/roots/in_root.sh (tests/roots/README.md).
.PHONY: test-roots

DEB_TEST_PKGS += debootstrap
export ROOTS_CACHE ?= /var/cache/probekit-roots
ROOT_NAMES := $(shell awk '!/^\#/ && NF { print $$1 }' tests/roots/roots.list)

test-roots:
	$(Q)for r in $(ROOT_NAMES); do \
		tests/roots/make_root.sh $$r $(ROOTS_CACHE) >/dev/null || exit 1; done
