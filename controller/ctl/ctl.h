/*
 * tbctl, the operator's command line over the controller's API.
 *
 * A run is: parse the global options (ctl_parse_global), find the command
 * in the table (ctl_cmd_find), parse its arguments into a struct ctl_args
 * (ctl_parse_args), then the command's handler sends one request and prints
 * the reply through ctl_output.c (people) or ctl_output_json.c (--json).
 *
 * Handlers return an exit status: CTL_EXIT_OK, CTL_EXIT_FAIL after printing
 * one "tbctl: reason" line on stderr, or CTL_EXIT_USAGE for a command line
 * that makes no sense (also one line).
 *
 * Everything in ctl_parse.c and ctl_output.c is pure (no network, no
 * clock they were not given) and is what tests/unit/test_ctl_output.c covers.
 */
#ifndef TBMESH_CTL_H
#define TBMESH_CTL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CTL_EXIT_OK 0
#define CTL_EXIT_FAIL 1
#define CTL_EXIT_USAGE 2

#define CTL_DEFAULT_URL "http://127.0.0.1:9470"
#define CTL_DEFAULT_TOKEN_FILE ".config/tbmesh/token"  /* under $HOME */
#define CTL_POS_MAX 64           /* positional arguments of one command */

/* Options a command accepts besides --json and --help (bits of ctl_cmd.opts). */
enum ctl_opt {
	CTL_OPT_REASON = 1 << 0,
	CTL_OPT_ROLE = 1 << 1,
	CTL_OPT_TTL = 1 << 2,
	CTL_OPT_CLUSTER = 1 << 3,
	CTL_OPT_LABEL = 1 << 4,
	CTL_OPT_NODE = 1 << 5,
	CTL_OPT_SINCE = 1 << 6,
	CTL_OPT_LIMIT = 1 << 7,
	CTL_OPT_ACCEPT = 1 << 8,   /* --accept, a flag without a value */
	CTL_OPT_TOPOLOGY = 1 << 9,
	CTL_OPT_SAVE = 1 << 10,        /* a flag: --save */
	CTL_OPT_HOST = 1 << 11,
	CTL_OPT_PORT = 1 << 12,
	CTL_OPT_USER = 1 << 13,
	CTL_OPT_FINGERPRINT = 1 << 14,
	CTL_OPT_PASSWORD_FILE = 1 << 15,
	CTL_OPT_TARGET = 1 << 16,
	CTL_OPT_MODE = 1 << 17,
	CTL_OPT_MAX_UNAVAILABLE = 1 << 18,
	CTL_OPT_WINDOW = 1 << 19,
	CTL_OPT_DRY_RUN = 1 << 20,     /* a flag: --dry-run */
	CTL_OPT_STRATEGY = 1 << 21,  /* placement's, from bit 21 */
	CTL_OPT_CONTEXT = 1 << 22,
	CTL_OPT_NODES = 1 << 23,
	CTL_OPT_HOSTFILE = 1 << 24,
	CTL_OPT_APPLY = 1 << 25,     /* a flag: --apply */
	CTL_OPT_KEY = 1 << 26,         /* node add: --key */
	CTL_OPT_ACCEPT_NEW = 1 << 27,  /* node add: a flag, --accept-new */
	CTL_OPT_AGENT = 1 << 28,       /* node add: --agent-binary, --wired-limit-mb, --name */
	CTL_OPT_NETWORK = 1 << 29,     /* a flag: --network */
	CTL_OPT_RUNTIME = 1 << 30,     /* place: --runtime, --entry, and the flag --fast-synch */
};

/* The global options, before the command.  Strings point into argv or environ. */
struct ctl_global {
	const char *url;
	const char *token_file;   /* NULL: none given (see ctl_token_default) */
	const char *ca_file;      /* NULL: the system's CAs */
	int json;
	int help;
	int version;
};

/* A command, parsed: strings point into argv; NULL when not given. */
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
	int accept_new;            /* flags */
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
	int json;
	int help;
};

struct ctl_client;
struct api_node;
struct api_token;
struct api_event;
struct api_cluster;
struct api_token_request;
struct report;

