/* peer_lm_c5.c — what a researcher writes first for the Liquid model
 * (Henrich, Table 1, Definition 1) on a 2-D torus: copy the grid, update
 * every PE from the copy, once per axis; a pass for max and min when the
 * run stops at balance. No counters, no threads, no intrinsics: plain
 * loops the compiler may vectorize, the condition a constant in each (a
 * switch over the six, as one writes it, outside the loops). Compiled with
 * -O3 -march=native (bench/meson.build), at least what lbtorus's best
 * kernel gets. */
#include <stdlib.h>
#include <string.h>

#include "peer_lm_c5.h"

/* Table 1: P_i shifts one element to P_{i+1}, given L_{i-1}, L_i, L_{i+1}. */
static inline int32_t shift(int cond, int32_t prev, int32_t l, int32_t next)
{
	const int32_t c1 = l > 1, c2 = c1 | (l == 1 && prev > 1);
	switch (cond) {
	case 0: return l > 0;
	case 1: return c1;
	case 2: return c2;
	case 3: return c1 & (l >= next);
	case 4: return c2 & (l >= next);
	default: return (l > 0) & (l >= next); /* C5 */
	}
}

/* One step: L_i += C(i-1) - C(i) along the columns, then along the rows;
 * old: room for the grid, row: for a row and three cells of its wrap. */
static inline __attribute__((always_inline)) void step(int cond, int32_t *L, int32_t *old, int32_t *row, int64_t R,
                                                       int64_t C)
{
	memcpy(old, L, (size_t)(R * C) * sizeof *old);
	for (int64_t i = 0; i < R; i++) {
		const int32_t *up2 = old + (i + R - 2) % R * C, *up = old + (i + R - 1) % R * C, *me = old + i * C;
		const int32_t *dn = old + (i + 1) % R * C;
		int32_t *out = L + i * C;
		for (int64_t j = 0; j < C; j++)
			out[j] = me[j] - shift(cond, up[j], me[j], dn[j]) + shift(cond, up2[j], up[j], me[j]);
	}
	for (int64_t i = 0; i < R; i++) {
		int32_t *r = L + i * C;
		memcpy(row + 2, r, (size_t)C * sizeof *row);
		row[0] = r[C - 2];
		row[1] = r[C - 1];
		row[C + 2] = r[0];
		for (int64_t j = 0; j < C; j++)
			r[j] = row[j + 2] - shift(cond, row[j + 1], row[j + 2], row[j + 3]) +
			       shift(cond, row[j], row[j + 1], row[j + 2]);
	}
}

void peer_lm_step(int cond, int32_t *L, int32_t *old, int32_t *row, int64_t R, int64_t C)
{
	switch (cond) {
	case 0: step(0, L, old, row, R, C); break;
	case 1: step(1, L, old, row, R, C); break;
	case 2: step(2, L, old, row, R, C); break;
	case 3: step(3, L, old, row, R, C); break;
	case 4: step(4, L, old, row, R, C); break;
	default: step(5, L, old, row, R, C); break;
	}
}

int64_t peer_lm_c5(int32_t *L, int64_t R, int64_t C, int64_t steps, int until_balanced)
{
	int32_t *old = malloc((size_t)(R * C) * sizeof *old);
	int32_t *row = malloc((size_t)(C + 3) * sizeof *row);
	if (!old || !row) {
		free(old);
		free(row);
		return -1;
	}
	int64_t t = 0;
	for (; t < steps; t++) {
		if (until_balanced) {
			int32_t mx = L[0], mn = L[0];
			for (int64_t i = 0; i < R * C; i++) {
				mx = L[i] > mx ? L[i] : mx;
				mn = L[i] < mn ? L[i] : mn;
			}
			if (mx - mn <= 2)
				break;
		}
		step(5, L, old, row, R, C);
	}
	free(old);
	free(row);
	return t;
}
