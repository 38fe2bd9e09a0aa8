/* heatmap.h — pictures of a 2-D (or 1-D) grid's loads: colour heat maps as
 * PNG (libpng) and as frames of an animated GIF, so one can watch the
 * liquid level out. Axis 0 runs down the picture, the last axis across. */
#ifndef LBTORUS_HEATMAP_H
#define LBTORUS_HEATMAP_H

#include <stdint.h>

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

/* An animated GIF (GIF89a, looping, LZW-compressed), written to a temporary
 * file and renamed into place by lbt_gif_close. */
typedef struct lbt_gif lbt_gif;
int lbt_gif_open(lbt_gif **out, const char *path, int64_t width, int64_t height, int delay_cs, lbt_err *e);
int lbt_gif_frame(lbt_gif *g, const uint8_t *pixels, lbt_err *e); /* width*height palette indices */
int lbt_gif_close(lbt_gif *g, lbt_err *e); /* finish and rename into place; frees g */
void lbt_gif_abort(lbt_gif *g);            /* remove the temporary; frees g */

#endif
