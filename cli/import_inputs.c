/*
 * Importing inputs into a store, shared by the commands: `import` (cli/cmd_import.c), and
 * `baseline` and `check`, which take a store, a trace file or a logdir per run and import the
 * latter on the fly into a temporary store (cli_run_input_open).
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

/* The ordered list of files an import reads: the inputs, each directory replaced by its files. */
struct file_list {
	struct tk_import_file *files;
	int *from_dir; /* 1 for a file of a directory: checked for duplicates after the others */
	size_t n, cap, dir_cap;
	struct tk_xplane_run **runs; /* the listings the paths of directory files point into */
	int *nruns;
	size_t nlist, list_cap, nruns_cap;
};

static void file_list_free(struct file_list *l)
{
	for (size_t i = 0; i < l->nlist; i++)
		tk_xplane_runs_free(l->runs[i], l->nruns[i]);
	free(l->runs);
	free(l->nruns);
	free(l->files);
	free(l->from_dir);
}

static int file_list_add(tk_writer *w, struct file_list *l, const char *path,
			 enum tk_import_format fmt, int file_index, int from_dir)
{
	if (TKU_GROW(l->files, l->cap, l->n + 1, 16) != TK_OK ||
	    TKU_GROW(l->from_dir, l->dir_cap, l->n + 1, 16) != TK_OK)
		return tk_writer_fail(w, TK_ENOMEM, "out of memory");
	l->files[l->n] = (struct tk_import_file){path, fmt, file_index};
	l->from_dir[l->n++] = from_dir;
	return TK_OK;
}

/* Append the host files of one run of the directory @path (the newest, or @run_name). */
static int expand_dir(tk_writer *w, const char *path, const char *run_name, int file_index,
		      struct file_list *l)
{
	struct tk_xplane_run *runs = NULL;
	int nruns = 0, rc;
	tk_error *err = tk_error_new();
	if (TKU_GROW(l->runs, l->list_cap, l->nlist + 1, 4) != TK_OK ||
	    TKU_GROW(l->nruns, l->nruns_cap, l->nlist + 1, 4) != TK_OK) {
		rc = tk_writer_fail(w, TK_ENOMEM, "out of memory");
		goto out;
	}
	rc = tk_xplane_list_runs(path, &runs, &nruns, err);
	l->runs[l->nlist] = runs;
	l->nruns[l->nlist++] = nruns;
	if (rc != TK_OK) {
		fail_with(w, rc, err);
		goto out;
	}
	const struct tk_xplane_run *pick = &runs[0];
	if (run_name) {
		pick = NULL;
		for (int i = 0; i < nruns && !pick; i++)
			if (!strcmp(runs[i].name, run_name))
				pick = &runs[i];
		if (!pick) {
			rc = tk_writer_fail(w, TK_ENOTFOUND,
					    "'%s' has no run named '%s' (see 'tracekit ls %s')",
					    path, run_name, path);
			goto out;
		}
	}
	for (int i = 0; i < pick->nfiles && rc == TK_OK; i++)
		rc = file_list_add(w, l, pick->files[i], TK_FORMAT_XPLANE, file_index, 1);
out:
	tk_error_free(err);
	return rc;
}

/*
 * The inputs as the ordered list of files to import: a file as it is (its format told by content),
 * a directory as the host files of its run. Then the check that no file comes twice: the files
 * given first, then those of the directories.
 */
static int expand_inputs(tk_writer *w, const char *const *inputs, size_t n, const char *run_name,
			 struct file_list *l)
{
	struct inputs seen = {0};
	tk_error *err = tk_error_new();
	int rc = TK_OK;
	for (size_t i = 0; i < n && rc == TK_OK; i++) {
		struct stat sb;
		enum tk_import_format fmt;
		if (stat(inputs[i], &sb) == 0 && S_ISDIR(sb.st_mode))
			rc = expand_dir(w, inputs[i], run_name, (int)i, l);
		else if ((rc = tk_import_detect(inputs[i], &fmt, err)) != TK_OK)
			fail_with(w, rc, err);
		else
			rc = file_list_add(w, l, inputs[i], fmt, (int)i, 0);
	}
	for (int dir = 0; dir < 2; dir++)
		for (size_t i = 0; i < l->n && rc == TK_OK; i++)
			if (l->from_dir[i] == dir)
				rc = check_new_input(w, &seen, l->files[i].path,
						     l->files[i].format == TK_FORMAT_CHROME_JSON);
	inputs_free(&seen);
	tk_error_free(err);
	return rc;
}

int cli_import(const char *output, const char *const *inputs, size_t n, const char *run_name,
	       struct tk_import_options *o, int jobs, struct tk_writer_stats *st)
{
	tk_writer *w = NULL;
	struct file_list files = {0};
	int rc = tk_writer_create(output, &w);
	if (!o->warn)
		o->warn = warn;
	cli_remove_on_signal(tk_writer_temp_path(w));
	if (rc == TK_OK && (rc = expand_inputs(w, inputs, n, run_name, &files)) == TK_OK)
		rc = tk_import_files(w, files.files, files.n, jobs, o);
	file_list_free(&files);
	if (rc != TK_OK)
		return cli_fail_writer(rc, w);
	tk_writer_get_stats(w, st);
	tk_error *err = tk_error_new();
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
	int rc = cli_import(in->path, &arg, 1, NULL, &o, 0, &st);
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
