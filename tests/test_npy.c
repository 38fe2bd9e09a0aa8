/* test_npy.c — `--init file:F.npy` takes exactly what NumPy writes (format
 * versions 1.0, 2.0, 3.0; int32/int64, and float32/float64 for the
 * real-valued methods) and refuses everything else with one line, exit 2 and
 * no file written (issue 14, items 1, 10 and 11). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

static const int32_t eight[8] = {3, 0, 9, 1, 4, 4, 0, 7};

/* Inputs live in in/, the run happens in out/ (which must stay empty). */
typedef struct {
	char root[64], in[96], out[96];
} dirs;

static void mkdirs(dirs *d)
{
	th_tmpdir(d->root, sizeof d->root);
	snprintf(d->in, sizeof d->in, "%s/in", d->root);
	snprintf(d->out, sizeof d->out, "%s/out", d->root);
	cr_assert(!mkdir(d->in, 0700) && !mkdir(d->out, 0700));
}

/* Write in/NAME with the given header and data; return "file:<path>". */
static const char *npy(dirs *d, const char *name, int major, const char *header, int raw, const void *data, size_t n)
{
	static char spec[8][200];
	static int k;
	char path[160];
	snprintf(path, sizeof path, "%s/%s", d->in, name);
	th_write_npy(path, major, header, raw, data, n);
	k = (k + 1) % 8;
	snprintf(spec[k], sizeof spec[k], "file:%s", path);
	return spec[k];
}

static void refused(dirs *d, const char *init, const char *needle)
{
	th_usage_error(d->out, TH_ARGS("run", "--init", init, "--until", "steps:3", "--json", "o.json", "--dump", "g.npy"),
	               needle);
}

static void accepted(dirs *d, const char *init, const char *method)
{
	char *out, *err;
	int rc = th_cli(d->out, TH_ARGS("run", "--init", init, "--method", method, "--until", "steps:2", "--quiet"), &out, &err);
	cr_assert_eq(rc, 0, "%s: exit %d: %s", init, rc, err);
	free(out);
	free(err);
}

/* Item 1: a header whose shape overflows int64 in the PE count crashed the
 * run (SIGFPE, or SIGSEGV with --until steps:3); every shape from a file now
 * gets --shape's limits, in every position and every way of overflowing. */
Test(npy, huge_shapes_in_a_header_are_refused)
{
	dirs d;
	mkdirs(&d);
	refused(&d, npy(&d, "a.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", 0, eight, 32),
	        "2^36 PEs");
	refused(&d, npy(&d, "b.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (4, 4611686018427387904), }", 0, eight, 32),
	        "2^36 PEs");
	refused(&d, npy(&d, "c.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (65536, 65536, 65536), }", 0, eight, 32),
	        "2^36 PEs");
	refused(&d, npy(&d, "e.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999,), }", 0, eight, 32),
	        "2^63");
	refused(&d, npy(&d, "f.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (8, 0), }", 0, eight, 32), "positive");
	refused(&d, npy(&d, "g.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,8), }", 0, eight, 32),
	        "more than 8 axes");
	refused(&d, npy(&d, "h.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (), }", 0, eight, 32), "0-d");
	/* and through the API: lbt_shape_pes no longer overflows */
	lbt_shape s = {.dims = 2, .ext = {INT64_C(4611686018427387904), 4}};
	cr_assert_eq(lbt_shape_pes(&s), -1);
	lbt_err e;
	cr_assert_eq(lbt_shape_check(&s, "s", &e), LBT_EINVAL);
	th_rm_tree(d.root);
}

