/* extra.h — vocabulary the method kernels of kernels/simd/ share beyond
 * simd.h: int32 sub/mullo/abs, lane indices, exact 64-bit sums, truncated
 * quotients through doubles, and vectors of W/2 doubles (VR) for the
 * real-valued loads. Included after simd.h, compiled per target like it. */
#ifndef LBTORUS_SIMD_EXTRA_H
#define LBTORUS_SIMD_EXTRA_H

#include "simd.h"
#ifdef _OPENMP
#include <omp.h>
static inline int lbt_thread_id(void) { return omp_get_thread_num(); }
static inline int lbt_team_size(void) { return omp_get_num_threads(); }
#else
static inline int lbt_thread_id(void) { return 0; }
static inline int lbt_team_size(void) { return 1; }
#endif

/* What simd.h does not spell: 64-bit sums, int32 sub/mullo/abs and lane
 * indices, per width. */
#if W == 16
#define FADD64(acc, x) /* acc (W/2 int64 lanes) += the W non-negative int32 lanes of x */ \
	simde_mm512_add_epi64(simde_mm512_add_epi64((acc), simde_mm512_srli_epi64((x), 32)), simde_mm512_and_si512((x), simde_mm512_set1_epi64(0xffffffff)))
#define VSUB(a, b) simde_mm512_sub_epi32((a), (b))
#define VMULLO(a, b) simde_mm512_mullo_epi32((a), (b))
#define VABS(a) simde_mm512_abs_epi32(a)
#define VIOTA() simde_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#define MNE(a, b) ((M)~simde_mm512_cmpeq_epi32_mask((a), (b)))
#elif W == 8
#define FADD64(acc, x) /* acc (W/2 int64 lanes) += the W non-negative int32 lanes of x */ \
	simde_mm256_add_epi64(simde_mm256_add_epi64((acc), simde_mm256_srli_epi64((x), 32)), simde_mm256_and_si256((x), simde_mm256_set1_epi64x(0xffffffff)))
#define VSUB(a, b) simde_mm256_sub_epi32((a), (b))
#define VMULLO(a, b) simde_mm256_mullo_epi32((a), (b))
#define VABS(a) simde_mm256_abs_epi32(a)
#define VIOTA() simde_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)
#define MNE(a, b) simde_mm256_xor_si256(simde_mm256_cmpeq_epi32((a), (b)), VSET1(-1))
#else
#define FADD64(acc, x) /* acc (W/2 int64 lanes) += the W non-negative int32 lanes of x */ \
	simde_mm_add_epi64(simde_mm_add_epi64((acc), simde_mm_srli_epi64((x), 32)), simde_mm_and_si128((x), simde_mm_set1_epi64x(0xffffffff)))
#define VSUB(a, b) simde_mm_sub_epi32((a), (b))
#define VMULLO(a, b) simde_mm_mullo_epi32((a), (b))
#define VABS(a) simde_mm_abs_epi32(a)
#define VIOTA() simde_mm_setr_epi32(0, 1, 2, 3)
#define MNE(a, b) simde_mm_xor_si128(simde_mm_cmpeq_epi32((a), (b)), VSET1(-1))
#endif

