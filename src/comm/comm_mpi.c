/* comm_mpi.c — the communication layer over MPI (MPI_COMM_WORLD).
 *
 * lbtorus joins MPI only when an MPI launcher started it (its environment
 * says so: Open MPI's OMPI_COMM_WORLD_SIZE, PMI or PMIx variables, as set
 * by mpirun, mpiexec and srun); started alone, an MPI build is one process
 * exactly like a build without MPI, and starts no MPI runtime.
 *
 * The ranks of a cut torus form a Cartesian grid (MPI_Cart_create, periodic
 * where the torus wraps, reorder = 0: a rank's place is its row-major place).
 * The halo fill of one axis: every rank needs the layers around its block
 * on that axis (LBT_HALO on each side, or up to the cut's depth for several
 * steps between exchanges; wrapped on a torus), from the ranks of its line
 * of the grid along the axis; whoever holds a layer sends it. A rank that
 * needs a layer of mine holds one of the layers I need (blocks are
 * contiguous along an axis), so each rank talks only to the owners of its
 * own halo layers, and sends them what they need of its block: the
 * layers one side of a halo takes from one rank in one message, however
 * deep the fill (message tag: the receiver's first halo position of it).
 * Who sends what to whom is the same
 * at every fill of an axis with as many layers: persistent requests, made
 * at the first (MPI_Send_init, MPI_Recv_init), sized by its layers, and
 * started at each (MPI_Startall). The
 * owner of a layer may be two ranks away on a short axis, which is why the
 * exchange is not MPI_Cart_shift's neighbours' (MPI_Neighbor_alltoallw).
 * A fill comes in two halves (lbt_comm_fill_start: pack, MPI_Startall;
 * lbt_comm_fill_finish: MPI_Waitall, unpack), between which a kernel
 * steps the PEs that read no halo. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "comm.h"

static int joined, rank, size = 1;
static lbt_comm_tally tally;
/* The most bytes a gather or an exchange of bytes (lbt_comm_allgather,
 * lbt_comm_gather, lbt_comm_allgatherv, lbt_comm_alltoallv) moves in one
 * MPI call, whose counts and offsets are ints: more goes in pieces of at
 * most this many (LBTORUS_COMM_PIECE=BYTES sets it smaller, to try the
 * pieces on small data), through `pieces`, MPI_COMM_WORLD's duplicate, so
 * that no other message of the program (lbt_comm_recv takes any) matches
 * one. */
static size_t piece = (size_t)1 << 30;
static MPI_Comm pieces = MPI_COMM_NULL;

void lbt_comm_tally_reset(void) { memset(&tally, 0, sizeof tally); }
void lbt_comm_tally_get(lbt_comm_tally *t) { *t = tally; }

/* A collective that started at t0 has ended. */
static void counted(double t0)
{
	tally.collectives++;
	tally.collective_seconds += MPI_Wtime() - t0;
}

int lbt_comm_mpi(void) { return 1; }

static int launched(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK", NULL};
	for (const char *const *v = vars; *v; v++)
		if (getenv(*v))
			return 1;
	return 0;
}

int lbt_comm_init(int *argc, char ***argv, lbt_err *e)
{
	if (joined || !launched())
		return LBT_OK;
	int provided;
	if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
		return lbt_errf(e, LBT_EIO, "MPI_Init_thread failed");
	joined = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_dup(MPI_COMM_WORLD, &pieces);
	const char *p = getenv("LBTORUS_COMM_PIECE");
	if (!p)
		return LBT_OK;
	/* digits only, 1 .. 2^30 (this layer is below core's number parsers) */
	size_t v = 0;
	int ok = *p != '\0';
	for (const char *c = p; ok && *c; c++) {
		ok = *c >= '0' && *c <= '9';
		v = ok ? v * 10 + (size_t)(*c - '0') : v;
		ok = ok && v <= ((size_t)1 << 30);
	}
	if (!ok || v < 1) {
		lbt_comm_finalize(); /* every rank refuses it alike; rank 0 says so (its rank kept) */
		return lbt_errf(e, LBT_EINVAL, "LBTORUS_COMM_PIECE (bytes an MPI call moves at most) '%.40s': give an integer "
		                "in 1..%d", p, 1 << 30);
	}
	piece = v;
	return LBT_OK;
}

void lbt_comm_finalize(void)
{
	if (joined) {
		MPI_Comm_free(&pieces);
		MPI_Finalize();
	}
	joined = 0;
}

int lbt_comm_rank(void) { return rank; }
int lbt_comm_size(void) { return size; }

void lbt_comm_bcast(void *buf, int n)
{
	if (joined) {
		double t0 = MPI_Wtime();
		MPI_Bcast(buf, n, MPI_BYTE, 0, MPI_COMM_WORLD);
		counted(t0);
	}
}

int lbt_comm_min_int(int v)
{
	if (joined) {
		double t0 = MPI_Wtime();
		MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
		counted(t0);
	}
	return v;
}

void lbt_comm_sum_i64(int64_t *v, int n)
{
	if (joined) {
		double t0 = MPI_Wtime();
		MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
		counted(t0);
	}
}

void lbt_comm_max_f64(double *v, int n)
{
	if (joined) {
		double t0 = MPI_Wtime();
		MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
		counted(t0);
	}
}

/* Rank root's n bytes at p to every rank, in pieces of at most `piece`. */
static void bcast_part(char *p, int64_t n, int root)
{
	for (int64_t k = 0; k < n; k += (int64_t)piece) {
		const int64_t m = n - k < (int64_t)piece ? n - k : (int64_t)piece;
		MPI_Bcast(p + k, (int)m, MPI_BYTE, root, MPI_COMM_WORLD);
	}
}

