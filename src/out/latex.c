/* latex.c — Markdown pipe tables as LaTeX booktabs tables.
 *
 * One pass over the Markdown (and a look ahead over each table to size its
 * text columns): a line starting with '|' opens or continues a table; the
 * line after the first must be the separator row (|---:|...), which gives
 * the alignment; any other line closes the table. Cells are
 * split at '|' not preceded by a backslash (Markdown's escape). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/io.h"
#include "core/input.h"
#include "out/latex.h"

enum { MAXCOL = 64 };

/* Split a table row into cells (in place); returns the count. */
static int cells(char *line, char **cell)
{
	int n = 0;
	char *p = line + strspn(line, " ");
	if (*p == '|')
		p++;
	while (*p && *p != '\n' && n < MAXCOL) {
		char *start = p;
		while (*p && *p != '\n' && !(*p == '|' && (p == start || p[-1] != '\\')))
			p++;
		char *end = p;
		int last = *p != '|';
		*p = 0;
		while (*start == ' ')
			start++;
		while (end > start && end[-1] == ' ')
			*--end = 0;
		cell[n++] = start;
		if (last)
			break;
		p++;
		if (*p == '\n' || !*p)
			break;
	}
	return n;
}

static const struct { const char *utf8, *tex; } sym[] = {
	{"−", "$-$"}, {"·", "$\\cdot$"}, {"×", "$\\times$"}, {"≤", "$\\le$"}, {"≥", "$\\ge$"},
	{"≈", "$\\approx$"}, {"²", "$^2$"}, {"—", "---"}, {"–", "--"}, {"⌈", "$\\lceil$"}, {"⌉", "$\\rceil$"},
	{"⌊", "$\\lfloor$"}, {"⌋", "$\\rfloor$"}, {"L̄", "$\\bar{L}$"},
};

static void tex_text(FILE *f, const char *s)
{
	int code = 0, bold = 0;
	while (*s) {
		if (s[0] == '\\' && s[1] == '|') { /* Markdown's escaped pipe */
			fputs("$|$", f);
			s += 2;
			continue;
		}
		if (s[0] == '*' && s[1] == '*' && !code) {
			fputs(bold ? "}" : "\\textbf{", f);
			bold = !bold;
			s += 2;
			continue;
		}
		if (*s == '`') {
			fputs(code ? "}" : "\\texttt{", f);
			code = !code;
			s++;
			continue;
		}
		size_t k;
		for (k = 0; k < sizeof sym / sizeof sym[0]; k++) {
			size_t l = strlen(sym[k].utf8);
			if (!strncmp(s, sym[k].utf8, l)) {
				fputs(sym[k].tex, f);
				s += l;
				break;
			}
		}
		if (k < sizeof sym / sizeof sym[0])
			continue;
		switch (*s) {
		case '#': case '$': case '%': case '&': case '_': case '{': case '}':
			fputc('\\', f);
			fputc(*s, f);
			break;
		case '~': fputs("\\textasciitilde{}", f); break;
		case '^': fputs("\\textasciicircum{}", f); break;
		case '\\': fputs("\\textbackslash{}", f); break;
		case '<': fputs("\\textless{}", f); break;
		case '>': fputs("\\textgreater{}", f); break;
		default: fputc(*s, f);
		}
		s++;
	}
	if (code || bold)
		fputc('}', f);
}

/* The longest cell of each column of the table whose body starts at the
 * current position of in (which is restored): widths in bytes, a measure of
 * how much text a column holds. A line that cannot be read is an error
 * (sub; *ahead lines were read before it), not the table's end. */
static int column_widths(FILE *in, int ncol, size_t *width, long long *ahead, lbt_err *sub)
{
	long at = ftell(in);
	char *line = NULL, *cell[MAXCOL];
	size_t cap = 0, len;
	int st;
	*ahead = 0;
	while (!(st = lbt_in_line(in, &line, &cap, &len, sub)) && len && line[strspn(line, " ")] == '|') {
		++*ahead;
		int n = cells(line, cell);
		for (int c = 0; c < n && c < ncol; c++)
			if (strlen(cell[c]) > width[c])
				width[c] = strlen(cell[c]);
	}
	free(line);
	if (!st && (at < 0 || fseek(in, at, SEEK_SET)))
		st = lbt_errf(sub, LBT_EIO, "cannot read it again: %s", strerror(errno));
	return st;
}

