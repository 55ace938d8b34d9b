/*
 * Fuzz target: bytes as a Chrome/Kineto JSON file (plain or gzip, told by content) -> the JSON
 * importer (strict; fuzz_json_salvage.c builds this file with FZ_SALVAGE for --salvage) -> a
 * finished store on tmpfs.
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_import.h"
#include "fuzz_util.h"

#ifndef FZ_SALVAGE
#define FZ_SALVAGE 0
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_path("trace.json");
	fz_write(path, data, size);
	fz_import(path, FZ_SALVAGE ? FZ_JSON_SALVAGE : FZ_JSON);
	return 0;
}
