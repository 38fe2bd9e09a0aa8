/* jsonl.c — a reader for the flat JSON objects of results files.
 * Only what lbt_summary_json and the sweep write is accepted: one object of
 * "key": value pairs, values strings, numbers, true, false or null. Strings
 * are unescaped into one buffer owned by the object, so fields stay valid
 * until the next parse or free. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/input.h"
#include "out/jsonl.h"

static const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

/* Unescape the string starting after its opening quote into *out; return the
 * position after the closing quote, or NULL. */
static const char *str(const char *p, char **out)
{
	char *w = *out;
	for (; *p != '"'; p++) {
		if (!*p || (unsigned char)*p < 0x20)
			return NULL;
		if (*p != '\\') {
			*w++ = *p;
			continue;
		}
		p++;
		switch (*p) {
		case '"': case '\\': case '/': *w++ = *p; break;
		case 'n': *w++ = '\n'; break;
		case 't': *w++ = '\t'; break;
		case 'r': *w++ = '\r'; break;
		case 'b': *w++ = '\b'; break;
		case 'f': *w++ = '\f'; break;
		case 'u': { /* lbtorus escapes only control characters this way */
			char hex[5] = {0};
			for (int i = 0; i < 4; i++)
				if (!(hex[i] = p[1 + i]))
					return NULL;
			long c = strtol(hex, NULL, 16);
			*w++ = c < 0x80 ? (char)c : '?';
			p += 4;
			break;
		}
		default: return NULL;
		}
	}
	*w++ = 0;
	*out = w;
	return p + 1;
}

int lbt_jobj_parse(lbt_jobj *o, const char *line, lbt_err *e)
{
	free(o->buf);
	o->n = 0;
	if (!(o->buf = malloc(strlen(line) + 1)))
		return lbt_errf(e, LBT_ENOMEM, "no memory for a JSON line");
	char *w = o->buf;
	const char *p = ws(line);
	if (*p++ != '{')
		return lbt_errf(e, LBT_EINVAL, "not a JSON object (column 1)");
	p = ws(p);
	if (*p == '}')
		goto end;
	for (;;) {
		if (o->n == o->cap) {
			int cap = o->cap ? 2 * o->cap : 64;
			lbt_jfield *f = realloc(o->f, (size_t)cap * sizeof *f);
			if (!f)
				return lbt_errf(e, LBT_ENOMEM, "no memory for a JSON line");
			o->f = f;
			o->cap = cap;
		}
		lbt_jfield *f = &o->f[o->n];
		f->key = w;
		if (*p != '"' || !(p = str(p + 1, &w)))
			return lbt_errf(e, LBT_EINVAL, "bad key at column %d", (int)(p ? p - line + 1 : 0));
		p = ws(p);
		if (*p++ != ':')
			return lbt_errf(e, LBT_EINVAL, "expected ':' at column %d", (int)(p - line));
		p = ws(p);
		f->num = 0;
		f->str = NULL;
		const char *start = p;
		if (*p == '"') {
			f->type = LBT_JSTR;
			f->str = w;
			if (!(p = str(p + 1, &w)))
				return lbt_errf(e, LBT_EINVAL, "unterminated string at column %d", (int)(start - line + 1));
		} else if (!strncmp(p, "null", 4)) {
			f->type = LBT_JNULL;
			p += 4;
		} else if (!strncmp(p, "true", 4) || !strncmp(p, "false", 5)) {
			f->type = LBT_JBOOL;
			f->num = *p == 't';
			p += *p == 't' ? 4 : 5;
		} else {
			char *end;
			f->type = LBT_JNUM;
			f->num = strtod(p, &end);
			if (end == p)
				return lbt_errf(e, LBT_EINVAL, "bad value at column %d", (int)(p - line + 1));
			f->str = w;
			memcpy(w, p, (size_t)(end - p));
			w += end - p;
			*w++ = 0;
			p = end;
		}
		o->n++;
		p = ws(p);
		if (*p == ',') {
			p = ws(p + 1);
			continue;
		}
		if (*p == '}')
			break;
		return lbt_errf(e, LBT_EINVAL, "expected ',' or '}' at column %d", (int)(p - line + 1));
	}
end:
	if (*ws(p + 1))
		return lbt_errf(e, LBT_EINVAL, "text after the object at column %d", (int)(p - line + 2));
	return LBT_OK;
}

