/* sweep.c — running a plan into a results file that survives being killed.
 *
 * Invariants:
 * - A record is appended only when its run has finished, as one write() of
 *   one whole line, followed by fsync: a killed sweep loses at most the runs
 *   in flight, and can leave at most one partial line, the last, which the
 *   next invocation moves to RESULTS.torn before appending (a last line that
 *   parses is a record whose newline is missing: it is completed).
 * - The first record that cannot be appended (a full disk) stops the sweep:
 *   no run starts after it, so no run is computed to be thrown away.
 * - A run is done iff a line with its run_key is in the file; an invocation
 *   runs exactly the plan's runs not yet done, so no key is ever written
 *   twice (two sweeps on one file are kept apart by an exclusive flock).
 * - Runs with fewer than solo_pes PEs go several at once, one thread each,
 *   inside one OpenMP parallel region; a run's thread count travels with
 *   its state to the kernels (num_threads clauses; the library never sets
 *   OpenMP's global state), so concurrent runs never change each other's.
 *   Bigger runs go one at a time on all threads. Results do not depend on
 *   either: a run's record is a function of its key, except for the fields
 *   threads, seconds and site_updates_per_second and the provenance (date,
 *   host, command, ...: src/out/provenance.c), and lines appear in the
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
#include "comm/comm.h"
#include "core/input.h"

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

/* A last line without its newline: a record (its newline is added) or a
 * killed writer's torn line, moved to PATH.torn (appended, synced) before it
 * is cut off at `at`: nothing is deleted. */
