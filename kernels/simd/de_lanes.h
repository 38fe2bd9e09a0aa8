/* de_lanes.h — dimension exchange with the grid in lanes of NL doubles
 * (de.c's `de_steps` and the last axis's pairs in lanes), included by de.c
 * once per lane count: NL = 4 (256-bit vectors: AVX2, and AVX-512 where the
 * first extent is 8 mod 16) and NL = 8 (512-bit vectors, AVX-512). The
 * includer defines NL, the vector types VL (NL doubles), VLI (NL int64),
 * LMASK (a lane mask), the operations L_* below, L_TR_IN and L_TR_OUT (PEs
 * i .. i+3 of NL rows into four vectors and back) and LN(x) (a name per lane
 * count), which this file undefines at its end; every function here gets LN's name, so the two
 * inclusions link side by side. */
#define lanes_in LN(lanes_in)
#define lanes_out LN(lanes_out)
#define lanes_pair LN(lanes_pair)
#define lpart LN(lpart)
#define lpart_none LN(lpart_none)
#define lpart_put LN(lpart_put)
#define lchain LN(lchain)
#define lchain_init LN(lchain_init)
#define lchain_fold LN(lchain_fold)
#define lanes_last_k LN(lanes_last_k)
#define lanes_last2 LN(lanes_last2)
#define lanes LN(lanes)
#define lanes_fit LN(lanes_fit)
#define lanes_move LN(lanes_move)
#define lanes_pairs LN(lanes_pairs)
#define group_fold LN(group_fold)
#define outer_group LN(outer_group)
#define outer_two LN(outer_two)
#define lanes_outer_sub LN(lanes_outer_sub)
#define groups_last2 LN(groups_last2)
#define lstat LN(lstat)
#define lanes_last_run LN(lanes_last_run)
#define lanes_last_sub LN(lanes_last_sub)
#define lanes_sweep2 LN(lanes_sweep2)
#define lane_steps LN(lane_steps)

/* NL rows at off into the lanes of T (T[i]: the rows' PEs i), four PEs at a
 * time, a row's last ones (fewer than four) one by one. */
static void lanes_in(const job *J, const int64_t *off, VL *T)
{
	const int64_t n = J->v->ext[J->v->dims - 1];
	int64_t i = 0;
	for (; i + 4 <= n; i += 4)
		L_TR_IN(J, off, i, T + i);
	for (; i < n; i++) {
		double x[NL];
		lane_pe(J, off, NL, i, x, 1);
		T[i] = L_LOADU(x);
	}
}

/* lanes_in's inverse: T back into the NL rows at off. */
static void lanes_out(const job *J, const int64_t *off, const VL *T)
{
	const int64_t n = J->v->ext[J->v->dims - 1];
	int64_t i = 0;
	for (; i + 4 <= n; i += 4)
		L_TR_OUT(J, off, i, T + i);
	for (; i < n; i++) {
		double x[NL];
		L_STOREU(x, T[i]);
		lane_pe(J, off, NL, i, x, 0);
	}
}

/* One pair of columns (a, b) of T: the reference's operations, NL rows at once. The left maximum is
 * folded as the least flow lo (max(-f) = -min(f); -0 or +0 where it is zero, which the +0 folded in first
 * makes +0 either way): one operation a pair less. */
static ALWAYS_INLINE void lanes_pair(VL *a, VL *b, VL L, int real, VL *sum, VLI *mv, VL *rr, VL *lo)
{
	const VL magic = L_SET1(4503599627370496.0); /* 2^52 */
	VL f = L_MUL(L, L_SUB(*a, *b));
	if (!real)
		f = L_TRUNC(f);
	*a = L_SUB(*a, f);
	*b = L_ADD(*b, f);
	const VL af = L_ABS(f);
	if (real)
		*sum = L_ADD(*sum, af);
	else /* |f| < 2^33: |f| + 2^52 holds it in its low bits */
		*mv = L_IADD(*mv, L_ISUB(L_CASTI(L_ADD(af, magic)), L_CASTI(magic)));
	*rr = L_MAX(*rr, f);
	*lo = L_MIN(*lo, f);
}

