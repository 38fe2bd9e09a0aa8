/* sweep_spec.c — what a sweep runs: lists of items per axis, from the
 * command line or a spec file, and the plan of distinct runs they make.
 *
 * A value is a comma-separated list of items. An item whose last
 * colon-separated field is a range stands for one item per number:
 *   LO..HI     LO, LO+1, ..., HI
 *   LO..HI+S   LO, LO+S, LO+2S, ... up to HI
 *   LO..HI*F   LO, LO*F, LO*F^2, ... up to HI      (F >= 2)
 * so "seed = 1..10", "init = worst:1..16*2", "until = steps:0..100+25",
 * "method = ca:k=0..4" (a method's parameter: fos:alpha=A, de:lambda=L, ca:k=K;
 * several joined by colons, luling-monien:f=1.5:delta=2..8, the range last).
 * Shapes have families: "ring:8..2048*2" (rings of P = 8, 16, ..., 2048) and
 * "torusD:K" for the symmetric D-dimensional K^D ("torus2:8..256*2" = 8x8 ...
 * 256x256; the boundary axis still decides torus or mesh). Since commas
 * separate items, a shape is written with x (64x128) and a per-axis boundary
 * with / (torus/mesh). Every item is checked when it is added; every
 * combination (boundary arity, init vs shape, steps vs max_steps) when the
 * plan is built, before anything runs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/input.h"
#include "lbtorus/init.h"
#include "lbtorus/run.h"
#include "lbtorus/number.h"
#include "lbtorus/sweep.h"

static const char *const axis_names[LBT_NAXES] = {"method", "shape", "boundary", "init", "until", "workload", "seed"};
static const char *const defaults[LBT_NAXES] = {"lm-c5", NULL, "torus", "worst:5", "balanced", "none", "1"};

const char *lbt_spec_axis_name(int axis) { return axis_names[axis]; }

int lbt_spec_axis_find(const char *name)
{
	char k[32];
	size_t n = strlen(name);
	if (n >= sizeof k)
		return -1;
	for (size_t i = 0; i <= n; i++)
		k[i] = name[i] == '-' ? '_' : name[i];
	if (n > 1 && k[n - 1] == 's' && strcmp(k, "max_steps"))
		k[n - 1] = 0; /* plural: methods, shapes, seeds ... */
	if (!strcmp(k, "boundarie"))
		return LBT_AX_BOUNDARY;
	if (!strcmp(k, "max_steps") || !strcmp(k, "max_step"))
		return LBT_NAXES;
	if (!strcmp(k, "warmup"))
		return LBT_NAXES + 1;
	for (int a = 0; a < LBT_NAXES; a++)
		if (!strcmp(k, axis_names[a]))
			return a;
	return -1;
}

void lbt_spec_init(lbt_spec *sp)
{
	memset(sp, 0, sizeof *sp);
	sp->max_steps = 1000000;
}

void lbt_spec_free(lbt_spec *sp)
{
	for (int a = 0; a < LBT_NAXES; a++) {
		for (int64_t i = 0; i < sp->n[a]; i++)
			free(sp->item[a][i]);
		free(sp->item[a]);
	}
	lbt_spec_init(sp);
}

static int push(lbt_spec *sp, int a, const char *text, lbt_err *e)
{
	if (sp->n[a] >= LBT_SWEEP_MAX_RUNS)
		return lbt_errf(e, LBT_EINVAL, "more than %d %ss", LBT_SWEEP_MAX_RUNS, axis_names[a]);
	if (sp->n[a] == sp->cap[a]) {
		int64_t cap = sp->cap[a] ? 2 * sp->cap[a] : 16;
		char **it = realloc(sp->item[a], (size_t)cap * sizeof *it);
		if (!it)
			return lbt_errf(e, LBT_ENOMEM, "no memory for the sweep's items");
		sp->item[a] = it;
		sp->cap[a] = cap;
	}
	if (!(sp->item[a][sp->n[a]] = strdup(text)))
		return lbt_errf(e, LBT_ENOMEM, "no memory for the sweep's items");
	sp->n[a]++;
	return LBT_OK;
}

/* prefix + the shortest %g text that reads back as x. */
static void shortest(char *buf, size_t n, const char *prefix, double x)
{
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, n, "%s%.*g", prefix, p, x);
		if (strtod(buf + strlen(prefix), NULL) == x)
			return;
	}
}

/* An item's parameters are its fields after the method's name, NAME=VALUE
 * each; a field without '=' continues the value before it, so a value that
 * holds a colon (partners=local:3) needs no quoting. */
