/* provenance.c — the one place that says what made a result; every writer
 * of records, traces and output directories calls it.
 *
 * The build's facts are compiled in (build_info.c, made by meson's vcs_tag);
 * the machine's are read when a record is written: the CPU's model from
 * /proc/cpuinfo, the host name, the UTC time, the MPI ranks. The call is set
 * once by the program (the CLI's argv). None of it enters a sweep's run key:
 * a record is still a function of its key apart from these fields. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "lbtorus/comm.h"
#include "lbtorus/kernels.h"
#include "lbtorus/provenance.h"
#include "core/sha256.h"
#include "out/build_info.h"
#include "out/jsonl.h"

static char call_text[8192] = "C API";
static struct {
	char role[32], hex[65];
} inputs[8]; /* the inputs every record of the process names (a sweep's spec file) */
static int ninputs;

int lbt_provenance_add_input(const char *role, const char *path, lbt_err *e)
{
	if (ninputs == (int)(sizeof inputs / sizeof *inputs))
		return lbt_errf(e, LBT_EINVAL, "more than %d input files for the provenance", ninputs);
	int st = lbt_sha256_file(path, inputs[ninputs].hex, e);
	if (st)
		return st;
	snprintf(inputs[ninputs++].role, sizeof inputs[0].role, "%s", role);
	return LBT_OK;
}

void lbt_provenance_drop_input(const char *role)
{
	for (int i = ninputs - 1; i >= 0; i--)
		if (!strcmp(inputs[i].role, role)) {
			memmove(&inputs[i], &inputs[i + 1], (size_t)(ninputs - 1 - i) * sizeof *inputs);
			ninputs--;
			return;
		}
}

void lbt_provenance_set_call(const char *call) { snprintf(call_text, sizeof call_text, "%s", call); }
const char *lbt_provenance_call(void) { return call_text; }
const char *lbt_build_git(void) { return lbt_build_git_text; }
const char *lbt_build_compiler(void) { return lbt_build_compiler_text; }
const char *lbt_build_flags(void) { return lbt_build_flags_text; }

void lbt_provenance_set_argv(int argc, char *const argv[])
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=:,./+@%";
	char *w = call_text, *end = call_text + sizeof call_text - 6; /* room for a quote's 4 bytes, a quote, NUL */
	for (int i = 0; i < argc && w < end; i++) {
		const char *a = argv[i];
		const int plain = *a && strspn(a, safe) == strlen(a);
		if (i)
			*w++ = ' ';
		if (!plain)
			*w++ = '\'';
		for (; *a && w < end; a++) {
			if (*a == '\'' && !plain) { /* '\'' */
				memcpy(w, "'\\''", 4);
				w += 4;
			} else
				*w++ = *a;
		}
		if (!plain)
			*w++ = '\'';
	}
	*w = 0;
}

void lbt_cpu_model(char *buf, size_t n)
{
	snprintf(buf, n, "unknown CPU");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		char *c = strchr(line, ':');
		if (c && !strncmp(line, "model name", 10)) {
			c += 1 + strspn(c + 1, " \t");
			c[strcspn(c, "\n")] = 0;
			snprintf(buf, n, "%s", c);
			break;
		}
	}
	fclose(f);
}

typedef struct {
	char cpu[256], host[256], date[32], isa[32];
	int threads;
} facts;