int lbt_md_tables_to_latex(const char *md_path, const char *tex_path, lbt_err *e)
{
	FILE *in;
	int st = lbt_in_open(md_path, NULL, &in, e);
	if (st)
		return st;
	lbt_outfile o;
	st = lbt_out_open(&o, tex_path, e);
	if (st) {
		fclose(in);
		return st;
	}
	FILE *f = o.f;
	const char *base = strrchr(md_path, '/') ? strrchr(md_path, '/') + 1 : md_path;
	fprintf(f, "%% The tables of %s as LaTeX, written by lbtorus %s.\n"
	        "%% Needs \\usepackage{booktabs}; \\input this file or copy a table.\n", base, LBT_VERSION);
	char *line = NULL, *head = NULL, heading[512] = "";
	size_t cap = 0, len;
	int state = 0; /* 0 outside, 1 saw the header row, 2 inside the body */
	char *cell[MAXCOL];
	lbt_err sub;
	long long ln = 0;
	while (!(st = lbt_in_line(in, &line, &cap, &len, &sub)) && len) {
		ln++;
		int row = line[strspn(line, " ")] == '|';
		if (!row) {
			if (state == 2)
				fputs("\\bottomrule\n\\end{tabular}\n", f);
			else if (state == 1)
				free(head);
			state = 0;
			if (line[0] == '#')
				snprintf(heading, sizeof heading, "%s", line + strspn(line, "# "));
			heading[strcspn(heading, "\n")] = 0;
			continue;
		}
		if (state == 0) {
			if (!(head = strdup(line))) {
				st = lbt_errf(&sub, LBT_ENOMEM, "no memory for a table's header");
				break;
			}
			state = 1;
			continue;
		}
		if (state == 1) {
			char *hc[MAXCOL];
			int nh = cells(head, hc), ns = cells(line, cell);
			if (ns != nh || strspn(cell[0], "-:") != strlen(cell[0])) { /* not a table after all */
				free(head);
				state = 0;
				continue;
			}
			fputs("\n% ", f);
			tex_text(f, heading[0] ? heading : "table");
			fputs("\n\\begin{tabular}{", f);
			/* a column of long text (a claim, a quotation, a number with its context) wraps in a
			 * paragraph column, its share of the line width as of the text */
			size_t width[MAXCOL] = {0}, sum = 0;
			for (int c = 0; c < nh; c++)
				width[c] = strlen(hc[c]);
			long long ahead;
			if ((st = column_widths(in, ns, width, &ahead, &sub))) {
				ln += ahead;
				free(head);
				head = NULL;
				break;
			}
			for (int c = 0; c < ns; c++)
				sum += width[c];
			for (int c = 0; c < ns; c++) {
				size_t l = strlen(cell[c]);
				int left = cell[c][0] == ':', right = l && cell[c][l - 1] == ':';
				if (width[c] > 40 && sum > 100)
					fprintf(f, "p{%.2f\\linewidth}", 0.7 * (double)width[c] / (double)sum > 0.15
					                                     ? 0.7 * (double)width[c] / (double)sum : 0.15);
				else
					fputc(left && right ? 'c' : right ? 'r' : 'l', f);
			}
			fputs("}\n\\toprule\n", f);
			for (int c = 0; c < nh; c++) {
				fputs(c ? " & " : "", f);
				tex_text(f, hc[c]);
			}
			fputs(" \\\\\n\\midrule\n", f);
			free(head);
			head = NULL;
			state = 2;
			continue;
		}
		int n = cells(line, cell);
		for (int c = 0; c < n; c++) {
			fputs(c ? " & " : "", f);
			tex_text(f, cell[c]);
		}
		fputs(" \\\\\n", f);
	}
	if (state == 2)
		fputs("\\bottomrule\n\\end{tabular}\n", f);
	else if (state == 1)
		free(head);
	free(line);
	fclose(in);
	if (st) { /* a line that cannot be read is not the end of the tables */
		lbt_out_abort(&o);
		return lbt_errf(e, st, "%s:%lld: %s", md_path, ln + 1, sub.msg);
	}
	return lbt_out_commit(&o, e);
}
