/* npy.c — reading and writing NumPy .npy files of int32 or int64 loads.
 * Format (numpy.lib.format): "\x93NUMPY", major, minor, header length
 * (uint16 for 1.0, uint32 for 2.0/3.0), then a Python dict literal with
 * 'descr', 'fortran_order' and 'shape', padded with spaces to 64 bytes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/io.h"
#include "lbtorus/npy.h"

typedef struct {
	int elem;       /* 4 or 8 */
	lbt_shape shape;
	long data_off;
} npy_header;

static int parse_header(FILE *f, const char *path, npy_header *h, lbt_err *e)
{
	unsigned char pre[10];
	if (fread(pre, 1, 8, f) != 8 || memcmp(pre, "\x93NUMPY", 6))
		return lbt_errf(e, LBT_EINVAL, "%s is not a .npy file", path);
	int major = pre[6];
	uint32_t hlen;
	long start;
	if (major == 1) {
		if (fread(pre + 8, 1, 2, f) != 2)
			return lbt_errf(e, LBT_EINVAL, "%s: truncated .npy header", path);
		hlen = pre[8] | (uint32_t)pre[9] << 8;
		start = 10;
	} else if (major == 2 || major == 3) {
		unsigned char l[4];
		if (fread(l, 1, 4, f) != 4)
			return lbt_errf(e, LBT_EINVAL, "%s: truncated .npy header", path);
		hlen = l[0] | (uint32_t)l[1] << 8 | (uint32_t)l[2] << 16 | (uint32_t)l[3] << 24;
		start = 12;
	} else
		return lbt_errf(e, LBT_EINVAL, "%s: unsupported .npy version %d", path, major);
	if (hlen > 65536)
		return lbt_errf(e, LBT_EINVAL, "%s: .npy header too long", path);
	char *hd = calloc(hlen + 1, 1);
	if (!hd)
		return lbt_errf(e, LBT_ENOMEM, "out of memory");
	int st = LBT_OK;
	if (fread(hd, 1, hlen, f) != hlen) {
		st = lbt_errf(e, LBT_EINVAL, "%s: truncated .npy header", path);
		goto out;
	}
	const char *d = strstr(hd, "'descr'");
	const char *fo = strstr(hd, "'fortran_order'");
	const char *sh = strstr(hd, "'shape'");
	if (!d || !fo || !sh) {
		st = lbt_errf(e, LBT_EINVAL, "%s: .npy header lacks descr, fortran_order or shape", path);
		goto out;
	}
	d = strchr(d + 7, '\'');
	if (d && (!strncmp(d, "'<i4'", 5) || !strncmp(d, "'<i8'", 5)))
		h->elem = d[3] - '0';
	else {
		char got[16] = "?";
		if (d)
			sscanf(d, "'%15[^']", got);
		st = lbt_errf(e, LBT_EINVAL, "%s: dtype %s is not supported: loads must be int32 or int64 (little-endian)", path, got);
		goto out;
	}
	fo = strchr(fo + 15, ':');
	while (fo && (*fo == ':' || *fo == ' '))
		fo++;
	if (!fo || strncmp(fo, "False", 5)) {
		st = lbt_errf(e, LBT_EINVAL, "%s: Fortran-ordered arrays are not supported; save in C order", path);
		goto out;
	}
	const char *p = strchr(sh, '(');
	memset(&h->shape, 0, sizeof h->shape);
	if (!p) {
		st = lbt_errf(e, LBT_EINVAL, "%s: malformed shape in .npy header", path);
		goto out;
	}
	for (p++;;) {
		while (*p == ' ' || *p == ',')
			p++;
		if (*p == ')')
			break;
		char *end;
		errno = 0;
		long long v = strtoll(p, &end, 10);
		if (end == p || errno || v < 0 || h->shape.dims == LBT_MAXD) {
			st = lbt_errf(e, LBT_EINVAL, "%s: shape in .npy header is malformed or has more than %d axes", path, LBT_MAXD);
			goto out;
		}
		h->shape.ext[h->shape.dims++] = v;
		p = end;
	}
	if (h->shape.dims == 0) {
		st = lbt_errf(e, LBT_EINVAL, "%s: a 0-d array is not a torus", path);
		goto out;
	}
	h->data_off = start + (long)hlen;
out:
	free(hd);
	return st;
}

static FILE *open_read(const char *path, lbt_err *e, int *st)
{
	FILE *f = fopen(path, "rb");
	*st = f ? LBT_OK : lbt_errf(e, LBT_EIO, "cannot read %s: %s", path, strerror(errno));
	return f;
}

int lbt_npy_shape(const char *path, lbt_shape *s, lbt_err *e)
{
	int st;
	FILE *f = open_read(path, e, &st);
	if (!f)
		return st;
	npy_header h;
	st = parse_header(f, path, &h, e);
	fclose(f);
	if (st == LBT_OK) {
		for (int d = 0; d < h.shape.dims; d++)
			if (h.shape.ext[d] < 1)
				return lbt_errf(e, LBT_EINVAL, "%s: extent 0 in axis %d", path, d);
		*s = h.shape;
	}
	return st;
}

int lbt_npy_read(const char *path, const lbt_shape *want, int32_t *out, lbt_err *e)
{
	int st;
	FILE *f = open_read(path, e, &st);
	if (!f)
		return st;
	npy_header h;
	if ((st = parse_header(f, path, &h, e)))
		goto out;
	int same = h.shape.dims == want->dims;
	for (int d = 0; same && d < want->dims; d++)
		same = h.shape.ext[d] == want->ext[d];
	if (!same) {
		char a[128], b[128];
		lbt_shape_format(&h.shape, a, sizeof a);
		lbt_shape_format(want, b, sizeof b);
		st = lbt_errf(e, LBT_EINVAL, "%s has shape %s but the torus is %s", path, a, b);
		goto out;
	}
	int64_t P = lbt_shape_pes(want);
	enum { BUF = 8192 };
	int64_t buf[BUF];
	for (int64_t i = 0; i < P;) {
		size_t k = (size_t)(P - i < BUF ? P - i : BUF);
		if (fread(buf, (size_t)h.elem, k, f) != k) {
			st = lbt_errf(e, LBT_EINVAL, "%s: data ends before %lld values", path, (long long)P);
			goto out;
		}
		for (size_t j = 0; j < k; j++, i++) {
			int64_t v = h.elem == 4 ? ((int32_t *)buf)[j] : buf[j];
			if (v > INT32_MAX || v < INT32_MIN) {
				st = lbt_errf(e, LBT_ERANGE, "%s: load %lld at flat index %lld does not fit in int32", path, (long long)v, (long long)i);
				goto out;
			}
			out[i] = (int32_t)v;
		}
	}
out:
	fclose(f);
	return st;
}

static void write_header(FILE *f, const lbt_shape *s, const char *descr)
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
	fwrite("\x93NUMPY\x01\x00", 1, 8, f);
	fputc((int)(hlen & 0xff), f);
	fputc((int)(hlen >> 8), f);
	fprintf(f, "%s%*s\n", dict, pad, "");
}

int lbt_npy_write_file(FILE *f, const lbt_shape *s, const int32_t *data)
{
	write_header(f, s, "<i4");
	size_t P = (size_t)lbt_shape_pes(s);
	return fwrite(data, sizeof *data, P, f) == P ? LBT_OK : LBT_EIO;
}

int lbt_npy_write_real_file(FILE *f, const lbt_shape *s, const double *data)
{
	write_header(f, s, "<f8");
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
