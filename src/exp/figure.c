/* figure.c — a user's results as a figure: `lbtorus plot`.
 *
 * Points come from results files (.jsonl: one per record, x and y its keys,
 * the method with its parameters as the run key gives it) and traces (.csv:
 * one per row, x and y its columns; '#' lines are comments). They are grouped
 * by the group key's value (for a trace: a column, else the "# key: value"
 * line of its header, which names the run's inputs; else its file name),
 * and within a group averaged over equal x (the seeds of one
 * configuration): the mean, with an error bar of one standard error
 * sd/sqrt(m) where m >= 2 points share x. A fit (fit.c) uses every point,
 * not the means. Groups are in text order and points in x order, so the
 * files depend on the points, not on the order of records (a sweep appends
 * in the order runs finish).
 *
 * Files: STEM.csv (the means: group,x,n,y_mean,y_se,y_min,y_max), STEM.py
 * (matplotlib: reads STEM.csv, draws the figure as STEM_mpl.png and .svg, the fit
 * and its band from the numbers written into it), STEM.fit.json (one JSON
 * object per group: the fit, its intervals, the provenance and the inputs'
 * SHA-256), and through lbt_plot STEM.dat, STEM.gp, STEM.png, STEM.svg. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/figure.h"
#include "lbtorus/io.h"
#include "lbtorus/plot.h"
#include "lbtorus/provenance.h"
#include "core/input.h"
#include "core/sha256.h"
#include "exp/records.h"
#include "out/jsonl.h"

typedef struct {
	int g;
	double x, y;
} point;

typedef struct {
	point *p;
	int64_t n, cap;
	char label[LBT_FIGURE_MAX_GROUPS][128];
	int ng;
} pointset;

static int add_point(pointset *s, const char *label, double x, double y, lbt_err *e)
{
	int g = 0;
	while (g < s->ng && strcmp(s->label[g], label))
		g++;
	if (g == s->ng) {
		if (s->ng == LBT_FIGURE_MAX_GROUPS)
			return lbt_errf(e, LBT_EINVAL, "more than %d groups: choose another --group", LBT_FIGURE_MAX_GROUPS);
		snprintf(s->label[s->ng++], sizeof s->label[0], "%s", label);
	}
	if (s->n == s->cap) {
		int64_t cap = s->cap ? 2 * s->cap : 1024;
		point *p = realloc(s->p, (size_t)cap * sizeof *p);
		if (!p)
			return lbt_errf(e, LBT_ENOMEM, "no memory for the points");
		s->p = p;
		s->cap = cap;
	}
	s->p[s->n++] = (point){g, x, y};
	return LBT_OK;
}

static const char *base_name(const char *path, char *buf, size_t n)
{
	const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t l = strlen(b);
	if (l > 4 && !strcmp(b + l - 4, ".csv"))
		l -= 4;
	snprintf(buf, n, "%.*s", (int)l, b);
	return buf;
}

static int read_jsonl(pointset *s, const char *path, const lbt_figure_opts *o, int64_t *skipped, lbt_err *e)
{
	lbt_jsonl l = {0};
	int st = lbt_jsonl_load(&l, path, e);
	int64_t used = 0;
	for (int64_t i = 0; !st && i < l.n; i++) {
		const lbt_jobj *r = &l.rec[i];
		double x, y;
		if (!lbt_jobj_num(r, o->x, &x) || !lbt_jobj_num(r, o->y, &y)) {
			(*skipped)++;
			continue;
		}
		char label[128] = "all";
		if (o->group && !strcmp(o->group, "method"))
			lbt_record_input(r, "method", label, sizeof label); /* with its parameters */
		else if (o->group) {
			const lbt_jfield *f = lbt_jobj_get(r, o->group);
			snprintf(label, sizeof label, "%s", f && f->type != LBT_JNULL ? f->str : "—");
			if (f && f->type == LBT_JBOOL)
				snprintf(label, sizeof label, "%s", f->num ? "true" : "false");
		}
		st = add_point(s, label, x, y, e);
		used++;
	}
	if (!st && !used)
		st = lbt_errf(e, LBT_EINVAL, "%s: no record has numbers at both %s and %s", path, o->x, o->y);
	lbt_jsonl_free(&l);
	return st;
}

/* The index of column name in a CSV header line, or -1. */
static int column(const char *header, const char *name)
{
	int c = 0;
	size_t n = strlen(name);
	for (const char *p = header;; c++) {
		size_t k = strcspn(p, ",\r\n");
		if (k == n && !strncmp(p, name, n))
			return c;
		if (p[k] != ',')
			return -1;
		p += k + 1;
	}
}

