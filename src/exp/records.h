/* records.h (private) — reading the inputs of a run record back, shared by
 * bound, report and the sweep plan. */
#ifndef LBTORUS_EXP_RECORDS_H
#define LBTORUS_EXP_RECORDS_H

#include <stddef.h>

#include "out/jsonl.h"

/* An input of a record (method, until, ...) as its run_key gives it if it has
 * one ("fos:alpha=0.25", "rel:1e-06"), else the record's field of that name;
 * "" if neither. Written into buf. */
const char *lbt_record_input(const lbt_jobj *o, const char *name, char *buf, size_t n);

#endif
