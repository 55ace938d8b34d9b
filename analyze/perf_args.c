/*
 * The record_shapes args' parser of the perf model (perf_args.h): lists of lists of integers and
 * lists of strings, in Kineto's compact JSON or Python's repr, each bounded (TKA_PM_MAX_ARGS
 * values, TKA_PM_MAX_DIMS dims below 2^48, strings of TKA_PM_STR_LEN - 1 bytes), and the dtype
 * table ("Input type" names, what the model reports, element sizes).
 */
#include "perf_args.h"

#include <stddef.h>
#include <string.h>

static const char *ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

/* A non-negative integer below 2^48 at *@s (advanced past it); -1 when there is none. */
static int64_t parse_uint(const char **s)
{
	const char *p = *s;
	int64_t v = 0;
	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (*p++ - '0');
		if (v >= TKA_PM_MAX_ELEMS)
			return -1;
	}
	*s = p;
	return v;
}

/*
 * "Input Dims" / "Input Strides": a list whose elements are lists of integers (a tensor's
 * shape; [] for a scalar or a non-tensor) or deeper lists (tensor lists: nd = -1). 0, or -1 when
 * the text is anything else or exceeds the limits.
 */
int tka_pm_parse_shapes(const char *s, struct tka_pm_shapes *p)
{
	p->n = 0;
	s = ws(s);
	if (*s++ != '[')
		return -1;
	s = ws(s);
	if (*s == ']')
		return *ws(s + 1) ? -1 : 0;
	for (;;) {
		if (p->n == TKA_PM_MAX_ARGS)
			return -1;
		int k = p->n++;
		p->nd[k] = 0;
		s = ws(s);
		if (*s++ != '[')
			return -1;
		s = ws(s);
		if (*s == '[') { /* a list of shapes: skip it whole */
			long depth = 1;
			p->nd[k] = -1;
			while (depth > 0) {
				if (!*s)
					return -1;
				depth += *s == '[' ? 1 : *s == ']' ? -1 : 0;
				s++;
			}
		} else if (*s == ']') {
			s++;
		} else {
			for (;;) {
				int64_t v = parse_uint(&s);
				if (v < 0 || p->nd[k] == TKA_PM_MAX_DIMS)
					return -1;
				p->d[k][p->nd[k]++] = v;
				s = ws(s);
				if (*s == ']')
					break;
				if (*s++ != ',')
					return -1;
				s = ws(s);
			}
			s++;
		}
		s = ws(s);
		if (*s == ']')
			return *ws(s + 1) ? -1 : 0;
		if (*s++ != ',')
			return -1;
	}
}

/*
 * "Input type" / "Concrete Inputs": a list of strings ('x' or "x", backslash escapes kept as
 * the escaped character) or bare tokens (None, 1). Values longer than TKA_PM_STR_LEN - 1 are kept as
 * "" (unknown). 0, or -1 when the text is anything else.
 */
int tka_pm_parse_strs(const char *s, char (*out)[TKA_PM_STR_LEN], int *n)
{
	*n = 0;
	s = ws(s);
	if (*s++ != '[')
		return -1;
	s = ws(s);
	if (*s == ']')
		return *ws(s + 1) ? -1 : 0;
	for (;;) {
		if (*n == TKA_PM_MAX_ARGS)
			return -1;
		char *o = out[(*n)++];
		size_t len = 0;
		int long_value = 0;
		s = ws(s);
		if (*s == '\'' || *s == '"') {
			char q = *s++;
			while (*s != q) {
				if (!*s)
					return -1;
				if (*s == '\\' && !*++s)
					return -1;
				if (len < TKA_PM_STR_LEN - 1)
					o[len++] = *s;
				else
					long_value = 1;
				s++;
			}
			s++;
		} else {
			while (*s && *s != ',' && *s != ']' && *s != '[' && *s != '\'' &&
			       *s != '"') {
				if (len < TKA_PM_STR_LEN - 1)
					o[len++] = *s;
				else
					long_value = 1;
				s++;
			}
			while (len && (o[len - 1] == ' ' || o[len - 1] == '\t'))
				len--;
			if (!len)
				return -1;
		}
		o[long_value ? 0 : len] = '\0';
		s = ws(s);
		if (*s == ']')
			return *ws(s + 1) ? -1 : 0;
		if (*s++ != ',')
			return -1;
	}
}

/* A Concrete Inputs value as a list of integers ("[2, 2]", "(1,)", "3", "-1"): the count, or -1. */
int tka_pm_parse_ints(const char *s, int64_t *v, int max)
{
	int n = 0, list = 0;
	s = ws(s);
	if (*s == '[' || *s == '(') {
		list = *s == '[' ? ']' : ')';
		s = ws(s + 1);
		if (*s == list)
			return *ws(s + 1) ? -1 : 0;
	}
	for (;;) {
		int neg = *s == '-';
		if (neg)
			s++;
		int64_t x = parse_uint(&s);
		if (x < 0 || n == max)
			return -1;
		v[n++] = neg ? -x : x;
		s = ws(s);
		if (!list)
			return *s ? -1 : n;
		if (*s == ',')
			s = ws(s + 1);
		if (*s == list)
			return *ws(s + 1) ? -1 : n;
	}
}

/* A Concrete Inputs value as a boolean: 1, 0, or -1 when it is neither. */
int tka_pm_parse_bool(const char *s)
{
	if (!strcmp(s, "True") || !strcmp(s, "true") || !strcmp(s, "1"))
		return 1;
	if (!strcmp(s, "False") || !strcmp(s, "false") || !strcmp(s, "0"))
		return 0;
	return -1;
}

/* ---- dtypes ---- */

static const struct tka_pm_dtype dtypes[] = {
    {"float", "fp32", 4},
    {"double", "fp64", 8},
    {"c10::Half", "fp16", 2},
    {"Half", "fp16", 2},
    {"c10::BFloat16", "bf16", 2},
    {"BFloat16", "bf16", 2},
    {"c10::Float8_e4m3fn", "fp8", 1},
    {"c10::Float8_e5m2", "fp8", 1},
    {"c10::Float8_e4m3fnuz", "fp8", 1},
    {"c10::Float8_e5m2fnuz", "fp8", 1},
    {"c10::Float8_e8m0fnu", "fp8", 1},
    {"long", "int64", 8},
    {"long int", "int64", 8},
    {"int", "int32", 4},
    {"short", "int16", 2},
    {"signed char", "int8", 1},
    {"unsigned char", "uint8", 1},
    {"bool", "bool", 1},
    {"c10::qint8", "int8", 1},
    {"c10::quint8", "uint8", 1},
    {"c10::qint32", "int32", 4},
    {"c10::complex<c10::Half>", "complex32", 4},
    {"c10::complex<float>", "complex64", 8},
    {"c10::complex<double>", "complex128", 16},
};

const struct tka_pm_dtype *tka_pm_dtype_of(const char *s)
{
	for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (!strcmp(s, dtypes[i].trace))
			return &dtypes[i];
	return NULL;
}
