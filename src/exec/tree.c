/* tree.c — search trees, the Liquid model's application (Henrich 1996, §1
 * and §5: branch-and-bound and IDA* trees on the MasPar): tasks are tree
 * nodes. Every step a PE that holds a node expands one (the node is
 * completed) and the node's children appear on that PE; a PE without a node
 * has idle capacity. The run is over when no node is left (--until done).
 *
 *   tree:B:DEPTH    the complete tree: every node above level DEPTH has B
 *                   children (B^DEPTH leaves, (B^(DEPTH+1) - 1)/(B - 1) nodes);
 *   gw:B:P:ROOTS    Galton-Watson: a node has B children with probability P,
 *                   else none, ROOTS roots. A node's fate depends on its
 *                   level l and its rank j among the nodes of level l in the
 *                   order they are expanded (steps in order, PEs row-major
 *                   within a step): it has children iff
 *                   lbt_rand(seed, l, j, purpose) < P. So the number of nodes
 *                   on each level — the tree up to which node is whose child —
 *                   is the same whatever the method and the step at which each
 *                   node is expanded: every method searches the same tree.
 *
 * The roots are on PE (0, ..., 0) before step 1 (the machine must start
 * empty: --init const:0).
 *
 * What balancing moves. The methods move anonymous load units; a moved unit
 * must stay a valid node. Each PE keeps its nodes as counts by level (depth
 * from the root), works depth-first like IDA* (it expands a node of its
 * deepest level), and when the method's step has taken k units from it, it
 * gives away k of its shallowest nodes — the largest subtrees, what a
 * work-sharing search sends. Which PE receives which node: the nodes given
 * away, listed in row-major PE order (shallowest first within a PE), are
 * dealt in that order to the PEs that gained units, also in row-major order
 * (the k-th node given away is the k-th received). Every PE holds exactly
 * the number of nodes the method left it, every node is expanded exactly
 * once, and a node's level is kept; only the pairing of senders and
 * receivers is this order-preserving matching rather than the method's own
 * links (for the Galton-Watson tree, whose nodes are alike, the pairing
 * changes nothing but the recorded levels).
 *
 * On a torus cut between ranks (MPI, lbtorus/comm.h) each rank keeps the
 * counts of its slab, and the global orders above are kept by prefix sums
 * over the ranks (a slab is a run of row-major indices): a gw node's rank
 * among its level's expansions starts after those of the ranks below
 * (lbt_comm_exscan_i64), and the nodes given away, numbered in the global
 * order, go to the receivers' global numbering, each rank sending the runs
 * that other ranks' receivers take (lbt_comm_alltoallv). The levels that
 * exist are the same on every rank. */
#include <stdlib.h>
#include <string.h>

#include "lbtorus/rng.h"
#include "comm/comm.h"
#include "workload.h"

enum { P_CHILDREN = 111 };

#define MAX_LEVEL_CELLS ((int64_t)1 << 28) /* levels x PEs: 1 GiB of int32 counts */

typedef struct {
	int32_t level, n;
} run_t; /* n nodes of one level given away */

typedef struct {
	const lbt_workload *w;
	int complete;     /* tree:, else gw: */
	int B;
	int64_t depth;    /* tree: the last level with nodes */
	double prob;      /* gw: P */
	lbt_wl_dense d;   /* the load field (no copy: its rows are worked on in place), this rank's PEs */
	int64_t n;        /* PEs a row (the last axis) */
	int32_t *held;    /* nodes per PE as the counts below know them */
	int32_t *deep;    /* the deepest level on which each PE holding a node has one */
	int32_t *shal;    /* and the shallowest */
	int32_t **cnt;    /* cnt[level][PE] */
	int64_t levels, cap; /* levels allocated; room in cnt */
	int64_t used;     /* levels that ever held a node */
	int64_t *ranks;   /* gw: nodes of each level expanded so far (room for cap levels) */
	int64_t *scan;    /* 3 x cap, for gw on a cut torus: this step's expansions per level here, below, in all */
	int64_t P;        /* PEs of the whole torus */
	run_t *q;
	int64_t qn, qcap;
} tree_ws;