/* Vectors of WD = W/2 doubles: the same bytes as one V. */
#define WD (W / 2)
#if W == 16
typedef simde__m512d VR;
#define RLOAD(p) simde_mm512_load_pd(p)
#define RLOADU(p) simde_mm512_loadu_pd(p)
#define RSTORE(p, x) simde_mm512_store_pd((p), (x))
#define RSTOREU(p, x) simde_mm512_storeu_pd((p), (x))
#define RSET1(x) simde_mm512_set1_pd(x)
#define RADD(a, b) simde_mm512_add_pd((a), (b))
#define RSUB(a, b) simde_mm512_sub_pd((a), (b))
#define RMUL(a, b) simde_mm512_mul_pd((a), (b))
#define RDIV(a, b) simde_mm512_div_pd((a), (b))
#elif W == 8
typedef simde__m256d VR;
#define RLOAD(p) simde_mm256_load_pd(p)
#define RLOADU(p) simde_mm256_loadu_pd(p)
#define RSTORE(p, x) simde_mm256_store_pd((p), (x))
#define RSTOREU(p, x) simde_mm256_storeu_pd((p), (x))
#define RSET1(x) simde_mm256_set1_pd(x)
#define RADD(a, b) simde_mm256_add_pd((a), (b))
#define RSUB(a, b) simde_mm256_sub_pd((a), (b))
#define RMUL(a, b) simde_mm256_mul_pd((a), (b))
#define RDIV(a, b) simde_mm256_div_pd((a), (b))
#else
typedef simde__m128d VR;
#define RLOAD(p) simde_mm_load_pd(p)
#define RLOADU(p) simde_mm_loadu_pd(p)
#define RSTORE(p, x) simde_mm_store_pd((p), (x))
#define RSTOREU(p, x) simde_mm_storeu_pd((p), (x))
#define RSET1(x) simde_mm_set1_pd(x)
#define RADD(a, b) simde_mm_add_pd((a), (b))
#define RSUB(a, b) simde_mm_sub_pd((a), (b))
#define RMUL(a, b) simde_mm_mul_pd((a), (b))
#define RDIV(a, b) simde_mm_div_pd((a), (b))
#endif

/* The one int32 <-> double pair: WD int32 lanes (VH, the low half of a V;
 * on SSE4.1 the low two lanes of one) to WD doubles (RCVT, exact) and WD
 * doubles to WD int32 lanes (RCVTT, truncated: cvttpd). Debian's SIMDe has
 * no 512-bit ones: with native AVX-512 they are the native instructions,
 * emulated (avx512emu, compiled for AVX2) each 256-bit half of the doubles
 * through the AVX2 ones; the same IEEE operation on every lane either way. */
#if W == 16
typedef simde__m256i VH;
#if defined(SIMDE_X86_AVX512F_NATIVE)
#define RCVT(x) _mm512_cvtepi32_pd(x)
#define RCVTT(x) _mm512_cvttpd_epi32(x)
#else
#define RCVT(x) simde_mm512_insertf64x4(simde_mm512_castpd256_pd512(simde_mm256_cvtepi32_pd(simde_mm256_castsi256_si128(x))), \
                                        simde_mm256_cvtepi32_pd(simde_mm256_extracti128_si256((x), 1)), 1)
#define RCVTT(x) simde_mm256_set_m128i(simde_mm256_cvttpd_epi32(simde_mm512_extractf64x4_pd((x), 1)), \
                                       simde_mm256_cvttpd_epi32(simde_mm512_extractf64x4_pd((x), 0)))
#endif
#define VLO(x) simde_mm512_castsi512_si256(x)
#define VHI(x) simde_mm512_extracti64x4_epi64((x), 1)
#define VJOIN(lo, hi) simde_mm512_inserti64x4(simde_mm512_castsi256_si512(lo), (hi), 1)
#elif W == 8
typedef simde__m128i VH;
#define RCVT(x) simde_mm256_cvtepi32_pd(x)
#define RCVTT(x) simde_mm256_cvttpd_epi32(x)
#define VLO(x) simde_mm256_castsi256_si128(x)
#define VHI(x) simde_mm256_extracti128_si256((x), 1)
#define VJOIN(lo, hi) simde_mm256_inserti128_si256(simde_mm256_castsi128_si256(lo), (hi), 1)
#else
typedef simde__m128i VH;
#define RCVT(x) simde_mm_cvtepi32_pd(x)
#define RCVTT(x) simde_mm_cvttpd_epi32(x)
#define VLO(x) (x)
#define VHI(x) simde_mm_unpackhi_epi64((x), (x))
#define VJOIN(lo, hi) simde_mm_unpacklo_epi64((lo), (hi))
#endif

/* trunc(x / a) (div) or trunc(a * x) of the W int32 lanes of x through
 * doubles, a half at a time. */
