/* detect.c — the decentralized convergence detection of Jeannot and Vernier
 * (A Practical Approach of Diffusion Load Balancing Algorithms, 2006, §3.3),
 * their synchronous adaptation of the IEEE-1394 (FireWire) tree protocol,
 * emulated round by round on a spanning tree:
 *
 *   stage 1: a node that has heard from all its tree neighbours but one sends
 *            its sub-tree's state to that one (its father); leaves start in
 *            round 1. A node that has heard from all its neighbours is the
 *            root. Two nodes that send to each other in the same round (the
 *            protocol's root contention; FireWire resolves it by random
 *            back-off) both hear from all: the smaller index becomes the root.
 *   stage 2: the root broadcasts the decision down the tree, one level per round.
 *
 * On a tree of diameter d the waves from the leaves meet at its centre:
 * stage 1 takes ceil(d/2) rounds and stage 2 ceil(d/2) (the root's
 * eccentricity), with contention exactly when d is odd. A line of n PEs: n-1
 * rounds for odd n, n for even n.
 *
 * The spanning tree of a torus or mesh is the comb through the middle: every
 * fibre of the last axis is a path (no wrap-around link), and axis d links
 * PEs whose coordinates on every later axis d' are the middle (n_d' - 1)/2. */
#include <stdlib.h>
#include <string.h>

#include "lbtorus/method.h"

static int64_t pes(const lbt_shape *s)
{
	int64_t P = 1;
	for (int d = 0; d < s->dims; d++)
		P *= s->ext[d];
	return P;
}

int64_t lbt_detect_shape_tree(const lbt_shape *s, int64_t *edges)
{
	const int D = s->dims;
	const int64_t P = pes(s);
	int64_t stride[8], c[8] = {0}, n = 0;
	stride[D - 1] = 1;
	for (int d = D - 2; d >= 0; d--)
		stride[d] = stride[d + 1] * s->ext[d + 1];
	for (int64_t i = 0; i < P; i++) {
		for (int d = 0; d < D; d++) {
			int on = c[d] + 1 < s->ext[d];
			for (int e = d + 1; e < D && on; e++)
				on = c[e] == (s->ext[e] - 1) / 2;
			if (on) {
				edges[2 * n] = i;
				edges[2 * n + 1] = i + stride[d];
				n++;
			}
		}
		for (int d = D - 1; d >= 0; d--) { /* row-major odometer */
			if (++c[d] < s->ext[d])
				break;
			c[d] = 0;
		}
	}
	return n;
}

/* The comb's diameter joins two PEs that differ on its first axis of
 * extent > 1, each the farthest from the middle on every later axis:
 * (n_first - 1) + 2 sum over the later axes of ceil((n_d - 1)/2); the
 * protocol takes ceil(d/2) rounds each way (above). */
int64_t lbt_detect_shape_rounds(const lbt_shape *s)
{
	int64_t diameter = 0;
	int first = 1;
	for (int d = 0; d < s->dims; d++) {
		if (s->ext[d] < 2)
			continue;
		diameter += first ? s->ext[d] - 1 : 2 * (s->ext[d] / 2); /* ceil((n-1)/2) = floor(n/2) */
		first = 0;
	}
	return 2 * ((diameter + 1) / 2);
}

/* The tree as adjacency lists (start[i]..start[i+1] in adj) and the
 * protocol's per-PE and per-slot state. */
typedef struct {
	int64_t P;
	int64_t *deg, *start, *adj, *heard, *sent_to, *queue, *send_now;
	unsigned char *from; /* per adjacency slot: heard from that neighbour */
} dtree;

/* The P - 1 edges checked and laid out as adjacency lists. */
static int dtree_build(dtree *t, const int64_t *edges, lbt_err *e)
{
	const int64_t P = t->P;
	for (int64_t k = 0; k < P - 1; k++) {
		if (edges[2 * k] < 0 || edges[2 * k] >= P || edges[2 * k + 1] < 0 || edges[2 * k + 1] >= P ||
		    edges[2 * k] == edges[2 * k + 1])
			return lbt_errf(e, LBT_EINVAL, "detection: edge %lld is not a link between two PEs", (long long)k);
		t->deg[edges[2 * k]]++;
		t->deg[edges[2 * k + 1]]++;
	}
	for (int64_t i = 0; i < P; i++)
		t->start[i + 1] = t->start[i] + t->deg[i];
	memset(t->deg, 0, (size_t)P * sizeof *t->deg);
	for (int64_t k = 0; k < P - 1; k++) {
		int64_t a = edges[2 * k], b = edges[2 * k + 1];
		t->adj[t->start[a] + t->deg[a]++] = b;
		t->adj[t->start[b] + t->deg[b]++] = a;
	}
	return LBT_OK;
}

