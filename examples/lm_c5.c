/* lm_c5.c — the smallest program against the installed liblbtorus: the
 * Liquid model LM-C5 on a 64x64 torus from the worst case (5 elements per PE,
 * all on PE (0, 0)), stepped until balanced (seed 000, Definition 2).
 *   cc lm_c5.c $(pkg-config --cflags --libs lbtorus) && ./a.out */
#include <stdio.h>

#include <lbtorus.h>

int main(void)
{
	lbt_config c = lbt_config_default(); /* until balanced, at most 10^6 steps */
	c.shape = "64x64";
	c.method = "lm-c5";
	c.init = "worst:5";
	c.threads = 1;
	lbt_sim *sim;
	lbt_result r;
	lbt_err e;
	int rc = lbt_sim_open(&sim, &c, &e);
	if (!rc) {
		rc = lbt_sim_run(sim, NULL, NULL, &e);
		if (!rc)
			rc = lbt_sim_result(sim, &r, &e);
		lbt_sim_close(sim);
	}
	if (rc) {
		fprintf(stderr, "lm_c5: %s\n", e.msg);
		return 1;
	}
	printf("balanced after %lld steps (%lld shifts)\n", (long long)r.balanced_step, (long long)r.balanced_shifts);
	return 0;
}