/* One entry of the command table (tbctl.c). */
struct ctl_cmd {
	const char *name;         /* "node cordon": one or two words */
	const char *usage;        /* what follows the name: "NODE --reason TEXT" */
	const char *help;         /* description and options, for --help */
	unsigned opts;            /* enum ctl_opt bits accepted */
	int min_pos, max_pos;     /* positional arguments (max -1: unlimited) */
	int (*handler)(struct ctl_client *, const struct ctl_args *);
};

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
const struct ctl_cmd *ctl_cmd_find(const struct ctl_cmd *table, int n, int argc, char **argv,
    int *used);

/* 1 when word is the first word of a two-word command of the table ("node"). */
int ctl_cmd_is_group(const struct ctl_cmd *table, int n, const char *word);

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

/* Print one "tbctl: ..." line on stderr. */
void ctl_errx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* ctl_errx, then return CTL_EXIT_FAIL / CTL_EXIT_USAGE. */
int ctl_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int ctl_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ctl_nodes.c: what every handler shares. */
/* The time now, in unix seconds. */
double ctl_now(void);
/* CTL_EXIT_OK when name is a valid node or cluster name (kind says which), else a usage error. */
int ctl_name_check(const char *cmd, const char *kind, const char *name);
/* CTL_EXIT_OK when text (option opt) is given, not blank, short enough, one line. */
int ctl_reason_check(const char *cmd, const char *usage, const char *text, const char *opt);
/* --json given before or after the command. */
int ctl_want_json(struct ctl_client *cl, const struct ctl_args *a);

/*
 * What a listing command does with its reply body: decode it, print it for
 * people on stdout, free it.  Returns 0; -1 when it does not decode (why in
 * err); CTL_SHOW_OOM when out of memory.
 */
#define CTL_SHOW_OOM (-2)
typedef int (*ctl_show_fn)(const char *body, size_t len, char *err, size_t errlen);
/*
 * GET path and print the reply: as it came (indented) with --json, else
 * through show.  what names the reply in an error: "cannot decode what: ...".
 * Returns the exit status.
 */
int ctl_get_show(struct ctl_client *cl, const struct ctl_args *a, const char *path,
    const char *what, ctl_show_fn show);

/*
 * What the handlers print for people, given the decoded reply and the time
 * now (for ages).  Return 0, or -1 when out of memory.  ctl_nodes_print
 * sorts nodes by name (proto_natcmp); r may be NULL (no report yet).
 */
int ctl_nodes_print(FILE *f, struct api_node *nodes, int n, double now);
int ctl_show_print(FILE *f, const struct api_node *n, const struct report *r, double now);
int ctl_tokens_print(FILE *f, const struct api_token *t, int n, double now);
int ctl_events_print(FILE *f, const struct api_event *ev, int n);
int ctl_clusters_print(FILE *f, const struct api_cluster *c, int n, double now);

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

/* ctl_prov.c: node add and node deprovision. */
struct prov_api_request;
struct prov_api_status;

/*
 * node add's arguments into a request: HOST, --user, --key (made absolute
 * with cwd), --port, --cluster, --name, --fingerprint or --accept-new,
 * --dry-run, --agent-binary (made absolute), --wired-limit-mb.  Returns 0,
 * or -1 with a message for a usage error.
 */
int ctl_prov_request(const struct ctl_args *a, const char *cwd, struct prov_api_request *req,
    char *err, size_t errlen);

/*
 * Print what is new in status s since the last call: preflight lines from
 * *lines on, step records from *steps on (both advanced); when s has
 * ended, the outcome ("mac1 is ready", the failed step and what was undone,
 * the manual step).  Returns 0, or -1 when out of memory.
 */
int ctl_prov_print(FILE *f, const struct prov_api_status *s, int *lines, int *steps);

/* 1 when status state has ended (not "running" nor "waiting"). */
int ctl_prov_ended(const char *state);


/* ctl_place.c: what tbctl place, placements and models print. */
struct plan;
struct plan_request;
struct catalog_model;
/*
 * tbctl place's arguments into a request: MODEL, --cluster, --strategy,
 * --context, --nodes a,b,c.  0, or -1 with a message for a usage error.
 */
int ctl_place_request(const struct ctl_args *a, struct plan_request *req, char *err,
    size_t errlen);
/* The plan for people; hostfile: the file it was written to (NULL: none). */
int ctl_placement_print(FILE *f, const struct plan *p, const char *hostfile);
int ctl_placements_print(FILE *f, const struct plan *ps, int n, double now);
int ctl_models_print(FILE *f, const struct catalog_model *m, int n);

