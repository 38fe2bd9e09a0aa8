/* checkasm.c — the framework of checkasm.h: the slots of the dispatch table,
 * the cases registered for them, one Criterion test per case x ISA (quick and
 * full tier), the skipped ones counted, and the shared input generators. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkasm.h"

const lbt_kernels *ck_ref, *ck_new;

/* The slots: every member of lbt_kernels after `isa`, each a function pointer
 * (a member of another kind would show up as a slot without a case). */
typedef void (*ck_fn)(void);
enum { SLOT0 = offsetof(lbt_kernels, isa) + sizeof(const char *) };
_Static_assert((sizeof(lbt_kernels) - SLOT0) % sizeof(ck_fn) == 0, "lbt_kernels holds function pointers after isa");
enum { NSLOTS = (sizeof(lbt_kernels) - SLOT0) / sizeof(ck_fn) };

static ck_fn slot_of(const lbt_kernels *k, size_t offset)
{
	ck_fn f;
	memcpy(&f, (const char *)k + offset, sizeof f);
	return f;
}

extern const ck_case *const __start_lbt_checkasm[], *const __stop_lbt_checkasm[];

/* How many of the slots have no case among cases[0..n-1] (their byte offsets
 * in missing[]), or a case that names no slot (offset in missing[] too). */
static int uncovered(const ck_case *const *cases, size_t n, size_t *missing)
{
	int m = 0;
	for (size_t off = SLOT0; off < sizeof(lbt_kernels); off += sizeof(ck_fn)) {
		size_t have = 0;
		for (size_t i = 0; i < n; i++)
			have += cases[i]->offset == off;
		if (have != 1)
			missing[m++] = off;
	}
	for (size_t i = 0; i < n; i++)
		if (cases[i]->offset < SLOT0 || (cases[i]->offset - SLOT0) % sizeof(ck_fn))
			missing[m++] = cases[i]->offset;
	return m;
}

static size_t ncases(void) { return (size_t)(__stop_lbt_checkasm - __start_lbt_checkasm); }

static const lbt_kernels *table(const char *isa, lbt_kernels *k)
{
	lbt_err e;
	cr_assert_eq(lbt_kernels_select(k, isa, &e), LBT_OK, "%s", e.msg);
	return k;
}

/* Every slot of the table has exactly one case. */
Test(checkasm, quick_every_slot_has_a_case)
{
	size_t missing[NSLOTS + 64];
	cr_assert_leq(ncases(), 64);
	const int m = uncovered(__start_lbt_checkasm, ncases(), missing);
	for (int i = 0; i < m; i++) { /* the slots' names in the table's order (kernels.h's LBT_KERNEL_SLOTS) */
		const size_t k = (missing[i] - SLOT0) / sizeof(ck_fn);
		const char *name = missing[i] >= SLOT0 ? lbt_kernel_slot_name((int)k) : NULL;
		cr_log_error("the dispatch table's slot %s (byte offset %zu, slot %zu of %d) has no checkasm case or more "
		             "than one: add CK_CASE(%s, quick, full) under tests/checkasm/", name ? name : "?", missing[i],
		             k + 1, (int)NSLOTS, name ? name : "<member>");
	}
	cr_assert_eq(m, 0, "%d slots of lbt_kernels without exactly one case", m);
}

/* The check above fails when a case is missing: every slot, dropped in turn. */
Test(checkasm, quick_a_slot_without_a_case_is_caught)
{
	const size_t n = ncases();
	cr_assert(n == (size_t)NSLOTS && n <= 64);
	for (size_t drop = 0; drop < n; drop++) {
		const ck_case *fewer[64];
		size_t missing[NSLOTS + 64];
		for (size_t i = 0, j = 0; i < n; i++)
			if (i != drop)
				fewer[j++] = __start_lbt_checkasm[i];
		cr_assert(uncovered(fewer, n - 1, missing) == 1 && missing[0] == __start_lbt_checkasm[drop]->offset,
		          "dropping the case of %s goes unnoticed", __start_lbt_checkasm[drop]->slot);
	}
}

