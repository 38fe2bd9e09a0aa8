/* init.c — the initial load configurations.
 *   point:TOTAL    PE (0,...,0) holds TOTAL, the rest nothing
 *   worst:C        the paper's worst case (seed 000, §5): point:C*P
 *   uniform:LO:HI  i.i.d. integers in [LO, HI] from the counter-based rng
 *   const:V        every PE holds V
 *   file:PATH.npy  an int32 or int64 array of exactly the torus's shape; a
 *                  float32 or float64 one fills the real-valued field instead
 *   half:H         a step of height H: PEs in the lower half of the first axis
 *                  with links (coordinate < floor(n/2)) hold H + 1, the rest 1;
 *                  every PE is loaded, as Theorem 3 assumes, and Ldiff = H.
 *                  A tight case of Theorem 3: the excess must cross K/2 PEs.
 * Loads are non-negative int32 per PE and the total fits in int64: anything
 * else is refused here, before a run starts. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/rng.h"
#include "lbtorus/init.h"
#include "lbtorus/npy.h"
#include "lbtorus/number.h"
#include "comm/comm.h"
#include "core/npy_stream.h"

static int parse_int(const char *s, const char *spec, int64_t *v, const char **rest, lbt_err *e)
{
	size_t n = strcspn(s, ":");
	if (s[n] && !rest)
		return lbt_errf(e, LBT_EINVAL, "init '%s': expected an integer at '%s'", spec, s);
	char num[32];
	if (*s == '-')
		return lbt_errf(e, LBT_EINVAL, "init '%s': loads must not be negative", spec);
	if (n >= sizeof num)
		return lbt_errf(e, LBT_EINVAL, "init '%s': %.*s is out of range", spec, (int)n, s);
	memcpy(num, s, n);
	num[n] = 0;
	char what[80];
	snprintf(what, sizeof what, "init '%.60s'", spec);
	if (lbt_parse_i64(num, 0, INT64_MAX, what, v, e))
		return LBT_EINVAL;
	if (rest)
		*rest = s[n] ? s + n + 1 : NULL;
	return LBT_OK;
}

int lbt_init_parse(lbt_init *in, const char *text, lbt_err *e)
{
	memset(in, 0, sizeof *in);
	if (strlen(text) >= sizeof in->text)
		return lbt_errf(e, LBT_EINVAL, "init spec too long");
	strcpy(in->text, text);
	const char *arg = strchr(text, ':');
	size_t kw = arg ? (size_t)(arg - text) : strlen(text);
	int st;
	if (!arg)
		return lbt_errf(e, LBT_EINVAL, "init '%s': use point:TOTAL, worst:C, uniform:LO:HI, const:V, half:H or file:PATH.npy", text);
	arg++;
	if (kw == 5 && !strncmp(text, "point", 5)) {
		in->kind = LBT_INIT_POINT;
		return parse_int(arg, text, &in->a, NULL, e);
	}
	if (kw == 5 && !strncmp(text, "worst", 5)) {
		in->kind = LBT_INIT_WORST;
		return parse_int(arg, text, &in->a, NULL, e);
	}
	if (kw == 4 && !strncmp(text, "half", 4)) {
		in->kind = LBT_INIT_HALF;
		return parse_int(arg, text, &in->a, NULL, e);
	}
	if (kw == 5 && !strncmp(text, "const", 5)) {
		in->kind = LBT_INIT_CONST;
		return parse_int(arg, text, &in->a, NULL, e);
	}
	if (kw == 7 && !strncmp(text, "uniform", 7)) {
		const char *rest;
		in->kind = LBT_INIT_UNIFORM;
		if ((st = parse_int(arg, text, &in->a, &rest, e)))
			return st;
		if (!rest)
			return lbt_errf(e, LBT_EINVAL, "init '%s': write uniform:LO:HI", text);
		if ((st = parse_int(rest, text, &in->b, NULL, e)))
			return st;
		if (in->b < in->a)
			return lbt_errf(e, LBT_EINVAL, "init '%s': HI is below LO", text);
		if (in->b > INT32_MAX)
			return lbt_errf(e, LBT_ERANGE, "init '%s': HI exceeds the int32 load limit %d", text, INT32_MAX);
		return LBT_OK;
	}
	if (kw == 4 && !strncmp(text, "file", 4)) {
		in->kind = LBT_INIT_FILE;
		if (!*arg)
			return lbt_errf(e, LBT_EINVAL, "init '%s': name a .npy file", text);
		if (strlen(arg) >= sizeof in->path)
			return lbt_errf(e, LBT_EINVAL, "init file path too long");
		strcpy(in->path, arg);
		return LBT_OK;
	}
	return lbt_errf(e, LBT_EINVAL, "unknown init '%.*s': use point, worst, uniform, const, half or file", (int)kw, text);
}

int lbt_init_check(const lbt_init *in, const lbt_shape *s, lbt_err *e)
{
	const int64_t P = lbt_shape_pes(s);
	switch (in->kind) {
	case LBT_INIT_WORST:
		if (in->a > INT32_MAX / P)
			return lbt_errf(e, LBT_ERANGE, "init '%s': C*P = %lld*%lld does not fit in one PE's int32 load (max %d)",
			                in->text, (long long)in->a, (long long)P, INT32_MAX);
		return LBT_OK;
	case LBT_INIT_POINT:
		if (in->a > INT32_MAX)
			return lbt_errf(e, LBT_ERANGE, "init '%s': %lld does not fit in one PE's int32 load (max %d)",
			                in->text, (long long)in->a, INT32_MAX);
		return LBT_OK;
	case LBT_INIT_CONST:
	case LBT_INIT_HALF:
	case LBT_INIT_UNIFORM: {
		int64_t hi = in->kind == LBT_INIT_CONST ? in->a : in->kind == LBT_INIT_HALF ? in->a + 1 : in->b;
		if (hi > INT32_MAX)
			return lbt_errf(e, LBT_ERANGE, "init '%s': %lld exceeds the int32 load limit %d", in->text, (long long)hi, INT32_MAX);
		if (hi > 0 && P > INT64_MAX / hi)
			return lbt_errf(e, LBT_ERANGE, "init '%s': the total load could exceed int64", in->text);
		return LBT_OK;
	}
	case LBT_INIT_FILE:
		return LBT_OK; /* checked value by value as it is read */
	}
	return lbt_errf(e, LBT_EINTERNAL, "unknown init kind");
}