static ALWAYS_INLINE VH vconv_half(VH x, double a, int div)
{
	const VR d = RCVT(x), k = RSET1(a);
	return RCVTT(div ? RDIV(d, k) : RMUL(k, d));
}
static ALWAYS_INLINE V vconv(V x, double a, int div)
{
	return VJOIN(vconv_half(VLO(x), a, div), vconv_half(VHI(x), a, div));
}

static inline int64_t fsum64(V x)
{
	int64_t a[W / 2] __attribute__((aligned(64)));
	VSTORE(a, x);
	int64_t t = 0;
	for (int i = 0; i < W / 2; i++)
		t += a[i];
	return t;
}

/* GxG transposes of doubles, a row a lane: G rows' loads p[0..G-1] + i
 * (unaligned) to G vectors, c[k] lane q = p[q][i + k], PE i + k of row q.
 * A chain of adds or compare-and-selects down a lane then takes its row's
 * values in order, so it is the scalar row's chain; and a transpose is its
 * own inverse. tr2x2: one unpack pair; tr4x4: unpacks, then the 128-bit
 * halves swapped (permute2f128); tr8x8: unpacks, then 128-bit blocks twice
 * (shuffle_f64x2). Each is compiled where a kernel uses it:
 *   fos.c   chain8 (rows' sums of the amount moved, CHAIN_G below):
 *           tr2x2 on SSE4.1, tr4x4 on AVX2 and AVX-512;
 *   fos.c   lanes_move (rows into and out of lanes of WD, RTRANSPOSE):
 *           tr2x2, tr4x4, tr8x8 on SSE4.1, AVX2, AVX-512;
 *   speed.c chains (rows' amount moved, totals and extremes, CHAIN_G = WD):
 *           tr2x2, tr4x4, tr8x8 on SSE4.1, AVX2, AVX-512. */
#if W == 4
static ALWAYS_INLINE void tr2x2(const double *const *p, int64_t i, simde__m128d c[2])
{
	const simde__m128d a0 = simde_mm_loadu_pd(p[0] + i), a1 = simde_mm_loadu_pd(p[1] + i);
	c[0] = simde_mm_unpacklo_pd(a0, a1);
	c[1] = simde_mm_unpackhi_pd(a0, a1);
}
#define RTRANSPOSE tr2x2
#else
static ALWAYS_INLINE void tr4x4(const double *const *p, int64_t i, simde__m256d c[4])
{
	const simde__m256d a0 = simde_mm256_loadu_pd(p[0] + i), a1 = simde_mm256_loadu_pd(p[1] + i),
	                   a2 = simde_mm256_loadu_pd(p[2] + i), a3 = simde_mm256_loadu_pd(p[3] + i);
	const simde__m256d t0 = simde_mm256_unpacklo_pd(a0, a1), t1 = simde_mm256_unpackhi_pd(a0, a1); /* PEs i, i+2 / i+1, i+3 */
	const simde__m256d t2 = simde_mm256_unpacklo_pd(a2, a3), t3 = simde_mm256_unpackhi_pd(a2, a3);
	c[0] = simde_mm256_permute2f128_pd(t0, t2, 0x20);
	c[1] = simde_mm256_permute2f128_pd(t1, t3, 0x20);
	c[2] = simde_mm256_permute2f128_pd(t0, t2, 0x31);
	c[3] = simde_mm256_permute2f128_pd(t1, t3, 0x31);
}
#if W == 8
#define RTRANSPOSE tr4x4
#endif
#endif
#if W == 16
static ALWAYS_INLINE void tr8x8(const double *const *p, int64_t i, simde__m512d c[8])
{
	simde__m512d t[8], u[8];
	for (int k = 0; k < 8; k += 2) { /* t[k]: PEs i, i+2, i+4, i+6 of rows k, k+1, a 128-bit block each; t[k+1]:
	                                    PEs i+1, i+3, i+5, i+7 */
		const simde__m512d a0 = simde_mm512_loadu_pd(p[k] + i), a1 = simde_mm512_loadu_pd(p[k + 1] + i);
		t[k] = simde_mm512_unpacklo_pd(a0, a1);
		t[k + 1] = simde_mm512_unpackhi_pd(a0, a1);
	}
	for (int e = 0; e < 2; e++) /* u[e + 4h]: blocks 0 and 2 of t[e + 4h], then of t[e + 4h + 2] (rows 4h .. 4h+3,
	                               PEs i + e, i + e + 4); u[e + 4h + 2]: blocks 1 and 3 (PEs i + e + 2, i + e + 6) */
		for (int h = 0; h < 2; h++) {
			u[e + 4 * h] = simde_mm512_shuffle_f64x2(t[e + 4 * h], t[e + 4 * h + 2], 0x88);
			u[e + 4 * h + 2] = simde_mm512_shuffle_f64x2(t[e + 4 * h], t[e + 4 * h + 2], 0xdd);
		}
	for (int e = 0; e < 2; e++) { /* c[q]: PE i + q of rows 0-3 (from u[.]) and 4-7 (from u[. + 4]) */
		c[e] = simde_mm512_shuffle_f64x2(u[e], u[e + 4], 0x88);
		c[e + 4] = simde_mm512_shuffle_f64x2(u[e], u[e + 4], 0xdd);
		c[e + 2] = simde_mm512_shuffle_f64x2(u[e + 2], u[e + 6], 0x88);
		c[e + 6] = simde_mm512_shuffle_f64x2(u[e + 2], u[e + 6], 0xdd);
	}
}
#define RTRANSPOSE tr8x8
#endif

