# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make check-busy`: the tests hold on a busy machine (tests/busy/check_busy.sh).
# A clean clone of HEAD runs `CI=true make check` BUSY_RUNS times in a row
# while a CPU burner takes one core and a second clean clone's make check
# runs beside it; about an hour a run on a 2-core machine.
.PHONY: check-busy

BUSY_RUNS ?= 3

check-busy:
	$(Q)tests/busy/check_busy.sh $(BUSY_RUNS) HEAD
