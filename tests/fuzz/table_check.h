/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the fuzz targets demand of every table and every error. */
#ifndef FUZZ_TABLE_CHECK_H
#define FUZZ_TABLE_CHECK_H

#include "eh_table.h"

/* Abort (a finding for libFuzzer) unless T is a well-formed table: layout
 * within its size, PCs strictly ascending and inside [pc_base, pc_end],
 * rule ids in range, adjacent rows never sharing a rule, the last row
 * an END row, and the text dump written without error. */
void fuzz_check_table(const struct unwind_table *t);

/* Abort unless a failure left exactly one line of reason. */
void fuzz_check_error(int ret, const struct eh_error *err);

#endif
