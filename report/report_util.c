/*
 * Shared helpers of the report formats: display widths and the display text of every kind of
 * cell (durations, bytes, percentages, times relative to the trace start, device and process
 * labels, short names; labels.c makes the labels). Buffers, escapers and number formats are
 * util/'s (buf.h, escape.h, fmt.h).
 */
#include "util/utf8.h"
#include "report_internal.h"
#include "checked.h"

#include <ctype.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tracekit/error.h>
#include <tracekit/text.h>

int tkr_width(const char *s)
{
	return (int)tku_utf8_count(s);
}

void tkr_cut(struct tku_buf *b, int w)
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
	tku_puts(b, "\xe2\x80\xa6");
}

/* ---- display text ---- */

static void fmt_utc(struct tku_buf *b, int64_t ns)
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
		tku_printf(b, "%lld ns", (long long)ns);
		return;
	}
	tku_printf(b, "%s.%09ld UTC", day, frac);
}

int tkr_right_aligned(enum tkr_kind k)
{
	return k != TKR_TEXT && k != TKR_NAME && k != TKR_BAND && k != TKR_SEVERITY &&
	       k != TKR_FLAG && k != TKR_JSON && k != TKR_UTC && k != TKR_DEVICE &&
	       k != TKR_PROCESS && k != TKR_WHERE;
}

static void fmt_value(struct tku_buf *b, enum tkr_kind k, double v, const char *unit, int64_t t0,
		      int sign)
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
		tku_puts(b, plus);
		tku_fmt_ns(b, v);
		break;
	case TKR_TS:
		tku_puts(b, "+");
		tku_fmt_ns(b, v - (double)t0);
		break;
	case TKR_BYTES:
		tku_puts(b, plus);
		tku_fmt_bytes(b, v, 2, TKU_PIB);
		break;
	case TKR_BPS:
		tku_printf(b, "%.1f GB/s", v / 1e9);
		break;
	case TKR_FLOPS:
		tku_printf(b, "%.1f TFLOP/s", v / 1e12);
		break;
	case TKR_PCT:
		tku_printf(b, "%s%.1f%%", plus, v);
		break;
	case TKR_RATIO:
		tku_printf(b, "%s%.1f%%", plus, 100 * v);
		break;
	case TKR_DPCT:
		tku_printf(b, "%+.1f%%", 100 * v);
		break;
	case TKR_DNS:
		tku_puts(b, v > 0 ? "+" : "");
		tku_fmt_ns(b, v);
		break;
	default:
		if (v == floor(v) && fabs(v) < 1e15)
			tku_printf(b, "%s%.0f", plus, v);
		else
			tku_printf(b, "%s%.4g", plus, v);
	}
}

/* The length of the integer at @p that stands as a word (not part of a name or a real), or 0. */
static size_t int_word(const char *t, const char *p)
{
	size_t d = strspn(p, "0123456789");
	if (p > t && (isalnum((unsigned char)p[-1]) || p[-1] == '.' || p[-1] == '_'))
		return 0;
	return isalnum((unsigned char)p[d]) || (p[d] == '.' && isdigit((unsigned char)p[d + 1]))
		   ? 0
		   : d;
}

#define MIN_NAME_IN_TEXT 40 /* names this long or longer in analysis text become labels */

/*
 * Analysis text (KPI notes, finding summaries) as people read it: a long op or kernel name of
 * the report as its label (when @names); "<integer> ns" of 4 digits or more, and "<integer> of
 * <integer> ns", in human units ("580.05 ms"); "device N" and "process N" (store ids) as their
 * labels ("GPU 1 (rank 1)", "pid 2568503").
 */
