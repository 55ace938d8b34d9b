/* tracekit status codes: their messages and the CLI exit code each maps to. */
#include <tracekit/error.h>

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
