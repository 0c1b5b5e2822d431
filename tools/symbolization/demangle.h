/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Readable names for mangled symbols, through libiberty (the demangler of
 * binutils and GCC): C++ (Itanium ABI), Rust legacy (_ZN...17h<hash>E, the
 * hash dropped) and Rust v0 (_R..., crate disambiguators dropped), as
 * rustc's own demangler prints them in its alternate form ("{:#}").
 */
#ifndef PK_DEMANGLE_H
#define PK_DEMANGLE_H

/* The demangled form of NAME, malloc'ed; NULL when NAME is not a mangled
 * name we can read (the caller keeps NAME) or on allocation failure. Never
 * an empty string. */
char *pk_demangle(const char *name);

#endif
