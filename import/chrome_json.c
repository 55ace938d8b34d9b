/*
 * Chrome trace / PyTorch Kineto JSON importer: tk_import_chrome_json(). Two streaming passes over
 * the file, each in bounded memory (the tokenizer's buffers plus one event at a time):
 *   pass 1 reads the top-level keys (distributedInfo, deviceProperties, baseTimeNanoseconds, ...,
 *          which Kineto writes partly after traceEvents) and the metadata events (process and
 *          thread names, which Kineto writes at the end), and learns which pids are devices;
 *   pass 2 maps every event into the store (chrome_json_map.c, chrome_json_flow.c).
 * Each event is parsed by the fast path (chrome_json_fast.c), or by the exact token-by-token
 * parser where the fast path gives up (an event across a buffer boundary, invalid JSON, ...).
 * Top level: {"traceEvents": [...], ...} in any key order, or a bare array (which, as the
 * Trace Event Format allows, may lack its closing ']').
 * --salvage: at the first break of the input both passes stop after the same number of complete
 * traceEvents elements, and the import succeeds (cj_break(), salvaged()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>
#include <tracekit/import.h>

#include "chrome_json_internal.h"
#include "util/vec.h"

/*
 * Bad input at @line, @col. Without --salvage the writer fails (sticky: no store). With it,
 * nothing is failed: the place is remembered and CJ_BREAK unwinds the pass, which ends there.
 * Pass 2 stops where pass 1 stopped, so a break it finds itself is an earlier one and replaces
 * it (a check only pass 2 makes, such as a negative 'dur').
 */
int cj_break(struct cj_ctx *c, uint64_t line, uint64_t col, const char *msg)
{
	if (!c->o->salvage)
		return tk_writer_fail_cause(c->w, TK_EFORMAT, "json", msg,
					    "'%s': line %llu, column %llu", c->path,
					    (unsigned long long)line, (unsigned long long)col);
	c->broke = 1;
	c->brk_line = line;
	c->brk_col = col;
	c->brk_events = c->n_read;
	snprintf(c->brk_msg, sizeof(c->brk_msg), "%s", msg);
	return CJ_BREAK;
}

static int lex_fail(struct cj_ctx *c, struct tku_json_lex *lx)
{
	return cj_break(c, lx->err_line, lx->err_col, lx->msg);
}

static const char *arg_text(const struct cj_event *e, const char *key, enum cj_vtype *type)
{
	for (size_t i = 0; i < e->nargs; i++)
		if (!strcmp((e->arena + e->args[i].key), key)) {
			if (type)
				*type = e->args[i].v.type;
			return cj_str(e, e->args[i].v);
		}
	return NULL;
}

static int set_str(char **dst, const char *s)
{
	char *d = strdup(s);
	if (!d)
		return -1;
	free(*dst);
	*dst = d;
	return 0;
}

