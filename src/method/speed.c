/* speed.c — relative-speed diffusion, the practical diffusion of E. Jeannot
 * and F. Vernier, A Practical Approach of Diffusion Load Balancing
 * Algorithms (Euro-Par 2006): the relative-speed matrix Mr of §3.2 with or
 * without the self term, on real loads (fos-speed) or with integer flows
 * (fos-speed-int); the cost/benefit choice of f_ij (§3.1) with k constant,
 * k(t) = 1000 - t (§4.1) or adaptive (§4.2: a PE halves its k when its
 * iteration got slower); the annealing shake (§3.3); the convergence
 * detection on a spanning tree (§3.3, detect.c). Also the application
 * model of §4 that the run engine asks for an iteration's time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"

#define K0 1000.0 /* k(0) of §4.1 and of the adaptive rule */

static const lbt_param params[] = {
	{"self", NULL, LBT_PARAM_INT, 0, 1, 0, NULL, "1",
	 "1: Mr with the self term C_i/(2C_i) (aperiodic), 0: without (periodic on a bipartite torus)"},
	{"cb_k", NULL, LBT_PARAM_REAL, 0, INFINITY, 0, "none,dec,adaptive", "none",
	 "cost/benefit: exchange only if Cost < k*Benefit; none (always), a constant k, dec (k = 1000 - t) or adaptive"},
	{"shake", NULL, LBT_PARAM_REAL, 0, 1, 0, NULL, "0",
	 "annealing shake: a blocked link exchanges with probability shake^(U/shake_tau); 0: off"},
	{"shake_tau", NULL, LBT_PARAM_REAL, 0, INFINITY, 1, NULL, "2",
	 "the blocked iterations U at which the shake's probability is shake"},
	{"detect", NULL, LBT_PARAM_INT, 0, 1, 0, NULL, "0",
	 "1: stop balancing when the spanning-tree protocol detects that no PE exchanges"},
};
enum { P_SELF, P_K, P_SHAKE, P_TAU, P_DETECT };

typedef struct {
	lbt_scratch sc; /* first: the kernels' scratch (lbt_method_view) */
	int64_t P;
	int kmode; /* 0 none, 1 constant, 2 dec, 3 adaptive */
	double *cn, *mr_fwd, *mr_bwd, *k, *lb, *prev, *times, *w;
	int32_t *U, *i32;
	uint8_t *active;
	lbt_detect det;
	int64_t quiet; /* successive iterations in which no link exchanged */
} ws;

/* The links of PE i (coordinates c) as the kernels see them: its neighbour
 * on axis d in direction dir (+1/-1), or -1. */
static int64_t neighbour(const lbt_shape *s, const int64_t *stride, const int64_t *c, int64_t i, int d, int dir)
{
	const int64_t n = s->ext[d];
	const int torus = s->bnd[d] == LBT_TORUS && n > 2;
	if (n < 2)
		return -1;
	if (dir > 0)
		return c[d] < n - 1 ? i + stride[d] : torus ? i - (n - 1) * stride[d] : -1;
	return c[d] > 0 ? i - stride[d] : torus ? i + (n - 1) * stride[d] : -1;
}

static void strides(const lbt_shape *s, int64_t *stride)
{
	stride[s->dims - 1] = 1;
	for (int d = s->dims - 2; d >= 0; d--)
		stride[d] = stride[d + 1] * s->ext[d + 1];
}

static void next_coord(const lbt_shape *s, int64_t *c)
{
	for (int d = s->dims - 1; d >= 0; d--) {
		if (++c[d] < s->ext[d])
			return;
		c[d] = 0;
	}
}

