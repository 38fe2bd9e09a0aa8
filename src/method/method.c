/* method.c — the table of methods a run can name, and what every method
 * shares: its parameter schema turned into parsing, messages and JSON keys,
 * opening and closing, the kernel view. The table is LBT_METHODS of
 * family.h (docs/engine.md: adding a method). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/number.h"
#include "family.h"
#include "out/jsonl.h"

#define LBT_METHOD_ADDRESS(m) &m,
static const lbt_method *const table[] = {LBT_METHODS(LBT_METHOD_ADDRESS) NULL};
#undef LBT_METHOD_ADDRESS

const lbt_method *const *lbt_methods(void) { return table; }

const lbt_method *lbt_method_find(const char *name)
{
	for (const lbt_method *const *m = table; *m; m++)
		if (!strcmp((*m)->name, name))
			return *m;
	return NULL;
}

/* name matches p's name, its option spelling (ca-k) or its short name. */
static int param_named(const lbt_param *p, const char *name)
{
	if (p->short_name && !strcmp(p->short_name, name))
		return 1;
	size_t i = 0;
	for (; p->name[i] && name[i]; i++)
		if (p->name[i] != name[i] && !(p->name[i] == '_' && name[i] == '-'))
			return 0;
	return !p->name[i] && !name[i];
}

const lbt_param *lbt_param_find(const lbt_method *m, const char *name)
{
	for (int i = 0; i < m->nparams; i++)
		if (param_named(&m->params[i], name))
			return &m->params[i];
	return NULL;
}

int lbt_params_all(const lbt_param **all, int n)
{
	int k = 0;
	for (const lbt_method *const *m = table; *m; m++)
		for (int i = 0; i < (*m)->nparams; i++) {
			int seen = 0;
			for (int j = 0; j < k; j++)
				seen |= !strcmp(all[j]->name, (*m)->params[i].name);
			if (!seen && k < n)
				all[k++] = &(*m)->params[i];
		}
	return k;
}

/* "0 < lambda <= 1", "alpha > 0", "0 <= k <= 1000000" */
static void range_text(const lbt_param *p, char *buf, size_t n)
{
	const char *nm = p->short_name ? p->short_name : p->name;
	if (isinf(p->hi))
		snprintf(buf, n, "%s %s %.15g", nm, p->lo_open ? ">" : ">=", p->lo);
	else
		snprintf(buf, n, "%.15g %s %s <= %.15g", p->lo, p->lo_open ? "<" : "<=", nm, p->hi);
}

int lbt_param_parse(const lbt_param *p, const char *text, lbt_param_value *v, char *why, size_t n)
{
	memset(v, 0, sizeof *v);
	v->text = text;
	const char *num = text; /* where the number starts */
	int bare = 1;           /* a bare number is a value */
	if (p->words) /* a whole comma-separated item, or "word:" and a number */
		for (const char *w = p->words; *w; w += strcspn(w, ","), w += *w == ',') {
			size_t l = strcspn(w, ",");
			if (w[l - 1] == ':') {
				bare = 0;
				if (!strncmp(w, text, l)) {
					v->word = w;
					num = text + l;
				}
			} else if (strlen(text) == l && !strncmp(w, text, l)) {
				v->word = w;
				return LBT_OK;
			}
		}
	double x = 0; /* the one number parser (lbtorus/number.h): an integer parameter takes digits only */
	int ok = bare || num != text;
	if (ok && p->type == LBT_PARAM_INT) {
		int64_t i, lo = (int64_t)(p->lo_open ? floor(p->lo) + 1 : ceil(p->lo));
		ok = !lbt_parse_i64(num, lo, isinf(p->hi) ? INT64_MAX : (int64_t)floor(p->hi), "", &i, NULL);
		x = (double)i;
	} else if (ok)
		ok = !lbt_parse_f64(num, p->lo, p->hi, p->lo_open, "", &x, NULL);
	if (ok) {
		v->num = x;
		return LBT_OK;
	}
	char range[96];
	range_text(p, range, sizeof range);
	const char *kind = p->type == LBT_PARAM_INT ? "an integer" : "a number";
	if (!bare) { /* "global or local:N with 1 <= N <= 1000000" */
		size_t len = 0;
		for (const char *w = p->words; *w && len < n; w += strcspn(w, ","), w += *w == ',') {
			int l = (int)strcspn(w, ",");
			len += (size_t)snprintf(why + len, n - len, "%s%.*s%s", w == p->words ? "" : " or ", l, w,
			                        w[l - 1] == ':' ? "N" : "");
		}
		if (len < n)
			snprintf(why + len, n - len, " with %.15g %s N <= %.15g", p->lo, p->lo_open ? "<" : "<=", p->hi);
	} else if (p->words) {
		char words[96];
		snprintf(words, sizeof words, "%s", p->words);
		char *last = strrchr(words, ',');
		if (last)
			*last = 0;
		snprintf(why, n, "%s with %s, %s or %s", kind, range, words, last ? last + 1 : "");
		if (!last)
			snprintf(why, n, "%s with %s or %s", kind, range, words);
	} else
		snprintf(why, n, "%s with %s", kind, range);
	return LBT_EINVAL;
}