/* Why (case, isa) is not compared: NULL if it is. */
static const char *not_compared(const ck_case *c, const char *isa, char *why, size_t n)
{
	if (!lbt_isa_supported(isa)) {
		snprintf(why, n, "CPU lacks %s", isa);
		return why;
	}
	lbt_kernels ref, k, lower;
	const ck_fn r = slot_of(table("scalar", &ref), c->offset), f = slot_of(table(isa, &k), c->offset);
	int replaced = 0;
	for (const char *const *t = lbt_isa_compiled(); *t; t++)
		if (strcmp(*t, "scalar") && lbt_isa_supported(*t))
			replaced |= slot_of(table(*t, &lower), c->offset) != r;
	if (!strcmp(isa, "scalar"))
		return replaced ? snprintf(why, n, "the reference itself"), why : NULL;
	if (f == r) {
		snprintf(why, n, "%s", replaced ? "the reference on this ISA" : "no ISA has a vector kernel");
		return why;
	}
	for (const char *const *t = lbt_isa_compiled(); strcmp(*t, isa); t++)
		if (strcmp(*t, "scalar") && lbt_isa_supported(*t) && slot_of(table(*t, &lower), c->offset) == f) {
			snprintf(why, n, "the kernel of %s", *t);
			return why;
		}
	return NULL;
}

struct ck_param {
	int c, isa;
};

static void free_params(struct criterion_test_params *crp) { cr_free(crp->params); }

/* Every case x ISA; with LBTORUS_CHECKASM_ONLY=slot,slot,... only those
 * slots' cases (tools/mutate.py). */
static struct criterion_test_params params(void)
{
	int nisa = 0;
	while (lbt_isa_compiled()[nisa])
		nisa++;
	const char *only = getenv("LBTORUS_CHECKASM_ONLY");
	struct ck_param *p = cr_malloc(ncases() * (size_t)nisa * sizeof *p);
	size_t n = 0;
	for (size_t c = 0; c < ncases(); c++) {
		const char *slot = __start_lbt_checkasm[c]->slot;
		const size_t len = strlen(slot);
		int named = !only;
		for (const char *at = only ? strstr(only, slot) : NULL; at; at = strstr(at + 1, slot))
			named |= (at == only || at[-1] == ',') && (at[len] == ',' || !at[len]);
		if (!named)
			continue;
		for (int i = 0; i < nisa; i++)
			p[n++] = (struct ck_param){(int)c, i};
	}
	return cr_make_param_array(struct ck_param, p, n, free_params);
}

static void run(const struct ck_param *p, int quick)
{
	const ck_case *c = __start_lbt_checkasm[p->c];
	const char *isa = lbt_isa_compiled()[p->isa];
	char why[96];
	if (not_compared(c, isa, why, sizeof why))
		cr_skip_test("%s on %s: %s", c->slot, isa, why);
	static lbt_kernels ref, k;
	ck_ref = table("scalar", &ref);
	ck_new = table(isa, &k);
	cr_assert_str_eq(ck_new->isa, isa);
	(quick ? c->quick : c->full)();
}

ParameterizedTestParameters(checkasm, quick_kernels) { return params(); }
ParameterizedTest(struct ck_param *p, checkasm, quick_kernels) { run(p, 1); }
ParameterizedTestParameters(checkasm, kernels) { return params(); }
ParameterizedTest(struct ck_param *p, checkasm, kernels) { run(p, 0); }

/* After the run: per tier, how many kernel x ISA comparisons ran, and how
 * many were skipped, by reason. */
