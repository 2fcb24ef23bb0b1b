/*
 * tbctl: the operator's command line over tbcontrollerd's HTTP API.
 *
 * Each command's entry (its words, what follows them, its help, the
 * options it takes and its handler) lives in the file of its group
 * (ctl_nodes.c, ctl_wiring.c, ...); the list below puts them together in
 * the order of --help.  main() parses the global options, finds the
 * command, parses its arguments, reads the bearer token, picks the output
 * (people's, or JSON's for --json) and runs the handler, which sends one
 * request and hands the reply to that output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "ctl_http.h"
#include "version.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define TOKEN_MAX 1024

/* Every command, in the order --help lists them. */
static const struct ctl_cmd *const commands[] = {
	&ctl_cmd_nodes,
	&ctl_cmd_node_show,
	&ctl_cmd_node_history,
	&ctl_cmd_node_cordon,
	&ctl_cmd_node_uncordon,
	&ctl_cmd_node_down,
	&ctl_cmd_node_remove,
	&ctl_cmd_node_add,
	&ctl_cmd_node_deprovision,
	&ctl_cmd_node_accept,
	&ctl_cmd_node_ssh,
	&ctl_cmd_node_trust,
	&ctl_cmd_credentials_set,
	&ctl_cmd_rollout_start,
	&ctl_cmd_rollout_status,
	&ctl_cmd_rollout_pause,
	&ctl_cmd_rollout_resume,
	&ctl_cmd_rollout_abort,
	&ctl_cmd_rollout_retry,
	&ctl_cmd_token_create,
	&ctl_cmd_token_list,
	&ctl_cmd_token_revoke,
	&ctl_cmd_events,
	&ctl_cmd_clusters,
	&ctl_cmd_cluster_create,
	&ctl_cmd_cluster_add,
	&ctl_cmd_cluster_allow,
	&ctl_cmd_cluster_disallow,
	&ctl_cmd_wiring_check,
	&ctl_cmd_wiring_plan,
	&ctl_cmd_wiring_import,
	&ctl_cmd_wiring_export,
	&ctl_cmd_wiring_expect,
	&ctl_cmd_models,
	&ctl_cmd_models_add,
	&ctl_cmd_place,
	&ctl_cmd_placements,
	&ctl_cmd_placement_show,
	&ctl_cmd_placement_remove,
	&ctl_cmd_placement_replan,
	&ctl_cmd_run,
	&ctl_cmd_jobs,
	&ctl_cmd_job_show,
	&ctl_cmd_job_logs,
	&ctl_cmd_job_stop,
};

static const char global_usage[] =
"usage: tbctl [--url URL] [--token-file FILE] [--ca-file FILE] [--json]\n"
"             COMMAND [ARGUMENTS]\n"
"\n"
"The command line of tbmesh: nodes, tokens, events, clusters and their\n"
"wiring, models, placements and the jobs that run them, and OS updates,\n"
"over the HTTP API of tbcontrollerd.\n"
"\n"
"Commands:\n";

static const char global_options[] =
"\n"
"Options (before or after the command):\n"
"  --url URL          the controller (default $TBCTL_URL, else\n"
"                     " CTL_DEFAULT_URL ")\n"
"  --token-file FILE  the bearer token (default $TBCTL_TOKEN_FILE, else\n"
"                     ~/" CTL_DEFAULT_TOKEN_FILE " when it exists)\n"
"  --ca-file FILE     CA certificate to verify the controller's with\n"
"  --json             print the controller's reply as JSON\n"
"  -h, --help         this text; \"tbctl COMMAND --help\" for a command\n"
"  -V, --version      print the version\n"
"\n"
"Exit status: 0 success, 1 failure, 2 usage error.\n";

/* The first line of a command's help. */
static void
print_summary(FILE *f, const struct ctl_cmd *c)
{
	char left[160];

	snprintf(left, sizeof(left), "%s%s%s", c->name, *c->usage ? " " : "", c->usage);
	if (strlen(left) > 28)
		fprintf(f, "  %s\n  %-28s  ", left, "");
	else
		fprintf(f, "  %-28s  ", left);
	fprintf(f, "%.*s\n", (int)strcspn(c->help, "\n"), c->help);
}

/* Every command, or those of one group ("node") when group is not NULL. */
static void
print_commands(FILE *f, const char *group)
{
	size_t n = group != NULL ? strlen(group) : 0;

	for (size_t i = 0; i < NELEM(commands); i++)
		if (group == NULL || (strncmp(commands[i]->name, group, n) == 0 &&
		    commands[i]->name[n] == ' '))
			print_summary(f, commands[i]);
}

