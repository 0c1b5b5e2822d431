/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the fuzz targets demand of every table and every error. */
#ifndef FUZZ_TABLE_CHECK_H
#define FUZZ_TABLE_CHECK_H

#include "eh_frame/eh_table.h"

/*
 * Abort (a finding for libFuzzer) unless a call that returned RET and T
 * either built a well-formed table -- layout within its size, PCs strictly
 * ascending and inside [pc_base, pc_end], rule ids in range, adjacent rows
 * never sharing a rule, the last row an END row, the text dump written
 * without error; T is freed -- or failed with T NULL and exactly one line
 * of reason in ERR.
 */
void fuzz_check_result(int ret, struct eh_unwind_table *t, const char err[PK_ERR_LEN]);

#endif