static int field(const char *line, int c, double *v)
{
	const char *p = line;
	for (int i = 0; i < c; i++) {
		p = strchr(p, ',');
		if (!p)
			return 0;
		p++;
	}
	char *end;
	*v = strtod(p, &end);
	return end != p && (*end == ',' || *end == '\n' || *end == '\r' || !*end) && isfinite(*v);
}

static int read_csv(pointset *s, const char *path, const lbt_figure_opts *o, int64_t *skipped, lbt_err *e)
{
	FILE *f;
	int st = lbt_in_open(path, "trace", &f, e);
	if (st)
		return st;
	char *line = NULL, *header = NULL, glabel[128] = "";
	size_t cap = 0, len;
	int cx = -1, cy = -1, cg = -1;
	int64_t ln = 0, used = 0;
	lbt_err sub;
	for (;;) {
		if ((st = lbt_in_line(f, &line, &cap, &len, &sub))) {
			lbt_errf(e, st, "%s:%lld: %s", path, (long long)ln + 1, sub.msg);
			break;
		}
		if (!len)
			break;
		ln++;
		const size_t gl = o->group ? strlen(o->group) : 0;
		if (!header && gl && !strncmp(line, "# ", 2) && !strncmp(line + 2, o->group, gl) && line[2 + gl] == ':')
			snprintf(glabel, sizeof glabel, "%.*s", (int)strcspn(line + 3 + gl + (line[3 + gl] == ' '), "\r\n"),
			         line + 3 + gl + (line[3 + gl] == ' ')); /* "# method: fos" of the trace's header */
		if (line[0] == '#' || strspn(line, " \t\r\n") == len)
			continue;
		if (!header) {
			if (!(header = strdup(line))) {
				st = lbt_errf(e, LBT_ENOMEM, "no memory");
				break;
			}
			cx = column(header, o->x), cy = column(header, o->y), cg = o->group ? column(header, o->group) : -1;
			if (cx < 0 || cy < 0) {
				st = lbt_errf(e, LBT_EINVAL, "%s: no column %s in its header (%.*s)", path, cx < 0 ? o->x : o->y,
				              (int)strcspn(header, "\r\n"), header);
				break;
			}
			continue;
		}
		double x, y, gv;
		if (!field(line, cx, &x) || !field(line, cy, &y)) {
			(*skipped)++;
			continue;
		}
		char label[128];
		if (cg >= 0 && field(line, cg, &gv))
			snprintf(label, sizeof label, "%s=%g", o->group, gv);
		else if (*glabel)
			snprintf(label, sizeof label, "%s", glabel);
		else
			base_name(path, label, sizeof label);
		if ((st = add_point(s, label, x, y, e)))
			break;
		used++;
	}
	if (!st && !header)
		st = lbt_errf(e, LBT_EINVAL, "%s: no header row (a trace of lbtorus run --trace)", path);
	if (!st && !used)
		st = lbt_errf(e, LBT_EINVAL, "%s: no row has numbers at both %s and %s", path, o->x, o->y);
	free(line);
	free(header);
	fclose(f);
	return st;
}

static const pointset *sort_set;
static int by_group_x(const void *a, const void *b)
{
	const point *p = a, *q = b;
	int c = strcmp(sort_set->label[p->g], sort_set->label[q->g]);
	if (c)
		return c;
	if (p->x != q->x)
		return (p->x > q->x) - (p->x < q->x);
	return (p->y > q->y) - (p->y < q->y);
}

/* The means over equal x of group points p[0..n): into mx, my, se (NAN
 * where one point), ylo, yhi, cnt; returns how many. */
static int64_t means(const point *p, int64_t n, double *mx, double *my, double *se, double *ylo, double *yhi, int64_t *cnt)
{
	int64_t k = 0;
	for (int64_t i = 0; i < n;) {
		int64_t j = i;
		double sum = 0;
		while (j < n && p[j].x == p[i].x)
			sum += p[j++].y;
		const double m = sum / (double)(j - i);
		double ss = 0;
		for (int64_t t = i; t < j; t++)
			ss += (p[t].y - m) * (p[t].y - m);
		mx[k] = p[i].x;
		my[k] = m;
		se[k] = j - i >= 2 ? sqrt(ss / (double)(j - i - 1) / (double)(j - i)) : NAN;
		ylo[k] = p[i].y; /* sorted by y within x */
		yhi[k] = p[j - 1].y;
		cnt[k] = j - i;
		k++;
		i = j;
	}
	return k;
}