/* delta_i of §3.2 for every PE. */
static void deltas(const lbt_shape *s, const double *C, int self, double *delta)
{
	int64_t stride[8], c[8] = {0};
	strides(s, stride);
	const int64_t P = lbt_shape_pes(s);
	for (int64_t i = 0; i < P; i++, next_coord(s, c)) {
		double sum = self ? 0.5 : 0; /* Cr_ii = C_i / (2 C_i) */
		for (int d = 0; d < s->dims; d++)
			for (int dir = -1; dir <= 1; dir += 2) {
				int64_t j = neighbour(s, stride, c, i, d, dir);
				if (j >= 0) /* extent 2: one link */
					sum += C[j] / (C[i] + C[j]);
			}
		delta[i] = sum > 0 ? 1 / sum : 0;
	}
}

static double mr(const double *C, const double *delta, int64_t i, int64_t j)
{
	return C[j] / (C[i] + C[j]) * fmin(delta[i], delta[j]);
}

int lbt_mr_matrix(const lbt_shape *s, const double *C, int self, double *M, lbt_err *e)
{
	const int64_t P = lbt_shape_pes(s);
	double *delta = malloc((size_t)P * sizeof *delta);
	if (!delta)
		return lbt_errf(e, LBT_ENOMEM, "no memory for Mr");
	deltas(s, C, self, delta);
	memset(M, 0, (size_t)(P * P) * sizeof *M);
	int64_t stride[8], c[8] = {0};
	strides(s, stride);
	for (int64_t i = 0; i < P; i++, next_coord(s, c)) {
		double row = 0;
		for (int d = 0; d < s->dims; d++)
			for (int dir = -1; dir <= 1; dir += 2) {
				int64_t j = neighbour(s, stride, c, i, d, dir);
				if (j >= 0) {
					M[i * P + j] = mr(C, delta, i, j);
					row += M[i * P + j];
				}
			}
		M[i * P + i] = 1 - row;
	}
	free(delta);
	return LBT_OK;
}

/* Every PE's speed over the mean speed (1 without a field "speed"). */
static void normalised(const lbt_state *st, double *cn)
{
	const lbt_field *f = lbt_grid_field(&st->grid, "speed");
	const int64_t P = lbt_shape_pes(&st->grid.shape);
	if (!f) {
		for (int64_t i = 0; i < P; i++)
			cn[i] = 1;
		return;
	}
	lbt_field_export(&st->grid, f, cn);
	double sum = 0;
	for (int64_t i = 0; i < P; i++)
		sum += cn[i];
	for (int64_t i = 0; i < P; i++)
		cn[i] /= sum / (double)P;
}

/* Loads as doubles, dense (i32: P cells of scratch for an integer field). */
static void loads(const lbt_state *st, double *w, int32_t *i32)
{
	const int real = st->method->load == LBT_LOAD_REAL;
	const lbt_field *f = lbt_grid_field(&st->grid, real ? "real" : "load");
	const int64_t P = lbt_shape_pes(&st->grid.shape);
	if (real) {
		lbt_field_export(&st->grid, f, w);
		return;
	}
	lbt_field_export(&st->grid, f, i32);
	for (int64_t i = 0; i < P; i++)
		w[i] = i32[i];
}

/* Each PE's compute, communication and balancing time (§4's model), the
 * largest returned. Row by row: a row's neighbours on the outer axes are
 * whole rows (found once per row), on the last axis the PEs beside it; a
 * message is added per loaded neighbour (every addend is msg, so the order
 * of the links does not change the sum). */
