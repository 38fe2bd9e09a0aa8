/* sweep.c — running a plan into a results file that survives being killed.
 *
 * Invariants:
 * - A record is appended only when its run has finished, as one write() of
 *   one whole line, followed by fsync: a killed sweep loses at most the runs
 *   in flight, and can leave at most one partial line, the last, which the
 *   next invocation cuts off before appending.
 * - A run is done iff a line with its run_key is in the file; an invocation
 *   runs exactly the plan's runs not yet done, so no key is ever written
 *   twice (two sweeps on one file are kept apart by an exclusive flock).
 * - Runs with fewer than solo_pes PEs go several at once, one thread each,
 *   inside one OpenMP parallel region; a run's thread count travels with
 *   its state to the kernels (num_threads clauses; the library never sets
 *   OpenMP's global state), so concurrent runs never change each other's.
 *   Bigger runs go one at a time on all threads. Results do not depend on
 *   either: a run's record is a function of its key, except for the fields
 *   threads, seconds and site_updates_per_second, and lines appear in the
 *   order runs finish. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "lbtorus/run.h"
#include "lbtorus/sweep.h"
#include "out/jsonl.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct {
	char **key;
	int64_t n, cap;
} keyset;

static void keyset_free(keyset *k)
{
	for (int64_t i = 0; i < k->n; i++)
		free(k->key[i]);
	free(k->key);
}

/* Collect the run keys recorded in the file; cut off a partial last line. */
static int read_done(int fd, const char *path, keyset *ks, int *truncated, lbt_err *e)
{
	int fd2 = dup(fd);
	FILE *f = fd2 >= 0 ? fdopen(fd2, "r") : NULL;
	if (!f) {
		if (fd2 >= 0) close(fd2);
		return lbt_errf(e, LBT_EIO, "cannot read %s", path);
	}
	rewind(f);
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	off_t at = 0;
	int64_t ln = 0;
	int st = LBT_OK;
	lbt_jobj o = {0};
	lbt_err sub;
	while ((len = getline(&line, &cap, f)) > 0) {
		ln++;
		if (line[len - 1] != '\n') { /* the partial line of a killed writer */
			if (ftruncate(fd, at))
				st = lbt_errf(e, LBT_EIO, "cannot cut the partial last line off %s", path);
			*truncated = 1;
			break;
		}
		at += len;
		if (strspn(line, " \t\r\n") == (size_t)len)
			continue;
		const char *key = NULL;
		int unparsed = memchr(line, 0, (size_t)len) ? lbt_errf(&sub, LBT_EINVAL, "a NUL byte in the line")
		                                             : lbt_jobj_parse(&o, line, &sub);
		if (unparsed || !(key = lbt_jobj_str(&o, "run_key"))) {
			st = lbt_errf(e, LBT_EINVAL, "%s:%lld is not a sweep record (%s): use another results file",
			              path, (long long)ln, unparsed ? sub.msg : "no run_key");
			break;
		}
		if (ks->n == ks->cap) {
			int64_t c = ks->cap ? 2 * ks->cap : 256;
			char **k = realloc(ks->key, (size_t)c * sizeof *k);
			if (!k) { st = lbt_errf(e, LBT_ENOMEM, "no memory for the keys of %s", path); break; }
			ks->key = k;
			ks->cap = c;
		}
		if (!(ks->key[ks->n] = strdup(key))) { st = lbt_errf(e, LBT_ENOMEM, "no memory"); break; }
		ks->n++;
	}
	free(line);
	lbt_jobj_free(&o);
	fclose(f);
	if (!st && ks->n)
		qsort(ks->key, (size_t)ks->n, sizeof *ks->key, cmp_str);
	return st;
}

/* Run r; on success *line holds its record, newline-terminated. */
static int run_one(const lbt_sweep_run *r, int threads, const lbt_sweep_opts *o, char **line, size_t *len,
                   int *reached, int *interrupted, lbt_err *e)
{
	lbt_setup set = {.shape = r->shape, .boundary = r->boundary, .method = r->mname, .init = r->init,
	                 .isa = o->isa, .seed = r->seed, .threads = threads};
	if (r->param)
		set.params[0] = (lbt_param_arg){r->param->name, r->pvalue};
	lbt_run_opts ro = lbt_run_opts_default();
	ro.max_steps = r->max_steps;
	ro.verify = o->verify;
	ro.interrupt = o->interrupt;
	lbt_state st;
	lbt_summary sum;
	lbt_workload w;
	int status = lbt_until_parse(&ro.until, r->until, e);
	if (status || (status = lbt_state_open(&st, &set, e)))
		return status;
	if (r->workload && (status = lbt_workload_parse(&w, r->workload, st.method->load, e))) {
		lbt_state_close(&st);
		return status;
	}
	if (r->workload && w.phase)
		ro.workload = &w;
	status = lbt_run(&st, &ro, &sum, e);
	*interrupted = !status && sum.stop == LBT_STOP_INTERRUPTED;
	if (!status && !*interrupted) {
		char *rec = NULL;
		size_t rlen = 0;
		FILE *m = open_memstream(&rec, &rlen);
		if (m) {
			lbt_summary_json(m, &st, r->init, &ro, &sum);
			fclose(m);
		}
		FILE *l = rec ? open_memstream(line, len) : NULL;
		if (!l)
			status = lbt_errf(e, LBT_ENOMEM, "no memory for a record");
		else {
			fprintf(l, "{\"run_id\":\"%s\",\"run_key\":", r->id);
			lbt_json_string(l, r->key);
			fprintf(l, ",%s\n", rec + 1);
			fclose(l);
		}
		free(rec);
		*reached = sum.reached;
	}
	lbt_state_close(&st);
	return status;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t k = write(fd, buf, len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		buf += k;
		len -= (size_t)k;
	}
	return 0;
}

