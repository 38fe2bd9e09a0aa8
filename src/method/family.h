/* family.h — the registry of methods: LBT_METHODS lists every method value
 * in --help order, and method.c's table is made from it. A method is
 * defined with LBT_METHOD(name) = {...designated initializers...} in its
 * family file; one defined so but missing from LBT_METHODS fails to
 * compile, so no method can be defined and unreachable. */
#ifndef LBTORUS_METHOD_FAMILY_H
#define LBTORUS_METHOD_FAMILY_H

#include "lbtorus/method.h"

#define LBT_METHODS(X) \
	X(lbt_lm_c0) X(lbt_lm_c1) X(lbt_lm_c2) X(lbt_lm_c3) X(lbt_lm_c4) X(lbt_lm_c5) /* lm.c */ \
	X(lbt_nna) X(lbt_nna_def)                                                      /* nna.c */ \
	X(lbt_fos) X(lbt_fos_int)                                                      /* diffusion.c */ \
	X(lbt_de) X(lbt_de_int) X(lbt_de_axis)                                         /* de.c */ \
	X(lbt_ca)                                                                      /* diffusion.c */ \
	X(lbt_luling_monien)                                                           /* luling.c */ \
	X(lbt_none)                                                                    /* none.c */ \
	X(lbt_fos_speed) X(lbt_fos_speed_int)                                          /* speed.c */

#define LBT_METHOD_DECLARE(m) extern const lbt_method m; enum { lbt_registered_##m = 1 };
LBT_METHODS(LBT_METHOD_DECLARE)
#undef LBT_METHOD_DECLARE

/* Define a registered method: `LBT_METHOD(lbt_foo) = {.name = "foo", ...};`. */
#define LBT_METHOD(m) \
	_Static_assert(lbt_registered_##m, #m " is not in LBT_METHODS (src/method/family.h)"); \
	const lbt_method m

/* A workspace holding only the kernels' scratch (nna, de). */
int lbt_scratch_method_open(lbt_state *st, lbt_err *e);
void lbt_scratch_method_close(lbt_state *st);
/* st's view with the scratch of a workspace that begins with an lbt_scratch. */
void lbt_method_view(const lbt_state *st, lbt_view *v);

#endif
