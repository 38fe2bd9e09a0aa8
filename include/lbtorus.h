/* lbtorus.h — the public API of liblbtorus, a SIMD torus load-balancing
 * emulator: the one header a program includes (docs/library.md).
 *
 * A run is an opaque lbt_sim, opened from an lbt_config (shape, method and
 * its parameters, initial load, workload, speeds, seed, threads, ISA),
 * stepped or run with an observer called after every step, and read back:
 * its result (a struct, or the JSON object `lbtorus run --json` writes) and
 * its per-PE fields as NumPy-compatible arrays. The methods, their
 * parameters and the workloads can be listed; sweeps and the papers'
 * experiments run by name.
 *
 * Errors: every call that can fail returns an lbt_status (LBT_OK = 0) and
 * fills a caller-owned lbt_err with one line naming the problem; e may be
 * NULL. There is no global error state. Structs a caller fills are made by
 * their *_default() function and keep reserved space, so that later
 * versions can add fields without changing the ABI. */
#ifndef LBTORUS_H
#define LBTORUS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define LBT_API __attribute__((visibility("default")))
#else
#define LBT_API
#endif

/* The version of this header; lbt_version() gives the library's. LBT_ABI is
 * the soname's number (liblbtorus.so.LBT_ABI): docs/library.md. */
#define LBT_VERSION "0.2.0"
#define LBT_VERSION_MAJOR 0
#define LBT_VERSION_MINOR 2
#define LBT_VERSION_PATCH 0
#define LBT_ABI 0

typedef enum {
	LBT_OK = 0,
	LBT_EINVAL, /* bad argument, option, shape or file content */
	LBT_ENOMEM, /* allocation failed */
	LBT_EIO,    /* file could not be read or written */
	LBT_ERANGE, /* a load or total would overflow its type; a buffer is too small */
	LBT_EUNSUP, /* asked for something this build or CPU cannot do */
	LBT_EINTERNAL, /* an invariant broke: a bug, please report */
	LBT_EINTR     /* stopped by the caller's interrupt flag (a signal) before it finished */
} lbt_status;

/* One line describing the last failure, owned by the caller. */
typedef struct {
	char msg[512];
} lbt_err;

LBT_API const char *lbt_version(void);           /* "0.2.0": the library's version */
LBT_API const char *lbt_status_name(int status); /* "ok", "invalid", ..., "interrupted" */
/* What makes this process's results, as every record's "command" names it:
 * a program or binding its call ("lbtorus.run(shape=(64, 64))"); NULL:
 * "C API", the default. Not for use while another thread runs or sweeps. */
LBT_API void lbt_set_call(const char *call);

/* ---- What a run is made of ------------------------------------------- */

/* Text as on `lbtorus run`'s command line; NULL: its default. The strings
 * are the caller's and must outlive lbt_sim_open. */
typedef struct {
	uint32_t version;     /* set by lbt_config_default; a config not made by it is refused */
	const char *shape;    /* "64x64", "8x8x8"; NULL: from an init file's header */
	const char *boundary; /* "torus", "mesh", "torus/mesh"; NULL: torus */
	const char *method;   /* "lm-c5", "fos", ...; NULL: lm-c5 (lbt_method_describe lists them) */
	const char *init;     /* "worst:5", "random:0:9", "file:w.npy", ...; NULL: worst:5 */
	const char *workload; /* "cybenko:poisson:1:1", "tree:2:10", ...; NULL: none */
	const char *speeds;   /* the per-PE speed field ("const:1", "file:s.npy"); NULL: none */
	const char *link;     /* the network of speed methods; NULL: lan */
	const char *until;    /* "balanced", "steps:100", "rel:1e-6", ...; NULL: balanced */
	const char *isa;      /* "scalar", "avx2", ...; NULL or "auto": the best this CPU runs */
	uint64_t seed;        /* default 1 */
	int threads;          /* <= 0: all cores (the default) */
	int64_t max_steps;    /* a run stops unconverged after this many steps (default 1000000) */
	int64_t warmup;       /* with a workload: steps 1..warmup left out of sqdev_mean (default 0) */
	int full_stats;       /* fill idle, stddev and rel in every step's record */
	int verify;           /* also step the scalar reference and compare every step */
	/* if set non-zero (a signal handler): opening stops within a second, a
	 * run after its current step */
	const volatile sig_atomic_t *interrupt;
	struct {
		const char *name, *value; /* "alpha", "0.25" (lbt_config_param) */
	} param[8];
	const char *app;      /* "iterations:N": an application of N iterations (fos-speed*); NULL: none */
	/* "run": messages name options as `lbtorus run` does ("run: --warmup
	 * needs a --workload"); NULL: as this struct's fields ("warmup needs a workload") */
	const char *as_command;
	/* under MPI: the grid of ranks the torus is cut on, one count per axis
	 * ("4x2x1": their product the rank count, none above its axis's extent);
	 * NULL: slabs for the Liquid model and the search trees, else the grid
	 * whose blocks exchange the least halo (docs/usage.md, "MPI") */
	const char *ranks;
	void *reserved[13];
} lbt_config;