/* Pass 1 on one event: names from metadata, device pids, the main host pid, the earliest ts. */
static int prescan(struct cj_ctx *c, struct cj_event *e)
{
	char key[600];
	if (e->ph.type != CJV_STR)
		return TK_OK; /* pass 2 reports it */
	c->n_phased++;
	const char *ph = cj_str(e, e->ph);
	int n = -1;
	struct cj_proc *p = ph[0] == 'M' ? NULL : cj_proc_cached(c, e);
	if (!p) {
		n = cj_pid_key(e, e->pid, key, sizeof(key) / 2);
		if (n < 0 || n >= (int)sizeof(key) / 2)
			return cj_fail(c, e, "pid longer than %zu bytes", sizeof(key) / 2);
		p = cj_proc_get(c, key, 1, key[0] == 'i' ? strtoll(key + 1, NULL, 10) : TK_NONE);
		if (!p)
			return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
		cj_proc_remember(c, e, p);
	}
	if (ph[0] == 'M') {
		const char *name = e->name.type == CJV_STR ? cj_str(e, e->name) : "";
		const char *v;
		if (!strcmp(name, "process_name") && (v = arg_text(e, "name", NULL))) {
			if (set_str(&p->name, v) != 0)
				return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
		} else if (!strcmp(name, "process_labels") && (v = arg_text(e, "labels", NULL))) {
			if (set_str(&p->labels, v) != 0)
				return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
			if (!strncmp(v, "GPU", 3))
				p->is_gpu = 1;
		} else if (!strcmp(name, "thread_name") && (v = arg_text(e, "name", NULL))) {
			key[n] = '\x1f';
			int m = cj_pid_key(e, e->tid, key + n + 1, sizeof(key) / 2 - 1);
			if (m < 0 || m >= (int)sizeof(key) / 2 - 1)
				return cj_fail(c, e, "tid longer than %zu bytes", sizeof(key) / 2);
			int64_t *ix = cj_smap_get(&c->tname_by_key, key);
			if (ix)
				return set_str(&c->tnames[*ix], v)
					   ? tk_writer_fail(c->w, TK_ENOMEM, "out of memory")
					   : TK_OK;
			if (TKU_GROW(c->tnames, c->cap_tnames, c->ntnames + 1, 16) != TK_OK)
				return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
			if (!(c->tnames[c->ntnames] = strdup(v)) ||
			    cj_smap_put(&c->tname_by_key, key, (int64_t)c->ntnames) != 0)
				return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
			c->ntnames++;
		}
		return TK_OK;
	}
	p->has_events = 1;
	if (ph[0] == 's' || ph[0] == 't' || ph[0] == 'f') {
		c->has_flows = 1;
		c->n_flow_points++;
	} else if (strchr("XBbiInR", ph[0]) && ph[0]) {
		c->n_slices++;
	}
	struct cj_catinfo ci = e->cat.type == CJV_STR
				   ? cj_cat_info(c, cj_str(e, e->cat), e->cat.len)
				   : cj_cat_info(c, "", 0);
	if (ci.is_device) {
		p->is_gpu = 1;
		c->top.is_kineto = 1;
	} else if (ci.is_host) {
		c->top.is_kineto = 1;
		if (!c->main_key) {
			if (n < 0) /* the process came from the cache: its key once more */
				n = cj_pid_key(e, e->pid, key, sizeof(key) / 2);
			if (set_str(&c->main_key, key) != 0)
				return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
		}
	}
	int64_t ts;
	if ((ph[0] == 'X' || ph[0] == 'B') && (e->ts.type == CJV_NUM || e->ts.type == CJV_STR) &&
	    cj_time_ns(cj_str(e, e->ts), 3, &ts) == 0 && ts < c->min_ts_ns)
		c->min_ts_ns = ts;
	return TK_OK;
}

/* The events array; its '[' was consumed. @bare: a top-level array, which may end early. */
static int read_events(struct cj_ctx *c, struct tku_json_lex *lx, struct cj_event *e, int pass,
		       int bare)
{
	enum tku_json_tok t = tku_json_lex_next(lx);
	if (t == TKU_JT_RBRACK)
		return TK_OK;
	for (;;) {
		if (bare && t == TKU_JT_EOF)
			return TK_OK;
		if (pass == 2 && c->broke && c->n_read >= c->brk_events)
			return CJ_BREAK; /* --salvage: pass 1 broke here */
		if (t == TKU_JT_LBRACE) {
			if (cj_event_fast(lx, e, pass == 1) != 0 &&
			    (pass == 1 ? cj_event_parse_light(lx, e, 2)
				       : cj_event_parse(lx, e, 2)) != 0)
				return lex_fail(c, lx);
			int rc = pass == 1 ? prescan(c, e) : cj_map_event(c, e);
			if (rc != TK_OK)
				return rc;
		} else if (json_skip_value(lx, t, 2) != 0) {
			return lex_fail(c, lx);
		} else if (pass == 2) {
			c->n_skipped++;
		}
		c->n_read++;
		t = tku_json_lex_next(lx);
		if (t == TKU_JT_RBRACK || (bare && t == TKU_JT_EOF))
			return TK_OK;
		if (t != TKU_JT_COMMA) {
			if (t != TKU_JT_ERROR)
				tku_json_lex_error(lx,
						   "expected ',' or ']' after an event, found %s",
						   tku_json_tok_name(t));
			return lex_fail(c, lx);
		}
		t = tku_json_lex_next(lx);
		if (t == TKU_JT_RBRACK)
			return TK_OK; /* a trailing comma, as Perfetto accepts */
	}
}

