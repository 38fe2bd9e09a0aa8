/* method.h — the load-balancing methods a run can use, by name. A method
 * owns how one step changes the state; the run driver owns everything else. */
#ifndef LBTORUS_METHOD_H
#define LBTORUS_METHOD_H

#include <stdint.h>

struct lbt_method;

/* Everything a method's step may touch. */
typedef struct {
	lbt_grid grid;                  /* integer loads */
	const struct lbt_method *method;
	const lbt_kernels *kern;        /* the dispatch table in use */
	int threads;
	uint64_t seed;
	int64_t step;                   /* steps completed so far */
	lbt_kernels table;              /* storage kern points at */
} lbt_state;

typedef struct lbt_method {
	const char *name;    /* as on the command line: "lm-c5" */
	const char *summary; /* one line for --help */
	const char *source;  /* paper and equation behind it */
	int cond;            /* Liquid-model condition LBT_C0..LBT_C5 */
	void (*step)(lbt_state *st, lbt_counts *c);
} lbt_method;

const lbt_method *lbt_method_find(const char *name);
const lbt_method *const *lbt_methods(void); /* NULL-terminated, in --help order */
/* What a run is made of, as text from a command line or a spec file. */
typedef struct {
	const char *shape;    /* NULL: taken from an init file's header */
	const char *boundary; /* NULL: torus */
	const char *method;   /* NULL: lm-c5 */
	const char *init;     /* NULL: worst:5 */
	const char *isa;      /* NULL or "auto": the best this CPU runs */
	uint64_t seed;
	int threads;          /* <= 0: all cores */
} lbt_setup;

/* Build the grid, load it, choose the kernels. Undone by lbt_state_close. */
int lbt_state_open(lbt_state *st, const lbt_setup *cfg, lbt_err *e);
void lbt_state_close(lbt_state *st);
void lbt_state_view(const lbt_state *st, lbt_view *v);

#endif
