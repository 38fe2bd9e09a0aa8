/* helpers.c — see helpers.h. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "comm/comm.h" /* lbt_cut: a block made by hand */

void th_open(lbt_state *st, const char *shape, const char *boundary, const char *method,
             const char *init, const char *isa)
{
	lbt_setup set = {.shape = shape, .boundary = boundary, .method = method, .init = init,
	                 .isa = isa ? isa : "scalar", .seed = 7, .threads = 1};
	lbt_err e;
	int s = lbt_state_open(st, &set, &e);
	cr_assert_eq(s, LBT_OK, "state %s %s %s: %s", shape, method, init, e.msg);
}

int32_t *th_loads(const lbt_state *st)
{
	int32_t *d = malloc((size_t)lbt_shape_pes(&st->grid.shape) * sizeof *d);
	cr_assert(d);
	lbt_grid_export(&st->grid, d);
	return d;
}

void th_set(lbt_state *st, const int32_t *dense) { lbt_grid_import(&st->grid, dense); }

int64_t th_total(const lbt_state *st)
{
	lbt_stats s;
	lbt_grid_stats(&st->grid, &s);
	return s.total;
}

int th_table(const char *name, int64_t *rows, int max, int cols)
{
	char path[1024];
	const char *dir = getenv("LBTORUS_DATA");
	snprintf(path, sizeof path, "%s/%s", dir ? dir : "data", name);
	FILE *f = fopen(path, "r");
	cr_assert(f, "cannot open golden table %s", path);
	char line[4096];
	int n = 0, header = 1;
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (header) { header = 0; continue; }
		cr_assert_lt(n, max);
		char *p = line;
		for (int c = 0; c < cols; c++) {
			rows[n * cols + c] = strtoll(p, &p, 10);
			if (*p == ',') p++;
		}
		n++;
	}
	fclose(f);
	return n;
}

static char *slurp(int fd)
{
	size_t cap = 4096, len = 0;
	char *b = malloc(cap);
	ssize_t k;
	while ((k = read(fd, b + len, cap - len - 1)) > 0) {
		len += (size_t)k;
		if (len + 1 == cap)
			b = realloc(b, cap *= 2);
	}
	b[len] = 0;
	return b;
}

unsigned th_cli_seconds = 240;