LBT_API lbt_config lbt_config_default(void);
/* Give the method parameter `name` ("alpha", "ca-k", "k", ...) the value
 * `value` (both kept as pointers); an unknown name is refused when the
 * config is checked or opened. LBT_ERANGE: no room for another one. */
LBT_API int lbt_config_param(lbt_config *c, const char *name, const char *value, lbt_err *e);
/* Everything lbt_sim_open checks, without allocating the torus. */
LBT_API int lbt_config_check(const lbt_config *c, lbt_err *e);

/* ---- A run ------------------------------------------------------------ */

typedef struct lbt_sim lbt_sim;

/* The state after one step (step 0: the initial state). Load quantities are
 * in the load's units: integers for an integer method. */
typedef struct {
	int64_t step;
	double max, min, total;
	double shifts;        /* time in the papers' unit, over the run so far */
	double moved;         /* load that crossed a link in this step */
	double moved_total;
	double link_max;      /* the largest amount on one link in this step */
	int64_t idle;         /* PEs without load (with full_stats only for integer methods, fos, ca) */
	double stddev, rel;   /* rel = stddev / initial stddev (the same) */
	/* With a workload: generated and completed in this step's phase, the
	 * capacity it left unused, ||w - mean||^2 of what the method received */
	double generated, completed, idle_capacity, sqdev;
	double reserved[8];
} lbt_record;

/* Called after every step, and once for step 0; a non-zero return stops the
 * run after this step (stop "interrupted"). It must not call into sim. */
typedef int (*lbt_observer)(void *ctx, const lbt_record *r);

/* Build the torus, load it, open the method and workload. */
LBT_API int lbt_sim_open(lbt_sim **sim, const lbt_config *c, lbt_err *e);
LBT_API void lbt_sim_close(lbt_sim *sim); /* NULL: nothing */
/* One run from the current state until the config's criterion holds (or
 * max_steps, a fixed point, a recurring state, the interrupt or the
 * observer stops it); observe may be NULL. */
LBT_API int lbt_sim_run(lbt_sim *sim, lbt_observer observe, void *ctx, lbt_err *e);
/* n more steps of one run kept open between calls (a workload's phase
 * before each): calls of n1, n2, ... leave the bits, the result and the JSON
 * of one run of steps:n1+n2+... from the state the first call found, with
 * every workload (its phases, arrivals and search trees go on across the
 * calls). lbt_sim_run and lbt_sim_field_write end it: the next call starts
 * a new run from the state they leave. */
LBT_API int lbt_sim_step(lbt_sim *sim, int64_t n, lbt_err *e);