static void fit_text(char *buf, size_t n, const lbt_fit *f)
{
	if (f->kind == LBT_FIT_POWER)
		snprintf(buf, n, "y = %.4g x^%.4g", f->a, f->b);
	else
		snprintf(buf, n, "y = %.4g + %.4g x", f->a, f->b);
}

static void py_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		fprintf(f, *s == '\'' || *s == '\\' ? "\\%c" : "%c", *s);
	fputc('\'', f);
}

static int write_py(const char *stem, const char *base, const lbt_figure_opts *o, const pointset *s,
                    const lbt_figure_result *r, lbt_err *e)
{
	char path[4200];
	snprintf(path, sizeof path, "%s.py", stem);
	lbt_outfile out;
	int st = lbt_out_open(&out, path, e);
	if (st)
		return st;
	FILE *f = out.f;
	fprintf(f, "#!/usr/bin/env python3\n# %s.py — written by lbtorus plot; remake the figure (%s_mpl.png, .svg) with:\n"
	        "#   python3 %s.py\n# It reads %s.csv (the means over seeds); edit freely.\n", base, base, base, base);
	lbt_provenance_comment(f, "", 0);
	fputs("import csv\nimport math\nimport os\n\nimport matplotlib\nmatplotlib.use('Agg')\n"
	      "import matplotlib.pyplot as plt\n\nHERE = os.path.dirname(os.path.abspath(__file__))\n", f);
	fputs("STEM = os.path.join(HERE, ", f);
	py_str(f, base);
	fputs(")\nX, Y = ", f);
	py_str(f, o->x);
	fputs(", ", f);
	py_str(f, o->y);
	fprintf(f, "\nLOGX, LOGY = %s, %s\nTITLE = ", o->logx ? "True" : "False", o->logy ? "True" : "False");
	py_str(f, o->title ? o->title : "");
	fputs("\n# group -> (kind, a, b, n, mean of u, Suu, s^2, t): u = x (linear) or ln x (power), the\n"
	      "# 95 % band of the mean response: fit +- t sqrt(s^2 (1/n + (u - mean u)^2 / Suu)) in v = y or ln y\n"
	      "NAN = float('nan')\nFITS = {\n", f);
	for (int g = 0; g < s->ng; g++) {
		const lbt_fit *ft = &r->fit[g];
		if (ft->kind == LBT_FIT_NONE)
			continue;
		fputs("    ", f);
		py_str(f, s->label[g]);
		fprintf(f, ": ('%s', %.17g, %.17g, %lld, %.17g, %.17g, ", lbt_fit_name(ft->kind), ft->a, ft->b,
		        (long long)ft->n, ft->ubar, ft->suu);
		fprintf(f, isfinite(ft->s2) ? "%.17g, " : "NAN, ", ft->s2);
		fprintf(f, isfinite(ft->t) ? "%.17g),\n" : "NAN),\n", ft->t);
	}
	fputs("}\n\n"
	      "groups = {}\n"
	      "with open(STEM + '.csv') as f:\n"
	      "    for row in csv.DictReader(line for line in f if not line.startswith('#')):\n"
	      "        g = groups.setdefault(row['group'], ([], [], []))\n"
	      "        g[0].append(float(row['x']))\n"
	      "        g[1].append(float(row['y_mean']))\n"
	      "        g[2].append(float(row['y_se']) if row['y_se'] else 0.0)\n"
	      "\n"
	      "fig, ax = plt.subplots(figsize=(6.4, 4.8))\n"
	      "for i, (name, (xs, ys, se)) in enumerate(sorted(groups.items())):\n"
	      "    colour = f'C{i % 10}'\n"
	      "    ax.errorbar(xs, ys, yerr=se, fmt='o' if name in FITS else 'o-', ms=3, capsize=2, color=colour,\n"
	      "                label=name)\n"
	      "    if name not in FITS:\n"
	      "        continue\n"
	      "    kind, a, b, n, ubar, suu, s2, t = FITS[name]\n"
	      "    lo, hi = min(xs), max(xs)\n"
	      "    grid = [lo * (hi / lo) ** (k / 99) if LOGX else lo + (hi - lo) * k / 99 for k in range(100)]\n"
	      "    fit, band_lo, band_hi = [], [], []\n"
	      "    for x in grid:\n"
	      "        u = math.log(x) if kind == 'power' else x\n"
	      "        v = (math.log(a) if kind == 'power' else a) + b * u\n"
	      "        h = t * math.sqrt(s2 * (1 / n + (u - ubar) ** 2 / suu)) if s2 == s2 else 0.0\n"
	      "        back = math.exp if kind == 'power' else (lambda z: z)\n"
	      "        fit.append(back(v))\n"
	      "        band_lo.append(back(v - h))\n"
	      "        band_hi.append(back(v + h))\n"
	      "    text = f'y = {a:.4g} x^{b:.4g}' if kind == 'power' else f'y = {a:.4g} + {b:.4g} x'\n"
	      "    ax.plot(grid, fit, '-', color=colour, label=f'{name}: {text}')\n"
	      "    ax.fill_between(grid, band_lo, band_hi, color=colour, alpha=0.2, lw=0)\n"
	      "if LOGX:\n    ax.set_xscale('log')\nif LOGY:\n    ax.set_yscale('log')\n"
	      "ax.set_xlabel(X)\nax.set_ylabel(Y)\nif TITLE:\n    ax.set_title(TITLE)\n"
	      "ax.legend(fontsize='small')\nfig.tight_layout()\n"
	      "fig.savefig(STEM + '_mpl.png', dpi=150)\nfig.savefig(STEM + '_mpl.svg')\n", f);
	return lbt_out_commit(&out, e);
}