static void
print_cmd_help(const struct ctl_cmd *c)
{
	printf("usage: tbctl %s%s%s\n\n%s", c->name, *c->usage ? " " : "", c->usage, c->help);
	if (c->help_more != NULL)
		c->help_more(stdout);
	printf("  --json%*s%s\n", 12, "", "print the controller's reply as JSON");
}

/* "tbctl node", "tbctl node --help", "tbctl node frob". */
static int
group_usage(const char *group, int help, int argc, char **argv)
{
	if (help || (argc > 1 && (strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0))) {
		printf("usage: tbctl %s COMMAND\n\nCommands:\n", group);
		print_commands(stdout, group);
		return CTL_EXIT_OK;
	}
	if (argc > 1)
		return ctl_usage("%s: unknown command \"%s\" (see tbctl %s --help)", group,
		    argv[1], group);
	return ctl_usage("%s: a command is missing (see tbctl %s --help)", group, group);
}

/* The bearer token into buf; *have 0 when no token file was given or found. */
static int
load_token(const struct ctl_global *g, char *buf, size_t size, int *have)
{
	char def[4096], err[512];
	const char *path = g->token_file;
	int loose;

	*have = 0;
	if (path == NULL) {
		if (ctl_token_default(getenv("HOME"), def, sizeof(def)) == -1)
			return CTL_EXIT_OK;
		path = def;
	}
	if (ctl_token_read(path, buf, size, &loose, err, sizeof(err)) == -1)
		return ctl_fail("%s", err);
	if (loose)
		ctl_errx("warning: token file %s is readable by group or others "
		    "(chmod 600 %s)", path, path);
	*have = 1;
	return CTL_EXIT_OK;
}

/* Run the command, its output chosen once: --json before or after it, or people's. */
static int
run(const struct ctl_global *g, const struct ctl_cmd *cmd, const struct ctl_args *a)
{
	const struct ctl_output *out = g->json || a->json ? &ctl_output_json : &ctl_output_text;
	char token[TOKEN_MAX];
	struct ctl_client *cl;
	int rc, have;

	if ((rc = load_token(g, token, sizeof(token), &have)) != CTL_EXIT_OK)
		return rc;
	cl = ctl_client_new(g, have ? token : NULL);
	memset(token, 0, sizeof(token));
	if (cl == NULL)
		return ctl_fail("out of memory");
	rc = cmd->handler(cl, a, out);
	ctl_client_free(cl);
	return rc;
}

/*
 * The command at argv[0..argc-1]: parse it (global options may follow it),
 * then run it or show its help.
 */
static int
command(struct ctl_global *g, int argc, char **argv)
{
	const struct ctl_cmd *cmd;
	struct ctl_args a;
	char err[512];
	int used, rc;

	if (ctl_parse_global_tail(g, &argc, argv, err, sizeof(err)) == -1)
		return ctl_usage("%s", err);
	cmd = ctl_cmd_find(commands, (int)NELEM(commands), argc, argv, &used);
	if (cmd == NULL && ctl_cmd_is_group(commands, (int)NELEM(commands), argv[0]))
		return group_usage(argv[0], g->help, argc, argv);
	if (cmd == NULL)
		return ctl_usage("unknown command \"%s\" (see tbctl --help)", argv[0]);
	rc = ctl_parse_args(cmd, argc - used, argv + used, &a, err, sizeof(err));
	if (g->help || (rc == 0 && a.help)) {
		print_cmd_help(cmd);
		return CTL_EXIT_OK;
	}
	if (rc == -1)
		return ctl_usage("%s", err);
	return run(g, cmd, &a);
}

static int
tbctl(int argc, char **argv)
{
	struct ctl_global g;
	char err[512];
	int first;

	if (ctl_parse_global(argc, argv, getenv("TBCTL_URL"), getenv("TBCTL_TOKEN_FILE"), &g,
	    &first, err, sizeof(err)) == -1)
		return ctl_usage("%s", err);
	if (g.version) {
		printf("tbctl %s\n", TBMESH_VERSION);
		return CTL_EXIT_OK;
	}
	if (first < argc)
		return command(&g, argc - first, argv + first);
	/* "tbctl" alone: the usage, as with --help, but as a usage error */
	fputs(global_usage, g.help ? stdout : stderr);
	print_commands(g.help ? stdout : stderr, NULL);
	fputs(global_options, g.help ? stdout : stderr);
	return g.help ? CTL_EXIT_OK : CTL_EXIT_USAGE;
}

int
main(int argc, char **argv)
{
	int rc = tbctl(argc, argv);

	/* Output lost (a full disk, a closed pipe) is a failure: it may be a new token. */
	if (fflush(stdout) == EOF || ferror(stdout)) {
		ctl_errx("cannot write the output: %s", strerror(errno));
		return CTL_EXIT_FAIL;
	}
	return rc;
}