/* The first axis with links: half's step runs along it. */
static int half_axis(const lbt_shape *w)
{
	int ax = 0;
	while (ax < w->dims - 1 && w->ext[ax] < 2)
		ax++;
	return ax;
}

int lbt_init_total(const lbt_init *in, const lbt_shape *s, uint64_t seed, int64_t *total)
{
	const int64_t P = lbt_shape_pes(s);
	switch (in->kind) {
	case LBT_INIT_WORST: *total = in->a * P; return 1;
	case LBT_INIT_POINT: *total = in->a; return 1;
	case LBT_INIT_CONST: *total = in->a * P; return 1;
	case LBT_INIT_HALF: { /* the lower half of the axis holds H + 1, the rest 1 */
		const int64_t n = s->ext[half_axis(s)];
		*total = P + n / 2 * (P / n) * in->a;
		return 1;
	}
	case LBT_INIT_UNIFORM: {
		int64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum) if (P > 65536)
		for (int64_t i = 0; i < P; i++)
			sum += lbt_rand_range(lbt_rand(seed, 0, (uint64_t)i, LBT_RNG_INIT), in->a, in->b);
		*total = sum;
		return 1;
	}
	case LBT_INIT_FILE:
		break;
	}
	return 0;
}

/* The values of a file's loads, n of them from flat index `first` on:
 * integer ones (int32 by the reader) non-negative with an int64 total
 * (*itotal, added to), real ones (finite by the reader) non-negative, at
 * most 2^53, with a finite total (*rtotal): the first bad one named, *at
 * its flat index. */