void lbt_comm_allgather(const void *mine, size_t n, void *all)
{
	if (!joined) {
		memmove(all, mine, n);
		return;
	}
	const double t0 = MPI_Wtime();
	if ((uint64_t)n * (uint64_t)size <= (uint64_t)piece) /* every count and offset fits an int */
		MPI_Allgather(mine, (int)n, MPI_BYTE, all, (int)n, MPI_BYTE, MPI_COMM_WORLD);
	else { /* each rank's part from it to all, a piece at a time */
		memmove((char *)all + (size_t)rank * n, mine, n);
		for (int r = 0; r < size; r++)
			bcast_part((char *)all + (size_t)r * n, (int64_t)n, r);
	}
	counted(t0);
}

/* The first byte of each rank's part (at[0..size-1]) and their total, from
 * the ranks' byte counts; 1 if the total passes the piece (then the parts
 * go in pieces; else every count and offset fits an int). */
static int offsets(const int64_t *counts, int64_t *at, int64_t *total)
{
	*total = 0;
	for (int r = 0; r < size; r++) {
		at[r] = *total;
		*total += counts[r];
	}
	return (uint64_t)*total > (uint64_t)piece;
}

int lbt_comm_allgatherv(const void *mine, size_t n, void **all, int64_t *counts)
{
	*all = NULL;
	if (!joined) {
		counts[0] = (int64_t)n;
		if (!(*all = malloc(n ? n : 1)))
			return LBT_ENOMEM;
		memcpy(*all, mine, n);
		return LBT_OK;
	}
	const double t0 = MPI_Wtime();
	int64_t mine_n = (int64_t)n, total = 0;
	MPI_Allgather(&mine_n, 1, MPI_INT64_T, counts, 1, MPI_INT64_T, MPI_COMM_WORLD);
	int64_t *at = malloc((size_t)size * sizeof *at);
	int *c = malloc((size_t)(2 * size) * sizeof *c); /* counts, offsets for one call */
	const int big = at ? offsets(counts, at, &total) : 0;
	int bad = !at || !c || !(*all = malloc((size_t)(total ? total : 1)));
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (!bad && !big) {
		for (int r = 0; r < size; r++)
			c[r] = (int)counts[r], c[size + r] = (int)at[r];
		MPI_Allgatherv(mine, (int)n, MPI_BYTE, *all, c, c + size, MPI_BYTE, MPI_COMM_WORLD);
	} else if (!bad) { /* each rank's part from it to all, a piece at a time */
		memcpy((char *)*all + at[rank], mine, n);
		for (int r = 0; r < size; r++)
			bcast_part((char *)*all + at[r], counts[r], r);
	}
	free(at);
	free(c);
	counted(t0);
	if (bad) {
		free(*all);
		*all = NULL;
		return LBT_ENOMEM;
	}
	return LBT_OK;
}

int lbt_comm_allgather_f64(const double *mine, int64_t n, double **all, int64_t *counts)
{
	int st = lbt_comm_allgatherv(mine, (size_t)n * sizeof *mine, (void **)all, counts);
	for (int r = 0; !st && r < size; r++)
		counts[r] /= (int64_t)sizeof **all;
	return st;
}

int lbt_comm_gather(const void *mine, size_t n, void *all)
{
	if (!joined) {
		memmove(all, mine, n);
		return LBT_OK;
	}
	int64_t *counts = malloc((size_t)size * sizeof *counts), *at = malloc((size_t)size * sizeof *at), mine_n = (int64_t)n,
	        total;
	int *c = malloc((size_t)(2 * size) * sizeof *c); /* counts, offsets for one call */
	int bad = !counts || !at || !c;
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (!bad) {
		MPI_Allgather(&mine_n, 1, MPI_INT64_T, counts, 1, MPI_INT64_T, MPI_COMM_WORLD);
		if (!offsets(counts, at, &total)) {
			for (int r = 0; r < size; r++)
				c[r] = (int)counts[r], c[size + r] = (int)at[r];
			MPI_Gatherv(mine, (int)n, MPI_BYTE, all, c, c + size, MPI_BYTE, 0, MPI_COMM_WORLD);
		} else if (rank) { /* in pieces, in order (messages of one pair and tag do not overtake) */
			for (size_t k = 0; k < n; k += piece)
				MPI_Send((const char *)mine + k, (int)(n - k < piece ? n - k : piece), MPI_BYTE, 0, 0, pieces);
		} else {
			memmove((char *)all + at[0], mine, n);
			for (int r = 1; r < size; r++)
				for (int64_t k = 0; k < counts[r]; k += (int64_t)piece) {
					const int64_t m = counts[r] - k < (int64_t)piece ? counts[r] - k : (int64_t)piece;
					MPI_Recv((char *)all + at[r] + k, (int)m, MPI_BYTE, r, 0, pieces, MPI_STATUS_IGNORE);
				}
		}
	}
	free(counts);
	free(at);
	free(c);
	return bad ? LBT_ENOMEM : LBT_OK;
}

