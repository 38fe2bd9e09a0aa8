/* simd.h — the vector vocabulary the kernels of kernels/simd/ are written in,
 * one SIMDe spelling per target width, so each kernel file is written once.
 *
 * Every file of kernels/simd/ is compiled once per ISA target (meson.build:
 * `simd_targets`) with that target's -m flags, -DLBT_TARGET=name and
 * -DLBT_SIMD_W=lanes (4: sse41, 8: avx2, 16: avx512). LBT_SIMD_FN(x) gives
 * each object's functions a per-target name (x_avx2, ...), so the objects
 * link side by side; kernels/dispatch.c (built at baseline) calls the init
 * of the best target the CPU runs.
 *
 * V is a vector of W int32 lanes, M a lane mask: an AVX-512 mask register
 * at W = 16, a vector of 0/-1 lanes below. Masks are only combined with the
 * M* macros, so one spelling serves both.
 *
 * Exact sums in 32-bit lanes: add x to s (mod 2^32) and x >> 16 to h. After
 * at most 65536 additions per lane, the true sum is 65536 h + r with
 * 0 <= r < 2^32, and r = s - 65536 h (mod 2^32), so vtotal() recovers it
 * (loads are non-negative: every method keeps them so, inputs are checked). */
#ifndef LBTORUS_SIMD_H
#define LBTORUS_SIMD_H

#include <stdint.h>

#include "lbtorus/kernels.h"
#include "../internal.h" /* LBT_ROW_LEAD, lbt_alloc_aligned */

#ifndef LBT_SIMD_W
#error "kernels/simd/ files are compiled per target: meson passes -DLBT_SIMD_W and -DLBT_TARGET"
#endif
#define LBT_SIMD_CAT2(a, b) a##_##b
#define LBT_SIMD_CAT(a, b) LBT_SIMD_CAT2(a, b)
#define LBT_SIMD_FN(x) LBT_SIMD_CAT(x, LBT_TARGET)
#define LBT_SIMD_STR2(x) #x
#define LBT_SIMD_STR(x) LBT_SIMD_STR2(x)
#if LBT_SIMD_W == 16
#include <simde/x86/avx512.h>
#elif LBT_SIMD_W == 8
#include <simde/x86/avx2.h>
#elif LBT_SIMD_W == 4
#include <simde/x86/sse4.1.h>
#endif
#define W LBT_SIMD_W
#define ALWAYS_INLINE inline __attribute__((always_inline))

