// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * gopclntab_bench FULL STRIP [NADDR]: the reader's cost per address from a
 * Go binary's .gopclntab (STRIP, built -ldflags="-s -w") against the
 * symbol-table path and the DWARF path of the same program unstripped
 * (FULL): NADDR addresses (default 20000) spread evenly over .text, each
 * way RUNS times, the median in nanoseconds per address. Cold: the table,
 * the symbol table or the DWARF read on the way (a new reader's first
 * addresses); warm: the same addresses again. The addresses are the same
 * in both files: -s -w leaves the code where it was.
 */
#include <fcntl.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_time.h"
#include "symbolization/gopclntab.h"
#include "symbolization/symfile.h"

#define RUNS 5
#define MAX_FRAMES 32

/* .text's address and size. */
static int text_of(Elf *elf, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -1;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, out) &&
		    !strcmp(elf_strptr(elf, shstrndx, out->sh_name), ".text"))
			return 0;
	return -1;
}

static double median(double *v)
{
	return bench_median(v, RUNS);
}

/* One pass of the .gopclntab path over ADDRS; the frames found. */
static double go_pass(const struct pk_gopclntab *t, const __u64 *addrs, size_t n, int max,
		      size_t *frames)
{
	struct pk_srcline_frame fr[MAX_FRAMES];
	double t0 = bench_now();
	__u64 entry;

	*frames = 0;
	for (size_t i = 0; i < n; i++) {
		int k = pk_gopclntab_lookup(t, addrs[i], fr, max, &entry);

		*frames += k > 0 ? k : 0;
	}
	return bench_now() - t0;
}

/* FULL through the file cache: names from its symbol table, or (DWARF)
 * frames from its DWARF; cold and warm seconds. */
static void symfile_pass(const char *path, const __u64 *addrs, size_t n, bool dwarf,
			 double *cold, double *warm, size_t *named)
{
	struct pk_symfile_source src[2] = { { path, true }, { NULL } };
	struct pk_srcline_frame fr[MAX_FRAMES];
	struct pk_symfiles *files = pk_symfiles_new();
	struct pk_symfile *f;
	struct stat st;
	double t0;
	__u64 start;

	if (!files || stat(path, &st))
		exit(1);
	t0 = bench_now();
	f = pk_symfiles_add(files, st.st_dev, st.st_ino, path, src, NULL, 0);
	for (int pass = 0; pass < 2; pass++) {
		*named = 0;
		for (size_t i = 0; i < n; i++) {
			if (dwarf)
				*named += pk_symfile_srcline(f, addrs[i], fr, MAX_FRAMES) > 0;
			else
				*named += pk_symfile_symbol(f, addrs[i], &start) != NULL;
		}
		if (!pass) {
			*cold = bench_now() - t0;
			t0 = bench_now();
		}
	}
	*warm = bench_now() - t0;
	pk_symfiles_free(files);
}

int main(int argc, char **argv)
{
	double go_cold[RUNS], go_warm[RUNS], go_name[RUNS], sym_cold[RUNS], sym_warm[RUNS],
		dw_cold[RUNS], dw_warm[RUNS], open_ms[RUNS];
	size_t naddr = argc > 3 ? strtoul(argv[3], NULL, 0) : 20000, frames = 0, named = 0,
		dnamed = 0;
	char err[PK_ERR_LEN] = "";
	GElf_Shdr text;
	__u64 *addrs;
	int fd;
	Elf *elf;

	if (argc < 3 || !naddr) {
		fprintf(stderr, "usage: gopclntab_bench FULL STRIP [NADDR]\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	fd = open(argv[2], O_RDONLY);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	addrs = calloc(naddr, sizeof(*addrs));
	if (!elf || !addrs || text_of(elf, &text)) {
		fprintf(stderr, "gopclntab_bench: %s: no .text\n", argv[2]);
		return 1;
	}
	for (size_t i = 0; i < naddr; i++)
		addrs[i] = text.sh_addr + text.sh_size * i / naddr;
	for (int r = 0; r < RUNS; r++) {
		struct pk_gopclntab *t;
		double t0 = bench_now();
		size_t f1;

		if (pk_gopclntab_from_elf(elf, &t, err)) {
			fprintf(stderr, "gopclntab_bench: %s: %s\n", argv[2], err);
			return 1;
		}
		open_ms[r] = (bench_now() - t0) * 1e3;
		go_cold[r] = go_pass(t, addrs, naddr, MAX_FRAMES, &frames) + open_ms[r] / 1e3;
		go_warm[r] = go_pass(t, addrs, naddr, MAX_FRAMES, &frames);
		go_name[r] = go_pass(t, addrs, naddr, 1, &f1);
		pk_gopclntab_free(t);
		symfile_pass(argv[1], addrs, naddr, false, &sym_cold[r], &sym_warm[r], &named);
		symfile_pass(argv[1], addrs, naddr, true, &dw_cold[r], &dw_warm[r], &dnamed);
	}
	printf("%s: %zu addresses over .text, median of %d runs, ns per address\n",
	       argv[2], naddr, RUNS);
	printf("  .gopclntab (stripped): cold %.0f (table opened in %.2f ms), warm %.0f, "
	       "name and line only %.0f; %.2f frames per address\n",
	       median(go_cold) * 1e9 / naddr, median(open_ms), median(go_warm) * 1e9 / naddr,
	       median(go_name) * 1e9 / naddr, (double)frames / naddr);
	printf("  symbol table (unstripped): cold %.0f, warm %.0f; %zu named\n",
	       median(sym_cold) * 1e9 / naddr, median(sym_warm) * 1e9 / naddr, named);
	printf("  DWARF (unstripped): cold %.0f, warm %.0f; %zu with frames\n",
	       median(dw_cold) * 1e9 / naddr, median(dw_warm) * 1e9 / naddr, dnamed);
	elf_end(elf);
	close(fd);
	free(addrs);
	return 0;
}
