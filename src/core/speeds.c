/* speeds.c — the per-PE field "speed" from a spec, and the network of a run
 * from --link (include/lbtorus/speeds.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/npy.h"
#include "lbtorus/number.h"
#include "lbtorus/rng.h"
#include "lbtorus/speeds.h"
#include "comm/comm.h"
#include "core/npy_stream.h"

/* One field up to sep (or the end) as a text for the one number parser. */
static int field(const char *s, char sep, char *buf, size_t n, const char **end)
{
	size_t k = sep ? strcspn(s, (char[]){sep, 0}) : strlen(s);
	*end = s + k;
	if (k >= n)
		return -1;
	memcpy(buf, s, k);
	buf[k] = 0;
	return 0;
}

/* Every speed, given or read from a file, is in SPEED_LO..SPEED_HI, so
 * their sum over 2^36 PEs and the ratio of the fastest to the slowest
 * (relative loads divide by it) stay far from overflow. */
#define SPEED_LO 1e-6
#define SPEED_HI 1e6
static int number(const char *s, const char *spec, double *x, const char **rest, char sep, lbt_err *e)
{
	char buf[64];
	const char *end;
	if (field(s, sep, buf, sizeof buf, &end) || (!rest && *end) || lbt_parse_f64(buf, SPEED_LO, SPEED_HI, 0, "", x, NULL))
		return lbt_errf(e, LBT_EINVAL, "speeds '%s': expected a number in [1e-06, 1e+06] at '%s'", spec, s);
	if (rest)
		*rest = *end ? end + 1 : NULL;
	return LBT_OK;
}

int lbt_speeds_parse(lbt_speeds *sp, const char *text, lbt_err *e)
{
	memset(sp, 0, sizeof *sp);
	const char *arg = strchr(text, ':');
	size_t kw = arg ? (size_t)(arg - text) : strlen(text);
	if (!arg)
		return lbt_errf(e, LBT_EINVAL, "speeds '%s': use const:V, uniform:LO:HI, classes:V1,V2,... or file:F.npy", text);
	arg++;
	const char *rest = NULL;
	int st;
	if (kw == 5 && !strncmp(text, "const", 5)) {
		sp->kind = LBT_SPEEDS_CONST;
		sp->n = 1;
		return number(arg, text, &sp->v[0], NULL, 0, e);
	}
	if (kw == 7 && !strncmp(text, "uniform", 7)) {
		sp->kind = LBT_SPEEDS_UNIFORM;
		if ((st = number(arg, text, &sp->v[0], &rest, ':', e)))
			return st;
		if (!rest)
			return lbt_errf(e, LBT_EINVAL, "speeds '%s': write uniform:LO:HI", text);
		if ((st = number(rest, text, &sp->v[1], NULL, 0, e)))
			return st;
		if (sp->v[1] < sp->v[0])
			return lbt_errf(e, LBT_EINVAL, "speeds '%s': HI is below LO", text);
		sp->n = 2;
		return LBT_OK;
	}
	if (kw == 7 && !strncmp(text, "classes", 7)) {
		sp->kind = LBT_SPEEDS_CLASSES;
		for (rest = arg; rest;) {
			if (sp->n == 16)
				return lbt_errf(e, LBT_EINVAL, "speeds '%s': at most 16 classes", text);
			if ((st = number(rest, text, &sp->v[sp->n++], &rest, ',', e)))
				return st;
		}
		return LBT_OK;
	}
	if (kw == 4 && !strncmp(text, "file", 4)) {
		sp->kind = LBT_SPEEDS_FILE;
		if (!*arg || strlen(arg) >= sizeof sp->path)
			return lbt_errf(e, LBT_EINVAL, "speeds '%s': name a .npy file (path below 4096 bytes)", text);
		strcpy(sp->path, arg);
		return LBT_OK;
	}
	return lbt_errf(e, LBT_EINVAL, "unknown speeds '%.*s': use const, uniform, classes or file", (int)kw, text);
}

/* A file's speeds on a torus cut between ranks: each rank reads its block
 * (lbt_npy_read_block, collective), then checks it; every rank agrees
 * after each pass on the lowest failing rank's error. */
static int file_block(const lbt_speeds *sp, lbt_grid *g, lbt_err *e)
{
	lbt_npy_info info;
	int st = lbt_npy_info_read_shaped(sp->path, &g->whole, &info, 1, e);
	const lbt_field *f = lbt_grid_field(g, "speed");
	if (!(st = lbt_comm_agree(st, e)))
		st = lbt_comm_agree(lbt_npy_read_block(sp->path, &info, g, f, e), e);
	const int64_t n = g->shape.ext[g->shape.dims - 1], rows = lbt_shape_pes(&g->shape) / n;
	for (int64_t r = 0; !st && r < rows; r++) {
		const double *row = lbt_field_row(g, f, r);
		for (int64_t x = 0; x < n && !st; x++)
			if (!(row[x] >= SPEED_LO && row[x] <= SPEED_HI))
				st = lbt_errf(e, LBT_EINVAL, "%s: speed %g at flat index %lld is not a number in [1e-06, 1e+06]",
				              sp->path, row[x], (long long)(lbt_grid_row_global(g, r) + x));
	}
	return lbt_comm_agree(st, e);
}

