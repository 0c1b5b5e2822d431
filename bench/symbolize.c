// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * symbolize [-n N] [-a ADDRS] [-p LOCS] FILE: the symbolizer's (symbolizer.h)
 * CPU time over N distinct addresses of FILE's .text, spread evenly across
 * it, the way probe-read meets them: through a mapping the kernel reported
 * (pk_symbolizer_add_mapping) in a process that does not exist, so that
 * nothing is read from /proc and the file is found by its path and inode.
 * Used by bench/symbolize.sh, which runs eu-addr2line over the same
 * addresses (ADDRS) as the reference.
 *
 * Prints one line, "COLD_NS FIRST_NS FILE_NS CACHED_NS N NAMED LINES INLINED":
 *   COLD_NS    pk_symbolizer_new, the mapping, every address once, and
 *              pk_symbolizer_free: a fresh probe-read meeting FILE (its
 *              symbols and DWARF read on the way);
 *   FIRST_NS   of those, up to the first location: opening the file, its
 *              symbol table, the DWARF of the first address's unit;
 *   FILE_NS    every address again in a second process mapping the same
 *              file: the file's tables are built, each address is not;
 *   CACHED_NS  the second process's addresses once more: the (pid, addr)
 *              cache every later sample of an address hits;
 *   NAMED, LINES, INLINED: of the N cold locations, those with a function
 *              name, with a source line, with more than one frame.
 * Times are CLOCK_PROCESS_CPUTIME_ID (user + sys of this process).
 * ADDRS: the ELF addresses, one "0x..." a line (eu-addr2line's input).
 * LOCS: per address "0xADDR NFRAMES LINE" (LINE of the innermost frame,
 * 0 unknown), for bench/symbolize.sh to compare with eu-addr2line's.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "symbolization/symbolizer.h"

/* Above PID_MAX_LIMIT (4M): no process can have these pids. */
#define PID_COLD	(1u << 23)
#define PID_WARM	(PID_COLD + 1)
/* Where the made-up processes map a shared object (its load bias). */
#define DSO_BASE	0x7f1200000000ULL

struct exec_seg {
	__u64 vaddr, offset, memsz;
};

struct target {
	const char *path;
	__u64 dev, ino, bias;
	struct exec_seg *segs;	/* PT_LOAD with PF_X */
	size_t nsegs;
	__u64 text, text_size;	/* .text */
};

static __u64 cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* FILE's executable segments and .text, read once with libelf. */
static int read_target(struct target *t, const char *path)
{
	size_t phnum, shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	struct stat st;
	Elf *elf;
	int fd, err = -ENOEXEC;

	t->path = path;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	t->dev = st.st_dev;
	t->ino = st.st_ino;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &phnum) ||
	    elf_getshdrstrndx(elf, &shstrndx))
		goto out;
	/* A shared object (or PIE) goes where the made-up process put it; an
	 * executable at its link address. */
	t->bias = eh.e_type == ET_DYN ? DSO_BASE : 0;
	t->segs = calloc(phnum ? phnum : 1, sizeof(*t->segs));
	if (!t->segs) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			t->segs[t->nsegs++] = (struct exec_seg){ ph.p_vaddr, ph.p_offset, ph.p_memsz };
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".text") && sh.sh_type == SHT_PROGBITS) {
			t->text = sh.sh_addr;
			t->text_size = sh.sh_size;
		}
	}
	err = t->nsegs && t->text_size ? 0 : -ENOEXEC;
out:
	elf_end(elf);
	close(fd);
	return err;
}

/* PID maps FILE's executable segments as the kernel would have reported
 * them: page-aligned, at the file offsets of the program headers. */
static int map_target(struct pk_symbolizer *sym, const struct target *t, __u32 pid)
{
	long page = sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < t->nsegs; i++) {
		const struct exec_seg *s = &t->segs[i];
		__u64 start = (s->vaddr & ~(page - 1)) + t->bias;
		__u64 end = ((s->vaddr + s->memsz + page - 1) & ~(page - 1)) + t->bias;
		struct pk_kernel_mapping m = {
			.pid = pid, .start = start, .end = end,
			.pgoff = s->offset & ~(page - 1), .dev = t->dev, .ino = t->ino,
			.path = t->path,
		};
		int err = pk_symbolizer_add_mapping(sym, &m);

		if (err < 0)
			return err;
	}
	return 0;
}

/* One pass over ADDRS in PID; the cold pass keeps its locations. */
static int pass(struct pk_symbolizer *sym, const struct target *t, __u32 pid,
		const __u64 *addrs, size_t n, const struct pk_loc **keep)
{
	for (size_t i = 0; i < n; i++) {
		const struct pk_loc *loc = pk_symbolizer_user_loc(sym, pid, addrs[i] + t->bias,
								   false);

		if (!loc)
			return -ENOMEM;
		if (keep)
			keep[i] = loc;
	}
	return 0;
}