int lbt_method_split(const char *item, char *name, size_t n, lbt_method_args *a, lbt_err *e)
{
	const char *colon = strchr(item, ':');
	size_t len = colon ? (size_t)(colon - item) : strlen(item);
	if (len >= n)
		return lbt_errf(e, LBT_EINVAL, "unknown method '%s' (lbtorus run --help lists them)", item);
	memcpy(name, item, len);
	name[len] = 0;
	const lbt_method *m = lbt_method_find(name);
	if (!m)
		return lbt_errf(e, LBT_EINVAL, "unknown method '%s' (lbtorus run --help lists them)", name);
	memset(a, 0, sizeof *a);
	for (const char *f = colon; f; f = strchr(f + 1, ':')) {
		const char *fe = strchr(f + 1, ':'), *eq = strchr(f + 1, '=');
		const size_t fl = fe ? (size_t)(fe - f - 1) : strlen(f + 1);
		if (!eq || (fe && eq > fe)) { /* no '=': the previous value goes on */
			const size_t vl = a->n ? strlen(a->value[a->n - 1]) : 0;
			if (!a->n || vl + 1 + fl >= sizeof a->value[0])
				return lbt_errf(e, LBT_EINVAL, "method '%s': write each parameter as NAME=VALUE, joined by colons "
				                "(luling-monien:delta=4:f=1.5)", item);
			snprintf(a->value[a->n - 1] + vl, sizeof a->value[0] - vl, ":%.*s", (int)fl, f + 1);
			continue;
		}
		char key[64] = "";
		if ((size_t)(eq - f - 1) < sizeof key)
			snprintf(key, sizeof key, "%.*s", (int)(eq - f - 1), f + 1);
		const lbt_param *p = *key ? lbt_param_find(m, key) : NULL;
		const size_t vl = fl - (size_t)(eq - f);
		if (!p || vl >= sizeof a->value[0]) {
			char takes[256];
			lbt_params_describe(m, takes, sizeof takes);
			return lbt_errf(e, LBT_EINVAL, "method '%s': %s takes %s%s", item, name,
			                !*takes ? "no parameters" : m->nparams == 1 ? "one parameter: " : "parameters, joined by colons: ",
			                takes);
		}
		for (int i = 0; i < a->n; i++)
			if (a->p[i] == p)
				return lbt_errf(e, LBT_EINVAL, "method '%s': %s is given twice", item,
				                p->short_name ? p->short_name : p->name);
		a->p[a->n] = p;
		snprintf(a->value[a->n], sizeof a->value[0], "%.*s", (int)vl, eq + 1);
		a->n++;
	}
	for (int i = 0; i < a->n; i++) {
		lbt_param_value v;
		char why[160];
		if (lbt_param_parse(a->p[i], a->value[i], &v, why, sizeof why))
			return lbt_errf(e, LBT_EINVAL, "method '%s': %s is %s", item,
			                a->p[i]->short_name ? a->p[i]->short_name : a->p[i]->name, why);
	}
	return LBT_OK;
}

/* A method's canonical text: the parameters in the schema's order, numbers
 * as their shortest text (alpha=0.20 is alpha=0.2). */
static int canon_method(const char *item, char *buf, size_t n, lbt_err *e)
{
	char name[64];
	lbt_method_args args;
	int st = lbt_method_split(item, name, sizeof name, &args, e);
	if (st)
		return st;
	const lbt_method *m = lbt_method_find(name);
	size_t used = (size_t)snprintf(buf, n, "%s", name);
	for (int i = 0; i < m->nparams; i++)
		for (int j = 0; j < args.n; j++) {
			const lbt_param *p = args.p[j];
			if (p != &m->params[i])
				continue;
			char pre[96], val[192];
			snprintf(pre, sizeof pre, ":%s=", p->short_name ? p->short_name : p->name);
			lbt_param_value v;
			char why[8];
			lbt_param_parse(p, args.value[j], &v, why, sizeof why); /* checked by lbt_method_split */
			if (v.word)
				snprintf(val, sizeof val, "%s%s", pre, args.value[j]);
			else
				shortest(val, sizeof val, pre, strtod(args.value[j], NULL)); /* alpha=0.20 is alpha=0.2 */
			used += (size_t)snprintf(buf + used, n - used, "%s", val);
		}
	return LBT_OK;
}

