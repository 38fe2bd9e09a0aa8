/* spec.c — fuzz the sweep-spec parser (key = value lines, lists, ranges,
 * families, method parameters) and, for small sweeps, the plan built from it. */
#include "common.h"
#include "lbtorus/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A range of 10^5 items or more ("ring:8..600000") is valid and takes
	 * about a microsecond an item, tens of seconds under ASan on a busy
	 * machine: slow, not stuck. The harness leaves such inputs out so the
	 * fuzzer spends its time elsewhere. */
	for (size_t i = 0; i + 2 < size; i++)
		if (data[i] == '.' && data[i + 1] == '.') {
			size_t d = 0;
			while (i + 2 + d < size && data[i + 2 + d] >= '0' && data[i + 2 + d] <= '9')
				d++;
			if (d >= 5)
				return 0;
		}
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof path);
	if (fd < 0)
		return 0;
	lbt_spec sp, full;
	lbt_err e;
	lbt_spec_init(&sp);
	lbt_spec_init(&full);
	if (lbt_spec_read(&sp, path, &e) == LBT_OK && lbt_spec_merge(&full, &sp, 1, &e) == LBT_OK) {
		int64_t runs = 1;
		for (int a = 0; a < LBT_NAXES; a++)
			runs *= full.n[a] ? full.n[a] : 1;
		for (int64_t i = 0; i < full.n[LBT_AX_INIT]; i++)
			if (!strncmp(full.item[LBT_AX_INIT][i], "file:", 5))
				runs = INT64_MAX; /* the plan would open any path the input names (a tty, a FIFO) */
		lbt_plan pl;
		if (runs <= 64 && lbt_plan_build(&pl, &full, &e) == LBT_OK)
			lbt_plan_free(&pl);
	}
	lbt_spec_free(&sp);
	lbt_spec_free(&full);
	close(fd);
	return 0;
}
