/* PLACEHOLDER, replaced by the Chrome/Kineto JSON importer work: refuses every file. */
#include <tracekit/error.h>
#include <tracekit/import.h>

int tk_import_chrome_json(tk_writer *w, const char *path, const struct tk_import_options *o)
{
	(void)o;
	return tk_writer_fail(w, TK_EFORMAT, "'%s': Chrome JSON import is not built yet", path);
}