static void tree_close(void *p)
{
	tree_ws *ws = p;
	if (!ws)
		return;
	for (int64_t l = 0; l < ws->levels; l++)
		free(ws->cnt[l]);
	free(ws->cnt);
	free(ws->ranks);
	free(ws->scan);
	free(ws->held);
	free(ws->deep);
	free(ws->shal);
	free(ws->q);
	free(ws);
}

/* Make level l exist. */
static int need_level(tree_ws *ws, int64_t l, lbt_err *e)
{
	while (ws->levels <= l) {
		if ((ws->levels + 1) * ws->P > MAX_LEVEL_CELLS)
			return lbt_errf(e, LBT_ENOMEM, "workload %s: the tree grew deeper than %lld levels: %lld levels x %lld "
			                "PEs of node counts is the limit of 2^28 (1 GiB of int32 counts)", ws->w->spec,
			                (long long)ws->levels, (long long)ws->levels, (long long)ws->P);
		if (ws->levels == ws->cap) {
			int64_t cap = ws->cap ? 2 * ws->cap : 16;
			int32_t **c = realloc(ws->cnt, (size_t)cap * sizeof *c);
			if (c)
				ws->cnt = c;
			int64_t *r = c ? realloc(ws->ranks, (size_t)cap * sizeof *r) : NULL;
			if (r)
				ws->ranks = r;
			int64_t *sc = r ? realloc(ws->scan, (size_t)(3 * cap) * sizeof *sc) : NULL;
			if (!sc)
				return lbt_errf(e, LBT_ENOMEM, "no memory for the tree's levels");
			memset(r + ws->cap, 0, (size_t)(cap - ws->cap) * sizeof *r);
			ws->scan = sc;
			ws->cap = cap;
		}
		if (!(ws->cnt[ws->levels] = calloc((size_t)ws->d.P, sizeof(int32_t))))
			return lbt_errf(e, LBT_ENOMEM, "no memory for the tree's levels");
		ws->levels++;
	}
	if (l + 1 > ws->used)
		ws->used = l + 1;
	return LBT_OK;
}

static int tree_open(void **out, const lbt_workload *w, lbt_state *st, lbt_err *e)
{
	if (st->method->load != LBT_LOAD_INT)
		return lbt_errf(e, LBT_EINVAL, "workload %s: tree nodes are whole tasks: use an integer method", w->spec);
	int status = lbt_wl_tree_fits(w, &st->grid.whole, e);
	if (status)
		return status;
	lbt_stats s;
	lbt_grid_stats(&st->grid, &s);
	if (s.total != 0)
		return lbt_errf(e, LBT_EINVAL, "workload %s: a search starts on an empty machine (its roots on PE 0): "
		                "use --init const:0", w->spec);
	if (st->grid.cut && !st->grid.cut->slab) /* the same on every rank: the grid is */
		return lbt_errf(e, LBT_EINVAL, "workload %s: a search tree runs on a torus cut into slabs of its first axis "
		                "with links only (a grid of ranks such as 4x1x1, that axis a layer for every rank), not on blocks",
		                w->spec);
	tree_ws *ws = calloc(1, sizeof *ws);
	if (!ws)
		return lbt_errf(e, LBT_ENOMEM, "no memory for the workload");
	ws->w = w;
	ws->complete = !strcmp(w->name, "tree");
	ws->B = (int)w->arg[0];
	ws->depth = ws->complete ? (int64_t)w->arg[1] : -1;
	ws->prob = ws->complete ? 1 : w->arg[1];
	int32_t roots = ws->complete ? 1 : (int32_t)w->arg[2];
	ws->P = lbt_shape_pes(&st->grid.whole);
	ws->d = (lbt_wl_dense){.f = lbt_grid_field(&st->grid, "load"), .P = lbt_shape_pes(&st->grid.shape),
	                       .first = lbt_wl_first(&st->grid)};
	ws->n = st->grid.shape.ext[st->grid.shape.dims - 1];
	if (!(ws->held = calloc((size_t)ws->d.P, sizeof *ws->held)) || !(ws->deep = calloc((size_t)ws->d.P, sizeof *ws->deep)) ||
	    !(ws->shal = calloc((size_t)ws->d.P, sizeof *ws->shal)))
		status = lbt_errf(e, LBT_ENOMEM, "no memory for the workload");
	if (!status)
		status = need_level(ws, 0, e);
	if (status) {
		tree_close(ws);
		return status;
	}
	if (ws->d.first == 0) { /* this rank holds PE 0 */
		ws->cnt[0][0] = ws->held[0] = roots;
		st->grid.load[0] = roots; /* the roots are the initial load */
	}
	*out = ws;
	return LBT_OK;
}

