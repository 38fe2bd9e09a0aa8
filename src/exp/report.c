/* report.c — `lbtorus report`: a results file as Markdown a researcher can
 * paste into an appendix.
 *
 * Rows are configurations (method, shape, boundary, init and workload, until); the
 * numbers are medians over the configuration's records (its seeds) with
 * their range [min–max] where the seeds differ, taken over the records where
 * the quantity exists (a criterion never reached has no step) and marked *
 * when some records lacked it. Runs stopped at their step cap (censored:
 * their criterion step is beyond the cap) are counted per row. Everything else the
 * directory holds that a reader should see is picked up by name: bound.json
 * (from lbtorus bound), *.png plots (linked with their .svg), and *.md tables
 * other commands leave there (embedded, headings demoted three levels; not
 * README.md, not reports like this one, which start "# Results: "). The
 * output depends only on the records, not on their order in the file. Its
 * tables are also written as LaTeX beside it (report.tex). */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lbtorus/io.h"
#include "lbtorus/provenance.h"
#include "lbtorus/report.h"
#include "core/input.h"
#include "core/sha256.h"
#include "exp/records.h"
#include "out/latex.h"

static const lbt_jsonl *recs; /* for the qsort comparator */

static const char *s_of(const lbt_jobj *o, const char *k)
{
	const char *s = lbt_jobj_str(o, k);
	return s ? s : "";
}
static double n_of(const lbt_jobj *o, const char *k)
{
	double v;
	return lbt_jobj_num(o, k, &v) ? v : -1;
}

/* Text with numbers compared as numbers: uniform:1:8 before uniform:1:128. */
static int natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			char *ea, *eb;
			unsigned long long x = strtoull(a, &ea, 10), y = strtoull(b, &eb, 10);
			if (x != y)
				return (x > y) - (x < y);
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		a++, b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

static int cmp_group(const lbt_jobj *a, const lbt_jobj *b)
{
	int c;
	char ma[128], mb[128];
	if ((c = natcmp(s_of(a, "workload"), s_of(b, "workload")))) /* "" without one: the static runs first */
		return c;
	if ((c = natcmp(lbt_record_input(a, "method", ma, sizeof ma), lbt_record_input(b, "method", mb, sizeof mb))))
		return c;
	double x = n_of(a, "dims"), y = n_of(b, "dims");
	if (x != y) return (x > y) - (x < y);
	x = n_of(a, "pes"), y = n_of(b, "pes");
	if (x != y) return (x > y) - (x < y);
	if ((c = strcmp(s_of(a, "shape"), s_of(b, "shape")))) return c;
	if ((c = strcmp(s_of(a, "boundary"), s_of(b, "boundary")))) return c;
	if ((c = natcmp(s_of(a, "init"), s_of(b, "init")))) return c;
	x = n_of(a, "warmup"), y = n_of(b, "warmup");
	if (x != y) return (x > y) - (x < y);
	return natcmp(lbt_record_input(a, "until", ma, sizeof ma), lbt_record_input(b, "until", mb, sizeof mb));
}