static int last_line(int fd, const char *path, const char *line, size_t len, off_t at, int whole,
                     lbt_sweep_progress *p, lbt_err *e)
{
	if (whole) {
		if (write(fd, "\n", 1) != 1 || fsync(fd))
			return lbt_errf(e, LBT_EIO, "cannot add the newline to the last record of %s: %s", path, strerror(errno));
		p->completed = 1;
		return LBT_OK;
	}
	char torn[4200];
	snprintf(torn, sizeof torn, "%s.torn", path);
	int t = open(torn, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	int bad = t < 0 || write(t, line, len) != (ssize_t)len || write(t, "\n", 1) != 1 || fsync(t);
	int err = errno;
	if (t >= 0)
		close(t);
	if (bad)
		return lbt_errf(e, LBT_EIO, "%s ends in a torn line; cannot set it aside in %s: %s", path, torn, strerror(err));
	if (ftruncate(fd, at))
		return lbt_errf(e, LBT_EIO, "cannot cut the torn last line off %s: %s", path, strerror(errno));
	p->truncated = 1;
	return LBT_OK;
}

/* Collect the run keys recorded in the file; complete or set aside a last
 * line without its newline (last_line). */
static int read_done(int fd, const char *path, keyset *ks, lbt_sweep_progress *p, lbt_err *e)
{
	int fd2 = dup(fd);
	FILE *f = fd2 >= 0 ? fdopen(fd2, "r") : NULL;
	if (!f) {
		if (fd2 >= 0) close(fd2);
		return lbt_errf(e, LBT_EIO, "cannot read %s", path);
	}
	rewind(f);
	char *line = NULL;
	size_t cap = 0, len;
	off_t at = 0;
	int64_t ln = 0;
	int st = LBT_OK;
	lbt_jobj o = {0};
	lbt_err sub;
	for (;;) {
		if ((st = lbt_in_line(f, &line, &cap, &len, &sub)))
			lbt_errf(e, st, "%s:%lld: %s", path, (long long)ln + 1, sub.msg);
		if (st || !len)
			break;
		ln++;
		const int last = line[len - 1] != '\n';
		if (strspn(line, " \t\r\n") == len) {
			at += (off_t)len;
			continue;
		}
		const char *key = NULL;
		int unparsed = memchr(line, 0, len) ? lbt_errf(&sub, LBT_EINVAL, "a NUL byte in the line")
		                                     : lbt_jobj_parse(&o, line, &sub);
		if (last && unparsed) {
			st = last_line(fd, path, line, len, at, 0, p, e);
			break;
		}
		if (unparsed || !(key = lbt_jobj_str(&o, "run_key"))) {
			st = lbt_errf(e, LBT_EINVAL, "%s:%lld is not a sweep record (%s): use another results file",
			              path, (long long)ln, unparsed ? sub.msg : "no run_key");
			break;
		}
		at += (off_t)len;
		if (ks->n == ks->cap) {
			int64_t c = ks->cap ? 2 * ks->cap : 256;
			char **k = realloc(ks->key, (size_t)c * sizeof *k);
			if (!k) { st = lbt_errf(e, LBT_ENOMEM, "no memory for the keys of %s", path); break; }
			ks->key = k;
			ks->cap = c;
		}
		if (!(ks->key[ks->n] = strdup(key))) { st = lbt_errf(e, LBT_ENOMEM, "no memory"); break; }
		ks->n++;
		if (last && (st = last_line(fd, path, line, len, at, 1, p, e)))
			break;
	}
	free(line);
	lbt_jobj_free(&o);
	fclose(f);
	if (!st && ks->n)
		qsort(ks->key, (size_t)ks->n, sizeof *ks->key, cmp_str);
	return st;
}

/* Whether r's workload is a search tree (it numbers its nodes across slabs). */
static int tree(const lbt_plan_run *r)
{
	char wname[64] = "";
	if (r->workload)
		snprintf(wname, sizeof wname, "%.*s", (int)strcspn(r->workload, ":"), r->workload);
	const lbt_workload *wf = lbt_workload_find(wname);
	return wf && wf->tasks;
}

/* Run r; on success *line holds its record, newline-terminated, unless
 * the run was interrupted (*interrupted: no record, it runs again on resume). */
static int run_one(const lbt_plan_run *r, int threads, int cut, const lbt_exec_opts *o, char **line, size_t *len,
                   int *reached, int *interrupted, lbt_err *e)
{
	lbt_setup set = {.shape = r->shape, .boundary = r->boundary, .method = r->mname, .init = r->init,
	                 .isa = o->isa, .seed = r->seed, .threads = threads, .cut = cut, .interrupt = o->interrupt,
	                 .slabs = tree(r)}; /* a search tree numbers its nodes across slabs */
	for (int j = 0; j < r->args.n; j++)
		set.params[j] = (lbt_param_arg){r->args.p[j]->name, r->args.value[j]};
	lbt_run_opts ro = lbt_run_opts_default();
	ro.max_steps = r->max_steps;
	ro.warmup = r->warmup;
	ro.verify = o->verify;
	ro.interrupt = o->interrupt;
	ro.batch = 1; /* no observer reads the grid */
	*interrupted = 0;
	lbt_state st;
	lbt_summary sum;
	lbt_workload w;
	int status = lbt_until_parse(&ro.until, r->until, e);
	if (!status)
		status = lbt_state_open(&st, &set, e); /* cut: the lowest failing rank's status on every rank */
	if (status == LBT_EINTR) { /* a signal in its set-up: it runs again on resume */
		*interrupted = 1;
		return LBT_OK;
	}
	if (status)
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
	const lbt_exec_opts *o;
	lbt_sweep_progress *p;
	int fd, status;
	int stop; /* an append failed: start no run, write nothing more */
	const char *path;
	lbt_err err;
	double t0;
} exec_ctx;

/* A finished run (st, and its record line or error e) into the file and
 * the progress; serialized where it touches shared state. */
static void finish(exec_ctx *x, const lbt_plan_run *r, int st, const char *line, size_t len, int reached,
                   int interrupted, lbt_err e)
{
	int wrote = 0, stopped = 0;
#pragma omp critical(lbt_sweep_write)
	if (!st && !interrupted) {
#pragma omp atomic read
		stopped = x->stop;
		if (!stopped) {
			off_t end = lseek(x->fd, 0, SEEK_END);
			wrote = !write_all(x->fd, line, len);
			if (!wrote && end >= 0) /* cut a torn line (disk full): later lines must not follow it */
				(void)!ftruncate(x->fd, end);
		}
	}
	/* Outside the lock, so concurrent runs' fsyncs overlap. A kill after the
	 * write keeps the line (it is in the page cache); fsync guards against
	 * the machine going down. */
	if (!st && !interrupted && !stopped && (!wrote || fsync(x->fd))) {
		const int err = errno;
#pragma omp critical(lbt_sweep)
		if (!x->stop) {
#pragma omp atomic write
			x->stop = 1; /* read by the loop that starts runs */
			x->status = lbt_errf(&x->err, LBT_EIO, "cannot append to %s: %s", x->path, strerror(err));
		}
		stopped = 1;
	}
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
		} else if (interrupted || stopped)
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
}

