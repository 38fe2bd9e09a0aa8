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
 * changes nothing but the recorded levels). */
#include <stdlib.h>
#include <string.h>

#include "lbtorus/rng.h"
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
	lbt_wl_dense d;   /* the load field after the method's step */
	int32_t *held;    /* nodes per PE as the counts below know them */
	int32_t **cnt;    /* cnt[level][PE] */
	int64_t levels, cap; /* levels allocated; room in cnt */
	int64_t used;     /* levels that ever held a node */
	int64_t *ranks;   /* gw: nodes of each level expanded so far (room for cap levels) */
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
	free(ws->held);
	free(ws->d.buf);
	free(ws->q);
	free(ws);
}

/* Make level l exist. */
static int need_level(tree_ws *ws, int64_t l, lbt_err *e)
{
	while (ws->levels <= l) {
		if ((ws->levels + 1) * ws->d.P > MAX_LEVEL_CELLS)
			return lbt_errf(e, LBT_ENOMEM, "workload %s: the tree is deeper than %lld levels, more than its "
			                "counts may take", ws->w->spec, (long long)ws->levels);
		if (ws->levels == ws->cap) {
			int64_t cap = ws->cap ? 2 * ws->cap : 16;
			int32_t **c = realloc(ws->cnt, (size_t)cap * sizeof *c);
			if (c)
				ws->cnt = c;
			int64_t *r = c ? realloc(ws->ranks, (size_t)cap * sizeof *r) : NULL;
			if (!r)
				return lbt_errf(e, LBT_ENOMEM, "no memory for the tree's levels");
			memset(r + ws->cap, 0, (size_t)(cap - ws->cap) * sizeof *r);
			ws->ranks = r;
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
	lbt_stats s;
	lbt_grid_stats(&st->grid, &s);
	if (s.total != 0)
		return lbt_errf(e, LBT_EINVAL, "workload %s: a search starts on an empty machine (its roots on PE 0): "
		                "use --init const:0", w->spec);
	tree_ws *ws = calloc(1, sizeof *ws);
	if (!ws)
		return lbt_errf(e, LBT_ENOMEM, "no memory for the workload");
	ws->w = w;
	ws->complete = !strcmp(w->name, "tree");
	ws->B = (int)w->arg[0];
	ws->depth = ws->complete ? (int64_t)w->arg[1] : -1;
	ws->prob = ws->complete ? 1 : w->arg[1];
	int32_t roots = ws->complete ? 1 : (int32_t)w->arg[2];
	int status = lbt_wl_dense_open(&ws->d, st, e);
	if (!status && !(ws->held = calloc((size_t)ws->d.P, sizeof *ws->held)))
		status = lbt_errf(e, LBT_ENOMEM, "no memory for the workload");
	if (!status)
		status = need_level(ws, 0, e);
	if (status) {
		tree_close(ws);
		return status;
	}
	ws->cnt[0][0] = ws->held[0] = roots;
	st->grid.load[0] = roots; /* the roots are the initial load */
	*out = ws;
	return LBT_OK;
}

/* Every PE holding a node expands one of its deepest level. */
static int tree_phase(void *p, lbt_state *st, int64_t t, uint64_t seed, lbt_work_counts *c, lbt_err *e)
{
	(void)t; /* a node's fate depends on its level and rank, not on the step */
	tree_ws *ws = p;
	int32_t *x = ws->d.buf;
	lbt_field_export(&st->grid, ws->d.f, x);
	const int64_t top = ws->levels; /* children made this step land on levels that exist now or one more */
	for (int64_t i = 0; i < ws->d.P; i++) {
		if (ws->held[i] == 0) {
			c->idle_capacity += 1;
			continue;
		}
		int64_t l = top - 1;
		while (ws->cnt[l][i] == 0)
			l--;
		ws->cnt[l][i]--;
		c->completed++;
		int32_t kids = 0;
		if (ws->complete)
			kids = l < ws->depth ? ws->B : 0;
		else
			kids = lbt_wl_unit(lbt_rand(seed, (uint64_t)l, (uint64_t)ws->ranks[l]++, P_CHILDREN)) < ws->prob ? ws->B : 0;
		if (kids) {
			int status = need_level(ws, l + 1, e);
			if (status)
				return status;
			if (x[i] > INT32_MAX - kids)
				return lbt_errf(e, LBT_ERANGE, "workload %s: PE %lld would hold more than 2^31-1 nodes",
				                ws->w->spec, (long long)i);
			ws->cnt[l + 1][i] += kids;
		}
		ws->held[i] += kids - 1;
		x[i] += kids - 1;
		c->generated += kids;
	}
	lbt_field_import(&st->grid, ws->d.f, x);
	return LBT_OK;
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

/* After the method's step: the nodes follow the load (see the top). */
static int tree_settle(void *p, lbt_state *st, lbt_err *e)
{
	tree_ws *ws = p;
	int32_t *x = ws->d.buf;
	lbt_field_export(&st->grid, ws->d.f, x);
	ws->qn = 0;
	for (int64_t i = 0; i < ws->d.P; i++) /* senders give their shallowest nodes */
		for (int32_t give = ws->held[i] - x[i], l = 0; give > 0; l++) {
			int32_t k = ws->cnt[l][i] < give ? ws->cnt[l][i] : give;
			if (k) {
				int status = push(ws, l, k, e);
				if (status)
					return status;
				ws->cnt[l][i] -= k;
				ws->held[i] -= k;
				give -= k;
			}
		}
	int64_t head = 0;
	for (int64_t i = 0; i < ws->d.P; i++) /* receivers take them in order */
		for (int32_t take = x[i] - ws->held[i]; take > 0;) {
			if (head == ws->qn)
				return lbt_errf(e, LBT_EINTERNAL, "workload %s: %s made load the tree does not have",
				                ws->w->spec, st->method->name);
			run_t *r = &ws->q[head];
			int32_t k = r->n < take ? r->n : take;
			ws->cnt[r->level][i] += k;
			ws->held[i] += k;
			take -= k;
			if (!(r->n -= k))
				head++;
		}
	if (head != ws->qn)
		return lbt_errf(e, LBT_EINTERNAL, "workload %s: %s lost tree nodes", ws->w->spec, st->method->name);
	return LBT_OK;
}

static int64_t tree_levels(const void *p) { return ((const tree_ws *)p)->used; }

const lbt_workload lbt_wl_tree = {
	"tree", "a complete search tree, branching B, leaves at level DEPTH, root on PE 0 (Henrich 1996, §5)",
	NULL, tree_phase, tree_close, tree_open, tree_settle, tree_levels, "tree:B:DEPTH", 1, "", 0, {0}};
const lbt_workload lbt_wl_gw = {
	"gw", "a Galton-Watson search tree: a node has B children with probability P, ROOTS roots on PE 0",
	NULL, tree_phase, tree_close, tree_open, tree_settle, tree_levels, "gw:B:P:ROOTS", 1, "", 0, {0}};

int lbt_wl_tree_parse(lbt_workload *w, const char *spec, int n, lbt_err *e)
{
	const double *a = w->arg;
	char why[160];
	if (!strcmp(w->name, "tree")) {
		if (n != 2 || !(a[0] >= 1 && a[0] <= 1e6 && a[0] == (int64_t)a[0] && a[1] >= 0 && a[1] == (int64_t)a[1]))
			return lbt_errf(e, LBT_EINVAL, "workload '%s': write tree:B:DEPTH with integers B >= 1, DEPTH >= 0", spec);
		double size = 0, level = 1; /* (B^(DEPTH+1) - 1)/(B - 1), summed level by level */
		for (int64_t l = 0; l <= (int64_t)a[1] && size <= INT32_MAX; l++, level *= a[0])
			size += level;
		if (size > INT32_MAX) {
			snprintf(why, sizeof why, "the tree has more than 2^31-1 nodes; make B or DEPTH smaller");
			return lbt_errf(e, LBT_EINVAL, "workload '%s': %s", spec, why);
		}
		return LBT_OK;
	}
	if (n != 3 || !(a[0] >= 1 && a[0] <= 1e6 && a[0] == (int64_t)a[0] && a[1] >= 0 && a[1] <= 1 && a[2] >= 1 &&
	                a[2] <= INT32_MAX && a[2] == (int64_t)a[2]))
		return lbt_errf(e, LBT_EINVAL, "workload '%s': write gw:B:P:ROOTS with integers B >= 1, ROOTS >= 1 "
		                "and 0 <= P <= 1", spec);
	return LBT_OK;
}
