/* init.c — what one ISA target puts into the dispatch table. Compiled once
 * per target like every file here; a method with a vector kernel adds its
 * file to `simd_src` in meson.build and one line below. */
#include "simd.h"

void LBT_SIMD_FN(lbt_simd_init)(lbt_kernels *k)
{
	k->lm_step = LBT_SIMD_FN(lbt_simd_lm_step);
	k->lm_steps = LBT_SIMD_FN(lbt_simd_lm_steps);
	k->nna_step = LBT_SIMD_FN(lbt_simd_nna_step);
	k->nna_def_step = LBT_SIMD_FN(lbt_simd_nna_def_step);
	k->fos_int_step = LBT_SIMD_FN(lbt_simd_fos_int_step);
	k->fos_step = LBT_SIMD_FN(lbt_simd_fos_step);
	k->fos_steps = LBT_SIMD_FN(lbt_simd_fos_steps);
	k->de_step = LBT_SIMD_FN(lbt_simd_de_step);
	k->de_int_step = LBT_SIMD_FN(lbt_simd_de_int_step);
	k->de_axis_step = LBT_SIMD_FN(lbt_simd_de_axis_step);
	k->de_steps = LBT_SIMD_FN(lbt_simd_de_steps);
	k->speed_step = LBT_SIMD_FN(lbt_simd_speed_step);
	k->luling_step = LBT_SIMD_FN(lbt_simd_luling_step);
#if W == 16 && defined(__AVX512F__) /* not in avx512emu, which emulates the AVX-512 code with AVX2 */
	if (__builtin_cpu_supports("avx512dq")) /* else the target below's */
#endif
	{
		k->wl_poisson_row = LBT_SIMD_FN(lbt_simd_wl_poisson_row);
		k->wl_draw_row = LBT_SIMD_FN(lbt_simd_wl_draw_row);
		k->wl_phases_row = LBT_SIMD_FN(lbt_simd_wl_phases_row);
		k->wl_real_row = LBT_SIMD_FN(lbt_simd_wl_real_row);
	}
}