static int cmp_idx(const void *p, const void *q)
{
	int64_t i = *(const int64_t *)p, j = *(const int64_t *)q;
	int c = cmp_group(&recs->rec[i], &recs->rec[j]);
	if (c)
		return c;
	double x = n_of(&recs->rec[i], "seed"), y = n_of(&recs->rec[j], "seed");
	return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void num_text(char *buf, size_t sz, double v)
{
	if ((v == floor(v) || fabs(v) >= 1000) && fabs(v) < 1e15)
		snprintf(buf, sz, "%.0f", v);
	else
		snprintf(buf, sz, "%.4g", v);
}

/* The median of key over records idx[0..n), with [min–max] where they
 * differ, as table text. */
static void median(char *buf, size_t sz, const int64_t *idx, int64_t n, const char *key, double *tmp)
{
	int64_t m = 0;
	for (int64_t i = 0; i < n; i++)
		if (lbt_jobj_num(&recs->rec[idx[i]], key, &tmp[m]))
			m++;
	if (!m) {
		snprintf(buf, sz, "—");
		return;
	}
	qsort(tmp, (size_t)m, sizeof *tmp, cmp_double);
	char v[32], lo[32], hi[32];
	num_text(v, sizeof v, m % 2 ? tmp[m / 2] : 0.5 * (tmp[m / 2 - 1] + tmp[m / 2]));
	if (tmp[0] == tmp[m - 1]) {
		snprintf(buf, sz, "%s%s", v, m < n ? "*" : "");
		return;
	}
	num_text(lo, sizeof lo, tmp[0]);
	num_text(hi, sizeof hi, tmp[m - 1]);
	snprintf(buf, sz, "%s%s [%s–%s]", v, m < n ? "*" : "", lo, hi);
}

static const char *const cols[][2] = { /* key, heading */
	{"initial_ldiff", "Ldiff"}, {"steps", "steps"}, {"shifts", "shifts"}, {"shared_step", "shared at"},
	{"balanced_step", "balanced at"}, {"flat_step", "flat at"}, {"moved", "moved"},
	{"dkl_bound", "D·K·Ldiff"}, {"balanced_over_dkl", "balanced / D·K·Ldiff"},
	{"balanced_lower_bound_steps", "lower bound"},
};
#define NCOLS (sizeof cols / sizeof cols[0])

/* The columns of a workload's table: each shown only where some record of
 * the table holds it. */
static const char *const dcols[][2] = { /* key, heading */
	{"steps", "steps"}, {"warmup", "warmup"}, {"sqdev_mean", "sqdev_mean ± se"}, {"generated", "generated"},
	{"completed", "completed"}, {"idle_total", "idle"}, {"nodes", "nodes"}, {"efficiency", "efficiency"},
	{"ideal_efficiency", "ideal efficiency"}, {"moved", "moved"},
};
#define NDCOLS (sizeof dcols / sizeof dcols[0])

/* Over seeds: the mean of the records' sqdev_mean (independent estimates),
 * ± sqrt(sum se_i^2)/n, the standard error of that mean; "—" for a part no
 * record gives. */
static void sqdev_cell(char *buf, size_t sz, const int64_t *idx, int64_t n)
{
	double sum = 0, var = 0, v, se;
	int64_t m = 0, with_se = 0;
	for (int64_t i = 0; i < n; i++)
		if (lbt_jobj_num(&recs->rec[idx[i]], "sqdev_mean", &v)) {
			sum += v;
			m++;
			if (lbt_jobj_num(&recs->rec[idx[i]], "sqdev_se", &se)) {
				var += se * se;
				with_se++;
			}
		}
	if (!m) {
		snprintf(buf, sz, "—");
		return;
	}
	char a[32], b[32];
	snprintf(a, sizeof a, "%.4g", sum / (double)m);
	if (with_se == m) {
		snprintf(b, sizeof b, "%.2g", sqrt(var) / (double)m);
		snprintf(buf, sz, "%s ± %s%s", a, b, m < n ? "*" : "");
	} else
		snprintf(buf, sz, "%s%s", a, m < n ? "*" : "");
}

static int holds(const int64_t *idx, int64_t n, const char *key)
{
	double v;
	for (int64_t i = 0; i < n; i++)
		if (lbt_jobj_num(&recs->rec[idx[i]], key, &v))
			return 1;
	return 0;
}

/* Tables: the runs without a workload one per method, with the static
 * columns; those with one a table per workload, a row per method and
 * configuration, with the columns their records hold. */
static void tables(FILE *f, const int64_t *idx, int64_t n, int *starred, int64_t *censored, int *dynamic,
                   int *statics)
{
	double *tmp = malloc((size_t)(n ? n : 1) * sizeof *tmp);
	char method[128] = "", workload[128] = "", label[128];
	int first = 1;
	char cell[128];
	int shown[NDCOLS] = {0};
	for (int64_t g = 0; g < n;) {
		const lbt_jobj *o = &recs->rec[idx[g]];
		int64_t e = g + 1;
		while (e < n && !cmp_group(o, &recs->rec[idx[e]]))
			e++;
		lbt_record_input(o, "method", label, sizeof label);
		const char *wl = s_of(o, "workload");
		if (*wl && (first || strcmp(workload, wl))) { /* a workload's table: its columns from its records */
			first = 0;
			*dynamic = 1;
			snprintf(workload, sizeof workload, "%s", wl);
			int64_t t = g;
			while (t < n && !strcmp(s_of(&recs->rec[idx[t]], "workload"), wl))
				t++;
			fprintf(f, "\n### Workload %s\n\n| method | shape | P | boundary | init | until | seeds |", wl);
			for (size_t c = 0; c < NDCOLS; c++)
				if ((shown[c] = holds(idx + g, t - g, dcols[c][0])))
					fprintf(f, " %s |", dcols[c][1]);
			fputs("\n|---|---|--:|---|---|---|--:|", f);
			for (size_t c = 0; c < NDCOLS; c++)
				if (shown[c])
					fputs("--:|", f);
			fputc('\n', f);
		} else if (!*wl && (first || strcmp(method, label))) {
			first = 0;
			*statics = 1;
			snprintf(method, sizeof method, "%s", label);
			fprintf(f, "\n### Method %s\n\n| shape | P | boundary | init | until | seeds | reached |", method);
			for (size_t c = 0; c < NCOLS; c++)
				fprintf(f, " %s |", cols[c][1]);
			fputs("\n|---|--:|---|---|---|--:|--:|", f);
			for (size_t c = 0; c < NCOLS; c++)
				fputs("--:|", f);
			fputc('\n', f);
		}
		char until[64];
		lbt_record_input(o, "until", until, sizeof until);
		if (*wl) {
			fprintf(f, "| %s | %s | %.0f | %s | %s | %s | %lld |", label, s_of(o, "shape"), n_of(o, "pes"),
			        s_of(o, "boundary"), s_of(o, "init"), until, (long long)(e - g));
			for (size_t c = 0; c < NDCOLS; c++) {
				if (!shown[c])
					continue;
				if (!strcmp(dcols[c][0], "sqdev_mean"))
					sqdev_cell(cell, sizeof cell, idx + g, e - g);
				else
					median(cell, sizeof cell, idx + g, e - g, dcols[c][0], tmp);
				*starred |= strchr(cell, '*') != NULL;
				fprintf(f, " %s |", cell);
			}
			fputc('\n', f);
			g = e;
			continue;
		}
		int64_t reached = 0, capped = 0;
		for (int64_t i = g; i < e; i++) {
			const lbt_jfield *r = lbt_jobj_get(&recs->rec[idx[i]], "reached");
			reached += r && r->type == LBT_JBOOL && r->num;
			capped += !strcmp(s_of(&recs->rec[idx[i]], "stop_reason"), "max_steps");
		}
		*censored += capped;
		char cap[48] = "";
		if (capped)
			snprintf(cap, sizeof cap, ", %lld capped", (long long)capped);
		fprintf(f, "| %s | %.0f | %s | %s | %s | %lld | %lld/%lld%s |", s_of(o, "shape"), n_of(o, "pes"),
		        s_of(o, "boundary"), s_of(o, "init"), until, (long long)(e - g), (long long)reached,
		        (long long)(e - g), cap);
		for (size_t c = 0; c < NCOLS; c++) {
			median(cell, sizeof cell, idx + g, e - g, cols[c][0], tmp);
			*starred |= strchr(cell, '*') != NULL;
			fprintf(f, " %s |", cell);
		}
		fputc('\n', f);
		g = e;
	}
	free(tmp);
}

/* What made the report, and what made its records: format 3 records carry
 * their provenance (docs/formats.md); older ones are counted. */
static void provenance(FILE *f, const lbt_jsonl *l, const char *results)
{
	fputs("\n## Provenance\n\n", f);
	int64_t old = 0;
	const char *keys[] = {"git", "host", "cpu", "compiler"};
	for (int64_t i = 0; i < l->n; i++)
		old += !lbt_jobj_str(&l->rec[i], "git");
	if (l->n > old) {
		fputs("The records were made by", f);
		for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) { /* the distinct values, in first-seen order */
			fprintf(f, "%s %s ", k ? ";" : "", keys[k]);
			int shown = 0;
			for (int64_t i = 0; i < l->n && shown < 8; i++) {
				const char *v = lbt_jobj_str(&l->rec[i], keys[k]);
				int seen = !v;
				for (int64_t j = 0; v && !seen && j < i; j++) {
					const char *w = lbt_jobj_str(&l->rec[j], keys[k]);
					seen = w && !strcmp(v, w);
				}
				if (!seen)
					fprintf(f, "%s`%s`", shown++ ? ", " : "", v);
			}
		}
		const char *lo = NULL, *hi = NULL;
		for (int64_t i = 0; i < l->n; i++) {
			const char *d = lbt_jobj_str(&l->rec[i], "date_utc");
			if (d && (!lo || strcmp(d, lo) < 0)) lo = d;
			if (d && (!hi || strcmp(d, hi) > 0)) hi = d;
		}
		if (lo)
			fprintf(f, "; between %s and %s", lo, hi);
		fputs(" (each record's `command` says how).", f);
	}
	if (old)
		fprintf(f, " %lld records carry no provenance (written before version 3 of the formats).", (long long)old);
	char hex[65];
	lbt_err e;
	struct stat sb;
	fprintf(f, "\n\nThis report: `%s`", lbt_provenance_call());
	if (!stat(results, &sb) && S_ISREG(sb.st_mode) && !lbt_sha256_file(results, hex, &e))
		fprintf(f, ", from `%s` (SHA-256 %s)", results, hex);
	fprintf(f, "; lbtorus %s, git %s, %s (%s).\n\n<!-- provenance {\"lbtorus\":\"%s\"", LBT_VERSION, lbt_build_git(),
	        lbt_build_compiler(), lbt_build_flags(), LBT_VERSION);
	lbt_provenance_json(f, "", 0);
	fputs("} -->\n", f);
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void free_list(char **l, int n)
{
	for (int i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

/* Names in dir ending in suffix, sorted, into *out (caller frees); their
 * count, or -1 (nothing in *out) when memory runs out: a list cut short
 * would leave files out of the report without a word. */
static int list(const char *dir, const char *suffix, char ***out)
{
	DIR *d = opendir(dir);
	int n = 0, cap = 0, full = 0;
	*out = NULL;
	if (!d)
		return 0;
	struct dirent *de;
	size_t sl = strlen(suffix);
	while (!full && (de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (de->d_name[0] == '.' || l <= sl || strcmp(de->d_name + l - sl, suffix))
			continue;
		if (n == cap) {
			char **p = realloc(*out, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *p);
			if (!(full = !p))
				*out = p;
		}
		if (!full && !(full = !((*out)[n] = strdup(de->d_name))))
			n++;
	}
	closedir(d);
	if (full) {
		free_list(*out, n);
		*out = NULL;
		return -1;
	}
	if (n > 1) /* qsort(NULL, 0, ...) is undefined */
		qsort(*out, (size_t)n, sizeof **out, cmp_name);
	return n;
}

static int exists(const char *dir, const char *name)
{
	char p[4400];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	struct stat sb;
	return !stat(p, &sb) && S_ISREG(sb.st_mode);
}

static void image(FILE *f, const char *dir, const char *png)
{
	char stem[1016], svg[1024];
	size_t n = strlen(png) - 4; /* png ends in ".png" */
	if (n >= sizeof stem)
		n = sizeof stem - 1;
	memcpy(stem, png, n);
	stem[n] = 0;
	snprintf(svg, sizeof svg, "%s.svg", stem);
	fprintf(f, "![%s](%s)", stem, png);
	if (exists(dir, svg))
		fprintf(f, " ([SVG](%s))", svg);
	fputs("\n\n", f);
}

/* The section on bound's fit, from dir/bound.json if it is there; a
 * bound.json that cannot be read or is not JSON is an error naming it. */
static int bound_section(FILE *f, const char *dir, char **png, int npng, lbt_err *e)
{
	char p[4400];
	snprintf(p, sizeof p, "%s/bound.json", dir);
	if (!exists(dir, "bound.json"))
		return LBT_OK;
	FILE *b;
	int st = lbt_in_open(p, NULL, &b, e);
	if (st)
		return st;
	char *line = NULL;
	size_t cap = 0, len;
	lbt_jobj o = {0};
	lbt_err sub;
	if ((st = lbt_in_line(b, &line, &cap, &len, &sub)) || (len && (st = lbt_jobj_parse(&o, line, &sub))))
		lbt_errf(e, st, "%s:1: %s", p, sub.msg);
	else if (len) {
		double c = n_of(&o, "c_fit"), env = n_of(&o, "c_envelope"), med = n_of(&o, "median_ratio"), pts = n_of(&o, "points");
		fprintf(f, "\n## Theorem 3: T = O(D·K·Ldiff)\n\n"
		        "Theorem 3 of Henrich (1996) bounds the time LM-C5 needs to balance a D-dimensional torus of "
		        "P = K^D PEs by O(D·K·Ldiff), where Ldiff is the initial difference between the most and the "
		        "least loaded PE. Over %.0f runs with every PE loaded at the start, the theorem's premise "
		        "(`bound.csv`, method %s), the measured time T (steps until balanced) was at most "
		        "**%.4g·D·K·Ldiff** in every run. The mean of the ratios T/(D·K·Ldiff) is %.4g",
		        pts, s_of(&o, "method"), env, c);
		double lo, hi, q1, q3, ols, rms;
		if (lbt_jobj_num(&o, "c_fit_ci95_lo", &lo) && lbt_jobj_num(&o, "c_fit_ci95_hi", &hi))
			fprintf(f, " (95 %% confidence interval %.4g–%.4g)", lo, hi);
		if (lbt_jobj_num(&o, "q1_ratio", &q1) && lbt_jobj_num(&o, "q3_ratio", &q3))
			fprintf(f, ", their median %.4g (quartiles %.4g and %.4g, range %.4g–%.4g)", med, q1, q3,
			        n_of(&o, "min_ratio"), env);
		else
			fprintf(f, ", their median %.4g", med);
		if (lbt_jobj_num(&o, "c_fit_absolute", &ols))
			fprintf(f, "; ordinary least squares of T on D·K·Ldiff gives %.4g, a different constant because it is "
			        "set by the largest runs", ols);
		fputc('.', f);
		if (lbt_jobj_num(&o, "rms_rel_residual", &rms) && rms > 0.5)
			fprintf(f, " One constant describes these runs poorly (rms relative residual %.2g): the envelope "
			        "bounds them, the mean ratio does not predict T.", rms);
		double broken = n_of(&o, "premise_broken_points"), cens = n_of(&o, "censored_points");
		if (broken > 0)
			fprintf(f, " %.0f runs started with an idle PE, outside the theorem's premise; they are not fitted "
			        "(their largest ratio: %.4g).", broken, n_of(&o, "premise_broken_max_ratio"));
		if (cens > 0)
			fprintf(f, " %.0f runs stopped at their step cap before balancing (censored: T > cap, ratio > %.4g "
			        "for the largest); they are not fitted.", cens, n_of(&o, "censored_max_ratio_lower"));
		double below = n_of(&o, "runs_below_lower_bound");
		if (below == 0)
			fputs(" No run was faster than the trivial lower bound ⌈(Lmax − ⌊L̄⌋ − D)/D⌉, as it must be.", f);
		double pd, pk, pl, r2;
		if (lbt_jobj_num(&o, "power_exp_d", &pd) && lbt_jobj_num(&o, "power_exp_k", &pk) &&
		    lbt_jobj_num(&o, "power_exp_ldiff", &pl) && lbt_jobj_num(&o, "power_r2", &r2))
		{
			fprintf(f, " A power law fitted to the same runs, T ∝ D^%.2f · K^%.2f · Ldiff^%.2f (R² = %.3f), "
			        "summarizes how T grows with each parameter on average over the runs measured; an exponent "
			        "is determined only for a parameter that spans a factor of 4 or more", pd, pk, pl, r2);
			double sd, sk, sl;
			if (lbt_jobj_num(&o, "span_d", &sd) && lbt_jobj_num(&o, "span_k", &sk) &&
			    lbt_jobj_num(&o, "span_ldiff", &sl))
				fprintf(f, " (here D ×%.3g, K ×%.3g, Ldiff ×%.3g)", sd, sk, sl);
			fputc('.', f);
		}
		fputs("\n\n", f);
		for (int i = 0; i < npng; i++)
			if (!strncmp(png[i], "bound_", 6))
				image(f, dir, png[i]);
	}
	free(line);
	lbt_jobj_free(&o);
	fclose(b);
	return st;
}

/* A report of ours (another one's output): not a table to embed. */
static int is_report(const char *dir, const char *name)
{
	char p[4400], head[16] = "";
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *m;
	lbt_err e;
	if (lbt_in_open(p, NULL, &m, &e))
		return 1;
	int ours = fgets(head, sizeof head, m) && !strncmp(head, "# Results: ", 11);
	fclose(m);
	return ours;
}

/* The table dir/name under a heading of its own; a line that cannot be
 * read (too long, no memory) is an error naming it, not the table's end. */
static int embed(FILE *f, const char *dir, const char *name, lbt_err *e)
{
	char p[4400];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *m;
	int st = lbt_in_open(p, NULL, &m, e);
	if (st)
		return st;
	fprintf(f, "\n### From `%s`\n\n", name);
	char *line = NULL;
	size_t cap = 0, len;
	int fence = 0;
	lbt_err sub;
	int64_t ln = 1;
	for (; !(st = lbt_in_line(m, &line, &cap, &len, &sub)) && len; ln++) {
		if (!strncmp(line, "```", 3))
			fence = !fence;
		size_t h = fence ? 0 : strspn(line, "#");
		if (h && (line[h] == ' ' || line[h] == '\n')) { /* demote under "### From": levels 4..6 */
			fprintf(f, "%.*s", (int)(h + 3 > 6 ? 6 : h + 3), "######");
			fputs(line + h, f);
		} else
			fputs(line, f);
	}
	if (st)
		lbt_errf(e, st, "%s:%lld: %s", p, (long long)ln, sub.msg);
	fputc('\n', f);
	free(line);
	fclose(m);
	return st;
}

/* The records of results (a file, or every *.jsonl of a directory, in name
 * order: *jl, *njl), each one a run's. */
static int read_records(const char *results, int isdir, lbt_jsonl *l, char ***jl, int *njl, lbt_err *e)
{
	int st = LBT_OK;
	if (isdir) { /* every *.jsonl in it, in name order; there may be none */
		if ((*njl = list(results, ".jsonl", jl)) < 0) {
			*njl = 0;
			st = lbt_errf(e, LBT_ENOMEM, "no memory to list %s", results);
		}
		for (int i = 0; !st && i < *njl; i++) {
			char p[4400];
			snprintf(p, sizeof p, "%s/%s", results, (*jl)[i]);
			st = lbt_jsonl_append(l, p, e);
		}
	} else if (!(st = lbt_jsonl_load(l, results, e)) && !l->n)
		st = lbt_errf(e, LBT_EINVAL, "%s holds no records", results);
	for (int64_t i = 0; !st && i < l->n; i++)
		if (!lbt_jobj_str(&l->rec[i], "method") || !lbt_jobj_str(&l->rec[i], "shape"))
			st = lbt_errf(e, LBT_EINVAL, "%s: record %lld is not a run record (no method or shape)", results,
			              (long long)i + 1);
	return st;
}

/* What the report reads of dir besides the records: its plots (*png) and the
 * tables it embeds (*md: every *.md but README.md and reports of ours). */
static int list_inputs(const char *dir, char ***png, int *npng, char ***md, int *nmd, lbt_err *e)
{
	if ((*npng = list(dir, ".png", png)) < 0 || (*nmd = list(dir, ".md", md)) < 0) {
		*npng = *npng < 0 ? 0 : *npng;
		*nmd = 0;
		return lbt_errf(e, LBT_ENOMEM, "no memory to list %s", dir);
	}
	int embedded = 0;
	for (int i = 0; i < *nmd; i++)
		if (!strcmp((*md)[i], "README.md") || is_report(dir, (*md)[i]))
			free((*md)[i]);
		else
			(*md)[embedded++] = (*md)[i];
	*nmd = embedded;
	return LBT_OK;
}

/* The outputs (out and its .tex) against every input, by identity: each
 * results file read, dir's bound.json and the tables it embeds (a report over
 * the table3.md it embeds, or over bound.json, replaced them). */
static int check_outputs(const char *results, int isdir, char **jl, int njl, const char *dir, char **md, int nmd,
                         const char *out, const char *tex, lbt_err *e)
{
	const int nin = njl + 2 + nmd;
	lbt_io_name *in = malloc((size_t)nin * sizeof *in), outs[2] = {{"--out", out}, {"its LaTeX", NULL}};
	char (*jp)[4400] = malloc((size_t)nin * sizeof *jp);
	int st;
	if (!in || !jp)
		st = lbt_errf(e, LBT_ENOMEM, "no memory for the report");
	else {
		outs[1].path = strcmp(out, "-") ? tex : NULL;
		in[0] = (lbt_io_name){"the results file", isdir ? NULL : results};
		for (int i = 0; i < njl; i++) {
			snprintf(jp[i], sizeof jp[i], "%s/%s", results, jl[i]);
			in[i + 1] = (lbt_io_name){"the results file", jp[i]};
		}
		snprintf(jp[njl], sizeof jp[njl], "%s/bound.json", dir);
		in[njl + 1] = (lbt_io_name){"bound's fit", exists(dir, "bound.json") ? jp[njl] : NULL};
		for (int i = 0; i < nmd; i++) {
			snprintf(jp[njl + 1 + i], sizeof jp[0], "%s/%s", dir, md[i]);
			in[njl + 2 + i] = (lbt_io_name){"the table it embeds,", jp[njl + 1 + i]};
		}
		st = lbt_io_distinct(in, nin, outs, 2, e);
	}
	free(in);
	free(jp);
	return st;
}

/* "# Results", and the runs' tables with what their columns mean. */
static void runs_section(FILE *f, const lbt_jsonl *l, const char *results, int isdir, char **jl, int njl, int64_t *idx)
{
	recs = l;
	for (int64_t i = 0; i < l->n; i++)
		idx[i] = i;
	qsort(idx, (size_t)l->n, sizeof *idx, cmp_idx);
	int64_t groups = 0, unreached = 0;
	for (int64_t i = 0; i < l->n; i++) {
		groups += i == 0 || cmp_group(&l->rec[idx[i]], &l->rec[idx[i - 1]]);
		const lbt_jfield *r = lbt_jobj_get(&l->rec[i], "reached");
		unreached += !(r && r->type == LBT_JBOOL && r->num);
	}
	const char *base = strrchr(results, '/') && !isdir ? strrchr(results, '/') + 1 : results;
	fprintf(f, "# Results: %s\n\n", base);
	if (!l->n) {
		fprintf(f, "The tables and plots lbtorus left in `%s`.\n", results);
		return;
	}
	char files[2048] = "";
	if (!isdir)
		snprintf(files, sizeof files, "`%s`", base);
	for (int i = 0; i < njl && strlen(files) < sizeof files - 300; i++)
		snprintf(files + strlen(files), sizeof files - strlen(files), "%s`%s`", i ? ", " : "", jl[i]);
	fprintf(f, "This summary covers %lld runs of lbtorus %s recorded in %s, in %lld configurations. "
	        "Each run balances an initial load on a D-dimensional torus (or mesh) of P PEs with one "
	        "load-balancing method until a criterion holds: *shared* (every PE holds load), *balanced* "
	        "(max − min ≤ D, Henrich's Definition 2) or *flat* (max − min ≤ 1). Each row below is one "
	        "configuration; its numbers are medians over the runs of that configuration (one per seed), "
	        "followed by their range [min–max] where the runs differ. "
	        "Time is given in steps (a step is D substeps, one per dimension) and in shifts, the paper's "
	        "unit (one synchronous transfer slot; a Liquid-model step costs D).",
	        (long long)l->n, s_of(&l->rec[0], "lbtorus"), files, (long long)groups);
	if (unreached)
		fprintf(f, " %lld runs stopped at their step cap before their criterion held (see *reached*).",
		        (long long)unreached);
	fputs("\n\n## Runs\n", f);
	int starred = 0, dynamic = 0, statics = 0;
	int64_t censored = 0;
	tables(f, idx, l->n, &starred, &censored, &dynamic, &statics);
	fputs("\nColumns: *P* PEs; *seeds* runs in the row;", f);
	if (statics)
		fputs(" *reached* runs whose criterion held; *Ldiff* initial "
		      "max − min load; *steps*, *shifts* when the run stopped; *shared at*, *balanced at*, *flat at* the "
		      "first step at which each criterion held (— never); *moved* load elements that crossed a link; "
		      "*D·K·Ldiff* the scale of Henrich's Theorem 3 (D dimensions with links, K the largest extent); "
		      "*balanced / D·K·Ldiff* the ratio the theorem says stays bounded; *lower bound* "
		      "⌈(Lmax − ⌊L̄⌋ − D)/D⌉, the steps any method needs to balance when the most loaded PE gives away "
		      "at most one element per substep.", f);
	if (dynamic)
		fputs(" In a *Workload* table (runs under a workload: load generated and completed every step), "
		      "*sqdev_mean ± se* is the mean over the row's seeds of Cybenko's steady-state variance ‖w − w̄‖² "
		      "averaged over the steps after *warmup*, ± the standard error of that mean (each run's by batch "
		      "means); *generated*, *completed* the load of the whole run; *idle* the capacity left unused; "
		      "*nodes*, *efficiency* for a search tree: nodes expanded and nodes / (P × steps). A column "
		      "appears only where the records hold it.", f);
	if (starred)
		fputs(" A * marks a median over only the runs in which the quantity exists (the criterion was "
		      "reached).", f);
	if (censored)
		fprintf(f, " *capped* counts runs stopped at their step cap (--max-steps) before their criterion held: "
		        "censored, their criterion step is beyond the cap; %lld runs in all. Their *steps* is the cap, "
		        "and a * median leaves them out, so it is biased low.", (long long)censored);
	fputc('\n', f);
}

/* What other commands left in dir: bound's section, the plots, their tables;
 * a table or bound.json that cannot be read is an error naming it. */
static int other_sections(FILE *f, const char *dir, char **png, int npng, char **md, int nmd, lbt_err *e)
{
	int st = bound_section(f, dir, png, npng, e);
	int other = 0;
	for (int i = 0; i < npng; i++)
		other += strncmp(png[i], "bound_", 6) || !exists(dir, "bound.json");
	if (other) {
		fputs("\n## Plots\n\n", f);
		for (int i = 0; i < npng; i++)
			if (strncmp(png[i], "bound_", 6) || !exists(dir, "bound.json"))
				image(f, dir, png[i]);
	}
	for (int i = 0; !st && i < nmd; i++) {
		if (!i)
			fputs("\n## Tables from other commands\n", f);
		st = embed(f, dir, md[i], e);
	}
	return st;
}

int lbt_report_write(const char *results, const char *out, lbt_err *e)
{
	lbt_jsonl l = {0};
	struct stat sb;
	int isdir = !stat(results, &sb) && S_ISDIR(sb.st_mode);
	char **jl = NULL;
	int njl = 0;
	int st = read_records(results, isdir, &l, &jl, &njl, e), npng = 0, nmd = 0;
	char *rcopy = strdup(results), **png = NULL, **md = NULL;
	const char *dir = rcopy ? (isdir ? results : dirname(rcopy)) : NULL;
	size_t on = strlen(out);
	char *tex = st ? NULL : malloc(on + 5);
	if (!st && (!tex || !dir))
		st = lbt_errf(e, LBT_ENOMEM, "no memory for the report");
	else if (!st && !(st = list_inputs(dir, &png, &npng, &md, &nmd, e))) {
		snprintf(tex, on + 5, "%.*s.tex", (int)(on > 3 && !strcmp(out + on - 3, ".md") ? on - 3 : on), out);
		st = check_outputs(results, isdir, jl, njl, dir, md, nmd, out, tex, e);
	}
	if (st) {
		free(tex); free(rcopy);
		free_list(png, npng);
		free_list(md, nmd);
		free_list(jl, njl);
		lbt_jsonl_free(&l);
		return st;
	}
	int64_t *idx = malloc((size_t)(l.n ? l.n : 1) * sizeof *idx);
	lbt_outfile of;
	/* report.md and its .tex are published together (lbt_outdir) when out
	 * is a plain file, or not there yet, in a directory that exists */
	lbt_outdir od = {0};
	char wmd[8400], wtex[8400];
	snprintf(wmd, sizeof wmd, "%s", out);
	snprintf(wtex, sizeof wtex, "%s", tex);
	struct stat ls;
	char odir[4200];
	const char *slash = strrchr(out, '/');
	snprintf(odir, sizeof odir, "%.*s", slash ? (int)(slash - out) + (slash == out) : 1, slash ? out : ".");
	const int staged = strcmp(out, "-") && strncmp(out, "/dev/", 5) && strncmp(out, "/proc/", 6) &&
	                   (lstat(out, &ls) ? errno == ENOENT : S_ISREG(ls.st_mode)) && !stat(odir, &ls) &&
	                   S_ISDIR(ls.st_mode);
	if (!idx)
		st = lbt_errf(e, LBT_ENOMEM, "no memory for the report");
	else if (staged && !(st = lbt_outdir_open(&od, odir, e))) {
		snprintf(wmd, sizeof wmd, "%s/%s", od.stage, slash ? slash + 1 : out);
		snprintf(wtex, sizeof wtex, "%s/%s", od.stage, strrchr(tex, '/') ? strrchr(tex, '/') + 1 : tex);
	}
	if (!st)
		st = lbt_out_open(&of, wmd, e);
	if (st) {
		lbt_outdir_abort(&od, e);
		free(idx); free(rcopy); free(tex);
		free_list(png, npng);
		free_list(md, nmd);
		free_list(jl, njl);
		lbt_jsonl_free(&l);
		return st;
	}
	runs_section(of.f, &l, results, isdir, jl, njl, idx);
	st = other_sections(of.f, dir, png, npng, md, nmd, e);
	free_list(png, npng);
	free_list(md, nmd);
	free_list(jl, njl);
	provenance(of.f, &l, results);
	if (st) /* a table or the fit could not be read: nothing is written */
		lbt_out_abort(&of);
	else
		st = lbt_out_commit(&of, e);
	if (!st && strcmp(out, "-")) /* the tables also as LaTeX: report.md -> report.tex */
		st = lbt_md_tables_to_latex(wmd, wtex, e);
	if (staged && !st)
		st = lbt_outdir_commit(&od, e);
	else
		lbt_outdir_abort(&od, e);
	free(tex);
	free(idx);
	free(rcopy);
	lbt_jsonl_free(&l);
	return st;
}
