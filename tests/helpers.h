/* helpers.h — test utilities: states from text, golden CSV tables from
 * data/, and running the lbtorus binary as a user would. */
#ifndef LBTORUS_TEST_HELPERS_H
#define LBTORUS_TEST_HELPERS_H

#include <sys/types.h>

#include "lbtorus/lbtorus.h"

/* Open a state (aborts the test on failure); isa NULL = scalar. */
void th_open(lbt_state *st, const char *shape, const char *boundary, const char *method,
             const char *init, const char *isa);
/* Dense row-major copy of the loads (caller frees). */
int32_t *th_loads(const lbt_state *st);
void th_set(lbt_state *st, const int32_t *dense);
int64_t th_total(const lbt_state *st);

/* Read data/NAME (CSV, '#' comments, a header row): up to max rows of up to
 * cols integers each; returns the row count. */
int th_table(const char *name, int64_t *rows, int max, int cols);

/* Run the lbtorus binary with argv (NULL-terminated, without argv[0]) in dir;
 * capture stdout and stderr (caller frees). Returns the exit status, or 128 +
 * the signal that ended it: a command still running after th_cli_seconds
 * (240 unless a test lowers it) is ended by SIGALRM (status 142), so a hang
 * fails its test instead of stalling CI. */
extern unsigned th_cli_seconds;
int th_cli(const char *dir, const char *const *argv, char **out, char **err);
/* Start the lbtorus binary with argv in dir (NULL: here), its input and
 * output /dev/null, and return at once: its pid, to signal and wait for. */
pid_t th_spawn(const char *dir, const char *const *argv);
/* Wait (up to 30 s) until pid, exec'd as lbtorus, catches sig (its handler
 * installed: SigCgt of /proc/PID/status), so a signal sent next meets the
 * handler and not a process still starting: AddressSanitizer's start alone
 * took over the 0.3 s a test waited, on a loaded machine, and the signal's
 * default action ended the run (exit 130). */
void th_wait_caught(pid_t pid, int sig);
/* A fresh empty temporary directory. */
void th_tmpdir(char *buf, size_t n);
int th_count_files(const char *dir);
/* Remove a directory tree. */
void th_rm_tree(const char *dir);
/* A whole file, NUL-terminated (caller frees); its length in *len unless len
 * is NULL. The test fails if the file is missing. */
char *th_read(const char *path, size_t *len);

/* A CSV's text after its leading '#' lines (a trace's provenance header). */
const char *th_csv_body(const char *text);

/* The lines (newlines) in the file at path; 0 while it does not exist. */
int th_count_lines(const char *path);

/* The names, sizes, modes and modification times of dir's entries (not
 * recursive), sorted: equal before and after a command means it created,
 * removed and changed nothing there (caller frees). */
char *th_dir_state(const char *dir);
/* Run argv in dir and assert what every bad input gets: exit 2, exactly one
 * line on stderr that contains needle, and dir exactly as it was. */
void th_usage_error(const char *dir, const char *const *argv, const char *needle);
/* Write F.npy-like bytes: magic, version major.0, the header text padded
 * with spaces to a 64-byte boundary and a newline (unless raw), then n data bytes. */
void th_write_npy(const char *path, int major, const char *header, int raw, const void *data, size_t n);

/* Blocks made by hand. The PEs of the block lo[d] .. lo[d] + len[d] - 1 of
 * the torus sh, between the whole's dense row-major copy and the block's
 * (to_block: whole -> block); a cut saying where the block lies (one rank
 * of one: its reductions are the values themselves), the axes with on[d]
 * cut, filling its halo with fill (NULL: the comm layer's), its buffers
 * allocated (lbt_cut_close frees them). */
void th_block_copy(const lbt_shape *sh, const int64_t *lo, const int64_t *len, void *whole, void *block, size_t cell,
                   int to_block);
void th_cut_block(lbt_cut *c, const lbt_shape *whole, const int64_t *lo, const int64_t *len, const unsigned char *on,
                  void (*fill)(const lbt_view *, const lbt_cut *, int, int));

/* A workload's phase on a torus cut by hand into blocks: the torus of `set`
 * cut along every axis d into nr[d] blocks of layers[d][0..nr[d]-1] (at
 * most 4 blocks in all), a state per block with the whole's initial loads
 * there and a cut saying where it lies (th_cut_block); the workload `spec`
 * runs 6 steps on the blocks in order with one set of counters, as the
 * reduction over ranks adds every rank's. The counters and the loads must
 * be one process's, bit for bit: a draw for the wrong PE, a task on the
 * wrong block, or a counter every rank adds for the whole torus (counted
 * once per block) shows. */
void th_workload_on_blocks(const lbt_setup *set, const char *spec, const int *nr, const int64_t layers[][4]);

#define TH_ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

#endif
