/* report.h — a Markdown summary of a results file, for a paper's appendix:
 * runs grouped by configuration with medians over seeds, the bound columns,
 * Theorem 3's fit and the plots and tables found beside the results. */
#ifndef LBTORUS_REPORT_H
#define LBTORUS_REPORT_H

#include "lbtorus/status.h"

/* Read `results` (JSON Lines of run records) and write the report to `out`
 * ("-": stdout; else atomically). Files beside `results` are linked or
 * embedded: bound.json, *.png (with their .svg), *.md other than `out`. */
int lbt_report_write(const char *results, const char *out, lbt_err *e);

#endif
