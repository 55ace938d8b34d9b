/* Fuzz target: the JSON importer with --salvage (keep complete events before a break). */
#define FZ_SALVAGE 1
#include "fuzz_json.c"
