/*
 * tbctl's command line: global options and their environment defaults,
 * the command table, a command's options and arguments, durations, times,
 * counts, token ids, the token file, and the requests built from options
 * (token create, events).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api_json.h"
#include "ctl.h"

#define NOW 1763782801.0   /* 2025-11-22T03:40:01Z */

static int
stub(struct ctl_client *cl, const struct ctl_args *a, const struct ctl_output *out)
{
	(void)cl;
	(void)a;
	(void)out;
	return 0;
}

static const struct ctl_cmd table[] = {
	{ "nodes", "", "List.\n", 0, 0, 0, stub, NULL },
	{ "node show", "NODE", "Show.\n", 0, 1, 1, stub, NULL },
	{ "node cordon", "NODE --reason TEXT", "Cordon.\n", CTL_OPT(REASON), 1, 1, stub, NULL },
	{ "token create", "[--role ROLE] [--ttl DURATION]", "Create.\n",
	  CTL_OPT(ROLE) | CTL_OPT(TTL) | CTL_OPT(CLUSTER) | CTL_OPT(LABEL) | CTL_OPT(ACCEPT), 0, 0,
	  stub, NULL },
	{ "cluster add", "NAME NODE...", "Add.\n", 0, 2, -1, stub, NULL },
	{ "events", "", "Events.\n", CTL_OPT(NODE) | CTL_OPT(SINCE) | CTL_OPT(LIMIT), 0, 0, stub, NULL },
};
/* The entries as tbctl.c lists them: by pointer. */
static const struct ctl_cmd *const cmds[] = {
	&table[0], &table[1], &table[2], &table[3], &table[4], &table[5],
};
#define NCMDS ((int)(sizeof(cmds) / sizeof(cmds[0])))

static void
test_global_defaults_and_env(void **state)
{
	(void)state;
	char *argv[] = { "tbctl", "nodes", NULL };
	struct ctl_global g;
	char err[256];
	int cmd;

	assert_int_equal(ctl_parse_global(2, argv, NULL, NULL, &g, &cmd, err, sizeof(err)), 0);
	assert_string_equal(g.url, "http://127.0.0.1:9470");
	assert_null(g.token_file);
	assert_null(g.ca_file);
	assert_int_equal(cmd, 1);
	assert_int_equal(ctl_parse_global(2, argv, "https://ctl:9470", "/t", &g, &cmd, err,
	    sizeof(err)), 0);
	assert_string_equal(g.url, "https://ctl:9470");
	assert_string_equal(g.token_file, "/t");
	/* Empty variables are unset ones. */
	assert_int_equal(ctl_parse_global(2, argv, "", "", &g, &cmd, err, sizeof(err)), 0);
	assert_string_equal(g.url, "http://127.0.0.1:9470");
	assert_null(g.token_file);
}

static void
test_global_options(void **state)
{
	(void)state;
	char *argv[] = { "tbctl", "--url", "http://h:1/", "--token-file=/tok", "--ca-file",
		"/ca.pem", "--json", "node", "show", "mac1", NULL };
	struct ctl_global g;
	char err[256];
	int cmd;

	assert_int_equal(ctl_parse_global(10, argv, "http://env", "/env", &g, &cmd, err,
	    sizeof(err)), 0);
	assert_string_equal(g.url, "http://h:1/");
	assert_string_equal(g.token_file, "/tok");
	assert_string_equal(g.ca_file, "/ca.pem");
	assert_int_equal(g.json, 1);
	assert_int_equal(g.help, 0);
	assert_int_equal(cmd, 7);

	char *argv2[] = { "tbctl", "-h", NULL };
	assert_int_equal(ctl_parse_global(2, argv2, NULL, NULL, &g, &cmd, err, sizeof(err)), 0);
	assert_int_equal(g.help, 1);
	assert_int_equal(cmd, 2);
	char *argv3[] = { "tbctl", "--version", NULL };
	assert_int_equal(ctl_parse_global(2, argv3, NULL, NULL, &g, &cmd, err, sizeof(err)), 0);
	assert_int_equal(g.version, 1);
	char *argv4[] = { "tbctl", "--", "--odd", NULL };
	assert_int_equal(ctl_parse_global(3, argv4, NULL, NULL, &g, &cmd, err, sizeof(err)), 0);
	assert_int_equal(cmd, 2);
}

