/* luling.c — Lüling and Monien's randomized dynamic load balancing (R. Lüling,
 * B. Monien, "A dynamic distributed load balancing algorithm with provable
 * good performance", SPAA 1993): a PE whose own load has grown or shrunk by
 * the factor f since its last operation equalizes its load with delta random
 * partners. The step is the dispatch table's luling_step (kernels/ref/luling.c,
 * kernels/simd/luling.c) on a dense copy of the loads; this file holds the schema, the set-up, the counters in
 * the JSON record, and Lemma 1's operator G with its fixed point FIX. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "luling.h"

_Static_assert(LBT_LULING_MAXD == LBT_MAXD, "the kernel's axes are the shape's");

typedef struct {
	lbt_luling k;
	int32_t *dense; /* the loads, row-major */
} ws;

static const lbt_param params[] = {
	{"f", NULL, LBT_PARAM_REAL, 1, INFINITY, 0, NULL, "1.1",
	 "trigger factor: balance when the own load reaches f l_old or l_old/f (Theorems 1-4: 1 <= f < delta + 1)"},
	{"delta", NULL, LBT_PARAM_INT, 1, 63, 0, NULL, "1", "partners per operation (1 <= delta < PEs, at most 63)"},
	{"borrow", NULL, LBT_PARAM_INT, 0, 1000000, 0, NULL, "0",
	 "0: the basic algorithm (§2); C >= 1: the Appendix's load classes, at most C borrowed packets per PE "
	 "(at most 4096 PEs)"},
	{"partners", NULL, LBT_PARAM_INT, 1, 1000000, 0, "global,local:", "global",
	 "global (any PE, the paper's model) or local:R (PEs within torus distance R)"},
};

/* PEs within distance 1..R of a PE at the origin (a corner of a mesh: the
 * fewest), each distinct PE once: per axis the offsets of distinct residues. */
static int64_t local_count(const lbt_shape *s, int R, int d, int left)
{
	if (d == s->dims)
		return 1;
	int64_t n = s->ext[d], lo = s->bnd[d] == LBT_TORUS ? -((n - 1) / 2) : 0, hi = s->bnd[d] == LBT_TORUS ? n / 2 : n - 1;
	int64_t c = 0;
	for (int64_t o = lo; o <= hi; o++)
		if (llabs(o) <= left)
			c += local_count(s, R, d + 1, left - (int)llabs(o));
	return c;
}

static int check(const lbt_shape *s, const lbt_param_value *pv, lbt_err *e)
{
	double f = pv[0].num;
	int delta = (int)pv[1].num, C = (int)pv[2].num;
	int64_t P = lbt_shape_pes(s);
	if (!(f < delta + 1))
		return lbt_errf(e, LBT_EINVAL, "--f %s: Theorems 1-4 of Lüling and Monien need 1 <= f < delta + 1 = %d",
		                pv[0].text, delta + 1);
	if (delta >= P)
		return lbt_errf(e, LBT_EINVAL, "--delta %d: needs delta < the number of PEs (%lld)", delta, (long long)P);
	if (C > 0 && P > LBT_LULING_CLASS_MAX_PES)
		return lbt_errf(e, LBT_EINVAL,
		                "--borrow %d: the load classes need %lld^2 counters; at most %d PEs (5 bytes per counter) — "
		                "use --borrow 0 on this machine",
		                C, (long long)P, LBT_LULING_CLASS_MAX_PES);
	if (!pv[3].word)
		return lbt_errf(e, LBT_EINVAL, "--partners %s: write global or local:R", pv[3].text);
	if (strncmp(pv[3].word, "local:", 6) == 0) {
		int64_t near = local_count(s, (int)pv[3].num, 0, (int)pv[3].num) - 1;
		if (near < delta)
			return lbt_errf(e, LBT_EINVAL, "--partners %s: a PE has only %lld others within distance %g, fewer than delta = %d",
			                pv[3].text, (long long)near, pv[3].num, delta);
	}
	return LBT_OK;
}

static void close_ws(lbt_state *st)
{
	ws *w = st->ws;
	if (!w)
		return;
	free(w->k.off);
	free(w->k.pe);
	free(w->k.d);
	free(w->k.b);
	free(w->k.bsum);
	free(w->k.init);
	free(w->dense);
	free(w);
	st->ws = NULL;
}

/* The offsets of local partners: every vector of distinct per-axis residues
 * with 1 <= |o|_1 <= R. */
static void local_offsets(lbt_luling *k, const lbt_shape *s, int d, int left, int32_t *cur)
{
	if (d == s->dims) {
		int64_t norm = 0;
		for (int x = 0; x < s->dims; x++)
			norm += llabs(cur[x]);
		if (norm > 0)
			memcpy(k->off + k->noff++ * s->dims, cur, (size_t)s->dims * sizeof *cur);
		return;
	}
	int64_t n = s->ext[d], torus = s->bnd[d] == LBT_TORUS;
	int64_t lo = torus ? -((n - 1) / 2) : -(n - 1), hi = torus ? n / 2 : n - 1;
	for (int64_t o = lo; o <= hi; o++)
		if (llabs(o) <= left) {
			cur[d] = (int32_t)o;
			local_offsets(k, s, d + 1, left - (int)llabs(o), cur);
		}
}

