/*
 * tracekit status codes (their messages and the CLI exit code each maps to) and tk_error, the
 * status and chain of causes every public call reports its failures with (include/tracekit/error.h).
 */
#include <tracekit/error.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

const char *tk_strerror(int status)
{
	switch (status) {
#define TK_ERR_CASE(name, value, text) \
	case value:                    \
		return text;
		TK_ERRORS(TK_ERR_CASE)
#undef TK_ERR_CASE
	}
	return "unknown status";
}

int tk_exit_code(int status)
{
	switch (status) {
	case TK_OK:
		return 0;
	case TK_EINVAL:
	case TK_EIO:
	case TK_EFORMAT:
	case TK_EVERSION:
	case TK_ENOTFOUND:
		return 2;
	default:
		return 3;
	}
}

/* ---- tk_error: a status and a chain of causes ---- */

struct tk_cause {
	int status;
	char *module; /* "" when none was named */
	char *message;
};

struct tk_error {
	int status;
	struct tk_cause *causes; /* innermost first: causes[count - 1] is the outermost */
	size_t count, cap;
	char *joined; /* the causes outermost first, joined with ": "; NULL means "" */
};

tk_error *tk_error_new(void)
{
	return calloc(1, sizeof(struct tk_error));
}

void tk_error_clear(tk_error *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->count; i++) {
		free(e->causes[i].module);
		free(e->causes[i].message);
	}
	e->count = 0;
	e->status = TK_OK;
	free(e->joined);
	e->joined = NULL;
}

void tk_error_free(tk_error *e)
{
	if (!e)
		return;
	tk_error_clear(e);
	free(e->causes);
	free(e);
}

/* Out of memory while adding a cause: the cause is dropped, the status says why; -1. */
static int error_oom(tk_error *e, char *module, char *message)
{
	free(module);
	free(message);
	e->status = TK_ENOMEM;
	return -1;
}

/* Add the cause @message (owned) from @module as the outermost one; 0, or -1 out of memory. */
static int error_add(tk_error *e, const char *module, int status, char *message)
{
	char *mod = strdup(module ? module : "");
	if (!mod || !message)
		return error_oom(e, mod, message);
	if (TKU_GROW(e->causes, e->cap, e->count + 1, 4) != TK_OK)
		return error_oom(e, mod, message);
	/* The joined message: the new cause, then what was there. */
	const char *old = e->joined ? e->joined : "";
	size_t n = strlen(message), m = strlen(old);
	char *j = malloc(n + (e->count ? 2 + m : 0) + 1);
	if (!j)
		return error_oom(e, mod, message);
	memcpy(j, message, n);
	if (e->count) {
		memcpy(j + n, ": ", 2);
		memcpy(j + n + 2, old, m);
		n += 2 + m;
	}
	j[n] = '\0';
	free(e->joined);
	e->joined = j;
	e->causes[e->count++] = (struct tk_cause){status, mod, message};
	if (status != TK_OK)
		e->status = status;
	return 0;
}

int tk_error_vpush_from(tk_error *e, const char *module, int status, const char *fmt, va_list ap)
{
	if (!e)
		return status;
	char *msg = NULL;
	if (!fmt) { /* no message: an empty cause */
		msg = strdup("");
		goto add;
	}
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	msg = n < 0 ? NULL : malloc((size_t)n + 1);
	if (msg)
		vsnprintf(msg, (size_t)n + 1, fmt, ap);
add:
	error_add(e, module, status, msg);
	return e->status;
}

int tk_error_push_from(tk_error *e, const char *module, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = tk_error_vpush_from(e, module, status, fmt, ap);
	va_end(ap);
	return rc;
}

int tk_error_push(tk_error *e, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = tk_error_vpush_from(e, NULL, status, fmt, ap);
	va_end(ap);
	return rc;
}

int tk_error_copy(tk_error *dst, const tk_error *src)
{
	if (dst == src)
		return tk_error_status(dst);
	if (!dst)
		return tk_error_status(src);
	tk_error_clear(dst);
	if (!src)
		return TK_OK;
	for (size_t i = 0; i < src->count; i++) {
		const struct tk_cause *c = &src->causes[i];
		if (error_add(dst, c->module, c->status, strdup(c->message)) != 0)
			return dst->status;
	}
	dst->status = src->status;
	return dst->status;
}

int tk_error_status(const tk_error *e)
{
	return e ? e->status : TK_OK;
}

size_t tk_error_cause_count(const tk_error *e)
{
	return e ? e->count : 0;
}

/* Cause @i counted from the outermost, or NULL. */
static const struct tk_cause *cause_at(const tk_error *e, size_t i)
{
	return e && i < e->count ? &e->causes[e->count - 1 - i] : NULL;
}

const char *tk_error_cause(const tk_error *e, size_t i)
{
	const struct tk_cause *c = cause_at(e, i);
	return c ? c->message : NULL;
}

const char *tk_error_cause_module(const tk_error *e, size_t i)
{
	const struct tk_cause *c = cause_at(e, i);
	return c ? c->module : NULL;
}

int tk_error_cause_status(const tk_error *e, size_t i)
{
	const struct tk_cause *c = cause_at(e, i);
	return c ? c->status : TK_OK;
}

const char *tk_error_message(const tk_error *e)
{
	return e && e->joined ? e->joined : "";
}
