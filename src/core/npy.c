/* npy.c — reading and writing NumPy .npy files of loads.
 * Format (numpy.lib.format): "\x93NUMPY", major, minor (1.0, 2.0 or 3.0),
 * the header length (uint16 for 1.0, uint32 for 2.0/3.0), then a Python
 * dict literal with exactly the keys 'descr', 'fortran_order' and 'shape',
 * padded with spaces and ended by a newline; then the data, and nothing after.
 *
 * The reader takes what NumPy writes and reads back, and refuses the rest
 * with one line naming the problem: the dict is parsed as the Python literal
 * it is (either quote, any key order, a trailing comma, whitespace between
 * tokens), not searched for substrings. dtypes: '<i4', '<i8' (integer loads)
 * and '<f4', '<f8' (real-valued loads, finite only). The shape is held to
 * the limits --shape has (lbt_shape_check). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lbtorus/io.h"
#include "lbtorus/npy.h"
#include "core/input.h"
#include "core/npy_stream.h"

enum { MAX_HEADER = 65536 };

/* A cursor over the header text, for the error messages. */
typedef struct {
	const char *p, *end, *name;
	lbt_err *e;
} cur;

static int bad(cur *c, const char *what) { return lbt_errf(c->e, LBT_EINVAL, "%s: .npy header: %s", c->name, what); }

static void ws(cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r' || *c->p == '\f'))
		c->p++;
}

/* A Python string literal without escapes: 'x' or "x" (at most n-1 chars). */
static int string(cur *c, char *out, size_t n, const char *what)
{
	if (c->p == c->end || (*c->p != '\'' && *c->p != '"'))
		return bad(c, what);
	char q = *c->p++;
	size_t k = 0;
	for (; c->p < c->end && *c->p != q; c->p++) {
		if (*c->p == '\\' || *c->p == '\n')
			return bad(c, "escapes and line breaks in strings are not supported");
		if (k + 1 >= n)
			return bad(c, "string too long");
		out[k++] = *c->p;
	}
	if (c->p == c->end)
		return bad(c, "unterminated string");
	c->p++;
	out[k] = 0;
	return LBT_OK;
}

/* A Python decimal integer literal as an extent: digits, no sign, no
 * leading zero, no underscore. Larger than int64: refused here. */
static int extent(cur *c, int64_t *v)
{
	const char *s = c->p;
	int64_t x = 0;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		if (x > (INT64_MAX - 9) / 10)
			return bad(c, "shape has an extent beyond 2^63");
		x = x * 10 + (*c->p++ - '0');
	}
	if (c->p == s)
		return bad(c, "shape must be a tuple of non-negative integers like (64, 128)");
	if (*s == '0' && c->p - s > 1)
		return bad(c, "shape has an integer with a leading zero");
	*v = x;
	return LBT_OK;
}

static int shape_tuple(cur *c, lbt_shape *s)
{
	if (c->p == c->end || *c->p != '(')
		return bad(c, "shape must be a tuple like (64, 128)");
	c->p++;
	ws(c);
	int comma = 0;
	while (c->p < c->end && *c->p != ')') {
		if (s->dims == LBT_MAXD)
			return lbt_errf(c->e, LBT_EINVAL, "%s: shape has more than %d axes", c->name, LBT_MAXD);
		int st = extent(c, &s->ext[s->dims++]);
		if (st)
			return st;
		ws(c);
		comma = c->p < c->end && *c->p == ',';
		if (comma) {
			c->p++;
			ws(c);
		} else if (c->p < c->end && *c->p != ')')
			return bad(c, "shape's extents must be separated by commas");
	}
	if (c->p == c->end)
		return bad(c, "shape tuple is not closed");
	c->p++;
	if (s->dims == 1 && !comma)
		return bad(c, "shape (N) is not a tuple: NumPy writes (N,)");
	return LBT_OK;
}