/* Handlers (ctl_nodes.c, ctl_show.c, ctl_tokens.c, ctl_events.c, ctl_clusters.c,
 * ctl_place.c). */
int ctl_nodes_list(struct ctl_client *, const struct ctl_args *);
int ctl_node_show(struct ctl_client *, const struct ctl_args *);
int ctl_node_cordon(struct ctl_client *, const struct ctl_args *);
int ctl_node_uncordon(struct ctl_client *, const struct ctl_args *);
int ctl_node_down(struct ctl_client *, const struct ctl_args *);
int ctl_node_accept(struct ctl_client *, const struct ctl_args *);
int ctl_node_remove(struct ctl_client *, const struct ctl_args *);
int ctl_node_add(struct ctl_client *, const struct ctl_args *);
int ctl_node_deprovision(struct ctl_client *, const struct ctl_args *);
int ctl_token_create(struct ctl_client *, const struct ctl_args *);
int ctl_token_list(struct ctl_client *, const struct ctl_args *);
int ctl_token_revoke(struct ctl_client *, const struct ctl_args *);
int ctl_events(struct ctl_client *, const struct ctl_args *);
int ctl_cluster_create(struct ctl_client *, const struct ctl_args *);
int ctl_cluster_add(struct ctl_client *, const struct ctl_args *);
int ctl_cluster_allow(struct ctl_client *, const struct ctl_args *);
int ctl_cluster_disallow(struct ctl_client *, const struct ctl_args *);
int ctl_clusters_list(struct ctl_client *, const struct ctl_args *);
int ctl_wiring_check(struct ctl_client *, const struct ctl_args *);
int ctl_wiring_plan(struct ctl_client *, const struct ctl_args *);
int ctl_wiring_import(struct ctl_client *, const struct ctl_args *);
int ctl_wiring_export(struct ctl_client *, const struct ctl_args *);
int ctl_wiring_expect(struct ctl_client *, const struct ctl_args *);

/* ctl_wiring.c: a wiring check and a cabling plan for people. 0, or -1 (memory). */
struct wiring_result;
struct wiring_plan_doc;
int ctl_wiring_print(FILE *f, const struct wiring_result *r);
int ctl_plan_print(FILE *f, const struct wiring_plan_doc *p);
int ctl_models_list(struct ctl_client *, const struct ctl_args *);
int ctl_models_add(struct ctl_client *, const struct ctl_args *);
int ctl_place(struct ctl_client *, const struct ctl_args *);
int ctl_placements_list(struct ctl_client *, const struct ctl_args *);
int ctl_placement_show(struct ctl_client *, const struct ctl_args *);
int ctl_placement_remove(struct ctl_client *, const struct ctl_args *);
int ctl_placement_replan(struct ctl_client *, const struct ctl_args *);

/* ctl_history.c: tbctl node history. */
int ctl_node_history(struct ctl_client *, const struct ctl_args *);
struct api_sample;
/* The request of node history (NODE, --since default an hour ago, --limit); 0 or -1 with err. */
int ctl_history_path(const struct ctl_args *a, double now, char *buf, size_t size, char *err,
    size_t errlen);
int ctl_history_print(FILE *f, const struct api_sample *s, int n);
/* ctl_rollout.c: SSH access, credentials, OS updates */
int ctl_node_ssh(struct ctl_client *, const struct ctl_args *);
int ctl_node_trust(struct ctl_client *, const struct ctl_args *);
int ctl_credentials_set(struct ctl_client *, const struct ctl_args *);
int ctl_rollout_start(struct ctl_client *, const struct ctl_args *);
int ctl_rollout_status(struct ctl_client *, const struct ctl_args *);
int ctl_rollout_pause(struct ctl_client *, const struct ctl_args *);
int ctl_rollout_resume(struct ctl_client *, const struct ctl_args *);
int ctl_rollout_abort(struct ctl_client *, const struct ctl_args *);
int ctl_rollout_retry(struct ctl_client *, const struct ctl_args *);

struct ro_campaign;
/* rollout status for people: one campaign with its nodes, at time now. */
int ctl_rollout_print(FILE *f, const struct ro_campaign *c, double now);
/* The list of campaigns, newest first. */
int ctl_rollouts_print(FILE *f, const struct ro_campaign *c, int n, double now);

#endif
