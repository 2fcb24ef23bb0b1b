/*
 * The API's enums as strings, and the rule for node and cluster names.
 */
#include "api.h"

#include <string.h>

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Indexed by value. */
static const char *const node_state_names[] = { "pending", "ready",
    "cordoned", "draining", "updating", "unreachable", "down" };
static const char *const role_names[] = { "admin", "viewer", "bootstrap",
    "node" };

_Static_assert(NELEM(node_state_names) == NODE_STATE_COUNT,
    "one name per node state");
_Static_assert(NELEM(role_names) == ROLE_COUNT, "one name per role");

/* The index of s in names[n], or -1. */
static int
name_index(const char *const *names, int n, const char *s)
{
	int i;

	if (s == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

/* A value out of range is "unknown", which no parser accepts. */
const char *
api_node_state_str(enum node_state s)
{
	if ((int)s < 0 || (int)s >= NODE_STATE_COUNT)
		return "unknown";
	return node_state_names[s];
}

/* 0 and *out set, or -1 when s (may be NULL) names no state. */
int
api_node_state_parse(const char *s, enum node_state *out)
{
	int i = name_index(node_state_names, NODE_STATE_COUNT, s);

	if (i < 0)
		return -1;
	*out = (enum node_state)i;
	return 0;
}

const char *
api_role_str(enum token_role r)
{
	if ((int)r < 0 || (int)r >= ROLE_COUNT)
		return "unknown";
	return role_names[r];
}

int
api_role_parse(const char *s, enum token_role *out)
{
	int i = name_index(role_names, ROLE_COUNT, s);

	if (i < 0)
		return -1;
	*out = (enum token_role)i;
	return 0;
}

static int
name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/* 1 when s (may be NULL) is a valid name, else 0. */
int
api_name_valid(const char *s)
{
	size_t i;

	if (s == NULL || s[0] == '\0' || s[0] == '.' || s[0] == '-')
		return 0;
	for (i = 0; s[i] != '\0'; i++)
		if (i >= API_NAME_MAX || !name_char(s[i]))
			return 0;
	return 1;
}