/* How the last run or steps went; before any: zeros and stop "none". */
typedef struct {
	int64_t step;         /* steps the state has taken since it was opened */
	int64_t steps;        /* steps of the last run (lbt_sim_step: all its calls') */
	int reached;          /* its criterion held when it stopped */
	int real;             /* the method's loads are real-valued */
	const char *stop;     /* "until", "max_steps", "stalled", "cycle", "interrupted", "detected" */
	double total, initial_max, initial_min, final_max, final_min;
	double shifts, moved, seconds;
	int64_t shared_step, balanced_step, flat_step;       /* -1: never reached */
	double shared_shifts, balanced_shifts, flat_shifts;  /* -1: never reached */
	double generated, completed;                         /* by the workload */
	int64_t period;       /* stop "cycle": the state recurred after this many steps */
	int64_t site_updates; /* PEs x substeps processed */
	double reserved[14];
} lbt_result;
LBT_API int lbt_sim_result(const lbt_sim *sim, lbt_result *r, lbt_err *e);
/* The last run as the one-line JSON object `lbtorus run --json` writes (the
 * keys are documented in README.md), NUL-terminated, into buf[0..cap-1];
 * *len (may be NULL) receives its length. LBT_ERANGE: cap <= the length. */
LBT_API int lbt_sim_json(const lbt_sim *sim, char *buf, size_t cap, size_t *len, lbt_err *e);

/* ---- Per-PE fields as NumPy arrays ------------------------------------ */

/* An array as NumPy's __array_interface__ describes it: C or any strides. */
typedef struct {
	void *data;
	char dtype[8];        /* "<i4" (int32) or "<f8" (float64) */
	int ndim;             /* the torus's dimensions */
	int64_t shape[8];
	int64_t strides[8];   /* bytes from one element to the next along each axis */
	int64_t reserved[4];
} lbt_array;

/* The field `name` ("load": the integer loads; "real": a real-valued
 * method's loads; "speed": the PE speeds) described in a, with C-contiguous
 * strides and data NULL. LBT_EINVAL: sim has no such field. */
LBT_API int lbt_sim_field(const lbt_sim *sim, const char *name, lbt_array *a, lbt_err *e);
/* Copy the field into the caller's array (its dtype and shape must match). */
LBT_API int lbt_sim_field_read(const lbt_sim *sim, const char *name, const lbt_array *dst, lbt_err *e);
/* Replace the field by the caller's array: integer loads >= 0, finite reals. */
LBT_API int lbt_sim_field_write(lbt_sim *sim, const char *name, const lbt_array *src, lbt_err *e);

/* ---- What there is ---------------------------------------------------- */

typedef struct {
	const char *name, *summary, *citation;
	int real;             /* real-valued loads */
	int deterministic;    /* the next state depends on the loads alone */
	int speeds;           /* reads the per-PE speed field */
	int nparams;
	int random;           /* draws random numbers: its seed matters */
	int cut;              /* runs on a torus cut between MPI ranks */
	int scratch;          /* allocates the kernels' scratch rows */
	unsigned kernels;     /* the kernel slots its step calls: bit i for slot[i] */
	const char *const *slot; /* the kernel slots' names ("lm_step", ...), NULL-terminated */
	const void *reserved[5];
} lbt_method_info;
/* The i-th method (0, 1, ...; --help order); LBT_EINVAL past the last. */
LBT_API int lbt_method_describe(int i, lbt_method_info *m);

typedef struct {
	const char *name, *short_name; /* short_name: a sweep's key, or NULL */
	int integer;          /* 1: integers only */
	double lo, hi;        /* the range (hi may be +inf) */
	int lo_open;          /* 1: lo < x, else lo <= x */
	const char *words;    /* other accepted values, comma-separated, or NULL */
	const char *def;      /* the default, as text */
	const char *help;
	const void *reserved[8];
} lbt_param_info;
/* Parameter j of method i; LBT_EINVAL past the last. */
LBT_API int lbt_param_describe(int i, int j, lbt_param_info *p);

typedef struct {
	const char *name, *summary;
	const char *usage;    /* the spec's form: "cybenko:DIST:C" */
	int tasks;            /* a finite set of tasks: until "done" is its natural end */
	const char *example;  /* a spec that runs on a small torus ("tree:2:4") */
	int int_loads, real_loads; /* the example runs on integer, on real-valued loads */
	const void *reserved[6];
} lbt_workload_info;
LBT_API int lbt_workload_describe(int i, lbt_workload_info *w);

