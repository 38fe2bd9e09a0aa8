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

#include "../../kernels/internal.h" /* lbt_halo_fill, lbt_alloc_aligned */
#include "comm/comm.h"
#include "family.h"

#define K0 1000.0 /* k(0) of §4.1 and of the adaptive rule */
#define HALVED_MAX 1100 /* k(0) 2^-1100 is 0 already */

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

/* The dense arrays' layout: the grid's block, widened on its cut axes by
 * LBT_HALO layers a side (kernels/ref/links.h lays out its copies so), in
 * row-major order; without a cut, the torus itself. A PE's links are
 * decided by global coordinates (mesh ends, the one link of an axis of
 * extent 2); the halo holds the neighbouring ranks' PEs after a fill. */
typedef struct {
	int D;
	int64_t n[8], ds[8], h[8]; /* dense extents and strides; the halo's depth (LBT_HALO on a cut axis, else 0) */
	int64_t N[8], lo[8];       /* the torus's extents; the global coordinate of dense 0 on a cut axis */
	unsigned char on[8], torus[8];
	int64_t P, held, whole;    /* dense cells, PEs of the block, PEs of the torus */
} layout;

static void layout_init(const lbt_state *st, layout *L)
{
	const lbt_grid *g = &st->grid;
	L->D = g->shape.dims;
	L->P = 1;
	for (int d = L->D - 1; d >= 0; d--) {
		L->on[d] = g->cut && g->cut->on[d];
		L->h[d] = L->on[d] ? LBT_HALO : 0;
		L->n[d] = g->shape.ext[d] + 2 * L->h[d];
		L->N[d] = g->whole.ext[d];
		L->lo[d] = lbt_grid_lo(g, d) - L->h[d];
		L->torus[d] = g->shape.bnd[d] == LBT_TORUS;
		L->ds[d] = L->P;
		L->P *= L->n[d];
	}
	L->held = lbt_shape_pes(&g->shape);
	L->whole = lbt_shape_pes(&g->whole);
}

/* The global coordinate of dense coordinate c on axis d (on a mesh's cut
 * axis it may lie beyond the ends: no PE). */
static int64_t gcoord(const layout *L, int d, int64_t c)
{
	if (!L->on[d])
		return c;
	const int64_t x = L->lo[d] + c;
	return L->torus[d] ? ((x % L->N[d]) + L->N[d]) % L->N[d] : x;
}

/* Has the PE at dense coordinate c on axis d a link in direction dir (+1/-1)? */
static int has_link(const layout *L, int d, int64_t c, int dir)
{
	const int64_t x = gcoord(L, d, c), n = L->N[d];
	if (x < 0 || x >= n || n < 2)
		return 0;
	const int wrap = L->torus[d] && n > 2;
	return dir > 0 ? x < n - 1 || wrap : x > 0 || wrap;
}

/* Dense index of the neighbour over that link (-1: beyond the copy). */
static int64_t across(const layout *L, const int64_t *c, int64_t i, int d, int dir)
{
	const int64_t x = c[d] + dir;
	if (L->on[d])
		return x >= 0 && x < L->n[d] ? i + dir * L->ds[d] : -1;
	return x < 0 ? i + (L->n[d] - 1) * L->ds[d] : x >= L->n[d] ? i - (L->n[d] - 1) * L->ds[d] : i + dir * L->ds[d];
}

/* Is there a PE at dense coordinates c? Are all its neighbours in the copy? */
static int exists(const layout *L, const int64_t *c)
{
	for (int d = 0; d < L->D; d++) {
		const int64_t x = gcoord(L, d, c[d]);
		if (x < 0 || x >= L->N[d])
			return 0;
	}
	return 1;
}
static int held(const layout *L, const int64_t *c)
{
	for (int d = 0; d < L->D; d++)
		if (L->on[d] && (c[d] < L->h[d] || c[d] >= L->n[d] - L->h[d]))
			return 0;
	return 1;
}
static int inner(const layout *L, const int64_t *c)
{
	for (int d = 0; d < L->D; d++)
		if (L->on[d] && (c[d] < 1 || c[d] > L->n[d] - 2))
			return 0;
	return 1;
}

static void next_coord(const layout *L, int64_t *c)
{
	for (int d = L->D - 1; d >= 0; d--) {
		if (++c[d] < L->n[d])
			return;
		c[d] = 0;
	}
}

/* A field's cells at the dense layout's places, as doubles (halo cells
 * as the grid holds them: filled or not). */
