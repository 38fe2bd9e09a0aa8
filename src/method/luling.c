/* luling.c — Lüling and Monien's randomized dynamic load balancing (R. Lüling,
 * B. Monien, "A dynamic distributed load balancing algorithm with provable
 * good performance", SPAA 1993): a PE whose own load has grown or shrunk by
 * the factor f since its last operation equalizes its load with delta random
 * partners. The step is the dispatch table's luling_step (kernels/ref/luling.c,
 * kernels/simd/luling.c) on the grid's loads in place (on a torus cut between
 * ranks, the class version: a dense copy of the whole torus); this file holds
 * the schema, the set-up, the counters in the JSON record, and Lemma 1's
 * operator G with its fixed point FIX. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"
#include "family.h"
#include "luling.h"

_Static_assert(LBT_LULING_MAXD == LBT_MAXD, "the kernel's axes are the shape's");

/* On a torus cut between ranks (the basic version) each rank keeps the
 * records of its block's PEs (mine) and k.pe is, on rank 0 during a step,
 * the records of the PEs the step's operations touch; the class version
 * (at most LBT_LULING_CLASS_MAX_PES PEs) keeps the whole torus's state on
 * every rank, each rank stepping it as one process does. */
typedef struct {
	lbt_luling k;
	int32_t *dense;      /* cut: the loads, row-major: this rank's block (basic), else the whole torus */
	lbt_luling_pe *mine; /* cut, basic: the records of this rank's block, row-major */
	int32_t *block;      /* cut, class version: this rank's block of the loads */
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
	free(w->k.seen);
	free(w->k.d);
	free(w->k.b);
	free(w->k.bsum);
	free(w->k.init);
	free(w->dense);
	free(w->mine);
	free(w->block);
	free(w);
	st->ws = NULL;
}

/* The whole torus's flat index of PE i (row-major) of the block lo, len. */
static int64_t to_global(const lbt_cut *c, const int64_t *lo, const int64_t *len, int64_t i)
{
	int64_t x[LBT_CUT_MAXD], g = 0;
	for (int d = c->dims - 1; d >= 0; d--) {
		x[d] = i % len[d];
		i /= len[d];
	}
	for (int d = 0; d < c->dims; d++)
		g = g * c->gext[d] + lo[d] + x[d];
	return g;
}

/* The rank whose block holds PE g of the whole torus, and g's flat index there. */
static int64_t to_local(const lbt_cut *c, int64_t g, int *rank)
{
	int64_t x[LBT_CUT_MAXD], i = 0;
	for (int d = c->dims - 1; d >= 0; d--) {
		x[d] = g % c->gext[d];
		g /= c->gext[d];
	}
	int r = 0;
	for (int d = 0; d < c->dims; d++) {
		const int q = lbt_comm_owner(c->gext[d], c->nr[d], x[d]);
		int64_t lo, len;
		lbt_comm_slab(c->gext[d], c->nr[d], q, &lo, &len);
		r = r * c->nr[d] + q;
		i = i * len + x[d] - lo;
	}
	*rank = r;
	return i;
}

/* The class version on a cut: every rank's block of the loads into
 * w->dense, the whole torus (collective). */
