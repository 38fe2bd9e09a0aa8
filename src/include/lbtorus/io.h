/* io.h — outputs written atomically: to a temporary file beside the target
 * (.NAME.tmp.HOST.PID), flushed and synced, then renamed into place, so an
 * interrupted or failed run never leaves a half-written result. Opening NAME
 * removes the temporaries of NAME left by dead processes of this host. A
 * device or FIFO, and any name under /dev or /proc, is written through (never replaced); a symbolic link is
 * followed (the file it names is replaced, the link stays); a directory is
 * refused. */
#ifndef LBTORUS_IO_H
#define LBTORUS_IO_H

#include <signal.h>
#include <stdio.h>

#include "lbtorus/status.h"

typedef struct {
	FILE *f;
	char path[4096];
	char tmp[4400];
	int direct;     /* written through: no temporary, nothing to rename */
} lbt_outfile;

/* "-" means stdout (written directly, nothing to rename). */
int lbt_out_open(lbt_outfile *o, const char *path, lbt_err *e);
int lbt_out_commit(lbt_outfile *o, lbt_err *e); /* flush, fsync, rename */
void lbt_out_abort(lbt_outfile *o);              /* close and remove the temporary */
/* From now on, once *flag is set (a signal), lbt_out_commit aborts instead
 * (removes the temporary and fails): what is computed after an interrupt
 * is never published. NULL: commit always. */
void lbt_out_hold(const volatile sig_atomic_t *flag);
int lbt_out_held(void); /* 1 if commits are refused now */
/* The temporary name of an output `path` written by other means (gnuplot's
 * pictures): DIR/.NAME.tmp.HOST.PID, after removing those of NAME that dead
 * processes of this host left. */
int lbt_out_tmpname(const char *path, char *tmp, size_t n, lbt_err *e);

/* A set of outputs in one directory, published together: every file is
 * written into a staging directory inside it (DIR/.lbtorus.tmp.HOST.PID,
 * removed when left by a dead process, as a temporary file is) and moved
 * into DIR, by rename, only once all of them were written; on failure the
 * staging directory goes and DIR keeps its earlier files, whole. */
typedef struct {
	char dir[4096];   /* where the files go */
	char stage[4400]; /* where they are written: pass it as the directory */
	int created;      /* DIR did not exist: lbt_outdir_abort removes it if still empty */
} lbt_outdir;
/* Create DIR if missing (refusing a file), then its staging directory. */
int lbt_outdir_open(lbt_outdir *d, const char *dir, lbt_err *e);
/* Move the staged files into DIR and remove the stage; refused (and
 * aborted) once commits are held (lbt_out_hold). */
int lbt_outdir_commit(lbt_outdir *d, lbt_err *e);
/* Remove the staging directory (and DIR if it created it and it is empty);
 * where e's message (e may be NULL) names the staging directory, it now
 * names DIR. */
void lbt_outdir_abort(lbt_outdir *d, lbt_err *e);

/* 1 if a and b name the same file: by device and inode when it exists
 * (any spelling, links followed), else by the device and inode of its
 * directory and its name. "-" (stdout) and NULL are no file. */
int lbt_same_file(const char *a, const char *b);
/* A command's files, each with the option or role that names it. */
typedef struct {
	const char *what; /* "--json", "--init file:", "results file" */
	const char *path; /* NULL: not given */
} lbt_io_name;
/* Refuse (LBT_EINVAL, one line naming both) two outputs that are one file,
 * and an output that is one of the inputs (lbt_same_file): every command
 * checks every pair with this, before it writes. */
int lbt_io_distinct(const lbt_io_name *in, int nin, const lbt_io_name *out, int nout, lbt_err *e);

#endif
