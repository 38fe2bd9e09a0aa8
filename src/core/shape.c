/* shape.c — parsing and describing torus shapes and boundaries.
 * A shape is written as NumPy writes it: "64x128" is a (64, 128) array whose
 * last extent is contiguous. Extents are at least 1; the product is capped.
 * A comma separates the shapes of a list (sweep, bound), so it is no
 * separator of extents: one shape with a comma is refused. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/shape.h"

/* "8,8": in a sweep's list rings of 8, so not one 8x8 shape; say both spellings. */
static int comma(lbt_shape *s, const char *text, lbt_err *e)
{
	char as_x[256];
	size_t n = strlen(text) < sizeof as_x ? strlen(text) : sizeof as_x - 1;
	for (size_t i = 0; i < n; i++)
		as_x[i] = text[i] == ',' ? 'x' : text[i];
	as_x[n] = 0;
	s->dims = 0;
	return lbt_errf(e, LBT_EINVAL, "shape '%s': write %s for one %s torus (a comma separates the shapes of a list "
	                "in sweep and bound; this takes one shape)", text, as_x, as_x);
}

int lbt_shape_parse(lbt_shape *s, const char *text, lbt_err *e)
{
	memset(s, 0, sizeof *s);
	if (!text || !*text)
		return lbt_errf(e, LBT_EINVAL, "empty shape: write extents like 128x128");
	const char *p = text;
	int64_t pes = 1;
	for (;;) {
		if (s->dims == LBT_MAXD)
			return lbt_errf(e, LBT_EINVAL, "shape '%s' has more than %d dimensions", text, LBT_MAXD);
		if (*p == '-')
			return lbt_errf(e, LBT_EINVAL, "shape '%s': extents must be positive", text);
		if (*p < '0' || *p > '9')
			return lbt_errf(e, LBT_EINVAL, "shape '%s' is malformed: write extents like 128x128", text);
		errno = 0;
		char *end;
		long long v = strtoll(p, &end, 10);
		if (errno || v > LBT_MAX_PES)
			return lbt_errf(e, LBT_EINVAL, "shape '%s': extent too large", text);
		if (v < 1)
			return lbt_errf(e, LBT_EINVAL, "shape '%s': extents must be positive, got %lld", text, v);
		s->ext[s->dims++] = v;
		if (pes > LBT_MAX_PES / v)
			return lbt_errf(e, LBT_EINVAL, "shape '%s' has more than 2^36 PEs", text);
		pes *= v;
		p = end;
		if (!*p)
			break;
		if (*p == 'x' || *p == 'X')
			p++;
		else if (*p == ',')
			return comma(s, text, e);
		else if (!strncmp(p, "\xc3\x97", 2)) /* U+00D7 multiplication sign */
			p += 2;
		else
			return lbt_errf(e, LBT_EINVAL, "shape '%s' is malformed at '%s': write extents like 128x128", text, p);
	}
	return LBT_OK;
}

static int parse_word(const char *w, size_t n, lbt_boundary *b)
{
	if (n == 5 && !strncmp(w, "torus", 5)) { *b = LBT_TORUS; return 1; }
	if (n == 4 && !strncmp(w, "mesh", 4)) { *b = LBT_MESH; return 1; }
	return 0;
}

int lbt_boundary_parse(lbt_shape *s, const char *text, lbt_err *e)
{
	lbt_boundary b[LBT_MAXD];
	int n = 0;
	for (const char *p = text;; n++) {
		const char *c = p + strcspn(p, ",/");
		size_t len = (size_t)(c - p);
		if (n == LBT_MAXD || !parse_word(p, len, &b[n]))
			return lbt_errf(e, LBT_EINVAL, "boundary '%s': use torus, mesh, or one per axis like torus/mesh", text);
		if (!*c) { n++; break; }
		p = c + 1;
	}
	if (n != 1 && n != s->dims)
		return lbt_errf(e, LBT_EINVAL, "boundary '%s' names %d axes but the shape has %d", text, n, s->dims);
	for (int d = 0; d < s->dims; d++)
		s->bnd[d] = b[n == 1 ? 0 : d];
	return LBT_OK;
}

int lbt_shape_check(const lbt_shape *s, const char *what, lbt_err *e)
{
	if (s->dims < 1)
		return lbt_errf(e, LBT_EINVAL, "%s: a 0-d array is not a torus", what);
	if (s->dims > LBT_MAXD)
		return lbt_errf(e, LBT_EINVAL, "%s has more than %d dimensions", what, LBT_MAXD);
	int64_t pes = 1;
	for (int d = 0; d < s->dims; d++) {
		if (s->ext[d] < 1)
			return lbt_errf(e, LBT_EINVAL, "%s: extents must be positive, got %lld in axis %d", what,
			                (long long)s->ext[d], d);
		if (s->ext[d] > LBT_MAX_PES / pes)
			return lbt_errf(e, LBT_EINVAL, "%s has more than 2^36 PEs", what);
		pes *= s->ext[d];
	}
	return LBT_OK;
}

int64_t lbt_shape_pes(const lbt_shape *s)
{
	if (s->dims < 1 || s->dims > LBT_MAXD)
		return -1;
	int64_t p = 1;
	for (int d = 0; d < s->dims; d++)
		if (s->ext[d] < 1 || __builtin_mul_overflow(p, s->ext[d], &p))
			return -1;
	return p;
}

int lbt_shape_active_dims(const lbt_shape *s)
{
	int n = 0;
	for (int d = 0; d < s->dims; d++)
		n += s->ext[d] >= 2;
	return n;
}

int64_t lbt_shape_kmax(const lbt_shape *s)
{
	int64_t k = 1;
	for (int d = 0; d < s->dims; d++)
		if (s->ext[d] > k)
			k = s->ext[d];
	return k;
}

void lbt_shape_format(const lbt_shape *s, char *buf, size_t n)
{
	size_t used = 0;
	buf[0] = 0;
	for (int d = 0; d < s->dims && used < n; d++)
		used += (size_t)snprintf(buf + used, n - used, d ? "x%lld" : "%lld", (long long)s->ext[d]);
}

void lbt_boundary_format(const lbt_shape *s, char *buf, size_t n)
{
	int same = 1;
	for (int d = 1; d < s->dims; d++)
		same &= s->bnd[d] == s->bnd[0];
	size_t used = 0;
	buf[0] = 0;
	for (int d = 0; d < (same ? 1 : s->dims) && used < n; d++)
		used += (size_t)snprintf(buf + used, n - used, "%s%s", d ? "," : "",
		                         s->bnd[d] == LBT_TORUS ? "torus" : "mesh");
}
