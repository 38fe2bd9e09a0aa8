/* dispatch.c — the kernel table, chosen at start-up. Compiled at baseline.
 * The table starts as the scalar reference; each ISA target compiled in
 * overwrites the entries it optimizes, lowest target first.
 *
 * The pattern (as dav1d's and pixman's): every file of kernels/simd/ is
 * written once in the vocabulary of kernels/simd/simd.h and compiled once per
 * target by meson (`simd_targets`: its -m flags, -DLBT_TARGET=name and
 * -DLBT_SIMD_W=lanes), so functions come out as lbt_simd_lm_step_avx2 etc.
 * Each target has one init, lbt_simd_init_<target> (kernels/simd/init.c),
 * which fills all the entries that target has. To give a method a vector
 * kernel: write kernels/simd/<method>.c, add it to `simd_src` and its
 * function to init.c; nothing here changes. To add a kernel slot: its
 * field and its line in LBT_KERNEL_SLOTS (lbtorus/kernels.h) and its
 * reference in `reference` below. A slot a target leaves NULL falls back
 * to the reference; one without a reference stays NULL, and a method that
 * declares it is refused when opened (src/exec/state.c). To add a target:
 * a line in `simd_targets`, a line below, and its test in
 * lbt_isa_supported. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ref/luling.h"

typedef void (*target_init_fn)(lbt_kernels *k);
void lbt_simd_init_sse41(lbt_kernels *k);
void lbt_simd_init_avx2(lbt_kernels *k);
void lbt_simd_init_avx512(lbt_kernels *k);
void lbt_simd_init_avx512emu(lbt_kernels *k);

static const struct target {
	const char *name;
	target_init_fn init; /* NULL: the reference itself */
	int emulated;        /* never chosen by auto: only --isa NAME runs it */
} targets[] = {
	{"scalar", NULL, 0},
#ifdef LBT_HAVE_SSE41
	{"sse41", lbt_simd_init_sse41, 0},
#endif
#ifdef LBT_HAVE_AVX2
	{"avx2", lbt_simd_init_avx2, 0},
#endif
#ifdef LBT_HAVE_AVX512
	{"avx512", lbt_simd_init_avx512, 0},
#endif
#ifdef LBT_HAVE_AVX512EMU
	{"avx512emu", lbt_simd_init_avx512emu, 1}, /* the AVX-512 kernels, SIMDe emulating them with AVX2 */
#endif
};

enum { NTARGETS = sizeof targets / sizeof targets[0] };

/* The scalar references, one per slot (a slot without one stays NULL: a
 * method that declares it is refused when opened, and the contract suite
 * fails). */
static const lbt_kernels reference = {
	.isa = "scalar",
	.lm_step = lbt_ref_lm_step,
	.lm_steps = lbt_ref_lm_steps,
	.nna_step = lbt_ref_nna_step,
	.nna_def_step = lbt_ref_nna_def_step,
	.fos_step = lbt_ref_fos_step,
	.fos_int_step = lbt_ref_fos_int_step,
	.fos_steps = lbt_ref_fos_steps,
	.de_step = lbt_ref_de_step,
	.de_int_step = lbt_ref_de_int_step,
	.de_axis_step = lbt_ref_de_axis_step,
	.de_steps = lbt_ref_de_steps,
	.wl_poisson_row = lbt_ref_wl_poisson_row,
	.wl_draw_row = lbt_ref_wl_draw_row,
	.wl_phases_row = lbt_ref_wl_phases_row,
	.wl_real_row = lbt_ref_wl_real_row,
	.speed_step = lbt_ref_speed_step,
	.luling_step = lbt_ref_luling_step,
};

/* LBT_KERNEL_SLOTS names every slot: the struct holds nothing else after isa. */
#define SLOT_SIZE(id, field) +sizeof(((lbt_kernels *)0)->field)
_Static_assert(sizeof(lbt_kernels) == offsetof(lbt_kernels, lm_step) LBT_KERNEL_SLOTS(SLOT_SIZE),
               "a slot of lbt_kernels is missing from LBT_KERNEL_SLOTS (lbtorus/kernels.h)");
#undef SLOT_SIZE
#define SLOT_ORDER(id, field) _Static_assert(offsetof(lbt_kernels, field) == offsetof(lbt_kernels, lm_step) + \
	LBT_KS_##id * sizeof(void (*)(void)), "LBT_KERNEL_SLOTS lists " #field " out of the struct's order");
LBT_KERNEL_SLOTS(SLOT_ORDER)
#undef SLOT_ORDER

const char *const *lbt_isa_compiled(void)
{
	static const char *names[NTARGETS + 1];
	for (int i = 0; i < NTARGETS; i++)
		names[i] = targets[i].name;
	return names;
}

int lbt_isa_supported(const char *isa)
{
	if (!strcmp(isa, "scalar"))
		return 1;
	__builtin_cpu_init();
	if (!strcmp(isa, "sse41"))
		return __builtin_cpu_supports("sse4.1");
	if (!strcmp(isa, "avx2") || !strcmp(isa, "avx512emu"))
		return __builtin_cpu_supports("avx2");
	if (!strcmp(isa, "avx512"))
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		       __builtin_cpu_supports("avx512vl");
	return 0;
}

int lbt_isa_emulated(const char *isa)
{
	for (int i = 0; i < NTARGETS; i++)
		if (!strcmp(isa, targets[i].name))
			return targets[i].emulated;
	return 0;
}

int lbt_kernels_select(lbt_kernels *k, const char *isa, lbt_err *e)
{
	if (!isa || !strcmp(isa, "auto"))
		isa = getenv("LBTORUS_ISA");
	if (isa && !*isa)
		isa = NULL;
	int pick = -1;
	if (!isa || !strcmp(isa, "auto")) {
		for (int i = 0; i < NTARGETS; i++)
			if (lbt_isa_supported(targets[i].name) && !targets[i].emulated)
				pick = i; /* targets are listed best last */
	} else {
		for (int i = 0; i < NTARGETS; i++)
			if (!strcmp(isa, targets[i].name))
				pick = i;
		if (pick < 0) {
			char list[256] = "";
			for (int i = 0; i < NTARGETS; i++)
				strcat(strcat(list, i ? ", " : ""), targets[i].name);
			return lbt_errf(e, LBT_EINVAL, "unknown ISA '%s': this build has %s (or auto)", isa, list);
		}
		if (!lbt_isa_supported(isa))
			return lbt_errf(e, LBT_EUNSUP, "ISA '%s' is compiled in but this CPU cannot run it", isa);
	}
	*k = reference;
	for (int i = 1; i <= pick; i++)
		if (lbt_isa_supported(targets[i].name) && targets[i].init) {
			targets[i].init(k); /* lower targets first: each overwrites what it has */
			k->isa = targets[i].name;
		}
#define FALL_BACK(id, field) \
	if (!k->field) /* a slot the target leaves empty: its reference */ \
		k->field = reference.field;
	LBT_KERNEL_SLOTS(FALL_BACK)
#undef FALL_BACK
	return LBT_OK;
}

const char *lbt_kernel_slot_name(int i)
{
#define NAME(id, field) #field,
	static const char *const names[] = {LBT_KERNEL_SLOTS(NAME) NULL};
#undef NAME
	return i >= 0 && i < LBT_NSLOTS ? names[i] : NULL;
}

int lbt_kernels_missing(const lbt_kernels *k, unsigned slots)
{
#define MISSING(id, field) \
	if ((slots & LBT_K(id)) && !k->field) \
		return LBT_KS_##id;
	LBT_KERNEL_SLOTS(MISSING)
#undef MISSING
	return -1;
}