/* The deepest level on which PE i holds a node (it holds one), below top. */
static int32_t deepest(const tree_ws *ws, int64_t i, int64_t top)
{
	int64_t l = top - 1;
	while (ws->cnt[l][i] == 0)
		l--;
	return (int32_t)l;
}

/* The first PE from i on, below n, where a and b differ (b NULL: where a is
 * not 0): blocks of 16 PEs, which the compiler vectorizes, skip the PEs with
 * nothing to do (all of them once a tree is searched, most on a balanced one). */
static inline int64_t next_diff(const int32_t *a, const int32_t *b, int64_t i, int64_t n)
{
	enum { BLK = 16 };
	if (i < n && a[i] != (b ? b[i] : 0)) /* the next PE: most are busy in a growing tree */
		return i;
	for (; i + BLK <= n; i += BLK) {
		int32_t o = 0;
		if (b)
			for (int k = 0; k < BLK; k++)
				o |= a[i + k] ^ b[i + k];
		else
			for (int k = 0; k < BLK; k++)
				o |= a[i + k];
		if (o)
			break;
	}
	for (; i < n; i++)
		if (a[i] != (b ? b[i] : 0))
			return i;
	return n;
}

/* Every PE holding a node expands one of its deepest level. */
static int tree_phase(void *p, lbt_state *st, int64_t t, uint64_t seed, lbt_work_counts *c, lbt_err *e)
{
	(void)t; /* a node's fate depends on its level and rank, not on the step */
	tree_ws *ws = p;
	const int64_t top = ws->levels; /* children made this step land on levels that exist now or one more */
	const int64_t oc = ws->cap;     /* the scan's stride (need_level may move it, keeping what it holds) */
	const int scan = st->grid.cut && !ws->complete;
	if (scan) { /* this step's ranks on each level start after those of the ranks below */
		int64_t *here = ws->scan, *below = here + oc, *all = below + oc;
		memset(here, 0, (size_t)top * sizeof *here);
		for (int64_t i = next_diff(ws->held, NULL, 0, ws->d.P); i < ws->d.P; i = next_diff(ws->held, NULL, i + 1, ws->d.P))
			here[ws->deep[i]]++;
		lbt_comm_exscan_i64(here, below, all, (int)top);
		for (int64_t l = 0; l < top; l++)
			ws->ranks[l] += below[l];
	}
	int64_t v[4] = {0, 0, 0, 0}; /* generated, completed, idle capacity; a level was added */
	int status = LBT_OK;
	int64_t busy = 0; /* PEs that expanded a node */
	for (int64_t r = 0, n = ws->n; r < ws->d.P / n && !status; r++) {
		int32_t *x = lbt_field_row(&st->grid, ws->d.f, r);
		const int32_t *h = ws->held + r * n;
		for (int64_t j = next_diff(h, NULL, 0, n); j < n; j = next_diff(h, NULL, j + 1, n)) {
			const int64_t i = r * n + j;
			busy++;
			const int32_t l = ws->deep[i];
			if (!--ws->cnt[l][i] && l == ws->shal[i]) /* its only level emptied: the children's, if any */
				ws->shal[i] = l + 1;
			v[1]++;
			int32_t kids = 0;
			if (ws->complete)
				kids = l < ws->depth ? ws->B : 0;
			else
				kids = lbt_wl_unit(lbt_rand(seed, (uint64_t)l, (uint64_t)ws->ranks[l]++, P_CHILDREN)) < ws->prob ? ws->B : 0;
			if (kids) {
				if ((status = need_level(ws, l + 1, e)))
					break;
				if (x[j] > INT32_MAX - kids) {
					status = lbt_errf(e, LBT_ERANGE, "workload %s: PE %lld would hold more than 2^31-1 nodes",
					                  ws->w->spec, (long long)(lbt_grid_row_global(&st->grid, r) + j));
					break;
				}
				ws->cnt[l + 1][i] += kids;
				ws->deep[i] = l + 1;
			} else if (ws->cnt[l][i] == 0 && ws->held[i] > 1)
				ws->deep[i] = deepest(ws, i, l);
			ws->held[i] += kids - 1;
			x[j] += kids - 1;
			v[0] += kids;
		}
	}
	v[2] = ws->d.P - busy;
	if (scan) { /* every rank's expansions counted: each level's ranks go on after all of them */
		const int64_t *here = ws->scan, *below = here + oc, *all = below + oc;
		for (int64_t l = 0; l < top; l++)
			ws->ranks[l] += all[l] - below[l] - here[l];
	}
	v[3] = ws->levels > top;
	if ((status = lbt_wl_done(st, v, 1, status, c, e)))
		return status;
	if (st->grid.cut && v[3]) /* the same levels on every rank */
		status = lbt_comm_agree(need_level(ws, top, e), e);
	return status;
}

