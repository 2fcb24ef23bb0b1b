/*
 * tbctl, the operator's command line over the controller's API.
 *
 * A run is: parse the global options (ctl_parse_global), find the command
 * among the entries tbctl.c assembles (ctl_cmd_find), parse its arguments
 * into a struct ctl_args (ctl_parse_args), pick the output once
 * (ctl_output_text, or ctl_output_json for --json), then the command's
 * handler sends one request and hands the reply to that output.
 *
 * Each command group's file (ctl_nodes.c, ctl_wiring.c, ...) holds its
 * commands' entries (name, usage, help, options, handler: struct ctl_cmd)
 * and their handlers, which never print a reply themselves.
 *
 * Handlers return an exit status: CTL_EXIT_OK, CTL_EXIT_FAIL after printing
 * one "tbctl: reason" line on stderr, or CTL_EXIT_USAGE for a command line
 * that makes no sense (also one line).
 *
 * Everything in ctl_parse.c, ctl_format.c and the printers of ctl_output.h
 * is pure (no network, no clock they were not given) and is what
 * tests/unit/test_ctl_*.c cover.
 */
#ifndef TBMESH_CTL_H
#define TBMESH_CTL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ctl_output.h"

#define CTL_EXIT_OK 0
#define CTL_EXIT_FAIL 1
#define CTL_EXIT_USAGE 2

#define CTL_DEFAULT_URL "http://127.0.0.1:9470"
#define CTL_DEFAULT_TOKEN_FILE ".config/tbmesh/token"  /* under $HOME */
#define CTL_POS_MAX 64           /* positional arguments of one command */

/*
 * The options a command may take besides --json and --help: X(ID, name,
 * field of struct ctl_args, kind).  A VALUE option is "--name V" or
 * "--name=V" and sets a const char *; a FLAG is "--name" alone and sets an
 * int to 1.  The enum, the parser's table (ctl_parse.c) and the sets of
 * ctl_cmd.opts are made from this list.
 */
#define CTL_OPTIONS(X) \
	X(REASON, "reason", reason, VALUE) \
	X(ROLE, "role", role, VALUE) \
	X(TTL, "ttl", ttl, VALUE) \
	X(CLUSTER, "cluster", cluster, VALUE) \
	X(LABEL, "label", label, VALUE) \
	X(NODE, "node", node, VALUE) \
	X(SINCE, "since", since, VALUE) \
	X(LIMIT, "limit", limit, VALUE) \
	X(TOPOLOGY, "topology", topology, VALUE) \
	X(STRATEGY, "strategy", strategy, VALUE) \
	X(CONTEXT, "context", context, VALUE) \
	X(NODES, "nodes", nodes, VALUE) \
	X(HOSTFILE, "hostfile", hostfile, VALUE) \
	X(RUNTIME, "runtime", runtime, VALUE) \
	X(ENTRY, "entry", entry, VALUE) \
	X(HOST, "host", host, VALUE) \
	X(PORT, "port", port, VALUE) \
	X(USER, "user", user, VALUE) \
	X(FINGERPRINT, "fingerprint", fingerprint, VALUE) \
	X(PASSWORD_FILE, "password-file", password_file, VALUE) \
	X(TARGET, "target", target, VALUE) \
	X(MODE, "mode", mode, VALUE) \
	X(MAX_UNAVAILABLE, "max-unavailable", max_unavailable, VALUE) \
	X(WINDOW, "window", window, VALUE) \
	X(KEY, "key", key, VALUE) \
	X(AGENT_BINARY, "agent-binary", agent_binary, VALUE) \
	X(WIRED_LIMIT_MB, "wired-limit-mb", wired_limit_mb, VALUE) \
	X(NAME, "name", name, VALUE) \
	X(IP_BASE, "ip-base", ip_base, VALUE) \
	X(PYTHON, "python", python, VALUE) \
	X(RESTART, "restart", restart, VALUE) \
	X(MAX_RESTARTS, "max-restarts", max_restarts, VALUE) \
	X(REPLAN, "replan", replan, VALUE) \
	X(SERVER, "server", server, FLAG) \
	X(RANK, "rank", rank, VALUE) \
	X(LINES, "lines", lines, VALUE) \
	X(INTERVAL, "interval", interval, VALUE) \
	X(FOLLOW, "follow", follow, FLAG) \
	X(ACCEPT, "accept", accept, FLAG) \
	X(SAVE, "save", save, FLAG) \
	X(ACCEPT_NEW, "accept-new", accept_new, FLAG) \
	X(PRINT_SUDOERS, "print-sudoers", print_sudoers, FLAG) \
	X(APPLY, "apply", apply, FLAG) \
	X(DRY_RUN, "dry-run", dry_run, FLAG) \
	X(NETWORK, "network", network, FLAG) \
	X(FAST_SYNCH, "fast-synch", fast_synch, FLAG)