/* Item 10: NumPy's format, strictly. */
Test(npy, malformed_headers_are_refused_with_one_line)
{
	dirs d;
	mkdirs(&d);
	const char *ok = "{'descr': '<i4', 'fortran_order': False, 'shape': (8,), }";
	int32_t nine[9] = {0};
	refused(&d, npy(&d, "trail.npy", 1, ok, 0, nine, sizeof nine), "trailing data");
	refused(&d, npy(&d, "short.npy", 1, ok, 0, eight, 20), "truncated");
	refused(&d, npy(&d, "plus.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (+8,), }", 0, eight, 32), "shape");
	refused(&d, npy(&d, "commas.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (,,8,,), }", 0, eight, 32), "shape");
	refused(&d, npy(&d, "space.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (75807 1), }", 0, eight, 32), "commas");
	refused(&d, npy(&d, "paren.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (8), }", 0, eight, 32), "not a tuple");
	refused(&d, npy(&d, "zero.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (08,), }", 0, eight, 32), "leading zero");
	refused(&d, npy(&d, "dup.npy", 1, "{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (8,), }", 0, eight, 32),
	        "duplicate key 'descr'");
	refused(&d, npy(&d, "dup2.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (8,), 'shape': (4,)}", 0, eight, 32),
	        "duplicate key 'shape'");
	refused(&d, npy(&d, "extra.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (8,), 'x': 1}", 0, eight, 32),
	        "unknown key 'x'");
	refused(&d, npy(&d, "miss.npy", 1, "{'descr': '<i4', 'fortran_order': False}", 0, eight, 32), "'shape' is missing");
	refused(&d, npy(&d, "latin.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (8,), } \xe9", 0, eight, 32), "UTF-8");
	refused(&d, npy(&d, "utf8.npy", 3, "{'descr': '<i4', 'fortran_order': False, 'shape': (8,), } \xc3\xa9", 0, eight, 32),
	        "non-ASCII");
	refused(&d, npy(&d, "nul.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (8,), }\x01", 0, eight, 32), "control");
	refused(&d, npy(&d, "after.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (8,), } x", 0, eight, 32),
	        "after the dict");
	refused(&d, npy(&d, "open.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (8,", 0, eight, 32), "not closed");
	refused(&d, npy(&d, "fort.npy", 1, "{'descr': '<i4', 'fortran_order': True, 'shape': (8,), }", 0, eight, 32), "Fortran");
	refused(&d, npy(&d, "fort2.npy", 1, "{'descr': '<i4', 'fortran_order': 0, 'shape': (8,), }", 0, eight, 32), "True or False");
	refused(&d, npy(&d, "big.npy", 1, "{'descr': '>i4', 'fortran_order': False, 'shape': (8,), }", 0, eight, 32), "'>i4'");
	refused(&d, npy(&d, "u8.npy", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (8,), }", 0, eight, 32), "'|u1'");
	refused(&d, npy(&d, "v4.npy", 4, ok, 0, eight, 32), "version 4.0");
	refused(&d, npy(&d, "hlen.npy", 1, ok, 1, eight, 0), "truncated");
	refused(&d, npy(&d, "empty.npy", 1, "", 1, NULL, 0), "not a dict");
	const char *text = npy(&d, "text.npy", 1, "", 1, NULL, 0);
	FILE *f = fopen(text + 5, "w"); /* a CSV named .npy */
	fputs("step,max\n0,1\n", f);
	fclose(f);
	refused(&d, text, "not a .npy file");
	th_rm_tree(d.root);
}

/* What NumPy writes, in its three versions and both quotes, with or without
 * the trailing comma, keys in any order: all read the same loads. */
Test(npy, numpy_variants_are_accepted)
{
	dirs d;
	mkdirs(&d);
	accepted(&d, npy(&d, "v1.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (8,), }", 0, eight, 32), "lm-c5");
	accepted(&d, npy(&d, "v2.npy", 2, "{'descr': '<i4', 'fortran_order': False, 'shape': (8,), }", 0, eight, 32), "lm-c5");
	accepted(&d, npy(&d, "v3.npy", 3, "{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": (8,)}", 0, eight, 32), "lm-c5");
	accepted(&d, npy(&d, "order.npy", 1, "{'shape': (2, 4), 'fortran_order': False, 'descr': '<i4'}", 0, eight, 32), "lm-c5");
	accepted(&d, npy(&d, "tight.npy", 1, "{'descr':'<i4','fortran_order':False,'shape':(2,4,)}", 0, eight, 32), "nna");
	int64_t wide[8];
	for (int i = 0; i < 8; i++)
		wide[i] = eight[i];
	accepted(&d, npy(&d, "i8.npy", 1, "{'descr': '<i8', 'fortran_order': False, 'shape': (8,), }", 0, wide, sizeof wide), "fos");
	th_rm_tree(d.root);
}

/* Item 11: real-valued loads start the real-valued methods; finite values
 * only; the integer methods refuse them, naming the methods that take them. */
Test(npy, real_valued_files_start_real_methods)
{
	dirs d;
	mkdirs(&d);
	const double r[8] = {0.5, 1.25, 3, 0, 7.75, 2, 2, 1e-3};
	const float r4[8] = {0.5f, 1.25f, 3, 0, 7.75f, 2, 2, 1e-3f};
	const char *f8 = npy(&d, "f8.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 4), }", 0, r, sizeof r);
	const char *f4 = npy(&d, "f4.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }", 0, r4, sizeof r4);
	accepted(&d, f8, "fos");
	accepted(&d, f8, "de");
	accepted(&d, f8, "ca");
	accepted(&d, f4, "fos");
	th_usage_error(d.out, TH_ARGS("run", "--init", f8, "--method", "lm-c5", "--json", "o.json"), "real-valued methods (fos");
	th_usage_error(d.out, TH_ARGS("run", "--init", f4, "--method", "nna", "--json", "o.json"), "float32");
	double bad[8];
	memcpy(bad, r, sizeof bad);
	bad[5] = NAN;
	th_usage_error(d.out, TH_ARGS("run", "--method", "fos", "--json", "o.json", "--init",
	                              npy(&d, "nan.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (8,), }", 0, bad, 64)),
	               "flat index 5 is not a finite number");
	bad[5] = -INFINITY;
	th_usage_error(d.out, TH_ARGS("run", "--method", "de", "--json", "o.json", "--init",
	                              npy(&d, "inf.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (8,), }", 0, bad, 64)),
	               "not a finite number");
	bad[5] = -2;
	th_usage_error(d.out, TH_ARGS("run", "--method", "fos", "--json", "o.json", "--init",
	                              npy(&d, "neg.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (8,), }", 0, bad, 64)),
	               "negative");
	bad[5] = 1.7e308;
	bad[6] = 1.7e308;
	th_usage_error(d.out, TH_ARGS("run", "--method", "fos", "--json", "o.json", "--init",
	                              npy(&d, "sum.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (8,), }", 0, bad, 64)),
	               "load 1.7e+308 at flat index 5 is beyond 2^53");
	th_rm_tree(d.root);
}

/* Item 11: a real-valued run's own --dump starts the next run, bit for bit. */
Test(npy, real_dump_reads_back_bit_for_bit)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	static const char *const methods[] = {"fos", "de", "ca"};
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(th_cli(dir, TH_ARGS("run", "--shape", "6x5", "--method", methods[i], "--init", "uniform:0:90",
		                                 "--until", "steps:7", "--dump", "a.npy", "--json", "a.json", "--quiet"), NULL, NULL), 0);
		char *err;
		cr_assert_eq(th_cli(dir, TH_ARGS("run", "--method", methods[i], "--init", "file:a.npy", "--until", "steps:0",
		                                 "--dump", "b.npy", "--json", "b.json", "--quiet"), NULL, &err), 0, "%s", err);
		free(err);
		char pa[128], pb[128];
		snprintf(pa, sizeof pa, "%s/a.npy", dir);
		snprintf(pb, sizeof pb, "%s/b.npy", dir);
		size_t na, nb;
		char *a = th_read(pa, &na), *b = th_read(pb, &nb);
		cr_assert(na == nb && !memcmp(a, b, na), "%s: dump -> file: -> dump changed bits", methods[i]);
		cr_assert_eq(na, 128 + 30 * 8, "float64 data");
		free(a);
		free(b);
	}
	th_rm_tree(dir);
}
