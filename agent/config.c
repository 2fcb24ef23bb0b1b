/*
 * Configuration: one setter for every key, used by the file parser and the
 * flag parser alike, so a key means the same in both places.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "collector.h"
#include "conf.h"
#include "httpd.h"
#include "log.h"
#include "ps_line.h"

const char agent_usage[] =
"usage: tbagentd [options]\n"
"\n"
"Reports this node's Thunderbolt links, RDMA state, memory and power.\n"
"Runs in the foreground; collects every --interval seconds and serves\n"
"GET /metrics (Prometheus), GET /v1/report (JSON) and GET /healthz.\n"
"\n"
"  --once                     collect one report, print it as JSON, exit\n"
"  --pretty                   with --once: indent the JSON\n"
"  --backend darwin|linux|sim where to read the node's state (default: darwin\n"
"                             on macOS, linux elsewhere)\n"
"  --name NAME                node name (default: the host's name)\n"
"  --root DIR                 linux: sysfs/procfs root (default /)\n"
"  --scenario FILE --node NAME\n"
"                             sim: one node of a cluster scenario file\n"
"  --interval SECONDS         between collections (default 5)\n"
"  --command-timeout SECONDS  darwin: per external command (default 5)\n"
"  --topology-interval SECONDS\n"
"                             darwin: between reads of the Thunderbolt\n"
"                             topology and RDMA, sooner when a cable is pulled\n"
"                             or plugged (default 60, at most 120)\n"
"  --listen HOST:PORT         where to serve (default " AGENT_DEFAULT_LISTEN ";\n"
"                             port 0 picks a free one; \"none\" serves nothing)\n"
"  --max-connections N        HTTP connections at once (default 64)\n"
"  --max-connections-per-client N\n"
"                             HTTP connections at once from one address; more\n"
"                             are closed at once (default 8; 0: no limit)\n"
"  --request-deadline SECONDS a request must arrive within this, from its\n"
"                             first byte or from the connection's start;\n"
"                             else it is closed (default 10)\n"
"  --idle-timeout SECONDS     an HTTP connection silent this long is closed\n"
"                             (default 10)\n"
"  --controller URL           the tbcontrollerd to report to\n"
"  --bootstrap-token-file F   one-time enrolment token for the controller\n"
"  --state-dir DIR            where the node token is kept (default\n"
"                             " AGENT_DEFAULT_STATE_DIR ")\n"
"  --ca-file FILE             CA certificate that signs the controller's\n"
"  --jobs-dir DIR             where the controller leaves its jobs' pid files,\n"
"                             whose processes each report lists (default\n"
"                             " JOB_DIR_DEFAULT "; \"none\": not read)\n"
"  -f CONFIG                  configuration file (key = value; keys are the\n"
"                             long option names)\n"
"  -n                         check the configuration and exit\n"
"  --syslog                   log to syslog instead of stderr\n"
"  --log-level LEVEL          error, warning, info (default) or debug\n"
"  -V, --version              print the version and exit\n"
"  -h, --help                 this text\n"
"\n"
"Signals: SIGTERM and SIGINT stop it; SIGHUP re-reads the configuration.\n";

static int
set_str(char **dst, const char *v)
{
	char *s = strdup(v);

	if (s == NULL)
		return -1;
	free(*dst);
	*dst = s;
	return 0;
}

/* Set one key, from the file or a flag.  Returns -1 with a message. */
static int
config_set(struct agent_config *c, const char *key, const char *v, char *err, size_t errlen)
{
	static const struct {
		const char *key;
		size_t off;
	} strs[] = {
		{ "backend", offsetof(struct agent_config, backend) },
		{ "name", offsetof(struct agent_config, name) },
		{ "root", offsetof(struct agent_config, root) },
		{ "scenario", offsetof(struct agent_config, scenario) },
		{ "node", offsetof(struct agent_config, node) },
		{ "listen", offsetof(struct agent_config, listen) },
		{ "controller", offsetof(struct agent_config, controller) },
		{ "bootstrap-token-file", offsetof(struct agent_config, bootstrap_token_file) },
		{ "state-dir", offsetof(struct agent_config, state_dir) },
		{ "ca-file", offsetof(struct agent_config, ca_file) },
		{ "jobs-dir", offsetof(struct agent_config, jobs_dir) },
	};

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		if (strcmp(key, strs[i].key) != 0)
			continue;
		if (set_str((char **)(void *)((char *)c + strs[i].off), v) == -1) {
			snprintf(err, errlen, "%s: out of memory", key);
			return -1;
		}
		return 0;
	}
	int rc = http_limits_set(&c->http, key, v, err, errlen);
	if (rc <= 0)
		return rc;
	if (strcmp(key, "interval") == 0)
		return conf_seconds(key, v, 0.1, 86400, &c->interval, err, errlen);
	if (strcmp(key, "command-timeout") == 0)
		return conf_seconds(key, v, 0.05, 600, &c->cmd_timeout, err, errlen);
	if (strcmp(key, "topology-interval") == 0)
		return conf_seconds(key, v, 0.1, AGENT_MAX_TOPOLOGY_INTERVAL, &c->topology_interval, err, errlen);
	if (strcmp(key, "log-level") == 0)
		return log_level_parse(v, &c->log_level, err, errlen);
	if (strcmp(key, "log") == 0) {
		if (strcmp(v, "syslog") != 0 && strcmp(v, "stderr") != 0) {
			snprintf(err, errlen, "log: \"%s\" is not stderr or syslog", v);
			return -1;
		}
		c->use_syslog = strcmp(v, "syslog") == 0;
		return 0;
	}
	snprintf(err, errlen, "unknown key \"%s\"", key);
	return -1;
}

