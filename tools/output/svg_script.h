/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The script of the flame graph svg.c draws, run by the browser that opens
 * the file: a click on a frame zooms into it (its callees spread over the
 * width, its callers faded below), "Reset Zoom" or Escape goes back,
 * "Search" or Ctrl-F colours the frames whose name matches a regular
 * expression and says what share of the samples they hold, and the line
 * under the graph names the frame under the pointer with its count and
 * share. It reads what it needs from the document (svg.h): the frames'
 * data-d, data-x, data-n and titles, and the geometry on <g id="frames">.
 */
#ifndef PK_SVG_SCRIPT_H
#define PK_SVG_SCRIPT_H

extern const char pk_svg_script[];

#endif