/* Each option's number: its bit in a ctl_optset. */
enum ctl_opt {
#define CTL_OPT_ENUM(id, name, field, kind) CTL_O_##id,
	CTL_OPTIONS(CTL_OPT_ENUM)
#undef CTL_OPT_ENUM
	CTL_OPT_COUNT
};

/* The options a command takes: CTL_OPT(SINCE) | CTL_OPT(LIMIT). */
typedef uint64_t ctl_optset;
#define CTL_OPT(id) ((ctl_optset)1 << CTL_O_##id)
_Static_assert(CTL_OPT_COUNT <= sizeof(ctl_optset) * CHAR_BIT,
    "one more option than ctl_optset has bits: make the set wider");

/* The global options, before the command.  Strings point into argv or environ. */
struct ctl_global {
	const char *url;
	const char *token_file;   /* NULL: none given (see ctl_token_default) */
	const char *ca_file;      /* NULL: the system's CAs */
	int json;
	int help;
	int version;
};

/* A command, parsed: strings point into argv; NULL when not given; flags 0 or 1. */
struct ctl_args {
	const char *pos[CTL_POS_MAX];
	int npos;
	const char *reason;
	const char *role;
	const char *ttl;
	const char *cluster;
	const char *label;
	const char *node;
	const char *since;
	const char *limit;
	const char *user;
	const char *key;
	const char *port;
	const char *fingerprint;
	const char *agent_binary;
	const char *wired_limit_mb;
	const char *name;
	const char *ip_base;       /* node add: --ip-base A.B.0.0 */
	int accept_new;
	int print_sudoers;         /* node add: print the sudoers drop-in, contact nobody */
	int dry_run;
	int network;
	int accept;
	const char *topology;
	int save;
	const char *strategy;
	const char *context;
	const char *nodes;
	const char *hostfile;
	int apply;
	const char *runtime, *entry;
	int fast_synch;
	const char *host, *password_file;
	const char *target, *mode, *max_unavailable, *window;
	const char *python, *restart, *max_restarts;   /* run */
	const char *replan;                            /* run */
	int server;                                    /* run: the one entry point */
	const char *rank, *lines;                      /* job logs */
	const char *interval;                          /* job logs --follow */
	int follow;                                    /* job logs */
	int json;
	int help;
};

struct ctl_client;
struct api_token_request;

/*
 * What a command does: send its request through cl and hand the reply to
 * out.  Returns the exit status.
 */
typedef int ctl_handler(struct ctl_client *cl, const struct ctl_args *a,
    const struct ctl_output *out);

/* A command's entry, in the file of its group; tbctl.c lists them all. */
struct ctl_cmd {
	const char *name;         /* "node cordon": one or two words */
	const char *usage;        /* what follows the name: "NODE --reason TEXT" */
	const char *help;         /* description and options, for --help */
	ctl_optset opts;          /* the options it takes */
	int min_pos, max_pos;     /* positional arguments (max -1: unlimited) */
	ctl_handler *handler;
	/* more help, printed after help (generated: wiring check's verdicts); NULL none */
	void (*help_more)(FILE *f);
};

