/* npy.c — fuzz the .npy reader: header (magic, version, the dict literal,
 * the shape's limits, the size check) and, for small arrays, the data. */
#include "common.h"
#include "core/npy_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size ? size : 1, "rb");
	if (!f)
		return 0;
	lbt_npy_info h;
	lbt_err e;
	if (size && lbt_npy_fparse(f, "fuzz.npy", (int64_t)size, &h, &e) == LBT_OK) {
		int64_t P = lbt_shape_pes(&h.shape);
		if (P < 1 || P > LBT_MAX_PES)
			abort(); /* a header that passed must describe a valid torus */
		if (P <= (1 << 16)) {
			double *d = malloc((size_t)P * sizeof *d);
			int32_t *i = malloc((size_t)P * sizeof *i);
			if (d && i)
				lbt_npy_fdata(f, "fuzz.npy", &h, h.real ? NULL : i, h.real ? d : NULL, &e);
			free(d);
			free(i);
		}
	}
	fclose(f);
	return 0;
}