static double iteration(const lbt_state *st, const double *cn, const double *w, const double *lb, double *per_pe)
{
	const lbt_shape *s = &st->grid.shape;
	const lbt_net *n = &st->net;
	const int D = s->dims, last = D - 1;
	const int64_t P = lbt_shape_pes(s), len = s->ext[last];
	const double msg = n->lat + n->app_bytes / n->bw;
	int64_t stride[8], c[8] = {0};
	strides(s, stride);
	double slowest = 0;
	for (int64_t r = 0; r < P; r += len, c[last] = len - 1, next_coord(s, c)) {
		const double *nb[16]; /* the rows beside this one on the outer axes (NULL: none) */
		int nnb = 0;
		for (int d = 0; d < last; d++)
			for (int dir = -1; dir <= 1; dir += 2) {
				int64_t j = neighbour(s, stride, c, r, d, dir);
				if (j >= 0)
					nb[nnb++] = w + j;
			}
		const int64_t left = neighbour(s, stride, c, r, last, -1) - r;                 /* of PE 0 */
		c[last] = len - 1;
		const int64_t right = neighbour(s, stride, c, r + len - 1, last, +1) - r; /* of the last PE */
		c[last] = 0;
		const double *wr = w + r;
		for (int64_t x = 0; x < len; x++) {
			double t = wr[x] * n->unit_s / cn[r + x] + (lb ? lb[r + x] : 0);
			if (wr[x] > 0) {
				int k = 0;
				for (int q = 0; q < nnb; q++)
					k += nb[q][x] > 0;
				if (len >= 2) { /* the last axis: x-1 and x+1 (the row's ends: over the wrap-around, if any) */
					const int64_t lo = x > 0 ? x - 1 : left >= 0 ? left : -1;
					const int64_t hi = x < len - 1 ? x + 1 : right >= 0 ? right : -1;
					k += lo >= 0 && wr[lo] > 0;
					k += hi >= 0 && wr[hi] > 0;
				}
				for (; k > 0; k--)
					t += msg;
			}
			if (per_pe)
				per_pe[r + x] = t;
			slowest = slowest > t ? slowest : t; /* no NaN: fmax without the call */
		}
	}
	return slowest;
}

double lbt_app_iteration(const lbt_state *st, const double *lb, double *per_pe)
{
	const int64_t P = lbt_shape_pes(&st->grid.shape);
	double *cn = malloc((size_t)P * sizeof *cn), *w = malloc((size_t)P * sizeof *w);
	int32_t *i32 = malloc((size_t)P * sizeof *i32);
	double t = NAN; /* no memory: the caller's record shows it */
	if (cn && w && i32) {
		normalised(st, cn);
		loads(st, w, i32);
		t = iteration(st, cn, w, lb, per_pe);
	}
	free(cn);
	free(w);
	free(i32);
	return t;
}

static int speed_open(lbt_state *st, lbt_err *e);

/* Called after every step of a run with speeds: a speed method's
 * workspace has the normalised speeds and room for the loads; any other
 * method's run allocates them per call. */
int lbt_rel_load_stats(const lbt_state *st, double *max, double *min, double *bound)
{
	const int64_t P = lbt_shape_pes(&st->grid.shape);
	const ws *sw = st->method->open == speed_open ? st->ws : NULL;
	double *cn = sw ? NULL : malloc((size_t)P * sizeof *cn), *w = sw ? sw->w : malloc((size_t)P * sizeof *w);
	int32_t *i32 = sw ? sw->i32 : malloc((size_t)P * sizeof *i32);
	int status = (sw || cn) && w && i32 ? LBT_OK : LBT_ENOMEM;
	if (!status) {
		if (!sw)
			normalised(st, cn);
		loads(st, w, i32);
		const double *c = sw ? sw->cn : cn;
		double hi = -INFINITY, lo = INFINITY, slow = INFINITY;
		for (int64_t i = 0; i < P; i++) { /* no NaN here: compare-and-select (inlined) instead of fmax/fmin calls */
			const double r = w[i] / c[i];
			hi = hi > r ? hi : r;
			lo = lo < r ? lo : r;
			slow = slow < c[i] ? slow : c[i];
		}
		*max = hi;
		*min = lo;
		*bound = lbt_shape_active_dims(&st->grid.shape) / slow;
	}
	free(cn);
	if (!sw) {
		free(w);
		free(i32);
	}
	return status;
}

double lbt_app_sequential(const lbt_state *st, int64_t iterations)
{
	const int64_t P = lbt_shape_pes(&st->grid.shape);
	double *cn = malloc((size_t)P * sizeof *cn), *w = malloc((size_t)P * sizeof *w);
	int32_t *i32 = malloc((size_t)P * sizeof *i32);
	double t = NAN;
	if (cn && w && i32) {
		normalised(st, cn);
		loads(st, w, i32);
		double W = 0, fast = 0;
		for (int64_t i = 0; i < P; i++) {
			W += w[i];
			fast = fmax(fast, cn[i]);
		}
		t = (double)iterations * W * st->net.unit_s / fast;
	}
	free(cn);
	free(w);
	free(i32);
	return t;
}

