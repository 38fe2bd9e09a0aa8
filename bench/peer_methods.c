/* peer_methods.c — what a researcher writes first for each method but
 * LM-C5 (whose loop is bench/peer_lm_c5.c, kept as its figures were
 * measured), on a 2-D torus of R x C
 * PEs (R, C >= 3, so that every PE has four links): plain loops over a dense
 * row-major grid, a copy where the method reads the old state, the same
 * arithmetic as the method's definition (the paper's equation as a flow per
 * link), nothing else: no counters, no threads, no intrinsics. Compiled
 * with -O3 -march=native (bench/meson.build). `lbtorus bench --peers` runs
 * each beside lbtorus and checks the final grid bit for bit before it
 * compares the times: the operations are the methods' own (the kernels'
 * references, kernels/ref/), in the order on which the bits depend. */
#include <string.h>

#include "peer_methods.h"

#define UP(i) ((i) + R - 1) % R
#define DN(i) ((i) + 1) % R
#define LF(j) ((j) + C - 1) % C
#define RT(j) ((j) + 1) % C

/* Cybenko's first-order diffusion (fos, ca): the flow a (w_i - w_j) on each
 * link to the PE below and to the right; w_i - (out) + (in). */
static void fos(double *w, double *f0, double *f1, int64_t R, int64_t C, double a)
{
	for (int64_t i = 0; i < R; i++)
		for (int64_t j = 0; j < C; j++) {
			f0[i * C + j] = a * (w[i * C + j] - w[DN(i) * C + j]);
			f1[i * C + j] = a * (w[i * C + j] - w[i * C + RT(j)]);
		}
	for (int64_t i = 0; i < R; i++)
		for (int64_t j = 0; j < C; j++)
			w[i * C + j] = w[i * C + j] - (f0[i * C + j] + f1[i * C + j]) + (f0[UP(i) * C + j] + f1[i * C + LF(j)]);
}

/* The same with integer flows truncated towards zero (fos-int; fos-speed-int
 * with uniform speeds, whose weight Mr is one number m on every link: the
 * flow trunc(m w_i - m w_j)). */
static void fos_int(int32_t *L, int64_t *f0, int64_t *f1, int64_t R, int64_t C, double a, int speed)
{
	for (int64_t i = 0; i < R; i++)
		for (int64_t j = 0; j < C; j++) {
			const int32_t l = L[i * C + j], dn = L[DN(i) * C + j], rt = L[i * C + RT(j)];
			if (speed) {
				f0[i * C + j] = (int64_t)(a * l - a * dn);
				f1[i * C + j] = (int64_t)(a * l - a * rt);
			} else {
				f0[i * C + j] = (int64_t)(a * (double)((int64_t)l - dn));
				f1[i * C + j] = (int64_t)(a * (double)((int64_t)l - rt));
			}
		}
	for (int64_t i = 0; i < R; i++)
		for (int64_t j = 0; j < C; j++)
			L[i * C + j] = (int32_t)(L[i * C + j] - f0[i * C + j] - f1[i * C + j] + f0[UP(i) * C + j] + f1[i * C + LF(j)]);
}

/* fos-speed with uniform speeds: real loads, the flow m w_i - m w_j. */
static void fos_speed(double *w, double *f0, double *f1, int64_t R, int64_t C, double m)
{
	for (int64_t i = 0; i < R; i++)
		for (int64_t j = 0; j < C; j++) {
			f0[i * C + j] = m * w[i * C + j] - m * w[DN(i) * C + j];
			f1[i * C + j] = m * w[i * C + j] - m * w[i * C + RT(j)];
		}
	for (int64_t i = 0; i < R; i++)
		for (int64_t j = 0; j < C; j++)
			w[i * C + j] = w[i * C + j] - (f0[i * C + j] + f1[i * C + j]) + (f0[UP(i) * C + j] + f1[i * C + LF(j)]);
}

/* Henrich's NNA (eq. (3)/(5), §5's rounding) with |Δ| = 4 everywhere: the
 * net flow (5 L_i - 5 L_j) / 25 to i+1_d, rounded up while P_i can afford
 * it (the rounded-down amounts it sends first), a leftward one down. */