static int luling_open(lbt_state *st, lbt_err *e)
{
	const lbt_shape *s = &st->grid.shape;
	int status = check(s, st->param, e);
	if (status)
		return status;
	ws *w = calloc(1, sizeof *w);
	if (!w)
		return lbt_errf(e, LBT_ENOMEM, "no memory for %s's workspace", st->method->name);
	st->ws = w;
	lbt_luling *k = &w->k;
	int64_t P = k->P = lbt_shape_pes(s);
	k->dims = s->dims;
	for (int d = 0; d < s->dims; d++) {
		k->ext[d] = s->ext[d];
		k->torus[d] = s->bnd[d] == LBT_TORUS;
	}
	k->f = st->param[0].num;
	k->finv = 1 / k->f;
	k->delta = (int)st->param[1].num;
	k->C = (int)st->param[2].num;
	k->R = strncmp(st->param[3].word, "local:", 6) ? 0 : (int)st->param[3].num;
	size_t p = (size_t)P;
	w->dense = malloc(p * sizeof *w->dense);
	k->pe = calloc(p, sizeof *k->pe);
	k->init = malloc(p * sizeof *k->init);
	int ok = w->dense && k->pe && k->init;
	if (ok && k->R) {
		int64_t most = 1;
		for (int d = 0; d < s->dims; d++)
			most *= 2 * k->R + 1 < s->ext[d] * 2 ? 2 * k->R + 1 : s->ext[d] * 2;
		k->off = malloc((size_t)(most * s->dims) * sizeof *k->off);
		int32_t cur[LBT_LULING_MAXD];
		if ((ok = k->off != NULL))
			local_offsets(k, s, 0, k->R, cur);
	}
	if (ok && k->C) {
		k->d = calloc(p * p, sizeof *k->d);
		k->b = calloc(p * p, sizeof *k->b);
		k->bsum = calloc(p, sizeof *k->bsum);
		ok = k->d && k->b && k->bsum;
	}
	if (!ok) {
		close_ws(st);
		return lbt_errf(e, LBT_ENOMEM, "no memory for %s's state (%lld PEs%s)", st->method->name, (long long)P,
		                k->C ? ", P^2 class counters" : "");
	}
	/* the start: every PE's packets are its own class, l_old its own load */
	lbt_grid_export(&st->grid, w->dense);
	for (int64_t i = 0; i < P; i++) {
		k->pe[i].cur = k->pe[i].lold = w->dense[i];
		if (k->C)
			k->d[i * P + i] = w->dense[i];
	}
	return LBT_OK;
}

static void luling_step(lbt_state *st, lbt_counts *c)
{
	ws *w = st->ws;
	int64_t packets = 0, hops = 0, ops = w->k.stats.operations;
	lbt_grid_export(&st->grid, w->dense);
	st->kern->luling_step(&w->k, w->dense, st->seed, st->step, &packets, &hops);
	lbt_grid_import(&st->grid, w->dense);
	w->k.stats.packets += packets;
	w->k.stats.hops += hops;
	c->moved = hops; /* packet-hops: one per packet and link crossed, as the local methods count */
	c->shifts = w->k.stats.operations > ops; /* §2: an operation takes constant time; a step's run concurrently */
}

static void luling_record(FILE *f, const lbt_state *st)
{
	const lbt_luling_stats *s = lbt_luling_stats_of(st);
	fprintf(f, ",\"operations\":%lld,\"conflicts\":%lld,\"cancelled\":%lld,\"packets\":%lld,\"packet_hops\":%lld",
	        (long long)s->operations, (long long)s->conflicts, (long long)s->cancelled, (long long)s->packets,
	        (long long)s->hops);
	if (((const ws *)st->ws)->k.C)
		fprintf(f, ",\"total_borrow\":%lld,\"remote_borrow\":%lld,\"borrow_fail\":%lld,\"decrease_sim\":%lld",
		        (long long)s->total_borrow, (long long)s->remote_borrow, (long long)s->borrow_fail,
		        (long long)s->decrease_sim);
}

const lbt_luling_stats *lbt_luling_stats_of(const lbt_state *st) { return &((const ws *)st->ws)->k.stats; }
lbt_luling *lbt_luling_of(lbt_state *st) { return &((ws *)st->ws)->k; }

/* Lemma 1: G(k) = (k f + delta)(n - 1) / (delta k f + delta (n - 2) + (n - 1)). */
double lbt_luling_G(int64_t n, int delta, double f, double k)
{
	double N = (double)n, d = delta;
	return (k * f + d) * (N - 1) / (d * k * f + d * (N - 2) + (N - 1));
}

double lbt_luling_Gt(int64_t n, int delta, double f, int64_t t)
{
	double k = 1;
	for (int64_t i = 0; i < t; i++)
		k = lbt_luling_G(n, delta, f, k);
	return k;
}

/* Lemma 2: FIX = sqrt((n - 1)/f + A^2) - A, A = (f - f n + delta (n - 2) + (n - 1)) / (2 delta f). */
double lbt_luling_fix(int64_t n, int delta, double f)
{
	double N = (double)n, d = delta, A = (f - f * N + d * (N - 2) + (N - 1)) / (2 * d * f);
	return sqrt((N - 1) / f + A * A) - A;
}

LBT_METHOD(lbt_luling_monien) = {
	.name = "luling-monien",
	.summary = "Lüling-Monien: on a load change by f, equalize with delta random partners",
	.citation = "R. Lüling, B. Monien, A dynamic distributed load balancing algorithm with provable good performance, "
	            "SPAA 1993: §2 and the Appendix",
	.load = LBT_LOAD_INT,
	.flags = LBT_M_RANDOM,
	.kernels = LBT_K(LULING_STEP),
	.bounded = LBT_UNBOUNDED,
	.params = params,
	.nparams = sizeof params / sizeof *params,
	.check = check,
	.open = luling_open,
	.step = luling_step,
	.close = close_ws,
	.record = luling_record,
};
