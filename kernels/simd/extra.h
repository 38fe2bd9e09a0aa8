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

/* What simd.h does not spell: 64-bit sums, int32 sub/mullo/abs, lane indices, and
 * trunc(x / c) or trunc(a * x) through doubles, per width. (Debian's SIMDe
 * has no 512-bit int32 <-> double conversions: with native AVX-512 the 16
 * lanes go through two native 512-bit ones, emulated through four 256-bit
 * ones; the same IEEE operations on every lane either way.) */
#if W == 16
#define FADD64(acc, x) /* acc (W/2 int64 lanes) += the W non-negative int32 lanes of x */ \
	simde_mm512_add_epi64(simde_mm512_add_epi64((acc), simde_mm512_srli_epi64((x), 32)), simde_mm512_and_si512((x), simde_mm512_set1_epi64(0xffffffff)))
#define VSUB(a, b) simde_mm512_sub_epi32((a), (b))
#define VMULLO(a, b) simde_mm512_mullo_epi32((a), (b))
#define VABS(a) simde_mm512_abs_epi32(a)
#define VIOTA() simde_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#define MNE(a, b) ((M)~simde_mm512_cmpeq_epi32_mask((a), (b)))
#if defined(SIMDE_X86_AVX512F_NATIVE)
static ALWAYS_INLINE __m256i half(__m256i x, double a, int div)
{
	const __m512d d = _mm512_cvtepi32_pd(x), k = _mm512_set1_pd(a);
	return _mm512_cvttpd_epi32(div ? _mm512_div_pd(d, k) : _mm512_mul_pd(k, d));
}
static ALWAYS_INLINE V vconv(V x, double a, int div)
{
	return _mm512_inserti64x4(_mm512_castsi256_si512(half(_mm512_castsi512_si256(x), a, div)),
	                          half(_mm512_extracti64x4_epi64(x, 1), a, div), 1);
}
#else /* avx512emu: compiled for AVX2 */
static ALWAYS_INLINE simde__m128i quarter(simde__m128i x, double a, int div)
{
	simde__m256d d = simde_mm256_cvtepi32_pd(x), k = simde_mm256_set1_pd(a);
	return simde_mm256_cvttpd_epi32(div ? simde_mm256_div_pd(d, k) : simde_mm256_mul_pd(k, d));
}
static ALWAYS_INLINE V vconv(V x, double a, int div)
{
	V r = simde_mm512_castsi128_si512(quarter(simde_mm512_extracti32x4_epi32(x, 0), a, div));
	r = simde_mm512_inserti32x4(r, quarter(simde_mm512_extracti32x4_epi32(x, 1), a, div), 1);
	r = simde_mm512_inserti32x4(r, quarter(simde_mm512_extracti32x4_epi32(x, 2), a, div), 2);
	return simde_mm512_inserti32x4(r, quarter(simde_mm512_extracti32x4_epi32(x, 3), a, div), 3);
}
#endif
#elif W == 8
#define FADD64(acc, x) /* acc (W/2 int64 lanes) += the W non-negative int32 lanes of x */ \
	simde_mm256_add_epi64(simde_mm256_add_epi64((acc), simde_mm256_srli_epi64((x), 32)), simde_mm256_and_si256((x), simde_mm256_set1_epi64x(0xffffffff)))