static int whole_loads(lbt_state *st, ws *w)
{
	const lbt_cut *c = st->grid.cut;
	const int64_t n = lbt_shape_pes(&st->grid.shape);
	double *mine = malloc((size_t)(n ? n : 1) * sizeof *mine), *all = NULL;
	int64_t counts[c->ranks];
	int status = lbt_comm_min_int(mine != NULL) ? LBT_OK : LBT_ENOMEM;
	if (!status) {
		lbt_grid_export(&st->grid, w->block);
		for (int64_t i = 0; i < n; i++)
			mine[i] = w->block[i];
		status = lbt_comm_allgather_f64(mine, n, &all, counts);
	}
	int64_t at = 0;
	for (int r = 0; !status && r < c->ranks; at += counts[r], r++) {
		int coord[LBT_CUT_MAXD];
		int64_t lo[LBT_CUT_MAXD], len[LBT_CUT_MAXD];
		lbt_cut_block(c, r, coord, lo, len);
		for (int64_t i = 0; i < counts[r]; i++)
			w->dense[to_global(c, lo, len, i)] = (int32_t)all[at + i];
	}
	free(mine);
	free(all);
	return status;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
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
	const lbt_shape *s = &st->grid.whole;
	const lbt_cut *cut = st->grid.cut;
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
	for (int d = s->dims - 1; d >= 0; d--) { /* the step's loads: the grid's, or on a cut the dense whole torus */
		k->ext[d] = s->ext[d];
		k->torus[d] = s->bnd[d] == LBT_TORUS;
		k->stride[d] = !cut ? st->grid.stride[d] : d == s->dims - 1 ? 1 : k->stride[d + 1] * s->ext[d + 1];
	}
	k->f = st->param[0].num;
	k->finv = 1 / k->f;
	k->delta = (int)st->param[1].num;
	k->C = (int)st->param[2].num;
	k->R = strncmp(st->param[3].word, "local:", 6) ? 0 : (int)st->param[3].num;
	size_t p = (size_t)P, mine = (size_t)lbt_shape_pes(&st->grid.shape);
	int ok;
	if (cut && !k->C) { /* the block's records; rank 0 gathers the rest in each step */
		w->dense = malloc(mine * sizeof *w->dense);
		w->mine = calloc(mine, sizeof *w->mine);
		ok = w->dense && w->mine;
	} else {
		w->dense = cut ? malloc(p * sizeof *w->dense) : NULL;
		w->block = cut ? malloc(mine * sizeof *w->block) : NULL;
		k->pe = calloc(p, sizeof *k->pe);
		k->seen = malloc((p + 63) / 64 * sizeof *k->seen);
		k->init = malloc(p * sizeof *k->init);
		ok = k->pe && k->seen && k->init && ((w->dense && w->block) || !cut);
	}
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
	if (cut) /* every rank returns the same */
		ok = lbt_comm_min_int(ok);
	if (!ok) {
		const int C = k->C; /* k goes with the workspace */
		close_ws(st);
		return lbt_errf(e, LBT_ENOMEM, "no memory for %s's state (%lld PEs%s)", st->method->name, (long long)P,
		                C ? ", P^2 class counters" : "");
	}
	/* the start: every PE's packets are its own class, l_old its own load */
	if (cut && !k->C) {
		lbt_grid_export(&st->grid, w->dense);
		for (size_t i = 0; i < mine; i++)
			w->mine[i].cur = w->mine[i].lold = w->dense[i];
		return LBT_OK;
	}
	if (cut && whole_loads(st, w) != LBT_OK) {
		close_ws(st);
		return lbt_errf(e, LBT_ENOMEM, "no memory to gather %s's loads", st->method->name);
	}
	const int32_t *load = cut ? w->dense : st->grid.load;
	for (int64_t i = 0; i < P; i++) {
		k->pe[i].cur = k->pe[i].lold = load[lbt_luling_at(k, i)];
		if (k->C)
			k->d[i * P + i] = k->pe[i].cur;
	}
	return LBT_OK;
}

/* The basic version on a cut (collective). The step's operations run on
 * rank 0 one after another in the one process's order, each on the loads the
 * last left: which PEs an operation touches (its initiator and the partners
 * it draws) is a function of the draws alone, so each rank tests the
 * triggers of its block, rank 0 draws the order of all initiators (in PE
 * order, as one process lists them) and their partners, fetches the records
 * of the PEs they touch from their ranks, applies the operations (each
 * re-testing its trigger) and sends the records back. No rank holds more
 * than its block and, on rank 0, the records the step's operations touch. */