/* A shape's canonical text; the families ring:P and torusD:K spelled out. */
static int canon_shape(const char *item, char *buf, size_t n, lbt_err *e)
{
	lbt_shape s;
	const char *ext = item;
	int d = 0;
	if (!strncmp(item, "ring:", 5)) {
		d = 1;
		ext = item + 5;
	} else if (!strncmp(item, "torus", 5) && item[5] >= '1' && item[5] <= '8' && item[6] == ':') {
		d = item[5] - '0';
		ext = item + 7;
	} else if (strchr(item, ':'))
		return lbt_errf(e, LBT_EINVAL, "shape '%s': families are ring:P and torusD:K (D = 1..%d)", item, LBT_MAXD);
	if (d) {
		if (!*ext || strspn(ext, "0123456789") != strlen(ext) || strlen(ext) > 12)
			return lbt_errf(e, LBT_EINVAL, "shape '%s': expected a number or a range after ':'", item);
		size_t used = 0;
		for (int i = 0; i < d; i++)
			used += (size_t)snprintf(buf + used, n - used, i ? "x%s" : "%s", ext);
		item = buf;
	}
	int st = lbt_shape_parse(&s, item, e);
	if (!st)
		lbt_shape_format(&s, buf, n);
	return st;
}

/* A boundary's canonical text: axes separated by ',' (given with '/'). */
static int canon_boundary(const char *item, char *buf, size_t n, lbt_err *e)
{
	lbt_shape s = {.dims = LBT_MAXD};
	size_t len = strlen(item);
	if (len >= n)
		return lbt_errf(e, LBT_EINVAL, "boundary '%s' is too long", item);
	int axes = 1;
	for (size_t i = 0; i <= len; i++) {
		buf[i] = item[i] == '/' ? ',' : item[i];
		axes += item[i] == '/';
	}
	s.dims = axes;
	if (lbt_boundary_parse(&s, buf, e) || axes > LBT_MAXD)
		return lbt_errf(e, LBT_EINVAL, "boundary '%s': use torus, mesh, or one per axis like torus/mesh", item);
	return LBT_OK;
}

static int canon_init(const char *item, char *buf, size_t n, lbt_err *e)
{
	lbt_init in;
	int st = lbt_init_parse(&in, item, e);
	if (st)
		return st;
	switch (in.kind) {
	case LBT_INIT_POINT: snprintf(buf, n, "point:%lld", (long long)in.a); break;
	case LBT_INIT_WORST: snprintf(buf, n, "worst:%lld", (long long)in.a); break;
	case LBT_INIT_CONST: snprintf(buf, n, "const:%lld", (long long)in.a); break;
	case LBT_INIT_HALF: snprintf(buf, n, "half:%lld", (long long)in.a); break;
	case LBT_INIT_UNIFORM: snprintf(buf, n, "uniform:%lld:%lld", (long long)in.a, (long long)in.b); break;
	default: snprintf(buf, n, "file:%s", in.path);
	}
	return LBT_OK;
}

static int canon_until(const char *item, char *buf, size_t n, lbt_err *e)
{
	lbt_until u;
	int st = lbt_until_parse(&u, item, e);
	if (st)
		return st;
	if (u.kind == LBT_UNTIL_STEPS)
		snprintf(buf, n, "steps:%lld", (long long)u.steps);
	else if (u.kind == LBT_UNTIL_REL)
		shortest(buf, n, "rel:", u.rel);
	else
		snprintf(buf, n, "%s", lbt_until_name(u.kind));
	return LBT_OK;
}

/* Check one expanded item and append its canonical text. */
static int add_one(lbt_spec *sp, int a, const char *item, lbt_err *e)
{
	char buf[4300];
	int st;
	switch (a) {
	case LBT_AX_METHOD: st = canon_method(item, buf, sizeof buf, e); break;
	case LBT_AX_SHAPE: st = canon_shape(item, buf, sizeof buf, e); break;
	case LBT_AX_BOUNDARY: st = canon_boundary(item, buf, sizeof buf, e); break;
	case LBT_AX_INIT: st = canon_init(item, buf, sizeof buf, e); break;
	case LBT_AX_UNTIL: st = canon_until(item, buf, sizeof buf, e); break;
	case LBT_AX_WORKLOAD: { /* the syntax here; whether it suits the method, in the plan */
		lbt_workload w;
		lbt_err ignore;
		if (lbt_workload_parse(&w, item, LBT_LOAD_INT, &ignore) && (st = lbt_workload_parse(&w, item, LBT_LOAD_REAL, e)))
			return st;
		return push(sp, a, w.spec, e);
	}
	default: {
		uint64_t v;
		if ((st = lbt_parse_u64(item, 0, UINT64_MAX, "seed", &v, e)))
			return st;
		snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
	}
	}
	return st ? st : push(sp, a, buf, e);
}

