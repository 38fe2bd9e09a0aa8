/* peer_lm_c5.c — what a researcher writes first for the Liquid model with
 * condition C5 (Henrich, Table 1, Definition 1) on a 2-D torus: copy the
 * grid, update every PE from the copy, once per axis; a pass for max and
 * min when the run stops at balance. No counters, no threads, no
 * intrinsics: plain loops the compiler may vectorize. Compiled with
 * -O3 -march=native (bench/meson.build), at least what lbtorus's best
 * kernel gets. */
#include <stdlib.h>
#include <string.h>

#include "peer_lm_c5.h"

/* C5: P_i shifts one element to P_{i+1} if it has load and P_{i+1} has not more. */
static inline int32_t c5(int32_t l, int32_t next) { return l > 0 && l >= next; }

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
		/* axis 0: L_i += C5(i-1) - C5(i) along the columns */
		memcpy(old, L, (size_t)(R * C) * sizeof *old);
		for (int64_t i = 0; i < R; i++) {
			const int32_t *up = old + (i + R - 1) % R * C, *me = old + i * C, *dn = old + (i + 1) % R * C;
			int32_t *out = L + i * C;
			for (int64_t j = 0; j < C; j++)
				out[j] = me[j] - c5(me[j], dn[j]) + c5(up[j], me[j]);
		}
		/* axis 1: the same along each row, with the row's wrap copied around it */
		for (int64_t i = 0; i < R; i++) {
			int32_t *r = L + i * C;
			memcpy(row + 1, r, (size_t)C * sizeof *row);
			row[0] = r[C - 1];
			row[C + 1] = r[0];
			for (int64_t j = 0; j < C; j++)
				r[j] = row[j + 1] - c5(row[j + 1], row[j + 2]) + c5(row[j], row[j + 1]);
		}
	}
	free(old);
	free(row);
	return t;
}
