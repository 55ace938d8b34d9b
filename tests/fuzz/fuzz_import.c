/* One input file into a fresh store on tmpfs through an importer, with the status promise checked. */
#include "fuzz_import.h"

#include <string.h>
#include <tracekit/error.h>
#include <tracekit/import.h>
#include <tracekit/store.h>
#include <unistd.h>

#include "fuzz_util.h"

static void ignore_warning(void *ctx, const char *message)
{
	(void)ctx, (void)message;
}

int fz_import(const char *path, enum fz_import_kind kind)
{
	const char *store = fz_path("import.db");
	struct tk_import_options o;
	tk_writer *w = NULL;
	int rc;
	tk_import_options_init(&o);
	o.warn = ignore_warning;
	o.salvage = kind == FZ_JSON_SALVAGE;
	rc = tk_writer_create(store, &w);
	fz_check(rc == TK_OK, "cannot create a store", tk_writer_errmsg(w));
	rc = kind == FZ_XPLANE ? tk_import_xplane(w, path, &o) : tk_import_chrome_json(w, path, &o);
	if (rc != TK_OK) {
		fz_status(rc, tk_writer_errmsg(w), "import");
		fz_check(strstr(tk_writer_errmsg(w), path) != NULL, "the message names the file",
			 tk_writer_errmsg(w));
		tk_writer_abort(w);
	} else {
		rc = tk_writer_finish(w, fz_err());
		fz_status(rc, fz_errmsg(), "finish after a successful import");
	}
	unlink(store);
	fz_sqlite_check("an import");
	return rc;
}
