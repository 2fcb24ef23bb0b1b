/*
 * DOT import and export (wiring_dot.c, wiring_import.c): PTM-style and
 * hand-written files with comments, attributes, quoted and bare ids,
 * chains, digraphs and "D-N" receptacles; every error names its line; what
 * is written reads back the same.  And mlx.distributed_config --dot's
 * drawings, resolved against a cluster: labels to nodes, interfaces to
 * receptacles, each refusal with its line; and the cluster's headline,
 * never "ready" while a link's verdict is unknown.
 *
 * Where MLX's form comes from (ml-explore/mlx at commit
 * 846d176227a0ac13d2667e58d2bb68b322109ab0,
 * python/mlx/_distributed_utils/config.py):
 *   277-305  tb_connectivity_to_dot() prints it: "graph G {", then
 *            "  node [shape=rectangle];";
 *   279-288  the ids: index i written in base 26, least significant letter
 *            first (a..z, then ab, bb, ..., zb, ac, ...);
 *   292-293  one `  <id> [label="<host>"];` per host, the host as given to
 *            --hosts (h.ssh_hostname);
 *   294-304  one `  <id> -- <id> [label="<iface>/<iface>"]` per cable (no
 *            ';'), printed from the end with the lower index (301: the
 *            other end skips it), that end's interface first; a host's
 *            ports in the order of their interface names (254);
 *   246, 252 a port's interface: its receptacle N's "Thunderbolt N" device
 *            in `networksetup -listallhardwareports` (parse at 188-197);
 *   519-521, 601-603  --dot prints this and returns before any setup.
 * tests/fixtures/mlx/mesh4-two-cables.dot is that function's output for
 * --hosts mac1.local,mac2.local,mac3.local,mac4.local on the cabling of
 * tests/scenarios/two-cables-one-pair.json.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textbuf.h"
#include "wiring.h"
#include "wiring_fixture.h"

static int
parse(const char *text, struct wiring_plan_link **v, int *n, char *err, size_t errlen)
{
	return wiring_dot_parse(text, strlen(text), v, n, err, errlen);
}

static void
assert_link(const struct wiring_plan_link *l, const char *an, const char *ar, const char *bn,
    const char *br)
{
	assert_string_equal(l->a.node, an);
	assert_string_equal(l->a.receptacle, ar);
	assert_string_equal(l->b.node, bn);
	assert_string_equal(l->b.receptacle, br);
}

static void
test_ptm_style(void **state)
{
	const char *text =
	    "# a PTM topology file\n"
	    "graph \"studio4\" {\n"
	    "  // the first two\n"
	    "  \"mac1\":\"tb2\" -- \"mac2\":\"tb5\";\n"
	    "  /* a block\n     comment */ \"mac1\":\"tb3\" -- \"mac3\":\"tb1\" [color=red, "
	    "label=\"40 Gb/s ] here\"];\n"
	    "  graph [rankdir=LR]; node [shape=box]\n"
	    "  layout=neato\n"
	    "  mac2:3 -- mac3:tb4\n"
	    "  mac4\n"
	    "}\n";
	struct wiring_plan_link *v;
	char err[256];
	int n;

	(void)state;
	assert_int_equal(parse(text, &v, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_link(&v[0], "mac1", "2", "mac2", "5");
	assert_link(&v[1], "mac1", "3", "mac3", "1");
	assert_link(&v[2], "mac2", "3", "mac3", "4");
	free(v);
}

static void
test_chains_digraph_subgraph(void **state)
{
	const char *text =
	    "strict digraph ring {\n"
	    "  subgraph cluster_a { a:tb1 -> b:tb2 ; b:tb3 -> c:tb1 }\n"
	    "  c:tb2:n -> \"a\":\"tb2\", \"dgx-1\":\"0-1\" -> a:tb3\n"
	    "  e -- f -- g\n"
	    "}";
	struct wiring_plan_link *v;
	char err[256];
	int n;

	(void)state;
	assert_int_equal(parse(text, &v, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 6);
	assert_link(&v[0], "a", "1", "b", "2");
	assert_link(&v[1], "b", "3", "c", "1");
	assert_link(&v[2], "c", "2", "a", "2");
	assert_link(&v[3], "dgx-1", "0-1", "a", "3");
	assert_link(&v[4], "e", "", "f", "");      /* a chain without ports: any receptacle */
	assert_link(&v[5], "f", "", "g", "");
	free(v);
}

static void
expect_error(const char *text, const char *msg)
{
	struct wiring_plan_link *v = (struct wiring_plan_link *)1;
	char err[256] = "";
	int n = 7;

	assert_int_equal(parse(text, &v, &n, err, sizeof(err)), -1);
	assert_null(v);
	assert_int_equal(n, 0);
	assert_string_equal(err, msg);
}

static void
test_errors(void **state)
{
	(void)state;
	expect_error("", "line 1: expected \"graph\" or \"digraph\"");
	expect_error("graph g {\n a:1 -- b:2 -- c:3\n}", "line 2: a chain through b:tb2 puts two "
	    "cables on one receptacle: chains take nodes without ports");
	expect_error("graph g {\n a:1 -- b:2\n", "line 3: the graph is not closed (missing '}')");
	expect_error("graph g {\n a:1 -- b:2;\n a:1 -- c:3;\n}",
	    "line 3: a tb1 is used twice (also on line 2)");
	expect_error("graph g {\n a:1 -- a:2\n}", "line 2: a link from a to itself");
	expect_error("graph g {\n a:1 -- b -- c:3 -- d\n}", "line 2: a chain through c:tb3 puts "
	    "two cables on one receptacle: chains take nodes without ports");
	expect_error("graph g {\n \"mac 1\":1 -- b:2\n}",
	    "line 2: \"mac 1\" is not a node name (1-63 of A-Z a-z 0-9 . _ -)");
	expect_error("graph g {\n a:\"t b\" -- b:2\n}",
	    "line 2: \"t b\" is not a receptacle (tb2, 2, 0-1)");
	expect_error("graph g {\n\n a:1 -- \n}", "line 4: expected a node after \"--\"");
	expect_error("graph g {\n /* open\n\n", "line 2: a /* comment is not closed");
	expect_error("graph g {\n a:1 -- \"b\n}", "line 2: a quoted id is not closed (missing \")");
	expect_error("graph g {\n a [x=1\n}", "line 2: an attribute list is not closed (missing ']')");
	expect_error("graph g {\n a:1 -- b:2 }\n c", "line 3: text after the graph's closing '}'");
	expect_error("graph g { }", "the graph has no links (expected \"mac1\":\"tb2\" -- "
	    "\"mac2\":\"tb5\")");
	expect_error("graph g {\n a:1 -- b:2 ! }", "line 2: unexpected character '!'");
	expect_error("graph g {\n <b> -- c }", "line 2: HTML-like ids (<...>) are not supported");
	expect_error("graph g {\n -- c }", "line 2: expected a statement, found \"--\"");
	expect_error("graph g {\n a -", "line 2: unexpected character '-'");
	{
		struct wiring_plan_link *v;
		char err[128];
		int n;

		assert_int_equal(wiring_dot_parse("graph{a--b}\0", 12, &v, &n, err, sizeof(err)),
		    -1);
		assert_string_equal(err, "the file holds a NUL byte: not a DOT text");
	}
}

#define LONG_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define LONG_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define LONG_1 "1111111111111111111111111111111111111111111111111111111111111111111"
#define LONG_2 "2222222222222222222222222222222222222222222222222222222222222222222"

static void
test_write_reads_back(void **state)
{
	const struct wiring_plan_link in[] = {
		{{"mac1", "2"}, {"mac2", "5"}}, {{"mac1", "3"}, {"mac3", "0-1"}},
		{{"mac2", ""}, {"mac3", ""}},
	};
	struct wiring_plan_link *v;
	char err[256], *text;
	int n;

	(void)state;
	text = wiring_dot_write("studio4", in, 3);
	assert_non_null(text);
	assert_string_equal(text, "graph \"studio4\" {\n"
	    "\t\"mac1\":\"tb2\" -- \"mac2\":\"tb5\";\n"
	    "\t\"mac1\":\"tb3\" -- \"mac3\":\"tb0-1\";\n"
	    "\t\"mac2\" -- \"mac3\";\n"
	    "}\n");
	assert_int_equal(parse(text, &v, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_memory_equal(v, in, sizeof(in));
	free(v);
	free(text);

	/* the longest names and receptacles, twenty links: whole, and the same */
	struct wiring_plan_link big[20];
	memset(big, 0, sizeof(big));
	for (int k = 0; k < 20; k++) {
		snprintf(big[k].a.node, sizeof(big[k].a.node), "%.61s%02d", LONG_A, k);
		snprintf(big[k].b.node, sizeof(big[k].b.node), "%.61s%02d", LONG_B, k);
		snprintf(big[k].a.receptacle, sizeof(big[k].a.receptacle), "%.*s%02d",
		    (int)sizeof(big[k].a.receptacle) - 3, LONG_1, k);
		snprintf(big[k].b.receptacle, sizeof(big[k].b.receptacle), "%.*s%02d",
		    (int)sizeof(big[k].b.receptacle) - 3, LONG_2, k);
	}
	assert_int_equal(strlen(big[19].a.node), 63);
	text = wiring_dot_write("studio4", big, 20);
	assert_non_null(text);
	assert_int_equal(parse(text, &v, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 20);
	assert_memory_equal(v, big, sizeof(big));
	free(v);
	free(text);
}

/* ---- mlx.distributed_config --dot ---- */

static char *
read_fixture(const char *rel)
{
	const char *top = getenv("TBMESH_TOP");
	char path[4096], *buf;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", top != NULL ? top : ".", rel);
	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf != NULL)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

static int
import(const char *text, const struct wiring_dot_cluster *c, struct wiring_plan_link **v,
    int *n, char *err, size_t errlen)
{
	return wiring_dot_import(text, strlen(text), c, v, n, err, errlen);
}

/* A reported node with receptacles 1..ports on en2, en3, ... */
static void
mk_node(struct wiring_node *n, const char *name, const char *hostname, int ports)
{
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	snprintf(n->hostname, sizeof(n->hostname), "%s", hostname);
	n->state = NODE_READY;
	n->freshness = WIRING_REPORT_FRESH;
	n->report_at = FX_NOW;
	n->rdma = RDMA_STATE_ENABLED;
	n->n_ports = ports;
	n->n_devices = 0;
	for (int p = 0; p < ports; p++) {
		snprintf(n->ports[p].receptacle, sizeof(n->ports[p].receptacle), "%d", p + 1);
		snprintf(n->ports[p].interface, sizeof(n->ports[p].interface), "en%d", p + 2);
	}
}

/* A node that never reported: what wiring_node_from_report() gives. */
static void
mk_silent(struct wiring_node *n, const char *name)
{
	wiring_node_from_report(n, name, NODE_READY, NULL, NAN, FX_NOW, FX_STALE);
}

/* MLX's id for index i, as config.py:279-288 makes it (our own code). */
static void
mlx_id(int i, char *out)
{
	int k = 0;

	do {
		out[k++] = (char)('a' + i % 26);
		i /= 26;
	} while (i > 0);
	out[k] = '\0';
}

static void
test_mlx_fixture(void **state)
{
	struct fx_cluster *c = fx_load("two-cables-one-pair.json");
	struct wiring_plan_link *v = (struct wiring_plan_link *)1, *back;
	struct wiring_dot_cluster cl;
	struct wiring_result *r;
	char err[256], *text = read_fixture("mlx/mesh4-two-cables.dot"), *dot;
	int n = 7, nb;

	(void)state;
	assert_non_null(c);
	assert_non_null(text);
	cl = (struct wiring_dot_cluster){ "studio4", c->nodes, c->n };
	/* labels need the cluster: the caller is told to load its nodes */
	assert_int_equal(import(text, NULL, &v, &n, err, sizeof(err)), WIRING_DOT_NEEDS_NODES);
	assert_null(v);
	assert_int_equal(n, 0);
	assert_int_equal(import(text, &cl, &v, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 7);
	/* "mac1.local" is the node mac1 (it reports the hostname mac1); "en2/en5"
	 * is mac1's receptacle 1 and mac2's receptacle 4 */
	assert_link(&v[0], "mac1", "1", "mac2", "4");
	assert_link(&v[1], "mac1", "2", "mac3", "1");
	assert_link(&v[2], "mac1", "3", "mac4", "2");
	assert_link(&v[3], "mac1", "4", "mac2", "6");     /* the second cable of the pair */
	assert_link(&v[4], "mac2", "2", "mac3", "3");
	assert_link(&v[5], "mac2", "5", "mac4", "1");
	assert_link(&v[6], "mac3", "6", "mac4", "5");
	/* checked as the plan: every cable passes where the file says */
	r = fx_check(c, WIRING_TOPO_PLAN, v, n);
	assert_non_null(r);
	assert_int_equal(r->n_links, 7);
	for (int k = 0; k < 7; k++)
		assert_true(r->links[k].pass);
	assert_int_equal(r->n_unexpected, 0);
	assert_int_equal(r->verdict, WIRING_TENSOR_READY);
	assert_string_equal(r->verdict_text, "tensor-parallel ready: full RDMA mesh of 4");
	wiring_result_free(r);
	/* stored and exported in tbmesh's form, which reads back the same */
	dot = wiring_dot_write("studio4", v, n);
	assert_non_null(strstr(dot, "\t\"mac1\":\"tb4\" -- \"mac2\":\"tb6\";\n"));
	assert_int_equal(parse(dot, &back, &nb, err, sizeof(err)), 0);
	assert_int_equal(nb, 7);
	assert_memory_equal(back, v, 7 * sizeof(*v));
	free(back);
	free(dot);
	free(v);
	/* the plain reader still reads the ids as written (a stored plan) */
	assert_int_equal(parse(text, &v, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 7);
	assert_link(&v[0], "a", "", "b", "");
	free(v);
	free(text);
	fx_free(c);
}

static void
test_mlx_ids_past_26(void **state)
{
	enum { N = 28 };
	struct wiring_node *nodes = calloc(N, sizeof(*nodes));
	struct wiring_dot_cluster cl = { "big", nodes, N };
	struct wiring_plan_link *v;
	char text[8192], id[8], id2[8], name[16], host[32], err[256];
	int n;

	(void)state;
	assert_non_null(nodes);
	mlx_id(25, id);
	assert_string_equal(id, "z");
	mlx_id(26, id);
	assert_string_equal(id, "ab");
	mlx_id(27, id);
	assert_string_equal(id, "bb");
	mlx_id(52, id);
	assert_string_equal(id, "ac");
	snprintf(text, sizeof(text), "graph G {\n  node [shape=rectangle];\n");
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "n%02d", i + 1);
		snprintf(host, sizeof(host), "studio-%02d.local", i + 1);
		mk_node(&nodes[i], name, host, 2);
		mlx_id(i, id);
		text_append(text, sizeof(text), "  %s [label=\"%s\"];\n", id, host);
	}
	/* a ring: each host's en3 (receptacle 2) to the next one's en2 (1) */
	for (int i = 0; i < N; i++) {
		mlx_id(i, id);
		mlx_id((i + 1) % N, id2);
		text_append(text, sizeof(text), "  %s -- %s [label=\"en3/en2\"]\n", id, id2);
	}
	text_append(text, sizeof(text), "}\n");
	assert_int_equal(import(text, &cl, &v, &n, err, sizeof(err)), 0);
	assert_int_equal(n, N);
	assert_link(&v[0], "n01", "2", "n02", "1");
	assert_link(&v[25], "n26", "2", "n27", "1");      /* z -- ab */
	assert_link(&v[26], "n27", "2", "n28", "1");      /* ab -- bb */
	assert_link(&v[27], "n28", "2", "n01", "1");      /* bb -- a */
	free(v);
	free(nodes);
}

/* The node the label resolves to (the a end of `a -- target`), or the error. */
static const char *
label_is(const struct wiring_dot_cluster *cl, const char *label, const char *target,
    char *buf, size_t len)
{
	struct wiring_plan_link *v;
	char text[512];
	int n;

	snprintf(text, sizeof(text), "graph G {\n  a [label=\"%s\"];\n  a -- %s\n}\n", label,
	    target);
	if (import(text, cl, &v, &n, buf, len) != 0)
		return buf;
	snprintf(buf, len, "%s", v[0].a.node);
	free(v);
	return buf;
}

static void
test_mlx_label_rules(void **state)
{
	struct wiring_node nodes[6];
	struct wiring_dot_cluster cl = { "lab", nodes, 6 };
	char buf[512];

	(void)state;
	mk_node(&nodes[0], "mac1", "Mac-Studio-1.local", 4);
	mk_node(&nodes[1], "mac2", "mac2", 4);
	snprintf(nodes[1].ssh_host, sizeof(nodes[1].ssh_host), "10.0.0.12");
	mk_node(&nodes[2], "gpu3", "mac1", 4);          /* reports the hostname mac1 */
	mk_node(&nodes[3], "mac4", "mac4.local", 4);
	snprintf(nodes[3].ssh_host, sizeof(nodes[3].ssh_host), "studio-d.lan");
	mk_node(&nodes[4], "mac5", "twin.local", 4);
	mk_node(&nodes[5], "mac6", "twin", 4);
	/* the node's name first: mac1, though gpu3 reports the hostname mac1 */
	assert_string_equal(label_is(&cl, "mac1", "mac4", buf, sizeof(buf)), "mac1");
	/* then the reported hostname, with or without .local, in any case */
	assert_string_equal(label_is(&cl, "mac-studio-1", "mac4", buf, sizeof(buf)), "mac1");
	assert_string_equal(label_is(&cl, "MAC-STUDIO-1.LOCAL", "mac4", buf, sizeof(buf)),
	    "mac1");
	assert_string_equal(label_is(&cl, "mac2.local", "mac4", buf, sizeof(buf)), "mac2");
	assert_string_equal(label_is(&cl, "mac1.local", "mac4", buf, sizeof(buf)), "gpu3");
	/* a user for ssh before the host is not part of it */
	assert_string_equal(label_is(&cl, "admin@mac2.local", "mac4", buf, sizeof(buf)), "mac2");
	/* then the SSH host the inventory has */
	assert_string_equal(label_is(&cl, "10.0.0.12", "mac4", buf, sizeof(buf)), "mac2");
	assert_string_equal(label_is(&cl, "studio-d.lan", "mac1", buf, sizeof(buf)), "mac4");
	/* a name is matched as it is: no .local added to it */
	assert_string_equal(label_is(&cl, "gpu3.local", "mac4", buf, sizeof(buf)),
	    "line 2: a [label=\"gpu3.local\"]: no node of lab is gpu3.local");
	/* two nodes answer to the same host name: refused, both named */
	assert_string_equal(label_is(&cl, "twin", "mac4", buf, sizeof(buf)),
	    "line 2: a [label=\"twin\"]: twin names more than one node of lab: mac5, mac6");
}

static void
expect_refusal(const struct wiring_dot_cluster *cl, const char *text, const char *msg)
{
	struct wiring_plan_link *v = (struct wiring_plan_link *)1;
	char err[512] = "";
	int n = 7;

	assert_int_equal(import(text, cl, &v, &n, err, sizeof(err)), -1);
	assert_null(v);
	assert_int_equal(n, 0);
	assert_string_equal(err, msg);
}

static void
test_mlx_refusals(void **state)
{
	struct wiring_node nodes[4];
	struct wiring_dot_cluster cl = { "studio4", nodes, 4 };

	(void)state;
	mk_node(&nodes[0], "mac1", "mac1.local", 4);
	mk_node(&nodes[1], "mac2", "mac2.local", 4);
	mk_node(&nodes[2], "mac3", "mac3.local", 4);
	mk_node(&nodes[3], "mac4", "mac4.local", 4);
	expect_refusal(&cl, "graph G {\n  node [shape=rectangle];\n  a [label=\"mac9.local\"];\n"
	    "  b [label=\"mac2.local\"];\n  a -- b [label=\"en2/en5\"]\n}\n",
	    "line 3: a [label=\"mac9.local\"]: no node of studio4 is mac9.local");
	expect_refusal(&cl, "graph G {\n  node [shape=rectangle];\n  a [label=\"mac1.local\"];\n"
	    "  b [label=\"mac2.local\"];\n  a -- b [label=\"en7/en5\"]\n}\n",
	    "line 5: en7 is not a Thunderbolt interface of mac1 (it reports en2, en3, en4, en5)");
	expect_refusal(&cl, "graph G {\n  node [shape=rectangle];\n  a [label=\"mac1.local\"];\n"
	    "  b [label=\"mac2.local\"];\n  a -- b [label=\"en2/en9\"]\n}\n",
	    "line 5: en9 is not a Thunderbolt interface of mac2 (it reports en2, en3, en4, en5)");
	/* two ids for one Mac */
	expect_refusal(&cl, "graph G {\n\n  a [label=\"mac1\"];\n  b [label=\"mac1.local\"];\n"
	    "  a -- b\n}\n", "line 4: b [label=\"mac1.local\"]: mac1 is already a (line 3)");
	/* one receptacle (en2 of mac1) on two cables */
	expect_refusal(&cl, "graph G {\n  node [shape=rectangle];\n  a [label=\"mac1.local\"];\n"
	    "  b [label=\"mac2.local\"];\n  c [label=\"mac3.local\"];\n"
	    "  a -- b [label=\"en2/en5\"]\n  a -- c [label=\"en2/en4\"]\n}\n",
	    "line 7: mac1 tb1 (en2) is used twice (also on line 6)");
	/* an interface on an id that is no node of the cluster */
	expect_refusal(&cl, "graph G {\n  x -- mac1 [label=\"en2/en3\"]\n}\n",
	    "line 2: x is not a node of studio4, so its interface en2 names no receptacle");
	/* a label and a bare name for the same Mac on one cable */
	expect_refusal(&cl, "graph G {\n  a [label=\"mac1.local\"];\n  a -- mac1\n}\n",
	    "line 3: a link from mac1 to itself");
	/* a node that has not reported: its interfaces are unknown, and so is
	 * its hostname */
	mk_silent(&nodes[2], "mac3");
	expect_refusal(&cl, "graph G {\n  node [shape=rectangle];\n  a [label=\"mac1.local\"];\n"
	    "  c [label=\"mac3\"];\n  a -- c [label=\"en3/en2\"]\n}\n",
	    "line 5: mac3 has not reported yet, so its Thunderbolt interfaces are unknown "
	    "(import the file again once it has)");
	expect_refusal(&cl, "graph G {\n  node [shape=rectangle];\n  a [label=\"mac1.local\"];\n"
	    "  c [label=\"mac3.local\"];\n  a -- c [label=\"en3/en2\"]\n}\n",
	    "line 4: c [label=\"mac3.local\"]: no node of studio4 is mac3.local (mac3 has not "
	    "reported its hostname yet)");
}

static void
test_tbmesh_form_unchanged(void **state)
{
	const char *ptm =
	    "graph \"studio4\" {\n"
	    "  \"mac1\":\"tb2\" -- \"mac2\":\"tb5\";\n"
	    "  \"mac1\":\"tb3\" -- \"mac3\":\"tb1\" [color=red, label=\"40 Gb/s\"];\n"
	    "  \"mac1\":\"tb4\" -- \"mac4\":\"tb1\" [label=\"en2/en5\"];\n"
	    "  mac2 -- mac3 [label=\"40 Gb/s\"]\n"
	    "  graph [label=\"en2/en3\"]; edge [label=\"en2/en3\"]\n"
	    "}\n";
	struct wiring_node nodes[4];
	struct wiring_dot_cluster cl = { "studio4", nodes, 4 };
	struct wiring_plan_link *v, *w;
	char err[256];
	int n, m;

	(void)state;
	mk_node(&nodes[0], "mac1", "mac1.local", 4);
	mk_node(&nodes[1], "mac2", "mac2.local", 4);
	mk_node(&nodes[2], "mac3", "mac3.local", 4);
	mk_node(&nodes[3], "mac4", "mac4.local", 4);
	/* no labels to resolve: read as it is, without the cluster */
	assert_int_equal(import(ptm, NULL, &v, &n, err, sizeof(err)), 0);
	assert_int_equal(parse(ptm, &w, &m, err, sizeof(err)), 0);
	assert_int_equal(n, 4);
	assert_int_equal(m, 4);
	assert_memory_equal(v, w, 4 * sizeof(*v));
	assert_link(&v[2], "mac1", "4", "mac4", "1");     /* ports win over a label */
	assert_link(&v[3], "mac2", "", "mac3", "");       /* "40 Gb/s" names no interfaces */
	free(v);
	/* and the same with the cluster at hand */
	assert_int_equal(import(ptm, &cl, &v, &n, err, sizeof(err)), 0);
	assert_memory_equal(v, w, 4 * sizeof(*v));
	free(v);
	free(w);
	/* a caption on a node named by its id; half an interface pair */
	assert_int_equal(import("graph {\n \"mac1\" [label=\"Mac Studio one\"]\n"
	    " mac1:tb1 -- mac2:tb4\n mac1 -- mac3 [label=\"en2/40G\"]\n}", &cl, &v, &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_link(&v[0], "mac1", "1", "mac2", "4");
	assert_link(&v[1], "mac1", "", "mac3", "");
	free(v);
	/* node names with an interface label: the interfaces give the ports */
	assert_int_equal(import("graph { mac1 -- mac2 [label=\" en2 / en5 \"] }", NULL, &v, &n,
	    err, sizeof(err)), WIRING_DOT_NEEDS_NODES);
	assert_int_equal(import("graph { mac1 -- mac2 [label=\" en2 / en5 \"] }", &cl, &v, &n,
	    err, sizeof(err)), 0);
	assert_link(&v[0], "mac1", "1", "mac2", "4");
	free(v);
}

/* A result's reasons hold text exactly count times. */
static int
reason_count(const struct wiring_result *r, const char *text)
{
	int k = 0;

	for (int i = 0; i < r->n_reasons; i++)
		k += strcmp(r->reasons[i], text) == 0;
	return k;
}

static void
test_headline_unknown(void **state)
{
	struct fx_cluster *c = fx_load("two-cables-one-pair.json");
	char err[256], *text = read_fixture("mlx/mesh4-two-cables.dot");
	struct wiring_dot_cluster cl;
	struct wiring_plan_link *v;
	struct wiring_result *r;
	int n;

	(void)state;
	assert_non_null(c);
	assert_non_null(text);
	/* an MLX file stored before it was resolved: a plan over nodes a..d.
	 * The seven cables form a full mesh, but no expected link is known */
	assert_int_equal(parse(text, &v, &n, err, sizeof(err)), 0);
	r = fx_check(c, WIRING_TOPO_PLAN, v, n);
	assert_non_null(r);
	for (int k = 0; k < r->n_links; k++)
		assert_int_equal(r->links[k].verdict, WIRING_UNKNOWN);
	assert_int_equal(r->n_unexpected, 7);
	assert_int_not_equal(r->verdict, WIRING_TENSOR_READY);
	assert_null(strstr(r->verdict_text, "ready"));
	assert_string_equal(r->verdict_text, "not known yet: a is not a node of studio4");
	assert_int_equal(reason_count(r, "not known yet: a is not a node of studio4"), 1);
	assert_int_equal(reason_count(r, "not known yet: d is not a node of studio4"), 1);
	wiring_result_free(r);
	free(v);
	/* the file resolved, but its first link made to name mac9: the cable
	 * it meant is unexpected, and mac1-mac2 still joined by the second */
	cl = (struct wiring_dot_cluster){ "studio4", c->nodes, c->n };
	assert_int_equal(import(text, &cl, &v, &n, err, sizeof(err)), 0);
	snprintf(v[0].b.node, sizeof(v[0].b.node), "mac9");
	r = fx_check(c, WIRING_TOPO_PLAN, v, n);
	assert_non_null(r);
	assert_int_equal(r->links[0].verdict, WIRING_UNKNOWN);
	for (int k = 1; k < r->n_links; k++)
		assert_true(r->links[k].pass);
	assert_int_not_equal(r->verdict, WIRING_TENSOR_READY);
	assert_string_equal(r->verdict_text, "not known yet: mac9 is not a node of studio4");
	wiring_result_free(r);
	free(v);
	free(text);
	fx_free(c);
	/* a mesh whose mac3 has not reported: what is missing, once, on top */
	c = fx_load("mesh4-studio.json");
	assert_non_null(c);
	c->have[2] = 0;
	fx_refresh(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_non_null(r);
	assert_string_equal(r->verdict_text, "not known yet: mac3's report is missing");
	assert_int_equal(reason_count(r, "not known yet: mac3's report is missing"), 1);
	assert_string_equal(r->reasons[0], "not known yet: mac3's report is missing");
	assert_int_equal(r->verdict, WIRING_UNUSABLE);
	wiring_result_free(r);
	/* a stale one */
	c->have[2] = 1;
	fx_refresh(c);
	wiring_node_from_report(&c->nodes[3], "mac4", NODE_UNREACHABLE, &c->reports[3],
	    FX_NOW - 600, FX_NOW, FX_STALE);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_non_null(r);
	assert_string_equal(r->verdict_text,
	    "not known yet: mac4's report is stale (it is unreachable)");
	wiring_result_free(r);
	/* all known again: ready */
	fx_refresh(c);
	r = fx_check(c, WIRING_TOPO_MESH, NULL, 0);
	assert_string_equal(r->verdict_text, "tensor-parallel ready: full RDMA mesh of 4");
	wiring_result_free(r);
	fx_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ptm_style),
		cmocka_unit_test(test_chains_digraph_subgraph),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_write_reads_back),
		cmocka_unit_test(test_mlx_fixture),
		cmocka_unit_test(test_mlx_ids_past_26),
		cmocka_unit_test(test_mlx_label_rules),
		cmocka_unit_test(test_mlx_refusals),
		cmocka_unit_test(test_tbmesh_form_unchanged),
		cmocka_unit_test(test_headline_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