static int read_devprops(struct cj_ctx *c, struct tku_json_lex *lx, struct cj_event *e)
{
	enum tku_json_tok t = tku_json_lex_next(lx);
	while (t != TKU_JT_RBRACK) {
		if (t == TKU_JT_LBRACE) {
			if (cj_event_parse(lx, e, 2) != 0)
				return lex_fail(c, lx);
			if (TKU_GROW(c->props, c->cap_props, c->nprops + 1, 8) != TK_OK)
				return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
			struct cj_devprop *d = &c->props[c->nprops++];
			memset(d, 0, sizeof(*d));
			d->id = d->sms = d->mem = d->max_threads_sm = d->regs_sm = d->smem_sm =
			    TK_NONE;
			const char *v, *mj, *mn;
			int64_t i;
#define PROP_INT(k, field)                                    \
	if ((v = arg_text(e, k, NULL)) && cj_int(v, &i) == 0) \
	d->field = i
			if (e->id.type == CJV_NUM && cj_int(cj_str(e, e->id), &i) == 0)
				d->id = i;
			PROP_INT("numSms", sms);
			PROP_INT("multiProcessorCount", sms);
			PROP_INT("totalGlobalMem", mem);
			PROP_INT("maxThreadsPerMultiprocessor", max_threads_sm);
			PROP_INT("regsPerMultiprocessor", regs_sm);
			PROP_INT("sharedMemPerMultiprocessor", smem_sm);
#undef PROP_INT
			if (e->name.type == CJV_STR && !(d->name = strdup(cj_str(e, e->name))))
				return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
			if (((mj = arg_text(e, "computeMajor", NULL)) &&
			     (mn = arg_text(e, "computeMinor", NULL))) ||
			    ((mj = arg_text(e, "major", NULL)) &&
			     (mn = arg_text(e, "minor", NULL))))
				snprintf(d->cc, sizeof(d->cc), "%.12s.%.12s", mj, mn);
			else if ((v = arg_text(e, "gcnArchName", NULL)))
				snprintf(d->cc, sizeof(d->cc), "%.31s", v);
		} else if (json_skip_value(lx, t, 2) != 0) {
			return lex_fail(c, lx);
		}
		t = tku_json_lex_next(lx);
		if (t == TKU_JT_COMMA)
			t = tku_json_lex_next(lx);
		else if (t != TKU_JT_RBRACK) {
			if (t != TKU_JT_ERROR)
				tku_json_lex_error(lx, "expected ',' or ']', found %s",
						   tku_json_tok_name(t));
			return lex_fail(c, lx);
		}
	}
	return TK_OK;
}

int cj_top_value(struct cj_top *top, struct tku_json_lex *lx, struct cj_event *e, const char *key,
		 enum tku_json_tok t)
{
	int64_t i;
	const char *v;
	if (t == TKU_JT_LBRACE && !strcmp(key, "distributedInfo")) {
		if (cj_event_parse(lx, e, 1) != 0)
			return -1;
		if ((v = arg_text(e, "rank", NULL)) && cj_int(v, &i) == 0) {
			top->rank = i;
			top->rank_from_file = 1;
		}
		if ((v = arg_text(e, "world_size", NULL)) && cj_int(v, &i) == 0)
			top->world_size = i;
		if ((v = arg_text(e, "backend", NULL)) && set_str(&top->backend, v) != 0)
			return -2;
		top->is_kineto = 1;
		return 0;
	}
	if (t == TKU_JT_NUMBER && !strcmp(key, "baseTimeNanoseconds")) {
		if (cj_int(lx->str, &i) != 0) {
			tku_json_lex_error(lx, "baseTimeNanoseconds is not a 64-bit integer");
			return -1;
		}
		top->base_ns = i;
		top->has_base = 1;
		top->is_kineto = 1;
		return 0;
	}
	if (!strcmp(key, "schemaVersion"))
		top->is_kineto = 1;
	if (t == TKU_JT_STRING && !strcmp(key, "host_name") && !top->host &&
	    set_str(&top->host, lx->str) != 0)
		return -2;
	return 1;
}

void cj_top_free(struct cj_top *top)
{
	free(top->host);
	free(top->backend);
	top->host = top->backend = NULL;
}

