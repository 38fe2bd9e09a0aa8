/* jsonl.c — a reader for the flat JSON objects of results files.
 * Only what lbt_summary_json and the sweep write is accepted: one object of
 * "key": value pairs, values strings, numbers, true, false or null, in
 * strict JSON (RFC 8259: no NaN or Infinity, no hex or '+', UTF-8 strings
 * without lone surrogates). Strings
 * are unescaped into one buffer owned by the object, so fields stay valid
 * until the next parse or free. */
#include <math.h>
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

/* The length of the UTF-8 sequence at p (RFC 3629: no overlong form, no
 * surrogate, nothing above U+10FFFF), or 0 if it is not one. */
static int utf8_len(const unsigned char *p)
{
	if (p[0] < 0x80)
		return 1;
	int n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : (p[0] & 0xf0) == 0xe0 ? 3 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
	for (int i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((n == 3 && p[0] == 0xe0 && p[1] < 0xa0) || (n == 3 && p[0] == 0xed && p[1] >= 0xa0) ||
	    (n == 4 && p[0] == 0xf0 && p[1] < 0x90) || (n == 4 && p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return n;
}

/* 1 if the UTF-8 sequence at p is cut by the end of the text: a lead
 * byte, then continuation bytes up to the terminating NUL. */
static int utf8_cut(const unsigned char *p)
{
	int n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : (p[0] & 0xf0) == 0xe0 ? 3 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
	for (int i = 1; i < n; i++)
		if (!p[i] || (p[i] & 0xc0) != 0x80)
			return !p[i];
	return 0;
}

/* 1 if the four hex digits at p are cut by the end of the text. */
static int hex4_cut(const char *p)
{
	for (int i = 0; i < 4 && p[i]; i++)
		if (!strchr("0123456789abcdefABCDEF", p[i]))
			return 0;
	return strlen(p) < 4;
}

static int hex4(const char *p, long *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		int c = p[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		                 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return 0;
		*v = *v * 16 + d;
	}
	return 1;
}

/* Unescape the string starting after its opening quote into *out (as
 * UTF-8); return the position after the closing quote, or NULL if it is
 * not a strict JSON string: a control character, invalid UTF-8, an unknown
 * escape, a lone surrogate; or if the text ends inside it (then *cut = 1:
 * the text may be a torn line). */
static const char *str(const char *p, char **out, int *cut)
{
	char *w = *out;
	for (; *p != '"'; p++) {
		if (!*p || (unsigned char)*p < 0x20) {
			*cut = !*p;
			return NULL;
		}
		if (*p != '\\') {
			int n = utf8_len((const unsigned char *)p);
			if (!n) {
				*cut = utf8_cut((const unsigned char *)p);
				return NULL;
			}
			memcpy(w, p, (size_t)n);
			w += n;
			p += n - 1;
			continue;
		}
		p++;
		switch (*p) {
		case 0: *cut = 1; return NULL;
		case '"': case '\\': case '/': *w++ = *p; break;
		case 'n': *w++ = '\n'; break;
		case 't': *w++ = '\t'; break;
		case 'r': *w++ = '\r'; break;
		case 'b': *w++ = '\b'; break;
		case 'f': *w++ = '\f'; break;
		case 'u': {
			long c, lo;
			if (!hex4(p + 1, &c)) {
				*cut = hex4_cut(p + 1);
				return NULL;
			}
			p += 4;
			if (c >= 0xdc00 && c <= 0xdfff)
				return NULL; /* a low surrogate first */
			if (c >= 0xd800 && c <= 0xdbff) { /* a high surrogate: its low half must follow */
				if (p[1] != '\\' || p[2] != 'u' || !hex4(p + 3, &lo) || lo < 0xdc00 || lo > 0xdfff) {
					*cut = !p[1] || (p[1] == '\\' && (!p[2] || (p[2] == 'u' && hex4_cut(p + 3))));
					return NULL;
				}
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				p += 6;
			}
			/* UTF-8: never longer than the escape it replaces (6 or 12 bytes) */
			if (c < 0x80)
				*w++ = (char)c;
			else if (c < 0x800)
				*w++ = (char)(0xc0 | c >> 6), *w++ = (char)(0x80 | (c & 0x3f));
			else if (c < 0x10000)
				*w++ = (char)(0xe0 | c >> 12), *w++ = (char)(0x80 | (c >> 6 & 0x3f)), *w++ = (char)(0x80 | (c & 0x3f));
			else
				*w++ = (char)(0xf0 | c >> 18), *w++ = (char)(0x80 | (c >> 12 & 0x3f)),
				*w++ = (char)(0x80 | (c >> 6 & 0x3f)), *w++ = (char)(0x80 | (c & 0x3f));
			break;
		}
		default: return NULL;
		}
	}
	*w++ = 0;
	*out = w;
	return p + 1;
}

/* The end of the JSON number at p (RFC 8259: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?),
 * or p if there is none (*cut = 1 if the text ends where a digit must
 * follow: "", "-", "1.", "1e"). */
static const char *number_end(const char *p, int *cut)
{
	const char *q = p + (*p == '-');
	if (*q == '0')
		q++;
	else if (*q >= '1' && *q <= '9')
		while (*q >= '0' && *q <= '9')
			q++;
	else {
		*cut = !*q;
		return p;
	}
	if (*q == '.') {
		if (!(q[1] >= '0' && q[1] <= '9')) {
			*cut = !q[1];
			return p;
		}
		for (q++; *q >= '0' && *q <= '9'; q++)
			;
	}
	if (*q == 'e' || *q == 'E') {
		const char *x = q + 1 + (q[1] == '+' || q[1] == '-');
		if (!(*x >= '0' && *x <= '9')) {
			*cut = !*x;
			return p;
		}
		for (q = x; *q >= '0' && *q <= '9'; q++)
			;
	}
	return q;
}

int lbt_jobj_parse(lbt_jobj *o, const char *line, lbt_err *e)
{
	free(o->buf);
	o->n = 0;
	o->cut = 0;
	if (!(o->buf = malloc(strlen(line) + 1)))
		return lbt_errf(e, LBT_ENOMEM, "no memory for a JSON line");
	char *w = o->buf;
	/* a failure where the text ends sets o->cut: a proper prefix of an
	 * object, as a killed writer leaves, not a wrong line */
	const char *p = ws(line);
	if (*p != '{') {
		o->cut = !*p;
		return lbt_errf(e, LBT_EINVAL, "not a JSON object (column 1)");
	}
	p = ws(p + 1);
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
		const char *key = p;
		if (*p != '"' || !(p = str(p + 1, &w, &o->cut))) {
			o->cut |= !*key;
			return lbt_errf(e, LBT_EINVAL, "bad key at column %d", (int)(key - line + 1));
		}
		p = ws(p);
		if (*p != ':') {
			o->cut = !*p;
			return lbt_errf(e, LBT_EINVAL, "expected ':' at column %d", (int)(p - line + 1));
		}
		p++;
		p = ws(p);
		f->num = 0;
		f->str = NULL;
		const char *start = p;
		if (*p == '"') {
			f->type = LBT_JSTR;
			f->str = w;
			if (!(p = str(p + 1, &w, &o->cut)))
				return lbt_errf(e, LBT_EINVAL, "bad string at column %d (unterminated, or not strict JSON: a control "
				                "character, invalid UTF-8, a lone surrogate)", (int)(start - line + 1));
		} else if (!strncmp(p, "null", 4)) {
			f->type = LBT_JNULL;
			p += 4;
		} else if (!strncmp(p, "true", 4) || !strncmp(p, "false", 5)) {
			f->type = LBT_JBOOL;
			f->num = *p == 't';
			p += *p == 't' ? 4 : 5;
		} else {
			const char *end = number_end(p, &o->cut);
			f->type = LBT_JNUM;
			if (end == p) {
				size_t rest = strlen(p);
				o->cut |= rest && rest < 5 && (!strncmp(p, "null", rest) || !strncmp(p, "true", rest) ||
				                               !strncmp(p, "false", rest));
				return lbt_errf(e, LBT_EINVAL, "bad value at column %d (not strict JSON)", (int)(p - line + 1));
			}
			f->num = strtod(p, NULL);
			if (!isfinite(f->num))
				return lbt_errf(e, LBT_EINVAL, "number out of range at column %d", (int)(p - line + 1));
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
		o->cut = !*p;
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
		const int last = line[len - 1] != '\n'; /* no newline: a whole record, or a killed writer's torn line:
		                                           a proper prefix of one (anything else is an error) */
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
			const int cut = l->rec[l->n].cut;
			lbt_jobj_free(&l->rec[l->n]);
			if (last && cut) { /* torn: skipped */
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

void lbt_json_number(FILE *f, double v, int digits)
{
	if (isfinite(v))
		fprintf(f, "%.*g", digits, v);
	else
		fputs("null", f);
}

/* A JSON string of s: quotes and backslashes escaped, control characters as
 * \u00XX, and each byte that does not begin a well-formed UTF-8 sequence
 * (a command line or a file name may hold any bytes) as U+FFFD, so that what
 * is written is always valid JSON. */
void lbt_json_string(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	fputc('"', f);
	while (*u) {
		int n = utf8_len(u);

		if (n == 0) {
			fputs("\\ufffd", f);
			u++;
		} else if (*u == '"' || *u == '\\') {
			fputc('\\', f);
			fputc(*u++, f);
		} else if (*u < 0x20) {
			fprintf(f, "\\u%04x", *u++);
		} else {
			fwrite(u, 1, (size_t)n, f);
			u += n;
		}
	}
	fputc('"', f);
}
