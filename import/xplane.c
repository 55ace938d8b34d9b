/* PLACEHOLDER, replaced by the XPlane importer work: refuses every file. */
#include <stdlib.h>
#include <tracekit/error.h>
#include <tracekit/import.h>

#include "store_internal.h"

int tk_import_xplane(tk_writer *w, const char *path, const struct tk_import_options *o)
{
	(void)o;
	return tk_writer_fail(w, TK_EFORMAT, "'%s': XPlane import is not built yet", path);
}

int tk_xplane_list_runs(const char *path, struct tk_xplane_run **runs, int *nruns, char *err,
			size_t errlen)
{
	*runs = NULL;
	*nruns = 0;
	tk_fmt(err, errlen, "'%s': logdirs are not supported yet", path);
	return TK_ENOTFOUND;
}

void tk_xplane_runs_free(struct tk_xplane_run *runs, int nruns)
{
	(void)nruns;
	free(runs);
}
