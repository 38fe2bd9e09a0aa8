/* heatframe.c — the frame around a heat map, so a picture can stand alone
 * in a paper or a talk: the step it shows (top), the first and last index
 * of each axis at its ends with the axis named (left, below), and a colour
 * bar with its scale (right): black = 0 (idle), 1 .. hi through the ramp,
 * >= hi the top colour.
 *
 * Text is drawn with a built-in 5x7 bitmap font (digits, the letters of
 * its labels),
 * so no font library is needed and every pixel is a palette index: the
 * frame is the same for the PNG and the GIF, and the same on every machine.
 * The frame's size depends only on the grid's shape, the zoom and hi, so
 * all frames of one run have one size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/heatmap.h"

/* Rows of 5 bits, top to bottom, bit 4 the leftmost pixel. */
static const struct { char c; uint8_t row[7]; } font[] = {
	{'0', {14, 17, 19, 21, 25, 17, 14}}, {'1', {4, 12, 4, 4, 4, 4, 14}},   {'2', {14, 17, 1, 2, 4, 8, 31}},
	{'3', {31, 2, 4, 2, 1, 17, 14}},     {'4', {2, 6, 10, 18, 31, 2, 2}},  {'5', {31, 16, 30, 1, 1, 17, 14}},
	{'6', {6, 8, 16, 30, 17, 17, 14}},   {'7', {31, 1, 2, 4, 8, 8, 8}},    {'8', {14, 17, 17, 14, 17, 17, 14}},
	{'9', {14, 17, 17, 15, 1, 2, 12}},   {'a', {0, 0, 14, 1, 15, 17, 15}}, {'d', {1, 1, 13, 19, 17, 17, 15}},
	{'e', {0, 0, 14, 17, 31, 16, 14}},   {'i', {4, 0, 12, 4, 4, 4, 14}},   {'l', {12, 4, 4, 4, 4, 4, 14}},
	{'o', {0, 0, 14, 17, 17, 17, 14}},   {'p', {0, 0, 30, 17, 30, 16, 16}}, {'s', {0, 0, 15, 16, 14, 1, 30}},
	{'t', {8, 8, 28, 8, 8, 9, 6}},       {'x', {0, 0, 17, 10, 4, 10, 17}}, {'>', {8, 4, 2, 1, 2, 4, 8}},
	{'=', {0, 0, 31, 0, 31, 0, 0}},      {'-', {0, 0, 0, 31, 0, 0, 0}},    {'.', {0, 0, 0, 0, 0, 12, 12}},
	{'n', {0, 0, 22, 25, 17, 17, 17}},   {'w', {0, 0, 17, 17, 21, 21, 10}}, {'c', {0, 0, 14, 16, 16, 17, 14}},
	{'r', {0, 0, 22, 25, 16, 16, 16}},   {',', {0, 0, 0, 0, 12, 4, 8}},
};

enum { BG = LBT_HEAT_WHITE, INK = LBT_HEAT_INK, BAR = 14 };

typedef struct {
	uint8_t *px;
	int64_t w, h;
	int s; /* font scale: pixels per font pixel */
} canvas;

static int64_t text_w(const canvas *c, const char *t) { return (int64_t)strlen(t) * 6 * c->s - c->s; }

static void text(canvas *c, int64_t x, int64_t y, const char *t)
{
	for (; *t; t++, x += 6 * c->s) {
		const uint8_t *row = NULL;
		for (size_t k = 0; k < sizeof font / sizeof font[0]; k++)
			if (font[k].c == *t)
				row = font[k].row;
		if (!row)
			continue; /* a space */
		for (int r = 0; r < 7; r++)
			for (int b = 0; b < 5; b++)
				if (row[r] >> (4 - b) & 1)
					for (int dy = 0; dy < c->s; dy++)
						for (int dx = 0; dx < c->s; dx++) {
							int64_t px = x + b * c->s + dx, py = y + r * c->s + dy;
							if (px >= 0 && px < c->w && py >= 0 && py < c->h)
								c->px[py * c->w + px] = INK;
						}
	}
}

static void rect(canvas *c, int64_t x, int64_t y, int64_t w, int64_t h, uint8_t v)
{
	for (int64_t j = y; j < y + h; j++)
		for (int64_t i = x; i < x + w; i++)
			if (i >= 0 && i < c->w && j >= 0 && j < c->h)
				c->px[j * c->w + i] = v;
}

static void box(canvas *c, int64_t x, int64_t y, int64_t w, int64_t h)
{
	rect(c, x - 1, y - 1, w + 2, 1, INK);
	rect(c, x - 1, y + h, w + 2, 1, INK);
	rect(c, x - 1, y, 1, h, INK);
	rect(c, x + w, y, 1, h, INK);
}

