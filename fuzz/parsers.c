/* parsers.c — fuzz the small parsers a command line reaches: the first byte
 * picks one (shape, boundary, init, criterion, integer, seed, real number,
 * method parameter), the rest is its text. */
#include <math.h>

#include "common.h"
#include "lbtorus/lbtorus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char *t = fuzz_text(data + 1, size - 1);
	if (!t)
		return 0;
	lbt_err e;
	lbt_shape s;
	switch (data[0] % 8) {
	case 0:
		if (lbt_shape_parse(&s, t, &e) == LBT_OK && (lbt_shape_pes(&s) < 1 || lbt_shape_check(&s, "s", &e)))
			abort(); /* a parsed shape is a valid one */
		break;
	case 1:
		lbt_shape_parse(&s, "4x4x4", &e);
		lbt_boundary_parse(&s, t, &e);
		break;
	case 2: {
		lbt_init in;
		if (lbt_init_parse(&in, t, &e) == LBT_OK && lbt_shape_parse(&s, "16x16", &e) == LBT_OK)
			lbt_init_check(&in, &s, &e);
		break;
	}
	case 3: {
		lbt_until u;
		lbt_until_parse(&u, t, &e);
		break;
	}
	case 4: {
		int64_t v;
		if (lbt_parse_i64(t, -1000, INT64_MAX, "n", &v, &e) == LBT_OK && v < -1000)
			abort();
		break;
	}
	case 5: {
		uint64_t v;
		if (lbt_parse_u64(t, 1, UINT64_MAX - 1, "seed", &v, &e) == LBT_OK && (v < 1 || v == UINT64_MAX))
			abort();
		break;
	}
	case 6: {
		double v;
		if (lbt_parse_f64(t, 0, 1, 1, "x", &v, &e) == LBT_OK && !(v > 0 && v <= 1 && isfinite(v)))
			abort();
		break;
	}
	case 7:
		for (const lbt_method *const *m = lbt_methods(); *m; m++)
			for (int i = 0; i < (*m)->nparams; i++) {
				lbt_param_value pv;
				char why[160];
				lbt_param_parse(&(*m)->params[i], t, &pv, why, sizeof why);
			}
		break;
	}
	free(t);
	return 0;
}