static int parse_num(const char *p, const char *end, long long *v)
{
	if (p == end || end - p > 15 || strspn(p, "0123456789") < (size_t)(end - p))
		return -1;
	*v = strtoll(p, NULL, 10);
	return 0;
}

/* Expand a range in the item's last field, if it has one. */
static int add_item(lbt_spec *sp, int a, const char *item, lbt_err *e)
{
	const char *colon = strrchr(item, ':'), *eq = strrchr(item, '=');
	if (eq > colon)
		colon = eq; /* a method parameter: ca:k=0..4 */
	const char *tail = colon ? colon + 1 : item;
	const char *dots = strstr(tail, "..");
	if (!dots || (a == LBT_AX_INIT && !strncmp(item, "file:", 5)))
		return add_one(sp, a, item, e);
	const char *hi = dots + 2, *op = hi + strcspn(hi, "+*");
	long long lo, h, by = 1;
	int mul = *op == '*';
	if (parse_num(tail, dots, &lo) || parse_num(hi, op, &h) || (*op && parse_num(op + 1, op + strlen(op), &by)))
		return lbt_errf(e, LBT_EINVAL, "%s '%s': write a range as LO..HI, LO..HI+STEP or LO..HI*FACTOR", axis_names[a], item);
	if (h < lo)
		return lbt_errf(e, LBT_EINVAL, "%s '%s': the range ends below its start", axis_names[a], item);
	if (mul ? by < 2 || lo < 1 : by < 1)
		return lbt_errf(e, LBT_EINVAL, "%s '%s': %s", axis_names[a], item,
		                mul ? "a geometric range needs FACTOR >= 2 and LO >= 1" : "STEP must be at least 1");
	if (!mul && (h - lo) / by >= LBT_SWEEP_MAX_RUNS)
		return lbt_errf(e, LBT_EINVAL, "%s '%s': more than %d items", axis_names[a], item, LBT_SWEEP_MAX_RUNS);
	char buf[4400];
	int pre = (int)(tail - item);
	if (pre + 24 > (int)sizeof buf)
		return lbt_errf(e, LBT_EINVAL, "%s '%s' is too long", axis_names[a], item);
	for (long long v = lo; v <= h; v = mul ? v * by : v + by) {
		snprintf(buf, sizeof buf, "%.*s%lld", pre, item, v);
		int st = add_one(sp, a, buf, e);
		if (st)
			return st;
		if (mul && v > h / by)
			break;
	}
	return LBT_OK;
}

/* "8,8" lists the ring of 8 twice: surely one 8x8 torus was meant (which
 * `8x8` writes), so an extent written alone that the value already wrote
 * alone before `at` is refused. */
static int ring_twice(const char *value, const char *at, const char *item, lbt_err *e)
{
	const size_t n = strlen(item);
	if (strspn(item, "0123456789") != n)
		return LBT_OK;
	for (const char *p = value; p < at; p += strcspn(p, ",") + 1) {
		if ((p += strspn(p, " \t")) >= at)
			break; /* the item itself */
		size_t k = strspn(p, "0123456789");
		if (k && p[k + strspn(p + k, " \t")] == ',' && strtoll(p, NULL, 10) == strtoll(item, NULL, 10))
			return lbt_errf(e, LBT_EINVAL, "shape '%s' lists the ring of %s twice: write %sx%s for one %sx%s torus "
			                "(a comma separates the shapes of a list)", value, item, item, item, item, item);
	}
	return LBT_OK;
}