static void speed_close(lbt_state *st)
{
	ws *w = st->ws;
	if (w) {
		lbt_scratch_close(&w->sc);
		free(w->cn);
		free(w->mr_fwd);
		free(w->mr_bwd);
		free(w->k);
		free(w->lb);
		free(w->prev);
		free(w->times);
		free(w->w);
		free(w->i32);
		free(w->U);
		free(w->active);
	}
	free(w);
	st->ws = NULL;
}

static int speed_open(lbt_state *st, lbt_err *e)
{
	const lbt_shape *s = &st->grid.shape;
	const int64_t P = lbt_shape_pes(s), D = s->dims;
	ws *w = calloc(1, sizeof *w);
	if (!w)
		return lbt_errf(e, LBT_ENOMEM, "no memory for %s's workspace", st->method->name);
	st->ws = w;
	w->P = P;
	w->cn = malloc((size_t)P * sizeof *w->cn);
	w->mr_fwd = calloc((size_t)(D * P), sizeof *w->mr_fwd);
	w->mr_bwd = calloc((size_t)(D * P), sizeof *w->mr_bwd);
	w->k = malloc((size_t)P * sizeof *w->k);
	w->lb = calloc((size_t)P, sizeof *w->lb);
	w->prev = malloc((size_t)P * sizeof *w->prev);
	w->times = calloc((size_t)P, sizeof *w->times);
	w->w = malloc((size_t)P * sizeof *w->w);
	w->i32 = malloc((size_t)P * sizeof *w->i32);
	w->U = calloc((size_t)(D * P), sizeof *w->U);
	w->active = calloc((size_t)P, 1);
	double *delta = malloc((size_t)P * sizeof *delta);
	lbt_view v;
	lbt_state_view(st, &v);
	if (lbt_scratch_open(&w->sc, &v, st->grid.cells, st->grid.origin) || !w->cn || !w->mr_fwd || !w->mr_bwd || !w->k || !w->lb || !w->prev || !w->times || !w->w || !w->i32 || !w->U || !w->active || !delta) {
		free(delta);
		speed_close(st);
		return lbt_errf(e, LBT_ENOMEM, "no memory for %s's workspace (%lld PEs)", st->method->name, (long long)P);
	}
	/* Mr from the raw speeds (only ratios matter), the weights per link */
	const lbt_field *f = lbt_grid_field(&st->grid, "speed");
	double *C = w->w; /* scratch */
	if (f)
		lbt_field_export(&st->grid, f, C);
	else
		for (int64_t i = 0; i < P; i++)
			C[i] = 1;
	deltas(s, C, (int)st->param[P_SELF].num, delta);
	int64_t stride[8], c[8] = {0};
	strides(s, stride);
	for (int64_t i = 0; i < P; i++, next_coord(s, c))
		for (int d = 0; d < D; d++) {
			int64_t j = neighbour(s, stride, c, i, d, +1);
			if (j >= 0) {
				w->mr_fwd[d * P + i] = mr(C, delta, i, j);
				w->mr_bwd[d * P + i] = mr(C, delta, j, i);
			}
		}
	free(delta);
	normalised(st, w->cn);
	const char *kw = st->param[P_K].word;
	w->kmode = !kw ? 1 : !strncmp(kw, "none", 4) ? 0 : !strncmp(kw, "dec", 3) ? 2 : 3;
	for (int64_t i = 0; i < P; i++) {
		w->k[i] = w->kmode == 1 ? st->param[P_K].num : K0;
		w->prev[i] = -1;
	}
	if (st->param[P_DETECT].num) {
		int64_t *edges = malloc((size_t)(2 * P) * sizeof *edges), *aux = malloc((size_t)(2 * P) * sizeof *aux);
		int status = edges && aux ? LBT_OK : lbt_errf(e, LBT_ENOMEM, "no memory for the detection tree");
		if (!status) {
			lbt_detect_shape_tree(s, edges);
			status = lbt_detect_run(P, edges, &w->det, aux, aux + P, e);
		}
		free(edges);
		free(aux);
		if (status) {
			speed_close(st);
			return status;
		}
	}
	return LBT_OK;
}