/* One run, start to record. */
static void do_run(exec_ctx *x, const lbt_plan_run *r, int threads)
{
	char *line = NULL;
	size_t len = 0;
	int reached = 0, interrupted = 0;
	lbt_err e;
	int st = run_one(r, threads, 0, x->o, &line, &len, &reached, &interrupted, &e);
	finish(x, r, st, line, len, reached, interrupted, e);
	free(line);
}

/* What an invocation of nt runs returns: LBT_OK, the stop on a failed
 * append, or the first run error. */
static int verdict(const exec_ctx *x, int64_t nt, lbt_err *e)
{
	if (x->stop)
		return lbt_errf(e, LBT_EIO, "%s; the sweep stopped there: %lld of %lld runs are in %s, the same command "
		                "finishes the rest", x->err.msg, (long long)(x->p->done + x->p->skipped),
		                (long long)x->p->total, x->path);
	if (x->status)
		return lbt_errf(e, x->status, "%lld of %lld runs failed; the first: %s", (long long)x->p->failed,
		                (long long)nt, x->err.msg);
	return LBT_OK;
}

/* The runs of pl not yet in the open, locked results file fd, in plan
 * order, into todo (room for pl->n); counts skipped runs and the work. */
static int to_do(const lbt_plan *pl, int fd, const char *results, int64_t *todo, int64_t *nt,
                 lbt_sweep_progress *out, lbt_err *e)
{
	keyset done = {0};
	int st = read_done(fd, results, &done, out, e);
	for (int64_t i = 0; !st && i < pl->n; i++) {
		const char *k = pl->run[i].key;
		if (done.n && bsearch(&k, done.key, (size_t)done.n, sizeof *done.key, cmp_str)) {
			out->skipped++;
			continue;
		}
		out->work_total += (double)pl->run[i].pes * (double)pl->run[i].k;
		todo[(*nt)++] = i;
	}
	keyset_free(&done);
	return st;
}

/* The results file, a regular file (a device or FIFO would never end or
 * take nothing: input.h), open for appending and locked. */
static int open_locked(const char *results, int *fd, lbt_err *e)
{
	*fd = open(results, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0644);
	if (*fd < 0)
		return lbt_errf(e, LBT_EIO, "cannot open results file %s: %s", results, strerror(errno));
	int st = lbt_in_regular(*fd, results, "results file", e);
	if (!st && fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK))
		st = lbt_errf(e, LBT_EIO, "cannot open results file %s: %s", results, strerror(errno));
	if (st) {
		close(*fd);
		return st;
	}
	if (flock(*fd, LOCK_EX | LOCK_NB)) {
		close(*fd);
		return lbt_errf(e, LBT_EIO, "%s is being written by another sweep (it is locked)", results);
	}
	return LBT_OK;
}