/* The ISA targets compiled in, best last: the i-th (0, 1, ...), LBT_EINVAL
 * past the last. `chosen`: the one "auto" takes (LBTORUS_ISA if set, else
 * the best this CPU runs that is not emulated). */
typedef struct {
	const char *name;     /* "scalar", "sse41", "avx2", "avx512", "avx512emu", ... */
	int supported;        /* this CPU runs it */
	int emulated;         /* it emulates another target (avx512emu): auto never takes it */
	int chosen;
	const void *reserved[4];
} lbt_isa_info;
LBT_API int lbt_isa_describe(int i, lbt_isa_info *isa);

/* ---- Many runs -------------------------------------------------------- */

typedef struct {
	uint32_t version;     /* set by lbt_batch_default */
	int threads;          /* runs at once, one thread each (<= 0: all cores) */
	const char *isa;      /* NULL: auto */
	const char *data_dir; /* reproduce: the papers' numbers (NULL: $LBTORUS_DATA, else installed) */
	int quick;            /* reproduce: small sizes only */
	/* if set non-zero (a signal handler): the runs stop after their current
	 * step, no other starts, and the call returns LBT_EINTR (a sweep keeps
	 * the runs recorded so far; an experiment publishes nothing) */
	const volatile sig_atomic_t *interrupt;
	void (*note)(void *ctx, const char *line); /* progress, a line at a time; may be NULL */
	void *ctx;
	int titles;           /* reproduce: a title on each plot (default none: a figure has a caption) */
	void *reserved[15];
} lbt_batch;
LBT_API lbt_batch lbt_batch_default(void);
/* The runs of the sweep spec file `spec` (docs/usage.md) not yet recorded in
 * `results` (JSON lines, appended, resumed), as `lbtorus sweep` runs them. */
LBT_API int lbt_sweep_file(const char *spec, const char *results, const lbt_batch *b, lbt_err *e);
/* The experiments of `lbtorus reproduce` by index (NULL past the last)... */
LBT_API const char *lbt_experiment(int i);
/* ... and one run into out_dir, its files published together at the end
 * (an error or the interrupt leaves out_dir as it was); *differs (may be
 * NULL): how many of the paper's exact values ours missed. Under MPI every
 * rank calls it: rank 0 runs the experiment and writes its files, its
 * batches of runs spread over all ranks; every rank returns rank 0's outcome. */
LBT_API int lbt_experiment_run(const char *name, const char *out_dir, const lbt_batch *b, int64_t *differs,
                               lbt_err *e);

/* ---- The command line's tools: numbers, processes, search, report, figures */

/* The one parser of numbers given as text: all of text as an integer in
 * [lo, hi], an unsigned one, or a real in [lo, hi] ((lo, hi] if lo_open),
 * never clamped; else LBT_EINVAL with one line naming `what`, the text and
 * the range ("--n '11' is out of range: give 1..10"). */
LBT_API int lbt_parse_i64(const char *text, int64_t lo, int64_t hi, const char *what, int64_t *v, lbt_err *e);
LBT_API int lbt_parse_u64(const char *text, uint64_t lo, uint64_t hi, const char *what, uint64_t *v, lbt_err *e);
LBT_API int lbt_parse_f64(const char *text, double lo, double hi, int lo_open, const char *what, double *v,
                          lbt_err *e);
/* MPI: join it if an MPI launcher started the process (LBT_EIO: failed),
 * leave it; the rank and the ranks (0 and 1 alone); 1 if built with MPI. */
LBT_API int lbt_comm_init(int *argc, char ***argv, lbt_err *e);
LBT_API void lbt_comm_finalize(void);
LBT_API int lbt_comm_rank(void);
LBT_API int lbt_comm_size(void);
LBT_API int lbt_comm_mpi(void);
/* Under MPI, after a sweep, bound, search or reproduce stopped because a
 * rank was signalled (its interrupt flag set to the signal's number): that
 * number as the ranks agreed it between their runs, also on a rank that
 * was not signalled itself (0: none was found). */
