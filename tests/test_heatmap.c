/* test_heatmap.c — pictures of a run: heat-map PNGs of the right size and
 * colours, .npy snapshots holding the loads, an animated GIF. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"


static void png_size(const char *path, unsigned *w, unsigned *h)
{
	unsigned char b[24];
	FILE *f = fopen(path, "rb");
	cr_assert(f, "no %s", path);
	cr_assert_eq(fread(b, 1, 24, f), 24);
	fclose(f);
	cr_assert(!memcmp(b, "\x89PNG\r\n\x1a\n", 8) && !memcmp(b + 12, "IHDR", 4), "%s is not a PNG", path);
	*w = (unsigned)b[16] << 24 | (unsigned)b[17] << 16 | (unsigned)b[18] << 8 | b[19];
	*h = (unsigned)b[20] << 24 | (unsigned)b[21] << 16 | (unsigned)b[22] << 8 | b[23];
}

Test(heatmap, png_is_last_extent_wide_and_first_extent_high_times_zoom)
{
	lbt_state st;
	th_open(&st, "6x10", NULL, "lm-c5", "uniform:0:9", NULL);
	lbt_heat h;
	lbt_err e;
	cr_assert_eq(lbt_heat_default(&h, &st.grid, &e), LBT_OK);
	cr_assert_eq(h.zoom, 51, "longer side 10 PEs -> 51 px per PE (<= 512)");
	h.zoom = 3;
	char dir[256], path[300];
	th_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/h.png", dir);
	cr_assert_eq(lbt_heat_png(path, &st.grid, &h, -1, &e), LBT_OK, "%s", e.msg); /* the bare map */
	unsigned w, ht;
	png_size(path, &w, &ht);
	cr_assert_eq(w, 30);
	cr_assert_eq(ht, 18);
	lbt_state_close(&st);
}

Test(heatmap, idle_is_black_and_the_scale_saturates)
{
	lbt_state st;
	th_open(&st, "1x4", NULL, "lm-c5", "point:8", NULL);
	int32_t L[4] = {0, 1, 5, 9};
	th_set(&st, L);
	lbt_heat h = {.hi = 5, .zoom = 1};
	uint8_t px[4];
	lbt_heat_render(&st.grid, &h, px);
	cr_assert_eq(px[0], 0, "load 0: black");
	cr_assert_eq(px[1], 1, "load 1: the bottom of the ramp");
	cr_assert_eq(px[2], LBT_HEAT_TOP, "load hi: the top");
	cr_assert_eq(px[3], LBT_HEAT_TOP, "above hi: the top");
	uint8_t rgb[256][3];
	lbt_heat_palette(rgb);
	cr_assert(!rgb[0][0] && !rgb[0][1] && !rgb[0][2]);
	lbt_state_close(&st);
}

Test(heatmap, three_d_is_refused)
{
	lbt_state st;
	th_open(&st, "2x2x2", NULL, "lm-c5", "point:8", NULL);
	lbt_heat h;
	lbt_err e;
	cr_assert_eq(lbt_heat_default(&h, &st.grid, &e), LBT_EINVAL);
	lbt_state_close(&st);
}

