/*
 * A scenario node's "lan" (scenario.h): the non-Thunderbolt interfaces its
 * reports carry in network.interfaces, one entry or a list, each with its
 * interface (not a Thunderbolt one, not twice), kind, hardware port and
 * IPv4 addresses.
 */
#include "scenario_int.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char *const lan_keys[] = { "interface", "kind", "port", "ipv4", NULL };

/* One address of a "lan" entry, appended to l. */
static int
lan_addr(struct parse *p, const cJSON *e, const char *where, struct scenario_lan *l)
{
	struct in_addr a;

	if (!cJSON_IsString(e) || strlen(e->valuestring) >= sizeof(l->ipv4[0]) ||
	    inet_pton(AF_INET, e->valuestring, &a) != 1)
		return scenario_fail(p, "%s: must be an IPv4 address like \"192.0.2.11\"", where);
	REPORT_SET(l->ipv4[l->n_ipv4++], e->valuestring);
	return 0;
}

/* "ipv4" of a "lan" entry: an address or a list of at most 8. */
static int
parse_lan_ipv4(struct parse *p, const cJSON *it, const char *where, struct scenario_lan *l)
{
	const cJSON *e;
	char ew[128];
	int k = 0;

	if (cJSON_IsString(it))
		return lan_addr(p, it, where, l);
	if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) > REPORT_IPV4_MAX)
		return scenario_fail(p, "%s: must be an IPv4 address or an array of at most %d", where,
		    REPORT_IPV4_MAX);
	cJSON_ArrayForEach(e, it) {
		snprintf(ew, sizeof(ew), "%s[%d]", where, k++);
		if (lan_addr(p, e, ew, l) == -1)
			return -1;
	}
	return 0;
}

/* "kind" of a "lan" entry (absent: ethernet) and the port that goes with it. */
static int
parse_lan_kind(struct parse *p, const cJSON *it, const char *where, struct scenario_lan *l)
{
	static const struct {
		enum netif_kind kind;
		const char *port;
	} kinds[] = {
		{ NETIF_KIND_ETHERNET, "Ethernet" },
		{ NETIF_KIND_WIFI, "Wi-Fi" },
		{ NETIF_KIND_OTHER, "" },
	};

	for (size_t k = 0; k < NELEM(kinds); k++) {
		if (it == NULL ? k == 0 : cJSON_IsString(it) &&
		    strcmp(it->valuestring, report_netif_kind_str(kinds[k].kind)) == 0) {
			l->kind = kinds[k].kind;
			REPORT_SET(l->port, kinds[k].port);
			return 0;
		}
	}
	return scenario_fail(p, "%s: must be \"ethernet\", \"wifi\" or \"other\"", where);
}

/* The interface of a "lan" entry: a name, not Thunderbolt, not used twice. */
static int
parse_lan_interface(struct parse *p, const cJSON *obj, const char *where,
    struct scenario_node *n, struct scenario_lan *l)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, "interface");
	char ew[96];

	snprintf(ew, sizeof(ew), "%s.interface", where);
	if (it == NULL)
		return scenario_fail(p, "%s: missing", ew);
	if (scenario_get_str(p, it, ew, l->interface, sizeof(l->interface)) == -1)
		return -1;
	if (!scenario_is_ifname(l->interface))
		return scenario_fail(p, "%s: \"%s\" is not an interface name like \"en0\"", ew,
		    l->interface);
	for (int r = 0; r < n->receptacles; r++)
		if (strcmp(n->ports[r].interface, l->interface) == 0)
			return scenario_fail(p, "%s: \"%s\" is receptacle %d's Thunderbolt interface", ew,
			    l->interface, r + 1);
	for (int k = 0; k < n->n_lan; k++)
		if (strcmp(n->lan[k].interface, l->interface) == 0)
			return scenario_fail(p, "%s: \"%s\" is used twice", ew, l->interface);
	return 0;
}

static int
parse_lan_entry(struct parse *p, const cJSON *obj, const char *where, struct scenario_node *n)
{
	struct scenario_lan *l = &n->lan[n->n_lan];
	const cJSON *it;
	char ew[96];

	memset(l, 0, sizeof(*l));
	if (scenario_check_keys(p, obj, where, lan_keys) == -1 ||
	    parse_lan_interface(p, obj, where, n, l) == -1)
		return -1;
	snprintf(ew, sizeof(ew), "%s.kind", where);
	if (parse_lan_kind(p, cJSON_GetObjectItemCaseSensitive(obj, "kind"), ew, l) == -1)
		return -1;
	snprintf(ew, sizeof(ew), "%s.port", where);
	if ((it = cJSON_GetObjectItemCaseSensitive(obj, "port")) != NULL &&
	    scenario_get_str(p, it, ew, l->port, sizeof(l->port)) == -1)
		return -1;
	snprintf(ew, sizeof(ew), "%s.ipv4", where);
	if ((it = cJSON_GetObjectItemCaseSensitive(obj, "ipv4")) != NULL &&
	    parse_lan_ipv4(p, it, ew, l) == -1)
		return -1;
	n->n_lan++;
	return 0;
}

int
scenario_parse_lan(struct parse *p, const cJSON *obj, int i, struct scenario_node *n)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, "lan"), *e;
	char where[64];
	int k = 0;

	n->n_lan = -1;
	if (it == NULL)
		return 0;
	n->n_lan = 0;
	snprintf(where, sizeof(where), "nodes[%d].lan", i);
	if (cJSON_IsObject(it))
		return parse_lan_entry(p, it, where, n);
	if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) > REPORT_NETIFS_MAX)
		return scenario_fail(p, "%s: must be an object or an array of at most %d", where,
		    REPORT_NETIFS_MAX);
	cJSON_ArrayForEach(e, it) {
		snprintf(where, sizeof(where), "nodes[%d].lan[%d]", i, k++);
		if (parse_lan_entry(p, e, where, n) == -1)
			return -1;
	}
	return 0;
}
