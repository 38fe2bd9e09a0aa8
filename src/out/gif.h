/* gif.h (private) — an animated-GIF writer (GIF89a, looping, LZW-compressed)
 * for frames of palette indices; the public face is lbt_anim (heatmap.h). */
#ifndef LBTORUS_OUT_GIF_H
#define LBTORUS_OUT_GIF_H

#include <stdint.h>

#include "lbtorus/status.h"

/* Written to a temporary file and renamed into place by lbt_gif_close. */
typedef struct lbt_gif lbt_gif;
int lbt_gif_open(lbt_gif **out, const char *path, int64_t width, int64_t height, int delay_cs, lbt_err *e);
int lbt_gif_frame(lbt_gif *g, const uint8_t *pixels, lbt_err *e); /* width*height palette indices */
int lbt_gif_close(lbt_gif *g, lbt_err *e); /* finish and rename into place; frees g */
void lbt_gif_abort(lbt_gif *g);            /* remove the temporary; frees g */

#endif