static void
test_global_errors(void **state)
{
	(void)state;
	struct ctl_global g;
	char err[256];
	int cmd;

	char *a1[] = { "tbctl", "--url", NULL };
	assert_int_equal(ctl_parse_global(2, a1, NULL, NULL, &g, &cmd, err, sizeof(err)), -1);
	assert_string_equal(err, "--url needs a value");
	char *a2[] = { "tbctl", "--frob", "nodes", NULL };
	assert_int_equal(ctl_parse_global(3, a2, NULL, NULL, &g, &cmd, err, sizeof(err)), -1);
	assert_string_equal(err, "unknown option --frob (see tbctl --help)");
	char *a3[] = { "tbctl", "--url=ftp://x", "nodes", NULL };
	assert_int_equal(ctl_parse_global(3, a3, NULL, NULL, &g, &cmd, err, sizeof(err)), -1);
	assert_string_equal(err, "--url: \"ftp://x\" is not an http:// or https:// URL");
	char *a4[] = { "tbctl", "nodes", NULL };
	assert_int_equal(ctl_parse_global(2, a4, "http://", NULL, &g, &cmd, err, sizeof(err)),
	    -1);
	char *a5[] = { "tbctl", "--url=http://a b", NULL };
	assert_int_equal(ctl_parse_global(2, a5, NULL, NULL, &g, &cmd, err, sizeof(err)), -1);
	char *a6[] = { "tbctl", "--token-file=", "nodes", NULL };
	assert_int_equal(ctl_parse_global(3, a6, NULL, NULL, &g, &cmd, err, sizeof(err)), -1);
	/* A prefix of an option is not the option. */
	char *a7[] = { "tbctl", "--urlx=http://h", NULL };
	assert_int_equal(ctl_parse_global(2, a7, NULL, NULL, &g, &cmd, err, sizeof(err)), -1);
}

