/*
 * Fuzz target: the regression gate's readers. The bytes are a file read as a baseline
 * (tkc_baseline_read: the JSON DOM, then every key checked) and as a gates file
 * (tkc_gates_file: JSON or the TOML subset). A baseline that reads is written back and read
 * again (the same summary: runs, models, metrics, kernels, ops, memory), and compared with
 * itself under the default gates (no regression, no crash on hostile figures); the gates of a
 * gates file that reads are evaluated against that baseline too when there is one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "check_internal.h"
#include "fuzz_util.h"

/* The status promise of a reader: TK_OK, or a bad-input status with a message naming @path. */
static void reader_status(int rc, const char *err, const char *path, const char *what)
{
	fz_status(rc, err, what);
	if (rc != TK_OK && rc != TK_ENOMEM)
		fz_check(strstr(err, path) != NULL, "the message names the file", err);
}

static void same_summary(const struct tkc_summary *a, const struct tkc_summary *b)
{
	fz_check(a->nruns == b->nruns && a->nmodels == b->nmodels && a->nmetrics == b->nmetrics &&
		     a->nkernels == b->nkernels && a->nops == b->nops && a->nmemory == b->nmemory &&
		     a->devices == b->devices && a->has_steps == b->has_steps,
		 "a baseline written back reads as another", NULL);
	for (size_t i = 0; i < a->nmetrics; i++) {
		fz_check(a->metrics[i].n == b->metrics[i].n, "metric samples changed",
			 a->metrics[i].key);
		for (size_t k = 0; k < a->metrics[i].n; k++)
			fz_check(a->metrics[i].v[k] == b->metrics[i].v[k], "a sample changed",
				 a->metrics[i].key);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_path("input.json"), *again = fz_path("again.json");
	char err[2048] = "";
	struct tkc_summary s, t;
	struct tkc_gates g = {0}, defaults = {0};
	struct tkc_result r;
	int allow = 0;
	fz_write(path, data, size);

	int rc = tkc_baseline_read(path, &s, err, sizeof(err));
	reader_status(rc, err, path, "baseline read");
	int have = rc == TK_OK;
	if (have) {
		FILE *f = fopen(again, "w");
		fz_check(f != NULL, "cannot write", again);
		fz_check(tkc_baseline_write(f, &s) == TK_OK,
			 "a baseline that reads cannot be written", NULL);
		fclose(f);
		rc = tkc_baseline_read(again, &t, err, sizeof(err));
		fz_check(rc == TK_OK, "a baseline written back does not read", err);
		same_summary(&s, &t);
		tkc_summary_free(&t);
		fz_check(tkc_gates_defaults(&defaults, err, sizeof(err)) == TK_OK, "defaults", err);
		rc = tkc_compare(&s, &s, &defaults, 0, &r, err, sizeof(err));
		fz_check(rc == TK_OK || rc == TK_ENOMEM, "compare with itself failed", err);
		if (rc == TK_OK)
			fz_check(!r.comparable || r.regressions == 0,
				 "a baseline regressed against itself", NULL);
		tkc_result_free(&r);
	}

	rc = tkc_gates_file(path, &g, &allow, err, sizeof(err));
	reader_status(rc, err, path, "gates file");
	if (rc == TK_OK && have) {
		rc = tkc_compare(&s, &s, &g, allow, &r, err, sizeof(err));
		fz_check(rc == TK_OK || rc == TK_ENOMEM, "compare under a gates file failed", err);
		tkc_result_free(&r);
	}
	tkc_gates_free(&g);
	tkc_gates_free(&defaults);
	if (have)
		tkc_summary_free(&s);
	return 0;
}