/* A sweep spread over MPI ranks (lbt_exec_opts.mpi). Rank 0 holds the
 * results file: it locks it, reads what is done, and appends every record.
 * The small runs not yet done go round-robin in plan order — the i-th to
 * rank i mod R — each rank running its own one after the other (threads as
 * in one process: 1, or o->threads from solo_pes PEs on) at its own pace.
 * A rank sends each finished run to rank 0 as one message ("INDEX REACHED
 * INTERRUPTED STATUS\n" and the record line, or the error) without waiting
 * for it to be received, and after its last run a message that it is done;
 * rank 0 appends the records that came before each of its own runs, and
 * after its last waits for the rest. A signal to one rank, or an append
 * that failed on rank 0, reaches every rank before its next run
 * (lbt_comm_watch): each stops after its current run, and no rank waits
 * for another's runs but at the end. Then the large runs (whole() below) go
 * one after the other over all ranks, each torus cut between them, rank 0
 * appending the record. The records are those of one process (a record is
 * a function of its run key), in another order; a killed sweep resumes as
 * ever. Every rank returns rank 0's counts. */
enum { MSG_RUN = 1, MSG_DONE = 2 };

/* A run for all R ranks at once: at least solo_pes PEs, a method whose
 * kernels take cut views, extents that a grid of R ranks cuts (a search
 * tree: slabs, its first axis with links a layer for every rank). */
static int whole(const lbt_plan_run *r, const lbt_exec_opts *o, int R)
{
	const lbt_method *m = lbt_method_find(r->mname);
	lbt_shape s;
	lbt_err e;
	if (r->pes < o->solo_pes || !m || !(m->flags & LBT_M_CUT) || lbt_shape_parse(&s, r->shape, &e))
		return 0;
	int nr[LBT_MAXD], first = 0;
	while (first < s.dims - 1 && s.ext[first] < 2)
		first++;
	if (tree(r))
		return s.ext[first] >= R;
	return lbt_cut_grid(R, s.dims, s.ext, NULL, nr, &e) == LBT_OK;
}

static void take_message(exec_ctx *x, const lbt_plan *pl, const char *msg, size_t n)
{
	long long index = -1;
	int reached = 0, interrupted = 0, st = LBT_EINTERNAL, used = 0;
	lbt_err e = {0};
	const char *nl = memchr(msg, '\n', n);
	if (!nl || sscanf(msg, "%lld %d %d %d%n", &index, &reached, &interrupted, &st, &used) != 4 || index < 0 ||
	    index >= pl->n) {
		x->p->failed++;
		if (!x->status) {
			x->status = lbt_errf(&x->err, LBT_EINTERNAL, "a garbled message from a rank");
		}
		return;
	}
	x->p->in_flight++;
	const char *body = nl + 1;
	size_t len = n - (size_t)(body - msg);
	if (st)
		snprintf(e.msg, sizeof e.msg, "%.*s", (int)len, body);
	finish(x, &pl->run[index], st, body, len, reached, interrupted, e);
}

/* Rank 0 opens and locks the results file and lists the runs to do; its
 * verdict (or the worst rank's: one without memory fails them all) and its
 * queue go to every rank. On success *fd (rank 0) and *todo are the
 * caller's to close and free. */
static int spread_queue(const lbt_plan *pl, const char *results, lbt_sweep_progress *out, int *fd, int64_t **todo,
                        int64_t *nt, lbt_err *e)
{
	*todo = malloc((size_t)(pl->n ? pl->n : 1) * sizeof **todo);
	*nt = 0;
	int st = *todo ? LBT_OK : lbt_errf(e, LBT_ENOMEM, "no memory for the sweep's queue");
	if (lbt_comm_rank() == 0 && !st && !(st = open_locked(results, fd, e)) &&
	    (st = to_do(pl, *fd, results, *todo, nt, out, e)))
		close(*fd);
	const int worst = -lbt_comm_min_int(-st); /* statuses are positive */
	lbt_comm_bcast(&st, sizeof st);
	st = st ? st : worst;
	lbt_comm_bcast(e->msg, sizeof e->msg);
	lbt_comm_bcast(nt, sizeof *nt);
	for (int64_t at = 0; !st && at < *nt; at += 1 << 20)
		lbt_comm_bcast(*todo + at, (int)((*nt - at < (1 << 20) ? *nt - at : 1 << 20) * (int64_t)sizeof **todo));
	if (st) {
		if (!e->msg[0])
			snprintf(e->msg, sizeof e->msg, "a rank could not take part in the sweep");
		free(*todo);
		*todo = NULL;
	}
	return st;
}

