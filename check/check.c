/*
 * The public face of the regression gate (include/tracekit/check.h): a tk_check holds the
 * baseline (read from a file, or built from stores), the input runs, the gates and the result,
 * and hands the printing to report/check_out.c.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/check.h>
#include <tracekit/error.h>

#include "check_internal.h"
#include "check_out.h"
#include "message.h"

struct tk_check {
	char err[2048];	 /* the internal functions' message buffer, turned into @error by done() */
	tk_error *error; /* the last failure (tk_check_error()) */
	struct tkc_gates gates;
	int allow_hw;
	struct tkc_builder *base_b, *cur_b; /* runs being added */
	struct tkc_summary base, cur;
	int has_base, has_base_file, has_cur, ran;
	struct tkc_result result;
};

int tk_check_new(tk_check **out)
{
	*out = calloc(1, sizeof(**out));
	if (*out && !((*out)->error = tk_error_new())) {
		free(*out);
		*out = NULL;
	}
	return *out ? TK_OK : TK_ENOMEM;
}

tk_error *tk_check_error(tk_check *c)
{
	return c ? c->error : NULL;
}

const char *tk_check_errmsg(const tk_check *c)
{
	return c ? tk_error_message(c->error) : "out of memory";
}

/* The end of a public call: a failure's message (in c->err) becomes the check's error. */
static int done(tk_check *c, int rc)
{
	if (rc != TK_OK) {
		tk_error_clear(c->error);
		tk_error_push_from(c->error, "check", rc, "%s", c->err);
	}
	return rc;
}

int tk_check_gate(tk_check *c, const char *text, enum tk_gate_kind kind)
{
	enum tkc_gate_kind k = kind == TK_GATE_MAX   ? TKC_GATE_MAX
			       : kind == TK_GATE_MIN ? TKC_GATE_MIN
						     : TKC_GATE_REL;
	return done(c, tkc_gates_add(&c->gates, text, k, c->err, sizeof(c->err)));
}

int tk_check_gates_file(tk_check *c, const char *path)
{
	return done(c, tkc_gates_file(path, &c->gates, &c->allow_hw, c->err, sizeof(c->err)));
}

void tk_check_allow_different_hardware(tk_check *c, int allow)
{
	c->allow_hw = allow;
}

int tk_check_baseline_file(tk_check *c, const char *path)
{
	if (c->has_base || c->base_b) {
		tks_fmt(c->err, sizeof(c->err), "a check has one baseline");
		return done(c, TK_EINVAL);
	}
	int rc = tkc_baseline_read(path, &c->base, c->err, sizeof(c->err));
	c->has_base = c->has_base_file = rc == TK_OK;
	return done(c, rc);
}

/* Add @store to the builder *@b (made on first use). */
static int add_run(tk_check *c, struct tkc_builder **b, const char *store, const char *label)
{
	int rc = TK_OK;
	/* a check's own runs keep samples of every kernel (the baseline file keeps fewer) */
	if (!*b && (rc = tkc_builder_new(0, 20 * TKC_SAMPLE_MAX, b)) != TK_OK) {
		tks_fmt(c->err, sizeof(c->err), "out of memory");
		return rc;
	}
	return tkc_builder_add_store(*b, store, label, c->err, sizeof(c->err));
}

int tk_check_add_baseline_run(tk_check *c, const char *store, const char *label)
{
	if (c->has_base_file) {
		tks_fmt(c->err, sizeof(c->err), "a check has one baseline");
		return done(c, TK_EINVAL);
	}
	return done(c, add_run(c, &c->base_b, store, label));
}

int tk_check_add_run(tk_check *c, const char *store, const char *label)
{
	return done(c, add_run(c, &c->cur_b, store, label));
}

/* Finish the builders that have runs. */
static int finish(tk_check *c)
{
	int rc = TK_OK;
	if (c->cur_b && !c->has_cur) {
		rc = tkc_builder_finish(c->cur_b, &c->cur, c->err, sizeof(c->err));
		c->has_cur = rc == TK_OK;
	}
	if (rc == TK_OK && c->base_b && !c->has_base) {
		rc = tkc_builder_finish(c->base_b, &c->base, c->err, sizeof(c->err));
		c->has_base = rc == TK_OK;
	}
	if (rc == TK_OK && !c->has_cur) {
		tks_fmt(c->err, sizeof(c->err), "no input runs");
		rc = TK_EINVAL;
	}
	return rc;
}

/* tk_check_run() with the message in c->err. */
static int run(tk_check *c)
{
	int rc = finish(c);
	if (rc != TK_OK)
		return rc;
	if (!c->gates.n) {
		if (!c->has_base) {
			tks_fmt(c->err, sizeof(c->err),
				"nothing to check: give a baseline, or bounds (--max, --min)");
			return TK_EINVAL;
		}
		if ((rc = tkc_gates_defaults(&c->gates, c->err, sizeof(c->err))) != TK_OK)
			return rc;
	}
	tkc_result_free(&c->result);
	rc = tkc_compare(c->has_base ? &c->base : NULL, &c->cur, &c->gates, c->allow_hw, &c->result,
			 c->err, sizeof(c->err));
	c->ran = rc == TK_OK;
	return rc;
}

int tk_check_run(tk_check *c)
{
	return done(c, run(c));
}

enum tk_check_verdict tk_check_verdict(const tk_check *c)
{
	if (!c->ran || !c->result.comparable)
		return TK_CHECK_NOT_COMPARABLE;
	return c->result.regressions ? TK_CHECK_REGRESSION : TK_CHECK_PASS;
}

int tk_check_format_parse(const char *name, enum tk_check_format *out)
{
	static const struct {
		const char *name;
		enum tk_check_format f;
	} v[] = {{"text", TK_CHECK_TEXT}, {"json", TK_CHECK_JSON}, {"md", TK_CHECK_MD}};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!strcmp(name, v[i].name)) {
			*out = v[i].f;
			return TK_OK;
		}
	return TK_EINVAL;
}

int tk_check_write(const tk_check *c, FILE *out, enum tk_check_format f)
{
	struct tkr_check_view v = {&c->result, c->has_base ? &c->base : NULL, &c->cur};
	return tkr_check_write(out, &v, f);
}

int tk_check_write_baseline(tk_check *c, FILE *out)
{
	int rc = c->has_cur ? TK_OK : finish(c);
	if (rc != TK_OK)
		return done(c, rc);
	rc = tkc_baseline_write(out, &c->cur);
	if (rc != TK_OK) {
		tk_error_clear(c->error);
		tk_error_push_from(c->error, "check", rc, "%s", tk_strerror(rc));
		tk_error_push_from(c->error, "check", rc, "cannot write the baseline");
	}
	return rc;
}

void tk_check_free(tk_check *c)
{
	if (!c)
		return;
	tkc_gates_free(&c->gates);
	tkc_builder_free(c->base_b);
	tkc_builder_free(c->cur_b);
	tkc_summary_free(&c->base);
	tkc_summary_free(&c->cur);
	tkc_result_free(&c->result);
	tk_error_free(c->error);
	free(c);
}