/* The picture's layout: map at (mx, my), its size (mw, mh), the bar's x, the whole size. */
typedef struct {
	int64_t rows, cols, mw, mh, mx, my, bx, w, h;
	int s;
	char r_last[24], c_last[24], hi_txt[24];
} layout;

static void plan(const lbt_grid *g, const lbt_heat *h, layout *L)
{
	const lbt_shape *sh = &g->shape;
	L->rows = sh->dims == 2 ? sh->ext[0] : 1;
	L->cols = sh->ext[sh->dims - 1];
	L->mw = L->cols * h->zoom;
	L->mh = L->rows * h->zoom;
	L->s = L->mw >= 256 || L->mh >= 256 ? 2 : 1;
	snprintf(L->r_last, sizeof L->r_last, "%lld", (long long)(L->rows - 1));
	snprintf(L->c_last, sizeof L->c_last, "%lld", (long long)(L->cols - 1));
	snprintf(L->hi_txt, sizeof L->hi_txt, ">=%d", h->hi);
	const int64_t cw = 6 * L->s, ch = 7 * L->s, pad = 4 * L->s;
	int64_t lw = (int64_t)strlen(L->r_last) * cw; /* row labels */
	if (lw < 2 * cw)
		lw = 2 * cw;
	L->mx = pad + lw + pad;
	L->my = pad + ch + pad + pad; /* the step label */
	L->bx = L->mx + L->mw + 3 * pad;
	int64_t bar_h = L->mh < 10 * ch ? 10 * ch : L->mh;
	int64_t label = (int64_t)strlen(L->hi_txt) * cw;
	if (label < 6 * cw) /* "0 idle" */
		label = 6 * cw;
	L->w = L->bx + BAR * L->s / 2 + pad + label + pad;
	L->h = L->my + bar_h + pad + ch + pad + ch + pad; /* column labels, axis name */
}

void lbt_heat_frame_size(const lbt_grid *g, const lbt_heat *h, int64_t *width, int64_t *height)
{
	layout L;
	plan(g, h, &L);
	*width = L.w;
	*height = L.h;
}

void lbt_heat_frame(const lbt_grid *g, const lbt_heat *h, int64_t step, uint8_t *px)
{
	layout L;
	plan(g, h, &L);
	canvas c = {px, L.w, L.h, L.s};
	const int64_t cw = 6 * L.s, ch = 7 * L.s, pad = 4 * L.s, bw = BAR * L.s / 2;
	memset(px, BG, (size_t)(L.w * L.h));
	uint8_t *map = malloc((size_t)(L.mw * L.mh));
	if (map) { /* without memory the frame is drawn around an empty map */
		lbt_heat_render(g, h, map);
		for (int64_t r = 0; r < L.mh; r++)
			memcpy(px + (L.my + r) * L.w + L.mx, map + r * L.mw, (size_t)L.mw);
		free(map);
	}
	box(&c, L.mx, L.my, L.mw, L.mh);
	char t[48];
	snprintf(t, sizeof t, "step %lld", (long long)step);
	text(&c, L.mx, pad, t);
	/* axis 0 down the left (2-D), the last axis along the bottom */
	if (g->shape.dims == 2) {
		text(&c, L.mx - pad - cw, L.my, "0");
		text(&c, L.mx - pad - text_w(&c, L.r_last), L.my + L.mh - ch, L.r_last);
	}
	int64_t below = L.my + L.mh + pad;
	text(&c, L.mx, below, "0");
	text(&c, L.mx + L.mw - text_w(&c, L.c_last), below, L.c_last);
	snprintf(t, sizeof t, g->shape.dims == 2 ? "axis 0 down, axis 1 across" : "axis 0");
	text(&c, L.mx, below + ch + pad, t);
	/* the colour bar: idle (black) at the bottom, then 1 .. hi upwards */
	int64_t bar_h = L.mh < 10 * ch ? 10 * ch : L.mh, idle = ch + pad, ramp = bar_h - idle;
	rect(&c, L.bx, L.my + ramp, bw, idle, 0);
	for (int64_t j = 0; j < ramp; j++)
		rect(&c, L.bx, L.my + ramp - 1 - j, bw, 1, (uint8_t)(1 + j * (LBT_HEAT_TOP - 1) / (ramp > 1 ? ramp - 1 : 1)));
	box(&c, L.bx, L.my, bw, bar_h);
	int64_t lx = L.bx + bw + pad;
	text(&c, lx, L.my, L.hi_txt);
	text(&c, lx, L.my + ramp - ch, "1");
	text(&c, lx, L.my + ramp + (idle - ch) / 2, "0");
	text(&c, lx + 2 * cw, L.my + ramp + (idle - ch) / 2, "idle");
	if (h->hi >= 4) { /* the middle of the ramp */
		snprintf(t, sizeof t, "%d", 1 + (h->hi - 1) / 2);
		text(&c, lx, L.my + ramp / 2 - ch / 2, t);
	}
}
