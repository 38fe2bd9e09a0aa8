/* team.h — the one way a kernel that needs a barrier runs on threads: in a
 * parallel region it opens itself, never in its caller's.
 *
 * An orphaned OpenMP barrier, `single` or `for` binds to whatever team the
 * caller happens to have: a sweep job's, a user's. A kernel stepping alone
 * inside such a team then waits at a barrier for threads that never come
 * (the deadlock of sweeps with two jobs over the byte steps). So a kernel
 * that synchronises its threads runs them through lbt_team_run, which opens
 * the region, and synchronises them only with lbt_team_barrier, which
 * takes the team that region made: a team of more than one thread exists
 * only inside it. The region may get fewer threads than asked (nested in a
 * user's or a sweep's region, it gets one): the function reads the team's
 * size, never the size asked for, so every thread count gives the same
 * bits. tests/omp_rule.py checks that no other orphaned construct exists. */
#ifndef LBTORUS_KERNELS_TEAM_H
#define LBTORUS_KERNELS_TEAM_H

#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct {
	int id, n; /* this thread's number, and how many the region has */
} lbt_team;

typedef void (*lbt_team_fn)(void *ctx, const lbt_team *team);

/* f(ctx, team) on each thread of a region of at most T threads (the caller
 * alone when T <= 1); returns how many threads ran it. */
static inline int lbt_team_run(int T, lbt_team_fn f, void *ctx)
{
	if (T <= 1) {
		const lbt_team one = {0, 1};
		f(ctx, &one);
		return 1;
	}
	int got = 1;
#pragma omp parallel num_threads(T)
	{
		lbt_team t = {0, 1};
#ifdef _OPENMP
		t.id = omp_get_thread_num();
		t.n = omp_get_num_threads();
#endif
		if (t.id == 0)
			got = t.n;
		f(ctx, &t);
	}
	return got;
}

/* Wait for the team's other threads (nothing to wait for in a team of one). */
static inline void lbt_team_barrier(const lbt_team *team)
{
	if (team->n > 1) {
#pragma omp barrier
	}
}

#endif
