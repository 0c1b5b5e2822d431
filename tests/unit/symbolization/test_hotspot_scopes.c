// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The scopes of a compiled Java method's PC (symbolization/hotspot_scopes.h):
 * an nmethod whose code inlines mid into top and leaf into mid, its
 * PcDescs, scopes and metadata made as HotSpot's DebugInformationRecorder
 * lays them out (the sender's scope first, offset 0 the null scope), in
 * both codings of the ints; the PcDesc lookup (exact at a return address,
 * the next one elsewhere); and every way the bytes may not hold (each cut,
 * a loop, an index past the table, another outermost method, more scopes
 * than asked, PcDescs out of order): never a chain but the whole one.
 */
#include <stdlib.h>
#include <string.h>

#include "bpf/probekit.h"
#include "harness/hs_u5.h"
#include "symbolization/hotspot_scopes.h"
#include "test_util.h"

#define TOP	0x7f0000001000ull
#define MID	0x7f0000002000ull
#define LEAF	0x7f0000003000ull
#define KLASS	0x7f0000004000ull
#define CODE	0x7f1000000100ull

/* JDK 17's PcDesc: pc offset, scope offset, object offset, flags. */
#define PCD_SIZE	16

struct nm {
	__u8 pcs[8 * PCD_SIZE], scopes[64], meta[4 * 8];
	size_t npcs, nscopes;
	__u32 s_top, s_mid, s_leaf, s_bad;
	struct pk_hs_nmethod_desc d;
};

static void put_pcdesc(struct nm *nm, __s32 pc, __u32 scope)
{
	__u8 *p = nm->pcs + nm->npcs++ * PCD_SIZE;

	memset(p, 0, PCD_SIZE);
	memcpy(p, &pc, 4);
	memcpy(p + 4, &scope, 4);
}

/* A scope at the stream's end: its offset. */
static __u32 put_scope(struct nm *nm, __u32 sender, __u32 index, __s32 bci, unsigned int x)
{
	__u32 at = nm->nscopes;

	nm->nscopes += put_u5(nm->scopes + nm->nscopes, sender, x);
	nm->nscopes += put_u5(nm->scopes + nm->nscopes, index, x);
	nm->nscopes += put_u5(nm->scopes + nm->nscopes, bci + 1, x);
	return at;
}

/* top (bci 8 calls mid, 300 in its own code) <- mid (bci 3 calls leaf)
 * <- leaf (bci 58): metadata [top, KLASS, mid, leaf]. PcDescs: -1, 0x10
 * top@300, 0x20 leaf@58, 0x30 mid@3. */
static void make(struct nm *nm, unsigned int x)
{
	const __u64 meta[] = { TOP, KLASS, MID, LEAF };

	memset(nm, 0, sizeof(*nm));
	nm->scopes[nm->nscopes++] = x;	/* offset 0: the null scope */
	nm->s_top = put_scope(nm, 0, 1, 300, x);
	__u32 top8 = put_scope(nm, 0, 1, 8, x);
	nm->s_mid = put_scope(nm, top8, 3, 3, x);
	nm->s_leaf = put_scope(nm, nm->s_mid, 4, 58, x);
	memcpy(nm->meta, meta, sizeof(meta));
	put_pcdesc(nm, -1, 0);
	put_pcdesc(nm, 0x10, nm->s_top);
	put_pcdesc(nm, 0x20, nm->s_leaf);
	put_pcdesc(nm, 0x30, nm->s_mid);
	nm->d = (struct pk_hs_nmethod_desc){
		.pid = 1, .flags = x ? PK_HS_NM_NO_ZERO : 0, .compile_id = 77, .code_size = 0x100,
		.nmethod = CODE - 0x100, .method = TOP, .code_begin = CODE,
		.pcs = nm->pcs, .pcs_len = nm->npcs * PCD_SIZE,
		.scopes = nm->scopes, .scopes_len = nm->nscopes,
		.metadata = nm->meta, .metadata_len = sizeof(meta),
		.pcdesc_size = PCD_SIZE, .pcdesc_pc_offset = 0, .pcdesc_scope_decode_offset = 4,
	};
}

/* pk_hs_scopes_at() over copies of D's parts of their exact sizes (ASan
 * sees a read past them). */
static size_t scopes_at(const struct pk_hs_nmethod_desc *d, __u64 pc, struct pk_hs_scope *out,
			size_t max)
{
	struct pk_hs_nmethod_desc c = *d;
	__u8 *pcs = malloc(d->pcs_len + 1), *sc = malloc(d->scopes_len + 1),
	     *meta = malloc(d->metadata_len + 1);
	size_t n;

	ck_assert(pcs && sc && meta);
	memcpy(pcs, d->pcs, d->pcs_len);
	memcpy(sc, d->scopes, d->scopes_len);
	memcpy(meta, d->metadata, d->metadata_len);
	c.pcs = pcs;
	c.scopes = sc;
	c.metadata = meta;
	n = pk_hs_scopes_at(&c, pc, out, max);
	free(pcs);
	free(sc);
	free(meta);
	return n;
}

static void assert_chain(const struct pk_hs_scope *s, size_t n)
{
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(s[0].method, LEAF);
	ck_assert_int_eq(s[0].bci, 58);
	ck_assert_uint_eq(s[1].method, MID);
	ck_assert_int_eq(s[1].bci, 3);
	ck_assert_uint_eq(s[2].method, TOP);
	ck_assert_int_eq(s[2].bci, 8);
}

START_TEST(test_lookup)
{
	struct pk_hs_scope s[PK_HS_MAX_SCOPES];
	struct nm nm;
	size_t n;

	make(&nm, _i);
	/* a return address: its own PcDesc */
	assert_chain(s, scopes_at(&nm.d, CODE + 0x20, s, PK_HS_MAX_SCOPES));
	/* between two: the next one's, as HotSpot's pc_desc_near */
	assert_chain(s, scopes_at(&nm.d, CODE + 0x11, s, PK_HS_MAX_SCOPES));
	n = scopes_at(&nm.d, CODE + 0x10, s, PK_HS_MAX_SCOPES);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(s[0].method, TOP);
	ck_assert_int_eq(s[0].bci, 300);	/* two bytes in either coding */
	n = scopes_at(&nm.d, CODE + 0x30, s, PK_HS_MAX_SCOPES);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(s[0].method, MID);
	ck_assert_uint_eq(s[1].method, TOP);
	/* past the last PcDesc, before and past the code: none */
	ck_assert_uint_eq(scopes_at(&nm.d, CODE + 0x31, s, PK_HS_MAX_SCOPES), 0);
	ck_assert_uint_eq(scopes_at(&nm.d, CODE - 1, s, PK_HS_MAX_SCOPES), 0);
	ck_assert_uint_eq(scopes_at(&nm.d, CODE + 0x100, s, PK_HS_MAX_SCOPES), 0);
	/* fewer scopes asked for than there are: none, not a part */
	ck_assert_uint_eq(scopes_at(&nm.d, CODE + 0x20, s, 2), 0);
	ck_assert_uint_eq(scopes_at(&nm.d, CODE + 0x20, s, 3), 3);
	/* read in the other coding, the same bytes give no chain that
	 * could pass for this one */
	nm.d.flags ^= PK_HS_NM_NO_ZERO;
	n = scopes_at(&nm.d, CODE + 0x20, s, PK_HS_MAX_SCOPES);
	ck_assert(n == 0 || s[0].method != LEAF || s[0].bci != 58);
}
END_TEST

/* Every cut of each part gives the whole chain or none. */
START_TEST(test_cuts)
{
	struct pk_hs_scope s[PK_HS_MAX_SCOPES];
	struct nm nm;
	size_t n;

	make(&nm, _i);
	for (size_t len = 0; len <= nm.npcs * PCD_SIZE; len++) {
		nm.d.pcs_len = len;
		n = scopes_at(&nm.d, CODE + 0x20, s, PK_HS_MAX_SCOPES);
		if (len >= 3 * PCD_SIZE)
			assert_chain(s, n);
		else
			ck_assert_uint_eq(n, 0);
	}
	make(&nm, _i);
	for (size_t len = 0; len <= nm.nscopes; len++) {
		nm.d.scopes_len = len;
		n = scopes_at(&nm.d, CODE + 0x20, s, PK_HS_MAX_SCOPES);
		if (len == nm.nscopes)
			assert_chain(s, n);
		else
			ck_assert_uint_eq(n, 0);
	}
	make(&nm, _i);
	for (size_t len = 0; len <= sizeof(nm.meta); len++) {
		nm.d.metadata_len = len;
		n = scopes_at(&nm.d, CODE + 0x20, s, PK_HS_MAX_SCOPES);
		if (len == sizeof(nm.meta))
			assert_chain(s, n);
		else
			ck_assert_uint_eq(n, 0);
	}
}
END_TEST

/* Bytes that do not hold: no chain. */
START_TEST(test_bad)
{
	struct pk_hs_scope s[PK_HS_MAX_SCOPES];
	struct nm nm;
	__s32 pc;
	__u32 at;

	/* another method compiled: the chain is not this nmethod's */
	make(&nm, _i);
	nm.d.method = MID;
	ck_assert_uint_eq(scopes_at(&nm.d, CODE + 0x20, s, PK_HS_MAX_SCOPES), 0);
	/* a scope that is its own sender */
	make(&nm, _i);
	at = put_scope(&nm, nm.nscopes, 1, 0, _i);
	nm.d.scopes_len = nm.nscopes;
	memcpy(nm.pcs + 2 * PCD_SIZE + 4, &at, 4);
	ck_assert_uint_eq(scopes_at(&nm.d, CODE + 0x20, s, PK_HS_MAX_SCOPES), 0);
	/* method indexes 0, to the Klass (a Method* the reader cannot tell
	 * from it: the chain still ends in top, so it holds), past the table */
	for (__u32 index = 0; index <= 5; index++) {
		size_t n;

		make(&nm, _i);
		at = put_scope(&nm, nm.s_mid, index, 1, _i);
		nm.d.scopes_len = nm.nscopes;
		memcpy(nm.pcs + 2 * PCD_SIZE + 4, &at, 4);
		n = scopes_at(&nm.d, CODE + 0x20, s, PK_HS_MAX_SCOPES);
		if (index >= 1 && index <= 4) {
			ck_assert_uint_eq(n, 3);
			ck_assert_uint_eq(s[0].method, ((const __u64[]){ TOP, KLASS, MID, LEAF })[index - 1]);
		} else {
			ck_assert_uint_eq(n, 0);
		}
	}
	/* a metadata entry 0 or past a Java frame's 47 bits */
	make(&nm, _i);
	memset(nm.meta + 3 * 8, 0, 8);
	ck_assert_uint_eq(scopes_at(&nm.d, CODE + 0x20, s, PK_HS_MAX_SCOPES), 0);
	make(&nm, _i);
	memset(nm.meta + 3 * 8 + 7, 0x80, 1);
	ck_assert_uint_eq(scopes_at(&nm.d, CODE + 0x20, s, PK_HS_MAX_SCOPES), 0);
	/* PcDescs out of order */
	make(&nm, _i);
	pc = 0x5;
	memcpy(nm.pcs + 3 * PCD_SIZE, &pc, 4);
	ck_assert_uint_eq(scopes_at(&nm.d, CODE + 0x21, s, PK_HS_MAX_SCOPES), 0);
	/* a PcDesc layout past its size; an empty one */
	make(&nm, _i);
	nm.d.pcdesc_scope_decode_offset = PCD_SIZE - 3;
	ck_assert_uint_eq(scopes_at(&nm.d, CODE + 0x20, s, PK_HS_MAX_SCOPES), 0);
	nm.d.pcdesc_size = 0;
	ck_assert_uint_eq(scopes_at(&nm.d, CODE + 0x20, s, PK_HS_MAX_SCOPES), 0);
}
END_TEST

Suite *suite_hotspot_scopes(void)
{
	Suite *s = suite_create("hotspot_scopes");
	TCase *tc = tcase_create("scopes");

	/* _i: the ints' coding, JDK 17's (0) and 21's (1) */
	tcase_add_loop_test(tc, test_lookup, 0, 2);
	tcase_add_loop_test(tc, test_cuts, 0, 2);
	tcase_add_loop_test(tc, test_bad, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