#if W == 16
typedef simde__m512i V;
typedef simde__mmask16 M;
#define VLOAD(p) simde_mm512_load_si512((const void *)(p))
#define VLOADU(p) simde_mm512_loadu_si512((const void *)(p))
#define VSTORE(p, x) simde_mm512_store_si512((void *)(p), (x))
#define VSET1(x) simde_mm512_set1_epi32(x)
#define VADD(a, b) simde_mm512_add_epi32((a), (b))
#define VSRL16(x) simde_mm512_srli_epi32((x), 16)
#define VMAX(a, b) simde_mm512_max_epi32((a), (b))
#define VMIN(a, b) simde_mm512_min_epi32((a), (b))
#define MGT(a, b) simde_mm512_cmpgt_epi32_mask((a), (b))
#define MGE(a, b) simde_mm512_cmpge_epi32_mask((a), (b))
#define MEQ(a, b) simde_mm512_cmpeq_epi32_mask((a), (b))
#define MAND(a, b) ((M)((a) & (b)))
#define MOR(a, b) ((M)((a) | (b)))
#define MALL ((M)0xffff)
#define MNONE ((M)0)
#define MFIRST(k) ((M)((1u << (k)) - 1u))                          /* lanes < k, 0 <= k <= W */
#define VINC(v, m) simde_mm512_mask_add_epi32((v), (m), (v), VSET1(1)) /* v + (m ? 1 : 0) */
#define VDEC(v, m) simde_mm512_mask_sub_epi32((v), (m), (v), VSET1(1))
#define VSEL(m, a, b) simde_mm512_mask_blend_epi32((m), (b), (a))     /* m ? a : b */
/* Lanes i-1, i-2 of the row whose chunks are prev, cur; lanes i+1 from cur, next. */
static const int32_t lbt_simd_iota[32] __attribute__((aligned(64))) = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
#define SHL1(prev, cur) simde_mm512_permutex2var_epi32((prev), VLOADU(lbt_simd_iota + 15), (cur))
#define SHL2(prev, cur) simde_mm512_permutex2var_epi32((prev), VLOADU(lbt_simd_iota + 14), (cur))
#define SHR1(cur, next) simde_mm512_permutex2var_epi32((cur), VLOADU(lbt_simd_iota + 1), (next))
#elif W == 8
typedef simde__m256i V;
typedef simde__m256i M;
#define VLOAD(p) simde_mm256_load_si256((const void *)(p))
#define VLOADU(p) simde_mm256_loadu_si256((const void *)(p))
#define VSTORE(p, x) simde_mm256_store_si256((void *)(p), (x))
#define VSET1(x) simde_mm256_set1_epi32(x)
#define VADD(a, b) simde_mm256_add_epi32((a), (b))
#define VSRL16(x) simde_mm256_srli_epi32((x), 16)
#define VMAX(a, b) simde_mm256_max_epi32((a), (b))
#define VMIN(a, b) simde_mm256_min_epi32((a), (b))
#define MGT(a, b) simde_mm256_cmpgt_epi32((a), (b))
#define MGE(a, b) simde_mm256_cmpeq_epi32(simde_mm256_max_epi32((a), (b)), (a))
#define MEQ(a, b) simde_mm256_cmpeq_epi32((a), (b))
#define MAND(a, b) simde_mm256_and_si256((a), (b))
#define MOR(a, b) simde_mm256_or_si256((a), (b))
#define MALL VSET1(-1)
#define MNONE VSET1(0)
static const int32_t lbt_simd_iota[8] __attribute__((aligned(64))) = {0, 1, 2, 3, 4, 5, 6, 7};
#define MFIRST(k) simde_mm256_cmpgt_epi32(VSET1((int)(k)), VLOAD(lbt_simd_iota))
#define VINC(v, m) simde_mm256_sub_epi32((v), (m)) /* a true lane is -1 */
#define VDEC(v, m) simde_mm256_add_epi32((v), (m))
#define VSEL(m, a, b) simde_mm256_blendv_epi8((b), (a), (m))
#define SHL1(prev, cur) simde_mm256_alignr_epi8((cur), simde_mm256_permute2x128_si256((prev), (cur), 0x21), 12)
#define SHL2(prev, cur) simde_mm256_alignr_epi8((cur), simde_mm256_permute2x128_si256((prev), (cur), 0x21), 8)
#define SHR1(cur, next) simde_mm256_alignr_epi8(simde_mm256_permute2x128_si256((cur), (next), 0x21), (cur), 4)
#elif W == 4
typedef simde__m128i V;
typedef simde__m128i M;
#define VLOAD(p) simde_mm_load_si128((const void *)(p))
#define VLOADU(p) simde_mm_loadu_si128((const void *)(p))
#define VSTORE(p, x) simde_mm_store_si128((void *)(p), (x))
#define VSET1(x) simde_mm_set1_epi32(x)
#define VADD(a, b) simde_mm_add_epi32((a), (b))
#define VSRL16(x) simde_mm_srli_epi32((x), 16)
#define VMAX(a, b) simde_mm_max_epi32((a), (b))
#define VMIN(a, b) simde_mm_min_epi32((a), (b))
#define MGT(a, b) simde_mm_cmpgt_epi32((a), (b))
#define MGE(a, b) simde_mm_cmpeq_epi32(simde_mm_max_epi32((a), (b)), (a))
#define MEQ(a, b) simde_mm_cmpeq_epi32((a), (b))
#define MAND(a, b) simde_mm_and_si128((a), (b))
#define MOR(a, b) simde_mm_or_si128((a), (b))
#define MALL VSET1(-1)
#define MNONE VSET1(0)
static const int32_t lbt_simd_iota[4] __attribute__((aligned(64))) = {0, 1, 2, 3};
#define MFIRST(k) simde_mm_cmpgt_epi32(VSET1((int)(k)), VLOAD(lbt_simd_iota))
#define VINC(v, m) simde_mm_sub_epi32((v), (m))
#define VDEC(v, m) simde_mm_add_epi32((v), (m))
#define VSEL(m, a, b) simde_mm_blendv_epi8((b), (a), (m))
#define SHL1(prev, cur) simde_mm_alignr_epi8((cur), (prev), 12)
#define SHL2(prev, cur) simde_mm_alignr_epi8((cur), (prev), 8)
#define SHR1(cur, next) simde_mm_alignr_epi8((next), (cur), 4)
#else
#error "LBT_SIMD_W must be 4, 8 or 16"
#endif