void lbt_params_describe(const lbt_method *m, char *buf, size_t n)
{
	buf[0] = 0;
	size_t len = 0;
	for (int i = 0; i < m->nparams && len < n; i++) {
		const lbt_param *p = &m->params[i];
		const char *nm = p->short_name ? p->short_name : p->name;
		len += (size_t)snprintf(buf + len, n - len, "%s%s=%c (%s)", i ? ", " : "", nm,
		                        nm[0] >= 'a' && nm[0] <= 'z' ? nm[0] - 'a' + 'A' : nm[0], m->name);
	}
}

void lbt_params_json(FILE *f, const lbt_state *st)
{
	const lbt_method *m = st->method;
	for (int i = 0; i < m->nparams; i++) {
		const lbt_param *p = &m->params[i];
		const lbt_param_value *v = &st->param[i];
		fprintf(f, ",\"%s\":", p->name);
		if (v->word) {
			char w[64];
			int l = (int)strcspn(v->word, ",");
			if (v->word[l - 1] == ':')
				snprintf(w, sizeof w, "%.*s%lld", l, v->word, (long long)v->num);
			else
				snprintf(w, sizeof w, "%.*s", l, v->word);
			lbt_json_string(f, w);
		} else if (p->type == LBT_PARAM_INT)
			fprintf(f, "%lld", (long long)v->num);
		else
			lbt_json_number(f, v->num, 17);
	}
	if (m->gamma) {
		double g = m->gamma(st);
		fputs(",\"gamma\":", f);
		lbt_json_number(f, g >= 0 ? g : NAN, 17);
	}
}

int lbt_method_open(lbt_state *st, lbt_err *e)
{
	st->ws = NULL;
	return st->method->open ? st->method->open(st, e) : LBT_OK;
}

void lbt_method_close(lbt_state *st)
{
	if (st->method && st->method->close)
		st->method->close(st);
	st->ws = NULL;
}

void lbt_state_view(const lbt_state *st, lbt_view *v)
{
	const lbt_grid *g = &st->grid;
	memset(v, 0, sizeof *v);
	v->load = g->load;
	v->dims = g->shape.dims;
	for (int d = 0; d < v->dims && d < LBT_MAXD; d++) {
		v->ext[d] = g->shape.ext[d];
		v->stride[d] = g->stride[d];
		v->torus[d] = g->shape.bnd[d] == LBT_TORUS;
	}
	v->threads = st->threads > 0 ? st->threads : 1;
	v->real = g->real;
	v->step = st->step;
	v->seed = st->seed;
	v->cut = g->cut;
	for (int d = 0; d < v->dims && d < LBT_MAXD; d++)
		v->origin[d] = lbt_grid_lo(g, d);
}

void lbt_method_view(const lbt_state *st, lbt_view *v)
{
	lbt_state_view(st, v);
	v->scratch = st->ws;
}

int lbt_scratch_method_open(lbt_state *st, lbt_err *e)
{
	if (!(st->method->flags & LBT_M_SCRATCH)) /* the memory estimate would leave it out */
		return lbt_errf(e, LBT_EINTERNAL, "%s opens the kernels' scratch without LBT_M_SCRATCH", st->method->name);
	lbt_scratch *s = calloc(1, sizeof *s);
	if (!s)
		return lbt_errf(e, LBT_ENOMEM, "no memory for %s's workspace", st->method->name);
	lbt_view v;
	lbt_state_view(st, &v);
	if (lbt_scratch_open(s, &v, st->grid.cells, st->grid.origin)) {
		free(s);
		return lbt_errf(e, LBT_ENOMEM, "no memory for %s's scratch (%lld cells)", st->method->name,
		                (long long)st->grid.cells);
	}
	st->ws = s;
	return LBT_OK;
}

void lbt_scratch_method_close(lbt_state *st)
{
	if (st->ws)
		lbt_scratch_close(st->ws);
	free(st->ws);
	st->ws = NULL;
}