/* A substep's folds kept in lanes over its groups (the maxima, the least
 * flows, the integer amount moved), into a part once at its end: the
 * maxima are order-free (de.c), the amount exact. */
typedef struct {
	VL rr, lo;
	VLI mv;
} lpart;

static ALWAYS_INLINE lpart lpart_none(void) { return (lpart){L_SET1(-HUGE_VAL), L_SET1(HUGE_VAL), L_IZERO()}; }

/* The lanes of a into the part A (from -inf: a thread's). */
static void lpart_put(const lpart *a, part *A)
{
	double r[NL], l[NL];
	int64_t m[NL];
	L_STOREU(r, a->rr);
	L_STOREU(l, a->lo);
	L_ISTOREU((void *)m, a->mv);
	*A = (part){-HUGE_VAL, -HUGE_VAL, 0};
	for (int q = 0; q < NL; q++) {
		A->right = maxd(A->right, r[q]);
		A->left = maxd(A->left, -l[q]);
		A->moved += m[q];
	}
}

/* A colour's chains in the lanes of K groups (the amount moved, the maxima, the least flows), folded into
 * the rows' sums rs[row[g][q]] and A once its pairs are done. */
typedef struct {
	VL sum[2], rr[2], lo[2];
	VLI mv[2];
} lchain;

static ALWAYS_INLINE void lchain_init(lchain *c, int K)
{
	for (int g = 0; g < K; g++) {
		c->sum[g] = L_ZERO();
		c->rr[g] = L_SET1(-HUGE_VAL);
		c->lo[g] = L_SET1(HUGE_VAL);
		c->mv[g] = L_IZERO();
	}
}

static ALWAYS_INLINE void lchain_fold(const lchain *c, int K, const int64_t *const *row, double *rs, lpart *A)
{
	for (int g = 0; g < K; g++) {
		double s[NL];
		L_STOREU(s, c->sum[g]);
		for (int q = 0; q < NL; q++)
			rs[row[g][q]] = s[q];
		A->rr = L_MAX(A->rr, c->rr[g]);
		A->lo = L_MIN(A->lo, c->lo[g]);
		A->mv = L_IADD(A->mv, c->mv[g]);
	}
}

/* The lanes of K groups T[g] (K = 1 or 2; lane q: row row[g][q]): every
 * colour of the last axis (has[col]: the axis has pairs of it), each
 * colour's row sums into rs[col][row[g][q]] and its folds into A[col]; if
 * tot, the statistics too: the rows' totals into tot[row[g][q]] (each left
 * to right), the integer ones (exact) into *itot, and each lane's extremes
 * folded into mx[g], mn[g] (ties keep the earlier). Two groups side by side
 * run two independent chains (a lane's sum is an add's latency a pair).
 * Colours 0 and 1 (a row of n >= 4 PEs has both) run in one pass over the
 * row: colour 1's pair (i - 1, i) as soon as colour 0's pairs (i - 2, i - 1)
 * and (i, i + 1) are done, which is all it reads of them; each colour's
 * chains keep the reference's order (i ascending, the wrap-around last). */