static int push(tree_ws *ws, int32_t level, int32_t n, lbt_err *e)
{
	if (ws->qn == ws->qcap) {
		int64_t cap = ws->qcap ? 2 * ws->qcap : 1024;
		run_t *q = realloc(ws->q, (size_t)cap * sizeof *q);
		if (!q)
			return lbt_errf(e, LBT_ENOMEM, "no memory for the nodes in transit");
		ws->q = q;
		ws->qcap = cap;
	}
	ws->q[ws->qn++] = (run_t){level, n};
	return LBT_OK;
}

static int mismatch(const tree_ws *ws, const lbt_state *st, int made, lbt_err *e)
{
	return lbt_errf(e, LBT_EINTERNAL, made ? "workload %s: %s made load the tree does not have"
	                                       : "workload %s: %s lost tree nodes", ws->w->spec, st->method->name);
}

/* On a cut torus: the runs of nodes that this rank's receivers take (*in,
 * *n; *got: what to free), the nodes given away on every rank numbered in
 * the global order and dealt in it. gave, want: nodes given away and taken
 * here; status: this rank's so far. */
static int exchange(tree_ws *ws, const lbt_state *st, int64_t gave, int64_t want, int status, run_t **in,
                    int64_t *n, void **got, lbt_err *e)
{
	const int R = lbt_comm_size(), me = lbt_comm_rank();
	int64_t mine[3] = {gave, want, status != LBT_OK}, all[3 * R];
	int64_t at[4 * R]; /* per rank: its first node given, its first taken; bytes out, in */
	lbt_comm_allgather(mine, sizeof mine, all);
	for (int r = 0; r < R; r++)
		if (all[3 * r + 2])
			return lbt_comm_agree(status, e);
	int64_t G = 0, T = 0;
	for (int r = 0; r < R; r++) {
		at[r] = G;
		at[R + r] = T;
		G += all[3 * r];
		T += all[3 * r + 1];
	}
	int cross = 0; /* some nodes go from one rank to another */
	for (int s = 0; s < R; s++)
		for (int r = 0; r < R; r++)
			cross |= s != r && at[s] < at[R + r] + all[3 * r + 1] && at[R + r] < at[s] + all[3 * s];
	if (G != T || !cross)
		return G != T ? mismatch(ws, st, T > G, e) : LBT_OK;
	/* my runs cut where the receiving ranks' parts begin: at most R - 1 more */
	run_t *out = malloc((size_t)(ws->qn + R) * sizeof *out);
	int64_t *sendn = at + 2 * R, *recvn = at + 3 * R, k = 0, pos = at[me], q = 0, used = 0;
	for (int r = 0; out && r < R; r++) {
		const int64_t end = (r + 1 < R ? at[R + r + 1] : T), k0 = k;
		while (q < ws->qn && pos < end) {
			int64_t left = ws->q[q].n - used, take = end - pos < left ? end - pos : left;
			out[k++] = (run_t){ws->q[q].level, (int32_t)take};
			pos += take;
			if ((used += take) == ws->q[q].n) {
				q++;
				used = 0;
			}
		}
		sendn[r] = (k - k0) * (int64_t)sizeof *out;
	}
	if (!lbt_comm_min_int(out != NULL))
		status = lbt_errf(e, LBT_ENOMEM, "no memory for the nodes in transit");
	else if ((status = lbt_comm_alltoallv(out, sendn, got, recvn)))
		lbt_errf(e, status, "no memory for the nodes in transit");
	else {
		*in = *got;
		*n = 0;
		for (int r = 0; r < R; r++)
			*n += recvn[r] / (int64_t)sizeof *out;
	}
	free(out);
	return status;
}

