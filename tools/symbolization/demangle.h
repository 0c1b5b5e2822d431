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

/*
 * The length of NAME's function name: NAME without what the toolchain put
 * after it, so that one function has one name in every format, out of line
 * or inlined (where DWARF names it), and as perf and eu-addr2line print
 * it.
 *  - A symbol version: "@VER" or "@@VER", which a debug file's .symtab
 *    spells in the name (__libc_start_main@@GLIBC_2.34); .dynsym keeps it
 *    apart.
 *  - The suffixes of the copies and parts GCC and LLVM make of a function,
 *    whose DWARF name is the function's own: .lto_priv.N, .constprop.N,
 *    .isra.N, .part.N, .clone.N, .llvm.N (ThinLTO), .localalias[.N] and
 *    .cold[.N], in any sequence (foo.part.0.isra.0, foo.constprop.0.cold).
 *    Only after a name without dots (C, a mangled C++ or Rust name): in
 *    "pkg.part.1" of a dotted language nothing is a suffix.
 */
size_t pk_sym_name_len(const char *name);

#endif
