/* lm_c5.c — the smallest program against the installed liblbtorus: the
 * Liquid model LM-C5 on a 64x64 torus from the worst case (5 elements per PE,
 * all on PE (0, 0)), stepped until balanced (seed 000, Definition 2).
 *   cc lm_c5.c $(pkg-config --cflags --libs lbtorus) && ./a.out */
#include <stdio.h>

#include <lbtorus/lbtorus.h>

int main(void)
{
	lbt_setup cfg = {.shape = "64x64", .method = "lm-c5", .init = "worst:5", .threads = 1};
	lbt_run_opts opts = lbt_run_opts_default(); /* until balanced, at most 10^6 steps */
	lbt_state st;
	lbt_summary s;
	lbt_err e;
	int rc = lbt_state_open(&st, &cfg, &e);
	if (!rc) {
		rc = lbt_run(&st, &opts, &s, &e);
		lbt_state_close(&st);
	}
	if (rc) {
		fprintf(stderr, "lm_c5: %s\n", e.msg);
		return 1;
	}
	printf("balanced after %lld steps (%lld shifts)\n", (long long)s.balanced_step, (long long)s.balanced_shifts);
	return 0;
}
