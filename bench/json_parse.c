/*
 * Parse-only benchmark helper for the Chrome/Kineto JSON importer: tokenizes a trace and parses
 * every event object with the importer's own reader (util/json_lex.c, the fast path
 * chrome_json_fast.c and, where it gives up, chrome_json_event.c), as the mapping pass does,
 * writing nothing, and prints the number of events. Built by bench/json_bench.sh with cc -O2:
 *   cc -O2 -I. -Iimport bench/json_parse.c util/json_lex.c import/chrome_json_event.c \
 *     import/chrome_json_fast.c -lz
 */
#include <stdio.h>
#include <string.h>

#include "chrome_json_event.h"
#include "util/json_lex.h"

int main(int argc, char **argv)
{
	struct tku_json_lex lx;
	struct cj_event e;
	long long events = 0;
	int rc = 1, depth = 0;
	memset(&e, 0, sizeof(e));
	if (argc != 2) {
		fputs("usage: json_parse FILE\n", stderr);
		return 2;
	}
	if (tku_json_lex_open(&lx, argv[1]) != 0) {
		fprintf(stderr, "json_parse: %s: %s\n", argv[1], lx.msg);
		goto out;
	}
	/* every object at depth 2 (inside the top-level object's traceEvents) is an event; other
	 * top-level values are tokenized the same way */
	for (;;) {
		enum tku_json_tok t = tku_json_lex_next(&lx);
		if (t == TKU_JT_EOF)
			break;
		if (t == TKU_JT_ERROR) {
			fprintf(stderr, "json_parse: line %llu, column %llu: %s\n",
				(unsigned long long)lx.err_line, (unsigned long long)lx.err_col,
				lx.msg);
			goto out;
		}
		if (t == TKU_JT_LBRACE && depth == 2) {
			if (cj_event_fast(&lx, &e, 0) != 0 && cj_event_parse(&lx, &e, 3) != 0) {
				fprintf(stderr, "json_parse: line %llu, column %llu: %s\n",
					(unsigned long long)lx.err_line,
					(unsigned long long)lx.err_col, lx.msg);
				goto out;
			}
			events++;
		} else if (t == TKU_JT_LBRACE || t == TKU_JT_LBRACK) {
			depth++;
		} else if (t == TKU_JT_RBRACE || t == TKU_JT_RBRACK) {
			depth--;
		}
	}
	printf("%lld events\n", events);
	rc = 0;
out:
	cj_event_free(&e);
	tku_json_lex_close(&lx);
	return rc;
}