static ALWAYS_INLINE void lanes_last_k(const job *J, int K, VL *const *T, const int64_t *const *row, const int *has,
                                       double *const *rs, lpart *A, double *tot, VL *mx, VL *mn, int64_t *itot)
{
	const lbt_view *v = J->v;
	const int last = v->dims - 1;
	const int64_t n = v->ext[last];
	const VL L = L_SET1(J->lambda);
	const int real = J->real, wrap = lbt_de_color(n - 1, n, v->torus[last]);
	if (has[0]) { /* and has[1]: n >= 4 */
		lchain c0, c1;
		lchain_init(&c0, K);
		lchain_init(&c1, K);
		VL p[2]; /* PE i - 1 after colour 0, before colour 1 */
		for (int g = 0; g < K; g++) {
			VL a = T[g][0], b = T[g][1];
			lanes_pair(&a, &b, L, real, &c0.sum[g], &c0.mv[g], &c0.rr[g], &c0.lo[g]);
			T[g][0] = a;
			p[g] = b;
		}
		int64_t i = 2;
		for (; i + 1 < n; i += 2)
			for (int g = 0; g < K; g++) {
				VL a = T[g][i], b = T[g][i + 1];
				lanes_pair(&a, &b, L, real, &c0.sum[g], &c0.mv[g], &c0.rr[g], &c0.lo[g]);
				lanes_pair(&p[g], &a, L, real, &c1.sum[g], &c1.mv[g], &c1.rr[g], &c1.lo[g]);
				T[g][i - 1] = p[g];
				T[g][i] = a;
				p[g] = b;
			}
		for (int g = 0; g < K; g++) {
			if (i < n) { /* n odd: PE n - 1 has no colour 0 pair, its colour 1 pair is (n - 2, n - 1) */
				VL a = T[g][i];
				lanes_pair(&p[g], &a, L, real, &c1.sum[g], &c1.mv[g], &c1.rr[g], &c1.lo[g]);
				T[g][i] = a;
			}
			T[g][i - 1] = p[g];
			if (wrap == 1)
				lanes_pair(&T[g][n - 1], &T[g][0], L, real, &c1.sum[g], &c1.mv[g], &c1.rr[g], &c1.lo[g]);
		}
		lchain_fold(&c0, K, row, rs[0], &A[0]);
		lchain_fold(&c1, K, row, rs[1], &A[1]);
	}
	if (has[2]) { /* colour 2: only the wrap-around (an odd torus) */
		lchain c2;
		lchain_init(&c2, K);
		for (int g = 0; g < K; g++)
			lanes_pair(&T[g][n - 1], &T[g][0], L, real, &c2.sum[g], &c2.mv[g], &c2.rr[g], &c2.lo[g]);
		lchain_fold(&c2, K, row, rs[2], &A[2]);
	}
	if (tot) {
		VL s[2], x[2], y[2];
		for (int g = 0; g < K; g++) {
			s[g] = L_ZERO();
			x[g] = mx[g];
			y[g] = mn[g];
		}
		for (int64_t i = 0; i < n; i++)
			for (int g = 0; g < K; g++) {
				s[g] = L_ADD(s[g], T[g][i]);
				x[g] = L_MAX(T[g][i], x[g]);
				y[g] = L_MIN(T[g][i], y[g]);
			}
		for (int g = 0; g < K; g++) {
			mx[g] = x[g];
			mn[g] = y[g];
			double a[NL];
			L_STOREU(a, s[g]);
			for (int q = 0; q < NL; q++) {
				tot[row[g][q]] = a[q];
				if (!J->real) /* exact: |a row's total| < n 2^31 <= 2^53 */
					*itot += (int64_t)a[q];
			}
		}
	}
}
static void lanes_last2(const job *J, VL *T0, VL *T1, const int64_t *row0, const int64_t *row1, const int *has,
                        double *const *rs, lpart *A, double *tot, VL *mx, VL *mn, int64_t *itot)
{
	VL *const T[2] = {T0, T1};
	const int64_t *const row[2] = {row0, row1};
	lanes_last_k(J, 2, T, row, has, rs, A, tot, mx, mn, itot);
}

/* Several steps a call, the grid in lanes for the whole call. The rows are
 * NL bands of B = R/NL consecutive rows (R rows of the last axis; the first
 * axis cut in NL, its extent a multiple of 2 NL), and group j holds the
 * band's j-th rows side by side: vector i of group j (G[j n + i]) holds PE i
 * of rows j, B + j, 2B + j, ..., (NL - 1) B + j. Every pair of every axis is then a
 * vertical operation: on the last axis (i, i+1) of a group; on an outer axis
 * d >= 1 group j with the group of the next coordinate on d; on the first
 * axis group j with group j + Q (Q = R / ext[0]) inside a band, and the last
 * groups of the bands with the first ones rotated by a lane (band q's last
 * row pairs with band q+1's first, the last band's with band 0's: the
 * wrap-around, colour 1 as every band's last pair, ext[0] / NL being even). Each lane is
 * one row at a time, in its band's order, so the chains keep the reference's
 * order: a row's amount moved and its total, in the lane; the rows' sums
 * added in row order after each step. The extremes fold per lane through
 * the band's rows in order, then band by band: row-major order, ties keeping
 * the first as lbt_field_stats. */
