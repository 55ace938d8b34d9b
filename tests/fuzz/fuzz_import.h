/*
 * The import step shared by the importer targets (fuzz_xplane, fuzz_json, fuzz_json_salvage,
 * fuzz_logdir): one file into a fresh store on tmpfs, finished when the import succeeds, and the
 * status promise checked (TK_OK, or exit code 2 with a message naming the file).
 */
#ifndef TK_FUZZ_IMPORT_H
#define TK_FUZZ_IMPORT_H

#include <tracekit/import.h>

enum fz_import_kind { FZ_XPLANE, FZ_JSON, FZ_JSON_SALVAGE };

/* fz_import() - import @path as @kind into a store at fz_path("import.db"); returns the status. */
int fz_import(const char *path, enum fz_import_kind kind);

#endif