static int write_csv(const char *stem, const pointset *s, const double *mx, const double *my, const double *se,
                     const double *ylo, const double *yhi, const int64_t *cnt, const int *mg, int64_t nm, lbt_err *e)
{
	char path[4200];
	snprintf(path, sizeof path, "%s.csv", stem);
	lbt_outfile out;
	int st = lbt_out_open(&out, path, e);
	if (st)
		return st;
	lbt_provenance_comment(out.f, "", 0);
	fputs("group,x,n,y_mean,y_se,y_min,y_max\n", out.f);
	for (int64_t i = 0; i < nm; i++) {
		const char *l = s->label[mg[i]];
		if (strpbrk(l, ",\"\n")) { /* RFC 4180 quoting */
			fputc('"', out.f);
			for (; *l; l++)
				fprintf(out.f, *l == '"' ? "\"\"" : "%c", *l);
			fputc('"', out.f);
		} else
			fputs(l, out.f);
		fprintf(out.f, ",%.17g,%lld,%.17g,", mx[i], (long long)cnt[i], my[i]);
		if (isfinite(se[i]))
			fprintf(out.f, "%.17g", se[i]);
		fprintf(out.f, ",%.17g,%.17g\n", ylo[i], yhi[i]);
	}
	return lbt_out_commit(&out, e);
}

static void jnum(FILE *f, const char *k, double v)
{
	fprintf(f, ",\"%s\":", k);
	lbt_json_number(f, v, 10);
}

static int write_fits(const char *stem, const lbt_figure_opts *o, const pointset *s, const lbt_figure_result *r,
                      lbt_err *e)
{
	char path[4200];
	snprintf(path, sizeof path, "%s.fit.json", stem);
	char (*hex)[65] = calloc((size_t)o->ninputs, sizeof *hex);
	if (!hex)
		return lbt_errf(e, LBT_ENOMEM, "no memory");
	int st = LBT_OK;
	for (int i = 0; !st && i < o->ninputs; i++)
		st = lbt_sha256_file(o->inputs[i], hex[i], e);
	lbt_outfile out;
	if (!st)
		st = lbt_out_open(&out, path, e);
	if (st) {
		free(hex);
		return st;
	}
	FILE *f = out.f;
	for (int g = 0; g < s->ng; g++) {
		const lbt_fit *ft = &r->fit[g];
		fprintf(f, "{\"lbtorus\":\"%s\",\"group\":", LBT_VERSION);
		lbt_json_string(f, s->label[g]);
		fputs(",\"x\":", f);
		lbt_json_string(f, o->x);
		fputs(",\"y\":", f);
		lbt_json_string(f, o->y);
		fprintf(f, ",\"points\":%lld,\"fit\":\"%s\"", (long long)r->points[g], lbt_fit_name(ft->kind));
		if (ft->kind != LBT_FIT_NONE) {
			jnum(f, "a", ft->a);
			jnum(f, "a_ci95_lo", ft->a_lo);
			jnum(f, "a_ci95_hi", ft->a_hi);
			jnum(f, "b", ft->b);
			jnum(f, "b_ci95_lo", ft->b_lo);
			jnum(f, "b_ci95_hi", ft->b_hi);
			jnum(f, "r2", ft->r2);
		}
		for (int i = 0; i < o->ninputs; i++) {
			char key[4200];
			snprintf(key, sizeof key, "input:%s", o->inputs[i]);
			fputc(',', f);
			lbt_json_string(f, key);
			fprintf(f, ":\"%s\"", hex[i]);
		}
		lbt_provenance_json(f, "", 0);
		fputs("}\n", f);
	}
	free(hex);
	return lbt_out_commit(&out, e);
}