void lbt_comm_exscan_i64(const int64_t *v, int64_t *before, int64_t *total, int n)
{
	memset(before, 0, (size_t)n * sizeof *before); /* MPI_Exscan leaves rank 0's undefined */
	memcpy(total, v, (size_t)n * sizeof *total);
	if (!joined)
		return;
	const double t0 = MPI_Wtime();
	MPI_Exscan(v, before, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		memset(before, 0, (size_t)n * sizeof *before);
	MPI_Allreduce(MPI_IN_PLACE, total, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	counted(t0);
}

int lbt_comm_agree(int status, lbt_err *e)
{
	if (!joined)
		return status;
	const double t0 = MPI_Wtime();
	int first = status ? rank : size;
	MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	counted(t0);
	if (first == size)
		return LBT_OK;
	struct {
		int status;
		lbt_err e;
	} m = {status, {{0}}};
	if (rank == first && e)
		m.e = *e;
	MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, first, MPI_COMM_WORLD);
	if (e)
		*e = m.e;
	return m.status;
}

int lbt_comm_alltoallv(const void *send, const int64_t *sendn, void **recv, int64_t *recvn)
{
	*recv = NULL;
	if (!joined) {
		recvn[0] = sendn[0];
		if (!(*recv = malloc((size_t)(sendn[0] ? sendn[0] : 1))))
			return LBT_ENOMEM;
		memcpy(*recv, send, (size_t)sendn[0]);
		return LBT_OK;
	}
	const double t0 = MPI_Wtime();
	MPI_Alltoall(sendn, 1, MPI_INT64_T, recvn, 1, MPI_INT64_T, MPI_COMM_WORLD);
	int64_t *so = malloc((size_t)(2 * size) * sizeof *so), *ro = NULL, sent, got; /* send, receive offsets */
	int *c = malloc((size_t)(4 * size) * sizeof *c); /* send counts, offsets; receive counts, offsets for one call */
	int flag[2] = {!so || !c, 0};                   /* no room anywhere; some rank's data in pieces */
	if (!flag[0]) {
		ro = so + size;
		flag[1] = offsets(sendn, so, &sent) | offsets(recvn, ro, &got);
		flag[0] = !(*recv = malloc((size_t)(got ? got : 1)));
	}
	MPI_Allreduce(MPI_IN_PLACE, flag, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (!flag[0] && !flag[1]) {
		for (int r = 0; r < size; r++) {
			c[r] = (int)sendn[r], c[size + r] = (int)so[r];
			c[2 * size + r] = (int)recvn[r], c[3 * size + r] = (int)ro[r];
		}
		MPI_Alltoallv(send, c, c + size, MPI_BYTE, *recv, c + 2 * size, c + 3 * size, MPI_BYTE, MPI_COMM_WORLD);
	} else if (!flag[0]) { /* each pair's bytes in pieces, in order (one pair and tag: no overtaking) */
		const int64_t p = (int64_t)piece;
		int64_t nreq = 0;
		for (int r = 0; r < size; r++)
			nreq += r == rank ? 0 : (sendn[r] + p - 1) / p + (recvn[r] + p - 1) / p;
		MPI_Request *q = malloc((size_t)(nreq ? nreq : 1) * sizeof *q);
		flag[0] = !q;
		MPI_Allreduce(MPI_IN_PLACE, flag, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
		int nq = 0;
		for (int r = 0; !flag[0] && r < size; r++) {
			if (r == rank) {
				memcpy((char *)*recv + ro[r], (const char *)send + so[r], (size_t)sendn[r]);
				continue;
			}
			for (int64_t k = 0; k < recvn[r]; k += p)
				MPI_Irecv((char *)*recv + ro[r] + k, (int)(recvn[r] - k < p ? recvn[r] - k : p), MPI_BYTE, r, 0, pieces,
				          &q[nq++]);
			for (int64_t k = 0; k < sendn[r]; k += p)
				MPI_Isend((const char *)send + so[r] + k, (int)(sendn[r] - k < p ? sendn[r] - k : p), MPI_BYTE, r, 0,
				          pieces, &q[nq++]);
		}
		if (!flag[0])
			MPI_Waitall(nq, q, MPI_STATUSES_IGNORE);
		free(q);
	}
	free(so);
	free(c);
	counted(t0);
	if (flag[0]) {
		free(*recv);
		*recv = NULL;
		return LBT_ENOMEM;
	}
	return LBT_OK;
}

/* End every rank at once (a rank that cannot go on alone). */
static void lbt_comm_abort(int status)
{
	if (joined && size > 1)
		MPI_Abort(MPI_COMM_WORLD, status);
	exit(status);
}

int lbt_comm_send(int to, int tag, const void *buf, size_t n)
{
	if (!joined || MPI_Send(buf, (int)n, MPI_BYTE, to, tag, MPI_COMM_WORLD) != MPI_SUCCESS)
		return LBT_EIO;
	return LBT_OK;
}

int lbt_comm_recv(int wait, int *from, int *tag, char **buf, size_t *n)
{
	if (!joined)
		return 0;
	MPI_Status s;
	int there = 1, count;
	if (wait)
		MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &s);
	else
		MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &there, &s);
	if (!there)
		return 0;
	MPI_Get_count(&s, MPI_BYTE, &count);
	if (!(*buf = malloc((size_t)count + 1))) {
		fprintf(stderr, "lbtorus: rank %d: no memory for a message of %d bytes\n", rank, count);
		lbt_comm_abort(1);
	}
	MPI_Recv(*buf, count, MPI_BYTE, s.MPI_SOURCE, s.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	(*buf)[count] = 0;
	*from = s.MPI_SOURCE;
	*tag = s.MPI_TAG;
	*n = (size_t)count;
	return 1;
}

/* The watch (comm.h): its own communicator for the stop words (a word:
 * the signal + 1, or 1 for a stop without one), sent at most once a rank,
 * to every other; the sends not yet known complete (words and
 * lbt_comm_watch_send's copies), tested at each poll. At close an
 * Ibarrier, polled, ends the ranks' runs; then the ranks count the words
 * sent (each rank receives those it has not heard yet) and agree on the
 * largest (lbt_comm_stop). */
struct lbt_comm_watch {
	const volatile sig_atomic_t *flag;
	MPI_Comm comm;
	int word, told, heard, stopped, loudest; /* loudest: the largest word heard */
	int n, cap;
	MPI_Request *req;
	char **buf;
};

int lbt_comm_watch_open(lbt_comm_watch **w, const volatile sig_atomic_t *flag)
{
	*w = calloc(1, sizeof **w);
	if (!lbt_comm_min_int(*w != NULL)) {
		free(*w);
		*w = NULL;
		return LBT_ENOMEM;
	}
	(*w)->flag = flag;
	(*w)->comm = MPI_COMM_NULL;
	if (joined)
		MPI_Comm_dup(MPI_COMM_WORLD, &(*w)->comm);
	return LBT_OK;
}

/* A send started (buf: its bytes, freed when it completes); 0: no memory for its place. */
static int watch_keep(lbt_comm_watch *w, MPI_Request r, char *buf)
{
	if (w->n == w->cap) {
		const int c = w->cap ? 2 * w->cap : 16;
		MPI_Request *q = realloc(w->req, (size_t)c * sizeof *q);
		if (q)
			w->req = q;
		char **b = q ? realloc(w->buf, (size_t)c * sizeof *b) : NULL;
		if (!b) {
			MPI_Wait(&r, MPI_STATUS_IGNORE);
			free(buf);
			return 0;
		}
		w->buf = b;
		w->cap = c;
	}
	w->req[w->n] = r;
	w->buf[w->n++] = buf;
	return 1;
}

int lbt_comm_watch_poll(lbt_comm_watch *w, int stop)
{
	const int sig = w->flag ? (int)*w->flag : 0;
	int is_main = 1;
	if (joined)
		MPI_Is_thread_main(&is_main);
	if (!is_main || !joined)
		return stop || sig || __atomic_load_n(&w->stopped, __ATOMIC_RELAXED);
	if ((sig || stop) && !w->told) { /* tell every other rank */
		w->word = sig > 0 ? sig + 1 : 1;
		w->told = 1;
		for (int r = 0; r < size; r++) {
			MPI_Request q;
			if (r != rank && MPI_Isend(&w->word, 1, MPI_INT, r, 0, w->comm, &q) == MPI_SUCCESS)
				watch_keep(w, q, NULL);
		}
	}
	int stopped = w->told, there = 1;
	while (there) { /* the others' words */
		MPI_Status st;
		MPI_Iprobe(MPI_ANY_SOURCE, 0, w->comm, &there, &st);
		if (there) {
			int word;
			MPI_Recv(&word, 1, MPI_INT, st.MPI_SOURCE, 0, w->comm, MPI_STATUS_IGNORE);
			w->heard++;
			w->loudest = word > w->loudest ? word : w->loudest;
		}
	}
	stopped |= w->heard > 0;
	for (int i = 0; i < w->n;) { /* the sends done: their bytes go */
		int done = 0;
		MPI_Test(&w->req[i], &done, MPI_STATUS_IGNORE);
		if (!done) {
			i++;
			continue;
		}
		free(w->buf[i]);
		w->req[i] = w->req[--w->n];
		w->buf[i] = w->buf[w->n];
	}
	__atomic_store_n(&w->stopped, stopped, __ATOMIC_RELAXED);
	return stopped;
}

int lbt_comm_watch_send(lbt_comm_watch *w, int to, int tag, const void *buf, size_t n)
{
	char *copy = malloc(n ? n : 1);
	if (!joined || !copy) {
		free(copy);
		return lbt_comm_send(to, tag, buf, n); /* waits for the receiver instead */
	}
	memcpy(copy, buf, n);
	MPI_Request q;
	if (MPI_Isend(copy, (int)n, MPI_BYTE, to, tag, MPI_COMM_WORLD, &q) != MPI_SUCCESS) {
		free(copy);
		return LBT_EIO;
	}
	watch_keep(w, q, copy);
	return LBT_OK;
}

int lbt_comm_watch_close(lbt_comm_watch *w, int stop)
{
	if (!joined) {
		stop = stop || (w->flag && *w->flag);
		free(w);
		return stop;
	}
	const double t0 = MPI_Wtime();
	MPI_Request all;
	MPI_Ibarrier(w->comm, &all);
	for (int done = 0; lbt_comm_watch_poll(w, stop), MPI_Test(&all, &done, MPI_STATUS_IGNORE), !done;)
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL); /* 1 ms: a waiting rank does not spin */
	lbt_comm_watch_poll(w, stop); /* told is final from here */
	int told = w->told;
	MPI_Allreduce(MPI_IN_PLACE, &told, 1, MPI_INT, MPI_SUM, w->comm);
	for (told -= w->told; w->heard < told; w->heard++) { /* the words not heard yet (all were sent) */
		int word;
		MPI_Recv(&word, 1, MPI_INT, MPI_ANY_SOURCE, 0, w->comm, MPI_STATUS_IGNORE);
		w->loudest = word > w->loudest ? word : w->loudest;
	}
	MPI_Waitall(w->n, w->req, MPI_STATUSES_IGNORE);
	for (int i = 0; i < w->n; i++)
		free(w->buf[i]);
	MPI_Comm_free(&w->comm);
	counted(t0);
	/* every rank has heard every word: the largest is every rank's, for lbt_comm_signal */
	const int loudest = w->word > w->loudest ? w->word : w->loudest;
	const volatile sig_atomic_t sig = loudest > 1 ? loudest - 1 : 0;
	free(w->req);
	free(w->buf);
	free(w);
	return lbt_comm_stop(&sig, loudest > 0);
}

/* One axis's exchange of `layers` layers a side as persistent requests
 * (made at its first fill, started at every later one): the H = 2 x layers
 * halo layers it receives (need[h] >= 0: global layer, k[h] its local
 * index; own[h]: mine, copied), the layers of my block it sends (packed[b],
 * local, ascending: at most H), its requests (at most H receives and, per
 * partner, at most H sends), a message's unit (a packed layer), and the
 * messages and bytes it sends per fill. A view with a real field moves
 * other bytes: its own exchange. */
typedef struct {
	int made, nreq, npacked, nsends;
	size_t bytes;
	int64_t sent;
	int64_t *need, *k, *packed;
	unsigned char *own;
	MPI_Request *req;
	MPI_Datatype layer;
} exchange;

#define LBT_FILL_LAYERS (LBT_CUT_MAX_STEPS * LBT_HALO) /* the deepest fill: a cut's depth at most */

/* The Cartesian communicator and the exchanges, per axis, with or without
 * a real field, and per number of layers (1 .. LBT_FILL_LAYERS). */
typedef struct {
	MPI_Comm comm;
	exchange x[LBT_CUT_MAXD][2][LBT_FILL_LAYERS];
} cart;

int lbt_comm_cart_open(lbt_cut *c, lbt_err *e)
{
	if (!joined)
		return LBT_OK;
	cart *g = calloc(1, sizeof *g);
	int periods[LBT_CUT_MAXD], coord[LBT_CUT_MAXD], r = -1;
	for (int d = 0; d < c->dims; d++)
		periods[d] = c->torus[d];
	const double t0 = MPI_Wtime();
	int bad = !g;
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (bad || MPI_Cart_create(MPI_COMM_WORLD, c->dims, c->nr, periods, 0, &g->comm) != MPI_SUCCESS) {
		free(g);
		return lbt_errf(e, bad ? LBT_ENOMEM : LBT_EIO, "cannot make the Cartesian grid of ranks");
	}
	counted(t0);
	c->comm = g;
	/* reorder = 0: a rank's place is its row-major place in the grid, as lbt_cut_block has it */
	MPI_Comm_rank(g->comm, &r);
	MPI_Cart_coords(g->comm, r, c->dims, coord);
	for (int d = 0; d < c->dims; d++)
		if (r != rank || coord[d] != c->coord[d]) {
			fprintf(stderr, "lbtorus: rank %d: MPI_Cart_create placed it at another place than row-major order\n", rank);
			lbt_comm_abort(1);
		}
	return LBT_OK;
}

void lbt_comm_cart_close(lbt_cut *c)
{
	cart *g = c->comm;
	if (!g)
		return;
	for (int d = 0; d < LBT_CUT_MAXD; d++)
		for (int real = 0; real < 2; real++)
			for (int l = 0; l < LBT_FILL_LAYERS; l++) {
				exchange *x = &g->x[d][real][l];
				for (int i = 0; i < x->nreq; i++)
					MPI_Request_free(&x->req[i]);
				if (x->nreq)
					MPI_Type_free(&x->layer);
				free(x->need);
				free(x->req);
			}
	MPI_Comm_free(&g->comm);
	free(g);
	c->comm = NULL;
}

/* The rank of place q on `axis` of this rank's line of the grid. */
static int line_rank(const lbt_cut *cut, int axis, int q)
{
	int coord[LBT_CUT_MAXD], r = 0;
	memcpy(coord, cut->coord, sizeof coord);
	coord[axis] = q;
	if (cut->comm)
		MPI_Cart_rank(((cart *)cut->comm)->comm, coord, &r);
	return r;
}

void lbt_cut_chain(const lbt_cut *cut, int axis, double *acc, int64_t n, void (*add)(void *ctx, double *acc), void *ctx)
{
	const int q = cut->coord[axis], last = cut->nr[axis] - 1;
	MPI_Comm comm = cut->comm ? ((cart *)cut->comm)->comm : MPI_COMM_NULL;
	const int64_t most = INT32_MAX / 8; /* a message's count is an int */
	for (int64_t at = 0; cut->comm && q > 0 && at < n; at += most)
		MPI_Recv(acc + at, (int)(n - at < most ? n - at : most), MPI_DOUBLE, line_rank(cut, axis, q - 1), 0, comm,
		         MPI_STATUS_IGNORE);
	add(ctx, acc);
	for (int64_t at = 0; cut->comm && q < last && at < n; at += most)
		MPI_Send(acc + at, (int)(n - at < most ? n - at : most), MPI_DOUBLE, line_rank(cut, axis, q + 1), 0, comm);
}

/* The run of halo positions from h (of H = 2 x layers) held by the same
 * rank as h (owner[h]) on h's side (below: h < layers; above): its length. */
static int run_length(const int *owner, int h, int layers, int H)
{
	const int end = h < layers ? layers : H;
	int m = 1;
	while (h + m < end && owner[h + m] == owner[h])
		m++;
	return m;
}

/* The owners of the halo positions of the block at place q of `axis`'s
 * line (-1: none, beyond a mesh's end); glob[h]: the global layer. */
static void halo_owners(const lbt_cut *cut, int axis, int q, int layers, int *owner, int64_t *glob)
{
	const int R = cut->ranks > 1 ? cut->nr[axis] : 1;
	for (int h = 0; h < 2 * layers; h++) {
		int64_t k;
		glob[h] = lbt_comm_halo_layer(cut, axis, q, h, layers, &k);
		owner[h] = glob[h] < 0 ? -1 : R > 1 ? lbt_comm_owner(cut->gext[axis], R, glob[h]) : q;
	}
}

/* Axis `axis`'s exchange of `layers` layers a side for a view like v: the
 * layers it needs, whose owners (the ranks of its line) send them; what
 * the partners need of its block lies within `layers` layers of its ends:
 * at most H = 2 x layers layers, each packed once, in ascending order. A
 * side's layers from one owner are consecutive layers of the owner's
 * block (blocks are contiguous along an axis and do not wrap): one message
 * of as many packed layers (message tag: the receiver's first halo
 * position of the run), so a fill sends one message a side whatever its
 * depth, received straight into the side's consecutive halo buffers. */
static void exchange_make(exchange *x, const lbt_view *v, const lbt_cut *cut, int axis, int layers, MPI_Comm comm)
{
	const int64_t lo = v->origin[axis], n = v->ext[axis];
	const int me = cut->ranks > 1 ? cut->coord[axis] : 0;
	const int H = 2 * layers;
	char *recv = cut->halo, *send = cut->halo + (size_t)H * x->bytes; /* H layers in, at most H out */
	int *partner = malloc((size_t)H * sizeof *partner), npartners = 0, *owner = malloc((size_t)H * sizeof *owner);
	int64_t *glob = malloc((size_t)H * sizeof *glob);
	x->need = malloc((size_t)H * 3 * sizeof *x->need + (size_t)H);
	x->req = malloc((size_t)(H + H * H) * sizeof *x->req);
	if (!partner || !owner || !glob || !x->need || !x->req) {
		fprintf(stderr, "lbtorus: rank %d: no memory for a halo exchange's requests\n", rank);
		lbt_comm_abort(1);
	}
	x->k = x->need + H;
	x->packed = x->need + 2 * H;
	x->own = (unsigned char *)(x->need + 3 * H);
	halo_owners(cut, axis, me, layers, owner, x->need);
	for (int h = 0; h < H; h++) {
		lbt_comm_halo_layer(cut, axis, me, h, layers, &x->k[h]);
		x->own[h] = owner[h] == me; /* a small axis: the layer is my own */
	}
	for (int h = 0, m; h < H; h += m) {
		m = run_length(owner, h, layers, H);
		if (owner[h] < 0 || owner[h] == me)
			continue;
		if (!x->nreq) {
			MPI_Type_contiguous((int)x->bytes, MPI_BYTE, &x->layer);
			MPI_Type_commit(&x->layer);
		}
		MPI_Recv_init(recv + h * x->bytes, m, x->layer, line_rank(cut, axis, owner[h]), h, comm, &x->req[x->nreq++]);
		int seen = 0;
		for (int p = 0; p < npartners; p++)
			seen |= partner[p] == owner[h];
		if (!seen)
			partner[npartners++] = owner[h];
	}
	/* the layers of mine the partners need, each once, ascending: a run of
	   consecutive layers is then consecutive in the send buffer */
	for (int p = 0; p < npartners; p++) {
		halo_owners(cut, axis, partner[p], layers, owner, glob);
		for (int h = 0; h < H; h++) {
			if (owner[h] != me)
				continue;
			int b = 0;
			while (b < x->npacked && x->packed[b] != glob[h] - lo)
				b++;
			if (b == H) { /* cannot happen: blocks are contiguous along an axis */
				fprintf(stderr, "lbtorus: rank %d: more than %d layers of its block wanted by its neighbours\n", rank, H);
				lbt_comm_abort(1);
			}
			if (b == x->npacked)
				x->packed[x->npacked++] = glob[h] - lo;
		}
	}
	for (int b = 1; b < x->npacked; b++) /* insertion sort: at most H layers */
		for (int c = b; c > 0 && x->packed[c - 1] > x->packed[c]; c--) {
			const int64_t t = x->packed[c];
			x->packed[c] = x->packed[c - 1];
			x->packed[c - 1] = t;
		}
	for (int p = 0; p < npartners; p++) {
		halo_owners(cut, axis, partner[p], layers, owner, glob);
		for (int h = 0, m; h < H; h += m) {
			m = run_length(owner, h, layers, H);
			if (owner[h] != me)
				continue;
			int b = 0;
			while (x->packed[b] != glob[h] - lo)
				b++;
			if (b + m > x->npacked || x->packed[b + m - 1] != glob[h] - lo + m - 1 || glob[h] - lo + m > n) {
				/* cannot happen: a run is consecutive layers of my block, all of them packed */
				fprintf(stderr, "lbtorus: rank %d: a halo run of %d layers not consecutive in its block\n", rank, m);
				lbt_comm_abort(1);
			}
			MPI_Send_init(send + (size_t)b * x->bytes, m, x->layer, line_rank(cut, axis, partner[p]), h, comm,
			              &x->req[x->nreq++]);
			x->nsends++;
			x->sent += (int64_t)m * (int64_t)x->bytes;
		}
	}
	free(partner);
	free(owner);
	free(glob);
	x->made = 1;
}

/* The exchange of a fill of `layers` layers on `axis` for a view like v
 * (made at its first fill); one: the caller's, where there is no
 * communicator (one process: nothing is kept). */
static exchange *exchange_of(const lbt_view *v, const lbt_cut *cut, int axis, int layers, exchange *one)
{
	if (layers < 1 || layers > cut->depth) { /* cannot happen: the kernels fill their halo */
		fprintf(stderr, "lbtorus: rank %d: a fill of %d layers on axis %d, deeper than its halo\n", rank, layers, axis);
		lbt_comm_abort(1);
	}
	exchange *x = cut->comm ? &((cart *)cut->comm)->x[axis][v->real != NULL][layers - 1] : one;
	if (!x->made) {
		x->bytes = lbt_comm_layer_bytes(v, cut, axis, layers);
		exchange_make(x, v, cut, axis, layers, cut->comm ? ((cart *)cut->comm)->comm : MPI_COMM_WORLD);
	}
	return x;
}

/* Received (and my own layers, taken at the start) into the halo. */
static void fill_put(const lbt_view *v, const lbt_cut *cut, int axis, int layers, const exchange *x)
{
	const char *recv = cut->halo;
	for (int h = 0; h < 2 * layers; h++)
		if (x->need[h] >= 0)
			lbt_comm_layer_put(v, cut, axis, layers, x->k[h], recv + h * x->bytes);
}

void lbt_comm_fill_start(const lbt_view *v, const lbt_cut *cut, int axis, int layers)
{
	const double t0 = MPI_Wtime();
	exchange one = {0}, *x = exchange_of(v, cut, axis, layers, &one);
	const int H = 2 * layers;
	char *recv = cut->halo, *send = cut->halo + (size_t)H * x->bytes;
	for (int b = 0; b < x->npacked; b++)
		lbt_comm_layer_get(v, cut, axis, layers, x->packed[b], send + (size_t)b * x->bytes);
	if (x->nreq)
		MPI_Startall(x->nreq, x->req);
	for (int h = 0; h < H; h++) /* my own layers as they are now: the block may change before the finish */
		if (x->need[h] >= 0 && x->own[h])
			lbt_comm_layer_get(v, cut, axis, layers, x->need[h] - v->origin[axis], recv + h * x->bytes);
	tally.fills++;
	tally.halo_messages += x->nsends;
	tally.halo_bytes += x->sent;
	if (x == &one) { /* no communicator (one process): no requests, nothing to wait for, nothing kept */
		fill_put(v, cut, axis, layers, x);
		free(one.need);
		free(one.req);
	}
	tally.halo_seconds += MPI_Wtime() - t0;
}

void lbt_comm_fill_finish(const lbt_view *v, const lbt_cut *cut, int axis, int layers, int64_t stepped)
{
	if (!cut->comm) /* the start did it all */
		return;
	const double t0 = MPI_Wtime();
	exchange *x = exchange_of(v, cut, axis, layers, NULL);
	if (x->nreq)
		MPI_Waitall(x->nreq, x->req, MPI_STATUSES_IGNORE);
	const double t1 = MPI_Wtime();
	fill_put(v, cut, axis, layers, x);
	tally.overlapped_fills += stepped > 0;
	tally.overlap_pes += stepped;
	tally.halo_wait_seconds += t1 - t0;
	tally.halo_seconds += MPI_Wtime() - t0;
}

void lbt_comm_fill(const lbt_view *v, const lbt_cut *cut, int axis, int layers)
{
	lbt_comm_fill_start(v, cut, axis, layers);
	lbt_comm_fill_finish(v, cut, axis, layers, 0);
}

/* A file's MPI-IO handle (opened by all ranks or by this one: MPI_COMM_SELF),
 * or, when not joined, its descriptor. */
struct lbt_pfile {
	MPI_File fh;
	int fd, write, mpi;
	int elem;                   /* lbt_pfile_block's array: its values' bytes */
	int64_t disp;               /*   and first byte (a process alone) */
	MPI_Datatype etype, ftype;  /*   a value, and the block's subarray (MPI_DATATYPE_NULL: none) */
	char path[4400];
};

static int io_fail(int rc, const char *what, const char *path, lbt_err *e)
{
	char s[MPI_MAX_ERROR_STRING];
	int n;
	MPI_Error_string(rc, s, &n);
	return lbt_errf(e, LBT_EIO, "cannot %s %s: %s", what, path, s);
}

int lbt_pfile_open(lbt_pfile **f, const char *path, int write, int all, lbt_err *e)
{
	if (!(*f = malloc(sizeof **f)))
		return lbt_errf(e, LBT_ENOMEM, "no memory to open %s", path);
	lbt_pfile *p = *f;
	snprintf(p->path, sizeof p->path, "%s", path);
	p->write = write;
	p->mpi = joined;
	p->etype = p->ftype = MPI_DATATYPE_NULL;
	int st = LBT_OK, rc;
	if (!joined)
		st = lbt_posix_open(path, write, &p->fd, e);
	else if ((rc = MPI_File_open(all ? MPI_COMM_WORLD : MPI_COMM_SELF, path, write ? MPI_MODE_WRONLY : MPI_MODE_RDONLY,
	                             MPI_INFO_NULL, &p->fh)) != MPI_SUCCESS)
		st = io_fail(rc, write ? "write" : "read", path, e);
	if (st) {
		free(p);
		*f = NULL;
	}
	return st;
}

enum { IO_PIECE = 1 << 30 }; /* bytes per MPI-IO call: its counts are ints */

int lbt_pfile_read(lbt_pfile *f, int64_t off, void *buf, size_t n, lbt_err *e)
{
	if (!f->mpi)
		return lbt_posix_read_at(f->fd, f->path, off, buf, n, e);
	for (char *p = buf; n;) {
		int k = (int)(n < IO_PIECE ? n : IO_PIECE), got, rc;
		MPI_Status s;
		if ((rc = MPI_File_read_at(f->fh, (MPI_Offset)off, p, k, MPI_BYTE, &s)) != MPI_SUCCESS)
			return io_fail(rc, "read", f->path, e);
		MPI_Get_count(&s, MPI_BYTE, &got);
		if (got != k)
			return lbt_errf(e, LBT_EINVAL, "%s: data ends early (file truncated while read?)", f->path);
		p += k, off += k, n -= (size_t)k;
	}
	return LBT_OK;
}

int lbt_pfile_write(lbt_pfile *f, int64_t off, const void *buf, size_t n, lbt_err *e)
{
	if (!f->mpi)
		return lbt_posix_write_at(f->fd, f->path, off, buf, n, e);
	for (const char *p = buf; n;) {
		int k = (int)(n < IO_PIECE ? n : IO_PIECE), put, rc;
		MPI_Status s;
		if ((rc = MPI_File_write_at(f->fh, (MPI_Offset)off, p, k, MPI_BYTE, &s)) != MPI_SUCCESS)
			return io_fail(rc, "write", f->path, e);
		MPI_Get_count(&s, MPI_BYTE, &put);
		if (put != k)
			return lbt_errf(e, LBT_EIO, "cannot write %s: %d of %d bytes written", f->path, put, k);
		p += k, off += k, n -= (size_t)k;
	}
	return LBT_OK;
}

int lbt_pfile_block(lbt_pfile *f, int64_t disp, int elem, int dims, const int64_t *gext, const int64_t *lo,
                    const int64_t *len, lbt_err *e)
{
	f->disp = disp;
	f->elem = elem;
	if (!f->mpi)
		return lbt_pfile_whole(f->path, dims, gext, lo, len, e);
	int sizes[LBT_CUT_MAXD], sub[LBT_CUT_MAXD], start[LBT_CUT_MAXD], fits = dims <= LBT_CUT_MAXD, rc;
	for (int d = 0; fits && d < dims; d++) {
		fits = gext[d] <= INT_MAX;
		sizes[d] = (int)gext[d], sub[d] = (int)len[d], start[d] = (int)lo[d];
	}
	if (!fits) /* every rank sees the same array: all return here */
		return lbt_errf(e, LBT_EINVAL, "%s: an axis beyond %d values, or more than %d axes, is beyond MPI-IO's "
		                "subarrays", f->path, INT_MAX, LBT_CUT_MAXD);
	MPI_Type_contiguous(elem, MPI_BYTE, &f->etype);
	MPI_Type_commit(&f->etype);
	MPI_Type_create_subarray(dims, sizes, sub, start, MPI_ORDER_C, f->etype, &f->ftype);
	MPI_Type_commit(&f->ftype);
	if ((rc = MPI_File_set_view(f->fh, (MPI_Offset)disp, f->etype, f->ftype, "native", MPI_INFO_NULL)) != MPI_SUCCESS)
		return io_fail(rc, f->write ? "write" : "read", f->path, e);
	return LBT_OK;
}

int lbt_pfile_read_all(lbt_pfile *f, int64_t k, void *buf, int64_t n, lbt_err *e)
{
	if (!f->mpi)
		return lbt_posix_read_at(f->fd, f->path, f->disp + k * f->elem, buf, (size_t)(n * f->elem), e);
	MPI_Status s;
	int got, rc;
	if ((rc = MPI_File_read_at_all(f->fh, (MPI_Offset)k, buf, (int)n, f->etype, &s)) != MPI_SUCCESS)
		return io_fail(rc, "read", f->path, e);
	MPI_Get_count(&s, f->etype, &got);
	if (got != n)
		return lbt_errf(e, LBT_EINVAL, "%s: data ends early (file truncated while read?)", f->path);
	return LBT_OK;
}

int lbt_pfile_write_all(lbt_pfile *f, int64_t k, const void *buf, int64_t n, lbt_err *e)
{
	if (!f->mpi)
		return lbt_posix_write_at(f->fd, f->path, f->disp + k * f->elem, buf, (size_t)(n * f->elem), e);
	MPI_Status s;
	int put, rc;
	if ((rc = MPI_File_write_at_all(f->fh, (MPI_Offset)k, buf, (int)n, f->etype, &s)) != MPI_SUCCESS)
		return io_fail(rc, "write", f->path, e);
	MPI_Get_count(&s, f->etype, &put);
	if (put != n)
		return lbt_errf(e, LBT_EIO, "cannot write %s: %d of %lld values written", f->path, put, (long long)n);
	return LBT_OK;
}

int lbt_pfile_close(lbt_pfile *f, lbt_err *e)
{
	int st = LBT_OK, rc;
	if (!f->mpi)
		st = lbt_posix_close(f->fd, f->path, f->write, e);
	else {
		if (f->write && (rc = MPI_File_sync(f->fh)) != MPI_SUCCESS)
			st = io_fail(rc, "write", f->path, e);
		if ((rc = MPI_File_close(&f->fh)) != MPI_SUCCESS && !st)
			st = io_fail(rc, f->write ? "write" : "read", f->path, e);
		if (f->ftype != MPI_DATATYPE_NULL)
			MPI_Type_free(&f->ftype);
		if (f->etype != MPI_DATATYPE_NULL)
			MPI_Type_free(&f->etype);
	}
	free(f);
	return st;
}