LBT_API int lbt_comm_signal(void);
/* lbt_set_call for a command line: argv joined, quoted as a shell needs. */
LBT_API void lbt_set_argv(int argc, char *const argv[]);
/* For a program that catches signals: from now on, once *flag is set, the
 * runs of lbt_sim_run, lbt_sim_step and lbt_search_run without a flag of
 * their own stop after their current step, and no output file is published
 * (NULL: none). Set it before threads start. */
LBT_API void lbt_interrupt_all(const volatile sig_atomic_t *flag);
/* The papers' data reproduce reads: $LBTORUS_DATA if set, else installed. */
LBT_API const char *lbt_data_dir(void);
/* `lbtorus report`: a Markdown report of a results file (or of the *.jsonl
 * of a directory) and what lies beside it, into out ("-": stdout). */
LBT_API int lbt_report_write(const char *results, const char *out, lbt_err *e);

typedef void (*lbt_print)(void *ctx, const char *line); /* a line of a result, no newline */

/* `lbtorus search`: the initial load of a total with max - min = ldiff
 * that a method takes longest to balance; text as on its command line. */
typedef struct {
	uint32_t version;     /* set by lbt_search_default */
	const char *shape, *boundary, *method, *workload; /* "6x6"; NULL: torus, lm-c5, none */
	int64_t ldiff, total;
	int64_t mean;         /* >= 0: total = mean * PEs (default -1) */
	int64_t restarts, moves, max_steps; /* default 8, 2000, 0: 1000 * D*K*Ldiff + 1000 */
	double anneal;        /* start temperature in steps (0: hill climbing) */
	uint64_t seed;        /* default 1 */
	const char *out;      /* the worst loads found as .npy (NULL: worst.npy) */
	lbt_print print;      /* the JSON object `lbtorus search` prints */
	void *ctx;
	void *reserved[8];
} lbt_search_spec;
LBT_API lbt_search_spec lbt_search_default(void);
/* b: threads (restarts at once; the result is the same on any number),
 * isa, note (a line per restart), interrupt (LBT_EINTR, nothing written).
 * Under MPI every rank calls it: restart r runs on rank r mod R, and rank
 * 0 writes the .npy and prints; the result is one process's. */
LBT_API int lbt_search_run(const lbt_search_spec *s, const lbt_batch *b, lbt_err *e);

/* `lbtorus plot`: a figure of results files (.jsonl) and traces (.csv). */
typedef struct {
	uint32_t version;     /* set by lbt_figure_default */
	const char *const *inputs;
	int ninputs;
	const char *x, *y, *group; /* keys or columns; group NULL: a series per trace, one of all records */
	int logx, logy;
	const char *fit;      /* "linear", "power"; NULL: none */
	const char *title;    /* NULL: none */
	const char *stem;     /* STEM.png .svg .gp .dat .csv .py .fit.json (NULL: plot) */
	lbt_print print;      /* the fits, a line per group, as `lbtorus plot` prints them */
	void *ctx;
	void *reserved[8];
} lbt_figure_spec;
LBT_API lbt_figure_spec lbt_figure_default(void);
/* What lbt_figure_write checks before reading: fit, keys, outputs vs inputs. */
LBT_API int lbt_figure_check(const lbt_figure_spec *f, lbt_err *e);
LBT_API int lbt_figure_write(const lbt_figure_spec *f, lbt_err *e);

/* ---- Sweeps and Theorem 3 (`lbtorus sweep`, `lbtorus bound`) ---------- */

/* Where a sweep stands: after every finished run (and once before the
 * first), and at the end. */
typedef struct {
	int64_t total, skipped;      /* runs of the plan; of them already in the results file */
	int64_t done, failed;        /* by this call: recorded; stopped by an error (not recorded) */
	int64_t unconverged;         /* recorded with reached = false */
	double seconds;              /* since the runs began */
	double rate;                 /* runs finished per second */
	double eta;                  /* seconds still to go, from the work done; < 0: not known yet */
	int torn;                    /* a torn last line was moved to RESULTS.torn */
	int completed;               /* the last record lacked its newline: it was added */
	int end;                     /* the last call: the sweep stopped with `status` */
	int status;
	int rank;                    /* under MPI this process's rank: only rank 0 gets callbacks */
	double reserved[8];
} lbt_sweep_counts;

