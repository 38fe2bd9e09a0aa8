/* family.h — the method values each family file exports, for the table in
 * method.c, and the shared kernel-view helper. Adding a method: one file
 * defining its lbt_method, one line here and one in method.c's table. */
#ifndef LBTORUS_METHOD_FAMILY_H
#define LBTORUS_METHOD_FAMILY_H

#include "lbtorus/method.h"

extern const lbt_method lbt_lm_c0, lbt_lm_c1, lbt_lm_c2, lbt_lm_c3, lbt_lm_c4, lbt_lm_c5; /* lm.c */
extern const lbt_method lbt_nna, lbt_nna_def;                                            /* nna.c */
extern const lbt_method lbt_fos, lbt_fos_int, lbt_ca;                                    /* diffusion.c */
extern const lbt_method lbt_de, lbt_de_int, lbt_de_axis;                                 /* de.c */
extern const lbt_method lbt_luling_monien;                                               /* luling.c */
extern const lbt_method lbt_none;                                                        /* none.c */
extern const lbt_method lbt_fos_speed, lbt_fos_speed_int;                                /* speed.c */

/* A workspace holding only the kernels' scratch (nna, de). */
int lbt_scratch_method_open(lbt_state *st, lbt_err *e);
void lbt_scratch_method_close(lbt_state *st);
/* st's view with the scratch of a workspace that begins with an lbt_scratch. */
void lbt_method_view(const lbt_state *st, lbt_view *v);

#endif
