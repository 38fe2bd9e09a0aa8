/* repro_table3.c — `lbtorus reproduce table3`: Henrich's (1996) Table 3, a ring of
 * eight PEs with 16 load units on P0, LM-C5 step by step and (when built in)
 * NNA iteration by iteration, compared value for value with the paper.
 *
 * The paper's time T counts shifts. An LM-C5 step is one shift, so LM rows
 * are T = 0, 1, 2, ...; an NNA iteration costs several shifts, so NNA rows
 * appear only at the shift counts where an iteration ends (Table 3 prints
 * them at T = 0, 11, 14, 16, ...). Exact reproduction means: the same rows at
 * the same T, holding the same eight loads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "repro.h"

enum { NPE = 8, COLS = 1 + NPE, MAXROWS = 64 };

typedef struct {
	int64_t rows[MAXROWS * COLS]; /* T, P0..P7 */
	int n;
	int64_t shared_t, balanced_t; /* T (shifts) of the first shared / balanced row; -1 never */
} traj;

typedef struct {
	const lbt_state *st;
	traj *t;
} rows_ctx;

/* The engine's observer: one row (T, loads) per state, the initial one too. */
static void add_row(void *p, const lbt_step_record *r)
{
	rows_ctx *c = p;
	int32_t L[NPE];
	lbt_grid_export(&c->st->grid, L);
	int64_t *row = &c->t->rows[c->t->n++ * COLS];
	row[0] = (int64_t)r->shifts; /* LM and NNA: integers, exact */
	for (int i = 0; i < NPE; i++)
		row[1 + i] = L[i];
}

/* Run method on the ring until balanced (max - min <= 1), recording (T, loads) after each step. */
static int trajectory(const char *method, const lbt_repro_opts *o, traj *t, lbt_err *e)
{
	lbt_setup set = {.shape = "8", .method = method, .init = "point:16", .isa = o->isa, .seed = 1, .threads = 1,
	                 .interrupt = o->interrupt};
	lbt_state st;
	int status = lbt_state_open(&st, &set, e);
	if (status)
		return status;
	t->n = 0;
	rows_ctx c = {&st, t};
	lbt_run_opts ro = rp_run_opts(o);
	ro.until.kind = LBT_UNTIL_FLAT;
	ro.max_steps = MAXROWS - 1;
	ro.on_step = add_row;
	ro.ctx = &c;
	lbt_summary s;
	if (!(status = lbt_run(&st, &ro, &s, e))) {
		t->shared_t = (int64_t)s.shared_shifts; /* integer methods: exact */
		t->balanced_t = (int64_t)s.flat_shifts;
		if (!s.reached)
			status = lbt_errf(e, LBT_EINTERNAL, "%s: ring of 8 not balanced after %d steps", method, MAXROWS);
	}
	lbt_state_close(&st);
	return status;
}

/* Mismatches between ours and the paper's rows: every row, T and load. */
static int64_t compare(const traj *ours, const int64_t *paper, int np)
{
	int64_t bad = 0;
	for (int r = 0; r < ours->n || r < np; r++) {
		if (r >= ours->n || r >= np) {
			bad += COLS;
			continue;
		}
		for (int c = 0; c < COLS; c++)
			bad += ours->rows[r * COLS + c] != paper[r * COLS + c];
	}
	return bad;
}

static const int64_t *row_at(const int64_t *rows, int n, int64_t T)
{
	for (int r = 0; r < n; r++)
		if (rows[r * COLS] == T)
			return &rows[r * COLS];
	return NULL;
}

static void md_loads(FILE *f, const int64_t *r)
{
	if (!r) {
		fputs(" |", f);
		return;
	}
	fputc(' ', f);
	for (int i = 0; i < NPE; i++)
		fprintf(f, "%s%lld", i ? " " : "", (long long)r[1 + i]);
	fputs(" |", f);
}

/* Ldiff over T, for the plot. */
static void ldiff_series(const int64_t *rows, int n, double *x, double *y)
{
	for (int r = 0; r < n; r++) {
		const int64_t *p = &rows[r * COLS];
		int64_t mx = p[1], mn = p[1];
		for (int i = 1; i < NPE; i++) {
			mx = p[1 + i] > mx ? p[1 + i] : mx;
			mn = p[1 + i] < mn ? p[1 + i] : mn;
		}
		x[r] = (double)p[0];
		y[r] = (double)(mx - mn);
	}
}