static void nna(int32_t *L, int64_t *f0, int64_t *f1, int64_t R, int64_t C)
{
	for (int64_t i = 0; i < R; i++)
		for (int64_t j = 0; j < C; j++) {
			const int64_t l = L[i * C + j];
			const int64_t nb[4] = {L[UP(i) * C + j], L[DN(i) * C + j], L[i * C + LF(j)], L[i * C + RT(j)]};
			int64_t sent = 0, num[2] = {5 * l - 5 * nb[1], 5 * l - 5 * nb[3]};
			for (int k = 0; k < 4; k++) {
				const int64_t n = 5 * l - 5 * nb[k];
				sent += n > 0 ? n / 25 : 0;
			}
			int64_t f[2];
			for (int d = 0; d < 2; d++) {
				if (num[d] > 0) {
					f[d] = num[d] / 25;
					if (num[d] % 25 && sent + 1 <= l) {
						f[d]++;
						sent++;
					}
				} else
					f[d] = -(-num[d] / 25);
			}
			f0[i * C + j] = f[0];
			f1[i * C + j] = f[1];
		}
	for (int64_t i = 0; i < R; i++)
		for (int64_t j = 0; j < C; j++)
			L[i * C + j] = (int32_t)(L[i * C + j] - f0[i * C + j] - f1[i * C + j] + f0[UP(i) * C + j] + f1[i * C + LF(j)]);
}

/* Henrich's deficiency-based NNA (eq. (4), §5's rounding) with |Δ| = 4:
 * a PE above its local mean sends (L_i - mean) h_j / H to each lower
 * neighbour j (h_j = L_i - L_j), the quotients exact (128-bit products),
 * rounded as nna's. r[0..3]: what each PE sends down, right, up, left. */
static void nna_def(int32_t *L, int64_t *r[4], int64_t R, int64_t C)
{
	for (int64_t i = 0; i < R; i++)
		for (int64_t j = 0; j < C; j++) {
			const int64_t p = i * C + j, l = L[p];
			const int64_t nb[4] = {L[DN(i) * C + j], L[i * C + RT(j)], L[UP(i) * C + j], L[i * C + LF(j)]};
			int64_t S = l, H = 0, h[4];
			for (int s = 0; s < 4; s++) {
				h[s] = l > nb[s] ? l - nb[s] : 0;
				S += nb[s];
				H += h[s];
			}
			const __int128 surplus = (__int128)l * 5 - S;
			for (int s = 0; s < 4; s++)
				r[s][p] = 0;
			if (surplus <= 0 || H == 0)
				continue;
			const __int128 den = (__int128)5 * H;
			int64_t sent = 0, q[4];
			int frac[4];
			for (int s = 0; s < 4; s++) {
				q[s] = (int64_t)(surplus * h[s] / den);
				frac[s] = surplus * h[s] % den != 0;
				sent += q[s];
			}
			for (int s = 0; s < 2; s++) /* down and right: rounded up while affordable */
				if (frac[s] && sent + 1 <= l) {
					q[s]++;
					sent++;
				}
			for (int s = 0; s < 4; s++)
				r[s][p] = q[s];
		}
	for (int64_t i = 0; i < R; i++)
		for (int64_t j = 0; j < C; j++) {
			const int64_t p = i * C + j;
			L[p] = (int32_t)(L[p] - r[0][p] - r[1][p] - r[2][p] - r[3][p] + r[0][UP(i) * C + j] + r[1][i * C + LF(j)] +
			                 r[2][DN(i) * C + j] + r[3][i * C + RT(j)]);
		}
}

/* Henrich's Liquid model (Table 1, Definition 1) under condition `cond`:
 * P_i shifts one element to P_{i+1}, given L_{i-1}, L_i, L_{i+1}. */
static inline int32_t shift(int cond, int32_t prev, int32_t l, int32_t next)
{
	const int32_t c1 = l > 1, c2 = c1 | ((l == 1) & (prev > 1)); /* & and |: branch-free, so the loops vectorize */
	switch (cond) {
	case 0: return l > 0;
	case 1: return c1;
	case 2: return c2;
	case 3: return c1 & (l >= next);
	default: return c2 & (l >= next); /* C4 */
	}
}

/* One step: L_i += C(i-1) - C(i) along the columns from a copy of the
 * grid (old), then along each row from a copy with two cells of its wrap
 * before it and one after (row: C + 3); C(i-1) reads L_{i-2}. */