static void gather(const lbt_state *st, const layout *L, const lbt_field *f, double *out)
{
	const lbt_grid *g = &st->grid;
	const int last = L->D - 1;
	const int64_t len = L->n[last];
	int64_t c[8] = {0};
	for (int64_t r = 0; r < L->P / len; r++, c[last] = len - 1, next_coord(L, c)) {
		int64_t off = -L->h[last];
		for (int d = 0; d < last; d++)
			off += (c[d] - L->h[d]) * g->stride[d];
		double *o = out + r * len;
		if (f->type == LBT_F64)
			memcpy(o, (const double *)f->pe0 + off, (size_t)len * sizeof *o);
		else
			for (int64_t x = 0; x < len; x++)
				o[x] = ((const int32_t *)f->pe0)[off + x];
	}
}

/* The grid's cell offset (from PE 0) of dense coordinates c. */
static int64_t offset_of(const lbt_state *st, const layout *L, const int64_t *c)
{
	int64_t off = 0;
	for (int d = 0; d < L->D; d++)
		off += (c[d] - L->h[d]) * st->grid.stride[d];
	return off;
}

/* Fill the halo of the cut axes of an int32 field laid out as the grid
 * (pe0: its PE 0), collectively. */
static void fill_i32(const lbt_state *st, int32_t *pe0)
{
	lbt_view v;
	lbt_state_view(st, &v);
	v.load = pe0;
	v.real = NULL;
	for (int d = 0; d < v.dims; d++)
		if (st->grid.cut->on[d])
			lbt_halo_fill(&v, d);
}

/* The same for a float64 field, its bits in two int32 halves through buf
 * (the grid's cells of int32). */
static void fill_f64(const lbt_state *st, double *pe0, int32_t *buf)
{
	const int64_t cells = st->grid.cells, o = st->grid.origin;
	double *f = pe0 - o;
	for (int half = 0; half < 2; half++) {
		const int sh = 32 * half;
		for (int64_t k = 0; k < cells; k++) {
			uint64_t b;
			memcpy(&b, &f[k], sizeof b);
			buf[k] = (int32_t)(uint32_t)(b >> sh);
		}
		fill_i32(st, buf + o);
		for (int64_t k = 0; k < cells; k++) {
			uint64_t b;
			memcpy(&b, &f[k], sizeof b);
			b = (b & ~((uint64_t)0xffffffffu << sh)) | (uint64_t)(uint32_t)buf[k] << sh;
			memcpy(&f[k], &b, sizeof b);
		}
	}
}

/* The raw speeds at the dense places (1 where there is no PE, or no
 * field "speed"); with buf (room for the grid's cells of int32) on a cut
 * grid, the halo's from the neighbouring ranks first (collective), else
 * only the held PEs' are meant. */
static void raw_speeds(const lbt_state *st, const layout *L, double *C, int32_t *buf)
{
	const lbt_field *f = lbt_grid_field(&st->grid, "speed");
	if (f && st->grid.cut && buf)
		fill_f64(st, f->pe0, buf);
	if (f)
		gather(st, L, f, C);
	int64_t c[8] = {0};
	for (int64_t i = 0; i < L->P; i++, next_coord(L, c))
		if (!f || !exists(L, c))
			C[i] = 1;
}

/* The speeds' sum over the torus as lbt_field_stats adds a real field
 * (each row's sum from 0, the rows' sums added in global row order: the
 * same bits for any rank count) and the largest speed, collective on a cut
 * grid, with parts of its own (an integer method's cut has none): the sum
 * is NaN if some rank has no memory for them. */
static void speed_sum(const lbt_state *st, const lbt_field *f, double *sum, double *max)
{
	const lbt_grid *g = &st->grid;
	const lbt_cut *cut = g->cut;
	const int64_t n = g->shape.ext[g->shape.dims - 1], R = lbt_shape_pes(&g->shape) / n;
	const int by_pe = cut && cut->by_pe; /* rows shared by ranks: their terms PE by PE */
	double *parts = cut ? malloc((size_t)(by_pe ? R * n : R) * sizeof *parts) : NULL;
	const int ok = cut ? lbt_comm_min_int(parts != NULL) : 1;
	double s = 0, mx = -HUGE_VAL;
	for (int64_t r = 0; ok && r < R; r++) {
		const double *w = lbt_field_row(g, f, r);
		double row = 0;
		for (int64_t x = 0; x < n; x++) {
			row += w[x];
			mx = w[x] > mx ? w[x] : mx;
			if (by_pe)
				parts[r * n + x] = w[x];
		}
		if (!cut)
			s += row;
		else if (!by_pe)
			parts[r] = row;
	}
	if (cut) {
		lbt_comm_max_f64(&mx, 1);
		int nomem = 0;
		if (ok)
			s = lbt_cut_sum(cut, parts, by_pe ? R * n : R, 1, 0, &nomem);
		if (!lbt_comm_min_int(ok && !nomem))
			s = NAN;
	}
	free(parts);
	*sum = s;
	*max = mx;
}

