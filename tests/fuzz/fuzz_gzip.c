/*
 * Fuzz target: gzip detection and bounded inflate. The bytes are a file given to
 * tk_import_detect() (which looks through gzip), inflated by the XPlane importer's bounded
 * xp_gunzip(), and tokenized to the end by the JSON lexer (plain or gzip by magic) with a small
 * read buffer, so that chunk boundaries fall everywhere.
 */
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>
#include <tracekit/import.h>

#define TK_XPLANE_NO_STATE
#include "fuzz_util.h"
#include "util/json_lex.h"
#include "xplane_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_path("input.gz");
	enum tk_import_format fmt;
	struct tku_json_lex lx;
	size_t out_len = 0;
	fz_write(path, data, size);

	int rc = tk_import_detect(path, &fmt, fz_err());
	fz_status(rc, fz_errmsg(), "detect");
	fz_check(rc != TK_OK || fmt != TK_FORMAT_UNKNOWN, "detect succeeded with no format", path);

	char *text = xp_gunzip(data, size, &out_len);
	if (text) {
		fz_check(out_len <= XP_MAX_GUNZIP, "xp_gunzip went past its bound", NULL);
		fz_check(text[out_len] == '\0', "xp_gunzip result is not NUL-terminated", NULL);
	}
	free(text);

	if (tku_json_lex_open_buf(&lx, path, 1 + size % 61) == 0) {
		enum tku_json_tok t;
		while ((t = tku_json_lex_next(&lx)) != TKU_JT_EOF && t != TKU_JT_ERROR)
			;
		if (t == TKU_JT_ERROR)
			fz_check(lx.msg[0] != '\0', "lexer error without a message", NULL);
	}
	tku_json_lex_close(&lx);
	return 0;
}