static void cut_step(lbt_state *st, ws *w, lbt_counts *c)
{
	lbt_luling *k = &w->k;
	const lbt_cut *cut = st->grid.cut;
	const int R = cut->ranks, me = cut->rank, m = k->delta + 1;
	const int64_t n = lbt_shape_pes(&st->grid.shape), ops = k->stats.operations;
	int64_t packets = 0, hops = 0, sendn[R], recvn[R], cnt[R], pos[R], N = 0, U = 0;
	int64_t *trig = malloc((size_t)(n ? n : 1) * sizeof *trig), *sets = NULL, *uniq = NULL, *at = NULL;
	int64_t *slot = NULL, *reqs = NULL, *hkey = NULL, *hval = NULL;
	int *owner = NULL;
	lbt_luling_pe *recs = NULL;
	lbt_luling_keys keys; /* rank 0's */
	void *list = NULL, *got = NULL, *idx = NULL, *back = NULL;
	int ok = trig != NULL;
	/* 1. this block's initiators, in PE order */
	lbt_grid_export(&st->grid, w->dense);
	int64_t nt = 0;
	for (int64_t i = 0; ok && i < n; i++) {
		w->mine[i].cur = w->dense[i];
		if (lbt_luling_trigger(k, w->mine[i].cur, w->mine[i].lold))
			trig[nt++] = to_global(cut, cut->lo, cut->len, i);
	}
	memset(sendn, 0, sizeof sendn);
	sendn[0] = nt * (int64_t)sizeof *trig;
	if (!lbt_comm_min_int(ok) || lbt_comm_alltoallv(trig, sendn, &list, recvn))
		goto nomem;
	/* 2. rank 0: the order, the sets and the PEs they touch, asked of their ranks */
	memset(sendn, 0, sizeof sendn);
	if (me == 0) {
		for (int r = 0; r < R; r++)
			N += recvn[r] / (int64_t)sizeof *trig;
		int64_t *init = list;
		int sorted = 1; /* slabs: the ranks' lists, each in PE order, in rank order are in PE order */
		for (int64_t a = 1; a < N; a++)
			sorted &= init[a - 1] < init[a];
		if (!sorted) /* blocks of several cut axes interleave */
			qsort(init, (size_t)N, sizeof *init, cmp_i64);
		lbt_luling_shuffle(init, N, st->seed, st->step);
		int64_t cap = 2;
		while (cap < 2 * N * m)
			cap <<= 1;
		sets = malloc((size_t)(N * m + 1) * sizeof *sets);
		uniq = malloc((size_t)(N * m + 1) * sizeof *uniq);
		at = malloc((size_t)(N * m + 1) * sizeof *at);
		hkey = malloc((size_t)cap * sizeof *hkey);
		hval = malloc((size_t)cap * sizeof *hval);
		ok = sets && uniq && at && hkey && hval;
		lbt_luling_keys_init(&keys, k, st->seed, st->step);
		for (int64_t a = 0; ok && a < N; a++) {
			sets[a * m] = init[a];
			lbt_luling_partners(k, sets + a * m, &keys);
		}
		if (ok) { /* the PEs touched, numbered as first met (an open-addressing table) */
			memset(hkey, 0xff, (size_t)cap * sizeof *hkey);
			for (int64_t x = 0; x < N * m; x++) {
				uint64_t h = ((uint64_t)sets[x] * 0x9E3779B97F4A7C15ull) >> 17 & (uint64_t)(cap - 1);
				while (hkey[h] >= 0 && hkey[h] != sets[x])
					h = (h + 1) & (uint64_t)(cap - 1);
				if (hkey[h] < 0) {
					hkey[h] = sets[x];
					hval[h] = U;
					uniq[U++] = sets[x];
				}
				at[x] = hval[h];
			}
		}
		slot = malloc((size_t)(U + 1) * sizeof *slot);
		reqs = malloc((size_t)(U + 1) * sizeof *reqs);
		owner = malloc((size_t)(U + 1) * sizeof *owner);
		k->pe = malloc((size_t)(U + 1) * sizeof *k->pe);
		k->seen = calloc((size_t)(U + 64) / 64, sizeof *k->seen);
		ok = ok && slot && reqs && owner && k->pe && k->seen;
		if (ok) { /* the requests grouped by rank: each PE's index in its rank's block */
			memset(cnt, 0, sizeof cnt);
			for (int64_t u = 0; u < U; u++) {
				uniq[u] = to_local(cut, uniq[u], &owner[u]);
				cnt[owner[u]]++;
			}
			for (int64_t r = 0, p = 0; r < R; p += cnt[r], r++) {
				pos[r] = p;
				sendn[r] = cnt[r] * (int64_t)sizeof *reqs;
			}
			for (int64_t u = 0; u < U; u++) {
				slot[pos[owner[u]]] = u;
				reqs[pos[owner[u]]++] = uniq[u];
			}
		}
	}
	if (!lbt_comm_min_int(ok) || lbt_comm_alltoallv(reqs, sendn, &idx, recvn))
		goto nomem;
	/* 3. every rank: the records asked for, to rank 0 */
	const int64_t nreq = recvn[0] / (int64_t)sizeof *reqs, *asked = idx;
	recs = malloc((size_t)(nreq + 1) * sizeof *recs);
	ok = recs != NULL;
	for (int64_t j = 0; ok && j < nreq; j++)
		recs[j] = w->mine[asked[j]];
	memset(sendn, 0, sizeof sendn);
	sendn[0] = nreq * (int64_t)sizeof *recs;
	if (!lbt_comm_min_int(ok) || lbt_comm_alltoallv(recs, sendn, &got, recvn))
		goto nomem;
	/* 4. rank 0: the operations in order; the records back to their ranks */
	memset(sendn, 0, sizeof sendn);
	if (me == 0) {
		const lbt_luling_pe *in = got;
		for (int64_t j = 0; j < U; j++)
			k->pe[slot[j]] = in[j];
		for (int64_t a = 0; a < N; a++)
			lbt_luling_apply(k, sets + a * m, at + a * m, &keys, &packets, &hops);
		lbt_luling_pe *out = (lbt_luling_pe *)got;
		for (int64_t j = 0; j < U; j++)
			out[j] = k->pe[slot[j]];
		for (int r = 0; r < R; r++)
			sendn[r] = cnt[r] * (int64_t)sizeof *recs;
		k->stats.packets += packets;
		k->stats.hops += hops;
	}
	if (lbt_comm_alltoallv(got, sendn, &back, recvn))
		goto nomem;
	const lbt_luling_pe *ret = back;
	for (int64_t j = 0; j < nreq; j++)
		w->mine[asked[j]] = ret[j];
	for (int64_t i = 0; i < n; i++)
		w->dense[i] = w->mine[i].cur;
	lbt_grid_import(&st->grid, w->dense);
	lbt_comm_bcast(&k->stats, (int)sizeof k->stats);
	c->moved = hops; /* rank 0's: the ranks' counts are added */
	c->shifts = k->stats.operations > ops;
	goto done;
nomem:
	c->nomem = 1;
done:
	free(trig);
	free(sets);
	free(uniq);
	free(at);
	free(slot);
	free(reqs);
	free(hkey);
	free(hval);
	free(owner);
	free(recs);
	free(list);
	free(got);
	free(idx);
	free(back);
	free(k->pe);
	free(k->seen);
	k->pe = NULL;
	k->seen = NULL;
}