typedef struct {
	const lbt_sweep_opts *o;
	lbt_sweep_progress *p;
	int fd, status;
	const char *path;
	lbt_err err;
	double t0;
} exec_ctx;

/* One run, start to record; serialized where it touches shared state. */
static void do_run(exec_ctx *x, const lbt_sweep_run *r, int threads)
{
	char *line = NULL;
	size_t len = 0;
	int reached = 0, interrupted = 0;
	lbt_err e;
	int st = run_one(r, threads, x->o, &line, &len, &reached, &interrupted, &e);
	int wrote = 0;
#pragma omp critical(lbt_sweep_write)
	if (!st && !interrupted) {
		off_t end = lseek(x->fd, 0, SEEK_END);
		wrote = !write_all(x->fd, line, len);
		if (!wrote && end >= 0) /* cut a torn line (disk full): later lines must not follow it */
			(void)!ftruncate(x->fd, end);
	}
	/* Outside the lock, so concurrent runs' fsyncs overlap. A kill after the
	 * write keeps the line (it is in the page cache); fsync guards against
	 * the machine going down. */
	if (!st && !interrupted && (!wrote || fsync(x->fd)))
		st = lbt_errf(&e, LBT_EIO, "cannot append to %s: %s", x->path, strerror(errno));
#pragma omp critical(lbt_sweep)
	{
		x->p->in_flight--;
		if (st) {
			x->p->failed++;
			snprintf(x->p->last_error, sizeof x->p->last_error, "%.200s: %.300s", r->key, e.msg);
			if (!x->status) {
				x->status = st;
				x->err = e;
			}
		} else if (interrupted)
			x->p->interrupted++;
		else {
			x->p->done++;
			x->p->unconverged += !reached;
		}
		x->p->work_done += (double)r->pes * (double)r->k;
		x->p->seconds = lbt_seconds() - x->t0;
		if (x->o->on_progress)
			x->o->on_progress(x->o->ctx, x->p);
	}
	free(line);
}

int lbt_sweep_exec(const lbt_plan *pl, const char *results, const lbt_sweep_opts *o,
                   lbt_sweep_progress *out, lbt_err *e)
{
	memset(out, 0, sizeof *out);
	out->total = pl->n;
	int fd = open(results, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return lbt_errf(e, LBT_EIO, "cannot open results file %s: %s", results, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		return lbt_errf(e, LBT_EIO, "%s is being written by another sweep (it is locked)", results);
	}
	keyset done = {0};
	int st = read_done(fd, results, &done, &out->truncated, e);
	const lbt_sweep_run **small = NULL, **solo = NULL;
	int64_t ns = 0, nb = 0;
	if (!st && pl->n && (!(small = malloc((size_t)pl->n * sizeof *small)) || !(solo = malloc((size_t)pl->n * sizeof *solo))))
		st = lbt_errf(e, LBT_ENOMEM, "no memory for the sweep's queue");
	for (int64_t i = 0; !st && i < pl->n; i++) {
		const lbt_sweep_run *r = &pl->run[i];
		const char *k = r->key;
		if (done.n && bsearch(&k, done.key, (size_t)done.n, sizeof *done.key, cmp_str)) {
			out->skipped++;
			continue;
		}
		out->work_total += (double)r->pes * (double)r->k;
		if (r->pes >= o->solo_pes)
			solo[nb++] = r;
		else
			small[ns++] = r;
	}
	keyset_free(&done);
	if (st) {
		free(small);
		free(solo);
		close(fd);
		return st;
	}
#ifdef _OPENMP
	int jobs = o->jobs > 0 ? o->jobs : omp_get_max_threads(); /* $OMP_NUM_THREADS or all cores */
#else
	int jobs = 1;
#endif
	exec_ctx x = {.o = o, .p = out, .fd = fd, .path = results, .t0 = lbt_seconds()};
	if (o->on_progress)
		o->on_progress(o->ctx, out);
	int64_t next = 0;
	if (jobs > ns)
		jobs = ns > 0 ? (int)ns : 1;
#pragma omp parallel num_threads(jobs) if (jobs > 1)
	for (;;) {
		int64_t i;
#pragma omp atomic capture
		i = next++;
		if (i >= ns || (o->interrupt && *o->interrupt))
			break;
#pragma omp critical(lbt_sweep)
		out->in_flight++;
		do_run(&x, small[i], 1);
	}
	for (int64_t i = 0; i < nb && !(o->interrupt && *o->interrupt); i++) {
		out->in_flight++;
		do_run(&x, solo[i], o->threads);
	}
	free(small);
	free(solo);
	close(fd); /* releases the lock */
	if (x.status)
		return lbt_errf(e, x.status, "%lld of %lld runs failed; the first: %s", (long long)out->failed,
		                (long long)(ns + nb), x.err.msg);
	return LBT_OK;
}