typedef struct {
	uint32_t version;            /* set by lbt_sweep_default */
	const char *spec;            /* a spec file of 'key = value' lines (docs/usage.md); NULL: none */
	const char *results;         /* JSON Lines, created or appended to and resumed (bound: unused) */
	struct {
		const char *name, *value; /* lbt_sweep_set: an axis given as an option replaces the file's */
	} axis[64];
	int threads;                 /* threads of each run of >= solo_pes PEs (<= 0: all cores) */
	int64_t solo_pes;            /* runs this big go one at a time (default 65536) */
	int verify;                  /* also step the scalar reference and compare every step */
	int dry_run;                 /* the plan only: `planned` gets each run, nothing runs */
	void (*planned)(void *ctx, const char *id, const char *key);
	void (*progress)(void *ctx, const lbt_sweep_counts *c); /* may be NULL */
	void *ctx;
	void *reserved[16];
} lbt_sweep_opts;
LBT_API lbt_sweep_opts lbt_sweep_default(void);
/* An option of `lbtorus sweep` by its name and text, checked now (the
 * message names it): an axis ("method", "shape", "boundary", "init",
 * "until", "workload", "seed") appends its items, "max-steps", "warmup",
 * "solo-pes" set their number. Name and value are kept as pointers. */
LBT_API int lbt_sweep_set(lbt_sweep_opts *o, const char *name, const char *value, lbt_err *e);
/* The batch made by lbt_batch_default and its ISA compiled in and run by this CPU. */
LBT_API int lbt_batch_check(const lbt_batch *b, lbt_err *e);
/* The runs of the plan (spec file, then axes, then defaults) not yet in
 * o->results, b->threads at once; its outputs checked against its inputs.
 * *c (may be NULL): the counts at the end. LBT_EINTR: b->interrupt was set. */
LBT_API int lbt_sweep_run(const lbt_sweep_opts *o, const lbt_batch *b, lbt_sweep_counts *c, lbt_err *e);

/* Henrich's (1996) Theorem 3, T = O(D·K·Ldiff): the sweep (one method;
 * sweep.axis over bound's default axes) into OUT/runs.jsonl, or the records
 * of `from`; the fit into OUT/bound.csv, bound.json and the plots,
 * published together; the summary `lbtorus bound` prints through b->note. */
typedef struct {
	uint32_t version;            /* set by lbt_bound_default */
	lbt_sweep_opts sweep;
	const char *out_dir;         /* default "bound"; made if missing */
	const char *from;            /* a results file to fit instead of running; NULL: run */
	int titles;                  /* a title on each plot */
	/* the axes neither sweep.axis nor the spec file gives (lbt_bound_default:
	 * rings and K^D tori, Ldiff up to 2047, seeds 1..3, balanced: 420 runs) */
	const char *shape, *init, *seed, *until;
	void *reserved[8];
} lbt_bound_opts;
typedef struct {
	lbt_sweep_counts sweep;      /* the sweep's counts (zeros with from) */
	int ran, published, drawn;   /* runs.jsonl has the sweep; bound.csv, .json are out; the plots */
	char plots[512];             /* why there are no plots (no gnuplot), or "" */
	int64_t points, fitted, skipped; /* the method's runs on symmetric tori (of this plan); fitted; others */
	double c, c_lo95, c_hi95;    /* T ~ c·D·K·Ldiff: the mean ratio and its 95 % interval */
	double c_ols, envelope;      /* least squares through 0; the largest ratio */
	double reserved[8];
} lbt_bound_result;
LBT_API lbt_bound_opts lbt_bound_default(void);
/* Under MPI every rank calls it: the sweep spreads its runs over the ranks
 * (lbt_sweep_run), rank 0 fits and writes the files and the summary, and
 * every rank gets rank 0's result and status. */
LBT_API int lbt_bound_run(const lbt_bound_opts *o, const lbt_batch *b, lbt_bound_result *r, lbt_err *e);