/* Global options after the command are taken out of its arguments. */
static void
test_global_tail(void **state)
{
	(void)state;
	char *argv[] = { "tbctl", "--url", "http://before:1", "nodes", NULL };
	struct ctl_global g;
	char err[256];
	int cmd;

	assert_int_equal(ctl_parse_global(4, argv, NULL, NULL, &g, &cmd, err, sizeof(err)), 0);
	char *rest[] = { "node", "cordon", "mac1", "--token-file", "/tok", "--reason=x",
		"--url=http://after:2", "--ca-file", "/ca.pem", "--", "--url", NULL };
	int n = 11;
	assert_int_equal(ctl_parse_global_tail(&g, &n, rest, err, sizeof(err)), 0);
	assert_string_equal(g.url, "http://after:2");	/* after the command wins */
	assert_string_equal(g.token_file, "/tok");
	assert_string_equal(g.ca_file, "/ca.pem");
	assert_int_equal(n, 6);				/* the rest, in order */
	assert_string_equal(rest[0], "node");
	assert_string_equal(rest[2], "mac1");
	assert_string_equal(rest[3], "--reason=x");
	assert_string_equal(rest[4], "--");
	assert_string_equal(rest[5], "--url");		/* not read after "--" */

	char *none[] = { "nodes", "--json", NULL };
	n = 2;
	assert_int_equal(ctl_parse_global_tail(&g, &n, none, err, sizeof(err)), 0);
	assert_int_equal(n, 2);

	char *missing[] = { "nodes", "--token-file", NULL };
	n = 2;
	assert_int_equal(ctl_parse_global_tail(&g, &n, missing, err, sizeof(err)), -1);
	assert_string_equal(err, "--token-file needs a value");
	char *bad[] = { "nodes", "--url=ftp://x", NULL };
	n = 2;
	assert_int_equal(ctl_parse_global_tail(&g, &n, bad, err, sizeof(err)), -1);
	assert_string_equal(err, "--url: \"ftp://x\" is not an http:// or https:// URL");
	char *empty[] = { "nodes", "--ca-file=", NULL };
	n = 2;
	assert_int_equal(ctl_parse_global_tail(&g, &n, empty, err, sizeof(err)), -1);
	char *prefix[] = { "nodes", "--urlx", NULL };	/* not the option: left for the command */
	n = 2;
	g.url = "http://h";
	g.ca_file = NULL;
	assert_int_equal(ctl_parse_global_tail(&g, &n, prefix, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
}

static void
test_cmd_find(void **state)
{
	(void)state;
	int used;

	char *a1[] = { "nodes" };
	assert_ptr_equal(ctl_cmd_find(cmds, NCMDS, 1, a1, &used), &table[0]);
	assert_int_equal(used, 1);
	char *a2[] = { "node", "cordon", "mac1" };
	assert_ptr_equal(ctl_cmd_find(cmds, NCMDS, 3, a2, &used), &table[2]);
	assert_int_equal(used, 2);
	char *a3[] = { "node" };
	assert_null(ctl_cmd_find(cmds, NCMDS, 1, a3, &used));
	assert_int_equal(used, 0);
	char *a4[] = { "node", "frob" };
	assert_null(ctl_cmd_find(cmds, NCMDS, 2, a4, &used));
	char *a5[] = { "nodesx" };
	assert_null(ctl_cmd_find(cmds, NCMDS, 1, a5, &used));
	char *a6[] = { "node", "cordonx" };
	assert_null(ctl_cmd_find(cmds, NCMDS, 2, a6, &used));
	assert_true(ctl_cmd_is_group(cmds, NCMDS, "node"));
	assert_true(ctl_cmd_is_group(cmds, NCMDS, "token"));
	assert_false(ctl_cmd_is_group(cmds, NCMDS, "nodes"));
	assert_false(ctl_cmd_is_group(cmds, NCMDS, "nod"));
}

static void
test_args_options(void **state)
{
	(void)state;
	struct ctl_args a;
	char err[256];

	char *a1[] = { "mac3", "--reason", "replacing cable", "--json" };
	assert_int_equal(ctl_parse_args(&table[2], 4, a1, &a, err, sizeof(err)), 0);
	assert_int_equal(a.npos, 1);
	assert_string_equal(a.pos[0], "mac3");
	assert_string_equal(a.reason, "replacing cable");
	assert_int_equal(a.json, 1);
	char *a2[] = { "--reason=a=b", "mac3" };
	assert_int_equal(ctl_parse_args(&table[2], 2, a2, &a, err, sizeof(err)), 0);
	assert_string_equal(a.reason, "a=b");
	assert_int_equal(a.json, 0);
	char *a3[] = { "--role", "admin", "--ttl=7d", "--cluster", "lab", "--label", "ci" };
	assert_int_equal(ctl_parse_args(&table[3], 7, a3, &a, err, sizeof(err)), 0);
	assert_string_equal(a.role, "admin");
	assert_string_equal(a.ttl, "7d");
	assert_string_equal(a.cluster, "lab");
	assert_string_equal(a.label, "ci");
	assert_null(a.reason);
	assert_int_equal(a.accept, 0);
	/* --accept is a flag, for the commands that take it */
	char *a6[] = { "--accept", "--ttl", "1h" };
	assert_int_equal(ctl_parse_args(&table[3], 3, a6, &a, err, sizeof(err)), 0);
	assert_int_equal(a.accept, 1);
	assert_string_equal(a.ttl, "1h");
	char *a7[] = { "mac3", "--accept" };
	assert_int_equal(ctl_parse_args(&table[2], 2, a7, &a, err, sizeof(err)), -1);
	/* After "--" everything is positional. */
	char *a4[] = { "lab", "--", "-odd", "--json" };
	assert_int_equal(ctl_parse_args(&table[4], 4, a4, &a, err, sizeof(err)), 0);
	assert_int_equal(a.npos, 3);
	assert_string_equal(a.pos[1], "-odd");
	assert_int_equal(a.json, 0);
	char *a5[] = { "--node", "mac1", "--since", "10m", "--limit", "5" };
	assert_int_equal(ctl_parse_args(&table[5], 6, a5, &a, err, sizeof(err)), 0);
	assert_string_equal(a.node, "mac1");
	assert_string_equal(a.since, "10m");
	assert_string_equal(a.limit, "5");
}

/* Every option of CTL_OPTIONS, as the tests below go through them. */
enum kind { VALUE, FLAG };
static const struct {
	const char *name;
	ctl_optset bit;
	size_t off;
	enum kind kind;
} options[] = {
#define OPTION(id, name, field, kind) { name, CTL_OPT(id), offsetof(struct ctl_args, field), kind },
	CTL_OPTIONS(OPTION)
#undef OPTION
};
#define NOPTS ((int)(sizeof(options) / sizeof(options[0])))

/* Each option has a bit of its own, and the set has room for all of them. */
static void
test_options_bits(void **state)
{
	(void)state;
	ctl_optset all = 0;

	assert_int_equal(NOPTS, CTL_OPT_COUNT);
	assert_true(CTL_OPT_COUNT > 32);   /* more than an unsigned holds */
	assert_true((size_t)CTL_OPT_COUNT <= sizeof(((struct ctl_cmd *)0)->opts) * CHAR_BIT);
	for (int i = 0; i < NOPTS; i++) {
		ctl_optset bit = options[i].bit;
		assert_true(bit != 0);
		assert_true((bit & (bit - 1)) == 0);
		assert_false(all & bit);
		all |= bit;
	}
	assert_true(all == (CTL_OPT_COUNT == 64 ? ~(ctl_optset)0 :
	    ((ctl_optset)1 << CTL_OPT_COUNT) - 1));
}

/*
 * Each option sets its field for a command that takes it alone, and is
 * refused by one that takes every other: its bit reaches the parser whole,
 * whatever its number.
 */
static void
test_options_each(void **state)
{
	(void)state;
	struct ctl_cmd cmd = { "frob", "", "Frob.\n", 0, 0, 0, stub, NULL };
	ctl_optset all = 0;
	struct ctl_args a;
	char opt[64], eq[80], want[160], err[256];

	for (int i = 0; i < NOPTS; i++)
		all |= options[i].bit;
	for (int i = 0; i < NOPTS; i++) {
		const void *field = (const char *)&a + options[i].off;
		snprintf(opt, sizeof(opt), "--%s", options[i].name);
		snprintf(eq, sizeof(eq), "--%s=v2", options[i].name);
		char *with_value[] = { opt, "v1" }, *alone[] = { opt }, *joined[] = { eq };

		cmd.opts = options[i].bit;
		if (options[i].kind == FLAG) {
			assert_int_equal(ctl_parse_args(&cmd, 1, alone, &a, err, sizeof(err)), 0);
			assert_int_equal(*(const int *)field, 1);
		} else {
			assert_int_equal(ctl_parse_args(&cmd, 2, with_value, &a, err, sizeof(err)),
			    0);
			assert_string_equal(*(const char *const *)field, "v1");
			assert_int_equal(ctl_parse_args(&cmd, 1, joined, &a, err, sizeof(err)), 0);
			assert_string_equal(*(const char *const *)field, "v2");
			assert_int_equal(ctl_parse_args(&cmd, 1, alone, &a, err, sizeof(err)), -1);
			snprintf(want, sizeof(want), "frob: %s needs a value", opt);
			assert_string_equal(err, want);
		}
		cmd.opts = all & ~options[i].bit;
		assert_int_equal(ctl_parse_args(&cmd, 1, alone, &a, err, sizeof(err)), -1);
		snprintf(want, sizeof(want), "frob: unknown option %s (see tbctl frob --help)",
		    opt);
		assert_string_equal(err, want);
	}
}

static void
test_args_help_and_errors(void **state)
{
	(void)state;
	struct ctl_args a;
	char err[256];

	/* --help wins over missing arguments. */
	char *a1[] = { "--help" };
	assert_int_equal(ctl_parse_args(&table[2], 1, a1, &a, err, sizeof(err)), 0);
	assert_int_equal(a.help, 1);
	char *a2[] = { "-h" };
	assert_int_equal(ctl_parse_args(&table[1], 1, a2, &a, err, sizeof(err)), 0);
	assert_int_equal(a.help, 1);
	assert_int_equal(ctl_parse_args(&table[1], 0, NULL, &a, err, sizeof(err)), -1);
	assert_string_equal(err, "node show: missing arguments (usage: tbctl node show NODE)");
	char *a3[] = { "mac1", "mac2" };
	assert_int_equal(ctl_parse_args(&table[1], 2, a3, &a, err, sizeof(err)), -1);
	assert_string_equal(err, "node show: unexpected argument \"mac2\" (usage: tbctl node "
	    "show NODE)");
	char *a4[] = { "mac1", "--reason" };
	assert_int_equal(ctl_parse_args(&table[2], 2, a4, &a, err, sizeof(err)), -1);
	assert_string_equal(err, "node cordon: --reason needs a value");
	char *a5[] = { "mac1", "--reason", "x" };
	assert_int_equal(ctl_parse_args(&table[1], 3, a5, &a, err, sizeof(err)), -1);
	assert_string_equal(err, "node show: unknown option --reason (see tbctl node show "
	    "--help)");
	char *a6[] = { "stray" };
	assert_int_equal(ctl_parse_args(&table[0], 1, a6, &a, err, sizeof(err)), -1);
	assert_string_equal(err, "nodes: unexpected argument \"stray\" (usage: tbctl nodes)");
	char *a7[] = { "lab" };
	assert_int_equal(ctl_parse_args(&table[4], 1, a7, &a, err, sizeof(err)), -1);
	char *a8[] = { "mac1", "-x" };
	assert_int_equal(ctl_parse_args(&table[1], 2, a8, &a, err, sizeof(err)), -1);
}

static void
test_parse_duration(void **state)
{
	(void)state;
	double d;

	assert_int_equal(ctl_parse_duration("90", &d), 0);
	assert_true(d == 90);
	assert_int_equal(ctl_parse_duration("3600s", &d), 0);
	assert_true(d == 3600);
	assert_int_equal(ctl_parse_duration("30m", &d), 0);
	assert_true(d == 1800);
	assert_int_equal(ctl_parse_duration("1h", &d), 0);
	assert_true(d == 3600);
	assert_int_equal(ctl_parse_duration("7d", &d), 0);
	assert_true(d == 7 * 86400);
	assert_int_equal(ctl_parse_duration("2w", &d), 0);
	assert_true(d == 14 * 86400);
	assert_int_equal(ctl_parse_duration("1h30m", &d), 0);
	assert_true(d == 5400);
	assert_int_equal(ctl_parse_duration("1.5h", &d), 0);
	assert_true(d == 5400);
	const char *bad[] = { "", "0", "0s", "h", "1x", "1h30", "-5", "+5", "1e3", "inf", "nan",
		" 5", "5 ", "1hh", "1..5h", "0x10" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(ctl_parse_duration(bad[i], &d), -1);
}

static void
test_parse_time(void **state)
{
	(void)state;
	double t;

	assert_int_equal(ctl_parse_time("1763782801", NOW, &t), 0);
	assert_true(t == 1763782801.0);
	assert_int_equal(ctl_parse_time("90", NOW, &t), 0);
	assert_true(t == 90);
	assert_int_equal(ctl_parse_time("2025-11-22T03:40:01Z", NOW, &t), 0);
	assert_true(t == NOW);
	assert_int_equal(ctl_parse_time("2025-11-22t03:40:01z", NOW, &t), 0);
	assert_true(t == NOW);
	assert_int_equal(ctl_parse_time("2025-11-22T04:40:01+01:00", NOW, &t), 0);
	assert_true(t == NOW);
	assert_int_equal(ctl_parse_time("2025-11-21T22:10:01-05:30", NOW, &t), 0);
	assert_true(t == NOW);
	assert_int_equal(ctl_parse_time("2025-11-22T03:40:01.5Z", NOW, &t), 0);
	assert_true(t == NOW + 0.5);
	assert_int_equal(ctl_parse_time("2025-11-22 03:40:01", NOW, &t), 0);
	assert_true(t == NOW);
	assert_int_equal(ctl_parse_time("2025-11-22 03:40", NOW, &t), 0);
	assert_true(t == NOW - 1);
	assert_int_equal(ctl_parse_time("2025-11-22", NOW, &t), 0);
	assert_true(t == NOW - (3 * 3600 + 40 * 60 + 1));
	assert_int_equal(ctl_parse_time("1970-01-01", NOW, &t), 0);
	assert_true(t == 0);
	assert_int_equal(ctl_parse_time("2024-02-29T00:00:00Z", NOW, &t), 0);
	assert_true(t == 1709164800.0);
	assert_int_equal(ctl_parse_time("10m", NOW, &t), 0);
	assert_true(t == NOW - 600);
	assert_int_equal(ctl_parse_time("2h", NOW, &t), 0);
	assert_true(t == NOW - 7200);
	const char *bad[] = { "", "yesterday", "2025-13-01", "2025-02-29", "2025-11-31",
		"2025-11-22T24:00:00Z", "2025-11-22T03:60:00Z", "2025-11-22T03:40:01Q",
		"2025-11-22T03:40:01+1:00", "2025-11-22X", "2025-1-22", "-10m", "10m ago",
		"1.2.3", "2025-11-22T03:40:01.Z" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(ctl_parse_time(bad[i], NOW, &t), -1);
}

static void
test_parse_count_and_token_id(void **state)
{
	(void)state;
	long v;

	assert_int_equal(ctl_parse_count("5", 1, 100, &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(ctl_parse_count("100", 1, 100, &v), 0);
	assert_int_equal(ctl_parse_count("0", 1, 100, &v), -1);
	assert_int_equal(ctl_parse_count("101", 1, 100, &v), -1);
	assert_int_equal(ctl_parse_count("-1", -5, 100, &v), -1);
	assert_int_equal(ctl_parse_count("5x", 1, 100, &v), -1);
	assert_int_equal(ctl_parse_count("", 1, 100, &v), -1);
	assert_int_equal(ctl_parse_count(" 5", 1, 100, &v), -1);
	assert_int_equal(ctl_parse_count("99999999999999999999999", 1, 100, &v), -1);
	assert_true(ctl_token_id_valid("0123456789ab"));
	assert_true(ctl_token_id_valid("0123456789AB"));
	assert_false(ctl_token_id_valid("0123456789a"));
	assert_false(ctl_token_id_valid("0123456789abc"));
	assert_false(ctl_token_id_valid("0123456789ag"));
	assert_false(ctl_token_id_valid(""));
}

/* ---- the token file ---- */

static char *
write_file(const char *text, mode_t mode)
{
	char *path = strdup("/tmp/tbctl-test-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
	return path;
}

static void
test_token_read(void **state)
{
	(void)state;
	char buf[128], err[512];
	int loose;
	char *p = write_file("  tbm_0123456789ab_secret\n\n", 0600);

	assert_int_equal(ctl_token_read(p, buf, sizeof(buf), &loose, err, sizeof(err)), 0);
	assert_string_equal(buf, "tbm_0123456789ab_secret");
	assert_int_equal(loose, 0);
	assert_int_equal(chmod(p, 0644), 0);
	assert_int_equal(ctl_token_read(p, buf, sizeof(buf), &loose, err, sizeof(err)), 0);
	assert_int_equal(loose, 1);
	/* Too long for the buffer: an error that does not show the token. */
	assert_int_equal(ctl_token_read(p, buf, 8, &loose, err, sizeof(err)), -1);
	assert_null(strstr(err, "secret"));
	assert_non_null(strstr(err, p));
	unlink(p);
	free(p);
}

static void
test_token_read_errors(void **state)
{
	(void)state;
	char buf[128], err[512];
	int loose;
	char *p;

	assert_int_equal(ctl_token_read("/nonexistent/tok", buf, sizeof(buf), &loose, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "token file /nonexistent/tok: No such file or directory");
	p = write_file(" \n\t\n", 0600);
	assert_int_equal(ctl_token_read(p, buf, sizeof(buf), &loose, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ": empty"));
	unlink(p);
	free(p);
	p = write_file("two words\n", 0600);
	assert_int_equal(ctl_token_read(p, buf, sizeof(buf), &loose, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "does not hold one token"));
	assert_null(strstr(err, "words"));
	unlink(p);
	free(p);
}

static void
test_token_default(void **state)
{
	(void)state;
	char dir[] = "/tmp/tbctl-home-XXXXXX", path[512], buf[512];

	assert_non_null(mkdtemp(dir));
	assert_int_equal(ctl_token_default(dir, buf, sizeof(buf)), -1);
	assert_int_equal(ctl_token_default(NULL, buf, sizeof(buf)), -1);
	assert_int_equal(ctl_token_default("", buf, sizeof(buf)), -1);
	snprintf(path, sizeof(path), "%s/.config", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/.config/tbmesh", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/.config/tbmesh/token", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(ctl_token_default(dir, buf, sizeof(buf)), 0);
	assert_string_equal(buf, path);
	unlink(path);
	snprintf(path, sizeof(path), "%s/.config/tbmesh", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/.config", dir);
	rmdir(path);
	rmdir(dir);
}

/* ---- requests built from options ---- */

static void
test_token_request(void **state)
{
	(void)state;
	struct api_token_request req;
	struct ctl_args a;
	char err[256];

	memset(&a, 0, sizeof(a));
	assert_int_equal(ctl_token_request_parse(&a, &req, err, sizeof(err)), 0);
	assert_int_equal(req.role, ROLE_BOOTSTRAP);
	assert_true(req.ttl_seconds == 3600);
	assert_string_equal(req.cluster, "");
	a.role = "admin";
	assert_int_equal(ctl_token_request_parse(&a, &req, err, sizeof(err)), 0);
	assert_int_equal(req.role, ROLE_ADMIN);
	assert_true(isnan(req.ttl_seconds));
	a.role = "viewer";
	a.ttl = "7d";
	a.label = "grafana";
	assert_int_equal(ctl_token_request_parse(&a, &req, err, sizeof(err)), 0);
	assert_int_equal(req.role, ROLE_VIEWER);
	assert_true(req.ttl_seconds == 7 * 86400);
	assert_string_equal(req.cluster, "");
	assert_string_equal(req.label, "grafana");
	a.role = "bootstrap";
	a.cluster = "lab";
	assert_int_equal(ctl_token_request_parse(&a, &req, err, sizeof(err)), 0);
	assert_int_equal(req.role, ROLE_BOOTSTRAP);
	assert_string_equal(req.cluster, "lab");
	assert_int_equal(req.accept, 0);
	memset(&a, 0, sizeof(a));
	a.accept = 1;
	assert_int_equal(ctl_token_request_parse(&a, &req, err, sizeof(err)), 0);
	assert_int_equal(req.role, ROLE_BOOTSTRAP);
	assert_int_equal(req.accept, 1);
}

static void
test_token_request_errors(void **state)
{
	(void)state;
	struct api_token_request req;
	struct ctl_args a;
	char err[256];

	memset(&a, 0, sizeof(a));
	a.role = "node";
	assert_int_equal(ctl_token_request_parse(&a, &req, err, sizeof(err)), -1);
	assert_string_equal(err, "token create: --role: \"node\" is not admin, viewer or "
	    "bootstrap");
	a.role = NULL;
	a.ttl = "soon";
	assert_int_equal(ctl_token_request_parse(&a, &req, err, sizeof(err)), -1);
	a.ttl = "200000w";
	assert_int_equal(ctl_token_request_parse(&a, &req, err, sizeof(err)), -1);
	a.ttl = NULL;
	a.cluster = "bad/name";
	assert_int_equal(ctl_token_request_parse(&a, &req, err, sizeof(err)), -1);
	a.cluster = NULL;
	a.label = "two\nlines";
	assert_int_equal(ctl_token_request_parse(&a, &req, err, sizeof(err)), -1);
	a.label = NULL;
	a.role = "admin";
	a.accept = 1;
	assert_int_equal(ctl_token_request_parse(&a, &req, err, sizeof(err)), -1);
	assert_string_equal(err, "token create: --accept is for bootstrap tokens only");
	/* admin and viewer tokens see every cluster: --cluster would mislead */
	a.accept = 0;
	a.cluster = "studio4";
	assert_int_equal(ctl_token_request_parse(&a, &req, err, sizeof(err)), -1);
	assert_string_equal(err, "token create: --cluster is for bootstrap tokens only");
	a.role = "viewer";
	assert_int_equal(ctl_token_request_parse(&a, &req, err, sizeof(err)), -1);
	assert_string_equal(err, "token create: --cluster is for bootstrap tokens only");
}

static void
test_events_path(void **state)
{
	(void)state;
	struct ctl_args a;
	char buf[256], err[512];

	memset(&a, 0, sizeof(a));
	assert_int_equal(ctl_events_path(&a, NOW, buf, sizeof(buf), err, sizeof(err)), 0);
	assert_string_equal(buf, "/v1/events");
	a.node = "mac1";
	a.since = "10m";
	a.limit = "50";
	assert_int_equal(ctl_events_path(&a, NOW + 0.9, buf, sizeof(buf), err, sizeof(err)), 0);
	assert_string_equal(buf, "/v1/events?node=mac1&since=1763782201&limit=50");
	a.node = NULL;
	a.since = "2025-11-22 03:40:01";
	a.limit = NULL;
	assert_int_equal(ctl_events_path(&a, NOW, buf, sizeof(buf), err, sizeof(err)), 0);
	assert_string_equal(buf, "/v1/events?since=1763782801");
	a.since = "1000d";
	assert_int_equal(ctl_events_path(&a, 1000, buf, sizeof(buf), err, sizeof(err)), 0);
	assert_string_equal(buf, "/v1/events?since=0");
	a.since = "whenever";
	assert_int_equal(ctl_events_path(&a, NOW, buf, sizeof(buf), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--since: \"whenever\""));
	a.since = NULL;
	a.limit = "0";
	assert_int_equal(ctl_events_path(&a, NOW, buf, sizeof(buf), err, sizeof(err)), -1);
	a.limit = NULL;
	a.node = "a&b=c";
	assert_int_equal(ctl_events_path(&a, NOW, buf, sizeof(buf), err, sizeof(err)), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_global_defaults_and_env),
		cmocka_unit_test(test_global_options),
		cmocka_unit_test(test_global_errors),
		cmocka_unit_test(test_global_tail),
		cmocka_unit_test(test_cmd_find),
		cmocka_unit_test(test_args_options),
		cmocka_unit_test(test_options_bits),
		cmocka_unit_test(test_options_each),
		cmocka_unit_test(test_args_help_and_errors),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_parse_time),
		cmocka_unit_test(test_parse_count_and_token_id),
		cmocka_unit_test(test_token_read),
		cmocka_unit_test(test_token_read_errors),
		cmocka_unit_test(test_token_default),
		cmocka_unit_test(test_token_request),
		cmocka_unit_test(test_token_request_errors),
		cmocka_unit_test(test_events_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