void lbt_jobj_free(lbt_jobj *o)
{
	free(o->f);
	free(o->buf);
	memset(o, 0, sizeof *o);
}

const lbt_jfield *lbt_jobj_get(const lbt_jobj *o, const char *key)
{
	for (int i = 0; i < o->n; i++)
		if (!strcmp(o->f[i].key, key))
			return &o->f[i];
	return NULL;
}

const char *lbt_jobj_str(const lbt_jobj *o, const char *key)
{
	const lbt_jfield *f = lbt_jobj_get(o, key);
	return f && f->type == LBT_JSTR ? f->str : NULL;
}

int lbt_jobj_num(const lbt_jobj *o, const char *key, double *v)
{
	const lbt_jfield *f = lbt_jobj_get(o, key);
	if (!f || f->type != LBT_JNUM)
		return 0;
	*v = f->num;
	return 1;
}

int lbt_jsonl_load(lbt_jsonl *l, const char *path, lbt_err *e)
{
	memset(l, 0, sizeof *l);
	return lbt_jsonl_append(l, path, e);
}

int lbt_jsonl_append(lbt_jsonl *l, const char *path, lbt_err *e)
{
	FILE *f;
	int st = lbt_in_open(path, "results file", &f, e);
	if (st) {
		lbt_jsonl_free(l);
		return st;
	}
	char *line = NULL;
	size_t cap = 0, len;
	int64_t ln = 0;
	lbt_err sub;
	for (;;) {
		if ((st = lbt_in_line(f, &line, &cap, &len, &sub)))
			lbt_errf(e, st, "%s:%lld: %s", path, (long long)ln + 1, sub.msg);
		if (st || !len)
			break;
		ln++;
		const int last = line[len - 1] != '\n'; /* no newline: a killed writer's torn line, or a whole record */
		if (strspn(line, " \t\r\n") == len)
			continue;
		if (memchr(line, 0, len)) { /* the parser would stop there */
			st = lbt_errf(e, LBT_EINVAL, "%s:%lld: a NUL byte in the line", path, (long long)ln);
			break;
		}
		if (l->n == l->cap) {
			int64_t c = l->cap ? 2 * l->cap : 256;
			lbt_jobj *r = realloc(l->rec, (size_t)c * sizeof *r);
			if (!r) { st = lbt_errf(e, LBT_ENOMEM, "no memory for %s", path); break; }
			memset(r + l->cap, 0, (size_t)(c - l->cap) * sizeof *r);
			l->rec = r;
			l->cap = c;
		}
		if ((st = lbt_jobj_parse(&l->rec[l->n], line, &sub))) {
			lbt_jobj_free(&l->rec[l->n]);
			if (last) { /* torn: skipped */
				st = LBT_OK;
				break;
			}
			lbt_errf(e, st, "%s:%lld: %s", path, (long long)ln, sub.msg);
			break;
		}
		l->n++;
	}
	free(line);
	fclose(f);
	if (st)
		lbt_jsonl_free(l);
	return st;
}

void lbt_jsonl_free(lbt_jsonl *l)
{
	for (int64_t i = 0; i < l->n; i++)
		lbt_jobj_free(&l->rec[i]);
	free(l->rec);
	memset(l, 0, sizeof *l);
}

int lbt_jsonl_open(lbt_jsonl **out, const char *path, lbt_err *e)
{
	*out = calloc(1, sizeof **out);
	if (!*out)
		return lbt_errf(e, LBT_ENOMEM, "no memory to read %s", path);
	int st = lbt_jsonl_load(*out, path, e);
	if (st) {
		free(*out);
		*out = NULL;
	}
	return st;
}

void lbt_jsonl_close(lbt_jsonl *l)
{
	if (l)
		lbt_jsonl_free(l);
	free(l);
}

void lbt_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}
