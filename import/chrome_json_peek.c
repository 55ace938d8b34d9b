/*
 * A look at a Chrome/Kineto JSON trace without importing it: tk_rank_file_peek(). Its rank,
 * world size and host come from the importer's own readers (cj_walk_top(), cj_top_value()), so
 * a peek and an import never disagree on a file's rank; with TK_RANK_SPAN every event is parsed
 * (the importer's first-pass parser, args left out) for the first start and the last end.
 * `import DIR` orders and checks ranks with it (import/rank_dir.c), `ls DIR` lists them.
 * Memory: the tokenizer's buffers and one event.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracekit/error.h>
#include <tracekit/import.h>

#include "chrome_json_internal.h"
#include "message.h"

struct peek {
	struct cj_top top;
	struct cj_event e;
	unsigned flags;
	int has_events_key, phased, broke, nomem;
	int64_t min_ts, max_end; /* event times, before baseTimeNanoseconds */
};

/* Widen the span by event @e (a phased one). */
static void span_add(struct peek *p, const struct cj_event *e)
{
	int64_t ts, dur, end;
	const char *ph = cj_str(e, e->ph);
	if (ph[0] == 'M' || (e->ts.type != CJV_NUM && e->ts.type != CJV_STR) ||
	    cj_time_ns(cj_str(e, e->ts), 3, &ts) != 0)
		return;
	end = ts;
	if (ph[0] == 'X' && (e->dur.type == CJV_NUM || e->dur.type == CJV_STR) &&
	    cj_time_ns(cj_str(e, e->dur), 3, &dur) == 0 && dur > 0 &&
	    __builtin_add_overflow(ts, dur, &end))
		end = INT64_MAX;
	if (ts < p->min_ts)
		p->min_ts = ts;
	if (end > p->max_end)
		p->max_end = end;
}

/* An array of events, its '[' read; @bare: the top level, which may end early. Without
 * TK_RANK_SPAN a bare array is done at its first phased event (it has no distributedInfo). */
static int peek_events(struct peek *p, struct tku_json_lex *lx, int bare)
{
	enum tku_json_tok t = tku_json_lex_next(lx);
	for (;;) {
		if (t == TKU_JT_RBRACK || (bare && t == TKU_JT_EOF))
			return TK_OK;
		if (t == TKU_JT_LBRACE) {
			if (cj_event_fast(lx, &p->e, 1) != 0 &&
			    cj_event_parse_light(lx, &p->e, 2) != 0)
				return CJ_BREAK;
			if (p->e.ph.type == CJV_STR) {
				p->phased = 1;
				if (!(p->flags & TK_RANK_SPAN))
					return bare ? CJ_STOP : TK_OK;
				span_add(p, &p->e);
			}
		} else if (json_skip_value(lx, t, 2) != 0) {
			return CJ_BREAK;
		}
		t = tku_json_lex_next(lx);
		if (t == TKU_JT_RBRACK || (bare && t == TKU_JT_EOF))
			return TK_OK;
		if (t != TKU_JT_COMMA)
			return CJ_BREAK;
		t = tku_json_lex_next(lx);
	}
}

static int peek_key(void *ctx, struct tku_json_lex *lx, const char *key)
{
	struct peek *p = ctx;
	enum tku_json_tok t = tku_json_lex_next(lx);
	if (!strcmp(key, "traceEvents") && t == TKU_JT_LBRACK) {
		p->has_events_key = 1;
		if (!(p->flags & TK_RANK_SPAN) && p->top.rank_from_file)
			return CJ_STOP; /* what import needs is known: the events are not read */
		return peek_events(p, lx, 0);
	}
	int known = cj_top_value(&p->top, lx, &p->e, key, t);
	if (known == -2)
		return p->nomem = 1, TK_ENOMEM;
	if (known < 0 || (known == 1 && json_skip_value(lx, t, 1) != 0))
		return CJ_BREAK;
	return TK_OK;
}

static int peek_bare(void *ctx, struct tku_json_lex *lx)
{
	return peek_events(ctx, lx, 1);
}

static int peek_fail(void *ctx, struct tku_json_lex *lx)
{
	(void)ctx, (void)lx;
	return CJ_BREAK;
}

static int peek_nomem(void *ctx)
{
	((struct peek *)ctx)->nomem = 1;
	return TK_ENOMEM;
}

int tk_rank_file_peek(const char *path, unsigned flags, struct tk_rank_file *f, tk_error *err)
{
	struct peek p;
	struct tku_json_lex lx;
	struct stat sb;
	enum tk_import_format fmt;
	int rc;
	memset(f, 0, sizeof(*f));
	memset(&p, 0, sizeof(p));
	memset(&lx, 0, sizeof(lx));
	lx.fd = -1;
	f->rank = f->world_size = f->start_ns = f->end_ns = TK_NONE;
	p.top.rank = p.top.world_size = TK_NONE;
	p.flags = flags;
	p.min_ts = INT64_MAX;
	p.max_end = INT64_MIN;
	if ((rc = tk_import_detect(path, &fmt, err)) != TK_OK)
		goto out;
	if (fmt != TK_FORMAT_CHROME_JSON) {
		rc = tk_error_push_from(err, "import", TK_EFORMAT,
					"'%s': not a Chrome/Kineto JSON trace", path);
		goto out;
	}
	if (stat(path, &sb) != 0 || tku_json_lex_open(&lx, path) != 0) {
		tk_error_push_from(err, "os", TK_EIO, "%s", lx.msg[0] ? lx.msg : strerror(errno));
		rc = tk_error_push_from(err, "import", TK_EIO, "cannot read '%s'", path);
		goto out;
	}
	const struct cj_walk walk = {&p, peek_key, peek_bare, peek_fail, peek_nomem};
	rc = cj_walk_top(&lx, &walk);
	if (p.nomem) {
		rc = tk_error_push_from(err, "import", TK_ENOMEM, "out of memory reading '%s'",
					path);
		goto out;
	}
	/* a break is the importer's to report (or to salvage): the file stays a trace */
	if (rc != CJ_BREAK && !p.has_events_key && !p.phased) {
		rc = tk_error_push_from(err, "import", TK_EFORMAT,
					"'%s': no traceEvents: not a Chrome/Kineto trace", path);
		goto out;
	}
	rc = TK_OK;
	if (!(f->path = strdup(path))) {
		rc = tk_error_push_from(err, "import", TK_ENOMEM, "out of memory");
		goto out;
	}
	f->rel = f->path;
	f->kineto = p.top.is_kineto;
	f->gzip = lx.is_gz;
	f->bytes = (int64_t)sb.st_size;
	if (p.top.rank_from_file)
		f->rank = p.top.rank;
	f->world_size = p.top.world_size;
	f->host = p.top.host;
	p.top.host = NULL;
	if ((flags & TK_RANK_SPAN) && p.min_ts != INT64_MAX) {
		int64_t base = p.top.base_ns;
		f->epoch = p.top.has_base || p.min_ts >= CJ_EPOCH_MIN_NS;
		if (__builtin_add_overflow(p.min_ts, base, &f->start_ns) ||
		    __builtin_add_overflow(p.max_end, base, &f->end_ns))
			f->start_ns = f->end_ns = TK_NONE;
	}
out:
	tku_json_lex_close(&lx);
	cj_event_free(&p.e);
	cj_top_free(&p.top);
	return rc;
}
