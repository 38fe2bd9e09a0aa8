/* gif.c — a small animated-GIF writer (GIF89a, global 256-colour palette,
 * looping): frames of palette indices, LZW-compressed.
 *
 * LZW as in the GIF spec (and as in Charlie Tangora's public-domain gif.h):
 * minimum code size 8, clear = 256, end = 257; codes start 9 bits wide and
 * widen when the newest code needs it; at code 4095 a clear code resets the
 * table. Strings are found in an open-addressing hash of (prefix, byte). */
#include <stdlib.h>
#include <string.h>

#include "lbtorus/io.h"
#include "lbtorus/heatmap.h"
#include "out/gif.h"

enum { HASH = 8192 };

struct lbt_gif {
	lbt_outfile out;
	int64_t w, h;
	int delay;
	uint8_t block[256]; /* a data sub-block being filled */
	int nblock;
	uint32_t bits;      /* pending bits, LSB first */
	int nbits;
	int32_t key[HASH];
	uint16_t val[HASH];
};

static void put16(FILE *f, int64_t v)
{
	fputc((int)(v & 255), f);
	fputc((int)(v >> 8 & 255), f);
}

int lbt_gif_open(lbt_gif **out, const char *path, int64_t width, int64_t height, int delay_cs, lbt_err *e)
{
	if (width < 1 || height < 1 || width > 65535 || height > 65535)
		return lbt_errf(e, LBT_EINVAL, "a GIF is at most 65535 pixels a side; %lldx%lld asked (lower the zoom)",
		                (long long)width, (long long)height);
	lbt_gif *g = calloc(1, sizeof *g);
	if (!g)
		return lbt_errf(e, LBT_ENOMEM, "no memory for a GIF");
	int st = lbt_out_open(&g->out, path, e);
	if (st) {
		free(g);
		return st;
	}
	g->w = width, g->h = height, g->delay = delay_cs;
	FILE *f = g->out.f;
	fputs("GIF89a", f);
	put16(f, width);
	put16(f, height);
	fputc(0xF7, f); /* global colour table of 2^(7+1) entries */
	fputc(0, f);
	fputc(0, f);
	uint8_t rgb[256][3];
	lbt_heat_palette(rgb);
	fwrite(rgb, 3, 256, f);
	fwrite("\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00", 1, 19, f); /* loop forever */
	*out = g;
	return LBT_OK;
}

static void flush_block(lbt_gif *g)
{
	if (!g->nblock)
		return;
	fputc(g->nblock, g->out.f);
	fwrite(g->block, 1, (size_t)g->nblock, g->out.f);
	g->nblock = 0;
}

static void put_code(lbt_gif *g, uint32_t code, int size)
{
	g->bits |= code << g->nbits;
	g->nbits += size;
	while (g->nbits >= 8) {
		g->block[g->nblock++] = (uint8_t)(g->bits & 255);
		g->bits >>= 8;
		g->nbits -= 8;
		if (g->nblock == 255)
			flush_block(g);
	}
}

static void reset(lbt_gif *g)
{
	memset(g->key, 0xff, sizeof g->key);
}

int lbt_gif_frame(lbt_gif *g, const uint8_t *px, lbt_err *e)
{
	FILE *f = g->out.f;
	fwrite("\x21\xF9\x04\x00", 1, 4, f); /* graphic control: no transparency */
	put16(f, g->delay);
	fputc(0, f);
	fputc(0, f);
	fputc(0x2C, f); /* image descriptor: the whole screen, global palette */
	put16(f, 0);
	put16(f, 0);
	put16(f, g->w);
	put16(f, g->h);
	fputc(0, f);
	fputc(8, f); /* minimum code size */
	const uint32_t clear = 256;
	int size = 9;
	uint32_t max = 257;
	int32_t cur = -1;
	reset(g);
	put_code(g, clear, size);
	for (int64_t i = 0, n = g->w * g->h; i < n; i++) {
		if (cur < 0) {
			cur = px[i];
			continue;
		}
		int32_t k = cur << 8 | px[i];
		uint32_t hsh = ((uint32_t)k * 2654435761u) >> 19; /* 13 bits */
		while (g->key[hsh] >= 0 && g->key[hsh] != k)
			hsh = (hsh + 1) & (HASH - 1);
		if (g->key[hsh] == k) {
			cur = g->val[hsh];
			continue;
		}
		put_code(g, (uint32_t)cur, size);
		g->key[hsh] = k;
		g->val[hsh] = (uint16_t)++max;
		if (max >= (1u << size))
			size++;
		if (max == 4095) {
			put_code(g, clear, size);
			reset(g);
			size = 9;
			max = 257;
		}
		cur = px[i];
	}
	put_code(g, (uint32_t)cur, size);
	put_code(g, clear, size);
	put_code(g, clear + 1, 9);
	if (g->nbits)
		put_code(g, 0, 8 - g->nbits);
	flush_block(g);
	fputc(0, f); /* end of the image data */
	return ferror(f) ? lbt_errf(e, LBT_EIO, "cannot write %s", g->out.path) : LBT_OK;
}

int lbt_gif_close(lbt_gif *g, lbt_err *e)
{
	fputc(0x3B, g->out.f);
	int st = lbt_out_commit(&g->out, e);
	free(g);
	return st;
}

void lbt_gif_abort(lbt_gif *g)
{
	if (g)
		lbt_out_abort(&g->out);
	free(g);
}