typedef struct {
	job J;
	int64_t n, R, B, Q, h; /* PEs a row, rows, groups, groups a coordinate of the first axis, ext[0] / NL */
	VL *G;                 /* the groups */
	double *rs;            /* rs[u R + r]: row r's amount moved in the step's substep u */
	double *tot;           /* the rows' totals */
} lanes;

/* The grid's shapes the lanes take: D >= 2, the first axis's extent a
 * multiple of 2 NL, rows of 4 to 2^22 PEs, and room in the scratch for a sum per
 * row and substep. */
static int lanes_fit(const lbt_view *v)
{
	const int last = v->dims - 1;
	if (v->dims < 2 || v->ext[0] % (2 * NL) || v->ext[last] < 4 || v->ext[last] > ((int64_t)1 << 22))
		return 0;
	int sub = 0;
	for (int d = 0; d < v->dims; d++)
		for (int col = 0; col < 3; col++)
			sub += has_colour(v->ext[d], v->torus[d], col);
	return (int64_t)sub * lbt_fiber_count(v, last) <= v->scratch->cells;
}

/* The grid into the groups (in) or back (!in), groups shared by the threads. */
static void lanes_move(const lanes *X, int in, int NT, int par)
{
	const lbt_view *v = X->J.v;
	const int last = v->dims - 1;
#pragma omp parallel for num_threads(NT) if (par) schedule(static)
	for (int64_t j = 0; j < X->B; j++) {
		int64_t off[NL];
		for (int q = 0; q < NL; q++)
			off[q] = lbt_fiber_base(v, last, q * X->B + j) - v->load;
		if (in)
			lanes_in(&X->J, off, X->G + j * X->n);
		else
			lanes_out(&X->J, off, X->G + j * X->n);
	}
}

/* Pair a, b over the group's n vectors (b rotated by a lane if rot; mask:
 * the lanes that have a pair), the lanes' sums, maxima and least flows into sum, rr, lo. */
static ALWAYS_INLINE void lanes_pairs(const lanes *X, VL *a, VL *b, int rot, LMASK mask, VL *sum, VLI *mv,
                                      VL *rr, VL *lo)
{
	const VL L = L_SET1(X->J.lambda),
	         magic = L_SET1(4503599627370496.0); /* 2^52 */
	const int real = X->J.real;
	for (int64_t i = 0; i < X->n; i++) {
		if (!rot) {
			lanes_pair(&a[i], &b[i], L, real, sum, mv, rr, lo);
			continue;
		}
		const VL x = a[i], y = L_ROTDN(b[i]); /* lane q: b's lane q + 1 */
		VL f = L_MUL(L, L_SUB(x, y));
		if (!real)
			f = L_TRUNC(f);
		f = L_MASKZ(mask, f); /* +0 where there is no pair */
		a[i] = L_SUB(x, f);
		const VL yn = L_MASKADD(y, mask, f); /* -0 + 0 would be +0 */
		b[i] = L_ROTUP(yn);
		const VL af = L_ABS(f);
		if (real)
			*sum = L_ADD(*sum, af);
		else
			*mv = L_IADD(*mv, L_ISUB(L_CASTI(L_ADD(af, magic)),
			                                                       L_CASTI(magic)));
		*rr = L_MAX(*rr, f);
		*lo = L_MIN(*lo, f);
	}
}

/* A group j's lanes after its pairs of one colour: the rows' sums into rs, the folds into A. */
static void group_fold(const lanes *X, int64_t j, VL sum, VL rr, VL lo, VLI mv, double *rs, lpart *A)
{
	double s[NL];
	L_STOREU(s, sum);
	for (int q = 0; q < NL; q++)
		rs[q * X->B + j] = s[q];
	A->rr = L_MAX(A->rr, rr);
	A->lo = L_MIN(A->lo, lo);
	A->mv = L_IADD(A->mv, mv);
}

