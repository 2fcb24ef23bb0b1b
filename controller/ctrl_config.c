/*
 * Configuration: one setter for every key, used by the file parser and the
 * flag parser alike, so that a key means the same in both places.
 */
#include "ctrl_config.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_server.h"
#include "conf.h"
#include "log.h"

const char ctrl_config_usage[] =
"usage: tbcontrollerd [options]\n"
"\n"
"The tbmesh controller: keeps the inventory of nodes in an SQLite file,\n"
"takes the agents' enrolments and reports, and serves the API that tbctl\n"
"and the dashboard use.  Runs in the foreground.\n"
"\n"
"  --db FILE                 the inventory (default " CTRL_DEFAULT_DB ")\n"
"  --listen HOST:PORT        API address (default " CTRL_DEFAULT_LISTEN "; port 0\n"
"                            picks a free one and logs it)\n"
"  --admin-token-file FILE   where the first admin token is written at first\n"
"                            start, mode 0600 (default " CTRL_DEFAULT_ADMIN_TOKEN_FILE ")\n"
"  --web-root DIR            serve the dashboard's files from DIR at /\n"
"                            (default: the dashboard compiled in)\n"
"  --tls-cert FILE --tls-key FILE\n"
"                            serve HTTPS with this certificate and key (PEM)\n"
"  --max-connections N       API connections at once (default 16384; lowered\n"
"                            to what the open-files limit holds)\n"
"  --max-connections-per-client N\n"
"                            API connections at once from one address; more\n"
"                            are closed at once (default 64; 0: no limit)\n"
"  --request-deadline SECONDS\n"
"                            a request's line, headers and body must arrive\n"
"                            within this, from its first byte or from the\n"
"                            connection's start; else it is closed (default 15)\n"
"  --idle-timeout SECONDS    a connection silent this long is closed\n"
"                            (default 30)\n"
"  --unreachable-after SECONDS\n"
"                            a ready node with no report for this long becomes\n"
"                            unreachable (default 30)\n"
"  --retention SECONDS       history of samples kept (default 604800, a week)\n"
"  --catalog FILE            the model catalog (default: the one compiled in,\n"
"                            data/catalog.json of the build); models added\n"
"                            with POST /v1/models are known either way\n"
"  --headroom GIB            memory placements leave free on every node\n"
"                            (default 8)\n"
"  --state-dir DIR           where update passwords are kept, in credentials/\n"
"                            (mode 0700; default: the directory of --db)\n"
"  --ssh-key FILE            the controller's SSH private key (OpenSSH format,\n"
"                            no passphrase), for OS updates and provisioning\n"
"                            (tbctl node add; off without it)\n"
"  --password-command CMD    print an update password instead of reading it\n"
"                            from the state directory: run by /bin/sh with the\n"
"                            scope (node or cluster), its name and the user as\n"
"                            $1 $2 $3; its first line is the password\n"
"  --ssh-timeout SECONDS     SSH connect timeout (default 10)\n"
"  --ssh-command-timeout SECONDS\n"
"                            per short SSH command (default 60)\n"
"  --install-timeout SECONDS per softwareupdate download or install\n"
"                            (default 7200)\n"
"  --boot-timeout SECONDS    how long an updated node may take to report\n"
"                            again with a new boot time (default 1800)\n"
"  --job-check-interval SECONDS\n"
"                            how often each job's ranks are checked (one ps\n"
"                            per node over SSH) and rank 0 is probed with a\n"
"                            one-token completion (default 5)\n"
"  --job-probe-timeout SECONDS\n"
"                            how long one probe may take (default 10)\n"
"  --job-hang-after SECONDS  a running job whose probe has failed this long\n"
"                            while a rank burns a core is hung; twice this\n"
"                            long, whatever the CPU (default 30)\n"
"  --job-start-timeout SECONDS\n"
"                            how long a job may take from its start to its\n"
"                            first answer, loading included (default 600)\n"
"  --provision-agent FILE    the macOS tbagentd that tbctl node add installs\n"
"  --provision-url URL       the controller's URL as provisioned agents reach it\n"
"                            (default: http(s)://HOST:PORT of --listen)\n"
"  --provision-report-wait SECONDS\n"
"                            how long node add waits for the first report\n"
"                            (default 120)\n"
"  --provision-root DIR      write every file on the Macs under DIR (\"%h\" is\n"
"                            the host); for tests with simulated Macs\n"
"  -f CONFIG                 configuration file (key = value; keys are the long\n"
"                            option names)\n"
"  -n                        check the configuration and exit\n"
"  --syslog                  log to syslog\n"
"  --log-level LEVEL         error, warning, info (default) or debug\n"
"  -V, --version, -h, --help\n"
"\n"
"Signals: SIGTERM and SIGINT stop it after storing what was acknowledged;\n"
"SIGHUP reads the configuration again and applies its log level (the other\n"
"settings take effect at the next start).\n";