static void speed_step(lbt_state *st, lbt_counts *c)
{
	ws *w = st->ws;
	const int64_t P = w->P;
	if (w->kmode == 2) {
		const double k = fmax(0, K0 - (double)st->step); /* k(t+1) = k(t) - 1, k(0) = 1000 */
		for (int64_t i = 0; i < P; i++)
			w->k[i] = k;
	}
	lbt_speed_args a = {
		.real = st->method->load == LBT_LOAD_REAL, .cn = w->cn, .mr_fwd = w->mr_fwd, .mr_bwd = w->mr_bwd,
		.cb = w->kmode != 0, .k = w->k, .shake_p = st->param[P_SHAKE].num, .shake_tau = st->param[P_TAU].num,
		.U = w->U, .net = st->net, .lb = w->lb, .active = w->active};
	lbt_view v;
	lbt_method_view(st, &v);
	st->kern->speed_step(&v, &a, c);
	if (c->nomem)
		return;
	loads(st, w->w, w->i32);
	double lbmax = 0;
	for (int64_t i = 0; i < P; i++)
		lbmax = lbmax > w->lb[i] ? lbmax : w->lb[i]; /* no NaN: fmax without the call */
	c->app_time = iteration(st, w->cn, w->w, w->lb, w->times);
	c->lb_time = lbmax;
	if (w->kmode == 3) /* §4.2: a PE whose iteration got slower halves its k */
		for (int64_t i = 0; i < P; i++) {
			if (w->prev[i] >= 0 && w->times[i] > w->prev[i])
				w->k[i] /= 2;
			w->prev[i] = w->times[i];
		}
	if (st->param[P_DETECT].num) {
		/* The protocol runs piggybacked on the balancing messages, one round per
		 * iteration: the wave that starts in the first quiet iteration reaches the
		 * root after up_rounds and every PE after rounds iterations; if no PE
		 * exchanged in between, balancing stops. */
		w->quiet = c->links_exchanged ? 0 : w->quiet + 1;
		c->detected = w->quiet >= w->det.rounds;
	}
}

#define JV "E. Jeannot, F. Vernier, A Practical Approach of Diffusion Load Balancing Algorithms, Euro-Par 2006: "

LBT_METHOD(lbt_fos_speed) = {
	.name = "fos-speed",
	.summary = "diffusion with the relative-speed matrix Mr, cost/benefit, shake, detection; real loads",
	.citation = JV "§3.2 Mr, §3.1 eq. (2), §3.3",
	.load = LBT_LOAD_REAL,
	.flags = LBT_M_RANDOM | LBT_M_SPEEDS | LBT_M_SCRATCH,
	.kernels = LBT_K(SPEED_STEP),
	.bounded = LBT_UNBOUNDED,
	.params = params,
	.nparams = sizeof params / sizeof *params,
	.open = speed_open,
	.step = speed_step,
	.close = speed_close,
};

LBT_METHOD(lbt_fos_speed_int) = {
	.name = "fos-speed-int",
	.summary = "the same with integer flows truncated towards zero",
	.citation = JV "§3.2 Mr, §3.1 eq. (2), §3.3",
	.load = LBT_LOAD_INT,
	.flags = LBT_M_RANDOM | LBT_M_SPEEDS | LBT_M_SCRATCH,
	.kernels = LBT_K(SPEED_STEP),
	.bounded = LBT_UNBOUNDED,
	.params = params,
	.nparams = sizeof params / sizeof *params,
	.open = speed_open,
	.step = speed_step,
	.close = speed_close,
};