static int check_loads(const lbt_init *in, const int32_t *iv, const double *rv, int64_t first, int64_t n, int64_t *itotal,
                       double *rtotal, int64_t *at, lbt_err *e)
{
	for (int64_t j = 0; j < n; j++) {
		const long long i = (long long)(*at = first + j);
		if (iv ? iv[j] < 0 : rv[j] < 0)
			return iv ? lbt_errf(e, LBT_EINVAL, "%s: load %d at flat index %lld is negative", in->path, iv[j], i)
			          : lbt_errf(e, LBT_EINVAL, "%s: load %g at flat index %lld is negative", in->path, rv[j], i);
		if (!iv && rv[j] > 0x1p53)
			return lbt_errf(e, LBT_ERANGE, "%s: load %g at flat index %lld is beyond 2^53", in->path, rv[j], i);
		if (iv && __builtin_add_overflow(*itotal, iv[j], itotal))
			return lbt_errf(e, LBT_ERANGE, "%s: the total load exceeds int64", in->path);
		if (!iv && !isfinite(*rtotal += rv[j]))
			return lbt_errf(e, LBT_ERANGE, "%s: the total load is not finite", in->path);
	}
	return LBT_OK;
}

/* The sign, size and total checks of a file's values, piece by piece; the
 * first failure is kept while the rest of the file is still converted, so
 * that a conversion failure anywhere is named first, as lbt_init_apply
 * names it. */
typedef struct {
	const lbt_init *in;
	int64_t itotal;
	double rtotal;
	int st;
	lbt_err e;
} check_ctx;

static int check_piece(void *ctx, int64_t first, int64_t n, const int32_t *iv, const double *dv)
{
	check_ctx *c = ctx;
	int64_t at;
	if (!c->st)
		c->st = check_loads(c->in, iv, dv, first, n, &c->itotal, &c->rtotal, &at, &c->e);
	return LBT_OK;
}

int lbt_init_check_values(const lbt_init *in, const lbt_shape *w, lbt_err *e)
{
	int st;
	if (in->kind != LBT_INIT_FILE)
		return LBT_OK;
	if ((st = lbt_init_check(in, w, e)))
		return st;
	check_ctx c = {.in = in};
	if (!(st = lbt_npy_read_pieces(in->path, w, check_piece, &c, e)) && (st = c.st) && e)
		*e = c.e;
	return st;
}

/* A file's loads into the grid: rank 0 reads the header, and each rank
 * only its block (lbt_npy_read_block), then checks it (check_loads); on a
 * cut grid every rank agrees after each pass on the first failure: of the
 * reading, the lowest failing rank's; of the values, the one at the lowest
 * flat index (a block's rows go in flat order, but blocks of a grid that
 * cuts a later axis do not: rank 1's first row comes before rank 0's
 * second), so the message is one process's; and on the total, summed
 * exactly over the ranks. A float32/float64 file fills the real-valued
 * field, added here; the integer loads stay 0. */