int lbt_spec_add(lbt_spec *sp, int axis, const char *value, lbt_err *e)
{
	if (axis >= LBT_NAXES) { /* max_steps, warmup: one number for the sweep */
		const char *what = axis == LBT_NAXES ? "max_steps" : "warmup";
		char text[32];
		size_t n = strlen(value);
		while (n && (value[n - 1] == ' ' || value[n - 1] == '\t'))
			n--;
		snprintf(text, sizeof text, "%.*s", (int)(n < sizeof text - 1 ? n : sizeof text - 1), value);
		int64_t v;
		int st = n < sizeof text ? lbt_parse_i64(text, 0, INT64_MAX, what, &v, e)
		                         : lbt_errf(e, LBT_EINVAL, "%s '%.40s...' is out of range: give 0..%lld", what, value, (long long)INT64_MAX);
		if (st)
			return st;
		if (axis == LBT_NAXES) {
			sp->max_steps = v;
			sp->max_steps_set = 1;
		} else {
			sp->warmup = v;
			sp->warmup_set = 1;
		}
		return LBT_OK;
	}
	const char *p = value;
	for (;;) {
		const char *c = strchr(p, ',');
		size_t n = c ? (size_t)(c - p) : strlen(p);
		while (n && (*p == ' ' || *p == '\t')) p++, n--;
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
		if (!n)
			return lbt_errf(e, LBT_EINVAL, "%s '%s': empty item (items are separated by single commas)", axis_names[axis], value);
		char *item = strndup(p, n);
		if (!item)
			return lbt_errf(e, LBT_ENOMEM, "no memory");
		int st = axis == LBT_AX_SHAPE ? ring_twice(value, p, item, e) : LBT_OK;
		if (!st)
			st = add_item(sp, axis, item, e);
		free(item);
		if (st)
			return st;
		if (!c)
			return LBT_OK;
		p = c + 1;
	}
}

int lbt_spec_read(lbt_spec *sp, const char *path, lbt_err *e)
{
	FILE *f;
	int st = lbt_in_open(path, "spec file", &f, e), ln = 0;
	if (st)
		return st;
	char *line = NULL;
	size_t cap = 0, len;
	lbt_err sub;
	for (;;) {
		if ((st = lbt_in_line(f, &line, &cap, &len, &sub)))
			lbt_errf(e, st, "%s:%d: %s", path, ln + 1, sub.msg);
		if (st || !len)
			break;
		ln++;
		if (memchr(line, 0, len)) { /* string functions would stop there: found by fuzzing */
			st = lbt_errf(e, LBT_EINVAL, "%s:%d: a NUL byte in the line (not a text file?)", path, ln);
			break;
		}
		char *h = line;
		while ((h = strchr(h, '#')) && h != line && h[-1] != ' ' && h[-1] != '\t')
			h++; /* '#' starts a comment at the line's start or after a blank */
		if (h)
			*h = 0;
		char *p = line + strspn(line, " \t\r\n");
		size_t n = strlen(p);
		while (n && strchr(" \t\r\n", p[n - 1])) p[--n] = 0;
		if (!n)
			continue;
		char *eq = strchr(p, '=');
		if (!eq) {
			st = lbt_errf(e, LBT_EINVAL, "%s:%d: expected 'key = value', got '%s'", path, ln, p);
			break;
		}
		char *k = p, *v = eq + 1;
		for (char *q = eq; q > k && (q[-1] == ' ' || q[-1] == '\t'); q--) q[-1] = 0;
		*eq = 0;
		v += strspn(v, " \t");
		int axis = lbt_spec_axis_find(k);
		if (axis < 0) {
			st = lbt_errf(e, LBT_EINVAL, "%s:%d: unknown key '%s' (use method, shape, boundary, init, until, workload, seed, max_steps, warmup)", path, ln, k);
			break;
		}
		if (!*v) {
			st = lbt_errf(e, LBT_EINVAL, "%s:%d: '%s' has no value", path, ln, k);
			break;
		}
		if ((st = lbt_spec_add(sp, axis, v, &sub))) {
			lbt_errf(e, st, "%s:%d: %s", path, ln, sub.msg);
			break;
		}
	}
	free(line);
	fclose(f);
	return st;
}

int lbt_spec_merge(lbt_spec *sp, const lbt_spec *over, int fill_defaults, lbt_err *e)
{
	for (int a = 0; a < LBT_NAXES; a++) {
		if (sp->n[a])
			continue;
		for (int64_t i = 0; over && i < over->n[a]; i++) {
			int st = push(sp, a, over->item[a][i], e);
			if (st)
				return st;
		}
		if (!sp->n[a] && fill_defaults && defaults[a]) {
			int st = lbt_spec_add(sp, a, defaults[a], e);
			if (st)
				return st;
		}
	}
	if (!sp->max_steps_set && over && over->max_steps_set) {
		sp->max_steps = over->max_steps;
		sp->max_steps_set = 1;
	}
	if (!sp->warmup_set && over && over->warmup_set) {
		sp->warmup = over->warmup;
		sp->warmup_set = 1;
	}
	if (fill_defaults && !sp->n[LBT_AX_SHAPE])
		return lbt_errf(e, LBT_EINVAL, "no shape: give --shape (e.g. --shape ring:8..2048*2) or 'shape =' in the spec file");
	return LBT_OK;
}
