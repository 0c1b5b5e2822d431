/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Independent readers of a flame graph probe-read wrote (-f svg): libxml2's
 * xmllint (Debian's libxml2-utils), Python's XML parser
 * (tests/oracles/svg_check.py, which also checks that the frames nest and
 * are drawn where their counts say) and headless Chromium (Debian's
 * chromium), whose screenshot must show the graph.
 *
 * Every function returns 0; -ENOENT when the tool is not installed
 * (pk_test_oracle_missing() says what to do then); -EBADMSG when the file
 * is not what it should be (the tool's first line in ERR); -EIO or
 * -EPROTO when the tool failed otherwise.
 */
#ifndef PK_TEST_SVG_ORACLE_H
#define PK_TEST_SVG_ORACLE_H

#include "harness/oracles.h"

/* xmllint --noout: the file is well-formed XML. */
int pk_test_xmllint(const char *path, char err[PK_ORACLE_ERR_LEN]);

/* The frames of the SVG at PATH, "KIND R,G,B COUNT PATH" per frame but the
 * root "all", sorted (svg_check.py frames); *OUT malloc'ed. */
int pk_test_svg_frames(const char *path, char **out, char err[PK_ORACLE_ERR_LEN]);

/* A screenshot of SVG_PATH by headless Chromium, WIDTH x HEIGHT, into
 * PNG_PATH, and how many of its pixels are in the user frames' warm
 * palette (*WARM). */
int pk_test_svg_screenshot(const char *svg_path, const char *png_path, int width, int height,
			   unsigned long *warm, char err[PK_ORACLE_ERR_LEN]);

/* The DOM of SVG_PATH#FRAGMENT (NULL: none) after Chromium ran its script
 * (--dump-dom), in *OUT (malloc'ed). */
int pk_test_svg_dom(const char *svg_path, const char *fragment, char **out,
		    char err[PK_ORACLE_ERR_LEN]);

/*
 * Fail the test unless the SVG at PATH is well-formed XML (xmllint) whose
 * frames (svg_check.py) are FOLDED's (folded text of the same profile):
 * one per distinct path from a root, counting the lines through it, each
 * of its kind (kernel frames those folded suffixes "_[k]", roots at the
 * top) and coloured as its kind (user warm, kernel orange, inlined aqua).
 * The frames svg_check.py printed go to *FRAMES (malloc'ed; NULL: not
 * kept). 0, or -ENOENT when a tool is missing.
 */
int pk_test_svg_assert_folded(const char *path, const char *folded, char **frames);

#endif
