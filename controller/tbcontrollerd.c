/*
 * tbcontrollerd: the inventory and the API.  Threads: libmicrohttpd's pool
 * serves the API; the ingest writer stores reports in group commits; the
 * tick thread marks silent nodes unreachable and prunes old samples; the
 * main thread waits for signals.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api_server.h"
#include "auth.h"
#include "checkpointer.h"
#include "wmon.h"
#include "conf.h"
#include "ctrl.h"
#include "provision_job.h"
#include "ingest.h"
#include "lifecycle.h"
#include "rollout_run.h"
#include "log.h"
#include "placement_ctrl.h"
#include "version.h"

#define DEFAULT_DB "/var/lib/tbcontrollerd/inventory.db"
#define DEFAULT_LISTEN "127.0.0.1:9470"
#define DEFAULT_ADMIN_TOKEN_FILE "/var/lib/tbcontrollerd/admin-token"

struct config {
	char *db, *listen, *admin_token_file, *web_root, *tls_cert, *tls_key, *catalog;
	char *state_dir, *ssh_key, *password_command;
	char *provision_agent, *provision_url, *provision_root;
	double provision_report_wait;
	double unreachable_after, retention, headroom_gib;
	double ssh_timeout, ssh_command_timeout, install_timeout, boot_timeout;
	struct http_limits http;
	int log_level, use_syslog, check_only;
};

static const char usage[] =
"usage: tbcontrollerd [options]\n"
"\n"
"The tbmesh controller: keeps the inventory of nodes in an SQLite file,\n"
"takes the agents' enrolments and reports, and serves the API that tbctl\n"
"and the dashboard use.  Runs in the foreground.\n"
"\n"
"  --db FILE                 the inventory (default " DEFAULT_DB ")\n"
"  --listen HOST:PORT        API address (default " DEFAULT_LISTEN "; port 0\n"
"                            picks a free one and logs it)\n"
"  --admin-token-file FILE   where the first admin token is written at first\n"
"                            start, mode 0600 (default " DEFAULT_ADMIN_TOKEN_FILE ")\n"
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

static int sigfds[2] = { -1, -1 };
static volatile sig_atomic_t stopping, reloading;

static int
set_key(void *ctx, const char *key, const char *v, char *err, size_t errlen)
{
	struct config *c = ctx;
	static const char *levels[] = { "error", "warning", "info", "debug" };
	char **str = NULL;

	if (strcmp(key, "db") == 0) str = &c->db;
	else if (strcmp(key, "listen") == 0) str = &c->listen;
	else if (strcmp(key, "admin-token-file") == 0) str = &c->admin_token_file;
	else if (strcmp(key, "web-root") == 0) str = &c->web_root;
	else if (strcmp(key, "tls-cert") == 0) str = &c->tls_cert;
	else if (strcmp(key, "tls-key") == 0) str = &c->tls_key;
	else if (strcmp(key, "catalog") == 0) str = &c->catalog;
	else if (strcmp(key, "state-dir") == 0) str = &c->state_dir;
	else if (strcmp(key, "ssh-key") == 0) str = &c->ssh_key;
	else if (strcmp(key, "password-command") == 0) str = &c->password_command;
	else if (strcmp(key, "provision-agent") == 0) str = &c->provision_agent;
	else if (strcmp(key, "provision-url") == 0) str = &c->provision_url;
	else if (strcmp(key, "provision-root") == 0) str = &c->provision_root;
	if (str != NULL) {
		free(*str);
		*str = strdup(v);
		return *str ? 0 : -1;
	}
	if (strcmp(key, "unreachable-after") == 0)
		return conf_seconds(key, v, 1, 86400, &c->unreachable_after, err, errlen);
	if (strcmp(key, "retention") == 0)
		return conf_seconds(key, v, 60, 1e9, &c->retention, err, errlen);
	if (strcmp(key, "headroom") == 0) {
		char *end;
		double g = strtod(v, &end);
		if (end == v || *end != '\0' || !(g >= 0 && g <= 65536)) {
			snprintf(err, errlen, "headroom: \"%s\" is not GiB in 0..65536", v);
			return -1;
		}
		c->headroom_gib = g;
		return 0;
	}
	if (strcmp(key, "ssh-timeout") == 0)
		return conf_seconds(key, v, 1, 3600, &c->ssh_timeout, err, errlen);
	if (strcmp(key, "ssh-command-timeout") == 0)
		return conf_seconds(key, v, 1, 86400, &c->ssh_command_timeout, err, errlen);
	if (strcmp(key, "install-timeout") == 0)
		return conf_seconds(key, v, 1, 86400, &c->install_timeout, err, errlen);
	if (strcmp(key, "boot-timeout") == 0)
		return conf_seconds(key, v, 1, 86400, &c->boot_timeout, err, errlen);
	if (strcmp(key, "provision-report-wait") == 0)
		return conf_seconds(key, v, 1, 86400, &c->provision_report_wait, err, errlen);
	int rc = http_limits_set(&c->http, key, v, err, errlen);
	if (rc <= 0)
		return rc;
	if (strcmp(key, "log-level") == 0) {
		for (int i = 0; i < 4; i++)
			if (strcmp(v, levels[i]) == 0)
				return c->log_level = i, 0;
		snprintf(err, errlen, "log-level: \"%s\" is not error, warning, info or debug", v);
		return -1;
	}
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

/* Flags after the file: pass 1 finds -f and reads the file, pass 2 applies the rest. */
static int
load_config(struct config *c, int argc, char **argv, char *err, size_t errlen)
{
	const char *file = NULL;
	int ch, idx;

	memset(c, 0, sizeof(*c));
	c->unreachable_after = 30;
	c->retention = 604800;
	c->headroom_gib = 8;
	c->ssh_timeout = 10;
	c->ssh_command_timeout = 60;
	c->install_timeout = 7200;
	c->boot_timeout = 1800;
	c->provision_report_wait = 120;
	c->http = (struct http_limits){ API_DEFAULT_MAX_CONNECTIONS, API_DEFAULT_MAX_PER_CLIENT,
		API_DEFAULT_REQUEST_DEADLINE, API_DEFAULT_IDLE_TIMEOUT };
	c->log_level = LOG_LVL_INFO;
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

static int
validate_config(struct config *c, char *err, size_t errlen)
{
	char host[256];
	int port;

	if (c->db == NULL && (c->db = strdup(DEFAULT_DB)) == NULL)
		return -1;
	if (c->listen == NULL && (c->listen = strdup(DEFAULT_LISTEN)) == NULL)
		return -1;
	if (c->admin_token_file == NULL &&
	    (c->admin_token_file = strdup(DEFAULT_ADMIN_TOKEN_FILE)) == NULL)
		return -1;
	if (conf_split_hostport(c->listen, host, sizeof(host), &port, err, errlen) == -1)
		return -1;
	if (c->state_dir == NULL) {
		const char *slash = strrchr(c->db, '/');
		size_t len = slash == NULL ? 0 : slash == c->db ? 1 : (size_t)(slash - c->db);
		if ((c->state_dir = len == 0 ? strdup(".") : strndup(c->db, len)) == NULL)
			return -1;
	}
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

static void
free_config(struct config *c)
{
	free(c->db);
	free(c->listen);
	free(c->admin_token_file);
	free(c->web_root);
	free(c->tls_cert);
	free(c->tls_key);
	free(c->catalog);
	free(c->state_dir);
	free(c->ssh_key);
	free(c->password_command);
	free(c->provision_agent);
	free(c->provision_url);
	free(c->provision_root);
}

/* Make path's directory entry durable: fsync the directory that holds it. */
static int
sync_parent(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	size_t n = slash == NULL ? 1 : slash == path ? 1 : (size_t)(slash - path);

	if (n >= sizeof(dir))
		return -1;
	memcpy(dir, slash == NULL ? "." : path, n);
	dir[n] = '\0';
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

/* Write the token to a new file, mode 0600, durably; refuses to overwrite. */
static int
write_token_file(const char *path, const char *token)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd == -1) {
		log_errx("%s: %s", path, strerror(errno));
		return -1;
	}
	size_t n = strlen(token);
	int ok = write(fd, token, n) == (ssize_t)n && write(fd, "\n", 1) == 1 && fsync(fd) == 0;
	close(fd);
	if (ok && sync_parent(path) == -1) {
		log_errx("%s: cannot sync its directory: %s", path, strerror(errno));
		ok = 0;
	}
	if (!ok) {
		unlink(path);
		log_errx("%s: could not write the admin token", path);
		return -1;
	}
	return 0;
}

static int
register_admin(struct ctrl *c, const char *id, const uint8_t *hash, const char *label)
{
	struct api_token t = { .role = ROLE_ADMIN, .created_at = ctrl_now(),
		.expires_at = NAN, .used_at = NAN };

	report_strset(t.id, sizeof(t.id), id);
	report_strset(t.label, sizeof(t.label), label);
	if (inv_token_add(c->inv, &t, hash) != 0)
		return -1;
	ctrl_event(c, t.created_at, "controller", "", "admin token created", label);
	return 0;
}

/*
 * First start: no admin token in the inventory.  Create one and write it to
 * the file; or, when the file already holds one (a fresh inventory beside an
 * old file), register that one.
 */
/* Admin tokens that work now: neither revoked nor expired; -1 on error. */
static int
valid_admins(struct ctrl *c, double now)
{
	struct api_token *t;
	int n, valid = 0;

	if (inv_token_list(c->inv, &t, &n) == -1)
		return -1;
	for (int i = 0; i < n; i++)
		valid += t[i].role == ROLE_ADMIN && !t[i].revoked &&
		    (isnan(t[i].expires_at) || now < t[i].expires_at);
	free(t);
	return valid;
}

/*
 * The admin token file names a token the inventory knows but that no longer
 * works (revoked or expired): fine when other admin tokens work (a
 * warning), fatal when none does.  0, or -1.
 */
static int
check_file_token(struct ctrl *c, const char *path, const char *id, int valid, double now)
{
	struct api_token t;
	uint8_t hash[AUTH_HASH_LEN];
	const char *why;

	if (inv_token_get(c->inv, id, &t, hash) != 0)
		return 0;
	if (t.revoked)
		why = "revoked";
	else if (!isnan(t.expires_at) && now >= t.expires_at)
		why = "expired";
	else
		return 0;
	if (valid > 0) {
		log_warnx("%s holds admin token %s, which is %s; %d other admin token%s "
		    "work%s", path, id, why, valid, valid == 1 ? "" : "s", valid == 1 ? "s" : "");
		return 0;
	}
	log_errx("%s holds admin token %s, which is %s, and no other admin token works: "
	    "remove %s to have a new one made at the next start", path, id, why, path);
	return -1;
}

static int
ensure_admin_token(struct ctrl *c, const char *path)
{
	char id[API_TOKEN_ID_LEN + 1], token[API_TOKEN_MAX + 2];
	uint8_t hash[AUTH_HASH_LEN];
	double now = ctrl_now();
	int admins = valid_admins(c, now);

	if (admins < 0) {
		log_errx("cannot read the admin tokens of the inventory");
		return -1;
	}
	FILE *f = fopen(path, "r");
	if (f != NULL) {
		int ok = fgets(token, sizeof(token), f) != NULL;
		fclose(f);
		token[strcspn(token, "\r\n")] = '\0';
		ok = ok && auth_token_parse(token, id, hash) == 0;
		if (ok && check_file_token(c, path, id, admins, now) == -1)
			return -1;
		if (admins > 0)
			return 0;
		if (!ok) {
			log_errx("%s holds no valid token; remove it to have a new one made", path);
			return -1;
		}
		return register_admin(c, id, hash, "from the existing admin token file");
	}
	if (admins > 0)
		return 0;
	if (auth_token_new(id, token, hash) == -1 || write_token_file(path, token) == -1)
		return -1;
	log_info("first start: admin token written to %s", path);
	return register_admin(c, id, hash, "made at first start");
}

struct tick_arg {
	double now, unreachable_after;
};

static int
tick_due(const struct lc_node *lc, void *arg)
{
	const struct tick_arg *ta = arg;

	return lc_tick_due(lc, ta->now, ta->unreachable_after);
}

/*
 * Time passed: the nodes it changes (picked under the registry's lock,
 * without copying the others), each decided again on what is current under
 * inv_mu, stored, with its events, and the registry updated.
 */
static void
tick_once(struct ctrl *c, double now)
{
	struct tick_arg ta = { .now = now, .unreachable_after = c->unreachable_after };
	api_name *names;
	int n;

	if (registry_select(c->reg, tick_due, &ta, &names, &n) == -1)
		return;
	for (int i = 0; i < n; i++) {
		struct lc_result res;
		struct reg_node cur;
		/* decide on what is current under the lock, so a command in between wins */
		pthread_mutex_lock(&c->inv_mu);
		if (registry_get_node(c->reg, names[i], &cur) == 0) {
			lc_on_tick(&cur.lc, now, c->unreachable_after, &res);
			if (res.changed)
				ctrl_apply(c, &cur, &res, now, "controller");
		}
		pthread_mutex_unlock(&c->inv_mu);
	}
	free(names);
}

static void *
ticker(void *arg)
{
	struct ctrl *c = arg;
	double last_prune = 0;

	while (!stopping) {
		double now = ctrl_now();
		tick_once(c, now);
		if (now - last_prune > 60) {
			pthread_mutex_lock(&c->inv_mu);
			int64_t gone = inv_samples_prune(c->inv, now - c->retention);
			pthread_mutex_unlock(&c->inv_mu);
			if (gone > 0)
				log_info("pruned %lld samples older than %.0f s", (long long)gone,
				    c->retention);
			last_prune = now;
		}
		poll(NULL, 0, 500);
	}
	return NULL;
}

static void
on_signal(int sig)
{
	if (sig == SIGHUP)
		reloading = 1;
	else
		stopping = 1;
	ssize_t w = write(sigfds[1], "x", 1);
	(void)w;
}

/* From the start, so that no signal that stops us cleanly can kill us first. */
static void
catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	if (pipe(sigfds) == -1)
		fatalx("pipe: %s", strerror(errno));
	fcntl(sigfds[0], F_SETFL, O_NONBLOCK);
	fcntl(sigfds[1], F_SETFL, O_NONBLOCK);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/*
 * SIGHUP: read the command line and the configuration file again.  The log
 * level applies at once; the rest (addresses, files, timeouts) is fixed
 * for the life of the process, and a bad file changes nothing.
 */
static void
reload(int argc, char **argv)
{
	static const char *levels[] = { "error", "warning", "info", "debug" };
	struct config cfg;
	char err[512];

	if (load_config(&cfg, argc, argv, err, sizeof(err)) == -1) {
		log_warnx("SIGHUP: %s; settings unchanged", err);
	} else {
		log_setlevel((enum log_level)cfg.log_level);
		/* said at the most severe level shown, so that it is always seen */
		log_msg((enum log_level)(cfg.log_level < LOG_LVL_INFO ? cfg.log_level :
		    LOG_LVL_INFO), __func__,
		    "SIGHUP: configuration read again; log level %s (other settings take "
		    "effect at the next start)", levels[cfg.log_level]);
	}
	free_config(&cfg);
}

static void
wait_for_signal(int argc, char **argv)
{
	char buf[16];

	while (!stopping) {
		struct pollfd p = { .fd = sigfds[0], .events = POLLIN };
		poll(&p, 1, 1000);
		while (read(sigfds[0], buf, sizeof(buf)) > 0)
			;
		if (reloading && !stopping) {
			reloading = 0;
			reload(argc, argv);
		}
	}
}

static int
serve(struct config *cfg, int argc, char **argv)
{
	struct ctrl c = { .inv_mu = PTHREAD_MUTEX_INITIALIZER,
		.unreachable_after = cfg->unreachable_after, .retention = cfg->retention,
		.state_dir = cfg->state_dir, .ssh_key = cfg->ssh_key,
		.password_command = cfg->password_command, .ssh_connect_timeout = cfg->ssh_timeout,
		.ssh_command_timeout = cfg->ssh_command_timeout,
		.install_timeout = cfg->install_timeout, .boot_timeout = cfg->boot_timeout };
	struct api_tls tls = { cfg->tls_cert, cfg->tls_key };
	char err[512], host[256];
	int port;
	pthread_t tick;

	signal(SIGPIPE, SIG_IGN);
	catch_signals();
	if ((c.inv = inv_open(cfg->db, err, sizeof(err))) == NULL)
		fatalx("%s", err);
	c.store.inv = c.inv;
	if (ensure_admin_token(&c, cfg->admin_token_file) == -1)
		fatalx("cannot start without a usable admin token");
	if ((c.reg = registry_new()) == NULL || registry_load(c.reg, c.inv) == -1)
		fatalx("cannot start: the inventory could not be read");
	rollout_rearm_reboots(&c);
	if (inv_prov_interrupted(c.inv, ctrl_now(), "the controller stopped during the run") > 0)
		log_warnx("provisioning runs cut short by the last stop are marked failed");
	c.place_headroom = (int64_t)(cfg->headroom_gib * (1 << 30));
	if (placement_catalog_load(&c, cfg->catalog, err, sizeof(err)) == -1)
		fatalx("%s", err);
	if ((c.ingest = ingest_start(&c)) == NULL)
		fatalx("cannot start the ingest thread");
	if ((c.wmon = wmon_new(&c)) == NULL || wmon_start(c.wmon) == -1)
		fatalx("cannot start the wiring thread");
	struct ckpt *ckpt = ckpt_start(&c, cfg->db);
	conf_split_hostport(cfg->listen, host, sizeof(host), &port, err, sizeof(err));
	struct api_server *api = api_start(&c, host, port, &tls, cfg->web_root, &cfg->http, err,
	    sizeof(err));
	if (api == NULL)
		fatalx("%s", err);
	log_info("listening on %s:%d (%s)", host, api_port(api), cfg->tls_cert ? "https" : "http");
	pthread_create(&tick, NULL, ticker, &c);
	struct rollout_runner *runner = rollout_runner_start(&c, &rollout_adapters_builtin);
	char agent_url[300];
	snprintf(agent_url, sizeof(agent_url), "%s://%s:%d", cfg->tls_cert ? "https" : "http",
	    host, api_port(api));
	struct prov_session_ops ops;
	prov_ssh_ops(&c, &ops);
	struct prov_jobs_config pcfg = { cfg->provision_agent,
		cfg->provision_url != NULL ? cfg->provision_url : agent_url,
		cfg->provision_report_wait, (int)c.ssh_command_timeout,
		cfg->provision_root != NULL ? cfg->provision_root : "", 0 };
	if (cfg->ssh_key != NULL && (c.prov = prov_jobs_new(&c, &ops, &pcfg)) == NULL)
		fatalx("cannot start provisioning");
	if (runner == NULL)
		fatalx("cannot start the rollout runner");
	wait_for_signal(argc, argv);
	log_info("stopping");
	rollout_runner_stop(runner);
	/* no new connections; store and answer every queued report (this resumes
	 * their suspended connections); only then stop the server */
	api_quiesce(api);
	ingest_stop(c.ingest);
	api_stop(api);
	prov_jobs_free(c.prov);
	ingest_free(c.ingest);
	pthread_join(tick, NULL);
	wmon_stop(c.wmon);
	wmon_free(c.wmon);
	ckpt_stop(ckpt);
	registry_free(c.reg);
	inv_close(c.inv);
	free(c.models);
	return 0;
}

int
main(int argc, char **argv)
{
	struct config cfg;
	char err[512];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return fputs(usage, stdout), 0;
		if (strcmp(argv[i], "-V") == 0 || strcmp(argv[i], "--version") == 0)
			return printf("tbcontrollerd %s\n", TBMESH_VERSION), 0;
	}
	log_init("tbcontrollerd", 0, LOG_LVL_INFO);
	if (load_config(&cfg, argc, argv, err, sizeof(err)) == -1 ||
	    validate_config(&cfg, err, sizeof(err)) == -1) {
		fprintf(stderr, "tbcontrollerd: %s\nTry 'tbcontrollerd --help'.\n", err);
		free_config(&cfg);
		return 2;
	}
	if (cfg.check_only) {
		printf("configuration OK\n");
		free_config(&cfg);
		return 0;
	}
	log_init("tbcontrollerd", cfg.use_syslog, (enum log_level)cfg.log_level);
	int rc = serve(&cfg, argc, argv);
	free_config(&cfg);
	return rc;
}
