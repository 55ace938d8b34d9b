/* Fuzz target: bytes as an .xplane.pb file -> the XPlane importer -> a finished store on tmpfs. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_import.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_path("host.xplane.pb");
	fz_write(path, data, size);
	fz_import(path, FZ_XPLANE);
	return 0;
}