/* ---- A run's files, its bounds, and what the CLI prints of it --------- */

/* The files `lbtorus run` writes, as its options name them; NULL: none.
 * Each is written to a temporary and renamed into place when the run ends
 * (an error removes them all); on a torus cut between MPI ranks, rank 0
 * writes them (every rank its slab of the dump). */
typedef struct {
	uint32_t version;      /* set by lbt_outputs_default */
	const char *json;      /* lbt_sim_json's object and a newline; "-": stdout */
	const char *trace;     /* CSV, a row per step after "# key: value" lines (docs/formats.md) */
	const char *dump;      /* the final loads as .npy: int32, float64 for a real-valued method */
	const char *snapshots; /* 1-D/2-D: DIR/step_NNNNNNNN.png (heat map) and .npy every `every` steps and the last */
	const char *animate;   /* 1-D/2-D: an animated GIF, a frame every `every` steps and the last */
	const char *comm_stats; /* each rank's time, halo bytes and waits (JSON) */
	int64_t every;         /* default 10 */
	int64_t heat_max;      /* colour scale's top; 0: max(2*ceil(mean), D+1) */
	int64_t zoom;          /* pixels per PE side; 0: the longer side <= 512 pixels */
	int64_t delay;         /* a GIF frame's time in 1/100 s (default 8) */
	void *reserved[12];
} lbt_outputs;
LBT_API lbt_outputs lbt_outputs_default(void);
/* Before opening: no output over another or over one of c's input files
 * (init, speeds), however spelled. */
LBT_API int lbt_outputs_check(const lbt_outputs *o, const lbt_config *c, lbt_err *e);
/* Open o's files (a bad path fails now, not after the run) for sim's next
 * lbt_sim_run, which writes and commits them, or removes them on an error. */
LBT_API int lbt_sim_outputs(lbt_sim *sim, const lbt_outputs *o, lbt_err *e);

/* A run as it stands: what it runs on, and seed 000's bounds (Henrich 1996,
 * Theorem 3 and the lower bounds) for its current loads. On a torus cut
 * between MPI ranks every rank must call it (it sums over the blocks). */
typedef struct {
	const char *method, *isa;
	int threads;
	int dims, active_dims; /* active: extent >= 2 */
	int64_t pes, k;        /* k: the largest extent */
	int rank, ranks;       /* this process and how many share the torus (1: not cut) */
	int cut;               /* the torus is cut into blocks (MPI, or LBTORUS_CUT=1) */
	int64_t dkl_bound;     /* D*K*Ldiff */
	int64_t lower_bound_steps;          /* ceil((Lmax - mean)/D) */
	int64_t balanced_lower_bound_steps; /* ceil((Lmax - floor(mean) - D)/D) */
	double reserved[8];
} lbt_sim_info;
LBT_API int lbt_sim_describe(const lbt_sim *sim, lbt_sim_info *i, lbt_err *e);

/* The i-th stop criterion lbt_config.until and a sweep's "until" take
 * ("steps:N") and one line of help; LBT_EINVAL past the last. */
typedef struct {
	const char *syntax, *help;
	const void *reserved[4];
} lbt_until_info;
LBT_API int lbt_until_describe(int i, lbt_until_info *u);
/* The papers' value `id` of data_dir/henrich1996_claims.csv (`lbtorus reproduce`'s numbers). */
LBT_API int lbt_claim_value(const char *data_dir, const char *id, double *value, lbt_err *e);

/* ---- Timing the kernels (`lbtorus bench`) and files written whole ----- */

/* What to time: each size x method x ISA x thread count, from init, for
 * about `seconds` a case, the method's steps alone (no reductions, checks or
 * observers). Lists comma-separated as on bench's command line; NULL: the
 * default. The strings are the caller's. */
