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
#include "conf.h"
#include "ctrl.h"
#include "provision_job.h"
#include "ingest.h"
#include "lifecycle.h"
#include "log.h"
#include "version.h"

#define DEFAULT_DB "/var/lib/tbcontrollerd/inventory.db"
#define DEFAULT_LISTEN "127.0.0.1:9470"
#define DEFAULT_ADMIN_TOKEN_FILE "/var/lib/tbcontrollerd/admin-token"

struct config {
	char *db, *listen, *admin_token_file, *web_root, *tls_cert, *tls_key;
	double unreachable_after, retention;
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
"  --tls-cert FILE --tls-key FILE\n"
"                            serve HTTPS with this certificate and key (PEM)\n"
"  --unreachable-after SECONDS\n"
"                            a ready node with no report for this long becomes\n"
"                            unreachable (default 30)\n"
"  --retention SECONDS       history of samples kept (default 604800, a week)\n"
"  -f CONFIG                 configuration file (key = value; keys are the long\n"
"                            option names)\n"
"  -n                        check the configuration and exit\n"
"  --syslog                  log to syslog\n"
"  --log-level LEVEL         error, warning, info (default) or debug\n"
"  -V, --version, -h, --help\n"
"\n"
"Signals: SIGTERM and SIGINT stop it after storing what was acknowledged.\n";

static int sigfds[2] = { -1, -1 };
static volatile sig_atomic_t stopping;

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
	if (str != NULL) {
		free(*str);
		*str = strdup(v);
		return *str ? 0 : -1;
	}
	if (strcmp(key, "unreachable-after") == 0)
		return conf_seconds(key, v, 1, 86400, &c->unreachable_after, err, errlen);
	if (strcmp(key, "retention") == 0)
		return conf_seconds(key, v, 60, 1e9, &c->retention, err, errlen);
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
	{ "log-level", required_argument, NULL, 1 },
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
}

/* Write the token to a new file, mode 0600; refuses to overwrite. */
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
static int
ensure_admin_token(struct ctrl *c, const char *path)
{
	char id[API_TOKEN_ID_LEN + 1], token[API_TOKEN_MAX + 2];
	uint8_t hash[AUTH_HASH_LEN];

	if (inv_token_count(c->inv, ROLE_ADMIN) > 0)
		return 0;
	FILE *f = fopen(path, "r");
	if (f != NULL) {
		int ok = fgets(token, sizeof(token), f) != NULL;
		fclose(f);
		token[strcspn(token, "\r\n")] = '\0';
		if (!ok || auth_token_parse(token, id, hash) == -1) {
			log_errx("%s holds no valid token; remove it to have a new one made", path);
			return -1;
		}
		return register_admin(c, id, hash, "from the existing admin token file");
	}
	if (auth_token_new(id, token, hash) == -1 || write_token_file(path, token) == -1)
		return -1;
	log_info("first start: admin token written to %s", path);
	return register_admin(c, id, hash, "made at first start");
}

/* Apply a lifecycle result: store it, record its events, update the registry.  inv_mu held. */
static void
tick_once(struct ctrl *c, double now)
{
	struct reg_node *nodes;
	int n;

	if (registry_nodes(c->reg, &nodes, &n) == -1)
		return;
	for (int i = 0; i < n; i++) {
		struct lc_result res;
		struct reg_node cur;
		/* decide on what is current under the lock, so a command in between wins */
		pthread_mutex_lock(&c->inv_mu);
		if (registry_get_node(c->reg, nodes[i].name, &cur) == 0) {
			lc_on_tick(&cur.lc, now, c->unreachable_after, &res);
			if (res.changed)
				ctrl_apply(c, &cur, &res, now, "controller");
		}
		pthread_mutex_unlock(&c->inv_mu);
	}
	free(nodes);
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
	(void)sig;
	stopping = 1;
	ssize_t w = write(sigfds[1], "x", 1);
	(void)w;
}

static void
wait_for_signal(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	if (pipe(sigfds) == -1)
		fatalx("pipe: %s", strerror(errno));
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (!stopping) {
		struct pollfd p = { .fd = sigfds[0], .events = POLLIN };
		poll(&p, 1, 1000);
	}
}

static int
serve(struct config *cfg)
{
	struct ctrl c = { .inv_mu = PTHREAD_MUTEX_INITIALIZER,
		.unreachable_after = cfg->unreachable_after, .retention = cfg->retention };
	struct api_tls tls = { cfg->tls_cert, cfg->tls_key };
	char err[512], host[256];
	int port;
	pthread_t tick;

	signal(SIGPIPE, SIG_IGN);
	if ((c.inv = inv_open(cfg->db, err, sizeof(err))) == NULL)
		fatalx("%s", err);
	if ((c.reg = registry_new()) == NULL || ensure_admin_token(&c, cfg->admin_token_file) == -1 ||
	    registry_load(c.reg, c.inv) == -1)
		fatalx("cannot start: the inventory could not be read");
	if (inv_prov_interrupted(c.inv, ctrl_now(), "the controller stopped during the run") > 0)
		log_warnx("provisioning runs cut short by the last stop are marked failed");
	if ((c.ingest = ingest_start(&c)) == NULL)
		fatalx("cannot start the ingest thread");
	struct ckpt *ckpt = ckpt_start(&c, cfg->db);
	conf_split_hostport(cfg->listen, host, sizeof(host), &port, err, sizeof(err));
	struct api_server *api = api_start(&c, host, port, &tls, cfg->web_root, err, sizeof(err));
	if (api == NULL)
		fatalx("%s", err);
	log_info("listening on %s:%d (%s)", host, api_port(api), cfg->tls_cert ? "https" : "http");
	pthread_create(&tick, NULL, ticker, &c);
	wait_for_signal();
	log_info("stopping");
	/* no new connections; store and answer every queued report (this resumes
	 * their suspended connections); only then stop the server */
	api_quiesce(api);
	ingest_stop(c.ingest);
	api_stop(api);
	prov_jobs_free(c.prov);
	ingest_free(c.ingest);
	pthread_join(tick, NULL);
	ckpt_stop(ckpt);
	registry_free(c.reg);
	inv_close(c.inv);
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
	int rc = serve(&cfg);
	free_config(&cfg);
	return rc;
}