/* conf_read_file's setter: ctx is the config. */
static int
config_set_cb(void *ctx, const char *key, const char *value, char *err, size_t errlen)
{
	return config_set(ctx, key, value, err, errlen);
}

static void
config_defaults(struct agent_config *c)
{
	memset(c, 0, sizeof(*c));
	c->interval = AGENT_DEFAULT_INTERVAL;
	c->cmd_timeout = AGENT_DEFAULT_CMD_TIMEOUT;
	c->topology_interval = AGENT_DEFAULT_TOPOLOGY_INTERVAL;
	c->http = (struct http_limits){ HTTPD_DEFAULT_MAX_CONNECTIONS,
		HTTPD_DEFAULT_MAX_PER_CLIENT, HTTPD_DEFAULT_REQUEST_DEADLINE,
		HTTPD_DEFAULT_IDLE_TIMEOUT };
	c->log_level = LOG_LVL_INFO;
}

static const struct option longopts[] = {
	{ "once", no_argument, NULL, 'o' },
	{ "pretty", no_argument, NULL, 'P' },
	{ "backend", required_argument, NULL, 'b' },
	{ "name", required_argument, NULL, 'N' },
	{ "root", required_argument, NULL, 'r' },
	{ "scenario", required_argument, NULL, 's' },
	{ "node", required_argument, NULL, 'd' },
	{ "interval", required_argument, NULL, 'i' },
	{ "command-timeout", required_argument, NULL, 't' },
	{ "topology-interval", required_argument, NULL, 'Y' },
	{ "listen", required_argument, NULL, 'l' },
	{ "max-connections", required_argument, NULL, 'm' },
	{ "max-connections-per-client", required_argument, NULL, 'k' },
	{ "request-deadline", required_argument, NULL, 'R' },
	{ "idle-timeout", required_argument, NULL, 'T' },
	{ "controller", required_argument, NULL, 'c' },
	{ "bootstrap-token-file", required_argument, NULL, 'B' },
	{ "state-dir", required_argument, NULL, 'S' },
	{ "ca-file", required_argument, NULL, 'C' },
	{ "jobs-dir", required_argument, NULL, 'J' },
	{ "syslog", no_argument, NULL, 'y' },
	{ "log-level", required_argument, NULL, 'L' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void
getopt_reset(void)
{
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__)
	extern int optreset;
	optreset = 1;
	optind = 1;
#else
	optind = 0;
#endif
}

/* Pass 1 (flags_only == 0) finds -f; pass 2 applies every flag. */
static int
config_flags(struct agent_config *c, int argc, char **argv, int apply, char *err,
    size_t errlen)
{
	int ch;

	getopt_reset();
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":f:nhV", longopts, NULL)) != -1) {
		const char *key = NULL;
		for (const struct option *o = longopts; o->name; o++)
			if (o->val == ch)
				key = o->name;
		switch (ch) {
		case 'f':
			if (!apply && set_str(&c->config_file, optarg) == -1)
				return -1;
			continue;
		case 'n': c->check_only = 1; continue;
		case 'o': c->once = 1; continue;
		case 'P': c->pretty = 1; continue;
		case 'y': c->use_syslog = 1; continue;
		case 'h': case 'V':
			continue; /* handled by main before loading */
		case ':':
			snprintf(err, errlen, "%s: needs a value", argv[optind - 1]);
			return -1;
		case '?':
			snprintf(err, errlen, "%s: unknown option", argv[optind - 1]);
			return -1;
		}
		if (apply && key != NULL && config_set(c, key, optarg, err, errlen) == -1)
			return -1;
	}
	if (optind < argc) {
		snprintf(err, errlen, "%s: unexpected argument", argv[optind]);
		return -1;
	}
	return 0;
}

int
config_load(struct agent_config *c, int argc, char **argv, char *err, size_t errlen)
{
	config_defaults(c);
	if (config_flags(c, argc, argv, 0, err, errlen) == -1)
		return -1;
	if (c->config_file != NULL && conf_read_file(c->config_file, config_set_cb, c, err, errlen) == -1)
		return -1;
	return config_flags(c, argc, argv, 1, err, errlen);
}