/* After the method's step: the nodes follow the load (see the top). */
static int tree_settle(void *p, lbt_state *st, lbt_err *e)
{
	tree_ws *ws = p;
	const int64_t n = ws->n, R = ws->d.P / n;
	ws->qn = 0;
	int status = LBT_OK;
	int64_t gave = 0, want = 0;
	/* senders give their shallowest nodes (a PE whose load the step left alone is skipped) */
	for (int64_t r = 0; r < R && !status; r++) {
		const int32_t *x = lbt_field_row(&st->grid, ws->d.f, r), *h = ws->held + r * n;
		for (int64_t j = next_diff(h, x, 0, n), i = r * n + j; j < n && !status; j = next_diff(h, x, j + 1, n), i = r * n + j)
			for (int32_t give = ws->held[i] - x[j], l = ws->shal[i]; give > 0; l++) {
				int32_t k = ws->cnt[l][i] < give ? ws->cnt[l][i] : give;
				if (k) {
					if ((status = push(ws, l, k, e)))
						break;
					ws->cnt[l][i] -= k;
					ws->held[i] -= k;
					give -= k;
					gave += k;
				}
				if (give == 0 && ws->held[i]) { /* the shallowest level left */
					int32_t m = l;
					while (!ws->cnt[m][i])
						m++;
					ws->shal[i] = m;
				}
			}
	}
	for (int64_t r = 0; st->grid.cut && r < R; r++) {
		const int32_t *x = lbt_field_row(&st->grid, ws->d.f, r), *h = ws->held + r * n;
		for (int64_t j = next_diff(h, x, 0, n); j < n; j = next_diff(h, x, j + 1, n))
			want += x[j] > h[j] ? x[j] - h[j] : 0;
	}
	run_t *in = ws->q; /* the runs this rank's receivers take */
	int64_t nq = ws->qn, head = 0;
	void *got = NULL;
	if (st->grid.cut)
		status = exchange(ws, st, gave, want, status, &in, &nq, &got, e);
	/* receivers take them in order */
	for (int64_t r = 0; r < R && !status; r++) {
		const int32_t *x = lbt_field_row(&st->grid, ws->d.f, r), *h = ws->held + r * n;
		for (int64_t j = next_diff(h, x, 0, n), i = r * n + j; j < n && !status; j = next_diff(h, x, j + 1, n), i = r * n + j)
			for (int32_t take = x[j] - ws->held[i]; take > 0;) {
				if (head == nq) {
					status = mismatch(ws, st, 1, e);
					break;
				}
				run_t *q = &in[head];
				int32_t k = q->n < take ? q->n : take;
				if (ws->held[i] == 0 || q->level > ws->deep[i]) /* a sender keeps its deepest level: it gives its shallowest */
					ws->deep[i] = q->level;
				if (ws->held[i] == 0 || q->level < ws->shal[i])
					ws->shal[i] = q->level;
				ws->cnt[q->level][i] += k;
				ws->held[i] += k;
				take -= k;
				if (!(q->n -= k))
					head++;
			}
	}
	free(got);
	if (!status && head != nq)
		status = mismatch(ws, st, 0, e);
	if (st->grid.cut) /* a mismatch is a bug, found on some ranks only: all stop */
		status = lbt_comm_agree(status, e);
	return status;
}

