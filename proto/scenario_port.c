/*
 * A scenario's "ports" entries (scenario.h has the format): per-port faults
 * and addresses, each entry checked against the cables already plugged.
 */
#include "scenario.h"
#include "scenario_int.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

static const char *const port_keys[] = { "port", "ipv4", "port_down", "reports_empty", "hub",
	"ipv4_gid", NULL };

/* "ipv4": true (the default), false (none) or a list of addresses. */
static int
parse_port_ipv4(struct parse *p, const cJSON *it, const char *where, struct scenario_port *pt)
{
	const cJSON *e;
	struct in_addr a;
	int k = 0;

	if (cJSON_IsBool(it)) {
		pt->n_ipv4 = cJSON_IsTrue(it) ? -1 : 0;
		return 0;
	}
	if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) > REPORT_IPV4_MAX)
		return scenario_fail(p, "%s: must be true, false or an array of at most %d IPv4 addresses",
		    where, REPORT_IPV4_MAX);
	cJSON_ArrayForEach(e, it) {
		if (!cJSON_IsString(e) || strlen(e->valuestring) >= sizeof(pt->ipv4[k]) ||
		    inet_pton(AF_INET, e->valuestring, &a) != 1)
			return scenario_fail(p, "%s[%d]: must be an IPv4 address like \"169.254.10.2\"", where,
			    k);
		REPORT_SET(pt->ipv4[k], e->valuestring);
		k++;
	}
	pt->n_ipv4 = k;
	return 0;
}

/* A fault flag of a ports[] entry (absent: 0); it needs a cable. */
static int
port_flag(struct parse *p, const cJSON *obj, const char *key, const char *where, int node,
    int r, int *out)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (it == NULL)
		return 0;
	if (!cJSON_IsBool(it))
		return scenario_fail(p, "%s.%s: must be true or false", where, key);
	*out = cJSON_IsTrue(it);
	if (*out && p->s->nodes[node].ports[r - 1].cable < 0)
		return scenario_fail(p, "%s.%s: %s receptacle %d has no cable", where, key,
		    p->s->nodes[node].name, r);
	return 0;
}

/* "hub": the dock or hub the cable goes through at this end (absent: none);
 * it needs a cable. */
static int
port_hub(struct parse *p, const cJSON *obj, const char *where, int node, int r,
    struct scenario_port *pt)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, "hub");

	if (it == NULL)
		return 0;
	if (!cJSON_IsString(it) || it->valuestring[0] == '\0' ||
	    strlen(it->valuestring) > SCENARIO_STR_MAX)
		return scenario_fail(p, "%s.hub: must be a name of 1 to %d characters", where,
		    SCENARIO_STR_MAX);
	if (pt->cable < 0)
		return scenario_fail(p, "%s.hub: %s receptacle %d has no cable", where,
		    p->s->nodes[node].name, r);
	snprintf(pt->hub, sizeof(pt->hub), "%s", it->valuestring);
	return 0;
}

/* A ports[] entry: {"port": "mac3:4", "ipv4": ..., "port_down": ...}. */
int
scenario_parse_port(struct parse *p, const cJSON *obj, int i)
{
	const cJSON *it;
	char where[32], ew[48];
	int node, r;

	snprintf(where, sizeof(where), "ports[%d]", i);
	snprintf(ew, sizeof(ew), "%s.port", where);
	if (scenario_check_keys(p, obj, where, port_keys) == -1 ||
	    scenario_parse_endpoint(p, cJSON_GetObjectItemCaseSensitive(obj, "port"), ew, &node,
	    &r) == -1)
		return -1;
	struct scenario_port *pt = &p->s->nodes[node].ports[r - 1];
	if (p->port_seen[node][r - 1]++)
		return scenario_fail(p, "%s: %s receptacle %d is listed twice in ports", where,
		    p->s->nodes[node].name, r);
	snprintf(ew, sizeof(ew), "%s.ipv4", where);
	it = cJSON_GetObjectItemCaseSensitive(obj, "ipv4");
	if (it != NULL && parse_port_ipv4(p, it, ew, pt) == -1)
		return -1;
	if (port_flag(p, obj, "port_down", where, node, r, &pt->port_down) == -1)
		return -1;
	if (port_flag(p, obj, "reports_empty", where, node, r, &pt->reports_empty) == -1)
		return -1;
	if ((it = cJSON_GetObjectItemCaseSensitive(obj, "ipv4_gid")) != NULL) {
		if (!cJSON_IsBool(it))
			return scenario_fail(p, "%s.ipv4_gid: must be true or false", where);
		pt->no_gid = cJSON_IsFalse(it);
	}
	return port_hub(p, obj, where, node, r, pt);
}