/* The entries, by the file that holds them; tbctl.c gives --help's order. */
extern const struct ctl_cmd ctl_cmd_nodes;            /* ctl_nodes.c */
extern const struct ctl_cmd ctl_cmd_node_show;        /* ctl_show.c */
extern const struct ctl_cmd ctl_cmd_node_history;     /* ctl_history.c */
extern const struct ctl_cmd ctl_cmd_node_cordon;      /* ctl_nodes.c */
extern const struct ctl_cmd ctl_cmd_node_uncordon;
extern const struct ctl_cmd ctl_cmd_node_down;
extern const struct ctl_cmd ctl_cmd_node_remove;
extern const struct ctl_cmd ctl_cmd_node_accept;
extern const struct ctl_cmd ctl_cmd_node_add;         /* ctl_prov.c */
extern const struct ctl_cmd ctl_cmd_node_deprovision;
extern const struct ctl_cmd ctl_cmd_node_ssh;         /* ctl_rollout.c */
extern const struct ctl_cmd ctl_cmd_node_trust;
extern const struct ctl_cmd ctl_cmd_credentials_set;
extern const struct ctl_cmd ctl_cmd_rollout_start;
extern const struct ctl_cmd ctl_cmd_rollout_status;
extern const struct ctl_cmd ctl_cmd_rollout_pause;
extern const struct ctl_cmd ctl_cmd_rollout_resume;
extern const struct ctl_cmd ctl_cmd_rollout_abort;
extern const struct ctl_cmd ctl_cmd_rollout_retry;
extern const struct ctl_cmd ctl_cmd_token_create;     /* ctl_tokens.c */
extern const struct ctl_cmd ctl_cmd_token_list;
extern const struct ctl_cmd ctl_cmd_token_revoke;
extern const struct ctl_cmd ctl_cmd_events;           /* ctl_events.c */
extern const struct ctl_cmd ctl_cmd_clusters;         /* ctl_clusters.c */
extern const struct ctl_cmd ctl_cmd_cluster_create;
extern const struct ctl_cmd ctl_cmd_cluster_add;
extern const struct ctl_cmd ctl_cmd_cluster_allow;
extern const struct ctl_cmd ctl_cmd_cluster_disallow;
extern const struct ctl_cmd ctl_cmd_wiring_check;     /* ctl_wiring.c */
extern const struct ctl_cmd ctl_cmd_wiring_plan;
extern const struct ctl_cmd ctl_cmd_wiring_import;
extern const struct ctl_cmd ctl_cmd_wiring_export;
extern const struct ctl_cmd ctl_cmd_wiring_expect;
extern const struct ctl_cmd ctl_cmd_models;           /* ctl_place.c */
extern const struct ctl_cmd ctl_cmd_models_add;
extern const struct ctl_cmd ctl_cmd_place;
extern const struct ctl_cmd ctl_cmd_placements;
extern const struct ctl_cmd ctl_cmd_placement_show;
extern const struct ctl_cmd ctl_cmd_placement_remove;
extern const struct ctl_cmd ctl_cmd_placement_replan;
extern const struct ctl_cmd ctl_cmd_run;              /* ctl_jobs.c */
extern const struct ctl_cmd ctl_cmd_jobs;
extern const struct ctl_cmd ctl_cmd_job_show;
extern const struct ctl_cmd ctl_cmd_job_logs;
extern const struct ctl_cmd ctl_cmd_job_stop;

/* ctl_parse.c */

/*
 * Global options: argv[1..] up to the first word that is not an option.
 * Defaults come from the environment (TBCTL_URL, TBCTL_TOKEN_FILE), passed
 * in as env_url and env_token_file (may be NULL).  On success *cmd is the
 * index of the command's first word (argc when there is none).  Returns 0,
 * or -1 with a message for a usage error.
 */
int ctl_parse_global(int argc, char **argv, const char *env_url, const char *env_token_file,
    struct ctl_global *g, int *cmd, char *err, size_t errlen);

/*
 * The global options given after the command ("tbctl nodes --token-file F",
 * as kubectl takes them): --url, --token-file and --ca-file, as "--opt V"
 * or "--opt=V", up to a "--", are taken out of argv[0..*argc) into g (a
 * later one wins over one before the command) and *argc is lowered; the
 * rest of argv keeps its order.  Returns 0, or -1 with a message for a
 * usage error (a missing or empty value, a URL that is not http(s)).
 */
int ctl_parse_global_tail(struct ctl_global *g, int *argc, char **argv, char *err,
    size_t errlen);

/*
 * The entry of table (n entries) named by the words at argv[0..]: the one
 * with the most words matching.  Sets *used to the number of words taken.
 * NULL when none matches.
 */
const struct ctl_cmd *ctl_cmd_find(const struct ctl_cmd *const *table, int n, int argc,
    char **argv, int *used);

/* 1 when word is the first word of a two-word command of the table ("node"). */
int ctl_cmd_is_group(const struct ctl_cmd *const *table, int n, const char *word);

/*
 * The arguments after the command's name: "--opt VALUE", "--opt=VALUE",
 * --json, --help or -h anywhere, "--" ends the options.  Checks the options
 * are the command's and the count of positional arguments.  Returns 0 (also
 * when --help is seen: a->help is set and nothing else is checked), or -1
 * with a message for a usage error.
 */
int ctl_parse_args(const struct ctl_cmd *cmd, int argc, char **argv, struct ctl_args *a,
    char *err, size_t errlen);

/*
 * A duration: "90" (seconds), "3600s", "30m", "1h", "7d", "2w", or sums
 * like "1h30m"; decimals allowed ("1.5h").  Returns 0 with *secs > 0, or -1.
 */
int ctl_parse_duration(const char *s, double *secs);