typedef struct {
	uint32_t version;     /* set by lbt_bench_default; a struct not made by it is refused */
	const char *sizes;    /* shapes; NULL: 128x128,1024x1024,4096x4096,256x256x256 (quick: 64x64x64 last) */
	const char *methods;  /* NULL: lm-c0,...,lm-c5 (quick: lm-c4,lm-c5) */
	const char *isa;      /* NULL: every target compiled in that this CPU runs natively, scalar first */
	int threads[16];      /* thread counts, 0 after the last; none: 1 and all cores */
	const char *init;     /* NULL: uniform:0:20 */
	const char *workload; /* also time each case under it ("cybenko:poisson:1:1"); NULL: static only */
	const char *out;      /* the file the caller writes the results to, refused if it is init's; NULL: none */
	double seconds;       /* per measurement; <= 0: 0.5 (quick: 0.1) */
	int quick;            /* the quick defaults above */
	/* if set non-zero (a signal handler): the timing stops after the current step, LBT_EINTR */
	const volatile sig_atomic_t *interrupt;
	void *reserved[16];
} lbt_bench;

/* The machine, and the defaults the options left to the library. */
typedef struct {
	char cpu[256];        /* the CPU's model name */
	int cores;            /* the processors OpenMP may use */
	int instrumented;     /* built with sanitizers: the timings are not the hardware's */
	double seconds;       /* per measurement */
	const char *init;
	double reserved[8];
} lbt_bench_info;

/* One timing. The bound: a step reads and writes every PE's load (int32,
 * or float64 for a real-valued method: 2 x cell_bytes bytes) for D site
 * updates, so a bandwidth B allows B / (2 x cell_bytes) x D site updates per
 * second; B is measured on arrays of the size's PEs x cell_bytes bytes with
 * the case's threads (the best of 1, 2, 4, ... and them) copying between
 * two arrays, and updating one in place. A site update is one PE in one
 * substep. */
typedef struct {
	const char *size, *method, *isa;
	const char *workload; /* the workload's spec, NULL: the static case */
	int dims, threads;
	int64_t pes, steps;
	double seconds, rate; /* rate: site updates per second */
	double scalar_rate;   /* the scalar reference's, static, on the same size and method (0: not timed) */
	double static_rate;   /* with a workload: the same case's without it */
	double copy_bw, in_place_bw;  /* bytes read + written per second */
	double bound, in_place_bound; /* site updates per second */
	int cell_bytes;               /* a PE's load: 4 (int32), 8 (float64); 0 in the headline's rows */
	int reserved_int;
	double reserved[7];
} lbt_bench_row;
/* Called with each row as it is measured (its strings live until it
 * returns); a non-zero return stops the measuring (LBT_EINTR). */
typedef int (*lbt_bench_fn)(void *ctx, const lbt_bench_row *r);

LBT_API lbt_bench lbt_bench_default(void);
/* Everything the two calls below check before they measure: each list's
 * items, the workload (a process of arrivals), and that every size fits in
 * memory with the copy each measurement restarts from. info may be NULL. */
LBT_API int lbt_bench_check(const lbt_bench *b, lbt_bench_info *info, lbt_err *e);
/* The headline, a row for each ISA of b: 128x128, lm-c5, worst:5 until
 * balanced, 1 thread, as `lbtorus run` runs it (size, method, isa, threads,
 * steps, seconds and rate filled). */
LBT_API int lbt_bench_headline(const lbt_bench *b, lbt_bench_fn row, void *ctx, lbt_err *e);
/* For each size its bandwidths, then each method x ISA x thread count (the
 * scalar reference on one), static and under b's workload. */
LBT_API int lbt_bench_run(const lbt_bench *b, lbt_bench_fn row, void *ctx, lbt_err *e);

/* An output file written whole: to a temporary beside path ("-": stdout),
 * renamed into place by lbt_output_commit, so that a failed or interrupted
 * command never leaves half a file. Both end o. */
typedef struct lbt_output lbt_output;
LBT_API int lbt_output_open(lbt_output **o, const char *path, FILE **f, lbt_err *e);
LBT_API int lbt_output_commit(lbt_output *o, lbt_err *e);
LBT_API void lbt_output_abort(lbt_output *o); /* remove the temporary; NULL: nothing */

#ifdef __cplusplus
}
#endif

#endif
