/*
 * tbctl: the operator's command line over tbcontrollerd's HTTP API.
 *
 * The table below is every command: its words, what follows them, its
 * help, the options it takes and its handler.  main() parses the global
 * options, finds the command, parses its arguments, reads the bearer
 * token and runs the handler, which sends one request and prints the reply.
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

static const struct ctl_cmd commands[] = {
	{ "nodes", "",
	  "List the nodes.\n"
	  "Sorted by name.  STATE ends in '*' when the node rebooted without a\n"
	  "requested reboot.  MEMORY is used/total, OS the macOS build, AGE the\n"
	  "time since the node's last report.\n",
	  0, 0, 0, ctl_nodes_list },
	{ "node show", "NODE",
	  "Show a node and its latest report.\n"
	  "Its state and reason, then what it last reported: identity,\n"
	  "Thunderbolt ports and peers, bridge, RDMA, memory, power, temperatures\n"
	  "and collection errors.\n",
	  0, 1, 1, ctl_node_show },
	{ "node history", "NODE [--since TIME] [--limit N]",
	  "Show a node's samples: memory, power, link speeds.\n"
	  "Oldest first: memory used/total, power and the negotiated speed of each\n"
	  "Thunderbolt port, as stored from its reports.\n"
	  "  --since TIME      from this time (unix seconds, 2025-11-22T03:40:01Z) or\n"
	  "                    this long ago (10m, 2h); default 1h\n"
	  "  --limit N         at most N samples, the newest (default and most 10000)\n",
	  CTL_OPT_SINCE | CTL_OPT_LIMIT, 1, 1, ctl_node_history },
	{ "node cordon", "NODE --reason TEXT",
	  "Stop new placements on a node.\n"
	  "  --reason TEXT     why (required; kept in the event log)\n",
	  CTL_OPT_REASON, 1, 1, ctl_node_cordon },
	{ "node uncordon", "NODE",
	  "Allow placements on a cordoned node again.\n",
	  0, 1, 1, ctl_node_uncordon },
	{ "node down", "NODE --reason TEXT",
	  "Mark a node down.\n"
	  "  --reason TEXT     why (required; kept in the event log)\n",
	  CTL_OPT_REASON, 1, 1, ctl_node_down },
	{ "node remove", "NODE",
	  "Remove a node from the inventory.\n",
	  0, 1, 1, ctl_node_remove },
	{ "node add", "HOST [OPTIONS] | --print-sudoers [--user U]",
	  "Provision a Mac over SSH and wait until it is ready.\n"
	  "The controller connects to HOST with its SSH key, pins the host key,\n"
	  "runs the preflight (macOS 26.2 or later, Apple silicon, Thunderbolt 5,\n"
	  "free disk, rdma_ctl status, Thunderbolt Bridge), then each step, checked\n"
	  "before and after: Thunderbolt Bridge off, no system sleep, restart after\n"
	  "a power failure, the GPU wired limit at every boot, a static IPv4 per\n"
	  "cabled Thunderbolt port (one /30 per cable), tbagentd with a one-time\n"
	  "enrolment token (pre-approved: no node accept needed) and its\n"
	  "LaunchDaemon; then waits for the first report.  The node's SSH address\n"
	  "and pinned key are kept for OS updates.  The controller needs --ssh-key.\n"
	  "A second run changes nothing; a failed step stops the run and what it\n"
	  "changed is undone where it can be.  With RDMA disabled it ends with the\n"
	  "manual step: boot into Recovery, Terminal, rdma_ctl enable, reboot.\n"
	  "Root SSH login is off on a Mac: log in as an admin (--user) whose\n"
	  "sudo runs, without a password, what tbmesh runs as root; the preflight\n"
	  "checks sudo -n.  --print-sudoers prints that sudoers drop-in (for\n"
	  "/etc/sudoers.d/tbmesh on each Mac) and contacts nobody.\n"
	  "Options:\n"
	  "  --user U          the SSH user (default: the controller's)\n"
	  "  --key FILE        the SSH private key, on the controller's host\n"
	  "  --port N          the SSH port (default 22)\n"
	  "  --cluster C       the cluster the node joins (its cabling plan gives\n"
	  "                    the port addresses)\n"
	  "  --name NODE       the node's name (default: its host name)\n"
	  "  --fingerprint SHA256:...  the host key to expect (ssh-keygen -l)\n"
	  "  --accept-new      pin the host key offered (shown in the output)\n"
	  "  --agent-binary FILE  the macOS tbagentd to install, on the controller's\n"
	  "                    host (default: the controller's configured copy)\n"
	  "  --wired-limit-mb N  GPU wired limit, set at every boot (0: default)\n"
	  "  --ip-base A.B.0.0 the /16 of the cables' /30s: cable k is A.B.k.0/30\n"
	  "                    (default 192.168.0.0); refused when a cable's /24 holds\n"
	  "                    a LAN address the cluster's nodes report\n"
	  "  --dry-run         print every command, change nothing\n"
	  "  --print-sudoers   print the sudoers drop-in for --user (default admin)\n",
	  CTL_OPT_USER | CTL_OPT_KEY | CTL_OPT_PORT | CTL_OPT_CLUSTER | CTL_OPT_FINGERPRINT |
	  CTL_OPT_ACCEPT_NEW | CTL_OPT_AGENT | CTL_OPT_DRY_RUN, 0, 1, ctl_node_add },
	{ "node deprovision", "NODE [--network] [--dry-run]",
	  "Take tbmesh off a provisioned Mac over SSH.\n"
	  "Stops and removes tbagentd, its LaunchDaemon, config and state, and the\n"
	  "wired-limit LaunchDaemon.  Network settings stay unless --network.\n"
	  "  --network         also remove the Thunderbolt port services (their\n"
	  "                    network location) and turn the Thunderbolt Bridge back on\n"
	  "  --dry-run         print every command, change nothing\n",
	  CTL_OPT_NETWORK | CTL_OPT_DRY_RUN, 1, 1, ctl_node_deprovision },
	{ "node accept", "NODE [--reason TEXT]",
	  "Accept a pending node, or a pending re-enrolment of a known one.\n"
	  "A node enrolled with a bootstrap token waits as pending unless the token\n"
	  "was made with --accept or its serial is on its cluster's allow-list.\n"
	  "Accepted, it is ready at once if its latest report is fresh and healthy,\n"
	  "else at its next healthy report.  Accepting a re-enrolment makes its\n"
	  "token the node's only one (the others are revoked) and its report the\n"
	  "node's latest.\n"
	  "  --reason TEXT     why (optional; kept in the event log)\n",
	  CTL_OPT_REASON, 1, 1, ctl_node_accept },
	{ "node ssh", "NODE --host HOST [--port N] --user USER",
	  "Tell the controller how to reach a node over SSH (OS updates).\n"
	  "The controller logs in with its --ssh-key; the node's host key must\n"
	  "also be pinned with node trust.\n"
	  "  --host HOST       address or host name\n"
	  "  --port N          SSH port (default 22)\n"
	  "  --user USER       the account to log in as\n",
	  CTL_OPT_HOST | CTL_OPT_PORT | CTL_OPT_USER, 1, 1, ctl_node_ssh },
	{ "node trust", "NODE --fingerprint SHA256:...",
	  "Pin a node's SSH host key.\n"
	  "The controller refuses a node whose key is unknown or has changed; the\n"
	  "refusal shows both fingerprints.  Check the key on the node\n"
	  "(ssh-keygen -l -f /etc/ssh/ssh_host_ed25519_key.pub), then pin it.\n"
	  "  --fingerprint FP  the key's SHA256 fingerprint, as ssh-keygen -l prints it\n",
	  CTL_OPT_FINGERPRINT, 1, 1, ctl_node_trust },
	{ "credentials set", "(NODE | --cluster C) --user U --password-file F",
	  "Store the account that OS updates authenticate as.\n"
	  "softwareupdate --user U --stdinpass gets the password on its standard\n"
	  "input.  The controller keeps it outside the inventory, in a file only\n"
	  "its user can read; it is never shown again, logged or put in an event.\n"
	  "A node's own credentials win over its cluster's.\n"
	  "  --cluster C       for every node of cluster C\n"
	  "  --user U          the volume owner's account on the Mac\n"
	  "  --password-file F its password: the first line of F\n",
	  CTL_OPT_CLUSTER | CTL_OPT_USER | CTL_OPT_PASSWORD_FILE, 0, 1, ctl_credentials_set },
	{ "rollout start", "--cluster C --target VERSION --mode rolling|lockstep [options]",
	  "Update macOS on a cluster's nodes.\n"
	  "Per node: preflight (SSH with the pinned key, the update listed, free\n"
	  "disk, credentials, a healthy node), cordon, drain, download, install\n"
	  "with restart, wait for a report with a new boot time, verify (build,\n"
	  "RDMA, links, GPU wired limit), uncordon (only if the rollout cordoned\n"
	  "it).  Nodes at the target are skipped.  A failed step halts the\n"
	  "rollout and leaves the node cordoned with the reason.\n"
	  "Drain stops the node's placements (lockstep: every placement of the\n"
	  "cluster, before any node installs): degraded, with an event, memory\n"
	  "kept.  The rollout's end (or abort) restores each to active when all\n"
	  "its nodes are ready, or leaves it degraded with the reason.  While\n"
	  "builds differ, tbctl place gives no RDMA across builds.\n"
	  "  --cluster C             the cluster\n"
	  "  --target VERSION        macOS version (26.3) or build (25D125)\n"
	  "  --label L               the softwareupdate label (default: the update\n"
	  "                          to VERSION that softwareupdate --list shows)\n"
	  "  --mode rolling|lockstep rolling: at most --max-unavailable nodes out of\n"
	  "                          service at once; lockstep: all nodes together\n"
	  "  --max-unavailable N     rolling: default 1\n"
	  "  --window HH:MM-HH:MM    start nodes only in this daily window (UTC)\n"
	  "  --dry-run               print every step per node with the commands it\n"
	  "                          would run; change nothing\n",
	  CTL_OPT_CLUSTER | CTL_OPT_TARGET | CTL_OPT_LABEL | CTL_OPT_MODE |
	  CTL_OPT_MAX_UNAVAILABLE | CTL_OPT_WINDOW | CTL_OPT_DRY_RUN, 0, 0, ctl_rollout_start },
	{ "rollout status", "[ID]",
	  "Show the rollouts, or one with its nodes.\n"
	  "Per node: its step, since when, and the last line its commands printed\n"
	  "(or why it failed).\n",
	  0, 0, 1, ctl_rollout_status },
	{ "rollout pause", "[ID]",
	  "Pause a rollout after the step under way (default: the open one).\n",
	  0, 0, 1, ctl_rollout_pause },
	{ "rollout resume", "[ID]",
	  "Resume a paused rollout (default: the open one).\n",
	  0, 0, 1, ctl_rollout_resume },
	{ "rollout abort", "[ID]",
	  "Stop a rollout for good (default: the open one).\n"
	  "Nodes are left as they are: a node it cordoned stays cordoned.\n",
	  0, 0, 1, ctl_rollout_abort },
	{ "rollout retry", "NODE [ID]",
	  "Run a halted rollout's failed step on NODE again, and go on.\n",
	  0, 1, 2, ctl_rollout_retry },
	{ "token create", "[--role ROLE] [--ttl DURATION] [--cluster NAME] [--label TEXT] "
	  "[--accept]",
	  "Create a token; print it alone on stdout.\n"
	  "This is the only time the token is shown.\n"
	  "  --role ROLE       admin, viewer or bootstrap (default bootstrap: lets\n"
	  "                    one agent enrol itself, as pending until accepted)\n"
	  "  --ttl DURATION    lifetime: 90 (seconds), 3600s, 30m, 1h, 7d, 2w, 1h30m;\n"
	  "                    default 1h for bootstrap, never expires for the others\n"
	  "  --cluster NAME    bootstrap only: the cluster the enrolled node joins\n"
	  "  --label TEXT      a note shown by token list\n"
	  "  --accept          bootstrap only: pre-approved; the node it enrols (or\n"
	  "                    re-enrols) is accepted at once, not left pending\n",
	  CTL_OPT_ROLE | CTL_OPT_TTL | CTL_OPT_CLUSTER | CTL_OPT_LABEL | CTL_OPT_ACCEPT, 0, 0,
	  ctl_token_create },
	{ "token list", "",
	  "List the tokens (never their secrets).\n"
	  "CREATED and USED are how long ago; EXPIRES is the time left, \"expired\"\n"
	  "or \"never\".\n",
	  0, 0, 0, ctl_token_list },
	{ "token revoke", "ID",
	  "Revoke a token by its id.\n"
	  "ID is the 12 hex digits shown by token list.\n",
	  0, 1, 1, ctl_token_revoke },
	{ "events", "[--node NODE] [--since TIME] [--limit N]",
	  "Show the event log.\n"
	  "Times are in UTC.\n"
	  "  --node NODE       only the events about this node\n"
	  "  --since TIME      unix seconds, 2025-11-22T03:40:01Z, \"2025-11-22 03:40:01\"\n"
	  "                    (UTC), 2025-11-22, or a duration back from now: 10m, 2h, 7d\n"
	  "  --limit N         at most N events (1 to 100000; the controller's default\n"
	  "                    is 1000)\n",
	  CTL_OPT_NODE | CTL_OPT_SINCE | CTL_OPT_LIMIT, 0, 0, ctl_events },
	{ "clusters", "",
	  "List the clusters.\n"
	  "NODES is how many nodes each has, CREATED how long ago it was created,\n"
	  "ALLOWED the serial numbers on its allow-list.\n",
	  0, 0, 0, ctl_clusters_list },
	{ "cluster create", "NAME",
	  "Create an empty cluster.\n",
	  0, 1, 1, ctl_cluster_create },
	{ "cluster add", "NAME NODE...",
	  "Put nodes into a cluster.\n",
	  0, 2, -1, ctl_cluster_add },
	{ "cluster allow", "NAME SERIAL...",
	  "Put serial numbers on a cluster's allow-list.\n"
	  "A Mac whose serial is on it and that enrols with a bootstrap token for\n"
	  "the cluster is accepted at once, without tbctl node accept.\n",
	  0, 2, -1, ctl_cluster_allow },
	{ "cluster disallow", "NAME SERIAL...",
	  "Take serial numbers off a cluster's allow-list.\n"
	  "Nodes already accepted stay as they are.\n",
	  0, 2, -1, ctl_cluster_disallow },
	{ "wiring check", "[CLUSTER]",
	  "Check the Thunderbolt cabling of a cluster, or of every cluster.\n"
	  "One line per expected link: its verdict (pass, missing, miswired,\n"
	  "degraded, one-sided, rdma-off, port-down, no-ipv4, bridge-loop, os-skew,\n"
	  "unknown), what was expected, what is there, the speed and the fix;\n"
	  "then the links nobody expected, and the cluster's verdict with reasons.\n"
	  "Exit status: 0 every link passes, 1 a link fails, 2 an error.\n",
	  0, 0, 1, ctl_wiring_check },
	{ "wiring plan", "CLUSTER [--topology mesh|ring] [--save]",
	  "Propose a cabling plan, receptacle by receptacle.\n"
	  "Made from the receptacles the nodes report: none used twice, a\n"
	  "receptacle that does not carry RDMA avoided, cables already in place\n"
	  "kept.  Refused with the reason when it cannot be done (a full mesh of 8\n"
	  "needs 7 receptacles on each node).\n"
	  "  --topology T      mesh (default) or ring (in name order)\n"
	  "  --save            make it the cluster's expected wiring\n",
	  CTL_OPT_TOPOLOGY | CTL_OPT_SAVE, 1, 1, ctl_wiring_plan },
	{ "wiring import", "CLUSTER FILE",
	  "Make a DOT file the cluster's cabling plan.\n"
	  "Links are written \"mac1\":\"tb2\" -- \"mac2\":\"tb5\" (PTM and\n"
	  "mlx.distributed_config --dot style); comments and attributes are\n"
	  "ignored; a link without ports accepts any receptacle.\n",
	  0, 2, 2, ctl_wiring_import },
	{ "wiring export", "CLUSTER",
	  "Print the cluster's cabling plan as DOT.\n",
	  0, 1, 1, ctl_wiring_export },
	{ "wiring expect", "CLUSTER mesh|ring",
	  "Expect a full mesh or a ring on any receptacles (drops a plan).\n",
	  0, 2, 2, ctl_wiring_expect },
	{ "models", "",
	  "List the model catalog.\n"
	  "PARAMS and ACTIVE are total and active parameters, ATTENTION the kind\n"
	  "(MLA or GQA) with attention/KV heads, KV/TOKEN the KV cache per token,\n"
	  "TENSOR whether tensor sharding is supported, VARIANTS the sizes of the\n"
	  "weights per quantisation.  --json has every number's source.\n",
	  0, 0, 0, ctl_models_list },
	{ "models add", "FILE",
	  "Add a model to the catalog from a JSON file.\n"
	  "FILE holds one model object, in the shape of one entry of\n"
	  "tbctl models --json; it is checked here and by the controller.\n",
	  0, 1, 1, ctl_models_add },
	{ "place", "MODEL [--cluster C] [--strategy S] [--context N] [--nodes a,b,c] "
	  "[--runtime R] [--entry E] [--fast-synch] [--hostfile FILE] [--apply]",
	  "Plan where a model runs; with --apply, record the placement.\n"
	  "MODEL is NAME:QUANT from tbctl models (deepseek-v3.1:4bit).  Prints the\n"
	  "ranks (layers, weights, KV cache, total, usable memory, free after), the\n"
	  "decode estimate of each strategy, and the mlx.launch command.\n"
	  "  --cluster C        the cluster (default: the only one)\n"
	  "  --strategy S       auto (default: the fastest that fits), tensor,\n"
	  "                     pipeline or single\n"
	  "  --context N        tokens of KV cache per sequence (default 8192)\n"
	  "  --nodes a,b,c      use exactly these nodes (default: the smallest set of\n"
	  "                     the cluster's ready nodes that fits)\n"
	  "  --runtime R        mlx-lm (default: mlx.launch and mlx-lm 0.32.0's rules)\n"
	  "                     or exo (its rules; exo starts the model itself)\n"
	  "  --entry E          the mlx-lm entry point the launch line runs: chat\n"
	  "                     (default) or server\n"
	  "  --fast-synch       set MLX_METAL_FAST_SYNCH=1 (off: MLX's docs say it can\n"
	  "                     deadlock and wedge the GPU)\n"
	  "Nodes on different macOS builds (a rolling update half done) are not RDMA\n"
	  "peers: no tensor plan or jaccl ring across them; the why line says so.\n"
	  "  --hostfile FILE    write the mlx.launch hostfile to FILE\n"
	  "  --apply            record it: its memory is held on its nodes\n",
	  CTL_OPT_CLUSTER | CTL_OPT_STRATEGY | CTL_OPT_CONTEXT | CTL_OPT_NODES |
	  CTL_OPT_HOSTFILE | CTL_OPT_APPLY | CTL_OPT_RUNTIME, 1, 1, ctl_place },
	{ "placements", "",
	  "List the placements applied.\n"
	  "STATE is active, or degraded when one of its nodes became unreachable,\n"
	  "down or cordoned, or an OS update rollout stopped it (it restores it at\n"
	  "its end); tbctl placement replan ID proposes another.\n",
	  0, 0, 0, ctl_placements_list },
	{ "placement show", "ID [--hostfile FILE]",
	  "Show a placement: its ranks, estimate, hostfile and launch command.\n"
	  "  --hostfile FILE    write its mlx.launch hostfile to FILE\n",
	  CTL_OPT_HOSTFILE, 1, 1, ctl_placement_show },
	{ "placement remove", "ID",
	  "Remove a placement; the memory it held is free again.\n",
	  0, 1, 1, ctl_placement_remove },
	{ "placement replan", "ID [--hostfile FILE]",
	  "Propose a new plan for a placement's model on what is left.\n"
	  "Nodes that are not ready are left out and the placement's own memory is\n"
	  "counted as free.  Nothing is recorded: apply the proposal with tbctl\n"
	  "place --apply, then remove the old placement.\n"
	  "  --hostfile FILE    write the proposal's hostfile to FILE\n",
	  CTL_OPT_HOSTFILE, 1, 1, ctl_placement_replan },
};

static const char global_usage[] =
"usage: tbctl [--url URL] [--token-file FILE] [--ca-file FILE] [--json]\n"
"             COMMAND [ARGUMENTS]\n"
"\n"
"The command line of tbmesh: nodes, tokens, events, clusters and their\n"
"wiring, models and placements, and OS updates, over the HTTP API of\n"
"tbcontrollerd.\n"
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
		if (group == NULL || (strncmp(commands[i].name, group, n) == 0 &&
		    commands[i].name[n] == ' '))
			print_summary(f, &commands[i]);
}

static void
print_cmd_help(const struct ctl_cmd *c)
{
	printf("usage: tbctl %s%s%s\n\n%s", c->name, *c->usage ? " " : "", c->usage, c->help);
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

static int
run(const struct ctl_global *g, const struct ctl_cmd *cmd, const struct ctl_args *a)
{
	char token[TOKEN_MAX];
	struct ctl_client *cl;
	int rc, have;

	if ((rc = load_token(g, token, sizeof(token), &have)) != CTL_EXIT_OK)
		return rc;
	cl = ctl_client_new(g, have ? token : NULL);
	memset(token, 0, sizeof(token));
	if (cl == NULL)
		return ctl_fail("out of memory");
	rc = cmd->handler(cl, a);
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