/*
 * A point in time: unix seconds ("1763782801"), an RFC 3339 time
 * ("2025-11-22T03:40:01Z", "...+01:00", fractions allowed), a UTC time
 * "YYYY-MM-DD HH:MM[:SS]" or a date "YYYY-MM-DD" (midnight UTC), or a
 * duration back from now ("10m", "2h"; a unit is required).  Returns 0
 * with *out in unix seconds, or -1.
 */
int ctl_parse_time(const char *s, double now, double *out);

/* A whole number from lo to hi.  Returns 0, or -1. */
int ctl_parse_count(const char *s, long lo, long hi, long *out);

/* A token id: API_TOKEN_ID_LEN lowercase hex digits.  1 when it is one. */
int ctl_token_id_valid(const char *s);

/*
 * Read the bearer token from path into buf (size bytes), trimming white
 * space.  Returns 0; *loose is set when the file is readable by its group
 * or others (the caller warns).  Returns -1 with a message naming the file
 * when it cannot be read, is empty, too long or holds more than one word.
 */
int ctl_token_read(const char *path, char *buf, size_t size, int *loose, char *err,
    size_t errlen);

/*
 * The default token file: $HOME/.config/tbmesh/token when it exists, into
 * buf.  Returns 0, or -1 when there is none (no token is sent).
 */
int ctl_token_default(const char *home, char *buf, size_t size);

/* ctl_common.c: what every command shares. */

/* Print one "tbctl: ..." line on stderr. */
void ctl_errx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* ctl_errx, then return CTL_EXIT_FAIL / CTL_EXIT_USAGE. */
int ctl_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int ctl_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The time now, in unix seconds. */
double ctl_now(void);
/* CTL_EXIT_OK when name is a valid node or cluster name (kind says which), else a usage error. */
int ctl_name_check(const char *cmd, const char *kind, const char *name);
/* CTL_EXIT_OK when text (option opt) is given, not blank, short enough, one line. */
int ctl_reason_check(const char *cmd, const char *usage, const char *text, const char *opt);
/*
 * GET path and hand the reply to show (an entry of the output table).
 * Returns the exit status.
 */
int ctl_get(struct ctl_client *cl, const struct ctl_args *a, const char *path,
    ctl_reply_fn *show);

/* Request builders: a command's arguments into what it sends. */

/*
 * token create's options (role, ttl, cluster, label) into a request:
 * role bootstrap by default; ttl 1h by default for bootstrap, never for the
 * others.  Returns 0, or -1 with a message for a usage error.
 */
int ctl_token_request_parse(const struct ctl_args *a, struct api_token_request *req,
    char *err, size_t errlen);

/*
 * The request path of tbctl events: "/v1/events?node=N&since=T&limit=L"
 * with what was given; --since as ctl_parse_time reads it, sent in whole
 * unix seconds.  Returns 0, or -1 with a message for a usage error.
 */
int ctl_events_path(const struct ctl_args *a, double now, char *buf, size_t size, char *err,
    size_t errlen);

/* The request of node history (NODE, --since default an hour ago, --limit); 0 or -1 with err. */
int ctl_history_path(const struct ctl_args *a, double now, char *buf, size_t size, char *err,
    size_t errlen);

struct prov_api_request;
/*
 * node add's arguments into a request: HOST, --user, --key (made absolute
 * with cwd), --port, --cluster, --name, --fingerprint or --accept-new,
 * --dry-run, --agent-binary (made absolute), --wired-limit-mb.  Returns 0,
 * or -1 with a message for a usage error.
 */
int ctl_prov_request(const struct ctl_args *a, const char *cwd, struct prov_api_request *req,
    char *err, size_t errlen);

/* 1 when a provisioning status's state has ended (not "running" nor "waiting"). */
int ctl_prov_ended(const char *state);

struct plan_request;
/*
 * tbctl place's arguments into a request: MODEL, --cluster, --strategy,
 * --context, --nodes a,b,c.  0, or -1 with a message for a usage error.
 */
int ctl_place_request(const struct ctl_args *a, struct plan_request *req, char *err,
    size_t errlen);

struct job_request;
/*
 * tbctl run's arguments into a request: PLACEMENT (an id), --port,
 * --python, --restart never|on-failure, --max-restarts; what is not given
 * is the controller's default.  0, or -1 with a message for a usage error.
 */
int ctl_run_request(const struct ctl_args *a, struct job_request *req, char *err,
    size_t errlen);

/*
 * The request path of tbctl job logs ID [--rank R] [--lines N]:
 * "/v1/jobs/ID/logs" with "?rank=R&lines=N" as given.  0, or -1 with a
 * message for a usage error.
 */
int ctl_job_logs_path(const struct ctl_args *a, char *buf, size_t size, char *err,
    size_t errlen);

#endif