/* Speeds reach the field in chunks of whole rows, about CHUNK PEs each,
 * with a look at the stop flag between chunks: a file's from its values
 * read whole, drawn ones from a buffer of one chunk (a 16384^2 torus's
 * speeds once went through a dense copy of 2 GiB and a copy into the
 * field that no signal could stop). A PE's draw is by its global index, so
 * a torus cut between ranks gets one process's speeds. */
int lbt_speeds_apply(const lbt_speeds *sp, lbt_grid *g, uint64_t seed, const volatile sig_atomic_t *stop, lbt_err *e)
{
	enum { CHUNK = 1 << 16 };
	const int64_t P = lbt_shape_pes(&g->shape), n = g->shape.ext[g->shape.dims - 1], R = P / n;
	const int64_t per = CHUNK / n > 1 ? CHUNK / n : 1; /* rows a chunk */
	int st = lbt_grid_add_field(g, "speed", LBT_F64, e);
	if (st)
		return st;
	const int file = sp->kind == LBT_SPEEDS_FILE;
	if (file && g->cut)
		return file_block(sp, g, e);
	double *buf = malloc((size_t)(file ? P : per * n) * sizeof *buf);
	if (!buf)
		return lbt_errf(e, LBT_ENOMEM, "no memory for %lld speeds", (long long)(file ? P : per * n));
	/* a file: any dtype NumPy writes (float64 from np.save of reals), finite values only */
	if (file && !(st = lbt_npy_read_real(sp->path, &g->shape, buf, e)))
		for (int64_t i = 0; i < P && !st; i++)
			if (!(buf[i] >= SPEED_LO && buf[i] <= SPEED_HI))
				st = lbt_errf(e, LBT_EINVAL, "%s: speed %g at flat index %lld is not a number in [1e-06, 1e+06]",
				              sp->path, buf[i], (long long)i);
	const lbt_field *f = lbt_grid_field(g, "speed");
	for (int64_t r0 = 0; r0 < R && !st; r0 += per) {
		if (stop && *stop) {
			st = lbt_errf(e, LBT_EINTR, "interrupted while the speeds were set");
			break;
		}
		const int64_t r1 = r0 + per < R ? r0 + per : R;
		double *src = file ? buf + r0 * n : buf;
		for (int64_t i = r0 * n; !file && i < r1 * n; i++) {
			const uint64_t r = lbt_rand(seed, 0, (uint64_t)(lbt_grid_row_global(g, i / n) + i % n), LBT_RNG_SPEED);
			double *d = &src[i - r0 * n];
			switch (sp->kind) {
			case LBT_SPEEDS_CONST: *d = sp->v[0]; break;
			case LBT_SPEEDS_UNIFORM: *d = sp->v[0] + (sp->v[1] - sp->v[0]) * ((double)(r >> 11) * 0x1p-53); break;
			case LBT_SPEEDS_CLASSES: *d = sp->v[lbt_rand_range(r, 0, sp->n - 1)]; break;
			case LBT_SPEEDS_FILE: break; /* read above */
			}
		}
		lbt_field_import_rows(g, f, src, r0, r1);
	}
	free(buf);
	return st;
}

int lbt_link_parse(lbt_net *n, const char *text, lbt_err *e)
{
	const char *t = !strcmp(text, "lan") ? LBT_LINK_LAN : !strcmp(text, "dsl") ? LBT_LINK_DSL : text;
	char buf[64];
	const char *end;
	double lat, bw;
	static const char want[] = "--link '%s': give LAT:BW (latency 0 <= LAT <= 1e9 ms, bandwidth 0 < BW <= 1e9 Mb/s), "
	                           "lan or dsl";
	if (field(t, ':', buf, sizeof buf, &end) || *end != ':' || lbt_parse_f64(buf, 0, 1e9, 0, "", &lat, NULL))
		return lbt_errf(e, LBT_EINVAL, want, text);
	if (field(end + 1, 0, buf, sizeof buf, &end) || lbt_parse_f64(buf, 0, 1e9, 1, "", &bw, NULL))
		return lbt_errf(e, LBT_EINVAL, want, text);
	*n = (lbt_net){.lat = lat * 1e-3, .bw = bw * 1e6 / 8, .unit_bytes = 1000, .unit_s = 1e-5,
	               .pack_s = 0, .info_bytes = 16, .app_bytes = 1000};
	return LBT_OK;
}