/* One top-level key's value in pass 1 (its ':' was consumed). */
static int top_key_pass1(struct cj_ctx *c, struct tku_json_lex *lx, struct cj_event *e,
			 const char *key)
{
	enum tku_json_tok t = tku_json_lex_next(lx);
	int64_t i;
	if (!strcmp(key, "traceEvents")) {
		if (t != TKU_JT_LBRACK)
			return tk_writer_fail(
			    c->w, TK_EFORMAT,
			    "'%s': line %llu, column %llu: traceEvents is %s, not an "
			    "array: not a Chrome/Kineto trace",
			    c->path, (unsigned long long)lx->tok_line,
			    (unsigned long long)lx->tok_col, tku_json_tok_name(t));
		c->has_events_key = 1;
		return read_events(c, lx, e, 1, 0);
	}
	if (!strcmp(key, "deviceProperties") && t == TKU_JT_LBRACK)
		return read_devprops(c, lx, e);
	int known = cj_top_value(&c->top, lx, e, key, t);
	if (known < 0)
		return known == -2 ? tk_writer_fail(c->w, TK_ENOMEM, "out of memory")
				   : lex_fail(c, lx);
	if (known == 0) {
		if (t == TKU_JT_LBRACE && c->top.backend)
			tk_writer_set_meta_text(c->w, "distributed_backend", c->top.backend);
		return tk_writer_status(c->w);
	}
	if (t == TKU_JT_STRING || t == TKU_JT_NUMBER) {
		char mk[300];
		snprintf(mk, sizeof(mk), "json.%.280s", key);
		if (t == TKU_JT_NUMBER && cj_int(lx->str, &i) == 0 && !strchr(lx->str, '.'))
			tk_writer_set_meta_int(c->w, mk, i);
		else
			tk_writer_set_meta_text(c->w, mk, lx->str);
		return tk_writer_status(c->w);
	}
	if (json_skip_value(lx, t, 1) != 0)
		return lex_fail(c, lx);
	return TK_OK;
}

int cj_walk_top(struct tku_json_lex *lx, const struct cj_walk *w)
{
	char *key = NULL;
	int rc = TK_OK;
	enum tku_json_tok t = tku_json_lex_next(lx);
	if (t == TKU_JT_LBRACK)
		return w->bare(w->ctx, lx);
	if (t != TKU_JT_LBRACE) {
		if (t != TKU_JT_ERROR)
			tku_json_lex_error(lx,
					   "expected '{' or '[' at the start of a trace, found %s",
					   tku_json_tok_name(t));
		return w->fail(w->ctx, lx);
	}
	t = tku_json_lex_next(lx);
	while (t != TKU_JT_RBRACE) {
		if (t != TKU_JT_STRING) {
			if (t != TKU_JT_ERROR)
				tku_json_lex_error(lx, "expected a string key, found %s",
						   tku_json_tok_name(t));
			rc = w->fail(w->ctx, lx);
			goto out;
		}
		free(key);
		if (!(key = strdup(lx->str))) {
			rc = w->nomem(w->ctx);
			goto out;
		}
		if ((t = tku_json_lex_next(lx)) != TKU_JT_COLON) {
			if (t != TKU_JT_ERROR)
				tku_json_lex_error(lx, "expected ':' after a key, found %s",
						   tku_json_tok_name(t));
			rc = w->fail(w->ctx, lx);
			goto out;
		}
		if ((rc = w->key(w->ctx, lx, key)) != TK_OK)
			goto out;
		t = tku_json_lex_next(lx);
		if (t == TKU_JT_COMMA)
			t = tku_json_lex_next(lx);
		else if (t != TKU_JT_RBRACE) {
			if (t != TKU_JT_ERROR)
				tku_json_lex_error(
				    lx, "expected ',' or '}' after a top-level value, found %s",
				    tku_json_tok_name(t));
			rc = w->fail(w->ctx, lx);
			goto out;
		}
	}
	t = tku_json_lex_next(lx);
	if (t != TKU_JT_EOF) {
		if (t != TKU_JT_ERROR)
			tku_json_lex_error(lx, "unexpected %s after the end of the trace",
					   tku_json_tok_name(t));
		rc = w->fail(w->ctx, lx);
	}
out:
	free(key);
	return rc;
}

/* One pass of the importer over the file, as cj_walk_top() callbacks. */
struct pass {
	struct cj_ctx *c;
	struct cj_event *e;
	int pass;
};

static int pass_key(void *ctx, struct tku_json_lex *lx, const char *key)
{
	struct pass *p = ctx;
	if (p->pass == 1)
		return top_key_pass1(p->c, lx, p->e, key);
	enum tku_json_tok t = tku_json_lex_next(lx);
	if (!strcmp(key, "traceEvents") && t == TKU_JT_LBRACK) {
		int rc = read_events(p->c, lx, p->e, 2, 0);
		return rc == TK_OK && p->c->broke ? CJ_BREAK
						  : rc; /* pass 1 broke after the events */
	}
	return json_skip_value(lx, t, 1) != 0 ? lex_fail(p->c, lx) : TK_OK;
}