Test(heatmap, run_writes_snapshots_and_an_animation)
{
	char dir[256], path[400];
	th_tmpdir(dir, sizeof dir);
	char *out, *err;
	int rc = th_cli(dir, TH_ARGS("run", "--shape", "6x10", "--init", "worst:3", "--snapshots", "s", "--every", "5",
	                          "--zoom", "2", "--animate", "a.gif", "--quiet"), &out, &err);
	cr_assert_eq(rc, 0, "%s", err);
	const char *p = strstr(out, "\"steps\":");
	cr_assert(p);
	long steps = strtol(p + 8, NULL, 10);
	unsigned w, h;
	snprintf(path, sizeof path, "%s/s/step_00000000.png", dir);
	png_size(path, &w, &h);
	lbt_state st; /* snapshots and frames are framed: the map (20x12 at zoom 2) with axes and a colour bar */
	th_open(&st, "6x10", NULL, "lm-c5", "worst:3", NULL);
	lbt_heat hh;
	lbt_err he;
	cr_assert_eq(lbt_heat_default(&hh, &st.grid, &he), LBT_OK);
	hh.zoom = 2;
	int64_t fw, fh;
	lbt_heat_frame_size(&st.grid, &hh, &fw, &fh);
	lbt_state_close(&st);
	cr_assert(fw > 20 && fh > 12);
	cr_assert_eq(w, fw);
	cr_assert_eq(h, fh);
	snprintf(path, sizeof path, "%s/s/step_%08ld.npy", dir, steps); /* the last state is always taken */
	lbt_shape s;
	lbt_err e;
	int32_t L[60];
	cr_assert_eq(lbt_shape_parse(&s, "6x10", &e), LBT_OK);
	cr_assert_eq(lbt_npy_read(path, &s, L, &e), LBT_OK, "%s", e.msg);
	int64_t total = 0;
	for (int i = 0; i < 60; i++)
		total += L[i];
	cr_assert_eq(total, 180);
	int pngs = 0;
	for (long k = 0; k <= steps; k++) {
		snprintf(path, sizeof path, "%s/s/step_%08ld.png", dir, k);
		FILE *f = fopen(path, "rb");
		pngs += f != NULL;
		if (f)
			fclose(f);
	}
	cr_assert_eq(pngs, steps / 5 + 1 + (steps % 5 != 0), "every 5th step and the last");
	snprintf(path, sizeof path, "%s/a.gif", dir);
	FILE *f = fopen(path, "rb");
	cr_assert(f);
	unsigned char head[10], last = 0;
	cr_assert_eq(fread(head, 1, 10, f), 10);
	cr_assert(!memcmp(head, "GIF89a", 6));
	cr_assert_eq(head[6] | head[7] << 8, fw, "GIF frames are the framed pictures");
	cr_assert_eq(head[8] | head[9] << 8, fh);
	fseek(f, -1, SEEK_END);
	cr_assert_eq(fread(&last, 1, 1, f), 1);
	cr_assert_eq(last, 0x3B, "GIF trailer");
	fclose(f);
	free(out), free(err);
}

/* A picture that stands alone: the bare map sits whole inside the frame,
 * the frame shows the step (two steps give two different pictures of the
 * same size, differing only above the map), and holds the colour bar's
 * idle black and top colour, the white background and the ink. */
Test(heatmap, frame_shows_the_map_the_step_and_a_colour_bar)
{
	lbt_state st;
	th_open(&st, "6x10", NULL, "lm-c5", "uniform:1:4", NULL);
	lbt_heat h = {.hi = 5, .zoom = 3};
	uint8_t map[30 * 18];
	lbt_heat_render(&st.grid, &h, map);
	int64_t w, ht;
	lbt_heat_frame_size(&st.grid, &h, &w, &ht);
	uint8_t *a = malloc((size_t)(w * ht)), *b = malloc((size_t)(w * ht));
	lbt_heat_frame(&st.grid, &h, 7, a);
	lbt_heat_frame(&st.grid, &h, 8, b);
	int64_t at = -1;
	for (int64_t y = 0; y + 18 <= ht && at < 0; y++)
		for (int64_t x = 0; x + 30 <= w && at < 0; x++) {
			int same = 1;
			for (int r = 0; r < 18 && same; r++)
				same = !memcmp(a + (y + r) * w + x, map + r * 30, 30);
			if (same)
				at = y;
		}
	cr_assert_geq(at, 1, "the map is inside the frame, below the step label");
	int64_t first = -1;
	for (int64_t i = 0; i < w * ht && first < 0; i++)
		if (a[i] != b[i])
			first = i;
	cr_assert(first >= 0 && first / w < at, "step 7 and step 8 differ, above the map (row %lld)", (long long)(first / w));
	int seen[256] = {0};
	for (int64_t i = 0; i < w * ht; i++)
		seen[a[i]] = 1;
	cr_assert(seen[0] && seen[LBT_HEAT_TOP] && seen[LBT_HEAT_WHITE] && seen[LBT_HEAT_INK]);
	free(a), free(b);
	lbt_state_close(&st);
}

/* An independent LZW decoder (GIF89a spec, appendix F) for the frames. */
typedef struct {
	const uint8_t *p, *end;
} gif_in;

static int gif_byte(gif_in *in) { return in->p < in->end ? *in->p++ : -1; }

