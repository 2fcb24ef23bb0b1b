/*
 * What the controller and tbctl share of the wiring engine's interface
 * (controller/engine/wiring.h): the words of its enums, what the verdicts
 * mean (both from WIRING_VERDICTS), receptacle names, and freeing a result.
 * tbctl links proto/ only, and decodes results (wiring_json.c) into the
 * same structs.
 */
#include "wiring_types.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *word;
	const char *meaning;
} verdicts[WIRING_VERDICT_COUNT] = {
#define WIRING_VERDICT_ROW(name, word, meaning) [name] = {word, meaning},
	WIRING_VERDICTS(WIRING_VERDICT_ROW)
#undef WIRING_VERDICT_ROW
};

const char *
wiring_verdict_str(enum wiring_verdict v)
{
	return (unsigned)v < WIRING_VERDICT_COUNT ? verdicts[v].word : "unknown";
}

int
wiring_verdict_parse(const char *s, enum wiring_verdict *out)
{
	for (int v = 0; v < WIRING_VERDICT_COUNT; v++)
		if (strcmp(s, verdicts[v].word) == 0) {
			*out = (enum wiring_verdict)v;
			return 0;
		}
	return -1;
}

const char *
wiring_verdict_meaning(enum wiring_verdict v)
{
	return (unsigned)v < WIRING_VERDICT_COUNT ? verdicts[v].meaning : "";
}

size_t
wiring_verdict_help(char *buf, size_t len)
{
	int width = 0;
	size_t n = 0;

	if (len > 0)
		buf[0] = '\0';
	for (int v = 0; v < WIRING_VERDICT_COUNT; v++)
		if ((int)strlen(verdicts[v].word) > width)
			width = (int)strlen(verdicts[v].word);
	for (int v = 0; v < WIRING_VERDICT_COUNT; v++) {
		int k = snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, "  %-*s  %s\n",
		    width, verdicts[v].word, verdicts[v].meaning);

		if (k > 0)
			n += (size_t)k;
	}
	return n;
}

const char *
wiring_cluster_verdict_str(enum wiring_cluster_verdict v)
{
	switch (v) {
	case WIRING_TENSOR_READY: return "tensor-ready";
	case WIRING_RING_ONLY: return "ring-only";
	case WIRING_PIPELINE_ONLY: return "pipeline-only";
	default: return "unusable";
	}
}

int
wiring_cluster_verdict_parse(const char *s, enum wiring_cluster_verdict *out)
{
	for (int v = WIRING_TENSOR_READY; v <= WIRING_UNUSABLE; v++)
		if (strcmp(s, wiring_cluster_verdict_str((enum wiring_cluster_verdict)v)) == 0) {
			*out = (enum wiring_cluster_verdict)v;
			return 0;
		}
	return -1;
}

const char *
wiring_topology_str(enum wiring_topology t)
{
	switch (t) {
	case WIRING_TOPO_RING: return "ring";
	case WIRING_TOPO_PLAN: return "plan";
	default: return "mesh";
	}
}

int
wiring_topology_parse(const char *s, enum wiring_topology *out)
{
	static const enum wiring_topology all[] = {WIRING_TOPO_MESH, WIRING_TOPO_RING,
	    WIRING_TOPO_PLAN};

	for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++)
		if (strcmp(s, wiring_topology_str(all[k])) == 0) {
			*out = all[k];
			return 0;
		}
	return -1;
}

static int
prefix_ci(const char *s, const char *p)
{
	for (; *p; s++, p++)
		if (tolower((unsigned char)*s) != *p)
			return 0;
	return 1;
}

int
wiring_receptacle_norm(const char *in, char *out, size_t outlen)
{
	const char *s = in;
	size_t len;

	if (prefix_ci(s, "thunderbolt"))
		s += strlen("thunderbolt");
	else if (prefix_ci(s, "tb"))
		s += 2;
	while (*s == ' ')
		s++;
	len = strlen(s);
	if (len == 0 || len >= outlen)
		return -1;
	for (size_t k = 0; k < len; k++)
		if (!isalnum((unsigned char)s[k]) && s[k] != '-' && s[k] != '_')
			return -1;
	memcpy(out, s, len + 1);
	return 0;
}

void
wiring_result_free(struct wiring_result *r)
{
	if (r == NULL)
		return;
	free(r->reasons);
	free(r->nodes);
	free(r->links);
	free(r->unexpected);
	free(r);
}