static void gather(facts *x, const char *isa, int threads)
{
	lbt_cpu_model(x->cpu, sizeof x->cpu);
	if (gethostname(x->host, sizeof x->host) || !*x->host)
		snprintf(x->host, sizeof x->host, "unknown");
	x->host[sizeof x->host - 1] = 0;
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(x->date, sizeof x->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
	lbt_kernels k;
	lbt_err e;
	snprintf(x->isa, sizeof x->isa, "%s", isa && *isa ? isa : !lbt_kernels_select(&k, NULL, &e) ? k.isa : "scalar");
	x->threads = threads;
#ifdef _OPENMP
	if (threads <= 0)
		x->threads = omp_get_max_threads();
#endif
	if (x->threads <= 0)
		x->threads = 1;
}

static void member(FILE *f, const char *k, const char *v)
{
	fprintf(f, ",\"%s\":", k);
	lbt_json_string(f, v);
}

static void json(FILE *f, const char *isa, int threads, int with_isa)
{
	facts x;
	gather(&x, isa, threads);
	fprintf(f, ",\"format\":%d", LBT_FORMATS_VERSION);
	member(f, "git", lbt_build_git_text);
	member(f, "compiler", lbt_build_compiler_text);
	member(f, "cflags", lbt_build_flags_text);
	member(f, "cpu", x.cpu);
	member(f, "host", x.host);
	member(f, "date_utc", x.date);
	fprintf(f, ",\"ranks\":%d", lbt_comm_size());
	member(f, "command", call_text);
	for (int i = 0; i < ninputs; i++)
		fprintf(f, ",\"%s_sha256\":\"%s\"", inputs[i].role, inputs[i].hex);
	if (with_isa) {
		member(f, "isa", x.isa);
		fprintf(f, ",\"threads\":%d", x.threads);
	}
}

void lbt_provenance_json(FILE *f, const char *isa, int threads) { json(f, isa, threads, isa != NULL); }

void lbt_provenance_file_json(FILE *f, const char *role, const char *path)
{
	char hex[65];
	lbt_err e;
	fprintf(f, ",\"%s_sha256\":", role);
	if (lbt_sha256_file(path, hex, &e))
		fputs("null", f);
	else
		fprintf(f, "\"%s\"", hex);
}

/* v on the rest of a comment line: a control character (a newline in an
 * argument) as \xHH, so the comment cannot end early and what follows it be
 * read as data (a .dat) or run (a gnuplot script). */
static void comment_value(FILE *f, const char *k, const char *v)
{
	fprintf(f, "# %s: ", k);
	for (; *v; v++)
		if ((unsigned char)*v < 0x20 || *v == 0x7f)
			fprintf(f, "\\x%02x", (unsigned char)*v);
		else
			fputc(*v, f);
	fputc('\n', f);
}

void lbt_provenance_comment(FILE *f, const char *isa, int threads)
{
	facts x;
	gather(&x, isa, threads);
	fprintf(f, "# lbtorus: %s\n# format: %d\n", LBT_VERSION, LBT_FORMATS_VERSION);
	comment_value(f, "git", lbt_build_git_text);
	comment_value(f, "compiler", lbt_build_compiler_text);
	comment_value(f, "cflags", lbt_build_flags_text);
	comment_value(f, "cpu", x.cpu);
	comment_value(f, "host", x.host);
	fprintf(f, "# date_utc: %s\n# ranks: %d\n", x.date, lbt_comm_size());
	comment_value(f, "command", call_text);
	fprintf(f, "# isa: %s\n# threads: %d\n", x.isa, x.threads);
	for (int i = 0; i < ninputs; i++)
		fprintf(f, "# %s_sha256: %s\n", inputs[i].role, inputs[i].hex);
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int lbt_provenance_manifest(const char *dir, const char *name, const char *isa, int threads, lbt_err *e)
{
	char path[8400], mine[512];
	snprintf(mine, sizeof mine, "%s.manifest.json", name);
	DIR *d = opendir(dir);
	if (!d)
		return lbt_errf(e, LBT_EIO, "cannot read %s for its manifest", dir);
	char **names = NULL;
	size_t n = 0, cap = 0;
	int st = LBT_OK;
	struct dirent *de;
	while (!st && (de = readdir(d))) {
		struct stat sb;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (de->d_name[0] == '.' || !strcmp(de->d_name, mine) || stat(path, &sb) || !S_ISREG(sb.st_mode))
			continue;
		if (n == cap) {
			char **p = realloc(names, (cap = cap ? 2 * cap : 32) * sizeof *p);
			if (!p) {
				st = lbt_errf(e, LBT_ENOMEM, "no memory for the manifest of %s", dir);
				break;
			}
			names = p;
		}
		if (!(names[n] = strdup(de->d_name)))
			st = lbt_errf(e, LBT_ENOMEM, "no memory for the manifest of %s", dir);
		else
			n++;
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof *names, cmp_name);
	snprintf(path, sizeof path, "%s/%s", dir, mine);
	FILE *f = st ? NULL : fopen(path, "w");
	if (!st && !f)
		st = lbt_errf(e, LBT_EIO, "cannot write %s", path);
	if (f) {
		fprintf(f, "{\"lbtorus\":\"%s\"", LBT_VERSION);
		member(f, "manifest_of", name);
		json(f, isa ? isa : "", threads, 1);
		for (size_t i = 0; i < n && !st; i++) {
			char hex[65], key[600];
			snprintf(path, sizeof path, "%s/%s", dir, names[i]);
			if ((st = lbt_sha256_file(path, hex, e)))
				break;
			snprintf(key, sizeof key, "file:%s", names[i]);
			fputc(',', f);
			lbt_json_string(f, key);
			fprintf(f, ":\"%s\"", hex);
		}
		fputs("}\n", f);
		int bad = ferror(f);
		if ((fclose(f) || bad) && !st)
			st = lbt_errf(e, LBT_EIO, "cannot write %s", path);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return st;
}
