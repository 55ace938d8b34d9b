/*
 * tk_import_files(): the one engine behind every multi-file import (`tracekit import`, later
 * `merge` and `--mpi`). The files are parsed in parallel, each by its unchanged importer against a
 * recording writer, and replayed into the store writer in input order (store/parallel.h), so the
 * store, the warnings and the first failure are those of importing the files one by one.
 */
#include <tracekit/error.h>
#include <tracekit/import.h>
#include <tracekit/store.h>

#include "store/parallel.h"
#include "util/cpus.h"

struct files {
	const struct tk_import_file *files;
	const struct tk_import_options *o;
};

/* Import file @i into @w (a recorder on a worker thread, or the store's writer). */
static int import_one(void *ctx, size_t i, tk_writer *w, tkw_warn_fn warn, void *warn_ctx)
{
	const struct files *fs = ctx;
	const struct tk_import_file *f = &fs->files[i];
	struct tk_import_options o = *fs->o;
	o.file_index = f->file_index;
	o.warn = warn;
	o.warn_ctx = warn_ctx;
	enum tk_import_format fmt = f->format;
	if (fmt == TK_FORMAT_UNKNOWN) {
		tk_error *err = tk_error_new();
		int rc = tk_import_detect(f->path, &fmt, err);
		if (rc != TK_OK)
			rc = err ? tk_writer_fail_error(w, err) : tk_writer_fail(w, rc, "%s", "");
		tk_error_free(err);
		if (rc != TK_OK)
			return rc;
	}
	return fmt == TK_FORMAT_XPLANE ? tk_import_xplane(w, f->path, &o)
				       : tk_import_chrome_json(w, f->path, &o);
}

int tk_import_jobs_default(void)
{
	return tku_cpu_count();
}

int tk_import_files(tk_writer *w, const struct tk_import_file *files, size_t n, int jobs,
		    const struct tk_import_options *o)
{
	struct tk_import_options none;
	if (!o) {
		tk_import_options_init(&none);
		o = &none;
	}
	if (!w)
		return TK_EINVAL;
	if (!files && n)
		return tk_writer_fail(w, TK_EINVAL, "no files to import");
	struct files fs = {files, o};
	return tkw_parallel(w, n, jobs > 0 ? jobs : tku_cpu_count(), import_one, &fs, o->warn,
			    o->warn_ctx);
}