/* Ours and the paper's, side by side. */
typedef struct {
	int64_t paper_lm[MAXROWS * COLS], paper_nna[MAXROWS * COLS];
	int n_lm, n_nna, have_nna;
	traj lm, nna;
	int64_t bad_lm, bad_nna;
	rp_claim c_shared, c_bal, c_nna, c_faster;
} t3;

/* table3.csv: our rows, each marked 1 if the paper prints the same row at the same T. */
static int t3_csv(const t3 *x, const lbt_repro_opts *o, lbt_err *e)
{
	lbt_outfile out;
	int st = rp_open(o, "table3.csv", &out, e);
	if (st)
		return st;
	fputs("method,T,P0,P1,P2,P3,P4,P5,P6,P7,same_in_paper\n", out.f);
	for (int m = 0; m < 1 + x->have_nna; m++) {
		const traj *t = m ? &x->nna : &x->lm;
		for (int r = 0; r < t->n; r++) {
			const int64_t *p = &t->rows[r * COLS];
			const int64_t *q = row_at(m ? x->paper_nna : x->paper_lm, m ? x->n_nna : x->n_lm, p[0]);
			fprintf(out.f, "%s,%lld", m ? "nna" : "lm-c5", (long long)p[0]);
			for (int i = 0; i < NPE; i++)
				fprintf(out.f, ",%lld", (long long)p[1 + i]);
			fprintf(out.f, ",%d\n", q && !memcmp(p, q, COLS * sizeof *p));
		}
	}
	return lbt_out_commit(&out, e);
}

/* table3.md: the paper's layout with ours beside it, then the stated results. */
static int t3_md(const t3 *x, const lbt_repro_opts *o, lbt_err *e)
{
	lbt_outfile out;
	int st = rp_open(o, "table3.md", &out, e);
	if (st)
		return st;
	FILE *f = out.f;
	const traj *lm = &x->lm, *nna = &x->nna;
	const int have_nna = x->have_nna, n_lm = x->n_lm, n_nna = x->n_nna;
	fprintf(f, "# Table 3 of Henrich (1996): a worst case on a ring of 8 PEs\n\n"
	        "16 load units on P0, the other seven PEs idle. T counts shifts (an LM-C5 step is one\n"
	        "shift; an NNA iteration costs, per direction, the largest amount on one link). Rows\n"
	        "are the loads of P0..P7 after the step or iteration that ends at T. Paper values are\n"
	        "from data/table3_lm_c5.csv and data/table3_nna.csv (transcribed from the paper).\n\n"
	        "**LM-C5: %s** (%lld of %d values differ). **NNA: %s**.\n\n",
	        x->bad_lm ? "differs from the paper" : "identical to the paper", (long long)x->bad_lm, n_lm * COLS,
	        !have_nna ? "not built into this lbtorus, paper's values shown only"
	                  : x->bad_nna ? "differs from the paper" : "identical to the paper");
	fputs("| T | LM-C5 ours | LM-C5 paper | NNA ours | NNA paper |\n|---:|---|---|---|---|\n", f);
	int64_t last = lm->rows[(lm->n - 1) * COLS];
	if (n_lm) last = x->paper_lm[(n_lm - 1) * COLS] > last ? x->paper_lm[(n_lm - 1) * COLS] : last;
	if (n_nna) last = x->paper_nna[(n_nna - 1) * COLS] > last ? x->paper_nna[(n_nna - 1) * COLS] : last;
	if (have_nna) last = nna->rows[(nna->n - 1) * COLS] > last ? nna->rows[(nna->n - 1) * COLS] : last;
	for (int64_t T = 0; T <= last; T++) {
		fprintf(f, "| %lld |", (long long)T);
		md_loads(f, row_at(lm->rows, lm->n, T));
		md_loads(f, row_at(x->paper_lm, n_lm, T));
		md_loads(f, have_nna ? row_at(nna->rows, nna->n, T) : NULL);
		md_loads(f, row_at(x->paper_nna, n_nna, T));
		fputc('\n', f);
	}
	fputs("\n## The paper's statements beside ours\n\n", f);
	rp_md_claims_head(f);
	rp_md_claim(f, &x->c_shared, (double)lm->shared_t, NULL);
	rp_md_claim(f, &x->c_bal, (double)lm->balanced_t, NULL);
	rp_md_claim(f, &x->c_nna, have_nna ? (double)nna->balanced_t : NAN, have_nna ? NULL : "NNA not built in");
	rp_md_claim(f, &x->c_faster, have_nna ? 1.0 - (double)lm->balanced_t / (double)nna->balanced_t : NAN,
	            have_nna ? NULL : "NNA not built in");
	fputs("\nPlot: `table3.png` (`table3.svg`): Ldiff = max − min over T, ours and the paper's.\n", f);
	return lbt_out_commit(&out, e);
}

