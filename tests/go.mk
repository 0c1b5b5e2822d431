# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The Go fixture of the .gopclntab tests (tools/symbolization/gopclntab.h):
# tests/fixtures_go/ built by each Go toolchain the tests have -- Debian
# 12's on the host (1.19, the 1.18 table layout), Debian 13's (1.24) and
# sid's (1.27) in their roots (tests/roots/) -- unstripped and as Go
# services ship (-ldflags="-s -w": no .symtab, no DWARF), into
# $(BUILD)/fixtures_go/gochain-goVER-{full,strip} (and, by the host's, a
# PIE, gochain-go1.19-pie-{full,strip}). Beside each, the
# toolchain's own reading of the table, as an oracle the tests compare
# with: `go tool objdump -s ^main\.` (every instruction of package main
# with its file:line; a PIE's without lines), gochain-goVER.objdump.
#
# The toolchains build offline: no module proxy, no toolchain download, a
# build cache of their own under $(BUILD).

GO_DIR := $(BUILD)/fixtures_go
GO_SRC := tests/fixtures_go
GO_SRCS := $(wildcard $(GO_SRC)/*.go) $(GO_SRC)/go.mod
GO_HOST ?= /usr/bin/go
GO_ENV = HOME=$(1)/home GOTOOLCHAIN=local GOPROXY=off GOTELEMETRY=off GOFLAGS= \
	GOCACHE=$(1)/cache GOPATH=$(1)/path
# version -> root (empty: the host). A root's version is the Go its
# golang-go installed (/usr/lib/go-1.N), so that a newer sid's is named
# for what it is; none before `make test-roots` made the root.
GO_ROOTS := trixie sid
go_root_version = $(patsubst go-%,go%,$(notdir $(lastword $(sort \
	$(wildcard $(ROOTS_CACHE)/$(1)/usr/lib/go-1.*)))))
$(foreach r,$(GO_ROOTS),$(eval GO_ROOT_$(call go_root_version,$(r)) := $(r)))
GO_VERSIONS := go1.19 $(foreach r,$(GO_ROOTS),$(call go_root_version,$(r)))

# What one toolchain makes, run in $(1) (the fixture's source) into $(2).
GO_BUILD = cd $(1) && \
	go build -o $(2)/full . && \
	go build -ldflags='-s -w' -o $(2)/strip . && \
	go tool objdump -s '^main\.' $(2)/full > $(2)/objdump

# $(1) version: its three files, built into a directory of their own and
# moved into place.
define go_fixture
GO_FIXTURES += $(GO_DIR)/gochain-$(1)-full $(GO_DIR)/gochain-$(1)-strip \
	$(GO_DIR)/gochain-$(1).objdump
$(GO_DIR)/gochain-$(1)-strip $(GO_DIR)/gochain-$(1).objdump: $(GO_DIR)/gochain-$(1)-full
$(GO_DIR)/gochain-$(1)-full: $(GO_SRCS) tests/go.mk tests/roots/in_root.sh
	@mkdir -p $(GO_DIR)/$(1)
	$$(call msg,GO,$$@)
	$$(Q)$(if $(GO_ROOT_$(1)),\
		tests/roots/in_root.sh -o $(abspath $(GO_DIR)/$(1)) \
			$$(ROOTS_CACHE)/$(GO_ROOT_$(1)) /bin/sh -c \
			"export $(call GO_ENV,/mnt/out) && \
			$(call GO_BUILD,/mnt/probekit/$(GO_SRC),/mnt/out)",\
		export $(call GO_ENV,$(abspath $(GO_DIR)/$(1))) PATH=$(dir $(GO_HOST)):$$$$PATH && \
			$(call GO_BUILD,$(GO_SRC),$(abspath $(GO_DIR)/$(1))))
	$$(Q)mv $(GO_DIR)/$(1)/strip $(GO_DIR)/gochain-$(1)-strip
	$$(Q)mv $(GO_DIR)/$(1)/objdump $(GO_DIR)/gochain-$(1).objdump
	$$(Q)mv $(GO_DIR)/$(1)/full $$@
endef
$(foreach v,$(GO_VERSIONS),$(eval $(call go_fixture,$(v))))

# A position-independent build too (-buildmode=pie: .gopclntab among the
# RELRO data, .data.rel.ro.gopclntab), by the host's toolchain.
GO_PIE_DIR := $(abspath $(GO_DIR)/go1.19-pie)
GO_FIXTURES += $(GO_DIR)/gochain-go1.19-pie-full $(GO_DIR)/gochain-go1.19-pie-strip \
	$(GO_DIR)/gochain-go1.19-pie.objdump
$(GO_DIR)/gochain-go1.19-pie-full $(GO_DIR)/gochain-go1.19-pie.objdump: \
	$(GO_DIR)/gochain-go1.19-pie-strip
$(GO_DIR)/gochain-go1.19-pie-strip: $(GO_SRCS) tests/go.mk
	@mkdir -p $(GO_PIE_DIR)
	$(call msg,GO,$@)
	$(Q)export $(call GO_ENV,$(GO_PIE_DIR)) PATH=$(dir $(GO_HOST)):$$PATH && \
		cd $(GO_SRC) && go build -buildmode=pie -o $(GO_PIE_DIR)/full . && \
		go build -buildmode=pie -ldflags='-s -w' -o $(GO_PIE_DIR)/strip . && \
		go tool objdump -s '^main\.' $(GO_PIE_DIR)/full > $(GO_PIE_DIR)/objdump
	$(Q)mv $(GO_PIE_DIR)/objdump $(GO_DIR)/gochain-go1.19-pie.objdump
	$(Q)mv $(GO_PIE_DIR)/full $(GO_DIR)/gochain-go1.19-pie-full
	$(Q)mv $(GO_PIE_DIR)/strip $@

.PHONY: go-fixtures
go-fixtures: $(GO_FIXTURES)
test-programs: $(GO_FIXTURES)
