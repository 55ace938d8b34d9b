/*
 * Importing inputs into a store, shared by the commands: `import` (cli/cmd_import.c), and
 * `baseline` and `check`, which take a store, a trace file or a logdir per run and import the
 * latter on the fly into a temporary store (cli_run_input_open); the files of the inputs, for
 * `import --mpi` to share out (cli_import_files).
 */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracekit/analyze.h>
#include <tracekit/error.h>
#include <tracekit/import.h>
#include <tracekit/store.h>
#include <unistd.h>

#include "cli.h"
#include "util/vec.h"

static void warn(void *ctx, const char *message)
{
	(void)ctx;
	fprintf(stderr, "tracekit: warning: %s\n", message);
}

/* The files imported so far, to refuse one twice (it would become a second rank or host). A copy
 * of a JSON file is refused too; XPlane host files are named by their file, so only the same file
 * is. */
struct inputs {
	struct tk_input_id *ids;
	int *json, n;
	size_t ids_cap, json_cap;
};

/* Fail @w with the error @err of a call that returned @rc (its causes kept on the writer). */
static int fail_with(tk_writer *w, int rc, const tk_error *err)
{
	return err ? tk_writer_fail_error(w, err) : tk_writer_fail(w, rc, "%s", "");
}

static int check_new_input(tk_writer *w, struct inputs *in, const char *path, int json)
{
	if (TKU_GROW(in->ids, in->ids_cap, (size_t)in->n + 1, 8) != TK_OK ||
	    TKU_GROW(in->json, in->json_cap, (size_t)in->n + 1, 8) != TK_OK)
		return tk_writer_fail(w, TK_ENOMEM, "out of memory");
	struct tk_input_id *ids = in->ids;
	int *js = in->json;
	tk_error *err = tk_error_new();
	int rc = tk_import_input_id(path, &ids[in->n], err);
	if (rc != TK_OK)
		fail_with(w, rc, err);
	tk_error_free(err);
	if (rc != TK_OK)
		return rc;
	if (!(ids[in->n].path = strdup(path)))
		return tk_writer_fail(w, TK_ENOMEM, "out of memory");
	js[in->n] = json;
	for (int i = 0; i < in->n && rc == TK_OK; i++) {
		int same = tk_import_input_same(&ids[i], &ids[in->n], json && js[i]);
		if (same != TK_INPUT_DIFFERENT)
			rc = tk_writer_fail(w, TK_EINVAL,
					    "inputs '%s' and '%s' %s: each input becomes its own "
					    "rank or host; give each file once",
					    ids[i].path, path,
					    same == TK_INPUT_SAME_FILE
						? "are the same file"
						: "have the same content (a copy of one trace)");
	}
	in->n++;
	return rc;
}

static void inputs_free(struct inputs *in)
{
	for (int i = 0; i < in->n; i++)
		free((char *)in->ids[i].path);
	free(in->ids);
	free(in->json);
}

/* The run of a logdir to import: @run_name's, else the newest (the first); NULL when none. */
static const struct tk_xplane_run *pick_run(const struct tk_xplane_run *runs, int nruns,
					    const char *run_name)
{
	for (int i = 0; run_name && i < nruns; i++)
		if (!strcmp(runs[i].name, run_name))
			return &runs[i];
	return run_name || nruns < 1 ? NULL : &runs[0];
}

#define NO_RUN_FMT "'%s' has no run named '%s' (see 'tracekit ls %s')"

/* Import one directory: every host file of one run. */
static int import_dir(tk_writer *w, const char *path, const char *run_name,
		      struct tk_import_options *o, struct inputs *in)
{
	struct tk_xplane_run *runs = NULL;
	int nruns = 0, rc;
	tk_error *err = tk_error_new();
	rc = tk_xplane_list_runs(path, &runs, &nruns, err);
	if (rc != TK_OK) {
		fail_with(w, rc, err);
		goto out;
	}
	const struct tk_xplane_run *pick = pick_run(runs, nruns, run_name);
	if (!pick) {
		rc = tk_writer_fail(w, TK_ENOTFOUND, NO_RUN_FMT, path, run_name, path);
		goto out;
	}
	for (int i = 0; i < pick->nfiles && rc == TK_OK; i++)
		if ((rc = check_new_input(w, in, pick->files[i], 0)) == TK_OK)
			rc = tk_import_xplane(w, pick->files[i], o);
out:
	tk_error_free(err);
	tk_xplane_runs_free(runs, nruns);
	return rc;
}

