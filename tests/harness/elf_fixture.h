/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Test programs compiled at test time and a fake /proc that maps them the
 * way the kernel would, for the symbolizer and reader suites.
 */
#ifndef PK_ELF_FIXTURE_H
#define PK_ELF_FIXTURE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#define PK_FX_PID	4242
#define PK_FX_PIE_BASE	0x7f1234560000ULL

/* C: die (noreturn), tail_caller (ends with a call to die), after_tail,
 * local_fn (static), uses_local, main. C++: templates and a method. */
extern const char pk_fx_c_src[], pk_fx_cxx_src[];

/* Checked fixture: a fresh temporary directory with an empty fake /proc,
 * removed afterwards. */
void pk_fx_setup(void);
void pk_fx_teardown(void);
const char *pk_fx_dir(void);
const char *pk_fx_proc_root(void);

void pk_fx_run_ok(char *const argv[], char **out);
void pk_fx_write_file(const char *path, const char *text);

/* Compile SRC (C or C++) with FLAG (-pie / -no-pie) into <dir>/NAME. The
 * returned path is valid until the next call. */
const char *pk_fx_build(const char *name, const char *src, bool cxx, const char *flag);

/* Append to MAPS the lines the kernel would list for PATH loaded at BASE
 * (ET_DYN; ET_EXEC ignores it): one r-xp mapping per executable PT_LOAD.
 * Returns the load bias (what to add to an ELF address). */
__u64 pk_fx_fake_maps(const char *path, __u64 base, char *maps, size_t len);

struct pk_symbolizer;

/* A symbolizer over the fake /proc; with CACHED, keeping what it resolves
 * under <dir>/cache for the next (pk_symbolizer_opts.cache_dir). */
struct pk_symbolizer *pk_fx_symbolizer(bool cached);

/* Write MAPS as <fake proc>/PID/maps. */
void pk_fx_set_maps(__u32 pid, const char *maps);

/* Address and size of symbol NAME in PATH, as nm lists it (size 0: it has
 * none). */
void pk_fx_symbol(const char *path, const char *name, __u64 *addr, __u64 *size);

/* A function symbol as nm -D -S -C lists it (size 0: none given). */
struct pk_fx_sym {
	__u64 addr, size;
	char *name;		/* demangled, without version */
};

/* The dynamic function symbols of PATH (nm -D -S -C
 * --without-symbol-versions: T, t, W, w, i), sorted by address, into *OUT:
 * their number. Free with pk_fx_syms_free. */
size_t pk_fx_dynamic_functions(const char *path, struct pk_fx_sym **out);
void pk_fx_syms_free(struct pk_fx_sym *v, size_t n);

#endif
