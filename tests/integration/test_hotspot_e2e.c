// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tools/lib/hotspot.c on live JVMs: Debian 12's OpenJDK 17 on the host,
 * Debian 13's 21 and sid's 25 in their test roots (tests/roots/, run by
 * in_root.sh as a container runs them), each running the fixture
 * tests/fixtures/java/Idle.java. Its libjvm is found in /proc/PID/maps and
 * opened through map_files, its tables read from the process; the oracle
 * is the JDK's own serviceability agent, `jhsdb clhsdb` of the same JDK
 * (in the JVM's namespaces and root for the roots' JDKs), fed commands on
 * its stdin: vmstructsdump (every member offset and type size), field
 * CodeCache (the statics' addresses), intConstant, longConstant, and
 * findsym gHotSpotVMStructs (the load bias), flags (the code cache's).
 * Every non-static member, type size and constant read must be the
 * agent's, as must a dozen members of struct pk_hotspot_vm the walk
 * needs; what each JDK lacks of struct pk_hotspot_vm is asserted by name
 * (the JDKs differ); and the code cache is followed through the JVM's
 * memory with those offsets, its heaps against the agent's flags.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "eh_frame/elf_file.h"
#include "integration/jvm_run.h"
#include "lib/hotspot.h"
#include "lib/proc_maps.h"
#include "lib/session.h"
#include "lib/unwind_store.h"
#include "test_util.h"

struct jdk {
	const char *root;	/* a test root's name, or NULL: the host */
	int version;
	const char *home;	/* in the root */
	const char *missing;	/* what struct pk_hotspot_vm lacks */
	bool code_is_offset;
};

#define JDK23_ONLY	"nmethod._immutable_data, nmethod._immutable_data_size, " \
			"CodeBlob._mutable_data, CodeBlob._mutable_data_size, " \
			"CodeBlob._relocation_size"

static const struct jdk jdks[] = {
	{ NULL, 17, "/usr/lib/jvm/java-17-openjdk-amd64", JDK23_ONLY, false },
	{ "trixie", 21, "/usr/lib/jvm/java-21-openjdk-amd64", JDK23_ONLY, false },
	/* the nmethod's metadata moved into its mutable data, its
	 * dependencies (where its PcDescs end before 23) into its immutable */
	{ "sid", 25, "/usr/lib/jvm/java-25-openjdk-amd64",
	  "nmethod._metadata_offset, nmethod._dependencies_offset", true },
};
#define NJDKS	(sizeof(jdks) / sizeof(jdks[0]))

/* J's java -cp <fixtures> Idle, started in its root. */
static void jvm_start(const struct jdk *j, struct pk_jvm *vm)
{
	char java[512];

	snprintf(java, sizeof(java), "%s/bin/java", j->home);
	pk_jvm_start(j->root, java, (const char *const[]){ "Idle", NULL }, vm);
}

/* libjvm's mapping at offset 0 in VM's maps: its bias and symbols,
 * from the file as the process has it mapped (map_files). */
static void jvm_syms(const struct pk_jvm *vm, struct pk_hotspot_syms *syms, __u64 *bias)
{
	struct pk_maps maps;
	const struct pk_mapping *m = NULL;
	char path[4200];
	Elf *elf;
	int fd;

	ck_assert_int_eq(pk_maps_read(NULL, vm->pid, false, &maps), 0);
	for (size_t i = 0; i < maps.n && !m; i++) {
		size_t n = strlen(maps.v[i].name);

		if (n > 10 && !strcmp(maps.v[i].name + n - 10, "/libjvm.so") && !maps.v[i].offset)
			m = &maps.v[i];
	}
	ck_assert_msg(m, "no libjvm.so in the maps of %d", vm->pid);
	ck_assert_int_eq(pk_map_files_path(path, sizeof(path), "/proc", vm->pid, m->start, m->end), 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	elf = eh_elf_begin(fd);
	ck_assert_ptr_nonnull(elf);
	ck_assert_int_eq(pk_hotspot_elf(elf, syms), 0);
	ck_assert_int_eq(pk_hotspot_bias(elf, m->start, m->offset, bias), 0);
	elf_end(elf);
	close(fd);
	pk_maps_free(&maps);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* What the agent printed: one entry per line it gave. */
struct sa_line {
	char kind;		/* 't' type, 'f' field, 'i' int, 'l' long, 'g' flag */
	char *a, *b;		/* type/constant name, member name */
	bool is_static;
	__u64 value;
};

struct sa {
	char *text;
	struct sa_line *v;
	size_t n;
	__u64 structs_addr;	/* findsym gHotSpotVMStructs */
};

/* The next token of *P: a word, or a "quoted string" (without its
 * quotes); NUL-ended in place. NULL at the end of the line. */
static char *token(char **p)
{
	char *s = *p, *end;

	while (*s == ' ')
		s++;
	if (!*s)
		return NULL;
	if (*s == '"') {
		s++;
		end = strchr(s, '"');
	} else {
		end = s + strcspn(s, " ");
	}
	if (!end)
		end = s + strlen(s);
	*p = *end ? end + 1 : end;
	*end = 0;
	return s;
}

static __u64 number(const char *s)
{
	return (__u64)strtoll(s, NULL, 0);
}

static void sa_parse_line(struct sa *sa, char *l)
{
	char *tok[8] = { 0 }, *p = l;
	size_t n = 0;
	struct sa_line x = { 0 };

	while (!strncmp(p, "hsdb> ", 6))
		p += 6;
	if (!strncmp(p, "0x", 2) && strstr(p, "libjvm.so + 0x")) {
		sa->structs_addr = number(p);
		return;
	}
	while (n < 8 && (tok[n] = token(&p)))
		n++;
	if (n == 7 && !strcmp(tok[0], "type"))
		x = (struct sa_line){ 't', tok[1], NULL, false, number(tok[6]) };
	else if (n == 7 && !strcmp(tok[0], "field"))
		x = (struct sa_line){ 'f', tok[1], tok[2], !strcmp(tok[4], "true"),
				      !strcmp(tok[4], "true") ? number(tok[6]) : number(tok[5]) };
	else if (n == 3 && !strcmp(tok[0], "intConstant"))
		x = (struct sa_line){ 'i', tok[1], NULL, false, number(tok[2]) };
	else if (n == 3 && !strcmp(tok[0], "longConstant"))
		x = (struct sa_line){ 'l', tok[1], NULL, false, number(tok[2]) };
	else if (n == 4 && !strcmp(tok[1], "="))	/* flags: NAME = VALUE ORIGIN */
		x = (struct sa_line){ 'g', tok[0], NULL, false,
				      !strcmp(tok[2], "true") ? 1 : number(tok[2]) };
	else
		return;
	sa->v = pk_test_grow(sa->v, sa->n, sizeof(*sa->v));
	ck_assert_ptr_nonnull(sa->v);
	sa->v[sa->n++] = x;
}

/* jhsdb clhsdb of J on VM, its answers parsed into *SA. */
static void sa_run(const struct jdk *j, const struct pk_jvm *vm, struct sa *sa)
{
	static const char cmds[] = "vmstructsdump\nfield CodeCache\nintConstant\nlongConstant\n"
				   "findsym gHotSpotVMStructs\nflags CodeCacheSegmentSize\n"
				   "flags ReservedCodeCacheSize\nflags SegmentedCodeCache\n";
	char dir[] = "/tmp/pk-hotspot-XXXXXX", cmdfile[64], jhsdb[512], pid[16], nspid[16];
	char *err = NULL, *save = NULL;
	FILE *f;
	int st;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(cmdfile, sizeof(cmdfile), "%s/cmds", dir);
	f = fopen(cmdfile, "w");
	ck_assert_ptr_nonnull(f);
	fputs(cmds, f);
	fclose(f);
	snprintf(jhsdb, sizeof(jhsdb), "%s/bin/jhsdb", j->home);
	snprintf(pid, sizeof(pid), "%d", vm->pid);
	snprintf(nspid, sizeof(nspid), "%d", vm->nspid);
	memset(sa, 0, sizeof(*sa));
	/* sh: the commands on the agent's stdin */
	if (!j->root)
		st = pk_test_run((char *[]){ "/bin/sh", "-c", "exec \"$@\" < \"$0\"", cmdfile, jhsdb,
					     "clhsdb", "--pid", pid, NULL },
				 &sa->text, &err);
	else
		st = pk_test_run((char *[]){ "/bin/sh", "-c", "exec \"$@\" < \"$0\"", cmdfile,
					     "nsenter", "-t", pid, "-m", "-p", "-r", "-w", jhsdb,
					     "clhsdb", "--pid", nspid, NULL },
				 &sa->text, &err);
	unlink(cmdfile);
	rmdir(dir);
	ck_assert_msg(st == 0, "jhsdb exited %#x: %s", st, err);
	free(err);
	for (char *l = strtok_r(sa->text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		sa_parse_line(sa, l);
}

static void sa_free(struct sa *sa)
{
	free(sa->v);
	free(sa->text);
}

static const struct sa_line *sa_find(const struct sa *sa, char kind, const char *a,
				     const char *b)
{
	for (size_t i = 0; i < sa->n; i++)
		if (sa->v[i].kind == kind && !strcmp(sa->v[i].a, a) &&
		    (!b || !strcmp(sa->v[i].b, b)))
			return &sa->v[i];
	return NULL;
}

/* ENTRIES of KIND each the agent's, value and all: their count. */
static size_t check_all(const struct sa *sa, char kind, const struct pk_hotspot_entry *v,
			size_t n, int version)
{
	size_t checked = 0;

	for (size_t i = 0; i < n; i++) {
		const struct sa_line *l;

		/* the agent dumps members, and statics of CodeCache only */
		if (kind == 'f' && v[i].is_static && strcmp(v[i].type, "CodeCache"))
			continue;
		l = sa_find(sa, kind, v[i].type, v[i].field);
		ck_assert_msg(l, "JDK %d: the agent has no %c %s %s", version, kind, v[i].type,
			      v[i].field ? v[i].field : "");
		/* the agent prints a type of no size as -1 */
		if (kind == 't' && !v[i].value && l->value == (__u64)-1)
			continue;
		ck_assert_msg(l->value == v[i].value, "JDK %d: %s %s: %llu read, the agent %llu",
			      version, v[i].type, v[i].field ? v[i].field : "",
			      (unsigned long long)v[i].value, (unsigned long long)l->value);
		checked++;
	}
	return checked;
}

#define AT(m)	offsetof(struct pk_hotspot_vm, m)

/* A dozen and more of what the walk needs, under names all three JDKs
 * give them, against the agent. */
static const struct {
	char kind;
	const char *a, *b;
	size_t at;
} named[] = {
	{ 'f', "CodeCache", "_heaps", AT(codecache_heaps) },
	{ 'f', "CodeCache", "_low_bound", AT(codecache_low_bound) },
	{ 'f', "CodeCache", "_high_bound", AT(codecache_high_bound) },
	{ 'f', "CodeHeap", "_memory", AT(codeheap_memory) },
	{ 'f', "CodeHeap", "_segmap", AT(codeheap_segmap) },
	{ 'f', "CodeHeap", "_log2_segment_size", AT(codeheap_log2_segment_size) },
	{ 'f', "VirtualSpace", "_low", AT(vspace_low) },
	{ 'f', "VirtualSpace", "_high", AT(vspace_high) },
	{ 'f', "CodeBlob", "_name", AT(codeblob_name) },
	{ 'f', "CodeBlob", "_frame_size", AT(codeblob_frame_size) },
	{ 'f', "CodeBlob", "_frame_complete_offset", AT(codeblob_frame_complete_offset) },
	{ 'f', "nmethod", "_compile_id", AT(nmethod_compile_id) },
	{ 'f', "nmethod", "_orig_pc_offset", AT(nmethod_orig_pc_offset) },
	{ 'f', "Method", "_constMethod", AT(method_const_method) },
	{ 'f', "ConstMethod", "_constants", AT(constmethod_constants) },
	{ 'f', "ConstMethod", "_code_size", AT(constmethod_code_size) },
	{ 'f', "ConstMethod", "_name_index", AT(constmethod_name_index) },
	{ 'f', "ConstMethod", "_signature_index", AT(constmethod_signature_index) },
	{ 'f', "ConstantPool", "_pool_holder", AT(cpool_pool_holder) },
	{ 'f', "Klass", "_name", AT(klass_name) },
	{ 'f', "Symbol", "_length", AT(symbol_length) },
	{ 'f', "Symbol", "_body", AT(symbol_body) },
	{ 't', "CodeBlob", NULL, AT(codeblob_size) },
	{ 't', "nmethod", NULL, AT(nmethod_size) },
	{ 't', "HeapBlock", NULL, AT(heapblock_size) },
	{ 't', "ConstMethod", NULL, AT(constmethod_size) },
	{ 't', "ConstantPool", NULL, AT(cpool_size) },
	{ 't', "CodeHeap", NULL, AT(codeheap_size) },
	{ 'i', "frame::interpreter_frame_sender_sp_offset", NULL, AT(frame_interp_sender_sp) },
	{ 'i', "frame::interpreter_frame_last_sp_offset", NULL, AT(frame_interp_last_sp) },
};

/* WIDTH bytes at ADDR in PID's memory. */
static __u64 peek(pid_t pid, __u64 addr, size_t width)
{
	__u64 v = 0;

	ck_assert_int_eq(pk_hotspot_read_pid(&pid, addr, &v, width), (long)width);
	return v;
}

static __u64 flag(const struct sa *sa, const char *name)
{
	const struct sa_line *l = sa_find(sa, 'g', name, NULL);

	ck_assert_msg(l, "the agent gave no flag %s", name);
	return l->value;
}

/* The offsets at work in the JVM's memory, as the walk will use them: the
 * code cache's bounds span ReservedCodeCacheSize, its heaps (3 with
 * SegmentedCodeCache, else 1) share that space out between them, each
 * with a segment map and CodeCacheSegmentSize segments, the flags as the
 * agent reads them. */
static void check_code_cache(const struct pk_hotspot_vm *vm, pid_t pid, const struct sa *sa,
			     int version)
{
	__u64 low = peek(pid, vm->codecache_low_bound, 8);
	__u64 high = peek(pid, vm->codecache_high_bound, 8);
	__u64 heaps = peek(pid, vm->codecache_heaps, 8), data, spanned = 0;
	int n = (int)peek(pid, heaps + vm->garray_len, 4);

	ck_assert_uint_eq(high - low, flag(sa, "ReservedCodeCacheSize"));
	ck_assert_int_eq(n, flag(sa, "SegmentedCodeCache") ? 3 : 1);
	data = peek(pid, heaps + vm->garray_data, 8);
	for (int i = 0; i < n; i++) {
		__u64 h = peek(pid, data + 8 * i, 8), mem = h + vm->codeheap_memory;
		__u64 lo = peek(pid, mem + vm->vspace_low_boundary, 8);
		__u64 hi = peek(pid, mem + vm->vspace_high_boundary, 8);
		__u64 seg = peek(pid, h + vm->codeheap_log2_segment_size, 4);

		ck_assert_msg(low <= lo && lo < hi && hi <= high, "JDK %d: heap %d [%#llx, %#llx) "
			      "out of the code cache [%#llx, %#llx)", version, i,
			      (unsigned long long)lo, (unsigned long long)hi,
			      (unsigned long long)low, (unsigned long long)high);
		ck_assert_uint_lt(seg, 32);
		ck_assert_uint_eq(1ull << seg, flag(sa, "CodeCacheSegmentSize"));
		ck_assert_uint_ne(peek(pid, h + vm->codeheap_segmap + vm->vspace_low, 8), 0);
		spanned += hi - lo;
	}
	ck_assert_uint_eq(spanned, high - low);
	fprintf(stderr, "hotspot_e2e: JDK %d: code cache [%#llx, %#llx), %d heaps, %llu-byte "
		"segments\n", version, (unsigned long long)low, (unsigned long long)high, n,
		(unsigned long long)flag(sa, "CodeCacheSegmentSize"));
}

START_TEST(test_tables_vs_agent)
{
	const struct jdk *j = &jdks[_i];
	struct pk_hotspot_syms syms;
	struct pk_hotspot_tables t;
	struct pk_hotspot_vm vm;
	struct pk_jvm jvm;
	struct sa sa;
	char err[PK_ERR_LEN] = "", missing[4096];
	double best = 1e9, t0;
	size_t nf, nt, ni, nl;
	__u64 bias;

	jvm_start(j, &jvm);
	jvm_syms(&jvm, &syms, &bias);
	/* the reader's cost: the best of 5 reads of the whole tables */
	for (int k = 0; k < 5; k++) {
		t0 = now_ms();
		ck_assert_msg(pk_hotspot_tables_read(&syms, bias, pk_hotspot_read_pid, &jvm.pid, &t,
						     err) == 0, "JDK %d: %s", j->version, err);
		if (now_ms() - t0 < best)
			best = now_ms() - t0;
		if (k < 4)
			pk_hotspot_tables_free(&t);
	}
	ck_assert_msg(pk_hotspot_vm_extract(&t, &vm, err) == 0, "JDK %d: %s", j->version, err);
	pk_hotspot_missing(&vm, missing, sizeof(missing));
	fprintf(stderr, "hotspot_e2e: JDK %d: %zu members, %zu types, %zu int and %zu long "
		"constants read in %.2f ms (%lu reads); lacks: %s\n", j->version, t.n_structs,
		t.n_types, t.n_ints, t.n_longs, best, t.reads, missing);
	ck_assert_str_eq(missing, j->missing);
	ck_assert_int_eq(vm.code_is_offset, j->code_is_offset);

	sa_run(j, &jvm, &sa);
	/* the load bias: where the agent finds the table's symbol */
	ck_assert_uint_eq(sa.structs_addr, syms.addr[PK_HS_STRUCTS] + bias);
	nf = check_all(&sa, 'f', t.structs, t.n_structs, j->version);
	nt = check_all(&sa, 't', t.types, t.n_types, j->version);
	ni = check_all(&sa, 'i', t.ints, t.n_ints, j->version);
	nl = check_all(&sa, 'l', t.longs, t.n_longs, j->version);
	fprintf(stderr, "hotspot_e2e: JDK %d: %zu members, %zu types, %zu constants equal the "
		"agent's\n", j->version, nf, nt, ni + nl);
	ck_assert_uint_gt(nf, 500);
	ck_assert_uint_gt(nt, 300);
	ck_assert_uint_gt(ni + nl, 300);
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		const struct sa_line *l = sa_find(&sa, named[i].kind, named[i].a, named[i].b);
		__u64 v;

		ck_assert_msg(l, "JDK %d: the agent has no %s %s", j->version, named[i].a,
			      named[i].b ? named[i].b : "");
		memcpy(&v, (char *)&vm + named[i].at, sizeof(v));
		ck_assert_msg(v == l->value, "JDK %d: %s %s: %llu, the agent %llu", j->version,
			      named[i].a, named[i].b ? named[i].b : "", (unsigned long long)v,
			      (unsigned long long)l->value);
	}
	check_code_cache(&vm, jvm.pid, &sa, j->version);
	sa_free(&sa);
	pk_hotspot_tables_free(&t);
	pk_jvm_stop(&jvm);
}
END_TEST

/* The executable mapping of libjvm.so in PID's maps. */
static struct pk_mapping jvm_exec_mapping(pid_t pid)
{
	struct pk_maps maps;
	struct pk_mapping m = { 0 };

	ck_assert_int_eq(pk_maps_read(NULL, pid, false, &maps), 0);
	for (size_t i = 0; i < maps.n && !m.start; i++) {
		size_t n = strlen(maps.v[i].name);

		if (n > 10 && !strcmp(maps.v[i].name + n - 10, "/libjvm.so") &&
		    (maps.v[i].perms & PK_MAP_X))
			m = maps.v[i];
	}
	pk_maps_free(&maps);
	ck_assert_msg(m.start, "no executable libjvm.so mapping in %d", (int)pid);
	m.name = NULL;
	return m;
}

/*
 * Whoever loads libjvm's table (here a store as probe-load's) reads the
 * JVM's tables from the process that maps it and puts the file in
 * hs_files, with PK_FILE_HOTSPOT in its unwind_files entry: the statics as
 * the file's vaddrs (plus the bias, the process's: the code cache's bounds
 * read through them span ReservedCodeCacheSize), the interpreter's codelets
 * inside the code cache, the offsets the agent gives, the interpreter
 * frame's slots of frame_x86.hpp. A file that is no HotSpot gets none.
 */
START_TEST(test_store_hs_files)
{
	const struct jdk *j = &jdks[_i];
	struct pk_unwind_alloc caps = { .max_bytes = 256 << 20, .max_tables = 16 };
	char pins[] = "/tmp/pk-pins-XXXXXX", cache[] = "/tmp/pk-cache-XXXXXX";
	char path[2][4200], err[PK_ERR_LEN] = "";
	char *argv[] = { "rm", "-rf", cache, NULL };
	struct pk_unwind_store_opts opts = { .cache_dir = cache, .jobs = 1, .prog = "test" };
	struct pk_unwind_file files[2];
	struct pk_unwind_store *s;
	struct pk_unwind_fds fds;
	struct pk_hotspot_syms syms;
	struct pk_hotspot_tables t;
	struct pk_hotspot_vm vm;
	struct pk_hs_file hs;
	struct pk_file_info fi;
	struct pk_mapping m;
	struct pk_jvm jvm;
	struct stat st;
	__u64 bias, low, high, stubs;
	int limit;

	ck_assert_ptr_nonnull(mkdtemp(pins));
	ck_assert_ptr_nonnull(mkdtemp(cache));
	jvm_start(j, &jvm);
	jvm_syms(&jvm, &syms, &bias);
	ck_assert_int_eq(pk_hotspot_tables_read(&syms, bias, pk_hotspot_read_pid, &jvm.pid, &t,
						err), 0);
	ck_assert_int_eq(pk_hotspot_vm_extract(&t, &vm, err), 0);
	pk_hotspot_tables_free(&t);

	m = jvm_exec_mapping(jvm.pid);
	ck_assert_int_eq(pk_map_files_path(path[0], sizeof(path[0]), "/proc", jvm.pid, m.start,
					   m.end), 0);
	files[0] = (struct pk_unwind_file){
		.path = path[0], .pid = jvm.pid, .vm_start = m.start,
		.key = { pk_kernel_dev(m.dev_major, m.dev_minor), m.inode },
	};
	/* a file that is not a HotSpot, "mapped" by the same process */
	snprintf(path[1], sizeof(path[1]), "/bin/true");
	ck_assert_int_eq(stat(path[1], &st), 0);
	files[1] = (struct pk_unwind_file){
		.path = path[1], .pid = jvm.pid,
		.key = { pk_kernel_dev(major(st.st_dev), minor(st.st_dev)), st.st_ino },
	};
	ck_assert_int_eq(pk_unwind_maps_create(&caps, 64, &fds), 0);
	ck_assert_int_eq(pk_unwind_store_create(&fds, &caps, pins, &opts, &s, err), 0);
	ck_assert_msg(pk_unwind_store_add(s, files, 2, NULL, err) == 0, "%s", err);

	ck_assert_int_eq(bpf_map_lookup_elem(fds.files, &files[0].key, &fi), 0);
	ck_assert_uint_eq(fi.flags, PK_FILE_HOTSPOT);
	ck_assert_int_eq(bpf_map_lookup_elem(fds.hs, &files[0].key, &hs), 0);
	ck_assert_int_eq(bpf_map_lookup_elem(fds.files, &files[1].key, &fi), 0);
	ck_assert_uint_eq(fi.flags, 0);
	ck_assert_int_eq(bpf_map_lookup_elem(fds.hs, &files[1].key, &hs), -ENOENT);
	ck_assert_int_eq(bpf_map_lookup_elem(fds.hs, &files[0].key, &hs), 0);

	/* the statics, as the file's vaddrs, at work in the process */
	ck_assert_uint_eq(hs.codecache_low_bound + bias, vm.codecache_low_bound);
	ck_assert_uint_eq(hs.codecache_heaps + bias, vm.codecache_heaps);
	low = peek(jvm.pid, hs.codecache_low_bound + bias, 8);
	high = peek(jvm.pid, hs.codecache_high_bound + bias, 8);
	ck_assert_uint_gt(high, low);
	stubs = peek(jvm.pid, peek(jvm.pid, hs.interp_code + bias, 8) + hs.stubqueue_buffer, 8);
	limit = (int)peek(jvm.pid, peek(jvm.pid, hs.interp_code + bias, 8) +
			  hs.stubqueue_buffer_limit, 4);
	ck_assert_msg(low <= stubs && limit > 0 && stubs + limit <= high,
		      "JDK %d: the interpreter [%#llx, +%d) out of the code cache [%#llx, %#llx)",
		      j->version, (unsigned long long)stubs, limit, (unsigned long long)low,
		      (unsigned long long)high);
	/* offsets: the tables' (which test_tables_vs_agent checks) */
	ck_assert_uint_eq(hs.codeblob_frame_size, vm.codeblob_frame_size);
	ck_assert_uint_eq(hs.codeblob_frame_complete_offset, vm.codeblob_frame_complete_offset);
	ck_assert_uint_eq(hs.nmethod_method, vm.nmethod_method);
	ck_assert_uint_eq(hs.nmethod_compile_id, vm.nmethod_compile_id);
	ck_assert_uint_eq(hs.heapblock_size, vm.heapblock_size);
	ck_assert_uint_eq(hs.klass_name, vm.klass_name);
	ck_assert_uint_eq(!!(hs.flags & PK_HS_CODE_OFFSET), j->code_is_offset);
	/* frame_x86.hpp: sender sp -1, last sp -2, Method* -3, bcp -8 */
	ck_assert_int_eq(hs.frame_interp_sender_sp, -1);
	ck_assert_int_eq(hs.frame_interp_last_sp, -2);
	ck_assert_int_eq(hs.frame_interp_method, -3);
	ck_assert_int_eq(hs.frame_interp_bcp, -8);
	/* an int16_t from JDK 23 on */
	ck_assert_uint_eq(hs.frame_complete_width, j->version >= 23 ? 2 : 4);
	fprintf(stderr, "hotspot_e2e: JDK %d: hs_files: code cache [%#llx, %#llx), interpreter "
		"[%#llx, +%d)\n", j->version, (unsigned long long)low, (unsigned long long)high,
		(unsigned long long)stubs, limit);

	pk_unwind_store_free(s);
	pk_unwind_fds_close(&fds);
	pk_jvm_stop(&jvm);
	ck_assert_int_eq(rmdir(pins), 0);
	ck_assert_int_eq(pk_test_run(argv, NULL, NULL), 0);
}
END_TEST

Suite *suite_hotspot_e2e(void)
{
	Suite *s = suite_create("hotspot_e2e");
	TCase *tc;

	if (!pk_test_need_root(s, "the agent and the reader attach to a JVM"))
		return s;
	tc = tcase_create("agent");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_tables_vs_agent, 0, NJDKS);
	suite_add_tcase(s, tc);
	tc = tcase_create("hs_files");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_store_hs_files, 0, NJDKS);
	suite_add_tcase(s, tc);
	return s;
}
