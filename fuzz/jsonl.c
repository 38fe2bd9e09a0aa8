/* jsonl.c — fuzz the JSON Lines reader: one object per line, a partial
 * last line skipped, every value type, escapes. */
#include "common.h"
#include "out/jsonl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = fuzz_text(data, size);
	lbt_jobj o = {0};
	lbt_err e;
	if (line && lbt_jobj_parse(&o, line, &e) == LBT_OK) {
		double v;
		for (int i = 0; i < o.n; i++)
			if (lbt_jobj_get(&o, o.f[i].key) == NULL)
				abort(); /* every parsed key is found again */
		lbt_jobj_num(&o, "steps", &v);
		lbt_jobj_str(&o, "run_key");
	}
	lbt_jobj_free(&o);
	free(line);
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof path);
	if (fd >= 0) {
		lbt_jsonl l = {0};
		if (lbt_jsonl_load(&l, path, &e) == LBT_OK)
			lbt_jsonl_free(&l);
		close(fd);
	}
	return 0;
}