int
config_reload(struct agent_config *c, int argc, char **argv, char *err, size_t errlen)
{
	struct agent_config n;

	if (config_load(&n, argc, argv, err, errlen) == -1 ||
	    config_validate(&n, err, errlen) == -1) {
		config_free(&n);
		return -1;
	}
	config_free(c);
	*c = n;
	return 0;
}

/*
 * The controller knows a node by its name: it must be one the controller
 * takes.  A --name is checked always; the host name when it is reported to
 * a controller.
 */
static int
config_check_name(const struct agent_config *c, char *err, size_t errlen)
{
	char host[256] = "";
	const char *name = c->name;

	if (name == NULL) {
		if (c->controller == NULL || (c->backend != NULL && strcmp(c->backend, "sim") == 0))
			return 0;  /* not sent, or the scenario's node name */
		if (gethostname(host, sizeof(host) - 1) == -1)
			return 0;
		name = host;
	}
	if (api_name_valid(name))
		return 0;
	snprintf(err, errlen, "name: \"%s\" is not a node name the controller takes (1 to %d "
	    "letters, digits, '.', '_' or '-', not starting with '.' or '-')%s", name,
	    API_NAME_MAX, c->name == NULL ? "; set one with --name" : "");
	return -1;
}

/* A file the daemon reads (kind "file") or a directory it reads under ("dir"). */
static int
config_check_path(const char *key, const char *path, const char *kind, char *err,
    size_t errlen)
{
	int dir = strcmp(kind, "dir") == 0;
	struct stat st;

	if (path == NULL)
		return 0;
	if (stat(path, &st) == 0 && (dir ? !S_ISDIR(st.st_mode) : S_ISDIR(st.st_mode))) {
		snprintf(err, errlen, "%s: %s: %s", key, path,
		    dir ? "not a directory" : "is a directory");
		return -1;
	}
	if (access(path, dir ? R_OK | X_OK : R_OK) == -1) {
		snprintf(err, errlen, "%s: %s: %s", key, path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A controller needs a way in: a bootstrap token file, or a node token already saved. */
static int
config_check_enrol(const struct agent_config *c, char *err, size_t errlen)
{
	const char *dir = c->state_dir != NULL ? c->state_dir : AGENT_DEFAULT_STATE_DIR;
	char path[4096];

	if (c->controller == NULL || c->bootstrap_token_file != NULL)
		return 0;
	snprintf(path, sizeof(path), "%s/node-token", dir);
	if (access(path, F_OK) == 0)
		return 0;
	snprintf(err, errlen, "controller: needs --bootstrap-token-file or a node token in %s",
	    dir);
	return -1;
}

int
config_validate(const struct agent_config *c, char *err, size_t errlen)
{
	char host[256];
	int port;

	if (c->backend != NULL && backend_find(c->backend) == NULL) {
		snprintf(err, errlen, "backend: \"%s\" is not darwin, linux or sim", c->backend);
		return -1;
	}
	if (c->backend != NULL && strcmp(c->backend, "sim") == 0 &&
	    (c->scenario == NULL || c->node == NULL)) {
		snprintf(err, errlen, "backend sim needs --scenario FILE and --node NAME");
		return -1;
	}
	if (c->listen != NULL && strcmp(c->listen, "none") != 0 && c->listen[0] != '\0' &&
	    conf_split_hostport(c->listen, host, sizeof(host), &port, err, errlen) == -1)
		return -1;
	if (c->controller != NULL && strncmp(c->controller, "http://", 7) != 0 &&
	    strncmp(c->controller, "https://", 8) != 0) {
		snprintf(err, errlen, "controller: \"%s\" is not an http:// or https:// URL",
		    c->controller);
		return -1;
	}
	if (config_check_name(c, err, errlen) == -1 || config_check_enrol(c, err, errlen) == -1)
		return -1;
	if (c->jobs_dir != NULL && c->jobs_dir[0] != '/' && strcmp(c->jobs_dir, "none") != 0) {
		snprintf(err, errlen, "jobs-dir: \"%s\" is not an absolute path or \"none\"",
		    c->jobs_dir);
		return -1;
	}
	if (config_check_path("scenario", c->scenario, "file", err, errlen) == -1 ||
	    config_check_path("root", c->root, "dir", err, errlen) == -1 ||
	    config_check_path("ca-file", c->ca_file, "file", err, errlen) == -1)
		return -1;
	return 0;
}

void
config_free(struct agent_config *c)
{
	char **strs[] = { &c->config_file, &c->backend, &c->name, &c->root, &c->scenario,
		&c->node, &c->listen, &c->controller, &c->bootstrap_token_file, &c->state_dir,
		&c->ca_file, &c->jobs_dir };

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		free(*strs[i]);
		*strs[i] = NULL;
	}
}

const char *
config_jobs_dir(const struct agent_config *c)
{
	if (c->jobs_dir == NULL)
		return JOB_DIR_DEFAULT;
	return strcmp(c->jobs_dir, "none") == 0 || c->jobs_dir[0] == '\0' ? NULL : c->jobs_dir;
}
