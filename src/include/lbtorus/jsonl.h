/* jsonl.h — a results file (JSON Lines, one run record per line, as `sweep`
 * writes it) read into memory, for lbt_bound_points. The records stay
 * opaque: the parser is internal. */
#ifndef LBTORUS_JSONL_H
#define LBTORUS_JSONL_H

#include "lbtorus/status.h"

typedef struct lbt_jsonl lbt_jsonl;

/* Read every record of path, a regular file (a last line without its
 * newline is read if it parses, skipped as a killed writer's torn line if
 * it is where an object was cut short, else an error; blank lines are
 * skipped); errors name the line. Free with lbt_jsonl_close. */
int lbt_jsonl_open(lbt_jsonl **out, const char *path, lbt_err *e);
void lbt_jsonl_close(lbt_jsonl *l);

#endif