int cli_import(const char *output, const char *const *inputs, size_t n, const char *run_name,
	       struct tk_import_options *o, struct tk_writer_stats *st)
{
	tk_writer *w = NULL;
	struct inputs seen = {0};
	tk_error *err = tk_error_new();
	int rc = tk_writer_create(output, &w);
	if (!o->warn)
		o->warn = warn;
	cli_remove_on_signal(tk_writer_temp_path(w));
	for (size_t i = 0; i < n && rc == TK_OK; i++) { /* files first: before any import */
		struct stat sb;
		enum tk_import_format fmt;
		if (stat(inputs[i], &sb) == 0 && S_ISDIR(sb.st_mode))
			continue;
		if ((rc = tk_import_detect(inputs[i], &fmt, err)) != TK_OK)
			fail_with(w, rc, err);
		else
			rc = check_new_input(w, &seen, inputs[i], fmt == TK_FORMAT_CHROME_JSON);
	}
	for (size_t i = 0; i < n && rc == TK_OK; i++) {
		const char *in = inputs[i];
		struct stat sb;
		o->file_index = (int)i;
		if (stat(in, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			rc = import_dir(w, in, run_name, o, &seen);
			continue;
		}
		enum tk_import_format fmt;
		rc = tk_import_detect(in, &fmt, err);
		if (rc != TK_OK)
			fail_with(w, rc, err);
		else if (fmt == TK_FORMAT_XPLANE)
			rc = tk_import_xplane(w, in, o);
		else
			rc = tk_import_chrome_json(w, in, o);
	}
	inputs_free(&seen);
	if (rc != TK_OK) {
		tk_error_free(err);
		return cli_fail_writer(rc, w);
	}
	tk_writer_get_stats(w, st);
	rc = tk_writer_finish(w, err);
	cli_remove_on_signal(NULL);
	int code = rc == TK_OK ? TK_EXIT_OK : cli_fail_error(rc, err);
	tk_error_free(err);
	return code;
}

/* 1 when @path starts with SQLite's file header (a store, or another SQLite database). */
static int is_sqlite(const char *path)
{
	char head[16];
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(head, 1, sizeof(head), f) : 0;
	if (f)
		fclose(f);
	return n == sizeof(head) && !memcmp(head, "SQLite format 3", 16);
}

int cli_run_input_open(const char *arg, struct cli_run_input *in)
{
	memset(in, 0, sizeof(*in));
	in->arg = arg;
	struct stat sb;
	if (stat(arg, &sb) != 0) {
		cli_error("cannot read '%s': %s", arg, strerror(errno));
		return TK_EXIT_USAGE;
	}
	if (S_ISREG(sb.st_mode) && is_sqlite(arg)) {
		in->store = arg;
		return cli_report_ensure_analysis(arg);
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(in->dir, sizeof(in->dir), "%s/tracekit-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(in->dir)) {
		cli_error("cannot make a temporary directory in '%s' for importing '%s': %s",
			  tmp && *tmp ? tmp : "/tmp", arg, strerror(errno));
		in->dir[0] = '\0';
		return TK_EXIT_USAGE;
	}
	snprintf(in->path, sizeof(in->path), "%s/run.tkdb", in->dir);
	in->store = in->path;
	struct tk_import_options o;
	struct tk_writer_stats st;
	tk_import_options_init(&o);
	int rc = cli_import(in->path, &arg, 1, NULL, &o, &st);
	if (rc != TK_EXIT_OK)
		return rc;
	tk_error *err = tk_error_new();
	rc = tk_analyze(in->path, NULL, err);
	int code = rc == TK_OK ? TK_EXIT_OK : cli_fail_error(rc, err);
	tk_error_free(err);
	return code;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

void cli_run_input_close(struct cli_run_input *in)
{
	if (!in || !in->dir[0])
		return;
	nftw(in->dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	in->dir[0] = '\0';
}

void cli_import_files_free(struct cli_import_file *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++)
		free(f[i].path);
	free(f);
}

static int add_file(struct cli_import_file **f, size_t *n, size_t *cap, const char *path,
		    int json, int file_index)
{
	if (TKU_GROW(*f, *cap, *n + 1, 16) != TK_OK || !((*f)[*n].path = strdup(path))) {
		cli_error("out of memory");
		return TK_EXIT_INTERNAL;
	}
	(*f)[*n].json = json;
	(*f)[(*n)++].file_index = file_index;
	return TK_EXIT_OK;
}

int cli_import_files(const char *const *inputs, size_t n, const char *run_name,
		     struct cli_import_file **out, size_t *nout)
{
	struct cli_import_file *f = NULL;
	size_t nf = 0, cap = 0;
	int rc = TK_EXIT_OK;
	tk_error *err = tk_error_new();
	for (size_t i = 0; i < n && rc == TK_EXIT_OK; i++) {
		struct stat sb;
		enum tk_import_format fmt;
		struct tk_xplane_run *runs = NULL;
		int nruns = 0, e;
		if (stat(inputs[i], &sb) != 0 || !S_ISDIR(sb.st_mode)) {
			if ((e = tk_import_detect(inputs[i], &fmt, err)) != TK_OK)
				rc = cli_fail_error(e, err);
			else
				rc = add_file(&f, &nf, &cap, inputs[i], fmt == TK_FORMAT_CHROME_JSON,
					      (int)i);
			continue;
		}
		if ((e = tk_xplane_list_runs(inputs[i], &runs, &nruns, err)) != TK_OK) {
			rc = cli_fail_error(e, err);
			continue;
		}
		const struct tk_xplane_run *pick = pick_run(runs, nruns, run_name);
		if (!pick) {
			cli_error(NO_RUN_FMT, inputs[i], run_name, inputs[i]);
			rc = TK_EXIT_USAGE;
		}
		for (int k = 0; pick && k < pick->nfiles && rc == TK_EXIT_OK; k++)
			rc = add_file(&f, &nf, &cap, pick->files[k], 0, (int)i);
		tk_xplane_runs_free(runs, nruns);
	}
	tk_error_free(err);
	if (rc != TK_EXIT_OK) {
		cli_import_files_free(f, nf);
		f = NULL;
		nf = 0;
	}
	*out = f;
	*nout = nf;
	return rc;
}