int th_cli(const char *dir, const char *const *argv, char **out, char **err)
{
	const char *bin = getenv("LBTORUS");
	cr_assert(bin, "LBTORUS (path of the binary) is not set");
	char fo[] = "/tmp/lbt_outXXXXXX", fe[] = "/tmp/lbt_errXXXXXX";
	int o = mkstemp(fo), e = mkstemp(fe);
	pid_t pid = fork();
	if (pid == 0) {
		const char *args[64] = {bin};
		for (int i = 0; argv[i]; i++)
			args[i + 1] = argv[i];
		if (dir && chdir(dir)) _exit(127);
		dup2(o, 1);
		dup2(e, 2);
		int null = open("/dev/null", O_RDONLY);
		dup2(null, 0);
		alarm(th_cli_seconds); /* a command that hangs dies of SIGALRM (status 142): the test fails, CI goes on */
		execv(bin, (char *const *)args);
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
	lseek(o, 0, SEEK_SET);
	lseek(e, 0, SEEK_SET);
	char *so = slurp(o), *se = slurp(e);
	close(o); close(e);
	unlink(fo); unlink(fe);
	if (out) *out = so; else free(so);
	if (err) *err = se; else free(se);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

pid_t th_spawn(const char *dir, const char *const *argv)
{
	const char *bin = getenv("LBTORUS");
	cr_assert(bin, "LBTORUS (path of the binary) is not set");
	pid_t pid = fork();
	if (pid == 0) {
		const char *args[64] = {bin};
		for (int i = 0; argv[i]; i++)
			args[i + 1] = argv[i];
		if (dir && chdir(dir))
			_exit(127);
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execv(bin, (char *const *)args);
		_exit(127);
	}
	return pid;
}

void th_wait_caught(pid_t pid, int sig)
{
	char p[64], line[256];
	snprintf(p, sizeof p, "/proc/%d/status", (int)pid);
	for (int i = 0; i < 3000; i++) {
		FILE *f = fopen(p, "r");
		int named = 0;
		unsigned long long caught = 0;
		while (f && fgets(line, sizeof line, f)) {
			named |= !strcmp(line, "Name:\tlbtorus\n");
			sscanf(line, "SigCgt: %llx", &caught);
		}
		if (f)
			fclose(f);
		if (named && (caught >> (sig - 1) & 1))
			return;
		usleep(10000);
	}
	cr_assert_fail("process %d did not catch signal %d within 30 s", (int)pid, sig);
}

void th_tmpdir(char *buf, size_t n)
{
	snprintf(buf, n, "/tmp/lbt_testXXXXXX");
	cr_assert(mkdtemp(buf));
}

int th_count_files(const char *dir)
{
	DIR *d = opendir(dir);
	cr_assert(d);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(p);
}

void th_rm_tree(const char *dir) { nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS); }

int th_count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int n = 0, c;
	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

char *th_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f, "%s is missing", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *b = malloc((size_t)n + 1);
	cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	b[n] = 0;
	fclose(f);
	if (len)
		*len = (size_t)n;
	return b;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

char *th_dir_state(const char *dir)
{
	DIR *d = opendir(dir);
	cr_assert(d, "cannot open %s", dir);
	char *names[256];
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		cr_assert_lt(n, 256);
		char path[4096];
		struct stat sb;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		cr_assert_eq(lstat(path, &sb), 0);
		char line[4400];
		snprintf(line, sizeof line, "%s %lld %o %lld.%09ld\n", de->d_name, (long long)sb.st_size, (unsigned)sb.st_mode,
		         (long long)sb.st_mtim.tv_sec, sb.st_mtim.tv_nsec);
		names[n++] = strdup(line);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof *names, cmp_str);
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(names[i]);
	char *out = malloc(len);
	out[0] = 0;
	for (int i = 0; i < n; i++) {
		strcat(out, names[i]);
		free(names[i]);
	}
	return out;
}

void th_usage_error(const char *dir, const char *const *argv, const char *needle)
{
	char cmd[512] = "";
	for (int i = 0; argv[i] && strlen(cmd) < 400; i++)
		snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), "%s'%s'", i ? " " : "", argv[i]);
	char *before = th_dir_state(dir), *out, *err;
	int rc = th_cli(dir, argv, &out, &err);
	char *after = th_dir_state(dir);
	cr_assert_eq(rc, 2, "lbtorus %s: exit %d, want 2; stderr: %s", cmd, rc, err);
	size_t len = strlen(err);
	cr_assert(len > 10 && err[len - 1] == '\n' && !strchr(err, '\n')[1], "lbtorus %s: want one line on stderr, got: %s",
	          cmd, err);
	cr_assert(strstr(err, needle), "lbtorus %s: message '%s' does not mention '%s'", cmd, err, needle);
	cr_assert_str_eq(after, before, "lbtorus %s created or changed files (%s)", cmd, err);
	free(before);
	free(after);
	free(out);
	free(err);
}