/* Group j on outer axis d, colour col: paired with its partner if its rows
 * have colour col on d; the rows' sums into rs (0: no pair), the folds into A. */
static void outer_group(const lanes *X, int d, int col, int64_t j, double *rs, lpart *A)
{
	const lbt_view *v = X->J.v;
	const int last = v->dims - 1;
	const int64_t nd = v->ext[d];
	int64_t qd = 1; /* groups a coordinate of d (d >= 1) */
	for (int e = last - 1; e > d; e--)
		qd *= v->ext[e];
	int64_t partner = -1;
	int rot = 0;
	if (d == 0) {
		const int64_t k = j / X->Q; /* the coordinate in the band */
		if (k + 1 < X->h && k % 2 == col)
			partner = j + X->Q;
		else if (k + 1 == X->h && col == 1)
			partner = j - (X->h - 1) * X->Q, rot = 1;
	} else {
		const int64_t k = (j / qd) % nd;
		if (lbt_de_color(k, nd, v->torus[d]) == col)
			partner = j + ((k + 1) % nd - k) * qd;
	}
	if (partner >= 0) {
		const LMASK all = L_MASKALL, wrap = v->torus[0] ? all : L_MASKMESH;
		VL sum = L_ZERO(), rr = L_SET1(-HUGE_VAL), lo = L_SET1(HUGE_VAL);
		VLI mv = L_IZERO();
		VL *a = X->G + j * X->n, *b = X->G + partner * X->n;
		if (rot)
			lanes_pairs(X, a, b, 1, wrap, &sum, &mv, &rr, &lo);
		else
			lanes_pairs(X, a, b, 0, all, &sum, &mv, &rr, &lo);
		group_fold(X, j, sum, rr, lo, mv, rs, A);
		return;
	}
	for (int q = 0; q < NL; q++)
		rs[q * X->B + j] = 0;
}

/* The first axis's pairs (ja, ja + Q) of one colour and (jb, jb + Q) of the
 * next, none rotated, side by side (two independent chains): the second
 * colour's pair at PE i after the first's, which is all it reads of it. */
static void outer_two(const lanes *X, int64_t ja, int64_t jb, double *rsa, lpart *Aa, double *rsb, lpart *Ab)
{
	const VL L = L_SET1(X->J.lambda);
	VL sum[2], rr[2], lo[2];
	VLI mv[2];
	for (int g = 0; g < 2; g++) {
		sum[g] = L_ZERO();
		rr[g] = L_SET1(-HUGE_VAL);
		lo[g] = L_SET1(HUGE_VAL);
		mv[g] = L_IZERO();
	}
	VL *a0 = X->G + ja * X->n, *b0 = X->G + (ja + X->Q) * X->n, *a1 = X->G + jb * X->n, *b1 = X->G + (jb + X->Q) * X->n;
	if (X->J.real)
		for (int64_t i = 0; i < X->n; i++) {
			lanes_pair(&a0[i], &b0[i], L, 1, &sum[0], &mv[0], &rr[0], &lo[0]);
			lanes_pair(&a1[i], &b1[i], L, 1, &sum[1], &mv[1], &rr[1], &lo[1]);
		}
	else
		for (int64_t i = 0; i < X->n; i++) {
			lanes_pair(&a0[i], &b0[i], L, 0, &sum[0], &mv[0], &rr[0], &lo[0]);
			lanes_pair(&a1[i], &b1[i], L, 0, &sum[1], &mv[1], &rr[1], &lo[1]);
		}
	group_fold(X, ja, sum[0], rr[0], lo[0], mv[0], rsa, Aa);
	group_fold(X, jb, sum[1], rr[1], lo[1], mv[1], rsb, Ab);
}