static inline __attribute__((always_inline)) void lm(int cond, int32_t *L, int32_t *old, int32_t *row, int64_t R,
                                                     int64_t C)
{
	memcpy(old, L, (size_t)(R * C) * sizeof *old);
	for (int64_t i = 0; i < R; i++) {
		const int32_t *up2 = old + (i + R - 2) % R * C, *up = old + UP(i) * C, *me = old + i * C,
		              *dn = old + DN(i) * C;
		int32_t *out = L + i * C;
		for (int64_t j = 0; j < C; j++)
			out[j] = me[j] - shift(cond, up[j], me[j], dn[j]) + shift(cond, up2[j], up[j], me[j]);
	}
	for (int64_t i = 0; i < R; i++) {
		int32_t *r = L + i * C, *w = row + 2; /* w[-2 .. C]: the row and its wrap */
		memcpy(w, r, (size_t)C * sizeof *row);
		w[-2] = r[C - 2];
		w[-1] = r[C - 1];
		w[C] = r[0];
		for (int64_t j = 0; j < C; j++)
			r[j] = w[j] - shift(cond, w[j - 1], w[j], w[j + 1]) + shift(cond, w[j - 2], w[j - 1], w[j]);
	}
}

/* The condition a constant in each loop, as one writes it. */
static void lm_step(int cond, int32_t *L, int32_t *old, int32_t *row, int64_t R, int64_t C)
{
	switch (cond) {
	case 0: lm(0, L, old, row, R, C); break;
	case 1: lm(1, L, old, row, R, C); break;
	case 2: lm(2, L, old, row, R, C); break;
	case 3: lm(3, L, old, row, R, C); break;
	default: lm(4, L, old, row, R, C); break;
	}
}

/* Cybenko's dimension exchange: per axis (the first axis first), per edge
 * colour (link (k, k+1): k mod 2; the wrap-around: 1 if the extent is even,
 * else 2), each pair moves lambda (a - b). Real or truncated integer flows. */
static int colour(int64_t k, int64_t n) { return k < n - 1 ? (int)(k & 1) : n % 2 ? 2 : 1; }
static void de_axis(double *w, int32_t *L, int64_t R, int64_t C, double lam, int axis)
{
	const int64_t n = axis ? C : R;
	for (int col = 0; col < 3; col++)
		for (int64_t k = 0; k < n; k++) {
			if (colour(k, n) != col)
				continue;
			for (int64_t o = 0; o < (axis ? R : C); o++) {
				const int64_t a = axis ? o * C + k : k * C + o, b = axis ? o * C + (k + 1) % C : (k + 1) % R * C + o;
				if (w) {
					const double f = lam * (w[a] - w[b]);
					w[a] -= f;
					w[b] += f;
				} else {
					const int64_t f = (int64_t)(lam * (double)((int64_t)L[a] - L[b]));
					L[a] = (int32_t)(L[a] - f);
					L[b] = (int32_t)(L[b] + f);
				}
			}
		}
}

void peer_method_run(int method, void *grid, int64_t R, int64_t C, int64_t steps, double param, int64_t *ws)
{
	const int64_t P = R * C;
	int64_t *f[4] = {ws, ws + P, ws + 2 * P, ws + 3 * P};
	int64_t *f0 = f[0], *f1 = f[1];
	double *w = grid;
	int32_t *L = grid;
	for (int64_t t = 0; t < steps; t++)
		switch (method) {
		case PEER_FOS: fos(w, (double *)f0, (double *)f1, R, C, param); break;
		case PEER_FOS_INT: fos_int(L, f0, f1, R, C, param, 0); break;
		case PEER_FOS_SPEED: fos_speed(w, (double *)f0, (double *)f1, R, C, param); break;
		case PEER_FOS_SPEED_INT: fos_int(L, f0, f1, R, C, param, 1); break;
		case PEER_NNA: nna(L, f0, f1, R, C); break;
		case PEER_NNA_DEF: nna_def(L, f, R, C); break;
		case PEER_DE: de_axis(w, NULL, R, C, param, 0), de_axis(w, NULL, R, C, param, 1); break;
		case PEER_DE_INT: de_axis(NULL, L, R, C, param, 0), de_axis(NULL, L, R, C, param, 1); break;
		case PEER_DE_AXIS: de_axis(w, NULL, R, C, param, (int)(t % 2)); break;
		case PEER_LM: lm_step((int)param, L, (int32_t *)f[0], (int32_t *)f[1], R, C); break;
		}
}

