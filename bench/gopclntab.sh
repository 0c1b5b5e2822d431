#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The reader's cost per address from a stripped Go binary's .gopclntab
# against the symbol-table and DWARF paths of the same binary unstripped
# (bench/gopclntab_bench.c), for the Go fixture of each toolchain
# (tests/go.mk). Figures, never a timed assertion.
set -euo pipefail
BUILD=${BUILD:-build}
NADDR=${NADDR:-20000}
for v in go1.19 go1.24 go1.27; do
	"$BUILD/bench/gopclntab_bench" "$BUILD/fixtures_go/gochain-$v-full" \
		"$BUILD/fixtures_go/gochain-$v-strip" "$NADDR"
done
