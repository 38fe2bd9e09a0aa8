/* jsonl.c — fuzz the JSON Lines reader: one object per line, a torn last
 * line skipped, every value type, escapes; and strictness: every line the
 * reader accepts is strict JSON by an independent checker (RFC 8259), and
 * every proper prefix of it is taken for a torn line, not a wrong one. */
#include <ctype.h>
#include <math.h>

#include "common.h"
#include "out/jsonl.h"

/* An independent check of RFC 8259 for a flat object: code points decoded
 * and range-checked, not matched against the reader's tables. */
static const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static long hexv(const char *p)
{
	long v = 0;
	for (int i = 0; i < 4; i++) {
		const char *d = strchr("0123456789abcdef", p[i] | 0x20);
		if (!p[i] || !d || !*d)
			return -1;
		v = v * 16 + (d - "0123456789abcdef");
	}
	return v;
}

static const char *string(const char *p)
{
	for (p++; *p != '"'; ) {
		unsigned c = (unsigned char)*p;
		if (c < 0x20)
			return NULL;
		if (c == '\\') {
			if (p[1] && strchr("\"\\/bfnrt", p[1])) { p += 2; continue; }
			long u = p[1] == 'u' ? hexv(p + 2) : -1;
			if (u < 0 || (u >= 0xdc00 && u <= 0xdfff))
				return NULL;
			p += 6;
			if (u >= 0xd800 && u <= 0xdbff) {
				long lo = p[0] == '\\' && p[1] == 'u' ? hexv(p + 2) : -1;
				if (lo < 0xdc00 || lo > 0xdfff)
					return NULL;
				p += 6;
			}
			continue;
		}
		int n = c < 0x80 ? 1 : c >> 5 == 6 ? 2 : c >> 4 == 14 ? 3 : c >> 3 == 30 ? 4 : 0;
		if (!n)
			return NULL;
		long cp = n == 1 ? (long)c : (long)(c & (0x7f >> n));
		for (int i = 1; i < n; i++) {
			if (((unsigned char)p[i] >> 6) != 2)
				return NULL;
			cp = cp << 6 | (p[i] & 0x3f);
		}
		static const long least[5] = {0, 0, 0x80, 0x800, 0x10000};
		if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return NULL;
		p += n;
	}
	return p + 1;
}

static const char *number(const char *p)
{
	if (*p == '-')
		p++;
	if (!isdigit((unsigned char)*p) || (*p == '0' && isdigit((unsigned char)p[1])))
		return NULL;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p += p[1] == '+' || p[1] == '-' ? 2 : 1;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return p;
}

static int strict_object(const char *p)
{
	p = ws(p);
	if (*p++ != '{')
		return 0;
	p = ws(p);
	if (*p != '}')
		for (;;) {
			if (*p != '"' || !(p = string(p)))
				return 0;
			p = ws(p);
			if (*p++ != ':')
				return 0;
			p = ws(p);
			if (*p == '"')
				p = string(p);
			else if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
				p += 4;
			else if (!strncmp(p, "false", 5))
				p += 5;
			else
				p = number(p);
			if (!p)
				return 0;
			p = ws(p);
			if (*p == '}')
				break;
			if (*p++ != ',')
				return 0;
			p = ws(p);
		}
	return !*ws(p + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = fuzz_text(data, size);
	lbt_jobj o = {0};
	lbt_err e;
	if (line && lbt_jobj_parse(&o, line, &e) == LBT_OK) {
		double v;
		if (!strict_object(line))
			abort(); /* the reader took a line that is not strict JSON */
		for (int i = 0; i < o.n; i++) {
			if (lbt_jobj_get(&o, o.f[i].key) == NULL)
				abort(); /* every parsed key is found again */
			if (o.f[i].type == LBT_JNUM && !isfinite(o.f[i].num))
				abort(); /* a number is finite */
		}
		lbt_jobj_num(&o, "steps", &v);
		lbt_jobj_str(&o, "run_key");
		/* every proper prefix of an object, up to its last non-blank
		 * byte, is where a killed writer may stop: a torn line (cut) */
		size_t n = strlen(line);
		while (n && strchr(" \t\r\n", line[n - 1]))
			n--;
		lbt_jobj p = {0};
		for (size_t k = 1; k < n && n <= 512; k++) {
			char c = line[k];
			line[k] = 0;
			if (lbt_jobj_parse(&p, line, &e) == LBT_OK || !p.cut)
				abort(); /* a prefix of a record parsed, or was taken for a wrong line */
			line[k] = c;
		}
		lbt_jobj_free(&p);
	}
	lbt_jobj_free(&o);
	free(line);
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof path);
	if (fd >= 0) {
		lbt_jsonl l = {0};
		if (lbt_jsonl_load(&l, path, &e) == LBT_OK)
			lbt_jsonl_free(&l);
		close(fd);
	}
	return 0;
}
