/* number.c — see number.h. Integers are read digit by digit with an
 * overflow check, so 2^64 is out of range, not 2^63-1. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/number.h"

/* "an empty value" or "'TEXT'", for the messages (long texts shortened). */
#define SHOWN(t) (*(t) ? " '" : ""), (*(t) ? (int)strnlen(t, 40) : 0), (t), (*(t) ? (strlen(t) > 40 ? "...'" : "'") : " (empty)")

/* Digits only, value in *u; 1 on overflow, -1 when not all digits. */
static int digits(const char *p, uint64_t *u)
{
	if (!*p)
		return -1;
	uint64_t x = 0;
	int over = 0;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		unsigned d = (unsigned)(*p - '0');
		if (x > (UINT64_MAX - d) / 10)
			over = 1;
		else
			x = x * 10 + d;
	}
	*u = x;
	return over;
}

int lbt_parse_u64(const char *text, uint64_t lo, uint64_t hi, const char *what, uint64_t *v, lbt_err *e)
{
	uint64_t u = 0;
	int r = digits(text, &u);
	if (r < 0)
		return lbt_errf(e, LBT_EINVAL, "%s%s%.*s%s: give an integer in %llu..%llu", what, SHOWN(text),
		                (unsigned long long)lo, (unsigned long long)hi);
	if (r > 0 || u < lo || u > hi)
		return lbt_errf(e, LBT_EINVAL, "%s%s%.*s%s is out of range: give %llu..%llu", what, SHOWN(text),
		                (unsigned long long)lo, (unsigned long long)hi);
	*v = u;
	return LBT_OK;
}

int lbt_parse_i64(const char *text, int64_t lo, int64_t hi, const char *what, int64_t *v, lbt_err *e)
{
	int neg = text[0] == '-' && lo < 0;
	uint64_t u = 0;
	int r = digits(text + neg, &u);
	if (r < 0)
		return lbt_errf(e, LBT_EINVAL, "%s%s%.*s%s: give %s in %lld..%lld", what, SHOWN(text),
		                lo < 0 ? "an integer" : "a non-negative integer", (long long)lo, (long long)hi);
	int64_t x;
	int out = r > 0 || (neg ? u > (uint64_t)INT64_MAX + 1 : u > (uint64_t)INT64_MAX);
	if (!out) {
		x = neg ? (u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u) : (int64_t)u;
		out = x < lo || x > hi;
	}
	if (out)
		return lbt_errf(e, LBT_EINVAL, "%s%s%.*s%s is out of range: give %lld..%lld", what, SHOWN(text), (long long)lo,
		                (long long)hi);
	*v = x;
	return LBT_OK;
}

/* The grammar of a real number: an optional '-' (when negative numbers are
 * allowed), digits with an optional fraction (at least one digit in all),
 * an optional exponent: e or E, an optional sign, digits. */
static int real_text(const char *p, int minus)
{
	size_t n = 0;
	p += minus && *p == '-';
	n = strspn(p, "0123456789");
	p += n;
	if (*p == '.') {
		size_t f = strspn(p + 1, "0123456789");
		n += f;
		p += 1 + f;
	}
	if (!n)
		return 0;
	if (*p == 'e' || *p == 'E') {
		p += 1 + (p[1] == '-' || p[1] == '+');
		size_t x = strspn(p, "0123456789");
		if (!x)
			return 0;
		p += x;
	}
	return !*p;
}

int lbt_parse_f64(const char *text, double lo, double hi, int lo_open, const char *what, double *v, lbt_err *e)
{
	char range[80] = ""; /* " in [lo, hi]", or nothing when any finite number will do */
	if (!isinf(lo) || !isinf(hi))
		snprintf(range, sizeof range, " in %s%g, %g]", lo_open ? "(" : "[", lo, hi);
	if (!real_text(text, lo < 0))
		return lbt_errf(e, LBT_EINVAL, "%s%s%.*s%s: give %s number%s", what, SHOWN(text), lo < 0 ? "a" : "a non-negative",
		                range);
	errno = 0;
	double x = strtod(text, NULL) + 0.0; /* -0 is 0 */
	int tiny = errno == ERANGE && isfinite(x); /* 1e-400: not silently 0 */
	if (tiny || !isfinite(x) || (lo_open ? !(x > lo) : !(x >= lo)) || !(x <= hi))
		return lbt_errf(e, LBT_EINVAL, "%s%s%.*s%s is out of range%s: give a %snumber%s", what, SHOWN(text),
		                tiny ? " (too small for a double)" : "", *range ? "" : "finite ", range);
	*v = x;
	return LBT_OK;
}
