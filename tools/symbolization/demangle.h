/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Readable names for mangled symbols: C++ (Itanium ABI, through libstdc++'s
 * __cxa_demangle), Rust legacy (_ZN...17h<hash>E, hash dropped) and Rust v0
 * (_R..., crate disambiguators dropped, as rustc-demangle's "{:#}" prints).
 */
#ifndef PK_DEMANGLE_H
#define PK_DEMANGLE_H

/* The demangled form of NAME, malloc'ed; NULL when NAME is not a mangled
 * name we can read (the caller keeps NAME) or on allocation failure. */
char *pk_demangle(const char *name);

/* The Rust decoders on their own (exposed for tests). */
char *pk_demangle_rust_legacy(const char *name);
char *pk_demangle_rust_v0(const char *name);

#endif
