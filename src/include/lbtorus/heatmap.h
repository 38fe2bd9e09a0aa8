/* heatmap.h — pictures of a 2-D (or 1-D) grid's loads: colour heat maps as
 * PNG (libpng) and as frames of an animated GIF, so one can watch the
 * liquid level out. Axis 0 runs down the picture, the last axis across. */
#ifndef LBTORUS_HEATMAP_H
#define LBTORUS_HEATMAP_H

#include <stdint.h>

#include "lbtorus/grid.h"

/* Colour scale: load 0 is black (an idle PE); loads 1..hi run through a
 * viridis-like ramp (dark blue -> green -> yellow), palette indices
 * 1..LBT_HEAT_TOP; loads >= hi are the top colour. The last two palette
 * entries are the frame's white background and dark ink. Each PE is a
 * zoom x zoom square of pixels. */
enum { LBT_HEAT_TOP = 253, LBT_HEAT_WHITE = 254, LBT_HEAT_INK = 255 };
typedef struct {
	int32_t hi;  /* >= 1 */
	int zoom;    /* >= 1 */
} lbt_heat;

/* hi = max(2 * ceil(mean), D + 1) and a zoom making the longer side at most
 * 512 pixels (at least 1 per PE). Fails for D > 2 (a picture is 2-D). */
int lbt_heat_default(lbt_heat *h, const lbt_grid *g, lbt_err *e);
/* Picture size in pixels: width = last extent * zoom, height = first * zoom (1-D: one row). */
void lbt_heat_size(const lbt_grid *g, const lbt_heat *h, int64_t *width, int64_t *height);
/* Palette index (0..255) of each pixel, row by row: width*height bytes. */
void lbt_heat_render(const lbt_grid *g, const lbt_heat *h, uint8_t *pixels);
/* The 256 RGB colours of the palette. */
void lbt_heat_palette(uint8_t rgb[256][3]);
/* The framed picture: the map with the step shown (top), each axis's first
 * and last index (left, below), and a colour bar with its scale (right).
 * Its size depends only on the grid's shape, the zoom and hi. */
void lbt_heat_frame_size(const lbt_grid *g, const lbt_heat *h, int64_t *width, int64_t *height);
void lbt_heat_frame(const lbt_grid *g, const lbt_heat *h, int64_t step, uint8_t *pixels);
/* Write the heat map as an 8-bit palette PNG, atomically: framed, showing
 * `step`, or (step < 0) the bare map of lbt_heat_size. */
int lbt_heat_png(const char *path, const lbt_grid *g, const lbt_heat *h, int64_t step, lbt_err *e);

/* An animation of a grid's heat maps: an animated GIF (looping, delay_cs
 * hundredths of a second per frame) of grids of g's shape under h, written
 * to a temporary file and renamed into place by lbt_anim_close. */
typedef struct lbt_anim lbt_anim;
int lbt_anim_open(lbt_anim **out, const char *path, const lbt_grid *g, const lbt_heat *h, int delay_cs,
                  lbt_err *e);
int lbt_anim_frame(lbt_anim *a, const lbt_grid *g, int64_t step, lbt_err *e); /* g's loads at step as the next frame */
int lbt_anim_close(lbt_anim *a, lbt_err *e); /* finish and rename into place; frees a */
void lbt_anim_abort(lbt_anim *a);            /* remove the temporary; frees a */

#endif
