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

int lbt_detect_run(int64_t P, const int64_t *edges, lbt_detect *r, int64_t *parent, int64_t *reached, lbt_err *e)
{
	memset(r, 0, sizeof *r);
	r->root = -1;
	int64_t *deg = calloc((size_t)P + 1, sizeof *deg), *start = calloc((size_t)P + 1, sizeof *start);
	int64_t *adj = malloc((size_t)(2 * (P - 1) + 1) * sizeof *adj), *heard = calloc((size_t)P + 1, sizeof *heard);
	int64_t *sent_to = malloc((size_t)P * sizeof *sent_to), *queue = malloc((size_t)P * sizeof *queue);
	int64_t *send_now = malloc((size_t)P * sizeof *send_now);
	unsigned char *from = calloc((size_t)(2 * (P - 1) + 1), 1); /* per adjacency slot: heard from that neighbour */
	int status = LBT_OK;
	if (!deg || !start || !adj || !heard || !sent_to || !queue || !send_now || !from) {
		status = lbt_errf(e, LBT_ENOMEM, "no memory for the detection protocol on %lld PEs", (long long)P);
		goto done;
	}
	for (int64_t k = 0; k < P - 1; k++) {
		if (edges[2 * k] < 0 || edges[2 * k] >= P || edges[2 * k + 1] < 0 || edges[2 * k + 1] >= P ||
		    edges[2 * k] == edges[2 * k + 1]) {
			status = lbt_errf(e, LBT_EINVAL, "detection: edge %lld is not a link between two PEs", (long long)k);
			goto done;
		}
		deg[edges[2 * k]]++;
		deg[edges[2 * k + 1]]++;
	}
	for (int64_t i = 0; i < P; i++)
		start[i + 1] = start[i] + deg[i];
	memset(deg, 0, (size_t)P * sizeof *deg);
	for (int64_t k = 0; k < P - 1; k++) {
		int64_t a = edges[2 * k], b = edges[2 * k + 1];
		adj[start[a] + deg[a]++] = b;
		adj[start[b] + deg[b]++] = a;
	}
	for (int64_t i = 0; i < P; i++) {
		sent_to[i] = -1;
		parent[i] = -1;
	}
	/* stage 1 */
	int64_t round = 0;
	if (P == 1)
		r->root = 0;
	while (r->root < 0) {
		round++;
		int64_t ns = 0;
		for (int64_t i = 0; i < P; i++)
			if (sent_to[i] < 0 && heard[i] == deg[i] - 1)
				send_now[ns++] = i;
		if (!ns) {
			status = lbt_errf(e, LBT_EINVAL, "detection: the edges are not a spanning tree (stage 1 stops at round %lld)",
			                  (long long)round);
			goto done;
		}
		for (int64_t q = 0; q < ns; q++) { /* the one neighbour not heard from */
			int64_t i = send_now[q];
			for (int64_t s = start[i]; s < start[i + 1]; s++)
				if (!from[s])
					sent_to[i] = adj[s];
		}
		for (int64_t q = 0; q < ns; q++) { /* delivered at the end of the round */
			int64_t i = send_now[q], j = sent_to[i];
			for (int64_t s = start[j]; s < start[j + 1]; s++)
				if (adj[s] == i && !from[s]) {
					from[s] = 1;
					heard[j]++;
				}
			r->messages++;
		}
		for (int64_t q = 0; q < ns; q++) {
			int64_t i = send_now[q], j = sent_to[i];
			if (sent_to[j] == i) { /* contention: the smaller index wins */
				r->contention = 1;
				if (i < j)
					r->root = i;
			}
		}
		for (int64_t i = 0; i < P && r->root < 0; i++)
			if (sent_to[i] < 0 && heard[i] == deg[i])
				r->root = i;
	}
	r->up_rounds = round;
	for (int64_t i = 0; i < P; i++)
		if (i != r->root)
			parent[i] = sent_to[i];
	/* stage 2: breadth first from the root, over the links to children */
	for (int64_t i = 0; i < P; i++)
		reached[i] = -1;
	int64_t head = 0, tail = 0;
	reached[r->root] = round;
	queue[tail++] = r->root;
	while (head < tail) {
		int64_t i = queue[head++];
		for (int64_t s = start[i]; s < start[i + 1]; s++) {
			int64_t j = adj[s];
			if (parent[j] == i && reached[j] < 0) {
				reached[j] = reached[i] + 1;
				r->messages++;
				queue[tail++] = j;
				if (reached[j] - round > r->down_rounds)
					r->down_rounds = reached[j] - round;
			}
		}
	}
	r->rounds = r->up_rounds + r->down_rounds;
done:
	free(deg);
	free(start);
	free(adj);
	free(heard);
	free(sent_to);
	free(queue);
	free(send_now);
	free(from);
	return status;
}
