// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/elf_fixture.h"
#include "symbolization/symbolizer.h"
#include "test_util.h"

const char pk_fx_c_src[] =
	"#include <stdlib.h>\n"
	"__attribute__((noinline, noreturn)) void die(int x) { exit(x); }\n"
	"__attribute__((noinline)) void tail_caller(int x) { die(x + 1); }\n"
	"__attribute__((noinline)) int after_tail(int x) { return x * 3 + 1; }\n"
	"static __attribute__((noinline)) int local_fn(int x) { return x ^ 0x55; }\n"
	"__attribute__((noinline)) int uses_local(int x) { return local_fn(x) + 2; }\n"
	"int main(int argc, char **argv) { if (argc > 5) tail_caller(argc);\n"
	"  return after_tail(argc) + uses_local(argc); }\n";

const char pk_fx_cxx_src[] =
	"namespace ns { template<typename T> __attribute__((noinline)) T twice(T x) { return x + x; }\n"
	"struct K { __attribute__((noinline)) int m(int v) const; };\n"
	"int K::m(int v) const { return v * 7; } }\n"
	"int main(int c, char **) { ns::K k; return ns::twice(c) + (int)ns::twice(1.5) + k.m(c); }\n";

static char dir[64], proc_root[80];

const char *pk_fx_dir(void)
{
	return dir;
}

const char *pk_fx_proc_root(void)
{
	return proc_root;
}

void pk_fx_setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/pk-fx-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(proc_root, sizeof(proc_root), "%s/proc", dir);
	ck_assert_int_eq(mkdir(proc_root, 0755), 0);
}

void pk_fx_teardown(void)
{
	char *argv[] = { "rm", "-rf", dir, NULL };

	pk_test_run(argv, NULL, NULL);
}

void pk_fx_run_ok(char *const argv[], char **out)
{
	char *err = NULL;
	int status = pk_test_run(argv, out, &err);

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s failed: %s", argv[0],
		      err ? err : "");
	free(err);
}

void pk_fx_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

const char *pk_fx_build(const char *name, const char *src, bool cxx, const char *flag)
{
	static char path[256];
	char src_path[256];
	char *argv[] = { cxx ? "g++" : "gcc", "-O2", "-g", "-falign-functions=1", "-fno-inline",
			 (char *)flag, "-x", cxx ? "c++" : "c", src_path, "-o", path, NULL };

	snprintf(src_path, sizeof(src_path), "%s/%s.src", dir, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	pk_fx_write_file(src_path, src);
	pk_fx_run_ok(argv, NULL);
	return path;
}

__u64 pk_fx_fake_maps(const char *path, __u64 base, char *maps, size_t len)
{
	int fd = open(path, O_RDONLY);
	size_t phnum, used = strlen(maps);
	struct stat st;
	GElf_Ehdr eh;
	__u64 bias;
	Elf *elf;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(elf);
	ck_assert_ptr_nonnull(gelf_getehdr(elf, &eh));
	bias = eh.e_type == ET_DYN ? base : 0;
	ck_assert_int_eq(elf_getphdrnum(elf, &phnum), 0);
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		ck_assert_ptr_nonnull(gelf_getphdr(elf, i, &ph));
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		used += snprintf(maps + used, len - used, "%llx-%llx r-xp %08llx %02x:%02x %llu %s\n",
				 (unsigned long long)(bias + (ph.p_vaddr & ~0xfffULL)),
				 (unsigned long long)(bias + ((ph.p_vaddr + ph.p_memsz + 0xfff) & ~0xfffULL)),
				 (unsigned long long)(ph.p_offset & ~0xfffULL),
				 major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino, path);
		ck_assert_uint_lt(used, len);
	}
	elf_end(elf);
	close(fd);
	return bias;
}

void pk_fx_set_maps(__u32 pid, const char *maps)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%u", proc_root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/maps", proc_root, pid);
	pk_fx_write_file(path, maps);
}

void pk_fx_symbol(const char *path, const char *name, __u64 *addr, __u64 *size)
{
	char *argv[] = { "nm", "-S", "--defined-only", (char *)path, NULL }, *out = NULL, *line, *save;
	bool found = false;

	pk_fx_run_ok(argv, &out);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, s;
		char type, sym[256];

		/* an unsized symbol: no size column */
		if (sscanf(line, "%llx %llx %c %255s", &a, &s, &type, sym) != 4) {
			s = 0;
			if (sscanf(line, "%llx %c %255s", &a, &type, sym) != 3)
				continue;
		}
		if (strcmp(sym, name) == 0) {
			*addr = a;
			*size = s;
			found = true;
			break;
		}
	}
	free(out);
	ck_assert_msg(found, "%s: no symbol %s", path, name);
}

static int cmp_fx_sym(const void *a, const void *b)
{
	const struct pk_fx_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

size_t pk_fx_dynamic_functions(const char *path, struct pk_fx_sym **out)
{
	char *argv[] = { "nm", "-D", "-S", "-C", "--defined-only", "--without-symbol-versions",
			 (char *)path, NULL }, *text = NULL, *line, *save;
	struct pk_fx_sym *v = NULL;
	size_t n = 0;

	pk_fx_run_ok(argv, &text);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, size = 0;
		char type;
		int name = 0;

		/* an unsized symbol: no size column */
		if (sscanf(line, "%llx %llx %c %n", &a, &size, &type, &name) != 3 || !name) {
			size = 0;
			name = 0;
			if (sscanf(line, "%llx %c %n", &a, &type, &name) != 2 || !name)
				continue;
		}
		if (!strchr("TtWwi", type))
			continue;
		v = pk_test_grow(v, n, sizeof(*v));
		ck_assert_ptr_nonnull(v);
		v[n] = (struct pk_fx_sym){ a, size, strdup(line + name) };
		ck_assert_ptr_nonnull(v[n++].name);
	}
	free(text);
	if (n)
		qsort(v, n, sizeof(*v), cmp_fx_sym);
	*out = v;
	return n;
}

void pk_fx_syms_free(struct pk_fx_sym *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

struct pk_symbolizer *pk_fx_symbolizer(bool cached)
{
	char dir[512];
	struct pk_symbolizer_opts o = { .proc_root = pk_fx_proc_root() };
	struct pk_symbolizer *sym;

	snprintf(dir, sizeof(dir), "%s/cache", pk_fx_dir());
	if (cached)
		o.cache_dir = dir;
	sym = pk_symbolizer_new(&o);
	ck_assert_ptr_nonnull(sym);
	return sym;
}
