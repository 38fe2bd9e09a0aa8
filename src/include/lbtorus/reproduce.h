/* reproduce.h — Henrich's (1996) simulations (Table 3, Fig. 5, 6, 7) as commands:
 * each writes its data (CSV), plots (PNG + SVG through gnuplot) and a
 * Markdown table putting the paper's stated results beside ours. */
#ifndef LBTORUS_REPRODUCE_H
#define LBTORUS_REPRODUCE_H

#include <signal.h>
#include <stdint.h>

#include "lbtorus/status.h"

typedef struct {
	const char *out_dir;  /* created if missing */
	const char *data_dir; /* henrich1996_claims.csv, table3_lm_c5.csv, table3_nna.csv (NULL: lbt_data_dir()) */
	int quick;            /* small sizes only (seconds): for tests and a first look */
	int titles;           /* put a title on each plot (default none: a paper has captions) */
	int threads;          /* independent runs in parallel, one thread each (<= 0: all cores) */
	const char *isa;      /* kernel target (NULL: auto) */
	void (*note)(void *ctx, const char *line); /* progress, one line at a time; may be NULL */
	void *ctx;
	/* once set non-zero (a signal): every run stops after its current step,
	 * no run starts, and nothing of the experiment is published (LBT_EINTR) */
	const volatile sig_atomic_t *interrupt;
} lbt_repro_opts;

/* Where the data files are read from by default: $LBTORUS_DATA if set and
 * not empty, else the installed DATADIR/lbtorus (e.g. /usr/local/share/lbtorus). */
const char *lbt_data_dir(void);

/* Experiments by name: "table3", "fig5", "fig6", "fig7", "cybenko", "trees",
 * "luling-theorems", "luling-figs", "luling-table1", "luling-compare". */
const char *const *lbt_repro_names(void);

/* Run one experiment. *differs (may be NULL) receives how many of the
 * paper's exact values ours missed (Table 3: PE loads and step counts).
 * LBT_EUNSUP: a needed method (NNA) is not built in, or gnuplot is missing
 * (data and tables are written all the same). LBT_EINTR: *o->interrupt was
 * set before the experiment's files were published: out_dir is as it was. */
int lbt_reproduce(const char *name, const lbt_repro_opts *o, int64_t *differs, lbt_err *e);

/* The number the paper states for claim `id` of data_dir/henrich1996_claims.csv
 * (NULL: "data"), e.g. "table3_lm_balanced" = 18. LBT_EIO: no such file;
 * LBT_EINVAL: no such claim, or a statement without a number. */
int lbt_repro_claim_value(const char *data_dir, const char *id, double *value, lbt_err *e);

#endif