/* Every PE's speed over the mean speed (1 without a field "speed");
 * collective on a cut grid; C: the raw speeds. */
static void normalise(const lbt_state *st, const layout *L, const double *C, double *cn)
{
	const lbt_field *f = lbt_grid_field(&st->grid, "speed");
	if (!f) {
		for (int64_t i = 0; i < L->P; i++)
			cn[i] = 1;
		return;
	}
	double sum, max;
	speed_sum(st, f, &sum, &max);
	for (int64_t i = 0; i < L->P; i++)
		cn[i] = C[i] / (sum / (double)L->whole);
}

/* delta_i of §3.2 for every PE whose neighbours are in the copy (0 elsewhere). */
static void deltas(const layout *L, const double *C, int self, double *delta)
{
	int64_t c[8] = {0};
	for (int64_t i = 0; i < L->P; i++, next_coord(L, c)) {
		delta[i] = 0;
		if (!inner(L, c) || !exists(L, c))
			continue;
		double sum = self ? 0.5 : 0; /* Cr_ii = C_i / (2 C_i) */
		for (int d = 0; d < L->D; d++)
			for (int dir = -1; dir <= 1; dir += 2)
				if (has_link(L, d, c[d], dir)) { /* extent 2: one link */
					const int64_t j = across(L, c, i, d, dir);
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
	layout L = {.D = s->dims, .P = 1};
	for (int d = L.D - 1; d >= 0; d--) {
		L.n[d] = L.N[d] = s->ext[d];
		L.torus[d] = s->bnd[d] == LBT_TORUS;
		L.ds[d] = L.P;
		L.P *= L.n[d];
	}
	const int64_t P = L.P;
	double *delta = malloc((size_t)P * sizeof *delta);
	if (!delta)
		return lbt_errf(e, LBT_ENOMEM, "no memory for Mr");
	deltas(&L, C, self, delta);
	memset(M, 0, (size_t)(P * P) * sizeof *M);
	int64_t c[8] = {0};
	for (int64_t i = 0; i < P; i++, next_coord(&L, c)) {
		double row = 0;
		for (int d = 0; d < s->dims; d++)
			for (int dir = -1; dir <= 1; dir += 2)
				if (has_link(&L, d, c[d], dir)) {
					const int64_t j = across(&L, c, i, d, dir);
					M[i * P + j] = mr(C, delta, i, j);
					row += M[i * P + j];
				}
		M[i * P + i] = 1 - row;
	}
	free(delta);
	return LBT_OK;
}

/* The loads at the dense places as doubles; on a cut grid the halo filled
 * first (collective) if `halo`. */
static void loads(const lbt_state *st, const layout *L, int halo, double *w)
{
	const int real = st->method->load == LBT_LOAD_REAL;
	if (halo && st->grid.cut) {
		lbt_view v;
		lbt_state_view(st, &v);
		for (int d = 0; d < v.dims; d++)
			if (L->on[d])
				lbt_halo_fill(&v, d);
	}
	gather(st, L, lbt_grid_field(&st->grid, real ? "real" : "load"), w);
}

/* Each held PE's compute, communication and balancing time (§4's model),
 * the largest returned (this rank's), and in *lbmax (if not NULL) the
 * largest balancing time lb of a held PE (from 0). Row by row: a row's neighbours on
 * the outer axes are whole rows (found once per row), on the last axis the
 * PEs beside it; a message is added per loaded neighbour (every addend is
 * msg, so the order of the links does not change the sum). */
static double iteration(const lbt_state *st, const layout *L, const double *cn, const double *w, const double *lb,
                        double *per_pe, double *lbmax)
{
	double lbm = 0;
	const lbt_net *n = &st->net;
	const int D = L->D, last = D - 1;
	const int64_t len = L->n[last] - 2 * L->h[last];
	const double msg = n->lat + n->app_bytes / n->bw;
	int64_t c[8];
	for (int d = 0; d < D; d++)
		c[d] = L->h[d];
	double slowest = 0;
	for (int64_t r = 0; r < L->held / len; r++) {
		int64_t i0 = 0;
		for (int d = 0; d < D; d++)
			i0 += c[d] * L->ds[d];
		const double *nb[16]; /* the rows beside this one on the outer axes */
		int nnb = 0;
		for (int d = 0; d < last; d++)
			for (int dir = -1; dir <= 1; dir += 2)
				if (has_link(L, d, c[d], dir))
					nb[nnb++] = w + across(L, c, i0, d, dir);
		const int has_left = has_link(L, last, c[last], -1);
		const int64_t left = has_left ? across(L, c, i0, last, -1) - i0 : 0; /* of PE 0 */
		c[last] += len - 1;
		const int has_right = has_link(L, last, c[last], +1);
		const int64_t right = has_right ? across(L, c, i0 + len - 1, last, +1) - i0 : 0; /* of the last PE */
		c[last] -= len - 1;
		const double *wr = w + i0;
		for (int64_t x = 0; x < len; x++) {
			double t = wr[x] * n->unit_s / cn[i0 + x] + (lb ? lb[i0 + x] : 0);
			if (wr[x] > 0) {
				int k = 0;
				for (int q = 0; q < nnb; q++)
					k += nb[q][x] > 0;
				/* the last axis: x-1 and x+1 (the row's ends: over the wrap-around or the halo, if any) */
				if (x > 0 || has_left)
					k += wr[x > 0 ? x - 1 : left] > 0;
				if (x < len - 1 || has_right)
					k += wr[x < len - 1 ? x + 1 : right] > 0;
				for (; k > 0; k--)
					t += msg;
			}
			if (per_pe)
				per_pe[i0 + x] = t;
			slowest = slowest > t ? slowest : t; /* no NaN: fmax without the call */
			if (lb)
				lbm = lbm > lb[i0 + x] ? lbm : lb[i0 + x];
		}
		for (int d = last - 1; d >= 0; d--) { /* the next held row */
			if (++c[d] < L->n[d] - L->h[d])
				break;
			c[d] = L->h[d];
		}
	}
	if (lbmax)
		*lbmax = lbm;
	return slowest;
}

/* The largest of each of k values over the ranks (a cut grid). */
static void max_all(const lbt_state *st, double *x, int k)
{
	if (st->grid.cut)
		lbt_comm_max_f64(x, k);
}

double lbt_app_iteration(const lbt_state *st, const double *lb, double *per_pe)
{
	layout L;
	layout_init(st, &L);
	double *C = malloc((size_t)L.P * sizeof *C), *cn = malloc((size_t)L.P * sizeof *cn),
	       *w = malloc((size_t)L.P * sizeof *w);
	int ok = C && cn && w;
	if (st->grid.cut)
		ok = lbt_comm_min_int(ok);
	double t = NAN; /* no memory: the caller's record shows it */
	if (ok) {
		raw_speeds(st, &L, C, NULL); /* the held PEs' speeds: all iteration reads */
		normalise(st, &L, C, cn);
		loads(st, &L, 1, w);
		t = iteration(st, &L, cn, w, lb, per_pe, NULL);
		max_all(st, &t, 1);
	}
	free(C);
	free(cn);
	free(w);
	return t;
}

static int speed_open(lbt_state *st, lbt_err *e);

typedef struct {
	lbt_scratch sc; /* first: the kernels' scratch (lbt_method_view) */
	layout L;
	int kmode; /* 0 none, 1 constant, 2 dec, 3 adaptive */
	double *cn, *mr_fwd, *mr_bwd, *k, *lb, *w;
	double mr; /* mr_fwd = mr_bwd = NULL: Mr of every link */
	double *prev, *times; /* adaptive k: each PE's iteration time, the last and this one */
	int32_t *U;           /* the shake: each link's blocked iterations */
	int32_t *halved;      /* adaptive k = k(0) 2^-halved, per PE */
	int32_t *buf;         /* a cut grid: an int32 field laid out as the grid, for the fills */
	int64_t rounds;       /* the detection's rounds on the whole torus */
	int unit;             /* every normalised speed is 1: a relative load is the load itself */
	int64_t quiet;        /* successive iterations in which no link exchanged */
} ws;

/* A row of real loads w[0..len-1] folded into the chains x[0] = x[0] > q ?
 * x[0] : q and x[1] = x[1] > -q ? x[1] : -q over q = w[i] in order (the
 * loop below), in four chains side by side: the largest value of each is
 * the same in any order, and so are its bits unless it is a zero (+0 and -0
 * compare equal; a chain keeps the last one). Returns 0, folding nothing,
 * for a row whose extreme is a zero: the caller's loop then decides. */
static int rel_extremes(const double *w, int64_t len, double *x)
{
	double h[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY}, m[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
	int64_t i = 0;
	for (; i + 4 <= len; i += 4)
		for (int k = 0; k < 4; k++) {
			h[k] = h[k] > w[i + k] ? h[k] : w[i + k];
			m[k] = m[k] > -w[i + k] ? m[k] : -w[i + k];
		}
	for (; i < len; i++) {
		h[0] = h[0] > w[i] ? h[0] : w[i];
		m[0] = m[0] > -w[i] ? m[0] : -w[i];
	}
	for (int k = 1; k < 4; k++) {
		h[0] = h[0] > h[k] ? h[0] : h[k];
		m[0] = m[0] > m[k] ? m[0] : m[k];
	}
	if (h[0] == 0 || m[0] == 0)
		return 0;
	x[0] = x[0] > h[0] ? x[0] : h[0];
	x[1] = x[1] > m[0] ? x[1] : m[0];
	return 1;
}

/* Called after every step of a run with speeds: the relative loads'
 * extremes and the bound on their spread, the loads read from the grid. A
 * speed method's workspace has the normalised speeds; any other method's
 * run works them out per call (collective on a cut grid). */
int lbt_rel_load_stats(const lbt_state *st, double *max, double *min, double *bound)
{
	const ws *sw = st->method->open == speed_open ? st->ws : NULL;
	layout L;
	if (sw)
		L = sw->L;
	else
		layout_init(st, &L);
	double *cn = sw ? sw->cn : malloc((size_t)L.P * sizeof *cn), *w = sw ? NULL : malloc((size_t)L.P * sizeof *w);
	int ok = cn && (sw || w);
	if (st->grid.cut)
		ok = lbt_comm_min_int(ok);
	if (ok) {
		if (!sw) {
			raw_speeds(st, &L, w, NULL); /* w: scratch until the loads; the held PEs' */
			normalise(st, &L, w, cn);
		}
		const int real = st->method->load == LBT_LOAD_REAL;
		const lbt_field *f = lbt_grid_field(&st->grid, real ? "real" : "load");
		double x[3] = {-INFINITY, -INFINITY, -INFINITY}; /* the largest relative load, minus the least, minus the slowest */
		int64_t c[8];
		for (int d = 0; d < L.D; d++)
			c[d] = L.h[d];
		const int last = L.D - 1;
		const int64_t len = L.n[last] - 2 * L.h[last];
		for (int64_t r = 0; r < L.held / len; r++) { /* the loads straight from the grid's rows */
			int64_t i0 = 0;
			for (int d = 0; d < L.D; d++)
				i0 += c[d] * L.ds[d];
			const void *row = lbt_field_row(&st->grid, f, r);
			const double *cr = cn + i0;
			if (sw && sw->unit && !real) { /* q = L / 1 = L: the row's integer extremes (in lanes), exact */
				const int32_t *l = row;
				int32_t hi = INT32_MIN, lo = INT32_MAX;
				for (int64_t i = 0; i < len; i++) {
					hi = l[i] > hi ? l[i] : hi;
					lo = l[i] < lo ? l[i] : lo;
				}
				/* the same values, and no zero of two signs to choose between: -q of L = 0 is -0 */
				x[0] = x[0] > (double)hi ? x[0] : (double)hi;
				x[1] = x[1] > -(double)lo ? x[1] : -(double)lo;
				x[2] = -1;
			} else if (sw && sw->unit && rel_extremes(row, len, x)) /* q = w / 1 = w */
				x[2] = -1;
			else
				for (int64_t i = 0; i < len; i++) { /* no NaN here: compare-and-select instead of fmax/fmin calls */
					const double v = real ? ((const double *)row)[i] : (double)((const int32_t *)row)[i];
					const double q = sw && sw->unit ? v : v / cr[i]; /* v / 1 = v */
					x[0] = x[0] > q ? x[0] : q;
					x[1] = x[1] > -q ? x[1] : -q;
					x[2] = x[2] > -cr[i] ? x[2] : -cr[i];
				}
			for (int d = last - 1; d >= 0; d--) {
				if (++c[d] < L.n[d] - L.h[d])
					break;
				c[d] = L.h[d];
			}
		}
		max_all(st, x, 3);
		*max = x[0];
		*min = -x[1];
		*bound = lbt_shape_active_dims(&st->grid.whole) / -x[2];
	}
	if (!sw) {
		free(cn);
		free(w);
	}
	return ok ? LBT_OK : LBT_ENOMEM;
}

/* After a step whose kernel measured the loads' extremes (k->has_stats) and nothing changed the grid since:
 * with unit speeds the relative loads are the loads (q = L / 1), so their extremes are the kernel's, as
 * lbt_rel_load_stats would read them: integer loads exactly (its -(-(double)0) is +0 too); real loads where
 * neither extreme is a zero (a nonzero double's bits are its value; of a zero, the sign lbt_rel_load_stats
 * keeps depends on its order). Not on a cut grid (every rank takes lbt_rel_load_stats's collective). */
int lbt_rel_load_known(const lbt_state *st, const lbt_counts *k, double *max, double *min, double *bound)
{
	const ws *sw = st->method->open == speed_open ? st->ws : NULL;
	const int real = st->method->load == LBT_LOAD_REAL;
	if (!sw || !sw->unit || st->grid.cut || !k->has_stats || (real && (k->real_max == 0 || k->real_min == 0)))
		return 0;
	*max = real ? k->real_max : (double)k->max;
	*min = real ? k->real_min : (double)k->min;
	*bound = (double)lbt_shape_active_dims(&st->grid.whole); /* D / min Cn, min Cn = 1 */
	return 1;
}

/* The whole computation on the fastest PE: the loads' total (in the
 * order lbt_field_stats adds them) over the largest normalised speed. */
double lbt_app_sequential(const lbt_state *st, int64_t iterations)
{
	const int real = st->method->load == LBT_LOAD_REAL;
	const lbt_field *f = lbt_grid_field(&st->grid, "speed");
	lbt_stats w;
	lbt_field_stats(&st->grid, lbt_grid_field(&st->grid, real ? "real" : "load"), st->threads, &w);
	double fast = 1, sum, max;
	if (f) {
		speed_sum(st, f, &sum, &max);
		fast = max / (sum / (double)lbt_shape_pes(&st->grid.whole));
	}
	return (double)iterations * (real ? w.rtotal : (double)w.total) * st->net.unit_s / fast;
}

static void speed_close(lbt_state *st)
{
	ws *w = st->ws;
	if (w) {
		lbt_scratch_close(&w->sc);
		free(w->cn);
		if (w->mr_bwd != w->mr_fwd)
			free(w->mr_bwd);
		free(w->mr_fwd);
		free(w->k);
		free(w->lb);
		free(w->prev);
		free(w->times);
		free(w->w);
		free(w->U);
		free(w->halved);
		free(w->buf);
	}
	free(w);
	st->ws = NULL;
}

/* Adaptive k at every dense place from the halvings (a cut grid: the
 * halo's from the neighbouring ranks first, collective). */
static void adaptive_k(lbt_state *st, ws *w)
{
	const layout *L = &w->L;
	if (st->grid.cut) {
		int64_t c[8] = {0};
		for (int64_t i = 0; i < L->P; i++, next_coord(L, c)) /* the held PEs' into the grid's layout, the halo's back */
			w->buf[st->grid.origin + offset_of(st, L, c)] = w->halved[i];
		fill_i32(st, w->buf + st->grid.origin);
		memset(c, 0, sizeof c);
		for (int64_t i = 0; i < L->P; i++, next_coord(L, c))
			w->halved[i] = w->buf[st->grid.origin + offset_of(st, L, c)];
	}
	for (int64_t i = 0; i < L->P; i++)
		w->k[i] = ldexp(K0, -w->halved[i]);
}

/* The cost/benefit k as --k gives it: 0 none, 1 constant, 2 dec, 3 adaptive. */
static int k_mode(const lbt_state *st)
{
	const char *kw = st->param[P_K].word;
	return !kw ? 1 : !strncmp(kw, "none", 4) ? 0 : !strncmp(kw, "dec", 3) ? 2 : 3;
}

/* A symmetric Mr whose every link the kernel reads has one weight (equal
 * speeds on a torus) as that number, the array freed; not on a cut grid,
 * whose copies hold links of unknown weight. */
static void one_mr(const lbt_state *st, ws *w)
{
	const layout *L = &w->L;
	if (st->grid.cut)
		return;
	double m = NAN;
	int64_t c[8] = {0};
	for (int64_t i = 0; i < L->P; i++, next_coord(L, c))
		for (int d = 0; d < L->D; d++) {
			if (!has_link(L, d, c[d], +1))
				continue;
			const double x = w->mr_fwd[d * L->P + i];
			if (isnan(m))
				m = x;
			else if (x != m)
				return;
		}
	free(w->mr_fwd);
	w->mr_fwd = w->mr_bwd = NULL;
	w->mr = m;
}

static int speed_open(lbt_state *st, lbt_err *e)
{
	ws *w = calloc(1, sizeof *w);
	if (!w)
		return lbt_errf(e, LBT_ENOMEM, "no memory for %s's workspace", st->method->name);
	st->ws = w;
	layout_init(st, &w->L);
	const int64_t P = w->L.P, D = w->L.D;
	w->cn = malloc((size_t)P * sizeof *w->cn);
	w->mr_fwd = calloc((size_t)(D * P), sizeof *w->mr_fwd);
	w->mr_bwd = calloc((size_t)(D * P), sizeof *w->mr_bwd);
	w->kmode = k_mode(st);
	const int adaptive = w->kmode == 3, shake = st->param[P_SHAKE].num > 0;
	w->k = malloc((size_t)P * sizeof *w->k);
	w->lb = calloc((size_t)P, sizeof *w->lb);
	w->w = malloc((size_t)P * sizeof *w->w);
	if (adaptive) {
		w->prev = malloc((size_t)P * sizeof *w->prev);
		w->times = calloc((size_t)P, sizeof *w->times);
		w->halved = calloc((size_t)P, sizeof *w->halved);
	}
	if (shake)
		w->U = calloc((size_t)(D * P), sizeof *w->U);
	if (st->grid.cut)
		w->buf = lbt_alloc_aligned((size_t)st->grid.cells * sizeof *w->buf);
	double *delta = malloc((size_t)P * sizeof *delta);
	lbt_view v;
	lbt_state_view(st, &v);
	int ok = !lbt_scratch_open(&w->sc, &v, st->grid.cells, st->grid.origin) && w->cn && w->mr_fwd && w->mr_bwd &&
	         w->k && w->lb && w->w && (!adaptive || (w->prev && w->times && w->halved)) && (!shake || w->U) &&
	         delta && (w->buf || !st->grid.cut);
	if (st->grid.cut)
		ok = lbt_comm_min_int(ok);
	if (!ok) {
		free(delta);
		speed_close(st);
		return lbt_errf(e, LBT_ENOMEM, "no memory for %s's workspace (%lld PEs)", st->method->name,
		                (long long)w->L.held);
	}
	/* Mr from the raw speeds (only ratios matter), the weights per link */
	double *C = w->w; /* scratch */
	raw_speeds(st, &w->L, C, w->buf);
	deltas(&w->L, C, (int)st->param[P_SELF].num, delta);
	int64_t c[8] = {0};
	for (int64_t i = 0; i < P; i++, next_coord(&w->L, c))
		for (int d = 0; d < D; d++) {
			if (!delta[i] || !has_link(&w->L, d, c[d], +1))
				continue;
			const int64_t j = across(&w->L, c, i, d, +1);
			if (j >= 0 && delta[j]) { /* both ends' deltas known: a link this rank's kernel may use */
				w->mr_fwd[d * P + i] = mr(C, delta, i, j);
				w->mr_bwd[d * P + i] = mr(C, delta, j, i);
			}
		}
	free(delta);
	if (!memcmp(w->mr_fwd, w->mr_bwd, (size_t)(D * P) * sizeof *w->mr_fwd)) { /* Mr symmetric (equal speeds on
		                                                                      a torus): one array, read once */
		free(w->mr_bwd);
		w->mr_bwd = w->mr_fwd;
		one_mr(st, w);
	}
	normalise(st, &w->L, C, w->cn);
	w->unit = 1;
	for (int64_t i = 0; i < P; i++)
		w->unit &= w->cn[i] == 1;
	for (int64_t i = 0; i < P; i++) {
		w->k[i] = w->kmode == 1 ? st->param[P_K].num : K0;
		if (adaptive)
			w->prev[i] = -1;
	}
	w->rounds = lbt_detect_shape_rounds(&st->grid.whole); /* the comb tree of the whole torus: its diameter */
	return LBT_OK;
}

double lbt_speeds_bytes(const lbt_state *st, int dims, int cut, int64_t pes)
{
	const lbt_method *m = st->method;
	if (!(m->flags & LBT_M_SPEEDS))
		return (double)pes * 2 * sizeof(double); /* lbt_rel_load_stats: the normalised speeds and the loads */
	const int adaptive = k_mode(st) == 3, shake = st->param[P_SHAKE].num > 0;
	const int real = m->load == LBT_LOAD_REAL;
	/* speed_open: cn, k, lb, w; Mr both ways per link; prev, times, halved; U; a cut grid's int32 buffer */
	double per = 4 * 8 + 2 * 8 * dims + (adaptive ? 8 + 8 + 4 : 0) + (shake ? 4 * dims : 0) + (cut ? 4 : 0);
	/* beside it: the deltas at open, or a step of the reference (kernels/ref/speed.c: w, F, the integer
	   loads twice, the integer flows, blocked, mine, out), which the vector kernel calls on a cut grid or
	   for real loads with the shake */
	const int ref = cut || !strcmp(st->kern->isa, "scalar") || (real && shake);
	per += ref ? 8 + 8 * dims + 16 + 8 * dims + 2 * dims + 8 : 8;
	return (double)pes * per;
}

static void speed_step(lbt_state *st, lbt_counts *c)
{
	ws *w = st->ws;
	const layout *L = &w->L;
	const int64_t P = L->P;
	if (w->kmode == 2) {
		const double k = fmax(0, K0 - (double)st->step); /* k(t+1) = k(t) - 1, k(0) = 1000 */
		for (int64_t i = 0; i < P; i++)
			w->k[i] = k;
	}
	/* the balancing times and the application's iteration only where they are read: the run's
	   application (st->app) or the adaptive k; on a cut grid the same on every rank */
	const int times = st->app || w->kmode == 3;
	lbt_speed_args a = {
		.real = st->method->load == LBT_LOAD_REAL, .cn = w->cn, .mr_fwd = w->mr_fwd, .mr_bwd = w->mr_bwd,
		.mr = w->mr, .cb = w->kmode != 0, .k = w->k, .shake_p = st->param[P_SHAKE].num, .shake_tau = st->param[P_TAU].num,
		.U = w->U, .net = st->net, .lb = times || w->U ? w->lb : NULL};
	lbt_view v;
	lbt_method_view(st, &v);
	st->kern->speed_step(&v, &a, c);
	if (c->nomem && !st->grid.cut)
		return; /* a cut grid: every rank makes the step's collective calls (the engine stops after them) */
	if (times) {
		loads(st, L, 1, w->w);
		double x[2]; /* the slowest iteration, the longest balancing */
		x[0] = iteration(st, L, w->cn, w->w, w->lb, w->times, &x[1]);
		max_all(st, x, 2);
		c->app_time = x[0];
		c->lb_time = x[1];
	}
	if (st->grid.cut) {
		int64_t n[2] = {c->links_exchanged, c->shaken};
		lbt_comm_sum_i64(n, 2);
		c->links_exchanged = n[0];
		c->shaken = n[1];
	}
	if (w->kmode == 3) { /* §4.2: a PE whose iteration got slower halves its k */
		int64_t cc2[8] = {0};
		for (int64_t i = 0; i < P; i++, next_coord(L, cc2)) {
			if (!held(L, cc2))
				continue;
			if (w->prev[i] >= 0 && w->times[i] > w->prev[i] && w->halved[i] < HALVED_MAX)
				w->halved[i]++;
			w->prev[i] = w->times[i];
		}
		adaptive_k(st, w);
	}
	if (st->param[P_DETECT].num) {
		/* The protocol runs piggybacked on the balancing messages, one round per
		 * iteration: the wave that starts in the first quiet iteration reaches the
		 * root after up_rounds and every PE after rounds iterations; if no PE
		 * exchanged in between, balancing stops. */
		w->quiet = c->links_exchanged ? 0 : w->quiet + 1;
		c->detected = w->quiet >= w->rounds;
	}
}

#define JV "E. Jeannot, F. Vernier, A Practical Approach of Diffusion Load Balancing Algorithms, Euro-Par 2006: "

LBT_METHOD(lbt_fos_speed) = {
	.name = "fos-speed",
	.summary = "diffusion with the relative-speed matrix Mr, cost/benefit, shake, detection; real loads",
	.citation = JV "§3.2 Mr, §3.1 eq. (2), §3.3",
	.load = LBT_LOAD_REAL,
	.flags = LBT_M_RANDOM | LBT_M_SPEEDS | LBT_M_SCRATCH | LBT_M_CUT | LBT_M_GATHERS,
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
	.flags = LBT_M_RANDOM | LBT_M_SPEEDS | LBT_M_SCRATCH | LBT_M_CUT | LBT_M_GATHERS,
	.kernels = LBT_K(SPEED_STEP),
	.bounded = LBT_UNBOUNDED,
	.params = params,
	.nparams = sizeof params / sizeof *params,
	.open = speed_open,
	.step = speed_step,
	.close = speed_close,
};
