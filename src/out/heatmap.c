/* heatmap.c — load heat maps: a palette, rendering, PNG through libpng.
 *
 * Invariants: the colour of a PE depends only on its load and the scale
 * (never on the other PEs), so frames of one run are comparable and an
 * animation does not flicker. Index 0 is reserved for load 0 (black),
 * 1..LBT_HEAT_TOP are the ramp, the last two the frame's white and ink. */
#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/io.h"
#include "lbtorus/heatmap.h"
#include "out/gif.h"

void lbt_heat_palette(uint8_t rgb[256][3])
{ /* viridis at 9 stops (matplotlib's colormap data), linearly interpolated */
	static const uint8_t stop[9][3] = {{68, 1, 84}, {71, 44, 122}, {59, 81, 139}, {44, 113, 142}, {33, 144, 141},
	                                   {39, 173, 129}, {92, 200, 99}, {170, 220, 50}, {253, 231, 37}};
	rgb[0][0] = rgb[0][1] = rgb[0][2] = 0;
	rgb[LBT_HEAT_WHITE][0] = rgb[LBT_HEAT_WHITE][1] = rgb[LBT_HEAT_WHITE][2] = 255;
	rgb[LBT_HEAT_INK][0] = rgb[LBT_HEAT_INK][1] = rgb[LBT_HEAT_INK][2] = 40;
	for (int i = 1; i <= LBT_HEAT_TOP; i++) {
		double t = (double)(i - 1) / (LBT_HEAT_TOP - 1) * 8.0;
		int k = (int)t < 8 ? (int)t : 7;
		double f = t - k;
		for (int c = 0; c < 3; c++)
			rgb[i][c] = (uint8_t)(stop[k][c] + f * (stop[k + 1][c] - stop[k][c]) + 0.5);
	}
}

static int picture_dims(const lbt_grid *g, int64_t *rows, int64_t *cols)
{
	const lbt_shape *s = &g->shape;
	if (s->dims > 2)
		return 0;
	*rows = s->dims == 2 ? s->ext[0] : 1;
	*cols = s->ext[s->dims - 1];
	return 1;
}

int lbt_heat_default(lbt_heat *h, const lbt_grid *g, lbt_err *e)
{
	int64_t rows, cols;
	if (!picture_dims(g, &rows, &cols))
		return lbt_errf(e, LBT_EINVAL, "heat maps are pictures of 1-D or 2-D grids; this one has %d dimensions",
		                g->shape.dims);
	lbt_stats st;
	lbt_grid_stats(g, &st);
	int64_t P = lbt_shape_pes(&g->shape), mean_up = (st.total + P - 1) / P;
	int64_t hi = 2 * mean_up, D1 = lbt_shape_active_dims(&g->shape) + 1;
	hi = hi < D1 ? D1 : hi;
	h->hi = (int32_t)(hi > INT32_MAX ? INT32_MAX : hi);
	int64_t longer = rows > cols ? rows : cols;
	h->zoom = longer >= 512 ? 1 : (int)(512 / longer);
	return LBT_OK;
}

void lbt_heat_size(const lbt_grid *g, const lbt_heat *h, int64_t *width, int64_t *height)
{
	int64_t rows = 1, cols = 1;
	picture_dims(g, &rows, &cols);
	*width = cols * h->zoom;
	*height = rows * h->zoom;
}

static uint8_t colour_of(int32_t v, int32_t hi)
{
	if (v <= 0)
		return 0;
	if (v >= hi)
		return LBT_HEAT_TOP;
	return (uint8_t)(1 + (int64_t)(v - 1) * (LBT_HEAT_TOP - 1) / (hi > 1 ? hi - 1 : 1));
}

void lbt_heat_render(const lbt_grid *g, const lbt_heat *h, uint8_t *px)
{
	int64_t rows = 1, cols = 1, z = h->zoom;
	picture_dims(g, &rows, &cols);
	const int64_t rs = g->shape.dims == 2 ? g->stride[0] : 0;
	for (int64_t r = 0; r < rows; r++) {
		uint8_t *line = px + r * z * cols * z;
		const int32_t *L = g->load + r * rs;
		for (int64_t c = 0; c < cols; c++)
			memset(line + c * z, colour_of(L[c], h->hi), (size_t)z);
		for (int64_t k = 1; k < z; k++)
			memcpy(line + k * cols * z, line, (size_t)(cols * z));
	}
}

