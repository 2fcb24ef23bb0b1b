/*
 * The report codec (proto/report_json*.c): report_decode() on any input;
 * when it accepts, report_encode() of what it decoded must decode again
 * (through report_decode_again(), into a report kept from one input to the
 * next, as the controller's ingest threads do) and encode to the same text.
 */
#include "fuzz.h"
#include "report.h"

static struct report *first, *again;

static void
check_round_trip(const struct report *r)
{
	char err[256];
	char *e1, *e2;

	e1 = report_encode(r, 0);
	FUZZ_CHECK(e1 != NULL, "report_encode failed");
	err[0] = '\0';
	FUZZ_CHECK(report_decode_again(e1, strlen(e1), again, NULL, err, sizeof(err)) == 0,
	    "its own encoding does not decode: %s\n%s", err, e1);
	e2 = report_encode(again, 0);
	FUZZ_CHECK(e2 != NULL, "report_encode failed");
	FUZZ_CHECK(strcmp(e1, e2) == 0, "the round trip changed the report:\n%s\n%s", e1, e2);
	free(e1);
	free(e2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	char *json;

	if (first == NULL) {
		first = calloc(1, sizeof(*first));
		again = calloc(1, sizeof(*again));
		if (first == NULL || again == NULL)
			abort();
		report_init(again);
	}
	json = fuzz_copy(data, size);
	if (json == NULL)
		return 0;
	if (report_decode(json, size, first, err, sizeof(err)) == 0)
		check_round_trip(first);
	free(json);
	return 0;
}