static void tally(struct criterion_global_stats *stats, const char *tier)
{
	struct reason {
		char text[96];
		int n;
	} reasons[16];
	int nr = 0, ran = 0, compared = 0, skipped = 0;
	for (struct criterion_suite_stats *s = stats->suites; s; s = s->next)
		for (struct criterion_test_stats *t = s->tests; t; t = t->next) {
			if (strcmp(t->test->category, "checkasm") || strcmp(t->test->name, tier))
				continue;
			if (t->test_status == CR_STATUS_SKIPPED && !t->message)
				continue; /* filtered out */
			ran = 1;
			if (t->test_status != CR_STATUS_SKIPPED) {
				compared += t->test_status == CR_STATUS_PASSED;
				continue;
			}
			const char *r = t->message ? strstr(t->message, ": ") : NULL;
			r = r ? r + 2 : "?";
			int i = 0;
			while (i < nr && strcmp(reasons[i].text, r))
				i++;
			if (i == nr && nr < 16) {
				snprintf(reasons[nr].text, sizeof reasons[0].text, "%s", r);
				reasons[nr++].n = 0;
			}
			reasons[i < 16 ? i : 15].n++;
			skipped += !strncmp(r, "CPU lacks", 9);
		}
	if (!ran)
		return;
	printf("checkasm %s: %d compared, %d skipped", tier, compared, skipped);
	for (int i = 0; i < nr; i++)
		if (!strncmp(reasons[i].text, "CPU lacks", 9))
			printf(": %s (%d)", reasons[i].text, reasons[i].n);
	printf("; not compared again:");
	for (int i = 0; i < nr; i++)
		if (strncmp(reasons[i].text, "CPU lacks", 9))
			printf(" %s (%d)%s", reasons[i].text, reasons[i].n, i + 1 < nr ? "," : "");
	printf("\n");
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
	tally(stats, "quick_kernels");
	tally(stats, "kernels");
}

int ck_bench_on(void) { return getenv("LBTORUS_CHECKASM_BENCH") != NULL; }

double ck_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void ck_bench_report(const char *slot, double ref_s, double new_s)
{
	cr_log_warn("bench %s on %s: reference %.3g s, %s %.3g s: %.2fx", slot, ck_new->isa, ref_s, ck_new->isa, new_s,
	            new_s > 0 ? ref_s / new_s : 0);
}

/* ---- the shared inputs ---- */

const char *const ck_shapes[] = {
	"1", "2", "3", "5", "7", "8", "17", "64", "127", "16448", /* 257 AVX-512 byte vectors: a byte count holds 255 */
	"2x2", "3x3", "1x5", "5x1", "2x17", "3x64", "7x8", "8x7", "5x127", "17x3", "64x2", "127x2", "2x16",
	"2x3x5", "3x1x17", "1x1x7", "4x4x4", "5x2x8", "1x7x1", "7x1x1", "3x17x2", "3x2x16", "2x5x64", "4x3x32",
	"2x2x2x2", "3x2x5x17", "2x1x3x9", "1x3x1x33", "2x3x2x16", "1x1x3x1x2x1x1x17", "1x1x1x1x1x1x5x1",
};
const int ck_nshapes = sizeof ck_shapes / sizeof *ck_shapes;

int ck_boundary(lbt_shape *s, const char *shape, int mix)
{
	lbt_err e;
	cr_assert_eq(lbt_shape_parse(s, shape, &e), LBT_OK, "%s", e.msg);
	for (int d = 0; d < s->dims; d++)
		s->bnd[d] = mix == 0 ? LBT_TORUS : mix == 1 ? LBT_MESH : (d % 2 == mix - 2) ? LBT_MESH : LBT_TORUS;
	return !(mix >= 2 && s->dims == 1);
}