void th_write_npy(const char *path, int major, const char *header, int raw, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	cr_assert(f, "cannot write %s", path);
	size_t pre = major == 1 ? 10 : 12, hl = strlen(header);
	size_t total = raw ? hl : (pre + hl + 1 + 63) / 64 * 64 - pre;
	unsigned char head[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', (unsigned char)major, 0};
	for (size_t i = 0; i < pre - 8; i++)
		head[8 + i] = (unsigned char)(total >> (8 * i));
	fwrite(head, 1, pre, f);
	fwrite(header, 1, hl, f);
	for (size_t i = hl; !raw && i + 1 < total; i++)
		fputc(' ', f);
	if (!raw)
		fputc('\n', f);
	if (n)
		fwrite(data, 1, n, f);
	fclose(f);
}

const char *th_csv_body(const char *text)
{
	while (*text == '#') {
		const char *nl = strchr(text, '\n');
		text = nl ? nl + 1 : text + strlen(text);
	}
	return text;
}

void th_block_copy(const lbt_shape *sh, const int64_t *lo, const int64_t *len, void *whole, void *block, size_t cell,
                   int to_block)
{
	const int last = sh->dims - 1;
	int64_t rows = 1;
	for (int d = 0; d < last; d++)
		rows *= len[d];
	for (int64_t j = 0; j < rows; j++) {
		int64_t rest = j, at = 0, c[LBT_MAXD];
		for (int d = last - 1; d >= 0; d--) {
			c[d] = rest % len[d] + lo[d];
			rest /= len[d];
		}
		for (int d = 0; d < last; d++)
			at = at * sh->ext[d] + c[d];
		char *w = (char *)whole + (size_t)(at * sh->ext[last] + lo[last]) * cell;
		char *b = (char *)block + (size_t)(j * len[last]) * cell;
		memcpy(to_block ? b : w, to_block ? w : b, (size_t)len[last] * cell);
	}
}

void th_cut_block(lbt_cut *c, const lbt_shape *whole, const int64_t *lo, const int64_t *len, const unsigned char *on,
                  void (*fill)(const lbt_view *, const lbt_cut *, int, int))
{
	const int D = whole->dims, last = D - 1;
	memset(c, 0, sizeof *c);
	c->dims = D;
	c->ranks = 1;
	c->depth = LBT_HALO;
	c->fill = fill ? fill : lbt_comm_fill;
	int first = 0, cuts = 0;
	while (first < last && whole->ext[first] < 2)
		first++;
	c->axis = -1;
	int64_t pes = 1, layer = 0;
	for (int d = 0; d < D; d++) {
		c->on[d] = on[d];
		c->nr[d] = 1;
		c->gext[d] = whole->ext[d];
		c->lo[d] = lo[d];
		c->len[d] = len[d];
		c->torus[d] = whole->bnd[d] == LBT_TORUS;
		cuts += on[d];
		if (on[d] && c->axis < 0)
			c->axis = d;
		pes *= len[d];
		int64_t cells = 1;
		for (int x = 0; on[d] && x < D; x++)
			cells *= x == d ? 1 : len[x] + (on[x] && x < d ? 2 * LBT_HALO : 0);
		layer = on[d] && cells > layer ? cells : layer;
	}
	c->slab = cuts == 1 && c->axis == first;
	c->by_pe = on[last];
	lbt_err e;
	cr_assert_eq(lbt_cut_rows(c, c->by_pe ? pes : pes / len[last], 1, layer, &e), LBT_OK, "%s", e.msg);
}

void th_workload_on_blocks(const lbt_setup *set, const char *spec, const int *nr, const int64_t layers[][4])
{
	enum { STEPS = 6, MAXB = 4 };
	lbt_state one;
	lbt_err e;
	cr_assert_eq(lbt_state_open(&one, set, &e), LBT_OK, "%s", e.msg);
	static lbt_workload w;
	cr_assert_eq(lbt_workload_parse(&w, spec, one.method->load, &e), LBT_OK, "%s", e.msg);
	const lbt_field *f = lbt_grid_field(&one.grid, one.method->load == LBT_LOAD_REAL ? "real" : "load");
	const size_t cell = lbt_type_size(f->type);
	const lbt_shape *sh = &one.grid.shape;
	const int64_t P = lbt_shape_pes(sh);
	char *init = malloc((size_t)P * cell), *want = malloc((size_t)P * cell), *got = malloc((size_t)P * cell);
	char *part = malloc((size_t)P * cell);
	lbt_field_export(&one.grid, f, init);
	void *ws;
	lbt_work_counts cw[STEPS] = {{0}};
	cr_assert_eq(w.open_spec(&ws, &w, &one, &e), LBT_OK, "%s", e.msg);
	for (int t = 0; t < STEPS; t++)
		cr_assert_eq(w.phase(ws, &one, t, 9, &cw[t], &e), LBT_OK, "%s", e.msg);
	w.close(ws);
	lbt_field_export(&one.grid, f, want);

	/* the blocks, in row-major order of the grid nr */
	int nb = 1;
	unsigned char on[LBT_MAXD];
	for (int d = 0; d < sh->dims; d++) {
		nb *= nr[d];
		on[d] = nr[d] > 1;
	}
	cr_assert(nb >= 1 && nb <= MAXB);
	lbt_state blk[MAXB];
	void *bws[MAXB];
	lbt_cut cut[MAXB];
	int64_t lo[MAXB][LBT_MAXD], len[MAXB][LBT_MAXD];
	for (int k = 0; k < nb; k++) {
		char shape[64] = "";
		for (int d = sh->dims - 1, r = k; d >= 0; d--) {
			const int q = r % nr[d];
			r /= nr[d];
			lo[k][d] = 0;
			for (int i = 0; i < q; i++)
				lo[k][d] += layers[d][i];
			len[k][d] = nr[d] > 1 ? layers[d][q] : sh->ext[d];
		}
		for (int d = 0; d < sh->dims; d++)
			snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%lld", d ? "x" : "", (long long)len[k][d]);
		lbt_setup ss = *set;
		ss.shape = shape;
		cr_assert_eq(lbt_state_open(&blk[k], &ss, &e), LBT_OK, "%s", e.msg);
		th_block_copy(sh, lo[k], len[k], init, part, cell, 1);
		lbt_field_import(&blk[k].grid, lbt_grid_field(&blk[k].grid, f->name), part);
		th_cut_block(&cut[k], sh, lo[k], len[k], on, NULL);
		blk[k].grid.cut = &cut[k];
		blk[k].grid.whole = *sh;
		cr_assert_eq(w.open_spec(&bws[k], &w, &blk[k], &e), LBT_OK, "%s", e.msg);
	}
	for (int t = 0; t < STEPS; t++) {
		lbt_work_counts c = {0};
		for (int k = 0; k < nb; k++)
			cr_assert_eq(w.phase(bws[k], &blk[k], t, 9, &c, &e), LBT_OK, "%s", e.msg);
		/* a real-valued counter adds the blocks' PEs block after block (each
		   is rank 0 of 1): the global order only if they are slabs (their
		   order under MPI: tests/mpi_identity.py) */
		if (!cut[0].slab && one.method->load == LBT_LOAD_REAL)
			continue;
		cr_assert(!memcmp(&c, &cw[t], sizeof c), "%s with %s on %s cut into %d blocks, step %d: generated %.17g / %.17g, "
		          "completed %.17g / %.17g, idle %.17g / %.17g (the blocks' sum / one process: a counter added on "
		          "every rank?)", spec, set->method, set->shape, nb, t, c.generated, cw[t].generated,
		          c.completed, cw[t].completed, c.idle_capacity, cw[t].idle_capacity);
	}
	for (int k = 0; k < nb; k++) {
		lbt_field_export(&blk[k].grid, lbt_grid_field(&blk[k].grid, f->name), part);
		th_block_copy(sh, lo[k], len[k], got, part, cell, 0);
		w.close(bws[k]);
		blk[k].grid.cut = NULL; /* the hand-made cut is not the grid's to free */
		blk[k].grid.whole = blk[k].grid.shape;
		lbt_cut_close(&cut[k]);
		lbt_state_close(&blk[k]);
	}
	cr_assert(!memcmp(got, want, (size_t)P * cell), "%s with %s on %s: the blocks' loads differ from one process's",
	          spec, set->method, set->shape);
	free(init);
	free(want);
	free(got);
	free(part);
	lbt_state_close(&one);
}
