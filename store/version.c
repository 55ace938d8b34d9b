/* tracekit version string and the list of optional features compiled into this build. */
#include <tracekit/version.h>

#include <stdarg.h>
#include <stdio.h>

#include "store_internal.h"
#include <sqlite3.h>

#include "tk_config.h"

const char *tk_version(void)
{
	return TK_VERSION_STRING;
}

const char *tk_build_features(void)
{
	return "sqlite: yes (" SQLITE_VERSION ")\n"
	       "zlib: " TK_FEATURE_ZLIB "\n"
	       "isa-l: " TK_FEATURE_ISAL "\n"
	       "protobuf-c: " TK_FEATURE_PROTOBUF_C "\n"
	       "cjson: " TK_FEATURE_CJSON "\n"
	       "cupti: " TK_FEATURE_CUPTI "\n"
	       "mpi: " TK_FEATURE_MPI "\n"; /* the command line's --mpi (cli/mpi.c) */
}

void tks_fmt(char *buf, size_t len, const char *fmt, ...)
{
	if (!buf || !len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}