/* Groups renumbered in text order, points sorted by group and x. */
static void sort_points(pointset *s)
{
	int order[LBT_FIGURE_MAX_GROUPS], rank[LBT_FIGURE_MAX_GROUPS];
	char label[LBT_FIGURE_MAX_GROUPS][128];
	for (int g = 0; g < s->ng; g++)
		order[g] = g;
	for (int i = 1; i < s->ng; i++) /* insertion sort: at most 64 */
		for (int j = i; j > 0 && strcmp(s->label[order[j - 1]], s->label[order[j]]) > 0; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (int g = 0; g < s->ng; g++) {
		rank[order[g]] = g;
		snprintf(label[g], sizeof label[g], "%s", s->label[order[g]]);
	}
	memcpy(s->label, label, sizeof label[0] * (size_t)s->ng);
	for (int64_t i = 0; i < s->n; i++)
		s->p[i].g = rank[s->p[i].g];
	sort_set = s;
	if (s->n > 1)
		qsort(s->p, (size_t)s->n, sizeof *s->p, by_group_x);
}

/* Every input's points into s: results files (.jsonl) and traces (.csv). */
static int figure_read(const lbt_figure_opts *o, pointset *s, lbt_figure_result *r, lbt_err *e)
{
	if (!o->ninputs)
		return lbt_errf(e, LBT_EINVAL, "plot: name at least one results file (.jsonl) or trace (.csv)");
	int st = LBT_OK;
	for (int i = 0; !st && i < o->ninputs; i++) {
		const char *in = o->inputs[i];
		size_t l = strlen(in);
		if (l > 6 && !strcmp(in + l - 6, ".jsonl"))
			st = read_jsonl(s, in, o, &r->skipped, e);
		else if (l > 4 && !strcmp(in + l - 4, ".csv"))
			st = read_csv(s, in, o, &r->skipped, e);
		else
			st = lbt_errf(e, LBT_EINVAL, "plot: %s is neither a results file (.jsonl) nor a trace (.csv)", in);
	}
	return st;
}

/* Group g's fitted curve over [x0, x1] into curve (4 x 100: x, the fit, the
 * band's low and high), and its series (the band only where the fit has
 * one) appended to ser[*ns...]. */
static void fit_series(const lbt_figure_opts *o, const lbt_fit *ft, const char *label, int g, double x0, double x1,
                       double *curve, char labels[2][200], lbt_series *ser, int *ns)
{
	double *cx = curve, *cy = cx + 100, *cl = cy + 100, *ch = cl + 100;
	for (int i = 0; i < 100; i++) {
		cx[i] = o->logx && x0 > 0 ? x0 * pow(x1 / x0, i / 99.0) : x0 + (x1 - x0) * i / 99.0;
		lbt_fit_eval(ft, cx[i], &cy[i], &cl[i], &ch[i]);
	}
	char text[96];
	fit_text(text, sizeof text, ft);
	snprintf(labels[0], 200, "%s: %s", label, text);
	snprintf(labels[1], 200, "%s: 95%% confidence band", label);
	ser[(*ns)++] = (lbt_series){.label = labels[0], .x = cx, .y = cy, .n = 100, .draw = LBT_DRAW_LINE,
	                            .colour = g % 8 + 1};
	if (isfinite(ft->t)) { /* no band from two points */
		ser[(*ns)++] = (lbt_series){.label = labels[1], .x = cx, .y = cl, .n = 100, .draw = LBT_DRAW_LINE,
		                            .dash = 2, .colour = g % 8 + 1};
		ser[(*ns)++] = (lbt_series){.label = "", .x = cx, .y = ch, .n = 100, .draw = LBT_DRAW_LINE,
		                            .dash = 2, .colour = g % 8 + 1};
	}
}

int lbt_figure(const lbt_figure_opts *o, lbt_figure_result *r, lbt_err *e)
{
	memset(r, 0, sizeof *r);
	pointset s = {0};
	int st = figure_read(o, &s, r, e);
	if (st) {
		free(s.p);
		return st;
	}
	sort_points(&s);
	r->ngroups = s.ng;
	const int64_t n = s.n;
	/* the means (7 arrays of n), the raw points of a group (2 of n), and per
	 * group a fitted curve with its band (4 x 100) */
	double *buf = malloc((size_t)(9 * n + 400 * s.ng) * sizeof *buf);
	int64_t *cnt = malloc((size_t)n * sizeof *cnt);
	int *mg = malloc((size_t)n * sizeof *mg);
	lbt_series *ser = calloc((size_t)(4 * s.ng), sizeof *ser);
	char (*labels)[2][200] = calloc((size_t)s.ng, sizeof *labels);
	if (!buf || !cnt || !mg || !ser || !labels)
		st = lbt_errf(e, LBT_ENOMEM, "no memory for %lld points", (long long)n);
	int ns = 0;
	int64_t nm = 0;
	double *mx = buf, *my = mx + n, *se = my + n, *ylo = se + n, *yhi = ylo + n, *bl = yhi + n, *bh = bl + n;
	double *px = bh + n, *py = px + n, *curve = py + n;
	for (int64_t at = 0, g = 0; !st && g < s.ng; g++) {
		int64_t end = at;
		while (end < n && s.p[end].g == g)
			end++;
		snprintf(r->label[g], sizeof r->label[0], "%s", s.label[g]);
		r->points[g] = end - at;
		for (int64_t i = at; i < end; i++)
			px[i - at] = s.p[i].x, py[i - at] = s.p[i].y;
		if (o->fit != LBT_FIT_NONE) {
			lbt_err sub;
			if ((st = lbt_fit_points(&r->fit[g], o->fit, px, py, end - at, &sub))) {
				lbt_errf(e, st, "plot: group %s: %s", s.label[g], sub.msg);
				break;
			}
		}
		const int64_t k = means(s.p + at, end - at, mx + nm, my + nm, se + nm, ylo + nm, yhi + nm, cnt + nm);
		int bars = 0;
		for (int64_t i = nm; i < nm + k; i++) { /* error bars: the mean -+ one standard error */
			mg[i] = (int)g;
			bars |= isfinite(se[i]);
			bl[i] = isfinite(se[i]) ? my[i] - se[i] : my[i];
			bh[i] = isfinite(se[i]) ? my[i] + se[i] : my[i];
		}
		ser[ns++] = (lbt_series){.label = s.label[g], .x = mx + nm, .y = my + nm, .n = k,
		                         .draw = o->fit != LBT_FIT_NONE ? LBT_DRAW_MARKS
		                                 : k > 60 && !bars ? LBT_DRAW_LINE : LBT_DRAW_POINTS, /* a time series: a line */
		                         .colour = (int)g % 8 + 1, .lo = bars ? bl + nm : NULL, .hi = bars ? bh + nm : NULL};
		if (o->fit != LBT_FIT_NONE)
			fit_series(o, &r->fit[g], s.label[g], (int)g, mx[nm], mx[nm + k - 1], curve + 400 * g, labels[g], ser,
			           &ns);
		nm += k;
		at = end;
	}
	const char *base = strrchr(o->stem, '/') ? strrchr(o->stem, '/') + 1 : o->stem;
	if (!st)
		st = write_csv(o->stem, &s, mx, my, se, ylo, yhi, cnt, mg, nm, e);
	if (!st)
		st = write_fits(o->stem, o, &s, r, e);
	if (!st)
		st = write_py(o->stem, base, o, &s, r, e);
	if (!st) {
		lbt_axes ax = {.title = o->title, .xlabel = o->x, .ylabel = o->y, .logx = o->logx, .logy = o->logy,
		               .key = "outside right top"};
		lbt_err pe;
		int ps = lbt_plot(o->stem, &ax, ser, ns, &pe);
		r->drawn = !ps;
		if (ps && ps != LBT_EUNSUP) /* without gnuplot: the data, scripts and fits all the same */
			st = lbt_errf(e, ps, "plot: %s", pe.msg);
	}
	free(buf);
	free(cnt);
	free(mg);
	free(ser);
	free(labels);
	free(s.p);
	return st;
}
