/* spread.c — independent jobs over the MPI ranks (spread.h).
 *
 * Invariants: job k of the order runs on rank k mod R, the rule by which a
 * sweep deals its small runs, so big jobs put first are dealt evenly; a
 * job's result is a function of the job alone, so it does not matter which
 * rank or thread ran it; the results go to every rank in rank order (an
 * allgather of bytes), so every rank ends with the same bytes. A signal
 * to any rank (the caller's flag) reaches the others between their jobs
 * (lbt_comm_watch), no rank waiting for another's jobs until the end; on
 * one rank the flag itself stops the jobs not yet begun. Either way the
 * call then fails with LBT_EINTR, the skipped jobs' results unwritten. */
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
		void *at[LBT_SPREAD_REGIONS];
		size_t sz[LBT_SPREAD_REGIONS];
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

/* Every rank's results to every rank (an allgather of their bytes). */
static int share(const lbt_spread *s, const int *order, int64_t n, int R, int me, lbt_err *e)
{
	const size_t mine = rank_bytes(s, order, n, R, me, NULL, 0);
	char *buf = malloc(mine ? mine : 1);
	int64_t *counts = malloc((size_t)R * sizeof *counts);
	void *all = NULL;
	int st = lbt_comm_min_int(buf && counts) ? LBT_OK : lbt_errf(e, LBT_ENOMEM, "no memory to gather the results");
	if (!st) {
		rank_bytes(s, order, n, R, me, buf, 0);
		st = lbt_comm_allgatherv(buf, mine, &all, counts) ? lbt_errf(e, LBT_ENOMEM, "no memory to gather the results")
		                                                   : LBT_OK;
	}
	size_t off = 0;
	for (int r = 0; !st && r < R; r++)
		off += rank_bytes(s, order, n, R, r, (char *)all + off, 1);
	free(buf);
	free(counts);
	free(all);
	return st;
}

int lbt_spread_run(const lbt_spread *s, const int *order, int64_t n, int threads, lbt_err *e)
{
	const int R = lbt_comm_size(), me = lbt_comm_rank();
	const int64_t mine = lbt_spread_mine(n);
	if (threads < 1)
		threads = 1;
	/* under MPI with a signal flag, the ranks watch for a signal to any of
	 * them between jobs without waiting for each other (lbt_comm_watch):
	 * jobs not started when one came are skipped, and every rank stops */
	lbt_comm_watch *w = NULL;
	if (R > 1 && s->interrupt && lbt_comm_watch_open(&w, s->interrupt))
		return lbt_errf(e, LBT_ENOMEM, "no memory to watch for signals");
	int stop = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
	for (int64_t k = 0; k < mine; k++) {
		int halt;
#pragma omp atomic read
		halt = stop;
		if (halt || (!w && s->interrupt && *s->interrupt)) /* one rank: its own flag */
			continue;
		const int64_t at = me + k * R;
		s->run(s->ctx, order ? order[at] : at);
		if (w && lbt_comm_watch_poll(w, 0)) {
#pragma omp atomic write
			stop = 1;
		}
	}
	if (w ? lbt_comm_watch_close(w, 0) : s->interrupt && *s->interrupt)
		return lbt_errf(e, LBT_EINTR, "interrupted");
	return R > 1 ? share(s, order, n, R, me, e) : LBT_OK;
}
