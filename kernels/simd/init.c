/* init.c — what one ISA target puts into the dispatch table. Compiled once
 * per target like every file here; a method with a vector kernel adds its
 * file to `simd_src` in meson.build and one line below. */
#include "simd.h"

void LBT_SIMD_FN(lbt_simd_init)(lbt_kernels *k)
{
	k->lm_step = LBT_SIMD_FN(lbt_simd_lm_step);
}