/* Rank 0: the other ranks' messages that came (wait: until every rank
 * said it is done); *left: the ranks not done yet. A rank signalled while
 * rank 0 waits tells the ranks still running (lbt_comm_watch_poll). */
static void take_all(exec_ctx *x, const lbt_plan *pl, lbt_comm_watch *w, int wait, int *left)
{
	char *msg;
	size_t n;
	int from, tag;
	for (;;) {
		if (!lbt_comm_recv(0, &from, &tag, &msg, &n)) {
			if (!wait || !*left)
				return;
			lbt_comm_watch_poll(w, x->stop);
			nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL); /* 1 ms: waiting, not spinning */
			continue;
		}
		if (tag == MSG_DONE)
			--*left;
		else
			take_message(x, pl, msg, n);
		free(msg);
	}
}

/* Another rank's small run: run it and send rank 0 its record or error. */
static void spread_send(lbt_comm_watch *w, const lbt_plan_run *r, int64_t index, int threads, const lbt_exec_opts *o)
{
	char *line = NULL, *msg = NULL;
	size_t len = 0, mlen = 0;
	int reached = 0, intr = 0;
	lbt_err re;
	int rs = run_one(r, threads, 0, o, &line, &len, &reached, &intr, &re);
	FILE *m = open_memstream(&msg, &mlen);
	if (m) {
		fprintf(m, "%lld %d %d %d\n", (long long)index, reached, intr, rs);
		fputs(rs ? re.msg : line ? line : "", m); /* no line: interrupted, no record */
		fclose(m);
	}
	if (!msg || lbt_comm_watch_send(w, 0, MSG_RUN, msg, mlen))
		lbt_comm_watch_send(w, 0, MSG_RUN, "-1 0 0 0\n", 9); /* rank 0 counts it failed */
	free(msg);
	free(line);
}

/* The small runs round-robin, each rank its own, looking before each
 * whether some rank stopped (w); then the other ranks say they are done
 * and rank 0 takes their messages until all did. Returns whether the
 * sweep stopped (the same on every rank). */
static int spread_small(exec_ctx *x, const lbt_plan *pl, const int64_t *todo, int64_t nt, lbt_comm_watch *w)
{
	const lbt_exec_opts *o = x->o;
	const int R = lbt_comm_size(), me = lbt_comm_rank();
	int64_t i = 0; /* small runs dealt */
	int left = R - 1;
	for (int64_t k = 0; k < nt; k++) {
		const lbt_plan_run *r = &pl->run[todo[k]];
		if (whole(r, o, R) || i++ % R != me)
			continue;
		if (me == 0)
			take_all(x, pl, w, 0, &left);
		if (lbt_comm_watch_poll(w, x->stop))
			break;
		const int threads = r->pes >= o->solo_pes ? o->threads : 1;
		if (me != 0)
			spread_send(w, r, todo[k], threads, o);
		else {
			x->p->in_flight++;
			do_run(x, r, threads);
		}
	}
	if (me != 0)
		lbt_comm_watch_send(w, 0, MSG_DONE, "", 0);
	else
		take_all(x, pl, w, 1, &left);
	return lbt_comm_watch_close(w, x->stop);
}

/* The large runs, one after the other, each over all ranks (all stop
 * together: a cut run needs them all). */
