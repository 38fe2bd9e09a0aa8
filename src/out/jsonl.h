/* jsonl.h (private) — reading back the flat JSON objects lbtorus writes (one
 * per line): string, number, true/false and null values; no nesting. The
 * public lbtorus/jsonl.h shows only an opaque handle on a loaded file. */
#ifndef LBTORUS_OUT_JSONL_H
#define LBTORUS_OUT_JSONL_H

#include <stdint.h>
#include <stdio.h>

#include "lbtorus/jsonl.h"

enum { LBT_JNULL, LBT_JBOOL, LBT_JNUM, LBT_JSTR };

typedef struct {
	const char *key;
	int type;
	const char *str;  /* string value (unescaped), or the number's text */
	double num;       /* number, or 1/0 for true/false */
} lbt_jfield;

typedef struct {
	lbt_jfield *f;
	int n, cap;
	char *buf;        /* storage for keys and strings */
	int cut;          /* after a failed parse: 1 if the text ended inside the object (a proper prefix
	                     of one: a killed writer's torn line), 0 if it is wrong before its end */
} lbt_jobj;

/* Write v with `digits` significant digits, or null when v is not finite:
 * JSON has no inf or nan. Every real number lbtorus writes into JSON. */
void lbt_json_number(FILE *f, double v, int digits);
/* Write s as a quoted JSON string (escaping quotes, backslashes, controls). */
void lbt_json_string(FILE *f, const char *s);

/* Parse one object (trailing newline allowed). On error the message names
 * the column. o is reusable: parse frees what a previous parse kept. */
int lbt_jobj_parse(lbt_jobj *o, const char *line, lbt_err *e);
void lbt_jobj_free(lbt_jobj *o);
const lbt_jfield *lbt_jobj_get(const lbt_jobj *o, const char *key);
const char *lbt_jobj_str(const lbt_jobj *o, const char *key);   /* NULL unless a string */
/* 1 and *v set if key holds a number; 0 if missing, null or not a number. */
int lbt_jobj_num(const lbt_jobj *o, const char *key, double *v);

/* Every object of a JSON Lines file, a regular file (input.h): a last line
 * without its newline is a record if it parses, a killed writer's torn line
 * and skipped if it is a proper prefix of an object (jobj.cut), else an
 * error; blank lines are skipped. Errors name the line. */
struct lbt_jsonl {
	lbt_jobj *rec;
	int64_t n, cap;
};
int lbt_jsonl_load(lbt_jsonl *l, const char *path, lbt_err *e);
int lbt_jsonl_append(lbt_jsonl *l, const char *path, lbt_err *e); /* to a loaded l; on error l is freed */
void lbt_jsonl_free(lbt_jsonl *l);

#endif
