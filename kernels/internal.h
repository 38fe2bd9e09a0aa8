/* internal.h — what the kernels share with the grid and the dispatch table
 * but not with a library user: the row lead of the layout, the aligned
 * allocator, the halo fill and the scalar reference kernels. Private: never
 * installed; src/core/grid.c and the tests include it by its path. */
#ifndef LBTORUS_KERNELS_INTERNAL_H
#define LBTORUS_KERNELS_INTERNAL_H

#include <stdlib.h>

#include "lbtorus/kernels.h"

#define LBT_ROW_LEAD 16 /* int32 cells before a row's first PE, keeping PE 0 aligned */

/* aligned_alloc for any size: C11 wants the size a multiple of the alignment. */
static inline void *lbt_alloc_aligned(size_t bytes)
{
	return aligned_alloc(LBT_ALIGN, (bytes + LBT_ALIGN - 1) / LBT_ALIGN * LBT_ALIGN);
}

/* Halo exchange for one axis: for a torus, copy the LBT_HALO layers at each
 * end from the opposite edge; on a cut view's cut axis, fill them from the
 * neighbouring ranks (v->cut->fill, collective). Mesh axes are left alone:
 * kernels treat an open boundary as "no neighbour" and never read those cells;
 * so are axes of extent 1, which have no links and no halo (lbtorus/grid.h). */
void lbt_halo_fill(const lbt_view *v, int axis);

/* A cut view's global extent of axis d, and the global coordinate of its
 * local coordinate i on d (wrapped on a torus axis; on a mesh axis it may
 * fall outside 0..n-1, where there is no PE). */
static inline int lbt_cut_on(const lbt_view *v, int d) { return v->cut && v->cut->on[d]; }
static inline int64_t lbt_gext(const lbt_view *v, int d)
{
	return lbt_cut_on(v, d) ? v->cut->gext[d] : v->ext[d];
}
static inline int64_t lbt_gcoord(const lbt_view *v, int d, int64_t i)
{
	if (!lbt_cut_on(v, d))
		return i;
	int64_t g = v->origin[d] + i, n = v->cut->gext[d];
	return v->torus[d] ? ((g % n) + n) % n : g;
}

/* de-axis's axis at step t (Cybenko's eq. (17)): the (t mod D')-th of the
 * D' axes of global extent >= 2; -1 if there is none. */
static inline int lbt_de_axis_at(const lbt_view *v, int64_t t)
{
	int active = 0;
	for (int d = 0; d < v->dims; d++)
		active += lbt_gext(v, d) >= 2;
	for (int d = 0, k = active ? (int)(t % active) : 0; d < v->dims; d++)
		if (lbt_gext(v, d) >= 2 && k-- == 0)
			return d;
	return -1;
}

/* Scalar reference kernels (kernels/ref/). */
void lbt_ref_lm_substep(const lbt_view *v, int axis, int cond, lbt_counts *c);
void lbt_ref_lm_step(const lbt_view *v, int cond, lbt_counts *c);
int lbt_ref_lm_steps(const lbt_view *v, int cond, int n, int32_t max, const lbt_steps_stop *stop,
                     lbt_lm_cache *cache, lbt_counts *c); /* one step */
void lbt_ref_nna_step(const lbt_view *v, lbt_counts *c);
void lbt_ref_nna_def_step(const lbt_view *v, lbt_counts *c); /* eq. (4), kernels/ref/nna_def.c */
void lbt_ref_fos_step(const lbt_view *v, const lbt_diffusion *p, lbt_counts *c);
void lbt_ref_fos_int_step(const lbt_view *v, const lbt_diffusion *p, lbt_counts *c);
int lbt_ref_fos_steps(const lbt_view *v, const lbt_diffusion *p, int n, const lbt_steps_stop *stop,
                      lbt_counts *c); /* one step */
void lbt_ref_de_step(const lbt_view *v, double lambda, lbt_counts *c);
void lbt_ref_de_int_step(const lbt_view *v, double lambda, lbt_counts *c);
void lbt_ref_de_axis_step(const lbt_view *v, double lambda, int axis, lbt_counts *c);
int lbt_ref_de_steps(const lbt_view *v, double lambda, int kind, int n, const lbt_steps_stop *stop,
                     lbt_counts *c); /* one step */
void lbt_ref_wl_poisson_row(int32_t *x, int64_t n, int64_t rows, int64_t pitch, int64_t i0, uint64_t key,
                            const lbt_poisson *p, int32_t C, uint32_t *m, uint32_t *eta, lbt_wl_counts *c);
void lbt_ref_wl_draw_row(int32_t *x, int64_t n, int64_t i0, uint64_t key, const lbt_wl_draw *d, int32_t C,
                         lbt_wl_counts *c);
void lbt_ref_wl_phases_row(int32_t *x, int64_t n, int64_t i0, const lbt_wl_phases *p, uint32_t *tg,
                           uint32_t *tc, uint32_t *left, lbt_wl_counts *c);
void lbt_ref_wl_real_row(double *x, int64_t n, int64_t i0, int lane0, uint64_t key, uint64_t key2,
                         const lbt_wl_real *d, double shift, lbt_wl_rsums *s);
void lbt_ref_speed_step(const lbt_view *v, const lbt_speed_args *a, lbt_counts *c); /* kernels/ref/speed.c */

#endif