/* libpng's errors come here, not to stderr: the caller's one line says
 * what failed (with errno's reason for a failed write). */
typedef struct {
	char msg[160];
} png_failure;

static void png_fail(png_structp png, png_const_charp msg)
{
	png_failure *f = png_get_error_ptr(png);
	const int err = errno;
	snprintf(f->msg, sizeof f->msg, "%s%s%s", msg, err ? ": " : "", err ? strerror(err) : "");
	png_longjmp(png, 1);
}

static void png_warn(png_structp png, png_const_charp msg) { (void)png, (void)msg; }

int lbt_heat_png(const char *path, const lbt_grid *g, const lbt_heat *h, int64_t step, lbt_err *e)
{
	int64_t w, ht;
	if (step < 0)
		lbt_heat_size(g, h, &w, &ht);
	else
		lbt_heat_frame_size(g, h, &w, &ht);
	if (w > (1 << 20) || ht > (1 << 20))
		return lbt_errf(e, LBT_EINVAL, "heat map of %lldx%lld pixels is too large: lower the zoom", (long long)w,
		                (long long)ht);
	uint8_t *px = malloc((size_t)(w * ht));
	png_bytep *rowp = malloc((size_t)ht * sizeof *rowp);
	if (!px || !rowp) {
		free(px), free(rowp);
		return lbt_errf(e, LBT_ENOMEM, "no memory for a %lldx%lld heat map", (long long)w, (long long)ht);
	}
	if (step < 0)
		lbt_heat_render(g, h, px);
	else
		lbt_heat_frame(g, h, step, px);
	for (int64_t r = 0; r < ht; r++)
		rowp[r] = px + r * w;
	lbt_outfile o;
	int st = lbt_out_open(&o, path, e);
	if (st) {
		free(px), free(rowp);
		return st;
	}
	png_failure why = {"no memory"};
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &why, png_fail, png_warn);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	if (!info || setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, info ? &info : NULL);
		lbt_out_abort(&o);
		free(px), free(rowp);
		return lbt_errf(e, LBT_EIO, "cannot write the PNG %s: %s", path, why.msg);
	}
	uint8_t rgb[256][3];
	png_color pal[256];
	lbt_heat_palette(rgb);
	for (int i = 0; i < 256; i++)
		pal[i] = (png_color){rgb[i][0], rgb[i][1], rgb[i][2]};
	png_init_io(png, o.f);
	png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)ht, 8, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE,
	             PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_set_PLTE(png, info, pal, 256);
	png_set_rows(png, info, rowp);
	png_write_png(png, info, PNG_TRANSFORM_IDENTITY, NULL);
	png_destroy_write_struct(&png, &info);
	free(px), free(rowp);
	return lbt_out_commit(&o, e);
}

struct lbt_anim {
	lbt_gif *gif;
	lbt_heat heat;
	uint8_t *pixels; /* one frame of palette indices */
};

int lbt_anim_open(lbt_anim **out, const char *path, const lbt_grid *g, const lbt_heat *h, int delay_cs,
                  lbt_err *e)
{
	int64_t w, ht;
	lbt_heat_frame_size(g, h, &w, &ht);
	lbt_anim *a = calloc(1, sizeof *a);
	if (a)
		a->pixels = malloc((size_t)(w * ht));
	if (!a || !a->pixels) {
		free(a);
		return lbt_errf(e, LBT_ENOMEM, "no memory for %lldx%lld animation frames", (long long)w, (long long)ht);
	}
	a->heat = *h;
	int st = lbt_gif_open(&a->gif, path, w, ht, delay_cs, e);
	if (st) {
		free(a->pixels);
		free(a);
		return st;
	}
	*out = a;
	return LBT_OK;
}

int lbt_anim_frame(lbt_anim *a, const lbt_grid *g, int64_t step, lbt_err *e)
{
	lbt_heat_frame(g, &a->heat, step, a->pixels);
	return lbt_gif_frame(a->gif, a->pixels, e);
}

int lbt_anim_close(lbt_anim *a, lbt_err *e)
{
	int st = lbt_gif_close(a->gif, e);
	free(a->pixels);
	free(a);
	return st;
}

void lbt_anim_abort(lbt_anim *a)
{
	lbt_gif_abort(a->gif);
	free(a->pixels);
	free(a);
}