/* Every byte printable ASCII or whitespace; otherwise say whether it is not UTF-8 at all. */
static int text_check(cur *c)
{
	const unsigned char *p = (const unsigned char *)c->p, *end = (const unsigned char *)c->end;
	for (; p < end; p++) {
		if (*p < 0x80) {
			if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r' && *p != '\f')
				return bad(c, "control character in the header");
			continue;
		}
		int n = (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : -1;
		for (int i = 1; n > 0 && i <= n; i++)
			if (p + i >= end || (p[i] & 0xc0) != 0x80)
				n = -1;
		return bad(c, n < 0 ? "header is not valid UTF-8" : "header has a non-ASCII character outside any valid value");
	}
	return LBT_OK;
}

static int dict(cur *c, lbt_npy_info *h)
{
	enum { DESCR = 1, FORTRAN = 2, SHAPE = 4 };
	int seen = 0, st;
	ws(c);
	if (c->p == c->end || *c->p != '{')
		return bad(c, "not a dict literal");
	c->p++;
	ws(c);
	while (c->p < c->end && *c->p != '}') {
		char key[32], val[32];
		if ((st = string(c, key, sizeof key, "expected a quoted key")))
			return st;
		int k = !strcmp(key, "descr") ? DESCR : !strcmp(key, "fortran_order") ? FORTRAN : !strcmp(key, "shape") ? SHAPE : 0;
		if (!k) {
			char m[96];
			snprintf(m, sizeof m, "unknown key '%s'", key);
			return bad(c, m);
		}
		if (seen & k) {
			char m[96];
			snprintf(m, sizeof m, "duplicate key '%s'", key);
			return bad(c, m);
		}
		seen |= k;
		ws(c);
		if (c->p == c->end || *c->p != ':')
			return bad(c, "expected ':' after a key");
		c->p++;
		ws(c);
		if (k == DESCR) {
			if ((st = string(c, val, sizeof val, "descr must be a string such as '<i4'")))
				return st;
			static const struct { const char *d; int real, elem; } ok[] = {
				{"<i4", 0, 4}, {"<i8", 0, 8}, {"<f4", 1, 4}, {"<f8", 1, 8}};
			size_t i = 0;
			while (i < sizeof ok / sizeof *ok && strcmp(val, ok[i].d))
				i++;
			if (i == sizeof ok / sizeof *ok)
				return lbt_errf(c->e, LBT_EINVAL, "%s: dtype '%s' is not supported: loads must be int32, int64, "
				                "float32 or float64, little-endian ('<i4', '<i8', '<f4', '<f8')", c->name, val);
			h->real = ok[i].real;
			h->elem = ok[i].elem;
		} else if (k == FORTRAN) {
			size_t n = (size_t)(c->end - c->p);
			if (n >= 5 && !strncmp(c->p, "False", 5))
				c->p += 5;
			else if (n >= 4 && !strncmp(c->p, "True", 4))
				return lbt_errf(c->e, LBT_EINVAL, "%s: Fortran-ordered arrays are not supported; save in C order", c->name);
			else
				return bad(c, "fortran_order must be True or False");
		} else if ((st = shape_tuple(c, &h->shape)))
			return st;
		ws(c);
		if (c->p < c->end && *c->p == ',') {
			c->p++;
			ws(c);
		} else if (c->p < c->end && *c->p != '}')
			return bad(c, "expected ',' or '}' after a value");
	}
	if (c->p == c->end)
		return bad(c, "dict is not closed");
	c->p++;
	ws(c);
	if (c->p != c->end)
		return bad(c, "text after the dict");
	if (seen != (DESCR | FORTRAN | SHAPE))
		return bad(c, !(seen & DESCR) ? "key 'descr' is missing" : !(seen & FORTRAN) ? "key 'fortran_order' is missing"
		                                                              : "key 'shape' is missing");
	return LBT_OK;
}

int lbt_npy_fparse(FILE *f, const char *name, int64_t size, lbt_npy_info *h, lbt_err *e)
{
	memset(h, 0, sizeof *h);
	unsigned char pre[12];
	if (fread(pre, 1, 8, f) != 8 || memcmp(pre, "\x93NUMPY", 6))
		return lbt_errf(e, LBT_EINVAL, "%s is not a .npy file", name);
	int major = pre[6], minor = pre[7];
	if ((major < 1 || major > 3) || minor != 0)
		return lbt_errf(e, LBT_EINVAL, "%s: .npy format version %d.%d is not one of 1.0, 2.0, 3.0", name, major, minor);
	int lenb = major == 1 ? 2 : 4;
	if (fread(pre + 8, 1, (size_t)lenb, f) != (size_t)lenb)
		return lbt_errf(e, LBT_EINVAL, "%s: truncated .npy header", name);
	uint32_t hlen = pre[8] | (uint32_t)pre[9] << 8;
	if (lenb == 4)
		hlen |= (uint32_t)pre[10] << 16 | (uint32_t)pre[11] << 24;
	if (hlen > MAX_HEADER)
		return lbt_errf(e, LBT_EINVAL, "%s: .npy header of %lu bytes is too long", name, (unsigned long)hlen);
	char *hd = malloc(hlen + 1);
	if (!hd)
		return lbt_errf(e, LBT_ENOMEM, "out of memory");
	int st;
	if (fread(hd, 1, hlen, f) != hlen)
		st = lbt_errf(e, LBT_EINVAL, "%s: truncated .npy header", name);
	else {
		cur c = {hd, hd + hlen, name, e};
		if (!(st = text_check(&c)) && !(st = dict(&c, h))) {
			char what[200];
			snprintf(what, sizeof what, "%s: shape", name);
			st = lbt_shape_check(&h->shape, what, e);
		}
	}
	free(hd);
	if (st)
		return st;
	h->offset = 8 + lenb + (int64_t)hlen;
	int64_t want = h->offset + lbt_shape_pes(&h->shape) * h->elem; /* <= 2^36 * 8: no overflow */
	if (size >= 0 && size < want)
		return lbt_errf(e, LBT_EINVAL, "%s: data ends before %lld values (file truncated?)", name,
		                (long long)lbt_shape_pes(&h->shape));
	if (size > want)
		return lbt_errf(e, LBT_EINVAL, "%s: %lld bytes of trailing data after the array", name, (long long)(size - want));
	return LBT_OK;
}

int lbt_npy_convert(const char *name, const lbt_npy_info *h, const void *raw, int64_t first, int64_t n, int32_t *iout,
                    double *dout, lbt_err *e)
{
	if (iout && h->real)
		return lbt_errf(e, LBT_EINVAL, "%s holds real values (dtype float%d): integer loads want int32 or int64",
		                name, h->elem * 8);
	for (int64_t j = 0; j < n; j++) {
		const unsigned char *b = (const unsigned char *)raw + j * h->elem;
		const int64_t i = first + j;
		if (h->real) {
			double x;
			if (h->elem == 4) {
				float y;
				memcpy(&y, b, 4);
				x = y;
			} else
				memcpy(&x, b, 8);
			if (!isfinite(x))
				return lbt_errf(e, LBT_EINVAL, "%s: value %g at flat index %lld is not a finite number", name, x,
				                (long long)i);
			dout[j] = x;
			continue;
		}
		int64_t v;
		if (h->elem == 4) {
			int32_t y;
			memcpy(&y, b, 4);
			v = y;
		} else
			memcpy(&v, b, 8);
		if (iout && (v > INT32_MAX || v < INT32_MIN))
			return lbt_errf(e, LBT_ERANGE, "%s: load %lld at flat index %lld does not fit in int32", name,
			                (long long)v, (long long)i);
		if (iout)
			iout[j] = (int32_t)v;
		else
			dout[j] = (double)v;
	}
	return LBT_OK;
}

int lbt_npy_fdata(FILE *f, const char *name, const lbt_npy_info *h, int32_t *iout, double *dout, lbt_err *e)
{
	const int64_t P = lbt_shape_pes(&h->shape);
	if (!iout && !dout)
		return lbt_errf(e, LBT_EINTERNAL, "nowhere to read %s into", name);
	enum { BUF = 8192 };
	unsigned char buf[BUF * 8];
	int st = LBT_OK;
	for (int64_t i = 0; !st && i < P;) {
		size_t k = (size_t)(P - i < BUF ? P - i : BUF);
		if (fread(buf, (size_t)h->elem, k, f) != k)
			return lbt_errf(e, LBT_EINVAL, "%s: data ends before %lld values (file truncated?)", name, (long long)P);
		st = lbt_npy_convert(name, h, buf, i, (int64_t)k, iout ? iout + i : NULL, dout ? dout + i : NULL, e);
		i += (int64_t)k;
	}
	if (st)
		return st;
	if (fgetc(f) != EOF)
		return lbt_errf(e, LBT_EINVAL, "%s: trailing data after the array", name);
	return LBT_OK;
}

/* Open path, a regular file (input.h), and parse its header; its size is
 * checked against the header. */
static FILE *open_parse(const char *path, lbt_npy_info *h, lbt_err *e, int *st)
{
	FILE *f;
	struct stat sb;
	if ((*st = lbt_in_open(path, NULL, &f, e)))
		return NULL;
	int64_t size = fstat(fileno(f), &sb) == 0 ? (int64_t)sb.st_size : -1;
	if ((*st = lbt_npy_fparse(f, path, size, h, e))) {
		fclose(f);
		return NULL;
	}
	return f;
}

int lbt_npy_info_read(const char *path, lbt_npy_info *info, lbt_err *e)
{
	int st;
	FILE *f = open_parse(path, info, e, &st);
	if (f)
		fclose(f);
	return st;
}

int lbt_npy_shape(const char *path, lbt_shape *s, lbt_err *e)
{
	lbt_npy_info h;
	int st = lbt_npy_info_read(path, &h, e);
	if (!st)
		*s = h.shape;
	return st;
}

/* The header's shape is `want`, or one line saying it is not. */
static int shape_is(const char *path, const lbt_npy_info *h, const lbt_shape *want, lbt_err *e)
{
	int same = h->shape.dims == want->dims;
	for (int d = 0; same && d < want->dims; d++)
		same = h->shape.ext[d] == want->ext[d];
	if (same)
		return LBT_OK;
	char a[128], b[128];
	lbt_shape_format(&h->shape, a, sizeof a);
	lbt_shape_format(want, b, sizeof b);
	return lbt_errf(e, LBT_EINVAL, "%s has shape %s but the torus is %s", path, a, b);
}

static int read_as(const char *path, const lbt_shape *want, int32_t *iout, double *dout, lbt_err *e)
{
	int st;
	lbt_npy_info h;
	FILE *f = open_parse(path, &h, e, &st);
	if (!f)
		return st;
	if (!(st = shape_is(path, &h, want, e)))
		st = lbt_npy_fdata(f, path, &h, iout, dout, e);
	fclose(f);
	return st;
}

int lbt_npy_read_pieces(const char *path, const lbt_shape *want, int (*piece)(void *ctx, int64_t first, int64_t n,
                        const int32_t *iv, const double *dv), void *ctx, lbt_err *e)
{
	enum { PIECE = 1 << 16 };
	int st;
	lbt_npy_info h;
	FILE *f = open_parse(path, &h, e, &st);
	if (!f)
		return st;
	const int64_t P = lbt_shape_pes(&h.shape);
	unsigned char *raw = malloc((size_t)PIECE * 8);
	void *cells = malloc((size_t)PIECE * 8);
	if (!raw || !cells)
		st = lbt_errf(e, LBT_ENOMEM, "no memory to read %s", path);
	else
		st = shape_is(path, &h, want, e);
	for (int64_t i = 0; !st && i < P; i += PIECE) {
		const int64_t k = P - i < PIECE ? P - i : PIECE;
		if (fread(raw, (size_t)h.elem, (size_t)k, f) != (size_t)k)
			st = lbt_errf(e, LBT_EINVAL, "%s: data ends before %lld values (file truncated?)", path, (long long)P);
		else if (!(st = lbt_npy_convert(path, &h, raw, i, k, h.real ? NULL : cells, h.real ? cells : NULL, e)))
			st = piece(ctx, i, k, h.real ? NULL : cells, h.real ? cells : NULL);
	}
	if (!st && fgetc(f) != EOF)
		st = lbt_errf(e, LBT_EINVAL, "%s: trailing data after the array", path);
	free(raw);
	free(cells);
	fclose(f);
	return st;
}

int lbt_npy_read(const char *path, const lbt_shape *want, int32_t *out, lbt_err *e)
{
	return read_as(path, want, out, NULL, e);
}

int lbt_npy_read_real(const char *path, const lbt_shape *want, double *out, lbt_err *e)
{
	return read_as(path, want, NULL, out, e);
}

int lbt_npy_header(char *buf, const lbt_shape *s, const char *descr)
{
	char dict[512], shp[300] = "";
	size_t used = 0;
	for (int d = 0; d < s->dims; d++)
		used += (size_t)snprintf(shp + used, sizeof shp - used, "%lld,%s", (long long)s->ext[d],
		                         d + 1 < s->dims ? " " : "");
	if (s->dims > 1)
		shp[used - 1] = 0; /* "(64, 128)" but "(8,)" */
	int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, shp);
	int pad = (64 - (10 + n + 1) % 64) % 64; /* data starts 64-byte aligned */
	unsigned hlen = (unsigned)(n + pad + 1);
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	buf[8] = (char)(hlen & 0xff);
	buf[9] = (char)(hlen >> 8);
	sprintf(buf + 10, "%s%*s\n", dict, pad, "");
	return 10 + (int)hlen;
}

static void write_header(FILE *f, const lbt_shape *s, const char *descr)
{
	char h[LBT_NPY_HEADER_MAX];
	fwrite(h, 1, (size_t)lbt_npy_header(h, s, descr), f);
}

int lbt_npy_write_file(FILE *f, const lbt_shape *s, const int32_t *data)
{
	write_header(f, s, "<i4");
	size_t P = (size_t)lbt_shape_pes(s);
	return fwrite(data, sizeof *data, P, f) == P ? LBT_OK : LBT_EIO;
}

int lbt_npy_write(const char *path, const lbt_shape *s, const int32_t *data, lbt_err *e)
{
	lbt_outfile o;
	int st = lbt_out_open(&o, path, e);
	if (st)
		return st;
	if (lbt_npy_write_file(o.f, s, data)) {
		lbt_out_abort(&o);
		return lbt_errf(e, LBT_EIO, "cannot write %s", path);
	}
	return lbt_out_commit(&o, e);
}