static void luling_step(lbt_state *st, lbt_counts *c)
{
	ws *w = st->ws;
	const lbt_cut *cut = st->grid.cut;
	if (cut && !w->k.C) {
		cut_step(st, w, c);
		return;
	}
	int64_t packets = 0, hops = 0, ops = w->k.stats.operations;
	if (cut && whole_loads(st, w) != LBT_OK) {
		c->nomem = 1;
		return;
	}
	st->kern->luling_step(&w->k, cut ? w->dense : st->grid.load, st->seed, st->step, &packets, &hops);
	if (cut) { /* every rank stepped the whole torus: its block back, its packets counted once */
		for (int64_t i = 0, n = lbt_shape_pes(&st->grid.shape); i < n; i++)
			w->block[i] = w->dense[to_global(cut, cut->lo, cut->len, i)];
		lbt_grid_import(&st->grid, w->block);
	}
	w->k.stats.packets += packets;
	w->k.stats.hops += hops;
	if (!cut) { /* the step's last pass measured the loads: no pass of the engine's */
		c->has_stats = 1;
		c->max = w->k.max;
		c->min = w->k.min;
		c->total = w->k.total;
	}
	c->moved = cut && cut->rank ? 0 : hops; /* packet-hops: one per packet and link crossed, as the local methods count */
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
	.flags = LBT_M_RANDOM | LBT_M_CUT | LBT_M_GATHERS,
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