/* Vectors of G doubles for rows' chains side by side, a row a lane, filled
 * by the GxG transpose GTRANSPOSE: G is the includer's, CHAIN_G defined
 * before it includes this file (2 where W = 4, at most WD). fos.c takes
 * G = 4 where the target has AVX (on AVX-512 too), 2 on SSE4.1 (SIMDe's
 * 256-bit emulation there is several times slower than the scalar chains);
 * speed.c takes G = WD. */
#ifdef CHAIN_G
enum { G = CHAIN_G };
#if CHAIN_G == 2
typedef simde__m128d VG;
#define GLOADU(p) simde_mm_loadu_pd(p)
#define GSTOREU(p, x) simde_mm_storeu_pd((p), (x))
#define GADD(a, b) simde_mm_add_pd((a), (b))
#define GMAX(a, b) simde_mm_max_pd((a), (b))
#define GMIN(a, b) simde_mm_min_pd((a), (b))
#define GANDN(a, b) simde_mm_andnot_pd((a), (b))
#define GSET1(x) simde_mm_set1_pd(x)
#define GTRANSPOSE tr2x2
#elif CHAIN_G == 4
typedef simde__m256d VG;
#define GLOADU(p) simde_mm256_loadu_pd(p)
#define GSTOREU(p, x) simde_mm256_storeu_pd((p), (x))
#define GADD(a, b) simde_mm256_add_pd((a), (b))
#define GMAX(a, b) simde_mm256_max_pd((a), (b))
#define GMIN(a, b) simde_mm256_min_pd((a), (b))
#define GANDN(a, b) simde_mm256_andnot_pd((a), (b))
#define GSET1(x) simde_mm256_set1_pd(x)
#define GTRANSPOSE tr4x4
#elif CHAIN_G == 8
typedef simde__m512d VG;
#define GLOADU(p) simde_mm512_loadu_pd(p)
#define GSTOREU(p, x) simde_mm512_storeu_pd((p), (x))
#define GADD(a, b) simde_mm512_add_pd((a), (b))
#define GMAX(a, b) simde_mm512_max_pd((a), (b))
#define GMIN(a, b) simde_mm512_min_pd((a), (b))
#define GANDN(a, b) simde_mm512_castsi512_pd(simde_mm512_andnot_si512(simde_mm512_castpd_si512(a), \
                                                                        simde_mm512_castpd_si512(b)))
#define GSET1(x) simde_mm512_set1_pd(x)
#define GTRANSPOSE tr8x8
#endif
#endif

enum { NNA, FOS_ALPHA, FOS_DIV };

#endif