static int pass_bare(void *ctx, struct tku_json_lex *lx)
{
	struct pass *p = ctx;
	p->c->bare = 1;
	return read_events(p->c, lx, p->e, p->pass, 1);
}

static int pass_fail(void *ctx, struct tku_json_lex *lx)
{
	return lex_fail(((struct pass *)ctx)->c, lx);
}

static int pass_nomem(void *ctx)
{
	return tk_writer_fail(((struct pass *)ctx)->c->w, TK_ENOMEM, "out of memory");
}

static int run_pass(struct cj_ctx *c, struct cj_event *e, int pass)
{
	struct tku_json_lex lx;
	struct pass p = {c, e, pass};
	const struct cj_walk walk = {&p, pass_key, pass_bare, pass_fail, pass_nomem};
	int rc;
	c->n_read = 0;
	if (tku_json_lex_open(&lx, c->path) != 0)
		rc =
		    tk_writer_fail_cause(c->w, TK_EIO, "json", lx.msg, "cannot read '%s'", c->path);
	else
		rc = cj_walk_top(&lx, &walk);
	tku_json_lex_close(&lx);
	return rc;
}

/* --salvage: say where the input broke and how much was kept, in a warning and in meta. */
static int salvaged(struct cj_ctx *c)
{
	char at[512];
	snprintf(at, sizeof(at), "'%s': line %llu, column %llu: %s", c->path,
		 (unsigned long long)c->brk_line, (unsigned long long)c->brk_col, c->brk_msg);
	cj_warn(c, "line %llu, column %llu: %s; salvaged %lld events before it",
		(unsigned long long)c->brk_line, (unsigned long long)c->brk_col, c->brk_msg,
		(long long)c->brk_events);
	int rc = tk_writer_set_meta_text(c->w, "json.salvaged_at", at);
	if (rc == TK_OK)
		rc = tk_writer_set_meta_int(c->w, "json.salvaged_events", c->brk_events);
	return rc;
}

/* After pass 1: TK_OK when the file is a trace (an object with a traceEvents array, or an array
 * holding events), else the writer failed. */
static int is_trace(struct cj_ctx *c)
{
	if (c->bare ? c->n_phased > 0 : c->has_events_key)
		return TK_OK;
	if (c->broke) /* --salvage, but the input broke before any event: nothing to keep */
		return tk_writer_fail_cause(
		    c->w, TK_EFORMAT, "json", c->brk_msg, "'%s': line %llu, column %llu", c->path,
		    (unsigned long long)c->brk_line, (unsigned long long)c->brk_col);
	return tk_writer_fail(c->w, TK_EFORMAT,
			      "'%s': no traceEvents: not a Chrome/Kineto trace (a JSON object "
			      "with a \"traceEvents\" array, or an array of events with \"ph\")",
			      c->path);
}

/* A trace without device work imports, with a warning on what usually causes it. */
static void warn_no_device_work(struct cj_ctx *c)
{
	for (size_t i = 0; i < c->nprocs; i++)
		if (c->procs[i].is_gpu && c->procs[i].has_events)
			return;
	if (!c->n_phased || (c->broke && !c->brk_events))
		cj_warn(c, "the trace holds no events: profiling stopped before anything was "
			   "recorded (a profiler schedule whose active steps never came?)");
	else
		cj_warn(c, "the trace holds no device (GPU) work: the profiled code probably "
			   "returned before the device finished (call torch.cuda.synchronize(), or "
			   "block_until_ready() on JAX results, inside the profiled region), or "
			   "profiling ended too early");
}

static void ctx_free(struct cj_ctx *c)
{
	for (size_t i = 0; i < c->nprocs; i++) {
		free(c->procs[i].key);
		free(c->procs[i].name);
		free(c->procs[i].labels);
	}
	free(c->procs);
	for (size_t i = 0; i < c->ntnames; i++)
		free(c->tnames[i]);
	free(c->tnames);
	for (size_t i = 0; i < c->nprops; i++)
		free(c->props[i].name);
	free(c->props);
	cj_smap_free(&c->proc_by_key);
	cj_smap_free(&c->tname_by_key);
	cj_smap_free(&c->track_by_key);
	cj_smap_free(&c->counter_by_key);
	cj_smap_free(&c->dev_by_ordinal);
	cj_flow_free(c);
	cj_be_free(c);
	cj_cache_free(c);
	free(c->main_key);
	cj_top_free(&c->top);
}

