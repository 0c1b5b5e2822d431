/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One version for every program of the project. */
#ifndef PK_VERSION_H
#define PK_VERSION_H

#define PK_VERSION	"0.1.0"

#endif