static void human_text(struct tku_buf *b, const struct tkr_model *m, const char *t, int names)
{
	const char *p = t;
	if (names && !m->full_names) { /* long names in the text as their labels */
		struct tku_buf r = {0};
		int changed = 0;
		tku_puts(&r, t);
		for (size_t i = 0; i < m->nnames && !r.oom; i++) {
			const char *full = m->names[i].full, *at;
			size_t fl = strlen(full);
			if (fl < MIN_NAME_IN_TEXT || !strcmp(full, m->names[i].label) ||
			    !(at = strstr(r.p, full)))
				continue;
			struct tku_buf x = {0};
			tku_putn(&x, r.p, (size_t)(at - r.p));
			tku_puts(&x, m->names[i].label);
			tku_puts(&x, at + fl);
			b->oom |= r.oom;
			free(r.p);
			r = x;
			changed = 1;
		}
		b->oom |= r.oom;
		if (changed && r.p)
			human_text(b, m, r.p, 0);
		free(r.p);
		if (changed)
			return;
	}
	while (*p) {
		size_t d = int_word(t, p), d2;
		const char *q = p + d + 4;
		if (d >= 4 && d <= 15 && !strncmp(p + d, " ns", 3) &&
		    !isalnum((unsigned char)p[d + 3])) {
			tku_fmt_ns(b, strtod(p, NULL));
			p += d + 3;
		} else if (d >= 4 && d <= 15 && !strncmp(p + d, " of ", 4) &&
			   (d2 = int_word(t, q)) >= 1 && d2 <= 15 && !strncmp(q + d2, " ns", 3)) {
			tku_fmt_ns(b, strtod(p, NULL));
			tku_puts(b, " of ");
			p = q; /* the second figure is shown by the rule above */
		} else if ((!strncmp(p, "device ", 7) || !strncmp(p, "process ", 8)) &&
			   (p == t || !isalnum((unsigned char)p[-1])) &&
			   (d = int_word(t, p + (p[0] == 'd' ? 7 : 8))) >= 1 && d <= 15) {
			const char *num = p + (p[0] == 'd' ? 7 : 8);
			tkr_id_label(b, m, p[0] == 'p', strtoll(num, NULL, 10));
			p = num + d;
		} else {
			size_t n = d ? d : 1;
			tku_putn(b, p, n);
			p += n;
		}
	}
}

void tkr_format_value(struct tku_buf *b, const struct tkr_model *m, enum tkr_kind k,
		      const struct tkr_cell *cell, const char *unit)
{
	if (cell->type == SQLITE_NULL) {
		if (k != TKR_FLAG)
			tku_puts(b, "-");
		return;
	}
	if (cell->type == SQLITE_TEXT) {
		tku_puts(b, k == TKR_NAME ? tkr_name_label(m, cell->s) : cell->s);
		return;
	}
	if ((k == TKR_DEVICE || k == TKR_PROCESS) && cell->type == SQLITE_INTEGER) {
		tkr_id_label(b, m, k == TKR_PROCESS, cell->i);
		return;
	}
	if (k == TKR_UTC) {
		if (m->clock && !strcmp(m->clock, "unix_epoch") && cell->type == SQLITE_INTEGER)
			fmt_utc(b, cell->i);
		else
			tku_printf(b, "%lld ns", (long long)cell->i);
		return;
	}
	int64_t rel;
	if (k == TKR_TS && cell->type == SQLITE_INTEGER &&
	    !tk_sub_ovf(cell->i, m->trace_start_ns, &rel)) { /* exact: subtract, then convert */
		tku_puts(b, "+");
		tku_fmt_ns(b, (double)rel);
		return;
	}
	if (k == TKR_INT && cell->type == SQLITE_INTEGER) {
		tku_printf(b, "%lld", (long long)cell->i);
		return;
	}
	fmt_value(b, k, tkr_num(cell), unit, m->trace_start_ns, k == TKR_UDELTA);
}

int tkr_where(struct tku_buf *b, const struct tkr_model *m, const struct tkr_section *s, size_t r)
{
	int dc = tkr_col(s, "device_id"), pc = tkr_col(s, "process_id");
	if (dc >= 0 && tkr_cell(s, r, dc)->type == SQLITE_INTEGER)
		tkr_id_label(b, m, 0, tkr_cell(s, r, dc)->i);
	else if (pc >= 0 && tkr_cell(s, r, pc)->type == SQLITE_INTEGER)
		tkr_id_label(b, m, 1, tkr_cell(s, r, pc)->i);
	else
		return 0;
	return 1;
}

void tkr_format_cell(struct tku_buf *b, const struct tkr_model *m, const struct tkr_section *s,
		     size_t r, int c)
{
	const struct tkr_cell *cell = tkr_cell(s, r, c);
	const struct tkr_col *col = &s->def->cols[c];
	struct tku_buf v = {0};
	const char *unit = NULL;
	if (col->kind == TKR_WHERE) {
		if (!tkr_where(&v, m, s, r))
			tku_puts(&v, "-");
	} else {
		if (col->kind == TKR_UVAL || col->kind == TKR_UDELTA) {
			int uc = tkr_col(s, "unit");
			const struct tkr_cell *u = uc >= 0 ? tkr_cell(s, r, uc) : NULL;
			unit = u && u->type == SQLITE_TEXT ? u->s : NULL;
		}
		if ((col->flags & TKR_C_HUMAN) && cell->type == SQLITE_TEXT)
			human_text(&v, m, cell->s, 1);
		else
			tkr_format_value(&v, m, col->kind, cell, unit);
	}
	tku_esc_terminal(b, v.p ? v.p : "");
	b->oom |= v.oom;
	free(v.p);
}