static int write_addrs(const char *path, const __u64 *addrs, size_t n)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "0x%llx\n", (unsigned long long)addrs[i]);
	return fclose(f) ? -errno : 0;
}

static int write_locs(const char *path, const __u64 *addrs, const struct pk_loc **locs,
		      size_t n)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "0x%llx %u %u\n", (unsigned long long)addrs[i], locs[i]->nframes,
			locs[i]->frames[0].line);
	return fclose(f) ? -errno : 0;
}

int main(int argc, char **argv)
{
	const char *addrs_out = NULL, *locs_out = NULL;
	size_t n = 20000, named = 0, lines = 0, inlined = 0;
	__u64 t0, tf, t1, t2, t3, t4, t5, *addrs;
	struct pk_symbolizer_stats st;
	const struct pk_loc **locs;
	struct pk_symbolizer *sym;
	struct target t = {};
	int opt, err;

	while ((opt = getopt(argc, argv, "n:a:p:")) != -1) {
		if (opt == 'n')
			n = strtoul(optarg, NULL, 0);
		else if (opt == 'a')
			addrs_out = optarg;
		else if (opt == 'p')
			locs_out = optarg;
		else
			return 2;
	}
	if (optind != argc - 1 || n == 0) {
		fprintf(stderr, "usage: symbolize [-n N] [-a ADDRS] [-p LOCS] FILE\n");
		return 2;
	}
	err = read_target(&t, argv[optind]);
	if (err) {
		fprintf(stderr, "symbolize: %s: %s\n", argv[optind],
			err == -ENOEXEC ? "not an ELF file with .text in an executable segment"
					: strerror(-err));
		return 1;
	}
	if (n > t.text_size)
		n = t.text_size;
	addrs = calloc(n, sizeof(*addrs));
	locs = calloc(n, sizeof(*locs));
	if (!addrs || !locs)
		return 1;
	/* Distinct, evenly spread: each lands in a function as samples would,
	 * hot or not, and no address is a repeat the caches would answer. */
	for (size_t i = 0; i < n; i++)
		addrs[i] = t.text + (__u64)((unsigned __int128)i * t.text_size / n);

	t0 = cpu_ns();
	sym = pk_symbolizer_new(NULL);
	if (!sym || map_target(sym, &t, PID_COLD) || pass(sym, &t, PID_COLD, addrs, 1, locs))
		goto oom;
	tf = cpu_ns();
	if (pass(sym, &t, PID_COLD, addrs + 1, n - 1, locs + 1))
		goto oom;
	t1 = cpu_ns();
	if (map_target(sym, &t, PID_WARM) || pass(sym, &t, PID_WARM, addrs, n, NULL))
		goto oom;
	t2 = cpu_ns();
	if (pass(sym, &t, PID_WARM, addrs, n, NULL))
		goto oom;
	t3 = cpu_ns();

	for (size_t i = 0; i < n; i++) {
		const struct pk_frame *outer = &locs[i]->frames[locs[i]->nframes - 1];

		named += outer->name[0] != '[';
		lines += locs[i]->frames[0].line != 0;
		inlined += locs[i]->nframes > 1;
	}
	pk_symbolizer_stats(sym, &st);
	/* What is measured is the file read through the kernel's mapping,
	 * never a /proc read (there is no such process). */
	if (st.modules != 1 || st.maps_reads) {
		fprintf(stderr, "symbolize: %s: not loaded through its mapping (%llu files, "
			"%llu /proc reads)\n", t.path, (unsigned long long)st.modules,
			(unsigned long long)st.maps_reads);
		return 1;
	}
	if (addrs_out && (err = write_addrs(addrs_out, addrs, n))) {
		fprintf(stderr, "symbolize: %s: %s\n", addrs_out, strerror(-err));
		return 1;
	}
	if (locs_out && (err = write_locs(locs_out, addrs, locs, n))) {
		fprintf(stderr, "symbolize: %s: %s\n", locs_out, strerror(-err));
		return 1;
	}
	t4 = cpu_ns();
	pk_symbolizer_free(sym);
	t5 = cpu_ns();
	printf("%llu %llu %llu %llu %zu %zu %zu %zu\n", (unsigned long long)(t1 - t0 + t5 - t4),
	       (unsigned long long)(tf - t0), (unsigned long long)(t2 - t1),
	       (unsigned long long)(t3 - t2), n, named, lines, inlined);
	free(addrs);
	free(locs);
	free(t.segs);
	return 0;
oom:
	fprintf(stderr, "symbolize: %s: out of memory\n", t.path);
	return 1;
}