/* Decode the image data of one frame into px (n pixels); returns pixels written. */
static long lzw_decode(gif_in *in, uint8_t *px, long n)
{
	uint8_t data[1 << 20];
	long len = 0;
	cr_assert_eq(gif_byte(in), 8, "minimum code size 8");
	for (int b; (b = gif_byte(in)) > 0; len += b) { /* sub-blocks up to the 0 terminator */
		cr_assert_lt(len + b, (long)sizeof data);
		memcpy(data + len, in->p, (size_t)b);
		in->p += b;
	}
	static uint16_t prefix[4096];
	static uint8_t suffix[4096], first[4096], stack[4096];
	long bit = 0, out = 0;
	int size = 9, next = 258, prev = -1;
	for (int i = 0; i < 256; i++)
		suffix[i] = first[i] = (uint8_t)i;
	for (;;) {
		cr_assert_leq((bit + size + 7) / 8, len, "ran out of data before the end code");
		int code = 0;
		for (int k = 0; k < size; k++, bit++)
			code |= (data[bit / 8] >> (bit % 8) & 1) << k;
		if (code == 256) {
			size = 9, next = 258, prev = -1;
			continue;
		}
		if (code == 257)
			break;
		cr_assert_leq(code, next, "code %d beyond the table (%d)", code, next);
		cr_assert(prev >= 0 || code < 256, "first code after a clear is not a literal");
		int depth = 0, c = code;
		if (code == next) { /* the KwKwK case: prev's string and its own first byte */
			stack[depth++] = first[prev];
			c = prev;
		}
		for (;; c = prefix[c]) { /* the string of c, last byte first */
			stack[depth++] = suffix[c];
			if (c < 256)
				break;
		}
		for (int k = depth - 1; k >= 0; k--) {
			cr_assert_lt(out, n, "more pixels than the frame holds");
			px[out++] = stack[k];
		}
		if (prev >= 0 && next < 4096) {
			prefix[next] = (uint16_t)prev;
			suffix[next] = stack[depth - 1];
			first[next] = first[prev];
			next++;
			if (next == (1 << size) && size < 12)
				size++;
		}
		prev = code;
	}
	return out;
}

Test(gif, frames_decode_to_the_rendered_heat_maps)
{
	lbt_state st;
	th_open(&st, "40x50", NULL, "lm-c5", "uniform:0:400", NULL); /* many colours: the LZW table fills and resets */
	lbt_heat h = {.hi = 300, .zoom = 1};
	int64_t W, H; /* a frame: the map with its step label, axes and colour bar */
	lbt_heat_frame_size(&st.grid, &h, &W, &H);
	const int64_t N = W * H;
	uint8_t *want[3], *got = malloc((size_t)N);
	for (int f = 0; f < 3; f++)
		want[f] = malloc((size_t)N);
	char dir[256], path[300];
	th_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/a.gif", dir);
	lbt_anim *a;
	lbt_err e;
	cr_assert_eq(lbt_anim_open(&a, path, &st.grid, &h, 8, &e), LBT_OK, "%s", e.msg);
	for (int f = 0; f < 3; f++) {
		lbt_heat_frame(&st.grid, &h, f, want[f]);
		cr_assert_eq(lbt_anim_frame(a, &st.grid, f, &e), LBT_OK, "%s", e.msg);
		lbt_counts c = {0};
		st.method->step(&st, &c);
	}
	cr_assert_eq(lbt_anim_close(a, &e), LBT_OK, "%s", e.msg);
	lbt_state_close(&st);

	FILE *fp = fopen(path, "rb");
	static uint8_t file[1 << 20];
	size_t len = fread(file, 1, sizeof file, fp);
	fclose(fp);
	gif_in in = {file + 13 + 768, file + len}; /* after the header and the global palette */
	int frames = 0;
	for (int b; (b = gif_byte(&in)) != 0x3B;) {
		cr_assert_neq(b, -1, "no GIF trailer");
		if (b == 0x21) { /* an extension: label, then sub-blocks */
			gif_byte(&in);
			for (int k; (k = gif_byte(&in)) > 0;)
				in.p += k;
			continue;
		}
		cr_assert_eq(b, 0x2C, "image descriptor expected, got 0x%02x", b);
		in.p += 9;
		cr_assert_lt(frames, 3);
		cr_assert_eq(lzw_decode(&in, got, N), N, "frame %d: pixel count", frames);
		cr_assert(!memcmp(got, want[frames], N), "frame %d decodes to other pixels", frames);
		frames++;
	}
	cr_assert_eq(frames, 3);
	for (int f = 0; f < 3; f++)
		free(want[f]);
	free(got);
}
