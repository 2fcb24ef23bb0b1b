/*
 * The parsers of macOS tools' JSON (proto/macos_json.c): system_profiler
 * SPThunderboltDataType and SPHardwareDataType, and a macmon sample, each
 * on every input (they read len bytes: the copy is exact, so ASan sees a
 * read past the end).
 */
#include "fuzz.h"
#include "macos_json.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct report r;
	char err[256];
	char *json;
	int64_t mem = 0;

	json = fuzz_copy(data, size);
	if (json == NULL)
		return 0;
	report_init(&r);
	macos_parse_thunderbolt(json, size, &r.thunderbolt, err, sizeof(err));
	macos_parse_hardware(json, size, &r.node, &mem, err, sizeof(err));
	macos_parse_macmon(json, size, &r.power, &r.thermal, err, sizeof(err));
	free(json);
	return 0;
}
