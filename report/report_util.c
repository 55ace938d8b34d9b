/*
 * Shared helpers of the report formats: a growable string, display widths, the readable
 * shortening of long C++ kernel names, the display text of every kind of cell (durations, bytes,
 * percentages, times relative to the trace start), and the JSON, HTML and Markdown escapers over
 * the shared text module (include/tracekit/text.h).
 */
#include "report_internal.h"
#include "checked.h"

#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tracekit/error.h>
#include <tracekit/text.h>

void tkr_putn(struct tkr_buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t ncap = b->cap ? b->cap : 256;
		while (b->len + n + 1 > ncap)
			ncap *= 2;
		char *np = realloc(b->p, ncap);
		if (!np) {
			b->oom = 1;
			return;
		}
		b->p = np;
		b->cap = ncap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void tkr_puts(struct tkr_buf *b, const char *s)
{
	tkr_putn(b, s, strlen(s));
}

void tkr_printf(struct tkr_buf *b, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		tkr_putn(b, small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		b->oom = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	tkr_putn(b, big, (size_t)n);
	free(big);
}

int tkr_flush(FILE *out, struct tkr_buf *b)
{
	if (b->oom)
		return TK_ENOMEM;
	if (b->len && fwrite(b->p, 1, b->len, out) != b->len)
		return TK_EIO;
	b->len = 0;
	return TK_OK;
}

int tkr_width(const char *s)
{
	return (int)tk_utf8_count(s);
}

void tkr_cut(struct tkr_buf *b, int w)
{
	if (b->oom || !b->p || tkr_width(b->p) <= w)
		return;
	if (w < 1)
		w = 1;
	/* keep w - 1 characters, then the ellipsis */
	int seen = 0;
	size_t i = 0;
	for (; i < b->len; i++) {
		if (((unsigned char)b->p[i] & 0xC0) != 0x80) {
			if (seen == w - 1)
				break;
			seen++;
		}
	}
	b->len = i;
	b->p[i] = '\0';
	tkr_puts(b, "\xe2\x80\xa6");
}

/* ---- shortening C++ names ---- */

/* 1 when the '<' or '>' at s[i] is part of an operator name or "->", not a bracket. */
static int not_bracket(const char *s, size_t i)
{
	if (s[i] == '>' && i > 0 && s[i - 1] == '-')
		return 1;
	size_t j = i;
	while (j > 0 && (s[j - 1] == '<' || s[j - 1] == '>' || s[j - 1] == '='))
		j--;
	return j >= 8 && !strncmp(s + j - 8, "operator", 8);
}

/* Index of the bracket closing the one at s[i] (same kind only), or -1. */
static long match_close(const char *s, size_t i)
{
	char open = s[i], close = open == '<' ? '>' : ')';
	int depth = 0;
	for (size_t k = i; s[k]; k++) {
		if ((s[k] == '<' || s[k] == '>') && open == '<' && not_bracket(s, k))
			continue;
		if (s[k] == open)
			depth++;
		else if (s[k] == close && --depth == 0)
			return (long)k;
	}
	return -1;
}

/* A '(' group kept as it is: "(anonymous namespace)" or any group followed by "::". */
static int keep_paren(const char *s, size_t i, long j)
{
	return !strncmp(s + i, "(anonymous namespace)", 21) || (s[j + 1] == ':' && s[j + 2] == ':');
}

/*
 * Copy @s into @b with every top-level group opened by @open ('(' or '<') replaced by
 * "(...)"/"<...>". Returns 0 when brackets do not balance (then @b is unchanged).
 */
static int collapse(struct tkr_buf *b, const char *s, char open)
{
	struct tkr_buf t = {0};
	int da = 0, dp = 0, ok = 1;
	for (size_t i = 0; s[i]; i++) {
		char c = s[i];
		int bracket = (c == '<' || c == '>') ? !not_bracket(s, i) : 1;
		if (c == open && bracket && da == 0 && dp == 0) {
			long j = match_close(s, i);
			if (j < 0) {
				ok = 0;
				break;
			}
			if (open == '(' && keep_paren(s, i, j)) {
				tkr_putn(&t, s + i, (size_t)(j - (long)i) + 1);
			} else if (j == (long)i + 1) {
				tkr_putn(&t, s + i, 2);
			} else {
				tkr_puts(&t, open == '<' ? "<...>" : "(...)");
			}
			i = (size_t)j;
			continue;
		}
		if (c == '<' && bracket)
			da++;
		else if (c == '>' && bracket && da > 0)
			da--;
		else if (c == '(')
			dp++;
		else if (c == ')' && dp > 0)
			dp--;
		tkr_putn(&t, &c, 1);
	}
	if (ok && !t.oom)
		tkr_puts(b, t.p ? t.p : "");
	free(t.p);
	return ok;
}

/* Replace the namespaces of the function name in @s by "…::" (into @b); 0 when there are none. */
static int drop_namespaces(struct tkr_buf *b, const char *s)
{
	long sp = -1, cc = -1;
	int da = 0, dp = 0;
	for (size_t i = 0; s[i]; i++) {
		char c = s[i];
		if (da == 0 && dp == 0) {
			if (c == ' ')
				sp = (long)i, cc = -1;
			else if (c == ':' && s[i + 1] == ':')
				cc = (long)i;
			else if (c == '<' && !not_bracket(s, i))
				break;
			else if (c == '(') {
				long j = match_close(s, i);
				if (j < 0 || !keep_paren(s, i, j))
					break;
			}
		}
		if ((c == '<' || c == '>') && not_bracket(s, i))
			continue;
		if (c == '<')
			da++;
		else if (c == '>' && da > 0)
			da--;
		else if (c == '(')
			dp++;
		else if (c == ')' && dp > 0)
			dp--;
	}
	if (cc < 0)
		return 0;
	tkr_putn(b, s, (size_t)(sp + 1));
	tkr_puts(b, "\xe2\x80\xa6::");
	tkr_puts(b, s + cc + 2);
	return 1;
}

void tkr_short_name(struct tkr_buf *b, const char *name, int w)
{
	struct tkr_buf cur = {0}, next = {0};
	tkr_puts(&cur, name);
	if (tkr_width(name) > w) {
		if (collapse(&next, cur.p, '(')) {
			free(cur.p);
			cur = next;
		}
		memset(&next, 0, sizeof(next));
	}
	if (!cur.oom && tkr_width(cur.p) > w) {
		if (collapse(&next, cur.p, '<')) {
			free(cur.p);
			cur = next;
		}
		memset(&next, 0, sizeof(next));
	}
	if (!cur.oom && tkr_width(cur.p) > w) {
		if (drop_namespaces(&next, cur.p)) {
			free(cur.p);
			cur = next;
		} else {
			free(next.p);
		}
		memset(&next, 0, sizeof(next));
	}
	tkr_cut(&cur, w);
	if (cur.oom)
		b->oom = 1;
	else
		tkr_puts(b, cur.p);
	free(cur.p);
}

/* ---- display text ---- */

void tkr_fmt_ns(struct tkr_buf *b, double ns)
{
	double a = fabs(ns);
	const char *sign = ns < 0 ? "-" : "";
	if (a < 1e3)
		tkr_printf(b, "%s%.0f ns", sign, a);
	else if (a < 1e6)
		tkr_printf(b, "%s%.2f \xc2\xb5s", sign, a / 1e3);
	else if (a < 1e9)
		tkr_printf(b, "%s%.2f ms", sign, a / 1e6);
	else
		tkr_printf(b, "%s%.3f s", sign, a / 1e9);
}

void tkr_fmt_bytes(struct tkr_buf *b, double bytes)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
	double a = fabs(bytes);
	const char *sign = bytes < 0 ? "-" : "";
	if (a < 1024) {
		tkr_printf(b, "%s%.0f B", sign, a);
		return;
	}
	int u = -1;
	while (a >= 1024 && u < 4) {
		a /= 1024;
		u++;
	}
	tkr_printf(b, "%s%.2f %s", sign, a, units[u]);
}

static void fmt_utc(struct tkr_buf *b, int64_t ns)
{
	time_t sec = (time_t)(ns / 1000000000);
	long frac = (long)(ns % 1000000000);
	if (frac < 0) {
		frac += 1000000000;
		sec--;
	}
	struct tm tm;
	char day[64];
	if (!gmtime_r(&sec, &tm) || !strftime(day, sizeof(day), "%Y-%m-%d %H:%M:%S", &tm)) {
		tkr_printf(b, "%lld ns", (long long)ns);
		return;
	}
	tkr_printf(b, "%s.%09ld UTC", day, frac);
}

int tkr_right_aligned(enum tkr_kind k)
{
	return k != TKR_TEXT && k != TKR_NAME && k != TKR_BAND && k != TKR_SEVERITY &&
	       k != TKR_FLAG && k != TKR_JSON && k != TKR_UTC;
}

static void fmt_value(struct tkr_buf *b, enum tkr_kind k, double v, const char *unit,
		      int64_t t0, int sign)
{
	const char *plus = sign && v > 0 ? "+" : "";
	if (k == TKR_UVAL || k == TKR_UDELTA) {
		if (!unit)
			k = TKR_REAL;
		else if (!strcmp(unit, "%"))
			k = TKR_PCT;
		else if (!strcmp(unit, "ns"))
			k = TKR_NS;
		else if (!strcmp(unit, "ratio"))
			k = TKR_RATIO;
		else if (!strcmp(unit, "bytes"))
			k = TKR_BYTES;
		else
			k = TKR_REAL;
	}
	switch (k) {
	case TKR_NS:
		tkr_puts(b, plus);
		tkr_fmt_ns(b, v);
		break;
	case TKR_TS:
		tkr_puts(b, "+");
		tkr_fmt_ns(b, v - (double)t0);
		break;
	case TKR_BYTES:
		tkr_puts(b, plus);
		tkr_fmt_bytes(b, v);
		break;
	case TKR_BPS:
		tkr_printf(b, "%.1f GB/s", v / 1e9);
		break;
	case TKR_FLOPS:
		tkr_printf(b, "%.1f TFLOP/s", v / 1e12);
		break;
	case TKR_PCT:
		tkr_printf(b, "%s%.1f%%", plus, v);
		break;
	case TKR_RATIO:
		tkr_printf(b, "%s%.1f%%", plus, 100 * v);
		break;
	case TKR_DPCT:
		tkr_printf(b, "%+.1f%%", 100 * v);
		break;
	case TKR_DNS:
		tkr_puts(b, v > 0 ? "+" : "");
		tkr_fmt_ns(b, v);
		break;
	default:
		if (v == floor(v) && fabs(v) < 1e15)
			tkr_printf(b, "%s%.0f", plus, v);
		else
			tkr_printf(b, "%s%.4g", plus, v);
	}
}

void tkr_format_cell(struct tkr_buf *b, const struct tkr_model *m, const struct tkr_section *s,
		     size_t r, int c)
{
	const struct tkr_cell *cell = tkr_cell(s, r, c);
	enum tkr_kind k = s->def->cols[c].kind;
	if (cell->type == SQLITE_NULL) {
		if (k != TKR_FLAG)
			tkr_puts(b, "-");
		return;
	}
	if (cell->type == SQLITE_TEXT) {
		tkr_safe(b, cell->s);
		return;
	}
	if (k == TKR_UTC) {
		if (m->clock && !strcmp(m->clock, "unix_epoch") && cell->type == SQLITE_INTEGER)
			fmt_utc(b, cell->i);
		else
			tkr_printf(b, "%lld ns", (long long)cell->i);
		return;
	}
	int64_t rel;
	if (k == TKR_TS && cell->type == SQLITE_INTEGER &&
	    !tk_sub_ovf(cell->i, m->trace_start_ns, &rel)) { /* exact: subtract, then convert */
		tkr_puts(b, "+");
		tkr_fmt_ns(b, (double)rel);
		return;
	}
	if (k == TKR_INT && cell->type == SQLITE_INTEGER) {
		tkr_printf(b, "%lld", (long long)cell->i);
		return;
	}
	const char *unit = NULL;
	if (k == TKR_UVAL || k == TKR_UDELTA) {
		int uc = tkr_col(s, "unit");
		const struct tkr_cell *u = uc >= 0 ? tkr_cell(s, r, uc) : NULL;
		unit = u && u->type == SQLITE_TEXT ? u->s : NULL;
	}
	fmt_value(b, k, tkr_num(cell), unit, m->trace_start_ns, k == TKR_UDELTA);
}

/* ---- escapers (over the shared text module, include/tracekit/text.h) ---- */

/* Append text @t (NULL: out of memory) and free it. */
static void put_owned(struct tkr_buf *b, char *t, size_t n)
{
	if (!t)
		b->oom = 1;
	else
		tkr_putn(b, t, n);
	free(t);
}

void tkr_safe(struct tkr_buf *b, const char *s)
{
	size_t n;
	char *t = tk_text_escape(s, s ? strlen(s) : 0, TK_TEXT_TERMINAL, &n);
	put_owned(b, t, n);
}

void tkr_json_str(struct tkr_buf *b, const char *s)
{
	size_t n;
	char *t = tk_text_json(s, s ? strlen(s) : 0, TK_TEXT_HTML_SAFE, &n);
	put_owned(b, t, n);
}

void tkr_json_real(struct tkr_buf *b, double v)
{
	char num[64];
	if (!isfinite(v)) {
		tkr_puts(b, "null");
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(num, sizeof(num), "%.*g", prec, v);
		if (strtod(num, NULL) == v)
			break;
	}
	if (!strpbrk(num, ".eE")) /* keep it visibly real: 2 -> 2.0 */
		strncat(num, ".0", sizeof(num) - strlen(num) - 1);
	tkr_puts(b, num);
}

void tkr_html_str(struct tkr_buf *b, const char *str)
{
	struct tkr_buf t = {0};
	tkr_safe(&t, str);
	b->oom |= t.oom;
	for (const char *s = t.p ? t.p : ""; *s; s++) {
		char c = *s;
		const char *e = c == '&'   ? "&amp;"
				: c == '<'  ? "&lt;"
				: c == '>'  ? "&gt;"
				: c == '"'  ? "&quot;"
				: c == '\'' ? "&#39;"
					    : NULL;
		if (e)
			tkr_puts(b, e);
		else
			tkr_putn(b, s, 1);
	}
	free(t.p);
}

void tkr_md_str(struct tkr_buf *b, const char *str)
{
	struct tkr_buf t = {0};
	tkr_safe(&t, str);
	b->oom |= t.oom;
	for (const char *s = t.p ? t.p : ""; *s; s++) {
		char c = *s;
		if (c == '&')
			tkr_puts(b, "&amp;");
		else if (c == '<')
			tkr_puts(b, "&lt;");
		else if (c == '>')
			tkr_puts(b, "&gt;");
		else if (strchr("\\`*_[]|#~", c))
			tkr_printf(b, "\\%c", c);
		else
			tkr_putn(b, s, 1);
	}
	free(t.p);
}
