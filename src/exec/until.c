/* until.c — the vocabulary of a run: criteria by name, stop reasons,
 * default options and the bounds a record quotes (the workloads: workload.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lbtorus/number.h"
#include "lbtorus/run.h"

/* Every criterion: its name (the JSON's "until"), how --until writes it, what it means. */
static const struct {
	const char *name, *syntax, *help;
} kinds[LBT_UNTIL_KINDS] = {
	[LBT_UNTIL_SHARED] = {"shared", "shared", "every PE holds load (min > 0)"},
	[LBT_UNTIL_BALANCED] = {"balanced", "balanced", "max - min <= D (Henrich 1996, Definition 2)"},
	[LBT_UNTIL_FLAT] = {"flat", "flat", "max - min <= 1"},
	[LBT_UNTIL_STEPS] = {"steps", "steps:N", "exactly N steps"},
	[LBT_UNTIL_REL] = {"rel", "rel:X", "||w - mean|| / ||w0 - mean|| <= X (e.g. rel:1e-6)"},
	[LBT_UNTIL_SHARED_BALANCED] = {"shared+balanced", "shared+balanced", "both shared and balanced have held, not necessarily at once"},
	[LBT_UNTIL_DONE] = {"done", "done", "no task is left anywhere (total 0: a search tree is finished)"},
};

const char *lbt_until_name(lbt_until_kind k) { return kinds[k].name; }
const char *lbt_until_syntax(lbt_until_kind k) { return kinds[k].syntax; }
const char *lbt_until_help(lbt_until_kind k) { return kinds[k].help; }

int lbt_until_parse(lbt_until *u, const char *text, lbt_err *e)
{
	memset(u, 0, sizeof *u);
	if (!strcmp(text, "shared")) u->kind = LBT_UNTIL_SHARED;
	else if (!strcmp(text, "balanced")) u->kind = LBT_UNTIL_BALANCED;
	else if (!strcmp(text, "flat")) u->kind = LBT_UNTIL_FLAT;
	else if (!strncmp(text, "steps:", 6)) {
		int64_t n;
		if (lbt_parse_i64(text + 6, 0, INT64_MAX, "steps:N", &n, e))
			return lbt_errf(e, LBT_EINVAL, "criterion '%s': write steps:N with N in 0..%lld", text, (long long)INT64_MAX);
		u->kind = LBT_UNTIL_STEPS;
		u->steps = n;
	} else if (!strncmp(text, "rel:", 4)) {
		double x;
		if (lbt_parse_f64(text + 4, 0, 1, 1, "rel:X", &x, e) || x == 1)
			return lbt_errf(e, LBT_EINVAL, "criterion '%s': write rel:X with 0 < X < 1, e.g. rel:1e-6", text);
		u->kind = LBT_UNTIL_REL;
		u->rel = x;
	} else if (!strcmp(text, "shared+balanced"))
		u->kind = LBT_UNTIL_SHARED_BALANCED;
	else if (!strcmp(text, "done"))
		u->kind = LBT_UNTIL_DONE;
	else {
		char all[256] = "";
		for (int k = 0; k < LBT_UNTIL_KINDS; k++)
			snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", k ? ", " : "", kinds[k].syntax);
		return lbt_errf(e, LBT_EINVAL, "unknown criterion '%s': use one of %s", text, all);
	}
	return LBT_OK;
}

int64_t lbt_bound_dkl(const lbt_shape *s, int64_t ldiff)
{
	return (int64_t)lbt_shape_active_dims(s) * lbt_shape_kmax(s) * ldiff;
}

int64_t lbt_bound_lower_steps(const lbt_shape *s, int32_t max, int64_t total)
{ /* ceil((max - total/P) / D) = ceil((max*P - total) / (P*D)), exactly */
	__int128 P = lbt_shape_pes(s), D = lbt_shape_active_dims(s);
	__int128 num = (__int128)max * P - total, den = P * D;
	if (D == 0 || num <= 0)
		return 0;
	return (int64_t)((num + den - 1) / den);
}

int64_t lbt_bound_lower_balanced(const lbt_shape *s, int32_t max, int64_t total)
{
	int64_t P = lbt_shape_pes(s), D = lbt_shape_active_dims(s);
	int64_t num = (int64_t)max - total / P - D;
	return D == 0 || num <= 0 ? 0 : (num + D - 1) / D;
}

double lbt_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

const char *lbt_stop_name(lbt_stop s)
{
	static const char *const n[] = {"until", "max_steps", "stalled", "cycle", "interrupted", "detected"};
	return n[s];
}

static const volatile sig_atomic_t *default_interrupt;

void lbt_run_interrupt_default(const volatile sig_atomic_t *flag) { default_interrupt = flag; }

lbt_run_opts lbt_run_opts_default(void)
{
	lbt_run_opts o;
	memset(&o, 0, sizeof o);
	o.version = LBT_RUN_OPTS_VERSION;
	o.interrupt = default_interrupt;
	o.until.kind = LBT_UNTIL_BALANCED;
	o.max_steps = 1000000;
	o.detect_cycles = 1;
	return o;
}
