/* number.h — the one parser of numbers given as text: every command-line
 * option, the sweep spec, criteria and initial loads go through it, so a
 * number is read the same way everywhere and never clamped silently. */
#ifndef LBTORUS_NUMBER_H
#define LBTORUS_NUMBER_H

#include <stdint.h>

#include "lbtorus/status.h"

/* All of text as a decimal integer in [lo, hi]: digits, a '-' only when
 * lo < 0, no '+', no spaces, no hex. Otherwise LBT_EINVAL with one line
 * naming what ("--max-steps", "seed", ...), the text and the range. */
int lbt_parse_i64(const char *text, int64_t lo, int64_t hi, const char *what, int64_t *v, lbt_err *e);
/* The same for an unsigned 64-bit value in [lo, hi] (a seed: 0..2^64-1). */
int lbt_parse_u64(const char *text, uint64_t lo, uint64_t hi, const char *what, uint64_t *v, lbt_err *e);
/* All of text as a decimal real number in [lo, hi], or (lo, hi] when
 * lo_open: an integer as above (a '-' only when lo < 0, no '+'), then an
 * optional fraction (".5", "2." too) and exponent ("1e-3", "2E+6"); no
 * spaces, hex, inf or nan, nor a number too small for a double (1e-400). */
int lbt_parse_f64(const char *text, double lo, double hi, int lo_open, const char *what, double *v, lbt_err *e);

#endif
