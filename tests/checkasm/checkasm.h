/* checkasm.h — every vector kernel equals its scalar reference bit for bit
 * (DESIGN.md, "Kernels: reference beside vector"), in the manner of dav1d's
 * checkasm: a registry of cases, one per slot of the dispatch table
 * (lbt_kernels), over shared input generators.
 *
 * A case is one short file-level definition, CK_CASE(slot, quick, full):
 * `quick` holds the cheap comparisons (the quick tier runs only those),
 * `full` the rest. Both run once per ISA target compiled in; inside them
 * call_ref(slot, ...) runs the scalar reference and call_new(slot, ...) the
 * ISA's kernel, and bench_new times the latter against the former when
 * LBTORUS_CHECKASM_BENCH is set. The framework (checkasm.c) derives the
 * slots from the table itself: a slot without a case fails the suite; an
 * ISA this CPU cannot run is reported as skipped with a count, never passed;
 * an ISA whose slot is still the reference (or the kernel of a lower ISA) is
 * not compared again. A slot no ISA replaces is compared on the scalar
 * target, the reference on several threads against it on one.
 * LBTORUS_CHECKASM_ONLY=slot,slot,... runs only those slots' cases. */
#ifndef LBTORUS_CHECKASM_H
#define LBTORUS_CHECKASM_H

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stddef.h>
#include <stdint.h>

#include "../helpers.h"
#include "../../kernels/internal.h"

typedef struct {
	const char *slot;   /* the member of lbt_kernels it checks */
	size_t offset;      /* offsetof(lbt_kernels, slot) */
	void (*quick)(void);
	void (*full)(void);
} ck_case;

/* Register a case for slot (in a section the framework walks, as Criterion
 * registers its tests). */
#define CK_CASE(slot_, quick_, full_)                                                                        \
	static const ck_case ck_case_##slot_ = {#slot_, offsetof(lbt_kernels, slot_), quick_, full_};           \
	static const ck_case *const ck_reg_##slot_ __attribute__((used, section("lbt_checkasm"))) = &ck_case_##slot_

/* The tables of the current comparison: the scalar reference and the ISA's. */
extern const lbt_kernels *ck_ref, *ck_new;
#define call_ref(slot, ...) ck_ref->slot(__VA_ARGS__)
#define call_new(slot, ...) ck_new->slot(__VA_ARGS__)
/* With LBTORUS_CHECKASM_BENCH set, time `reps` calls of each (inputs as the
 * expressions leave them) and log the ratio; else nothing. Never asserts. */
#define bench_new(slot, reps, ...)                                                                           \
	do {                                                                                                     \
		if (ck_bench_on()) {                                                                                 \
			double t0 = ck_now();                                                                            \
			for (int r_ = 0; r_ < (reps); r_++)                                                              \
				call_ref(slot, __VA_ARGS__);                                                                 \
			double t1 = ck_now();                                                                            \
			for (int r_ = 0; r_ < (reps); r_++)                                                              \
				call_new(slot, __VA_ARGS__);                                                                 \
			ck_bench_report(#slot, t1 - t0, ck_now() - t1);                                                  \
		}                                                                                                    \
	} while (0)
int ck_bench_on(void);
double ck_now(void);
void ck_bench_report(const char *slot, double ref_s, double new_s);

/* Shared inputs. Awkward shapes: K in {1, 2, 3, 5, 7, 8, 17, 64, 127, 16448};
 * rows shorter and longer than a vector (4, 8 or 16 lanes) and not a
 * multiple of one; D = 1..4, and D = 8 with most axes of extent 1. */
extern const char *const ck_shapes[];
extern const int ck_nshapes;
/* Boundary mixes: 0 torus, 1 mesh, 2 mesh on odd axes, 3 mesh on even axes;
 * 0 if the mix is the same as a lower one (mixes 2 and 3 on D = 1). */
int ck_boundary(lbt_shape *s, const char *shape, int mix);
/* A shape and its boundary from their texts. */
lbt_shape ck_grid(const char *shape, const char *boundary);

enum { L_ZEROS, L_ONES, L_RUNS, L_POINT, L_NEARMAX, L_MAXRUNS, L_SMALL, L_WIDE, L_BYTE, L_BANDS8, L_SHORT, L_BANDS,
       L_TAIL, L_TAIL8, L_PILE, L_UPTO125, L_SPOTS, L_ROWS8, L_EDGE16, L_PILES16,
       L_TWIN, NLOADS };
extern const char *const ck_load_names[NLOADS];
/* P loads of a kind (mesh: near-INT32_MAX loads kept to a total of at most
 * INT32_MAX), from a seed. */
void ck_fill(int32_t *d, int64_t P, int kind, uint64_t seed, int mesh);

/* The same loads in a grid for the reference (one thread) and one for the
 * kernel under test (threads, with its scratch), the shape as text. */
typedef struct {
	lbt_grid ref, vec;
	lbt_view vr, vv;
	lbt_scratch sc;
	char sh[128], bd[128];
} ck_pair;
/* pair_open flags; CK_BELOW_MAX: loads <= INT32_MAX - 1024; CK_NOSCRATCH:
 * the vector view without lbt_scratch (the Liquid model's kernels use
 * none, and the 8 bytes a cell per axis, zeroed, were half of their
 * cases' time; a kernel that started to use it would read NULL) */
enum { CK_MESHTOP = 1, CK_REAL = 2, CK_BELOW_MAX = 4, CK_NOSCRATCH = 8 };
void ck_pair_open(ck_pair *p, const lbt_shape *s, int kind, int threads, uint64_t seed, int flags);
void ck_pair_close(ck_pair *p);
/* Fail naming `what` and the step if the two grids' loads (and real loads)
 * differ, at the first differing PE. */
void ck_same_grids(const ck_pair *p, const char *what, int kind, int step);

/* A stepping kernel on a view, the reference and the ISA's compared step by
 * step: `step` runs one step with table k (ck_ref or ck_new); after every
 * step the grids and the counters named in `counters` must agree, and
 * statistics a kernel gives (has_stats) must be the grid's; C_STATS: the
 * kernel must give them on every shape with a link. */
enum { C_MOVED = 1, C_SHIFTS = 2, C_LINKMAX = 4, C_REAL = 8, C_STATS = 16 };
typedef struct {
	const char *what;
	void (*step)(const lbt_kernels *k, const lbt_view *v, const void *arg, lbt_counts *c);
	const void *arg;
	unsigned counters;
	uint64_t seed_mul; /* the loads' seed: P * seed_mul + kind */
	int flags;         /* ck_pair_open's */
} ck_stepper;
void ck_steps(const ck_stepper *k, const lbt_shape *s, int kind, int threads, int steps);
/* Every shape x boundary mix: fn(s, n) with a running count n. */
void ck_each_shape(void (*fn)(const lbt_shape *s, int *n, const void *arg), const void *arg);

#endif