static int apply_file(const lbt_init *in, lbt_grid *g, lbt_err *e)
{
	const int all = g->cut != NULL;
	lbt_npy_info info;
	int st = lbt_npy_info_read_shaped(in->path, &g->whole, &info, all, e);
	if (!st && info.real)
		st = lbt_grid_add_real(g, e);
	if (all) /* the block's read is collective: every rank reaches it, or none */
		st = lbt_comm_agree(st, e);
	const lbt_field *f = st ? NULL : lbt_grid_field(g, info.real ? "real" : "load");
	if (!st)
		st = lbt_npy_read_block(in->path, &info, g, f, e);
	if (all)
		st = lbt_comm_agree(st, e);
	if (st)
		return st;
	const int64_t n = g->shape.ext[g->shape.dims - 1], rows = lbt_shape_pes(&g->shape) / n;
	int64_t itotal = 0, at = INT64_MAX; /* at: the flat index of this rank's first bad value */
	double rtotal = 0;
	for (int64_t r = 0; !st && r < rows; r++) {
		const void *row = lbt_field_row(g, f, r);
		st = check_loads(in, info.real ? NULL : row, info.real ? row : NULL, lbt_grid_row_global(g, r), n, &itotal,
		                 &rtotal, &at, e);
	}
	if (!all)
		return st;
	int64_t ats[g->cut->ranks], sums[g->cut->ranks], total = 0; /* sums: each rank's exact total; theirs too */
	lbt_comm_allgather(st ? &at : &(int64_t){INT64_MAX}, sizeof at, ats);
	int first = 0; /* the rank holding the first bad value (none: rank 0, whose status is LBT_OK) */
	for (int r = 1; r < g->cut->ranks; r++)
		first = ats[r] < ats[first] ? r : first;
	if ((st = lbt_comm_agree(lbt_comm_rank() == first ? st : LBT_OK, e)) || info.real)
		return st;
	lbt_comm_allgather(&itotal, sizeof itotal, sums);
	for (int r = 0; !st && r < g->cut->ranks; r++)
		if (__builtin_add_overflow(total, sums[r], &total))
			st = lbt_errf(e, LBT_ERANGE, "%s: the total load exceeds int64", in->path);
	return st;
}

int lbt_init_apply(const lbt_init *in, lbt_grid *g, uint64_t seed, const volatile sig_atomic_t *stop, lbt_err *e)
{
	const lbt_shape *w = &g->whole;
	const int64_t P = lbt_shape_pes(w);
	int64_t origin[LBT_MAXD] = {0};
	int st = lbt_init_check(in, w, e);
	if (st)
		return st;
	switch (in->kind) {
	case LBT_INIT_WORST:
	case LBT_INIT_POINT:
		for (int d = 0; d < w->dims; d++)
			if (lbt_grid_lo(g, d) != 0)
				return LBT_OK; /* PE (0, ..., 0) is another rank's */
		g->load[lbt_grid_offset(g, origin)] = (int32_t)(in->kind == LBT_INIT_WORST ? in->a * P : in->a);
		return LBT_OK;
	case LBT_INIT_CONST:
	case LBT_INIT_HALF:
	case LBT_INIT_UNIFORM: {
		const int D = g->shape.dims;
		const int64_t n = g->shape.ext[D - 1], lo_last = lbt_grid_lo(g, D - 1), rows = lbt_shape_pes(&g->shape) / n;
		const int ax = half_axis(w);
		const int64_t half = w->ext[ax] / 2;
#pragma omp parallel for schedule(static) if (rows * n > 65536)
		for (int64_t r = 0; r < rows; r++) {
			if (stop && *stop)
				continue; /* a signal: the rest is skipped (no break out of a parallel loop) */
			int64_t c[LBT_MAXD], q = r, grow = 0; /* grow: the global row-major index of the row */
			for (int d = D - 2; d >= 0; d--) {
				c[d] = q % g->shape.ext[d];
				q /= g->shape.ext[d];
			}
			for (int d = 0; d < D - 1; d++)
				grow = grow * w->ext[d] + c[d] + lbt_grid_lo(g, d);
			c[D - 1] = 0;
			int32_t *row = g->load + lbt_grid_offset(g, c);
			for (int64_t i = 0; i < n; i++)
				row[i] = in->kind == LBT_INIT_CONST ? (int32_t)in->a
					: in->kind == LBT_INIT_HALF ? (int32_t)((ax == D - 1 ? i + lo_last : c[ax] + lbt_grid_lo(g, ax)) < half ? in->a + 1 : 1)
					: (int32_t)lbt_rand_range(lbt_rand(seed, 0, (uint64_t)(grow * w->ext[D - 1] + lo_last + i), LBT_RNG_INIT), in->a, in->b);
		}
		return stop && *stop ? lbt_errf(e, LBT_EINTR, "interrupted while the initial load was set") : LBT_OK;
	}
	case LBT_INIT_FILE:
		return apply_file(in, g, e);
	}
	return lbt_errf(e, LBT_EINTERNAL, "unknown init kind");
}
