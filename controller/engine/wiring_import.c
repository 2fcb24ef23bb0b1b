/*
 * A DOT file imported as a cluster's cabling plan, in tbmesh's form
 * ("mac1":"tb2" -- "mac2":"tb5", read as it is) or in the form
 * `mlx.distributed_config --dot` prints (ml-explore/mlx,
 * python/mlx/_distributed_utils/config.py, tb_connectivity_to_dot()):
 *
 *   graph G {
 *     node [shape=rectangle];
 *     a [label="mac1.local"];
 *     b [label="mac2.local"];
 *     a -- b [label="en2/en5"]
 *   }
 *
 * Its ids (a, b, ..., z, ab, bb, ...) are MLX's ranks, its node labels the
 * hosts as given to --hosts, its edge labels the Thunderbolt interfaces at
 * the two ends, the first id's first.  Here they meet the cluster: a label
 * becomes the node it names, an interface the receptacle whose port
 * reports it.  What does not resolve is refused with its line; nothing is
 * guessed.  (A label that names no node on an id that is a node's name,
 * `mac1 [label="Mac Studio 1"]` in a hand-written file, is a caption.)
 */
#include "wiring_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct import {
	const struct wiring_dot_cluster *c;
	struct wiring_dot_read *d;
	char *err;
	size_t errlen;
};

/* Does link k name its ends by interface (and by nothing else)? */
static int
by_iface(const struct wiring_dot_read *d, int k)
{
	return d->ifaces[k][0][0] && d->links[k].a.receptacle[0] == '\0' &&
	    d->links[k].b.receptacle[0] == '\0';
}

static int
needs_nodes(const struct wiring_dot_read *d)
{
	if (d->n_labels > 0)
		return 1;
	for (int k = 0; k < d->n_links; k++)
		if (by_iface(d, k))
			return 1;
	return 0;
}

static int
node_index(const struct wiring_dot_cluster *c, const char *name)
{
	for (int i = 0; i < c->n_nodes; i++)
		if (strcmp(c->nodes[i].name, name) == 0)
			return i;
	return -1;
}

/* The length of a host name without a trailing ".local". */
static size_t
host_len(const char *s)
{
	size_t n = strlen(s);

	return n > 6 && strcasecmp(s + n - 6, ".local") == 0 ? n - 6 : n;
}

/* Host names are equal ignoring case, with or without ".local". */
static int
host_eq(const char *x, const char *y)
{
	size_t n = host_len(x);

	return x[0] && n == host_len(y) && strncasecmp(x, y, n) == 0;
}

/* Rule 0: the node's name; 1: its reported hostname; 2: its SSH host. */
static int
names(const struct wiring_node *n, int rule, const char *host)
{
	if (rule == 0)
		return strcmp(n->name, host) == 0;
	return host_eq(rule == 1 ? n->hostname : n->ssh_host, host);
}

static int
label_fail(struct import *im, const struct wiring_dot_label *l, const char *what)
{
	snprintf(im->err, im->errlen, "line %d: %s [label=\"%s\"]: %s", l->line, l->id, l->label,
	    what);
	return -1;
}

/* No node: say so, and which node could not be asked (no report). */
static int
no_node(struct import *im, const struct wiring_dot_label *l, const char *host)
{
	char what[400];

	snprintf(what, sizeof(what), "no node of %s is %s", im->c->name, host);
	for (int i = 0; i < im->c->n_nodes; i++)
		if (im->c->nodes[i].freshness == WIRING_REPORT_NONE) {
			text_append(what, sizeof(what), " (%s has not reported its hostname yet)",
			    im->c->nodes[i].name);
			break;
		}
	return label_fail(im, l, what);
}

/* The node label l names: its index, or -1 with err set. */
static int
label_node(struct import *im, const struct wiring_dot_label *l)
{
	const char *at = strrchr(l->label, '@'), *host = at ? at + 1 : l->label;
	char what[400];
	int found;

	for (int rule = 0; rule < 3; rule++) {
		int count = 0;

		found = -1;
		snprintf(what, sizeof(what), "%s names more than one node of %s:", host,
		    im->c->name);
		for (int i = 0; i < im->c->n_nodes; i++)
			if (names(&im->c->nodes[i], rule, host)) {
				text_append(what, sizeof(what), "%s %s", count ? "," : "",
				    im->c->nodes[i].name);
				found = i;
				count++;
			}
		if (count == 1)
			return found;
		if (count > 1)
			return label_fail(im, l, what);
	}
	/* `mac1 [label="Mac Studio 1"]`: the id is the name, the label a caption */
	if ((found = node_index(im->c, l->id)) >= 0)
		return found;
	return no_node(im, l, host);
}

/* Every labelled id to its node; the ends of the links renamed. */
static int
resolve_labels(struct import *im)
{
	struct wiring_dot_read *d = im->d;
	int *node_of = calloc((size_t)d->n_labels + 1, sizeof(*node_of));
	char what[400];

	if (node_of == NULL) {
		snprintf(im->err, im->errlen, "out of memory");
		return -1;
	}
	for (int k = 0; k < d->n_labels; k++) {
		if ((node_of[k] = label_node(im, &d->labels[k])) < 0)
			goto fail;
		for (int j = 0; j < k; j++)
			if (node_of[j] == node_of[k]) {
				snprintf(what, sizeof(what), "%s is already %s (line %d)",
				    im->c->nodes[node_of[k]].name, d->labels[j].id, d->labels[j].line);
				label_fail(im, &d->labels[k], what);
				goto fail;
			}
	}
	for (int k = 0; k < d->n_links; k++)
		for (int j = 0; j < d->n_labels; j++) {
			struct wiring_end *e[2] = {&d->links[k].a, &d->links[k].b};
			const char *name = im->c->nodes[node_of[j]].name;

			for (int s = 0; s < 2; s++)
				if (strcmp(e[s]->node, d->labels[j].id) == 0)
					wiring_scopy(e[s]->node, sizeof(e[s]->node), name);
		}
	free(node_of);
	return 0;
fail:
	free(node_of);
	return -1;
}

