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

/* Fail with the error @err of a call that returned @rc: its causes copied to @e. */
static int fail_with(tk_error *e, int rc, const tk_error *err)
{
	if (err && tk_error_cause_count(err))
		return tk_error_copy(e, err), rc;
	return tk_error_push_from(e, "cli", rc, "%s", "");
}

static int check_new_input(tk_error *e, struct inputs *in, const char *path, int json)
{
	if (TKU_GROW(in->ids, in->ids_cap, (size_t)in->n + 1, 8) != TK_OK ||
	    TKU_GROW(in->json, in->json_cap, (size_t)in->n + 1, 8) != TK_OK)
		return tk_error_push_from(e, "cli", TK_ENOMEM, "out of memory");
	struct tk_input_id *ids = in->ids;
	int *js = in->json;
	tk_error *err = tk_error_new();
	int rc = tk_import_input_id(path, &ids[in->n], err);
	if (rc != TK_OK)
		fail_with(e, rc, err);
	tk_error_free(err);
	if (rc != TK_OK)
		return rc;
	if (!(ids[in->n].path = strdup(path)))
		return tk_error_push_from(e, "cli", TK_ENOMEM, "out of memory");
	js[in->n] = json;
	for (int i = 0; i < in->n && rc == TK_OK; i++) {
		int same = tk_import_input_same(&ids[i], &ids[in->n], json && js[i]);
		if (same != TK_INPUT_DIFFERENT)
			rc = tk_error_push_from(
			    e, "cli", TK_EINVAL,
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

/* The files to import, in order (expand_inputs()): an input file as it is, a logdir as the host
 * files of its run, a rank directory as its JSON traces. */
struct plan {
	struct item {
		char *path;
		enum tk_import_format fmt;
		int file_index; /* position among the inputs (the rank a JSON file falls back on) */
		int peeked;	/* 1 once the JSON file's rank was read */
		int64_t rank;	/* the rank the file states (distributedInfo), or TK_NONE */
		int64_t gets;	/* the rank it gets (check_ranks()) */
	} * items;
	size_t n, cap;
};

static void plan_free(struct plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->items[i].path);
	free(p->items);
}

static int plan_add(tk_error *e, struct plan *p, const char *path, enum tk_import_format fmt,
		    int file_index, int64_t rank, int peeked)
{
	if (TKU_GROW(p->items, p->cap, p->n + 1, 16) != TK_OK)
		return tk_error_push_from(e, "cli", TK_ENOMEM, "out of memory");
	struct item *it = &p->items[p->n];
	if (!(it->path = strdup(path)))
		return tk_error_push_from(e, "cli", TK_ENOMEM, "out of memory");
	it->fmt = fmt;
	it->file_index = file_index;
	it->rank = rank;
	it->peeked = peeked;
	p->n++;
	return TK_OK;
}

/* A directory: every host file of one run of a logdir; else, every JSON trace under it, by rank
 * (tk_rank_dir_list()), each its own input (*file_index counts them). */
static int expand_dir(tk_error *e, const char *path, const char *run_name, int *file_index,
		      struct plan *p)
{
	struct tk_xplane_run *runs = NULL;
	struct tk_rank_file *files = NULL;
	int nruns = 0, nfiles = 0, rc;
	tk_error *err = tk_error_new();
	rc = tk_xplane_list_runs(path, &runs, &nruns, err);
	if (rc == TK_ENOTFOUND) {
		tk_error *rerr = tk_error_new();
		if ((rc = tk_rank_dir_list(path, 0, &files, &nfiles, rerr)) == TK_ENOTFOUND)
			rc = cli_neither_logdir_nor_ranks(path, err, rerr);
		if (rc != TK_OK)
			fail_with(e, rc, rerr);
		tk_error_free(rerr);
		for (int i = 0; i < nfiles && rc == TK_OK; i++)
			rc = plan_add(e, p, files[i].path, TK_FORMAT_CHROME_JSON, (*file_index)++,
				      files[i].rank, 1);
		goto out;
	}
	if (rc != TK_OK) {
		fail_with(e, rc, err);
		goto out;
	}
	const struct tk_xplane_run *pick = &runs[0];
	if (run_name) {
		pick = NULL;
		for (int i = 0; i < nruns && !pick; i++)
			if (!strcmp(runs[i].name, run_name))
				pick = &runs[i];
		if (!pick) {
			rc = tk_error_push_from(e, "cli", TK_ENOTFOUND,
						"'%s' has no run named '%s' (see 'tracekit ls %s')",
						path, run_name, path);
			goto out;
		}
	}
	for (int i = 0; i < pick->nfiles && rc == TK_OK; i++)
		rc = plan_add(e, p, pick->files[i], TK_FORMAT_XPLANE, *file_index, TK_NONE, 0);
	(*file_index)++;
out:
	tk_error_free(err);
	tk_xplane_runs_free(runs, nruns);
	tk_rank_files_free(files, nfiles);
	return rc;
}

int cli_neither_logdir_nor_ranks(const char *dir, const tk_error *xerr, tk_error *err)
{
	tk_error_copy(err, xerr);
	return tk_error_push_from(err, "cli", TK_ENOTFOUND,
				  "'%s' is neither a TensorBoard logdir nor a directory of "
				  "Chrome/Kineto JSON traces (*.json, *.json.gz)",
				  dir);
}

/* The inputs as the ordered list of files to import. */
static int expand_inputs(tk_error *e, const char *const *inputs, size_t n, const char *run_name,
			 struct plan *p)
{
	int rc = TK_OK, file_index = 0;
	tk_error *err = tk_error_new();
	for (size_t i = 0; i < n && rc == TK_OK; i++) {
		struct stat sb;
		enum tk_import_format fmt;
		if (stat(inputs[i], &sb) == 0 && S_ISDIR(sb.st_mode))
			rc = expand_dir(e, inputs[i], run_name, &file_index, p);
		else if ((rc = tk_import_detect(inputs[i], &fmt, err)) != TK_OK)
			fail_with(e, rc, err);
		else
			rc = plan_add(e, p, inputs[i], fmt, file_index++, TK_NONE, 0);
	}
	tk_error_free(err);
	return rc;
}

static int cmp_rank(const void *pa, const void *pb)
{
	const struct item *a = *(const struct item *const *)pa,
			  *b = *(const struct item *const *)pb;
	if (a->gets != b->gets)
		return a->gets < b->gets ? -1 : 1;
	return (a->file_index > b->file_index) - (a->file_index < b->file_index);
}

/* Two JSON files of one rank are refused, before any import: each rank is one trace. The ranks
 * files state are peeked (tk_rank_file_peek(); a file that cannot be peeked is left to the
 * importer, which says what is wrong with it). One JSON file is not peeked at all. */
static int check_ranks(tk_error *e, struct plan *p, const struct tk_import_options *o)
{
	struct item **json = NULL;
	size_t nj = 0;
	int rc = TK_OK;
	for (size_t i = 0; i < p->n; i++)
		nj += p->items[i].fmt == TK_FORMAT_CHROME_JSON;
	if (nj < 2)
		return TK_OK;
	if (!(json = calloc(nj, sizeof(*json))))
		return tk_error_push_from(e, "cli", TK_ENOMEM, "out of memory");
	nj = 0;
	for (size_t i = 0; i < p->n; i++) {
		struct item *it = &p->items[i];
		struct tk_rank_file f;
		if (it->fmt != TK_FORMAT_CHROME_JSON)
			continue;
		if (!it->peeked && tk_rank_file_peek(it->path, 0, &f, NULL) == TK_OK) {
			it->rank = f.rank;
			free(f.path);
			free(f.host);
		}
		it->peeked = 1;
		/* as tk_import_chrome_json(): its own, else --rank plus its position, else that */
		it->gets = it->rank != TK_NONE	? it->rank
			   : o->rank != TK_NONE ? o->rank + it->file_index
						: it->file_index;
		json[nj++] = it;
	}
	qsort(json, nj, sizeof(*json), cmp_rank);
	for (size_t i = 1; i < nj && rc == TK_OK; i++) {
		const struct item *a = json[i - 1], *b = json[i];
		if (a->gets == b->gets)
			rc = tk_error_push_from(
			    e, "cli", TK_EINVAL,
			    "'%s' (%s) and '%s' (%s) are both rank %lld: a job has one "
			    "trace per rank",
			    a->path, a->rank != TK_NONE ? "distributedInfo" : "file order", b->path,
			    b->rank != TK_NONE ? "distributedInfo" : "file order",
			    (long long)a->gets);
	}
	free(json);
	return rc;
}

/* The files of @inputs in import order, each given once, no two JSON traces of one rank; an
 * error on @e. */
static int make_plan(tk_error *e, const char *const *inputs, size_t n, const char *run_name,
		     const struct tk_import_options *o, struct plan *p)
{
	struct inputs seen = {0};
	int rc = expand_inputs(e, inputs, n, run_name, p);
	for (size_t i = 0; i < p->n && rc == TK_OK; i++) /* every file first: before any import */
		rc = check_new_input(e, &seen, p->items[i].path,
				     p->items[i].fmt == TK_FORMAT_CHROME_JSON);
	if (rc == TK_OK)
		rc = check_ranks(e, p, o);
	inputs_free(&seen);
	return rc;
}

/* The files of @p into @w, @jobs parsed at once (tk_import_files(): the store is the same). */
static int import_plan(tk_writer *w, const struct plan *p, const struct tk_import_options *o,
		       int jobs)
{
	struct tk_import_file *files = calloc(p->n ? p->n : 1, sizeof(*files));
	if (!files)
		return tk_writer_fail(w, TK_ENOMEM, "out of memory");
	for (size_t i = 0; i < p->n; i++)
		files[i] = (struct tk_import_file){p->items[i].path, p->items[i].fmt,
						   p->items[i].file_index};
	int rc = tk_import_files(w, files, p->n, jobs, o);
	free(files);
	return rc;
}

int cli_import(const char *output, const char *const *inputs, size_t n, const char *run_name,
	       struct tk_import_options *o, int jobs, struct tk_writer_stats *st)
{
	tk_writer *w = NULL;
	struct plan plan = {0};
	tk_error *err = tk_error_new();
	int rc = tk_writer_create(output, &w);
	if (!o->warn)
		o->warn = warn;
	cli_remove_on_signal(tk_writer_temp_path(w));
	if (rc == TK_OK && (rc = make_plan(err, inputs, n, run_name, o, &plan)) != TK_OK)
		tk_writer_fail_error(w, err);
	if (rc == TK_OK)
		rc = import_plan(w, &plan, o, jobs);
	plan_free(&plan);
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

void cli_import_files_free(struct cli_import_file *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++)
		free(f[i].path);
	free(f);
}

int cli_import_files(const char *const *inputs, size_t n, const char *run_name,
		     const struct tk_import_options *o, struct cli_import_file **out, size_t *nout)
{
	struct plan plan = {0};
	struct cli_import_file *f = NULL;
	tk_error *err = tk_error_new();
	int rc = make_plan(err, inputs, n, run_name, o, &plan), code = TK_EXIT_OK;
	if (rc == TK_OK && !(f = calloc(plan.n + 1, sizeof(*f))))
		rc = tk_error_push_from(err, "cli", TK_ENOMEM, "out of memory");
	for (size_t i = 0; i < plan.n && rc == TK_OK; i++) { /* the paths change hands */
		f[i] = (struct cli_import_file){plan.items[i].path,
						plan.items[i].fmt == TK_FORMAT_CHROME_JSON,
						plan.items[i].file_index};
		plan.items[i].path = NULL;
	}
	if (rc != TK_OK)
		code = cli_fail_error(rc, err);
	*out = f;
	*nout = rc == TK_OK ? plan.n : 0;
	plan_free(&plan);
	tk_error_free(err);
	return code;
}
