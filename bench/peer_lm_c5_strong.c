/* peer_lm_c5_strong.c — what a skilled engineer writes in an afternoon for
 * LM-C5 on a 2-D torus (issue 27's strong peer), beside the first loop of
 * bench/peer_lm_c5.c: the loads in the narrowest type that holds them
 * (uint8_t below 256, int16_t below 32768, else int32_t: under C5 the
 * largest load never grows, so the type chosen at the start holds the whole
 * run), branch-free conditions, restrict pointers, OpenMP over rows (from
 * 65536 PEs: below, a step is shorter than waking a thread, as lbtorus's
 * kernels also decide), and the axis-1 substep done on a row while it is in
 * cache. Compiled -O3
 * -march=native -fopenmp (bench/meson.build). */
#include <stdlib.h>
#include <string.h>

#include "peer_lm_c5_strong.h"

/* One width: STEP_T(T) defines steps_T(g, old, R, C, steps, balanced, threads). */
#define STEP_T(T)                                                                                                      \
	static int64_t steps_##T(T *restrict g, T *restrict old, int64_t R, int64_t C, int64_t steps, int balanced,      \
	                         int threads)                                                                            \
	{                                                                                                                \
		int64_t t = 0;                                                                                               \
		for (; t < steps; t++) {                                                                                     \
			if (balanced) {                                                                                          \
				int mx = g[0], mn = g[0];                                                                            \
				_Pragma("omp parallel for num_threads(threads) reduction(max : mx) reduction(min : mn) if (R * C >= 65536)")             \
				for (int64_t i = 0; i < R * C; i++) {                                                                \
					mx = g[i] > mx ? g[i] : mx;                                                                      \
					mn = g[i] < mn ? g[i] : mn;                                                                      \
				}                                                                                                    \
				if (mx - mn <= 2)                                                                                    \
					break;                                                                                           \
			}                                                                                                        \
			memcpy(old, g, (size_t)(R * C) * sizeof *g);                                                             \
			_Pragma("omp parallel for num_threads(threads) schedule(static) if (R * C >= 65536)")                                        \
			for (int64_t i = 0; i < R; i++) {                                                                        \
				const T *restrict up = old + (i + R - 1) % R * C, *restrict me = old + i * C,                       \
				                  *restrict dn = old + (i + 1) % R * C;                                             \
				T *restrict out = g + i * C;                                                                         \
				for (int64_t j = 0; j < C; j++) /* axis 0: + C5(up) - C5(me), branch-free */                       \
					out[j] = (T)(me[j] - ((me[j] > 0) & (me[j] >= dn[j])) + ((up[j] > 0) & (up[j] >= me[j])));       \
				T cb[C + 1]; /* axis 1 on the row just made: its C5 per PE, then the update */                       \
				for (int64_t j = 0; j < C - 1; j++)                                                                  \
					cb[j + 1] = (T)((out[j] > 0) & (out[j] >= out[j + 1]));                                          \
				cb[0] = cb[C] = (T)((out[C - 1] > 0) & (out[C - 1] >= out[0]));                                       \
				for (int64_t j = 0; j < C; j++)                                                                      \
					out[j] = (T)(out[j] - cb[j + 1] + cb[j]);                                                        \
			}                                                                                                        \
		}                                                                                                            \
		return t;                                                                                                    \
	}
STEP_T(uint8_t)
STEP_T(int16_t)
STEP_T(int32_t)

int64_t peer_lm_c5_strong(int32_t *L, int64_t R, int64_t C, int64_t steps, int until_balanced, int threads)
{
	int32_t mx = 0;
	for (int64_t i = 0; i < R * C; i++)
		mx = L[i] > mx ? L[i] : mx;
	const size_t w = mx < 256 ? 1 : mx < 32768 ? 2 : 4;
	void *g = w == 4 ? (void *)L : malloc((size_t)(R * C) * w), *old = malloc((size_t)(R * C) * w);
	if (!g || !old) {
		if (g != L)
			free(g);
		free(old);
		return -1;
	}
	int64_t t;
	if (w == 1) {
		uint8_t *b = g;
		for (int64_t i = 0; i < R * C; i++)
			b[i] = (uint8_t)L[i];
		t = steps_uint8_t(b, old, R, C, steps, until_balanced, threads);
		for (int64_t i = 0; i < R * C; i++)
			L[i] = b[i];
	} else if (w == 2) {
		int16_t *h = g;
		for (int64_t i = 0; i < R * C; i++)
			h[i] = (int16_t)L[i];
		t = steps_int16_t(h, old, R, C, steps, until_balanced, threads);
		for (int64_t i = 0; i < R * C; i++)
			L[i] = h[i];
	} else
		t = steps_int32_t(L, old, R, C, steps, until_balanced, threads);
	if (g != L)
		free(g);
	free(old);
	return t;
}
