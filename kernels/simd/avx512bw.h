/* avx512bw.h — the AVX-512 (F, BW) operations lm.c's narrow rows use that
 * Debian's SIMDe (0.7.4) does not spell, under SIMDe's names.
 *
 * Compiled with AVX-512 (the avx512 target) each is the native instruction.
 * Compiled without it (avx512emu: the same source for AVX2, so checkasm and
 * the engine's tests run the AVX-512 code paths on any AVX2 CPU) each is
 * written out lane by lane from Intel's definition of the instruction,
 * through SIMDe's private lane views. Only W == 16 includes this file. */
#ifndef LBTORUS_SIMD_AVX512BW_H
#define LBTORUS_SIMD_AVX512BW_H

#include "simd.h"

#if defined(__AVX512F__) && defined(__AVX512BW__)
#include <immintrin.h>
#define simde_mm512_alignr_epi8 _mm512_alignr_epi8
#define simde_mm512_alignr_epi64 _mm512_alignr_epi64
#define simde_mm512_cmpeq_epi16_mask _mm512_cmpeq_epi16_mask
#define simde_mm512_cmpgt_epi16_mask _mm512_cmpgt_epi16_mask
#define simde_mm512_cmpgt_epu32_mask _mm512_cmpgt_epu32_mask
#define simde_mm512_cvtepi16_epi32 _mm512_cvtepi16_epi32
#define simde_mm512_cvtepi8_epi32 _mm512_cvtepi8_epi32
#define simde_mm512_reduce_add_epi64 _mm512_reduce_add_epi64
#else
/* Per 128-bit lane: bytes imm.. of the 32 bytes a:b (a high), zeros past them. */
static inline simde__m512i simde_mm512_alignr_epi8(simde__m512i a, simde__m512i b, const int imm)
{
	simde__m512i_private r, pa = simde__m512i_to_private(a), pb = simde__m512i_to_private(b);
	for (int l = 0; l < 64; l += 16)
		for (int j = 0; j < 16; j++) {
			const int s = j + imm;
			r.i8[l + j] = s < 16 ? pb.i8[l + s] : s < 32 ? pa.i8[l + s - 16] : 0;
		}
	return simde__m512i_from_private(r);
}
/* 64-bit lanes imm & 7 .. of the 16 lanes a:b (a high). */
static inline simde__m512i simde_mm512_alignr_epi64(simde__m512i a, simde__m512i b, const int imm)
{
	simde__m512i_private r, pa = simde__m512i_to_private(a), pb = simde__m512i_to_private(b);
	for (int j = 0; j < 8; j++) {
		const int s = j + (imm & 7);
		r.i64[j] = s < 8 ? pb.i64[s] : pa.i64[s - 8];
	}
	return simde__m512i_from_private(r);
}
static inline simde__mmask32 simde_mm512_cmpeq_epi16_mask(simde__m512i a, simde__m512i b)
{
	simde__m512i_private pa = simde__m512i_to_private(a), pb = simde__m512i_to_private(b);
	simde__mmask32 m = 0;
	for (int j = 0; j < 32; j++)
		m |= (simde__mmask32)(pa.i16[j] == pb.i16[j]) << j;
	return m;
}
static inline simde__mmask32 simde_mm512_cmpgt_epi16_mask(simde__m512i a, simde__m512i b)
{
	simde__m512i_private pa = simde__m512i_to_private(a), pb = simde__m512i_to_private(b);
	simde__mmask32 m = 0;
	for (int j = 0; j < 32; j++)
		m |= (simde__mmask32)(pa.i16[j] > pb.i16[j]) << j;
	return m;
}
static inline simde__mmask16 simde_mm512_cmpgt_epu32_mask(simde__m512i a, simde__m512i b)
{
	simde__m512i_private pa = simde__m512i_to_private(a), pb = simde__m512i_to_private(b);
	simde__mmask16 m = 0;
	for (int j = 0; j < 16; j++)
		m |= (simde__mmask16)((simde__mmask16)(pa.u32[j] > pb.u32[j]) << j);
	return m;
}
static inline simde__m512i simde_mm512_cvtepi16_epi32(simde__m256i a)
{
	simde__m256i_private pa = simde__m256i_to_private(a);
	simde__m512i_private r;
	for (int j = 0; j < 16; j++)
		r.i32[j] = pa.i16[j];
	return simde__m512i_from_private(r);
}
static inline simde__m512i simde_mm512_cvtepi8_epi32(simde__m128i a)
{
	simde__m128i_private pa = simde__m128i_to_private(a);
	simde__m512i_private r;
	for (int j = 0; j < 16; j++)
		r.i32[j] = pa.i8[j];
	return simde__m512i_from_private(r);
}
static inline int64_t simde_mm512_reduce_add_epi64(simde__m512i a)
{
	simde__m512i_private pa = simde__m512i_to_private(a);
	uint64_t s = 0; /* wraps as the instruction does */
	for (int j = 0; j < 8; j++)
		s += pa.u64[j];
	return (int64_t)s;
}
#endif

#endif
