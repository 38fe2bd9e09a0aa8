/* latex.h — the Markdown tables lbtorus writes, also as LaTeX: each pipe
 * table of a Markdown file becomes a booktabs tabular, headed by the
 * nearest Markdown heading as a comment, ready for \input in a paper. */
#ifndef LBTORUS_LATEX_H
#define LBTORUS_LATEX_H

/* Read md_path, write tex_path (atomically): every pipe table in it, in
 * order, with \toprule, \midrule after the header row and \bottomrule;
 * columns aligned as the Markdown's separator row says (---: right, :--:
 * centre, else left); a column with cells longer than 40 characters wraps
 * in a p{} column whose width is its share of the table's text. Text is
 * escaped for LaTeX (# $ % & _ { } ~ ^ \), the
 * few mathematical characters our tables use become math (− · × ≤ ≥ ≈ ²),
 * `code` becomes \texttt and **bold** \textbf. The file needs
 * \usepackage{booktabs} and a UTF-8 input encoding (the default of LaTeX
 * since 2018) for the remaining characters such as §, é or ü. A file
 * without tables gives a file with a comment only. */
#include "lbtorus/status.h"

int lbt_md_tables_to_latex(const char *md_path, const char *tex_path, lbt_err *e);

#endif
