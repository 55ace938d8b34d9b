/*
 * The gates file of `tracekit check --gates FILE` (docs/check.md, "Gates file"): JSON when its
 * first non-space byte is '{' (or it is gzip), else the TOML subset documented there, parsed here
 * by hand. Both give the same gates: "gates" (relative gates), the tables "max" and "min"
 * (METRIC[.STAT] = VALUE bounds) and allow_different_hardware. The file is hostile: at most
 * TKC_GATES_FILE_MAX bytes, every error names the file and line, unknown keys are errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>
#include <unistd.h>

#include "gates_file.h"
#include "util/json_dom.h"

int tkc_gsink_fail(struct tkc_gsink *k, int st, uint64_t line, uint64_t col, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!k->err || !k->errlen)
		return st;
	if (col)
		snprintf(k->err, k->errlen, "'%s': line %llu, column %llu: %s", k->path,
			 (unsigned long long)line, (unsigned long long)col, msg);
	else
		snprintf(k->err, k->errlen, "'%s': line %llu: %s", k->path,
			 (unsigned long long)line, msg);
	return st;
}

int tkc_gsink_gate(struct tkc_gsink *k, const char *text, enum tkc_gate_kind kind, uint64_t line,
		   uint64_t col)
{
	char msg[512] = "";
	int st = tkc_gates_add(&k->g, text, kind, msg, sizeof(msg));
	return st == TK_OK ? st : tkc_gsink_fail(k, st, line, col, "%s", msg);
}

int tkc_gsink_bound(struct tkc_gsink *k, int max, const char *metric, const char *value,
		    uint64_t line, uint64_t col)
{
	size_t n = strlen(metric) + strlen(value) + 2;
	char *text = malloc(n);
	if (!text)
		return tkc_gsink_fail(k, TK_ENOMEM, line, col, "out of memory");
	snprintf(text, n, "%s=%s", metric, value);
	int st = tkc_gsink_gate(k, text, max ? TKC_GATE_MAX : TKC_GATE_MIN, line, col);
	free(text);
	return st;
}

void tkc_number_text(double v, char *buf, size_t len)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* ---- JSON ---- */

static int json_bounds(struct tkc_gsink *k, const struct tku_json_value *t, int max)
{
	const char *name = max ? "max" : "min";
	if (t->type != TKU_JSON_OBJECT)
		return tkc_gsink_fail(
		    k, TK_EFORMAT, t->line, t->col,
		    "\"%s\" is an object of METRIC[.STAT]: VALUE (e.g. {\"step_time.p90\": "
		    "\"150ms\"})",
		    name);
	for (size_t i = 0; i < t->n; i++) {
		const struct tku_json_value *v = &t->items[i];
		char num[40];
		const char *value;
		if (v->type == TKU_JSON_STRING) {
			value = v->str;
		} else if (v->type == TKU_JSON_NUMBER) {
			tkc_number_text(v->num, num, sizeof(num));
			value = num;
		} else {
			return tkc_gsink_fail(
			    k, TK_EFORMAT, v->line, v->col,
			    "the bound of \"%.100s\" in \"%s\" is a string with a unit "
			    "(\"150ms\") or a number in the metric's unit",
			    t->keys[i], name);
		}
		int st = tkc_gsink_bound(k, max, t->keys[i], value, v->line, v->col);
		if (st != TK_OK)
			return st;
	}
	return TK_OK;
}

static int from_json(struct tkc_gsink *k)
{
	struct tku_json_value *root = NULL;
	int st = tku_json_parse_file(k->path, TKC_GATES_FILE_MAX, &root, k->err, k->errlen);
	if (st != TK_OK)
		goto out;
	if (root->type != TKU_JSON_OBJECT) {
		st = tkc_gsink_fail(k, TK_EFORMAT, root->line, root->col,
				    "a gates file is a JSON object (keys: " TKC_GATES_KEYS ")");
		goto out;
	}
	for (size_t i = 0; i < root->n && st == TK_OK; i++) {
		const char *key = root->keys[i];
		const struct tku_json_value *v = &root->items[i];
		if (strcmp(key, "gates") == 0) {
			if (v->type != TKU_JSON_ARRAY) {
				st = tkc_gsink_fail(
				    k, TK_EFORMAT, v->line, v->col,
				    "\"gates\" is an array of strings (\"step_time:+5%%\")");
				break;
			}
			for (size_t j = 0; j < v->n && st == TK_OK; j++) {
				const struct tku_json_value *e = &v->items[j];
				if (e->type != TKU_JSON_STRING)
					st = tkc_gsink_fail(
					    k, TK_EFORMAT, e->line, e->col,
					    "\"gates\" holds strings (\"step_time:+5%%\")");
				else
					st = tkc_gsink_gate(k, e->str, TKC_GATE_REL, e->line,
							    e->col);
			}
		} else if (strcmp(key, "max") == 0 || strcmp(key, "min") == 0) {
			st = json_bounds(k, v, key[1] == 'a');
		} else if (strcmp(key, "allow_different_hardware") == 0) {
			if (v->type != TKU_JSON_BOOL)
				st = tkc_gsink_fail(k, TK_EFORMAT, v->line, v->col,
						    "allow_different_hardware is true or false");
			k->allow_hw = v->b;
			k->has_allow_hw = 1;
		} else {
			st = tkc_gsink_fail(k, TK_EFORMAT, v->line, v->col,
					    "unknown key \"%.100s\" (known: " TKC_GATES_KEYS ")",
					    key);
		}
	}
out:
	tku_json_free(root);
	return st;
}

/* ---- the file ---- */

int tkc_gates_file(const char *path, struct tkc_gates *g, int *allow_hw, char *err, size_t errlen)
{
	struct tkc_gsink k = {.path = path, .err = err, .errlen = errlen};
	char *buf = NULL;
	size_t len = 0;
	int st = TK_OK;
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		st = TK_EIO;
		snprintf(err, errlen, "'%s': cannot read: %s", path, strerror(errno));
		goto out;
	}
	buf = malloc(TKC_GATES_FILE_MAX + 2);
	if (!buf) {
		st = TK_ENOMEM;
		snprintf(err, errlen, "'%s': out of memory", path);
		goto out;
	}
	while (len <= TKC_GATES_FILE_MAX) {
		ssize_t n = read(fd, buf + len, TKC_GATES_FILE_MAX + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			st = TK_EIO;
			snprintf(err, errlen, "'%s': cannot read: %s", path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	size_t i = 0;
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
		i++;
	if ((len >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b) ||
	    (i < len && buf[i] == '{')) {
		st = from_json(&k);
	} else if (len > TKC_GATES_FILE_MAX) {
		st = TK_EFORMAT;
		snprintf(err, errlen, "'%s': the file is larger than %u bytes: refused", path,
			 TKC_GATES_FILE_MAX);
	} else {
		st = tkc_gates_toml(&k, buf, len);
	}
	/* all or nothing: the caller's list gets the gates only when the whole file is good */
	for (size_t j = 0; j < k.g.n && st == TK_OK; j++)
		st = tkc_gates_add(g, k.g.v[j].text, k.g.v[j].kind, err, errlen);
	if (st == TK_OK && k.has_allow_hw && allow_hw)
		*allow_hw = k.allow_hw;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	tkc_gates_free(&k.g);
	return st;
}
