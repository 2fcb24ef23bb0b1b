/*
 * Decoding the report's JSON, schema "tbmesh.report/1", driven by the table
 * of report_json.c (report_fields.h) through json_table_decode.
 *
 * Decoding is strict about what it knows and lenient about what it does not.
 * A known key with the wrong type, a value out of range, a string that does
 * not fit its buffer or is empty ("" is not a value: unknown is null), an
 * array longer than its buffer: each is an error naming the field's path.
 * Unknown keys are ignored (keys may be added to the schema), a missing key
 * or section reads as null, a key given twice is refused.  Only "schema"
 * and "collected_at" must be present ("collected_at" may be null).
 *
 * cJSON parses the document into a tree (in the thread's json_arena, so
 * that its hundreds of allocations cost little); each object's members are
 * matched to its table in one pass over them, then decoded in table order.
 */
#include "report.h"
#include "report_fields.h"
#include "report_json.h"
#include "json_arena.h"
#include "json_dec.h"
#include "json_table.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* n, a count as decoded (-1: unknown), as a number of elements up to max. */
static size_t
used(int n, int max)
{
	return n < 0 ? 0 : (size_t)(n < max ? n : max);
}

/* Zero the bytes of r from offset a to offset b. */
#define ZERO_SPAN(r, a, b) memset((char *)(r) + (a), 0, (size_t)((b) - (a)))
#define END_OF(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))

/*
 * r as report_init leaves it, provided no array element past its count is
 * set (decoding sets only the elements it counts): the parts outside the
 * arrays, and the elements that were counted, are zeroed.
 */
static void
reinit(struct report *r)
{
	size_t np = used(r->thunderbolt.n_ports, REPORT_PORTS_MAX);
	size_t nm = used(r->thunderbolt.bridge.n_members, REPORT_MEMBERS_MAX);
	size_t nd = used(r->rdma.n_devices, REPORT_DEVICES_MAX);
	size_t ni = used(r->network.n_interfaces, REPORT_NETIFS_MAX);
	size_t nj = used(r->jobs.n_processes, REPORT_JOB_PROCS_MAX);
	size_t ne = used(r->n_errors, REPORT_ERRORS_MAX);

	ZERO_SPAN(r, 0, offsetof(struct report, thunderbolt.ports));
	memset(r->thunderbolt.ports, 0, np * sizeof(r->thunderbolt.ports[0]));
	ZERO_SPAN(r, END_OF(struct report, thunderbolt.ports),
	    offsetof(struct report, thunderbolt.bridge.members));
	memset(r->thunderbolt.bridge.members, 0, nm * sizeof(r->thunderbolt.bridge.members[0]));
	ZERO_SPAN(r, END_OF(struct report, thunderbolt.bridge.members),
	    offsetof(struct report, rdma.devices));
	memset(r->rdma.devices, 0, nd * sizeof(r->rdma.devices[0]));
	ZERO_SPAN(r, END_OF(struct report, rdma.devices),
	    offsetof(struct report, network.interfaces));
	memset(r->network.interfaces, 0, ni * sizeof(r->network.interfaces[0]));
	ZERO_SPAN(r, END_OF(struct report, network.interfaces),
	    offsetof(struct report, jobs.processes));
	memset(r->jobs.processes, 0, nj * sizeof(r->jobs.processes[0]));
	ZERO_SPAN(r, END_OF(struct report, jobs.processes), offsetof(struct report, errors));
	memset(r->errors, 0, ne * sizeof(r->errors[0]));
	ZERO_SPAN(r, END_OF(struct report, errors), sizeof(*r));
	report_init_fields(r);
}

/*
 * A section read after the report was put together is a clock gone wrong
 * or a forged report: refused, naming the section.
 */
static int
check_sections(const struct report *r, char *err, size_t errlen)
{
	for (int i = 0; i < REPORT_SECTIONS; i++) {
		double t = report_section_at(r, (enum report_section)i);

		if (isnan(t))
			continue;
		if (isnan(r->collected_at) || t > r->collected_at) {
			snprintf(err, errlen, "%s.collected_at: %.3f is later than the report's "
			    "collected_at", report_section_name((enum report_section)i), t);
			return -1;
		}
	}
	return 0;
}

static int
decode(const char *json, size_t len, struct report *out, int *unknown, char *err,
    size_t errlen)
{
	struct json_dec d;
	cJSON *root;
	int rc = -1;

	json_dec_init(&d, err, errlen);
	d.own_key_check = 1;    /* json_table_decode sees every object's keys */
	json_arena_begin();
	if (json_dec_parse(&d, json, len, REPORT_JSON_MAX, 1, &root) == 0)
		rc = json_table_decode(&d, root, NULL, out, report_fields);
	/* keys it does not know (a newer agent's) were not looked into */
	if (rc == 0 && d.unknown > 0)
		rc = json_dec_unique_keys(&d, root);
	if (rc == 0)
		rc = check_sections(out, err, errlen);
	if (!json_arena_holds_all())
		cJSON_Delete(root);
	json_arena_end();
	if (unknown != NULL)
		*unknown = d.unknown;
	return rc;
}

int
report_decode(const char *json, size_t len, struct report *out, char *err,
    size_t errlen)
{
	report_init(out);
	return decode(json, len, out, NULL, err, errlen);
}

int
report_decode_again(const char *json, size_t len, struct report *r, int *unknown, char *err,
    size_t errlen)
{
	reinit(r);
	if (decode(json, len, r, unknown, err, errlen) == 0)
		return 0;
	report_init(r);   /* a failure may have filled elements it did not count */
	return -1;
}