#define VSUB(a, b) simde_mm256_sub_epi32((a), (b))
#define VMULLO(a, b) simde_mm256_mullo_epi32((a), (b))
#define VABS(a) simde_mm256_abs_epi32(a)
#define VIOTA() simde_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)
#define MNE(a, b) simde_mm256_xor_si256(simde_mm256_cmpeq_epi32((a), (b)), VSET1(-1))
static ALWAYS_INLINE simde__m128i quarter(simde__m128i x, double a, int div)
{
	simde__m256d d = simde_mm256_cvtepi32_pd(x), k = simde_mm256_set1_pd(a);
	return simde_mm256_cvttpd_epi32(div ? simde_mm256_div_pd(d, k) : simde_mm256_mul_pd(k, d));
}
static ALWAYS_INLINE V vconv(V x, double a, int div)
{
	V r = simde_mm256_castsi128_si256(quarter(simde_mm256_castsi256_si128(x), a, div));
	return simde_mm256_inserti128_si256(r, quarter(simde_mm256_extracti128_si256(x, 1), a, div), 1);
}
#else
#define FADD64(acc, x) /* acc (W/2 int64 lanes) += the W non-negative int32 lanes of x */ \
	simde_mm_add_epi64(simde_mm_add_epi64((acc), simde_mm_srli_epi64((x), 32)), simde_mm_and_si128((x), simde_mm_set1_epi64x(0xffffffff)))
#define VSUB(a, b) simde_mm_sub_epi32((a), (b))
#define VMULLO(a, b) simde_mm_mullo_epi32((a), (b))
#define VABS(a) simde_mm_abs_epi32(a)
#define VIOTA() simde_mm_setr_epi32(0, 1, 2, 3)
#define MNE(a, b) simde_mm_xor_si128(simde_mm_cmpeq_epi32((a), (b)), VSET1(-1))
static ALWAYS_INLINE simde__m128i half(simde__m128i x, double a, int div)
{
	simde__m128d d = simde_mm_cvtepi32_pd(x), k = simde_mm_set1_pd(a);
	return simde_mm_cvttpd_epi32(div ? simde_mm_div_pd(d, k) : simde_mm_mul_pd(k, d));
}
static ALWAYS_INLINE V vconv(V x, double a, int div)
{
	return simde_mm_unpacklo_epi64(half(x, a, div), half(simde_mm_unpackhi_epi64(x, x), a, div));
}
#endif

static inline int64_t fsum64(V x)
{
	int64_t a[W / 2] __attribute__((aligned(64)));
	VSTORE(a, x);
	int64_t t = 0;
	for (int i = 0; i < W / 2; i++)
		t += a[i];
	return t;
}

enum { NNA, FOS_ALPHA, FOS_DIV };

/* Vectors of WD = W/2 doubles: the same bytes as one V. */
#define WD (W / 2)
#if W == 16
typedef simde__m512d VR;
#define RLOAD(p) simde_mm512_load_pd(p)
#define RLOADU(p) simde_mm512_loadu_pd(p)
#define RSTORE(p, x) simde_mm512_store_pd((p), (x))
#define RSET1(x) simde_mm512_set1_pd(x)
#define RADD(a, b) simde_mm512_add_pd((a), (b))
#define RSUB(a, b) simde_mm512_sub_pd((a), (b))
#define RMUL(a, b) simde_mm512_mul_pd((a), (b))
#elif W == 8
typedef simde__m256d VR;
#define RLOAD(p) simde_mm256_load_pd(p)
#define RLOADU(p) simde_mm256_loadu_pd(p)
#define RSTORE(p, x) simde_mm256_store_pd((p), (x))
#define RSET1(x) simde_mm256_set1_pd(x)
#define RADD(a, b) simde_mm256_add_pd((a), (b))
#define RSUB(a, b) simde_mm256_sub_pd((a), (b))
#define RMUL(a, b) simde_mm256_mul_pd((a), (b))
#else
typedef simde__m128d VR;
#define RLOAD(p) simde_mm_load_pd(p)
#define RLOADU(p) simde_mm_loadu_pd(p)
#define RSTORE(p, x) simde_mm_store_pd((p), (x))
#define RSET1(x) simde_mm_set1_pd(x)
#define RADD(a, b) simde_mm_add_pd((a), (b))
#define RSUB(a, b) simde_mm_sub_pd((a), (b))
#define RMUL(a, b) simde_mm_mul_pd((a), (b))
#endif

#endif
