/* specs.c — fuzz the run's value specs a command line or sweep spec reaches:
 * the first byte picks one (workload, speeds, link), the rest is its text.
 * What parses must hold what the run relies on: finite numbers, integers
 * where the form has them (issue 31, items 6, 7, 9). */
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
	switch (data[0] % 3) {
	case 0: {
		lbt_workload w;
		for (int k = 0; k < 2; k++)
			if (lbt_workload_parse(&w, t, k ? LBT_LOAD_REAL : LBT_LOAD_INT, &e) == LBT_OK) {
				for (int i = 0; i < LBT_WORKLOAD_ARGS; i++)
					if (!isfinite(w.arg[i]) || fabs(w.arg[i]) > 2147483647.0)
						abort(); /* every field within its range */
				if (w.tasks && (w.arg[0] != floor(w.arg[0]) || w.arg[0] < 1))
					abort(); /* a tree's branching is an integer */
				lbt_shape s;
				if (lbt_shape_parse(&s, "16384x16385", &e) == LBT_OK && w.tasks &&
				    lbt_workload_fits(&w, &s, &e) == LBT_OK)
					abort(); /* not one level of counts fits on 2^28 + 16384 PEs */
			}
		break;
	}
	case 1: {
		lbt_speeds sp;
		if (lbt_speeds_parse(&sp, t, &e) == LBT_OK && sp.kind != LBT_SPEEDS_FILE)
			for (int i = 0; i < sp.n; i++)
				if (!(sp.v[i] >= 1e-6 && sp.v[i] <= 1e6))
					abort();
		break;
	}
	case 2: {
		lbt_net n;
		if (lbt_link_parse(&n, t, &e) == LBT_OK && !(isfinite(n.lat) && isfinite(n.bw) && n.bw > 0 && n.lat >= 0))
			abort();
		break;
	}
	}
	free(t);
	return 0;
}