/* Substep u: outer axis d, colour col, every group. */
static void lanes_outer_sub(const lanes *X, int d, int col, int u, part *pt, int NT)
{
	double *rs = X->rs + u * X->R;
	for (int t = 0; t < NT; t++) /* a team smaller than NT (in a caller's region) leaves its other parts empty */
		pt[t] = (part){-HUGE_VAL, -HUGE_VAL, 0};
	if (NT == 1) { /* one thread: no region (its opening cost a tenth of a 128x128 de-axis step) */
		lpart A = lpart_none();
		for (int64_t j = 0; j < X->B; j++)
			outer_group(X, d, col, j, rs, &A);
		lpart_put(&A, &pt[0]);
		return;
	}
#pragma omp parallel num_threads(NT)
	{
		lpart A = lpart_none();
#pragma omp for schedule(static)
		for (int64_t j = 0; j < X->B; j++)
			outer_group(X, d, col, j, rs, &A);
		lpart_put(&A, &pt[lbt_thread_id()]);
	}
}

/* Groups j and k side by side (lanes_last2): their rows, band by band. */
static ALWAYS_INLINE void groups_last2(const lanes *X, int64_t j, int64_t k, const int *has, double *const *rs,
                                       lpart *A, double *tot, VL *mx, VL *mn, int64_t *itot)
{
	int64_t rj[NL], rk[NL];
	for (int q = 0; q < NL; q++)
		rj[q] = q * X->B + j, rk[q] = q * X->B + k;
	lanes_last2(&X->J, X->G + j * X->n, X->G + k * X->n, rj, rk, has, rs, A, tot, mx, mn, itot);
}

/* A thread's extremes per lane (its groups' rows in order) and integer total. */
typedef struct {
	double mx[NL], mn[NL];
	int64_t total;
} lstat;

/* The group pairs j2 = j0 .. j1-1 (groups 2 j2 and 2 j2 + 1 side by side; B = Q ext[0] / NL is even): the last
 * axis's colours has[col] (row sums into rs[col], folds into A[col]) and, if ls, the statistics into *ls. */
static void lanes_last_run(const lanes *X, const int *has, double *const *rs, int64_t j0, int64_t j1, part *A,
                           lstat *ls)
{
	VL mx = L_SET1(-HUGE_VAL), mn = L_SET1(HUGE_VAL);
	int64_t itot = 0;
	lpart LA[3] = {lpart_none(), lpart_none(), lpart_none()};
	for (int64_t j2 = j0; j2 < j1; j2++) {
		VL x[2] = {mx, L_SET1(-HUGE_VAL)}, y[2] = {mn, L_SET1(HUGE_VAL)};
		groups_last2(X, 2 * j2, 2 * j2 + 1, has, rs, LA, ls ? X->tot : NULL, x, y, &itot);
		mx = L_MAX(x[1], x[0]); /* ties keep group 2 j2's */
		mn = L_MIN(y[1], y[0]);
	}
	for (int col = 0; col < 3; col++)
		lpart_put(&LA[col], &A[col]);
	if (ls) {
		L_STOREU(ls->mx, mx);
		L_STOREU(ls->mn, mn);
		ls->total = itot;
	}
}

/* The last axis's substeps u .. (every colour, has[col]) and, if ls, the
 * statistics; or, if only, the statistics alone. */
static void lanes_last_sub(const lanes *X, const int *has, int u, part (*pt)[3], lstat *ls, int only, int NT)
{
	double *rs[3];
	for (int col = 0, k = u; col < 3; col++)
		rs[col] = X->rs + (has[col] ? k++ : 0) * X->R;
	const int none[3] = {0, 0, 0};
	for (int t = 0; t < NT; t++) { /* a team smaller than NT (in a caller's region) leaves its other parts empty */
		for (int col = 0; col < 3; col++)
			pt[t][col] = (part){-HUGE_VAL, -HUGE_VAL, 0};
		for (int q = 0; ls && q < NL; q++)
			ls[t].mx[q] = -HUGE_VAL, ls[t].mn[q] = HUGE_VAL;
		if (ls)
			ls[t].total = 0;
	}
	if (NT == 1) { /* one thread: no region (its opening cost a tenth of a 128x128 de-axis step) */
		lanes_last_run(X, only ? none : has, rs, 0, X->B / 2, pt[0], ls);
		return;
	}
#pragma omp parallel num_threads(NT)
	{
		const int t = lbt_thread_id(), nt = lbt_team_size();
		lanes_last_run(X, only ? none : has, rs, X->B / 2 * t / nt, X->B / 2 * (t + 1) / nt, pt[t],
		               ls ? &ls[t] : NULL);
	}
}

