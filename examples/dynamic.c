/* dynamic.c — a dynamic run against the installed liblbtorus: integer
 * first-order diffusion (Cybenko 1989, eq. (1) with flows truncated) on a
 * 12x20 torus whose PEs each receive Poisson(1) new tasks and complete one
 * per step (eq. (12)), 50 steps, an observer noting the widest spread of
 * load; then the run's JSON record, and the final loads read back into a
 * column-major (Fortran-order) array, summed in row-major order.
 *   cc dynamic.c $(pkg-config --cflags --libs lbtorus) && ./a.out */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <lbtorus.h>

static int widest(void *ctx, const lbt_record *r)
{
	double *spread = ctx;
	if (r->max - r->min > *spread)
		*spread = r->max - r->min;
	return 0; /* non-zero would stop the run after this step */
}

int main(void)
{
	lbt_config c = lbt_config_default();
	c.shape = "12x20";
	c.method = "fos-int";
	c.init = "uniform:0:9";
	c.workload = "cybenko:poisson:1:1";
	c.until = "steps:50";
	c.seed = 7;
	c.threads = 1;
	lbt_err e;
	lbt_sim *sim = NULL;
	double spread = 0;
	static char json[8192];
	int32_t *w = NULL;
	lbt_array a;
	int rc = lbt_config_param(&c, "alpha", "0.2", &e);
	if (!rc)
		rc = lbt_sim_open(&sim, &c, &e);
	if (!rc)
		rc = lbt_sim_run(sim, widest, &spread, &e);
	if (!rc)
		rc = lbt_sim_json(sim, json, sizeof json, NULL, &e);
	if (!rc)
		rc = lbt_sim_field(sim, "load", &a, &e); /* "<i4", 2 axes, C strides */
	if (!rc && !(w = malloc((size_t)(a.shape[0] * a.shape[1]) * sizeof *w))) {
		rc = LBT_ENOMEM;
		snprintf(e.msg, sizeof e.msg, "no memory for the loads");
	}
	if (!rc) {
		a.data = w; /* Fortran order: the first axis contiguous */
		a.strides[0] = (int64_t)sizeof *w;
		a.strides[1] = a.shape[0] * (int64_t)sizeof *w;
		rc = lbt_sim_field_read(sim, "load", &a, &e);
	}
	lbt_sim_close(sim);
	if (rc) {
		fprintf(stderr, "dynamic: %s\n", e.msg);
		free(w);
		return 1;
	}
	long long sum = 0, weighted = 0; /* weighted: sum of (k + 1) w_k, k the row-major index */
	for (int64_t i = 0; i < a.shape[0]; i++)
		for (int64_t j = 0; j < a.shape[1]; j++) {
			const int32_t v = w[i + j * a.shape[0]];
			sum += v;
			weighted += (i * a.shape[1] + j + 1) * v;
		}
	free(w);
	printf("%s\n", json);
	printf("widest spread %g; final loads: sum %lld, weighted sum %lld\n", spread, sum, weighted);
	return 0;
}