static void spread_whole(exec_ctx *x, const lbt_plan *pl, const int64_t *todo, int64_t nt)
{
	const lbt_exec_opts *o = x->o;
	const int R = lbt_comm_size(), me = lbt_comm_rank();
	for (int64_t k = 0; k < nt; k++) {
		const lbt_plan_run *r = &pl->run[todo[k]];
		if (!whole(r, o, R))
			continue;
		if (lbt_comm_stop(o->interrupt, x->stop))
			break;
		char *line = NULL;
		size_t len = 0;
		int reached = 0, intr = 0;
		lbt_err re;
		x->p->in_flight += me == 0;
		int rs = run_one(r, o->threads, 1, o, &line, &len, &reached, &intr, &re);
		if (me == 0)
			finish(x, r, rs, line, len, reached, intr, re);
		free(line);
	}
}

static int spread_exec(const lbt_plan *pl, const char *results, const lbt_exec_opts *o,
                       lbt_sweep_progress *out, lbt_err *e)
{
	int64_t *todo, nt;
	int fd = -1, st = spread_queue(pl, results, out, &fd, &todo, &nt, e);
	if (st)
		return st;
	exec_ctx x = {.o = o, .p = out, .fd = fd, .path = results, .t0 = lbt_seconds()};
	const int me = lbt_comm_rank();
	if (me == 0 && o->on_progress)
		o->on_progress(o->ctx, out);
	lbt_comm_watch *w;
	if (lbt_comm_watch_open(&w, o->interrupt)) {
		free(todo);
		if (me == 0)
			close(fd);
		return lbt_errf(e, LBT_ENOMEM, "no memory to watch for signals");
	}
	if (!spread_small(&x, pl, todo, nt, w))
		spread_whole(&x, pl, todo, nt);
	free(todo);
	if (me == 0)
		close(fd); /* releases the lock */
	lbt_comm_bcast(out, sizeof *out);
	lbt_comm_bcast(&x.status, sizeof x.status);
	lbt_comm_bcast(&x.stop, sizeof x.stop);
	lbt_comm_bcast(&x.err, sizeof x.err);
	return verdict(&x, nt, e);
}

int lbt_sweep_exec(const lbt_plan *pl, const char *results, const lbt_exec_opts *o,
                   lbt_sweep_progress *out, lbt_err *e)
{
	memset(out, 0, sizeof *out);
	if (o->mpi && lbt_comm_size() > 1) {
		out->total = pl->n;
		return spread_exec(pl, results, o, out, e);
	}
	out->total = pl->n;
	int fd;
	int st = open_locked(results, &fd, e);
	if (st)
		return st;
	int64_t *todo = malloc((size_t)(pl->n ? pl->n : 1) * sizeof *todo), nt = 0;
	const lbt_plan_run **small = malloc((size_t)(pl->n ? pl->n : 1) * sizeof *small);
	const lbt_plan_run **solo = malloc((size_t)(pl->n ? pl->n : 1) * sizeof *solo);
	int64_t ns = 0, nb = 0;
	if (!todo || !small || !solo)
		st = lbt_errf(e, LBT_ENOMEM, "no memory for the sweep's queue");
	else
		st = to_do(pl, fd, results, todo, &nt, out, e);
	for (int64_t i = 0; !st && i < nt; i++) {
		const lbt_plan_run *r = &pl->run[todo[i]];
		if (r->pes >= o->solo_pes)
			solo[nb++] = r;
		else
			small[ns++] = r;
	}
	free(todo);
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
		int stop;
#pragma omp atomic read
		stop = x.stop;
		if (i >= ns || stop || (o->interrupt && *o->interrupt))
			break;
#pragma omp critical(lbt_sweep)
		out->in_flight++;
		do_run(&x, small[i], 1);
	}
	for (int64_t i = 0; i < nb && !x.stop && !(o->interrupt && *o->interrupt); i++) {
		out->in_flight++;
		do_run(&x, solo[i], o->threads);
	}
	free(small);
	free(solo);
	close(fd); /* releases the lock */
	return verdict(&x, ns + nb, e);
}
