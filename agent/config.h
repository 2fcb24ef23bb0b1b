/*
 * tbagentd's configuration: a file of "key = value" lines (keys are the long
 * option names: backend, name, root, scenario, node, interval, listen,
 * controller, bootstrap-token-file, state-dir, ca-file, command-timeout,
 * topology-interval, jobs-dir,
 * max-connections, max-connections-per-client, request-deadline,
 * idle-timeout, log, log-level; '#' starts a comment) and command-line
 * flags, which win over the file.  Strings are owned by the struct:
 * config_free() releases them.
 */
#ifndef TBMESH_AGENT_CONFIG_H
#define TBMESH_AGENT_CONFIG_H

#include <stddef.h>

#include "http_limits.h"

#define AGENT_DEFAULT_LISTEN "127.0.0.1:9469"
#define AGENT_DEFAULT_INTERVAL 5.0
#define AGENT_DEFAULT_CMD_TIMEOUT 5.0
#define AGENT_DEFAULT_TOPOLOGY_INTERVAL 60.0
/*
 * The controller counts Thunderbolt and RDMA facts read more than its
 * --unreachable-after plus 120 s ago as stale (WIRING_FACTS_GRACE): an
 * agent must re-read them more often than that.
 */
#define AGENT_MAX_TOPOLOGY_INTERVAL 120
#define AGENT_DEFAULT_STATE_DIR "/var/lib/tbagentd"

struct agent_config {
	char *config_file;        /* -f */
	char *backend;            /* darwin | linux | sim; NULL: the platform's */
	char *name;
	char *root;
	char *scenario;
	char *node;
	double interval;          /* seconds between collections */
	double cmd_timeout;       /* seconds per external command */
	double topology_interval; /* darwin: seconds between Thunderbolt topology reads */
	char *listen;             /* HOST:PORT; "" or "none": do not serve */
	struct http_limits http;  /* of the server on listen (read at start) */
	char *controller;         /* URL; NULL: do not push */
	char *bootstrap_token_file;
	char *state_dir;
	char *ca_file;
	char *jobs_dir;           /* the jobs' pid files; NULL: JOB_DIR_DEFAULT; "none": not read */
	int use_syslog;
	int log_level;            /* enum log_level */
	int once;                 /* --once */
	int check_only;           /* -n */
	int pretty;               /* --once: indented JSON */
};

/* Defaults, then the file named by -f (if any), then the flags. */
int config_load(struct agent_config *c, int argc, char **argv, char *err, size_t errlen);

/* Re-read the file and re-apply the same flags (SIGHUP). On error *c is unchanged. */
int config_reload(struct agent_config *c, int argc, char **argv, char *err, size_t errlen);

/* Checks that go beyond syntax: the backend exists, its inputs are given. */
int config_validate(const struct agent_config *c, char *err, size_t errlen);

void config_free(struct agent_config *c);

/* Where the jobs' pid files are read (jobprocs.h), NULL when not at all. */
const char *config_jobs_dir(const struct agent_config *c);

/* The usage text for --help. */
extern const char agent_usage[];

#endif