/* Horizontal reductions, off the hot paths (once per row or per thread). */
static inline int64_t vsum32(V x)
{
	int32_t a[W] __attribute__((aligned(64)));
	VSTORE(a, x);
	int64_t s = 0;
	for (int i = 0; i < W; i++)
		s += a[i];
	return s;
}
static inline int64_t vtotal(V s, V h)
{
	uint32_t a[W] __attribute__((aligned(64))), b[W] __attribute__((aligned(64)));
	VSTORE(a, s);
	VSTORE(b, h);
	int64_t t = 0;
	for (int i = 0; i < W; i++) {
		uint64_t hi = (uint64_t)b[i] << 16;
		t += (int64_t)(hi + (uint32_t)(a[i] - (uint32_t)hi));
	}
	return t;
}
static inline int32_t vmax32(V x)
{
	int32_t a[W] __attribute__((aligned(64)));
	VSTORE(a, x);
	int32_t m = a[0];
	for (int i = 1; i < W; i++)
		m = a[i] > m ? a[i] : m;
	return m;
}
static inline int32_t vmin32(V x)
{
	int32_t a[W] __attribute__((aligned(64)));
	VSTORE(a, x);
	int32_t m = a[0];
	for (int i = 1; i < W; i++)
		m = a[i] < m ? a[i] : m;
	return m;
}

/* Each target's kernels (one line per kernel file) and the init that puts
 * them into the dispatch table (kernels/simd/init.c). */
void LBT_SIMD_FN(lbt_simd_lm_step)(const lbt_view *v, int cond, lbt_counts *c);
int LBT_SIMD_FN(lbt_simd_lm_steps)(const lbt_view *v, int cond, int n, int32_t max, const lbt_steps_stop *stop,
                                   lbt_lm_cache *cache, lbt_counts *c); /* lm.c */
void LBT_SIMD_FN(lbt_simd_nna_step)(const lbt_view *v, lbt_counts *c);                                   /* flows.c */
void LBT_SIMD_FN(lbt_simd_nna_def_step)(const lbt_view *v, lbt_counts *c);                               /* nnadef.c */
void LBT_SIMD_FN(lbt_simd_fos_int_step)(const lbt_view *v, const lbt_diffusion *p, lbt_counts *c);     /* flows.c */
void LBT_SIMD_FN(lbt_simd_fos_step)(const lbt_view *v, const lbt_diffusion *p, lbt_counts *c);         /* fos.c */
int LBT_SIMD_FN(lbt_simd_fos_steps)(const lbt_view *v, const lbt_diffusion *p, int n, const lbt_steps_stop *stop,
                                    lbt_counts *c); /* fos.c */
void LBT_SIMD_FN(lbt_simd_de_step)(const lbt_view *v, double lambda, lbt_counts *c);                     /* de.c */
void LBT_SIMD_FN(lbt_simd_de_int_step)(const lbt_view *v, double lambda, lbt_counts *c);                 /* de.c */
void LBT_SIMD_FN(lbt_simd_de_axis_step)(const lbt_view *v, double lambda, int axis, lbt_counts *c);      /* de.c */
int LBT_SIMD_FN(lbt_simd_de_steps)(const lbt_view *v, double lambda, int kind, int n, const lbt_steps_stop *stop,
                                   lbt_counts *c); /* de.c */
void LBT_SIMD_FN(lbt_simd_wl_poisson_row)(int32_t *x, int64_t n, int64_t rows, int64_t pitch, int64_t i0,
                                          uint64_t key, const lbt_poisson *p, int32_t C, uint32_t *m, uint32_t *eta,
                                          lbt_wl_counts *c);
void LBT_SIMD_FN(lbt_simd_wl_draw_row)(int32_t *x, int64_t n, int64_t i0, uint64_t key, const lbt_wl_draw *d, int32_t C,
                                       lbt_wl_counts *c);
void LBT_SIMD_FN(lbt_simd_wl_phases_row)(int32_t *x, int64_t n, int64_t i0, const lbt_wl_phases *p,
                                         uint32_t *tg, uint32_t *tc, uint32_t *left, lbt_wl_counts *c);
void LBT_SIMD_FN(lbt_simd_wl_real_row)(double *x, int64_t n, int64_t i0, int lane0, uint64_t key, uint64_t key2,
                                       const lbt_wl_real *d, double shift, lbt_wl_rsums *s); /* workload.c */
void LBT_SIMD_FN(lbt_simd_speed_step)(const lbt_view *v, const lbt_speed_args *a, lbt_counts *c);     /* speed.c */
void LBT_SIMD_FN(lbt_simd_luling_step)(struct lbt_luling_s *w, int32_t *load, uint64_t seed, int64_t step,
                                       int64_t *packets, int64_t *hops); /* luling.c */
void LBT_SIMD_FN(lbt_simd_init)(lbt_kernels *k);

#endif
