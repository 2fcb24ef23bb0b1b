/*
 * DOT import and export (wiring_dot.c): PTM-style and hand-written files
 * with comments, attributes, quoted and bare ids, chains, digraphs and
 * "D-N" receptacles; every error names its line; what is written reads
 * back the same.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "wiring.h"

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
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ptm_style),
		cmocka_unit_test(test_chains_digraph_subgraph),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_write_reads_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