/* A sweep of a 2-D grid on one thread, in one pass over the groups (a
 * group is a row of each band): the first axis's colour 0 pairs (j, j+1),
 * j even, and colour 1 pairs (j, j+1), j odd, the last band's rows with the
 * next band's first (rotated), then the last axis of each group as soon as
 * both its pairs on the first axis are done, while it is in cache; group 0
 * last (its colour 1 pair is the rotated one). The substeps' sums and folds
 * go where the passes put them (substeps 0, 1, then the last axis's from
 * 2), and group 0's extremes are folded in first, as its rows come first in
 * their lanes. has: the last axis's colours; none for a de-axis step on the
 * first axis, whose statistics the pass measures all the same. */
static void lanes_sweep2(const lanes *X, const int *has, part (*pt)[1], part (*pl)[3], lstat *ls)
{
	lpart A0 = lpart_none(), A1 = A0, A[3] = {A0, A0, A0};
	double *rs[3];
	for (int col = 0, k = 2; col < 3; col++)
		rs[col] = X->rs + (has[col] ? k++ : 0) * X->R;
	VL mx = L_SET1(-HUGE_VAL), mn = L_SET1(HUGE_VAL), mx0 = mx, mn0 = mn;
	int64_t itot = 0;
	double *rs0 = X->rs, *rs1 = X->rs + X->R;
	const int64_t h = X->h;
	outer_group(X, 0, 0, 0, rs0, &A0);
	for (int64_t m = 1; m + 2 < h; m += 2) {
		outer_two(X, m + 1, m, rs0, &A0, rs1, &A1);
		outer_group(X, 0, 0, m, rs0, &A0); /* no pair: its rows' sums 0 */
		outer_group(X, 0, 1, m + 1, rs1, &A1);
		VL x[2] = {mx, L_SET1(-HUGE_VAL)}, y[2] = {mn, L_SET1(HUGE_VAL)};
		groups_last2(X, m, m + 1, has, rs, A, X->tot, x, y, &itot);
		mx = L_MAX(x[1], x[0]); /* ties keep group m's */
		mn = L_MIN(y[1], y[0]);
	}
	outer_group(X, 0, 1, h - 1, rs1, &A1);
	outer_group(X, 0, 0, h - 1, rs0, &A0);
	outer_group(X, 0, 1, 0, rs1, &A1);
	{
		VL x[2] = {mx, mx0}, y[2] = {mn, mn0};
		groups_last2(X, h - 1, 0, has, rs, A, X->tot, x, y, &itot);
		mx = x[0], mn = y[0], mx0 = x[1], mn0 = y[1];
	}
	mx = L_MAX(mx, mx0); /* ties keep group 0's */
	mn = L_MIN(mn, mn0);
	lpart_put(&A0, &pt[0][0]);
	lpart_put(&A1, &pt[1][0]);
	for (int col = 0; col < 3; col++)
		lpart_put(&A[col], &pl[0][col]);
	L_STOREU(ls[0].mx, mx);
	L_STOREU(ls[0].mn, mn);
	ls[0].total = itot;
}