static int64_t tree_levels(const void *p) { return ((const tree_ws *)p)->used; }

/* tree:B:DEPTH and gw:B:P:ROOTS: whole tasks, integers in range, then the
 * tree's size or gw's probability. */
static int tree_parse(lbt_workload *w, const char *rest, lbt_load_kind load, lbt_err *e)
{
	char want[160];
	snprintf(want, sizeof want, "write %s", w->usage);
	if (!rest)
		return lbt_wl_bad(e, w->spec, want);
	if (load == LBT_LOAD_REAL)
		return lbt_wl_bad(e, w->spec, "tree nodes are whole tasks: use an integer method (lm-c0..c5, nna, fos-int, "
		                  "de-int, none)");
	int status = lbt_wl_numbers(w->spec, rest, w->usage + strlen(w->name) + 1,
	                            "B=1..1000000 DEPTH=0..2147483647 ROOTS=1..2147483647", want, w->arg, e);
	if (status)
		return status;
	const double *a = w->arg;
	if (!strcmp(w->name, "tree")) {
		int64_t B = (int64_t)a[0], depth = (int64_t)a[1], size = B == 1 ? depth + 1 : 0, level = 1;
		for (int64_t l = 0; B > 1 && l <= depth && size <= INT32_MAX; l++, level *= B) /* 1 + B + ... + B^DEPTH */
			size += level;
		if (size > INT32_MAX)
			return lbt_errf(e, LBT_EINVAL, "workload '%s': the tree has more than 2^31-1 nodes; make B or DEPTH "
			                "smaller", w->spec);
		return LBT_OK;
	}
	if (!(a[1] >= 0 && a[1] <= 1))
		return lbt_errf(e, LBT_EINVAL, "workload '%s': write gw:B:P:ROOTS with 0 <= P <= 1", w->spec);
	return LBT_OK;
}

LBT_WORKLOAD(lbt_workload_tree) = {
	.name = "tree",
	.summary = "a complete search tree, branching B, leaves at level DEPTH, root on PE 0 (Henrich 1996, §5)",
	.phase = tree_phase,
	.close = tree_close,
	.open_spec = tree_open,
	.settle = tree_settle,
	.levels = tree_levels,
	.parse = tree_parse,
	.usage = "tree:B:DEPTH",
	.example = "tree:2:4",
	.tasks = 1,
};
LBT_WORKLOAD(lbt_workload_gw) = {
	.name = "gw",
	.summary = "a Galton-Watson search tree: a node has B children with probability P, ROOTS roots on PE 0",
	.phase = tree_phase,
	.close = tree_close,
	.open_spec = tree_open,
	.settle = tree_settle,
	.levels = tree_levels,
	.parse = tree_parse,
	.usage = "gw:B:P:ROOTS",
	.example = "gw:2:0.45:6",
	.tasks = 1,
};

int lbt_wl_tree_fits(const lbt_workload *w, const lbt_shape *s, lbt_err *e)
{
	const int64_t P = lbt_shape_pes(s), levels = strcmp(w->name, "tree") ? 1 : (int64_t)w->arg[1] + 1;
	if (levels <= MAX_LEVEL_CELLS / P)
		return LBT_OK;
	char sh[128];
	lbt_shape_format(s, sh, sizeof sh);
	return lbt_errf(e, LBT_EINVAL, "workload '%s' on %s needs %lld level%s x %lld PEs of node counts, beyond the "
	                "limit of 2^28 (1 GiB of int32 counts): make %sthe torus smaller", w->spec, sh, (long long)levels,
	                levels == 1 ? "" : "s", (long long)P, levels == 1 ? "" : "DEPTH or ");
}
