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

/* On a cut grid (grid.h) each rank fills its slab: the draws and the
 * shapes are those of the whole torus at the PEs' global coordinates; a
 * file is read whole and each rank keeps its slab, which starts at this
 * row-major index (the cut axis is the outermost with links). */
static int64_t slab_first(const lbt_grid *g)
{
	int64_t at = 0;
	for (int d = 0; d < g->whole.dims; d++)
		at = at * g->whole.ext[d] + lbt_grid_lo(g, d);
	return at;
}

/* The loads of a file: integer ones (int32 by lbt_npy_read) non-negative
 * with an int64 total, into idense; real ones (finite by
 * lbt_npy_read_real) non-negative, at most 2^53, with a finite total, into
 * rdense. */
static int read_file_loads(const lbt_init *in, const lbt_shape *w, int32_t *idense, double *rdense, lbt_err *e)
{
	const int64_t P = lbt_shape_pes(w);
	int st = idense ? lbt_npy_read(in->path, w, idense, e) : lbt_npy_read_real(in->path, w, rdense, e);
	int64_t itotal = 0;
	double rtotal = 0;
	for (int64_t i = 0; st == LBT_OK && i < P; i++) {
		if (idense ? idense[i] < 0 : rdense[i] < 0) {
			if (idense)
				st = lbt_errf(e, LBT_EINVAL, "%s: load %d at flat index %lld is negative", in->path, idense[i], (long long)i);
			else
				st = lbt_errf(e, LBT_EINVAL, "%s: load %g at flat index %lld is negative", in->path, rdense[i], (long long)i);
		} else if (!idense && rdense[i] > 0x1p53)
			st = lbt_errf(e, LBT_ERANGE, "%s: load %g at flat index %lld is beyond 2^53", in->path, rdense[i],
			              (long long)i);
		else if (idense && __builtin_add_overflow(itotal, idense[i], &itotal))
			st = lbt_errf(e, LBT_ERANGE, "%s: the total load exceeds int64", in->path);
		else if (!idense && !isfinite(rtotal += rdense[i]))
			st = lbt_errf(e, LBT_ERANGE, "%s: the total load is not finite", in->path);
	}
	return st;
}

int lbt_init_check_values(const lbt_init *in, const lbt_shape *w, lbt_err *e)
{
	lbt_npy_info info;
	int st;
	if (in->kind != LBT_INIT_FILE)
		return LBT_OK;
	if ((st = lbt_init_check(in, w, e)) || (st = lbt_npy_info_read(in->path, &info, e)))
		return st;
	const int64_t P = lbt_shape_pes(w);
	void *dense = malloc((size_t)P * (info.real ? sizeof(double) : sizeof(int32_t)));
	if (!dense)
		return lbt_errf(e, LBT_ENOMEM, "cannot allocate %lld loads to read %s", (long long)P, in->path);
	st = read_file_loads(in, w, info.real ? NULL : dense, info.real ? dense : NULL, e);
	free(dense);
	return st;
}

/* A float32/float64 file: the real-valued field, added here, holds the
 * loads (non-negative, at most 2^53, so that their total, differences and
 * squares stay finite: read_file_loads); the integer loads stay 0. */
static int apply_real_file(const lbt_init *in, lbt_grid *g, lbt_err *e)
{
	const int64_t P = lbt_shape_pes(&g->whole);
	double *dense = malloc((size_t)P * sizeof *dense);
	if (!dense)
		return lbt_errf(e, LBT_ENOMEM, "cannot allocate %lld loads to read %s", (long long)P, in->path);
	int st = read_file_loads(in, &g->whole, NULL, dense, e);
	if (st == LBT_OK && !(st = lbt_grid_add_real(g, e)))
		lbt_field_import(g, lbt_grid_field(g, "real"), dense + slab_first(g));
	free(dense);
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
	case LBT_INIT_FILE: {
		lbt_npy_info info;
		int st = lbt_npy_info_read(in->path, &info, e);
		if (st)
			return st;
		if (info.real)
			return apply_real_file(in, g, e);
		int32_t *dense = malloc((size_t)P * sizeof *dense);
		if (!dense)
			return lbt_errf(e, LBT_ENOMEM, "cannot allocate %lld loads to read %s", (long long)P, in->path);
		st = read_file_loads(in, w, dense, NULL, e);
		if (st == LBT_OK)
			lbt_grid_import(g, dense + slab_first(g));
		free(dense);
		return st;
	}
	}
	return lbt_errf(e, LBT_EINTERNAL, "unknown init kind");
}
