/* spread.c — independent jobs over the MPI ranks (spread.h).
 *
 * Invariants: job k of the order runs on rank k mod R, the rule by which a
 * sweep deals its small runs, so big jobs put first are dealt evenly; a
 * job's result is a function of the job alone, so it does not matter which
 * rank or thread ran it; the results are gathered to rank 0 in rank order
 * and broadcast from there, so every rank ends with the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "exp/spread.h"
#include "comm/comm.h"

int64_t lbt_spread_mine(int64_t n)
{
	const int R = lbt_comm_size(), me = lbt_comm_rank();
	return n > me ? (n - me + R - 1) / R : 0;
}

/* The bytes of the results of rank r's jobs (pack: copied to buf; unpack:
 * copied from it). */
static size_t rank_bytes(const lbt_spread *s, const int *order, int64_t n, int R, int r, char *buf, int unpack)
{
	size_t len = 0;
	for (int64_t k = r; k < n; k += R) {
		void *at[2];
		size_t sz[2];
		const int nr = s->result(s->ctx, order ? order[k] : k, at, sz);
		for (int j = 0; j < nr; j++) {
			if (buf && unpack)
				memcpy(at[j], buf + len, sz[j]);
			else if (buf)
				memcpy(buf + len, at[j], sz[j]);
			len += sz[j];
		}
	}
	return len;
}

/* Every rank's results to every rank: gathered on rank 0, broadcast. */
static int share(const lbt_spread *s, const int *order, int64_t n, int R, int me, lbt_err *e)
{
	size_t total = 0, mine = 0;
	for (int r = 0; r < R; r++) {
		const size_t b = rank_bytes(s, order, n, R, r, NULL, 0);
		total += b;
		mine = r == me ? b : mine;
	}
	char *buf = malloc(mine ? mine : 1), *all = malloc(total ? total : 1);
	int st = lbt_comm_min_int(buf && all) ? LBT_OK : lbt_errf(e, LBT_ENOMEM, "no memory to gather the results");
	if (!st) {
		rank_bytes(s, order, n, R, me, buf, 0);
		st = lbt_comm_gather(buf, mine, all) ? lbt_errf(e, LBT_ENOMEM, "no memory to gather the results") : LBT_OK;
	}
	for (size_t at = 0; !st && at < total; at += 1 << 30) /* a broadcast counts in int */
		lbt_comm_bcast(all + at, (int)(total - at < (1u << 30) ? total - at : 1u << 30));
	size_t off = 0;
	for (int r = 0; !st && r < R; r++)
		off += rank_bytes(s, order, n, R, r, all + off, 1);
	free(buf);
	free(all);
	return st;
}

int lbt_spread_run(const lbt_spread *s, const int *order, int64_t n, int threads, lbt_err *e)
{
	const int R = lbt_comm_size(), me = lbt_comm_rank();
	const int64_t mine = lbt_spread_mine(n);
	if (threads < 1)
		threads = 1;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
	for (int64_t k = 0; k < mine; k++) {
		const int64_t at = me + k * R;
		s->run(s->ctx, order ? order[at] : at);
	}
	return R > 1 ? share(s, order, n, R, me, e) : LBT_OK;
}