/* table3.png: Ldiff over T. A state holds until the next step or
 * iteration ends, so ours is drawn as steps (NNA's iterations last
 * several shifts: no state lies between them), the paper's rows as
 * markers of the same colour on top. */
static int t3_plot(const t3 *x, const lbt_repro_opts *o, lbt_err *e)
{
	double px[4][MAXROWS], py[4][MAXROWS];
	ldiff_series(x->lm.rows, x->lm.n, px[0], py[0]);
	ldiff_series(x->paper_lm, x->n_lm, px[1], py[1]);
	ldiff_series(x->paper_nna, x->n_nna, px[3], py[3]);
	lbt_series s[4] = {
		{.label = "LM-C5, ours", .x = px[0], .y = py[0], .n = x->lm.n, .draw = LBT_DRAW_STEPS, .colour = 1},
		{.label = "LM-C5, paper", .x = px[1], .y = py[1], .n = x->n_lm, .draw = LBT_DRAW_MARKS, .colour = 1, .point = 6},
		{.label = "NNA, ours", .x = px[2], .y = py[2], .n = 0, .draw = LBT_DRAW_STEPS, .colour = 2, .dash = 2},
		{.label = "NNA, paper", .x = px[3], .y = py[3], .n = x->n_nna, .draw = LBT_DRAW_MARKS, .colour = 2, .point = 4},
	};
	if (x->have_nna) {
		ldiff_series(x->nna.rows, x->nna.n, px[2], py[2]);
		s[2].n = x->nna.n;
	}
	lbt_axes ax = {.title = "Table 3: ring of 8 PEs, 16 units on P0", .xlabel = "time T [shifts]",
	               .ylabel = "load difference max − min [load units]", .intx = 1, .inty = 1, .key = "top right"};
	return rp_plot(o, "table3", &ax, s, 4, e);
}

int rp_table3(const lbt_repro_opts *o, int64_t *differs, lbt_err *e)
{
	t3 *x = calloc(1, sizeof *x);
	if (!x)
		return lbt_errf(e, LBT_ENOMEM, "no memory for table3");
	x->n_lm = rp_read_table(o, "table3_lm_c5.csv", x->paper_lm, MAXROWS, COLS, e);
	x->n_nna = rp_read_table(o, "table3_nna.csv", x->paper_nna, MAXROWS, COLS, e);
	int st = x->n_lm < 0 || x->n_nna < 0 ? LBT_EIO : LBT_OK;
	if (!st) st = rp_claim_get(o, "table3_lm_shared", &x->c_shared, e);
	if (!st) st = rp_claim_get(o, "table3_lm_balanced", &x->c_bal, e);
	if (!st) st = rp_claim_get(o, "table3_nna_balanced", &x->c_nna, e);
	if (!st) st = rp_claim_get(o, "table3_lm_faster", &x->c_faster, e);
	if (!st) st = trajectory("lm-c5", o, &x->lm, e);
	x->have_nna = lbt_method_find("nna") != NULL;
	if (!st && x->have_nna)
		st = trajectory("nna", o, &x->nna, e);
	if (st) {
		free(x);
		return st;
	}
	x->bad_lm = compare(&x->lm, x->paper_lm, x->n_lm);
	x->bad_nna = x->have_nna ? compare(&x->nna, x->paper_nna, x->n_nna) : 0;
	*differs = x->bad_lm + x->bad_nna + (x->lm.shared_t != (int64_t)x->c_shared.value) +
	           (x->lm.balanced_t != (int64_t)x->c_bal.value) +
	           (x->have_nna && x->nna.balanced_t != (int64_t)x->c_nna.value);
	rp_note(o, "table3: LM-C5 %s the paper (%lld differences)%s", x->bad_lm ? "differs from" : "matches",
	        (long long)x->bad_lm, x->have_nna ? "" : "; NNA is not built in: its columns are the paper's only");
	if (x->have_nna)
		rp_note(o, "table3: NNA %s the paper (%lld differences)", x->bad_nna ? "differs from" : "matches",
		        (long long)x->bad_nna);
	if (!(st = t3_csv(x, o, e)) && !(st = t3_md(x, o, e)))
		st = t3_plot(x, o, e);
	free(x);
	return st;
}