lbt_shape ck_grid(const char *shape, const char *boundary)
{
	lbt_shape s;
	lbt_err e;
	cr_assert_eq(lbt_shape_parse(&s, shape, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_boundary_parse(&s, boundary, &e), LBT_OK, "%s", e.msg);
	return s;
}

void ck_each_shape(void (*fn)(const lbt_shape *s, int *n, const void *arg), const void *arg)
{
	int n = 0;
	for (int i = 0; i < ck_nshapes; i++)
		for (int b = 0; b < 4; b++) {
			lbt_shape s;
			if (ck_boundary(&s, ck_shapes[i], b))
				fn(&s, &n, arg);
		}
}

const char *const ck_load_names[NLOADS] = {
	"zeros", "ones", "runs of equal loads", "point (worst:5)", "near INT32_MAX", "runs of 0 and INT32_MAX",
	"random 0..3", "random 0..1000", "around 127 (int8's edge)",
	"bands of 125, 125, 126 (the byte rows' edge, 64 PEs each)", "around 32767 (int16's edge)",
	"bands of 32767, 32767, 32768 (int16's edge, 64 PEs each)",
	"32765 (int16's edge) but one 32768 near the end",
	"125 (int8's edge) but one 128 near the end",
	"one huge pile on random 0..3",
	"random 0..125, one in four 125 (all within AVX-512's byte steps)",
	"random 120..125 but eight spots of 126..140 (a few rows beyond bytes)",
	"random 122..125 but one run of 64 in nine random 124..130 (rows of 64: a few beyond bytes)",
	"falling runs 32760 .. 32747 (an AVX2 ring keeps 32767 - n in int16 lanes for n steps)",
	"piles of 40000 + P, 50000 and 16420 and a 16370 beside the last on random 0..3 (AVX2's dense copy keeps piles "
	"of at least 16384 + n D out of its int16 lanes while the others are at most 16383 - n D)",
	"neighbouring piles of 40000 and 40003 on random 0..3 (out of the dense copy's lanes only apart: their "
	"stand-ins would be equal)",
};

static uint64_t rnd(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ULL;
	return lbt_mix64(*s);
}

/* Near the int32 limit the method allows: on a torus LM never raises the
 * maximum (a PE receives at most one element per substep, and only from a
 * neighbour while it gives one itself, or while it holds less than the max);
 * on a mesh the last PE of an axis only receives, so there only totals up to
 * INT32_MAX are safe. */
void ck_fill(int32_t *d, int64_t P, int kind, uint64_t seed, int mesh)
{
	uint64_t s = seed;
	const int32_t top = mesh ? (int32_t)(INT32_MAX / P) : INT32_MAX;
	for (int64_t i = 0; i < P;) {
		int64_t run = kind == L_RUNS || kind == L_MAXRUNS ? 1 + (int64_t)(rnd(&s) % 9) : 1;
		int32_t v = 0;
		switch (kind) {
		case L_ZEROS: v = 0; break;
		case L_ONES: v = 1; break;
		case L_RUNS: v = (int32_t)(rnd(&s) % 5); if (v == 4) v = 1000000; break;
		case L_POINT: v = i == 0 ? (int32_t)(5 * P) : 0; break;
		case L_NEARMAX: v = top - (int32_t)(rnd(&s) % 4 % ((uint64_t)top + 1)); break;
		case L_MAXRUNS: v = rnd(&s) & 1 ? top : 0; break;
		case L_SMALL: v = (int32_t)(rnd(&s) % 4); break;
		case L_WIDE: v = (int32_t)(rnd(&s) % 1001); break;
		/* mostly just below a narrow type's maximum, some at or above it:
		 * loads cross the edge both ways during the run */
		case L_BYTE: v = 124 + (int32_t)(rnd(&s) % 3) + (rnd(&s) % 40 == 0 ? 3 + (int32_t)(rnd(&s) % 3) : 0); break;
		case L_SHORT: v = 32764 + (int32_t)(rnd(&s) % 3) + (rnd(&s) % 40 == 0 ? 3 + (int32_t)(rnd(&s) % 3) : 0); break;
		/* on rows of 64 PEs, a row at 32767 between rows at 32767 and
		 * 32768 receives along the outer axis and gives nothing: 32768 */
		case L_BANDS: v = 32767 + (i / 64 % 3 == 2); break;
		/* the same at the AVX-512 byte rows' edge: old loads 0..125 */
		case L_BANDS8: v = 125 + (i / 64 % 3 == 2); break;
		/* a ring's one load too big for int16 lanes where a class pass
		 * over blocks of vectors reads it last */
		case L_TAIL: v = i == P - 1 - P / 8 ? 32768 : 32765; break;
		case L_TAIL8: v = i == P - 1 - P / 8 ? 128 : 125; break;
		case L_PILE: v = i == P / 2 ? INT32_MAX - 3 * (int32_t)P : (int32_t)(rnd(&s) % 4); break; /* total <= INT32_MAX */
		case L_SPOTS: v = P >= 16 && i % (P / 8) == P / 16 ? 126 + (int32_t)(i % 15) : 120 + (int32_t)(rnd(&s) % 6); break;
		case L_EDGE16: v = 32760 - (int32_t)(i % 14); break;
		case L_ROWS8: v = i / 64 % 9 == 3 ? 124 + (int32_t)(rnd(&s) % 7) : 122 + (int32_t)(rnd(&s) % 4); break;
		case L_UPTO125: v = rnd(&s) % 4 ? (int32_t)(rnd(&s) % 126) : 125; break;
		case L_PILES16:
			v = i == 0           ? 40000 + (int32_t)P
			    : i == P - 1     ? 50000
			    : i == P / 2     ? 16420
			    : i == P / 2 + 1 ? 16370
			                     : (int32_t)(rnd(&s) % 4);
			break;
		case L_TWIN: v = i < 2 ? 40000 + 3 * (int32_t)i : (int32_t)(rnd(&s) % 4); break;
		}
		for (int64_t j = 0; j < run && i < P; j++)
			d[i++] = v;
	}
}

static void set_view(lbt_view *v, lbt_grid *g, int threads)
{
	memset(v, 0, sizeof *v);
	v->load = g->load;
	v->real = g->real;
	v->dims = g->shape.dims;
	for (int d = 0; d < v->dims && d < LBT_MAXD; d++) { /* the bound for GCC 12 (-Wstringop-overflow) */
		v->ext[d] = g->shape.ext[d];
		v->stride[d] = g->stride[d];
		v->torus[d] = g->shape.bnd[d] == LBT_TORUS;
	}
	v->threads = threads;
}

void ck_pair_open(ck_pair *p, const lbt_shape *s, int kind, int threads, uint64_t seed, int flags)
{
	lbt_err e;
	cr_assert_eq(lbt_grid_init(&p->ref, s, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_grid_init(&p->vec, s, &e), LBT_OK, "%s", e.msg);
	const int64_t P = lbt_shape_pes(s);
	int32_t *dense = malloc((size_t)P * sizeof *dense);
	int mesh = 0;
	for (int d = 0; d < s->dims && (flags & CK_MESHTOP); d++)
		mesh |= s->bnd[d] == LBT_MESH && s->ext[d] >= 2;
	ck_fill(dense, P, kind, seed, mesh);
	for (int64_t i = 0; i < P && (flags & CK_BELOW_MAX); i++)
		dense[i] = dense[i] > INT32_MAX - 1024 ? INT32_MAX - 1024 - (dense[i] & 3) : dense[i];
	lbt_grid_import(&p->ref, dense);
	lbt_grid_import(&p->vec, dense);
	free(dense);
	if (flags & CK_REAL) {
		cr_assert_eq(lbt_grid_add_real(&p->ref, &e), LBT_OK);
		cr_assert_eq(lbt_grid_add_real(&p->vec, &e), LBT_OK);
	}
	set_view(&p->vr, &p->ref, 1);
	set_view(&p->vv, &p->vec, threads);
	memset(&p->sc, 0, sizeof p->sc);
	if (!(flags & CK_NOSCRATCH)) {
		cr_assert_eq(lbt_scratch_open(&p->sc, &p->vv, p->vec.cells, p->vec.origin), LBT_OK);
		p->vv.scratch = &p->sc;
	}
	lbt_shape_format(s, p->sh, sizeof p->sh);
	lbt_boundary_format(s, p->bd, sizeof p->bd);
}

void ck_pair_close(ck_pair *p)
{
	lbt_grid_free(&p->ref);
	lbt_grid_free(&p->vec);
	lbt_scratch_close(&p->sc);
}

void ck_same_grids(const ck_pair *p, const char *what, int kind, int step)
{
	const int64_t at = lbt_grid_first_diff(&p->ref, &p->vec);
	if (at < 0)
		return;
	const lbt_shape *s = &p->ref.shape;
	char where[160];
	lbt_shape_coords(s, at, where, sizeof where);
	int64_t c[LBT_MAXD], q = at;
	for (int d = s->dims - 1; d >= 0; d--) {
		c[d] = q % s->ext[d];
		q /= s->ext[d];
	}
	cr_assert_fail("%s on %s: shape %s (%s), load %s, %d threads: step %d differs first at PE %s: reference %d, "
	               "vector %d", what, ck_new->isa, p->sh, p->bd, ck_load_names[kind], p->vv.threads, step, where,
	               p->ref.load[lbt_grid_offset(&p->ref, c)], p->vec.load[lbt_grid_offset(&p->vec, c)]);
}

void ck_steps(const ck_stepper *k, const lbt_shape *s, int kind, int threads, int steps)
{
	ck_pair p;
	ck_pair_open(&p, s, kind, threads, (uint64_t)lbt_shape_pes(s) * k->seed_mul + (uint64_t)kind, k->flags);
	for (int t = 1; t <= steps; t++) {
		lbt_counts cr = {0}, cv = {0};
		k->step(ck_ref, &p.vr, k->arg, &cr);
		k->step(ck_new, &p.vv, k->arg, &cv);
		ck_same_grids(&p, k->what, kind, t);
		const unsigned u = k->counters;
		if (((u & C_MOVED) && cr.moved != cv.moved) || ((u & C_SHIFTS) && cr.shifts != cv.shifts) ||
		    ((u & C_LINKMAX) && cr.link_max != cv.link_max) ||
		    ((u & C_REAL) && (memcmp(&cr.real_moved, &cv.real_moved, sizeof cr.real_moved) ||
		                      memcmp(&cr.real_shifts, &cv.real_shifts, sizeof cr.real_shifts))))
			cr_assert_fail("%s on %s: shape %s (%s), load %s, %d threads: step %d counts moved %lld shifts %lld "
			               "link_max %.17g real moved %.17g shifts %.17g, reference %lld %lld %.17g %.17g %.17g",
			               k->what, ck_new->isa, p.sh, p.bd, ck_load_names[kind], threads, t, (long long)cv.moved,
			               (long long)cv.shifts, cv.link_max, cv.real_moved, cv.real_shifts, (long long)cr.moved,
			               (long long)cr.shifts, cr.link_max, cr.real_moved, cr.real_shifts);
		if (cv.has_stats && (u & C_REAL)) { /* a kernel that measured the state it left measured it right */
			lbt_stats st;
			lbt_field_stats(&p.ref, lbt_grid_field(&p.ref, "real"), 1, &st);
			if (memcmp(&st.max, &cv.real_max, sizeof st.max) || memcmp(&st.min, &cv.real_min, sizeof st.min) ||
			    memcmp(&st.rtotal, &cv.real_total, sizeof st.rtotal))
				cr_assert_fail("%s on %s: shape %s (%s), load %s, %d threads: step %d statistics max %.17g min "
				               "%.17g total %.17g, want %.17g %.17g %.17g", k->what, ck_new->isa, p.sh, p.bd,
				               ck_load_names[kind], threads, t, cv.real_max, cv.real_min, cv.real_total, st.max,
				               st.min, st.rtotal);
		} else if (cv.has_stats) {
			lbt_stats st;
			lbt_grid_stats(&p.ref, &st);
			if (st.max != cv.max || st.min != cv.min || st.total != cv.total)
				cr_assert_fail("%s on %s: shape %s (%s), load %s: step %d statistics max %d min %d total %lld, "
				               "want %d %d %lld", k->what, ck_new->isa, p.sh, p.bd, ck_load_names[kind], t, cv.max,
				               cv.min, (long long)cv.total, (int)st.max, (int)st.min, (long long)st.total);
		} else if (u & C_STATS)
			cr_assert_eq(lbt_shape_active_dims(s), 0, "%s on %s: shape %s gave no statistics", k->what, ck_new->isa,
			             p.sh);
	}
	ck_pair_close(&p);
}
