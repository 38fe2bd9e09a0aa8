/* dv.h — vectors of DW doubles for the kernels of kernels/simd/ that do
 * exact integer arithmetic in doubles (nnadef.c) or compare as the
 * references do in doubles (luling.c): 4 lanes (256 bits) from AVX2 on (the
 * AVX-512 target too: Debian's SIMDe has no 512-bit int32 <-> double
 * conversions), 2 with SSE4.1; their int32 lanes travel in one 128-bit
 * vector. Masks are all-ones lanes. Included after simd.h. */
#ifndef LBTORUS_SIMD_DV_H
#define LBTORUS_SIMD_DV_H

#include "simd.h"

#if W == 4
typedef simde__m128d DV;
enum { DW = 2 };
#define DLOADI(p) simde_mm_cvtepi32_pd(simde_mm_loadl_epi64((const void *)(p)))
#define DSTOREI(p, x) simde_mm_storel_epi64((void *)(p), simde_mm_cvttpd_epi32(x))
#define DSET1(x) simde_mm_set1_pd(x)
#define DADD(a, b) simde_mm_add_pd((a), (b))
#define DSUB(a, b) simde_mm_sub_pd((a), (b))
#define DMUL(a, b) simde_mm_mul_pd((a), (b))
#define DDIV(a, b) simde_mm_div_pd((a), (b))
#define DMAX(a, b) simde_mm_max_pd((a), (b))
#define DTRUNC(a) simde_mm_round_pd((a), SIMDE_MM_FROUND_TO_ZERO)
#define DGT(a, b) simde_mm_cmpgt_pd((a), (b))
#define DGE(a, b) simde_mm_cmpge_pd((a), (b))
#define DLE(a, b) simde_mm_cmple_pd((a), (b))
#define DNE(a, b) simde_mm_cmpneq_pd((a), (b))
#define DAND(a, b) simde_mm_and_pd((a), (b))
#define DOR(a, b) simde_mm_or_pd((a), (b))
#define DSEL(m, a, b) simde_mm_blendv_pd((b), (a), (m))
#define DANY(m) simde_mm_movemask_pd(m)
#define DIOTA() simde_mm_setr_pd(0, 1)
#else
typedef simde__m256d DV;
enum { DW = 4 };
#define DLOADI(p) simde_mm256_cvtepi32_pd(simde_mm_loadu_si128((const void *)(p)))
#define DSTOREI(p, x) simde_mm_storeu_si128((void *)(p), simde_mm256_cvttpd_epi32(x))
#define DSET1(x) simde_mm256_set1_pd(x)
#define DADD(a, b) simde_mm256_add_pd((a), (b))
#define DSUB(a, b) simde_mm256_sub_pd((a), (b))
#define DMUL(a, b) simde_mm256_mul_pd((a), (b))
#define DDIV(a, b) simde_mm256_div_pd((a), (b))
#define DMAX(a, b) simde_mm256_max_pd((a), (b))
#define DTRUNC(a) simde_mm256_round_pd((a), SIMDE_MM_FROUND_TO_ZERO)
#define DGT(a, b) simde_mm256_cmp_pd((a), (b), SIMDE_CMP_GT_OQ)
#define DGE(a, b) simde_mm256_cmp_pd((a), (b), SIMDE_CMP_GE_OQ)
#define DLE(a, b) simde_mm256_cmp_pd((a), (b), SIMDE_CMP_LE_OQ)
#define DNE(a, b) simde_mm256_cmp_pd((a), (b), SIMDE_CMP_NEQ_OQ)
#define DAND(a, b) simde_mm256_and_pd((a), (b))
#define DOR(a, b) simde_mm256_or_pd((a), (b))
#define DSEL(m, a, b) simde_mm256_blendv_pd((b), (a), (m))
#define DANY(m) simde_mm256_movemask_pd(m)
#define DIOTA() simde_mm256_setr_pd(0, 1, 2, 3)
#endif

#endif