/* "en2, en3, en4" (the interfaces node n's ports report) or "none". */
static void
iface_list(const struct wiring_node *n, char *out, size_t len)
{
	out[0] = '\0';
	for (int p = 0; p < n->n_ports && p < WIRING_PORTS_MAX; p++)
		if (n->ports[p].interface[0])
			text_append(out, len, "%s%s", out[0] ? ", " : "", n->ports[p].interface);
	if (out[0] == '\0')
		wiring_scopy(out, len, "none");
}

/* The receptacle of node's port with interface ifname into e; -1 with err. */
static int
iface_end(struct import *im, int line, const char *ifname, struct wiring_end *e)
{
	int i = node_index(im->c, e->node);
	const struct wiring_node *n = i >= 0 ? &im->c->nodes[i] : NULL;
	char have[256];

	if (n == NULL) {
		snprintf(im->err, im->errlen, "line %d: %s is not a node of %s, so its interface "
		    "%s names no receptacle", line, e->node, im->c->name, ifname);
		return -1;
	}
	if (n->freshness == WIRING_REPORT_NONE || n->n_ports < 0) {
		snprintf(im->err, im->errlen, "line %d: %s has not reported %s, so its Thunderbolt "
		    "interfaces are unknown (import the file again once it has)", line, n->name,
		    n->freshness == WIRING_REPORT_NONE ? "yet" : "its Thunderbolt ports");
		return -1;
	}
	for (int p = 0; p < n->n_ports && p < WIRING_PORTS_MAX; p++)
		if (strcmp(n->ports[p].interface, ifname) == 0 && n->ports[p].receptacle[0]) {
			wiring_scopy(e->receptacle, sizeof(e->receptacle), n->ports[p].receptacle);
			return 0;
		}
	iface_list(n, have, sizeof(have));
	snprintf(im->err, im->errlen, "line %d: %s is not a Thunderbolt interface of %s (it "
	    "reports %s)", line, ifname, n->name, have);
	return -1;
}

/* The line that names link k's receptacles (its label's, for interfaces). */
static int
ports_line(const struct wiring_dot_read *d, int k)
{
	return d->ifaces[k][0][0] ? d->iface_lines[k] : d->lines[k];
}

/* The text of end s of link k for an error: "mac1 tb2 (en3)". */
static void
end_text(const struct wiring_dot_read *d, int k, int s, char *out, size_t len)
{
	const struct wiring_end *e = s == 0 ? &d->links[k].a : &d->links[k].b;

	snprintf(out, len, "%s tb%s", e->node, e->receptacle);
	if (d->ifaces[k][0][0])
		text_append(out, len, " (%s)", d->ifaces[k][s]);
}

/* After resolving: no link from a node to itself, no receptacle twice. */
static int
check_links(struct import *im)
{
	const struct wiring_dot_read *d = im->d;
	char what[160];

	for (int k = 0; k < d->n_links; k++) {
		const struct wiring_end *e[2] = {&d->links[k].a, &d->links[k].b};

		if (strcmp(e[0]->node, e[1]->node) == 0) {
			snprintf(im->err, im->errlen, "line %d: a link from %s to itself",
			    d->lines[k], e[0]->node);
			return -1;
		}
		for (int j = 0; j < k; j++)
			for (int s = 0; s < 2; s++) {
				const struct wiring_end *o[2] = {&d->links[j].a, &d->links[j].b};

				if (!e[s]->receptacle[0])
					continue;
				for (int t = 0; t < 2; t++)
					if (strcmp(e[s]->node, o[t]->node) == 0 &&
					    strcmp(e[s]->receptacle, o[t]->receptacle) == 0) {
						end_text(d, k, s, what, sizeof(what));
						snprintf(im->err, im->errlen, "line %d: %s is used twice "
						    "(also on line %d)", ports_line(d, k), what,
						    ports_line(d, j));
						return -1;
					}
			}
	}
	return 0;
}

static int
resolve(struct wiring_dot_read *d, const struct wiring_dot_cluster *c, char *err,
    size_t errlen)
{
	struct import im = { c, d, err, errlen };

	/* from here on, a link has interfaces when they name its receptacles */
	for (int k = 0; k < d->n_links; k++)
		if (!by_iface(d, k))
			d->ifaces[k][0][0] = d->ifaces[k][1][0] = '\0';
	if (resolve_labels(&im) < 0)
		return -1;
	for (int k = 0; k < d->n_links; k++) {
		if (!d->ifaces[k][0][0])
			continue;
		if (iface_end(&im, d->iface_lines[k], d->ifaces[k][0], &d->links[k].a) < 0 ||
		    iface_end(&im, d->iface_lines[k], d->ifaces[k][1], &d->links[k].b) < 0)
			return -1;
	}
	return check_links(&im);
}

int
wiring_dot_import(const char *text, size_t len, const struct wiring_dot_cluster *c,
    struct wiring_plan_link **out, int *n_out, char *err, size_t errlen)
{
	struct wiring_dot_read d;
	int rc = 0;

	*out = NULL;
	*n_out = 0;
	if (wiring_dot_read(text, len, &d, err, errlen) < 0)
		return -1;
	if (needs_nodes(&d))
		rc = c == NULL ? WIRING_DOT_NEEDS_NODES : resolve(&d, c, err, errlen);
	if (rc == 0) {
		*out = d.links;
		*n_out = d.n_links;
		d.links = NULL;
	}
	wiring_dot_read_free(&d);
	return rc;
}