/* The keys that take a string, and where it goes. */
static const struct {
	const char *key;
	size_t off;
} string_keys[] = {
	{ "db", offsetof(struct ctrl_config, db) },
	{ "listen", offsetof(struct ctrl_config, listen) },
	{ "admin-token-file", offsetof(struct ctrl_config, admin_token_file) },
	{ "web-root", offsetof(struct ctrl_config, web_root) },
	{ "tls-cert", offsetof(struct ctrl_config, tls_cert) },
	{ "tls-key", offsetof(struct ctrl_config, tls_key) },
	{ "catalog", offsetof(struct ctrl_config, catalog) },
	{ "state-dir", offsetof(struct ctrl_config, state_dir) },
	{ "ssh-key", offsetof(struct ctrl_config, ssh_key) },
	{ "password-command", offsetof(struct ctrl_config, password_command) },
	{ "provision-agent", offsetof(struct ctrl_config, provision_agent) },
	{ "provision-url", offsetof(struct ctrl_config, provision_url) },
	{ "provision-root", offsetof(struct ctrl_config, provision_root) },
};

/* The keys that take seconds, their range, and where they go. */
static const struct {
	const char *key;
	double lo, hi;
	size_t off;
} seconds_keys[] = {
	{ "unreachable-after", 1, 86400, offsetof(struct ctrl_config, unreachable_after) },
	{ "retention", 60, 1e9, offsetof(struct ctrl_config, retention) },
	{ "ssh-timeout", 1, 3600, offsetof(struct ctrl_config, ssh_timeout) },
	{ "ssh-command-timeout", 1, 86400, offsetof(struct ctrl_config, ssh_command_timeout) },
	{ "install-timeout", 1, 86400, offsetof(struct ctrl_config, install_timeout) },
	{ "boot-timeout", 1, 86400, offsetof(struct ctrl_config, boot_timeout) },
	{ "provision-report-wait", 1, 86400, offsetof(struct ctrl_config, provision_report_wait) },
	{ "job-check-interval", 0.1, 3600, offsetof(struct ctrl_config, job_check_interval) },
	{ "job-probe-timeout", 0.1, 3600, offsetof(struct ctrl_config, job_probe_timeout) },
	{ "job-hang-after", 1, 86400, offsetof(struct ctrl_config, job_hang_after) },
	{ "job-start-timeout", 1, 86400, offsetof(struct ctrl_config, job_start_timeout) },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* A string or seconds key: 0 set, -1 with a message, 1 when key is neither. */
static int
set_typed(struct ctrl_config *c, const char *key, const char *v, char *err, size_t errlen)
{
	for (size_t i = 0; i < NELEM(string_keys); i++) {
		if (strcmp(key, string_keys[i].key) != 0)
			continue;
		char **str = (char **)(void *)((char *)c + string_keys[i].off);
		free(*str);
		*str = strdup(v);
		return *str ? 0 : -1;
	}
	for (size_t i = 0; i < NELEM(seconds_keys); i++)
		if (strcmp(key, seconds_keys[i].key) == 0)
			return conf_seconds(key, v, seconds_keys[i].lo, seconds_keys[i].hi,
			    (double *)(void *)((char *)c + seconds_keys[i].off), err, errlen);
	return 1;
}

static int
set_headroom(struct ctrl_config *c, const char *v, char *err, size_t errlen)
{
	char *end;
	double g = strtod(v, &end);

	if (end == v || *end != '\0' || !(g >= 0 && g <= 65536)) {
		snprintf(err, errlen, "headroom: \"%s\" is not GiB in 0..65536", v);
		return -1;
	}
	c->headroom_gib = g;
	return 0;
}

/* One key of the file or the command line (conf_setter).  0, or -1 with a message. */
static int
set_key(void *ctx, const char *key, const char *v, char *err, size_t errlen)
{
	struct ctrl_config *c = ctx;
	int rc;

	if ((rc = set_typed(c, key, v, err, errlen)) <= 0)
		return rc;
	if (strcmp(key, "headroom") == 0)
		return set_headroom(c, v, err, errlen);
	if ((rc = http_limits_set(&c->http, key, v, err, errlen)) <= 0)
		return rc;
	if (strcmp(key, "log-level") == 0)
		return log_level_parse(v, &c->log_level, err, errlen);
	snprintf(err, errlen, "unknown key \"%s\"", key);
	return -1;
}

static const struct option longopts[] = {
	{ "db", required_argument, NULL, 1 },
	{ "listen", required_argument, NULL, 1 },
	{ "admin-token-file", required_argument, NULL, 1 },
	{ "web-root", required_argument, NULL, 1 },
	{ "tls-cert", required_argument, NULL, 1 },
	{ "tls-key", required_argument, NULL, 1 },
	{ "unreachable-after", required_argument, NULL, 1 },
	{ "retention", required_argument, NULL, 1 },
	{ "state-dir", required_argument, NULL, 1 },
	{ "ssh-key", required_argument, NULL, 1 },
	{ "password-command", required_argument, NULL, 1 },
	{ "ssh-timeout", required_argument, NULL, 1 },
	{ "ssh-command-timeout", required_argument, NULL, 1 },
	{ "install-timeout", required_argument, NULL, 1 },
	{ "boot-timeout", required_argument, NULL, 1 },
	{ "provision-agent", required_argument, NULL, 1 },
	{ "provision-url", required_argument, NULL, 1 },
	{ "provision-root", required_argument, NULL, 1 },
	{ "provision-report-wait", required_argument, NULL, 1 },
	{ "job-check-interval", required_argument, NULL, 1 },
	{ "job-probe-timeout", required_argument, NULL, 1 },
	{ "job-hang-after", required_argument, NULL, 1 },
	{ "job-start-timeout", required_argument, NULL, 1 },
	{ "log-level", required_argument, NULL, 1 },
	{ "catalog", required_argument, NULL, 1 },
	{ "headroom", required_argument, NULL, 1 },
	{ "max-connections", required_argument, NULL, 1 },
	{ "max-connections-per-client", required_argument, NULL, 1 },
	{ "request-deadline", required_argument, NULL, 1 },
	{ "idle-timeout", required_argument, NULL, 1 },
	{ "syslog", no_argument, NULL, 's' },
	{ NULL, 0, NULL, 0 },
};

static void
set_defaults(struct ctrl_config *c)
{
	memset(c, 0, sizeof(*c));
	c->unreachable_after = 30;
	c->retention = 604800;
	c->headroom_gib = 8;
	c->ssh_timeout = 10;
	c->ssh_command_timeout = 60;
	c->install_timeout = 7200;
	c->boot_timeout = 1800;
	c->provision_report_wait = 120;
	c->job_check_interval = 5;
	c->job_probe_timeout = 10;
	c->job_hang_after = 30;
	c->job_start_timeout = 600;
	c->http = (struct http_limits){ API_DEFAULT_MAX_CONNECTIONS, API_DEFAULT_MAX_PER_CLIENT,
		API_DEFAULT_REQUEST_DEADLINE, API_DEFAULT_IDLE_TIMEOUT };
	c->log_level = LOG_LVL_INFO;
}

/* Flags after the file: pass 1 finds -f and reads the file, pass 2 applies the rest. */
int
ctrl_config_load(struct ctrl_config *c, int argc, char **argv, char *err, size_t errlen)
{
	const char *file = NULL;
	int ch, idx;

	set_defaults(c);
	opterr = 0;
	for (int pass = 0; pass < 2; pass++) {
		optind = 1;
		while ((ch = getopt_long(argc, argv, ":f:n", longopts, &idx)) != -1) {
			if (ch == '?' || ch == ':') {
				snprintf(err, errlen, "%s: %s", argv[optind - 1],
				    ch == '?' ? "unknown option" : "needs a value");
				return -1;
			}
			if (pass == 0 && ch == 'f')
				file = optarg;
			if (pass == 1 && ch == 'n')
				c->check_only = 1;
			if (pass == 1 && ch == 's')
				c->use_syslog = 1;
			if (pass == 1 && ch == 1 &&
			    set_key(c, longopts[idx].name, optarg, err, errlen) == -1)
				return -1;
		}
		if (pass == 0 && file != NULL && conf_read_file(file, set_key, c, err, errlen) == -1)
			return -1;
	}
	if (optind < argc) {
		snprintf(err, errlen, "%s: unexpected argument", argv[optind]);
		return -1;
	}
	return 0;
}

/* The defaults that depend on other settings: 0, or -1 when out of memory. */
static int
fill_paths(struct ctrl_config *c)
{
	if (c->db == NULL && (c->db = strdup(CTRL_DEFAULT_DB)) == NULL)
		return -1;
	if (c->listen == NULL && (c->listen = strdup(CTRL_DEFAULT_LISTEN)) == NULL)
		return -1;
	if (c->admin_token_file == NULL &&
	    (c->admin_token_file = strdup(CTRL_DEFAULT_ADMIN_TOKEN_FILE)) == NULL)
		return -1;
	if (c->state_dir == NULL) {
		const char *slash = strrchr(c->db, '/');
		size_t len = slash == NULL ? 0 : slash == c->db ? 1 : (size_t)(slash - c->db);
		if ((c->state_dir = len == 0 ? strdup(".") : strndup(c->db, len)) == NULL)
			return -1;
	}
	return 0;
}

/* The files named can be read (web_root: searched). */
static int
check_files(const struct ctrl_config *c, char *err, size_t errlen)
{
	if (c->ssh_key != NULL && access(c->ssh_key, R_OK) == -1) {
		snprintf(err, errlen, "ssh-key: %s: %s", c->ssh_key, strerror(errno));
		return -1;
	}
	if ((c->tls_cert == NULL) != (c->tls_key == NULL)) {
		snprintf(err, errlen, "--tls-cert and --tls-key go together");
		return -1;
	}
	const char *files[] = { c->tls_cert, c->tls_key };
	for (int i = 0; i < 2; i++)
		if (files[i] != NULL && access(files[i], R_OK) == -1) {
			snprintf(err, errlen, "%s: %s", files[i], strerror(errno));
			return -1;
		}
	if (c->web_root != NULL && access(c->web_root, R_OK | X_OK) == -1) {
		snprintf(err, errlen, "web-root: %s: %s", c->web_root, strerror(errno));
		return -1;
	}
	return 0;
}

int
ctrl_config_check(struct ctrl_config *c, char *err, size_t errlen)
{
	char host[256];
	int port;

	if (fill_paths(c) == -1)
		return -1;
	if (conf_split_hostport(c->listen, host, sizeof(host), &port, err, errlen) == -1)
		return -1;
	return check_files(c, err, errlen);
}

void
ctrl_config_free(struct ctrl_config *c)
{
	for (size_t i = 0; i < NELEM(string_keys); i++) {
		char **str = (char **)(void *)((char *)c + string_keys[i].off);
		free(*str);
		*str = NULL;
	}
}