static int lane_steps(const lbt_view *v, double lambda, int kind, int n, const lbt_steps_stop *stop, lbt_counts *c)
{
	const int last = v->dims - 1, real = kind != LBT_DE_INT;
	const lbt_scratch *S = v->scratch;
	const int64_t rows = lbt_fiber_count(v, last);
	const int T = v->threads < S->threads ? v->threads : S->threads, par = rows * v->ext[last] > 16384;
	const int NT = par ? T : 1;
	lanes X = {.J = {.v = v, .lambda = lambda, .real = real}, .n = v->ext[last], .R = rows, .B = rows / NL,
	           .Q = rows / v->ext[0], .h = v->ext[0] / NL, .G = S->link[1], .rs = S->link[0], .tot = S->rowsum};
	int has[8][3];
	for (int d = 0; d < v->dims; d++)
		for (int col = 0; col < 3; col++)
			has[d][col] = has_colour(v->ext[d], v->torus[d], col);
	part pt[3 * 8][NT], pl[NT][3];
	lstat ls[NT];
	lanes_move(&X, 1, NT, par);
	int s = 0;
	while (s < n) {
		lbt_counts *k = &c[s];
		*k = (lbt_counts){0};
		const int axis = kind == LBT_DE_AXIS ? lbt_de_axis_at(v, v->step + s) : -1; /* >= 0: ext[0] >= 8 */
		int d0 = kind == LBT_DE_AXIS ? axis : 0;
		const int d1 = kind == LBT_DE_AXIS ? axis + 1 : v->dims;
		s++;
		int u = 0, measured = 0;
		if (v->dims == 2 && NT == 1 && d0 == 0) { /* one pass (de-axis on the first axis: its statistics in it) */
			static const int none[3] = {0, 0, 0};
			const int *hl = kind == LBT_DE_AXIS ? none : has[last];
			lanes_sweep2(&X, hl, pt, pl, ls);
			u = 2;
			for (int col = 0; col < 3; col++)
				if (hl[col])
					pt[u++][0] = pl[0][col];
			d0 = d1;
			measured = 1;
		}
		for (int d = d0; d < d1; d++) {
			if (d == last) {
				lanes_last_sub(&X, has[d], u, pl, ls, 0, NT);
				for (int col = 0; col < 3; col++)
					if (has[d][col]) {
						for (int t = 0; t < NT; t++)
							pt[u][t] = pl[t][col];
						u++;
					}
				continue;
			}
			for (int col = 0; col < 3; col++)
				if (has[d][col])
					lanes_outer_sub(&X, d, col, u, pt[u], NT), u++;
		}
		if (d1 - 1 != last && !measured) /* the step ends on an outer axis: the statistics alone */
			lanes_last_sub(&X, has[last], 0, pl, ls, 1, NT);
		for (int w = 0; w < u; w++)
			substep_counts(&X.J, pt[w], NT, X.rs + w * X.R, k);
		double mx = -HUGE_VAL, mn = HUGE_VAL;
		int64_t itotal = 0;
		for (int q = 0; q < NL; q++) /* row-major: band by band, each band's threads in order */
			for (int t = 0; t < NT; t++) {
				mx = ls[t].mx[q] > mx ? ls[t].mx[q] : mx;
				mn = ls[t].mn[q] < mn ? ls[t].mn[q] : mn;
			}
		for (int t = 0; t < NT; t++)
			itotal += ls[t].total;
		put_stats(k, real, mx, mn, X.tot, rows, itotal);
		if (stop_met(stop, k, real))
			break;
	}
	lanes_move(&X, 0, NT, par);
	return s;
}

#undef lanes_in
#undef lanes_out
#undef lanes_pair
#undef lpart
#undef lpart_none
#undef lpart_put
#undef lchain
#undef lchain_init
#undef lchain_fold
#undef lanes_last_k
#undef lanes_last2
#undef lanes
#undef lanes_fit
#undef lanes_move
#undef lanes_pairs
#undef group_fold
#undef outer_group
#undef outer_two
#undef lanes_outer_sub
#undef groups_last2
#undef lstat
#undef lanes_last_run
#undef lanes_last_sub
#undef lanes_sweep2
#undef lane_steps
#undef NL
#undef VL
#undef VLI
#undef LMASK
#undef LN
#undef L_SET1
#undef L_ZERO
#undef L_ADD
#undef L_SUB
#undef L_MUL
#undef L_MAX
#undef L_MIN
#undef L_ABS
#undef L_TRUNC
#undef L_STOREU
#undef L_IZERO
#undef L_IADD
#undef L_ISUB
#undef L_CASTI
#undef L_ISTOREU
#undef L_ROTDN
#undef L_ROTUP
#undef L_MASKALL
#undef L_MASKMESH
#undef L_MASKZ
#undef L_MASKADD
#undef L_LOADU
#undef L_TR_IN
#undef L_TR_OUT
