/* until.c — the vocabulary of a run: criteria by name, stop reasons,
 * default options and the bounds a record quotes (the workloads: workload.c). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lbtorus/number.h"
#include "lbtorus/run.h"

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
	else
		return lbt_errf(e, LBT_EINVAL, "unknown criterion '%s': use shared, balanced, flat, steps:N, rel:X or done", text);
	return LBT_OK;
}

const char *lbt_until_name(lbt_until_kind k)
{
	static const char *const n[] = {"shared", "balanced", "flat", "steps", "rel", "shared+balanced", "done"};
	return n[k];
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