/* Lüling and Monien's randomized balancing (SPAA 1993, §2; the Appendix's
 * algorithm without load classes), on loads that a workload changes: every
 * step each PE receives 0, 1 or 2 tasks (uniformly) and completes one if it
 * has one (Cybenko's eq. (12), PEER_LULING_WORKLOAD); then every PE whose
 * load has reached f l_old or l_old / f initiates an operation, the
 * initiators (listed in PE order) in a random order, each in its turn again
 * only if its trigger still holds: it draws delta distinct partners among
 * the other PEs and the delta + 1 loads are equalized, total / (delta + 1)
 * each and the remainder one unit a member from a member drawn at random
 * on (in the order drawn), and each member's l_old becomes its new load.
 * The draws are lbtorus's (docs/methods.md): a pure function of (seed,
 * step, PE, purpose), SplitMix64 rounds (src/include/lbtorus/rng.h,
 * copied: bench/ reaches lbtorus through its public API only), the
 * workload's a 32-bit hash of the PE on a key of (seed, step, purpose). */
static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t key(uint64_t seed, int64_t t, uint64_t purpose)
{
	return mix(mix(seed + 0x9e3779b97f4a7c15ULL * (purpose + 1)) ^ ((uint64_t)t + 0x632be59bd9b4e019ULL));
}

/* A 64-bit draw for PE i, purpose p (the method's: p << 32 | k, its k-th draw of that purpose). */
static uint64_t draw(uint64_t seed, int64_t t, int64_t i, uint64_t p, uint64_t k)
{
	return mix(key(seed, t, p << 32 | k) ^ ((uint64_t)i * 0xd1b54a32d192ed03ULL + 0x8cb92ba72f3d8dd7ULL));
}

/* Uniform in lo..hi from the draw's high 32 bits (multiply-shift). */
static int64_t uniform(uint64_t r, int64_t lo, int64_t hi) { return lo + (int64_t)(((r >> 32) * (uint64_t)(hi - lo + 1)) >> 32); }

static uint32_t hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	return x ^ (x >> 16);
}

/* The workload's 32-bit draw for PE i (i < 2^32) on key k. */
static uint32_t draw32(uint64_t k, int64_t i) { return hash32(hash32((uint32_t)i ^ (uint32_t)k) + (uint32_t)(k >> 32)); }

/* The trigger: l reached f l_old or l_old / f, up to rounding (10 <= 11 / 1.1). */
static int triggered(int32_t l, int32_t lold, double f)
{
	const double x = l, o = lold;
	return x != o && (x >= f * o * (1 - 1e-12) || x <= o * (1 / f) * (1 + 1e-12));
}

enum { WL_ARRIVE = 101, LM_ORDER = 201, LM_PARTNER, LM_REMAINDER }; /* the draws' purposes */

void peer_luling_run(int32_t *L, int64_t R, int64_t C, int64_t steps, uint64_t seed, double f, int delta, int64_t *ws)
{
	const int64_t P = R * C;
	const int m = delta + 1;
	int32_t *lold = (int32_t *)ws;
	int64_t *init = ws + P, set[64];
	for (int64_t i = 0; i < P; i++)
		lold[i] = L[i];
	for (int64_t t = 0; t < steps; t++) {
		const uint64_t arrive = key(seed, t, WL_ARRIVE);
		for (int64_t i = 0; i < P; i++) {
			const int32_t have = L[i] + (int32_t)(((uint64_t)draw32(arrive, i) * 3) >> 32);
			L[i] = have - (have > 0);
		}
		int64_t n = 0;
		for (int64_t i = 0; i < P; i++)
			if (triggered(L[i], lold[i], f))
				init[n++] = i;
		for (int64_t a = n - 1; a > 0; a--) { /* Fisher-Yates */
			const int64_t r = uniform(draw(seed, t, a, LM_ORDER, 0), 0, a), x = init[a];
			init[a] = init[r];
			init[r] = x;
		}
		for (int64_t a = 0; a < n; a++) {
			const int64_t i = set[0] = init[a];
			if (!triggered(L[i], lold[i], f))
				continue;
			for (int got = 1, k = 0; got <= delta; k++) {
				int64_t x = uniform(draw(seed, t, i, LM_PARTNER, (uint64_t)k), 0, P - 2);
				x += x >= i; /* any PE but i */
				int dup = 0;
				for (int b = 1; b < got; b++)
					dup |= set[b] == x;
				if (!dup)
					set[got++] = x;
			}
			int64_t total = 0;
			for (int b = 0; b < m; b++)
				total += L[set[b]];
			const int ptr = (int)uniform(draw(seed, t, i, LM_REMAINDER, 0), 0, m - 1);
			for (int b = 0; b < m; b++)
				L[set[b]] = lold[set[b]] = (int32_t)(total / m + ((b - ptr + m) % m < total % m));
		}
	}
}