int tk_import_chrome_json(tk_writer *w, const char *path, const struct tk_import_options *o)
{
	struct tk_import_options defaults;
	struct cj_ctx c;
	struct cj_event e;
	int rc;
	memset(&c, 0, sizeof(c));
	memset(&e, 0, sizeof(e));
	if (!o) {
		tk_import_options_init(&defaults);
		o = &defaults;
	}
	c.w = w;
	c.path = path;
	c.o = o;
	c.top.rank = c.top.world_size = TK_NONE;
	c.min_ts_ns = INT64_MAX;
	c.recent.shift = c.pend_at.shift = 10; /* keyed by (track, ts): ~1 us per slot */
	if ((rc = tk_writer_status(w)) != TK_OK)
		goto out;
	if ((rc = run_pass(&c, &e, 1)) != TK_OK && rc != CJ_BREAK)
		goto out;
	if ((rc = is_trace(&c)) != TK_OK)
		goto out;
	if (!c.top.rank_from_file)
		c.top.rank = o->rank != TK_NONE ? o->rank + o->file_index : o->file_index;
	/* GPU pids: a pid that carries device work; the main process must be a host one */
	if ((rc = tk_writer_add_source(w, c.top.is_kineto ? "kineto" : "chrome_json", path,
				       c.top.host, c.top.rank)) != TK_OK)
		goto out;
	int epoch = c.top.has_base || (c.min_ts_ns != INT64_MAX && c.min_ts_ns >= CJ_EPOCH_MIN_NS);
	if ((rc = tk_writer_set_meta_text(w, "clock", epoch ? "unix_epoch" : "relative")) != TK_OK)
		goto out;
	if (c.top.world_size != TK_NONE &&
	    (rc = tk_writer_set_meta_int(w, "world_size", c.top.world_size)))
		goto out;
	/* the flow indexes at the size they will reach (sizing only: the bounds stay) */
	if (c.has_flows &&
	    (cj_pmap_reserve(&c.recent,
			     (size_t)(c.n_slices < CJ_MAX_RECENT ? c.n_slices : CJ_MAX_RECENT)) !=
		 0 ||
	     cj_pmap_reserve(&c.flows, (size_t)(c.n_flow_points < CJ_MAX_FLOWS ? c.n_flow_points
									       : CJ_MAX_FLOWS)) !=
		 0)) {
		rc = tk_writer_fail(w, TK_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = run_pass(&c, &e, 2)) != TK_OK && rc != CJ_BREAK)
		goto out;
	if ((rc = cj_be_finish(&c)) != TK_OK && rc != CJ_BREAK)
		goto out;
	c.n_flow_unbound += (int64_t)c.live_pend;
	rc = TK_OK;
	if (c.broke && (rc = salvaged(&c)) != TK_OK)
		goto out;
	warn_no_device_work(&c);
	if (c.n_skipped)
		cj_warn(&c,
			"%lld events of phases tracekit does not map (samples, objects, ...) "
			"or with no phase were skipped",
			(long long)c.n_skipped);
	if (c.n_bad_time)
		cj_warn(&c, "%lld events whose ts or dur is a non-numeric string were skipped",
			(long long)c.n_bad_time);
	if (c.n_unclosed)
		cj_warn(
		    &c,
		    "%lld 'B'/'b' events had no 'E'/'e'; kept with duration 0 and arg incomplete=1",
		    (long long)c.n_unclosed);
	if (c.n_evicted)
		cj_warn(
		    &c,
		    "%lld 'B'/'b' events were still open when more than %u (or %zu MiB of them) "
		    "were open at once; kept with duration 0 and arg incomplete=1 (an 'E'/'e' that "
		    "came later for one of them counts as having no 'B'/'b')",
		    (long long)c.n_evicted, CJ_MAX_OPEN, CJ_MAX_OPEN_BYTES >> 20);
	if (c.n_unmatched_end)
		cj_warn(&c, "%lld 'E'/'e' events had no 'B'/'b' and were dropped",
			(long long)c.n_unmatched_end);
	if (c.n_flow_unbound || c.n_flow_dropped)
		cj_warn(&c,
			"%lld flow points bound to no event, %lld dropped past the memory bounds",
			(long long)c.n_flow_unbound, (long long)c.n_flow_dropped);
out:
	cj_event_free(&e);
	ctx_free(&c);
	return rc;
}