/* Stage 1: a PE that heard from all its neighbours but one sends to that
 * one, until a PE has heard from all (the root; contention: the smaller
 * index of two that sent to each other). */
static int dtree_up(dtree *t, lbt_detect *r, int64_t *parent, lbt_err *e)
{
	const int64_t P = t->P;
	for (int64_t i = 0; i < P; i++) {
		t->sent_to[i] = -1;
		parent[i] = -1;
	}
	int64_t round = 0;
	if (P == 1)
		r->root = 0;
	while (r->root < 0) {
		round++;
		int64_t ns = 0;
		for (int64_t i = 0; i < P; i++)
			if (t->sent_to[i] < 0 && t->heard[i] == t->deg[i] - 1)
				t->send_now[ns++] = i;
		if (!ns)
			return lbt_errf(e, LBT_EINVAL, "detection: the edges are not a spanning tree (stage 1 stops at round %lld)",
			                (long long)round);
		for (int64_t q = 0; q < ns; q++) { /* the one neighbour not heard from */
			int64_t i = t->send_now[q];
			for (int64_t s = t->start[i]; s < t->start[i + 1]; s++)
				if (!t->from[s])
					t->sent_to[i] = t->adj[s];
		}
		for (int64_t q = 0; q < ns; q++) { /* delivered at the end of the round */
			int64_t i = t->send_now[q], j = t->sent_to[i];
			for (int64_t s = t->start[j]; s < t->start[j + 1]; s++)
				if (t->adj[s] == i && !t->from[s]) {
					t->from[s] = 1;
					t->heard[j]++;
				}
			r->messages++;
		}
		for (int64_t q = 0; q < ns; q++) {
			int64_t i = t->send_now[q], j = t->sent_to[i];
			if (t->sent_to[j] == i) { /* contention: the smaller index wins */
				r->contention = 1;
				if (i < j)
					r->root = i;
			}
		}
		for (int64_t i = 0; i < P && r->root < 0; i++)
			if (t->sent_to[i] < 0 && t->heard[i] == t->deg[i])
				r->root = i;
	}
	r->up_rounds = round;
	for (int64_t i = 0; i < P; i++)
		if (i != r->root)
			parent[i] = t->sent_to[i];
	return LBT_OK;
}

/* Stage 2: breadth first from the root, over the links to children. */
static void dtree_down(dtree *t, lbt_detect *r, const int64_t *parent, int64_t *reached)
{
	const int64_t round = r->up_rounds;
	for (int64_t i = 0; i < t->P; i++)
		reached[i] = -1;
	int64_t head = 0, tail = 0;
	reached[r->root] = round;
	t->queue[tail++] = r->root;
	while (head < tail) {
		int64_t i = t->queue[head++];
		for (int64_t s = t->start[i]; s < t->start[i + 1]; s++) {
			int64_t j = t->adj[s];
			if (parent[j] == i && reached[j] < 0) {
				reached[j] = reached[i] + 1;
				r->messages++;
				t->queue[tail++] = j;
				if (reached[j] - round > r->down_rounds)
					r->down_rounds = reached[j] - round;
			}
		}
	}
}

int lbt_detect_run(int64_t P, const int64_t *edges, lbt_detect *r, int64_t *parent, int64_t *reached, lbt_err *e)
{
	memset(r, 0, sizeof *r);
	r->root = -1;
	dtree t = {.P = P,
	           .deg = calloc((size_t)P + 1, sizeof(int64_t)),
	           .start = calloc((size_t)P + 1, sizeof(int64_t)),
	           .adj = malloc((size_t)(2 * (P - 1) + 1) * sizeof(int64_t)),
	           .heard = calloc((size_t)P + 1, sizeof(int64_t)),
	           .sent_to = malloc((size_t)P * sizeof(int64_t)),
	           .queue = malloc((size_t)P * sizeof(int64_t)),
	           .send_now = malloc((size_t)P * sizeof(int64_t)),
	           .from = calloc((size_t)(2 * (P - 1) + 1), 1)};
	int status;
	if (!t.deg || !t.start || !t.adj || !t.heard || !t.sent_to || !t.queue || !t.send_now || !t.from)
		status = lbt_errf(e, LBT_ENOMEM, "no memory for the detection protocol on %lld PEs", (long long)P);
	else if (!(status = dtree_build(&t, edges, e)) && !(status = dtree_up(&t, r, parent, e))) {
		dtree_down(&t, r, parent, reached);
		r->rounds = r->up_rounds + r->down_rounds;
	}
	free(t.deg);
	free(t.start);
	free(t.adj);
	free(t.heard);
	free(t.sent_to);
	free(t.queue);
	free(t.send_now);
	free(t.from);
	return status;
}
