/*
 * tbcontrollerd: the inventory and the API.  Threads: libmicrohttpd's pool
 * serves the API; the ingest writer stores reports in group commits; the
 * tick thread (tick.c) marks silent nodes unreachable and prunes old
 * samples; the wiring monitor, the checkpointer, the rollout runner and
 * provisioning runs work beside them; the main thread waits for signals.
 * This file holds main, the signals, and the start and stop of all that;
 * the configuration is ctrl_config.c's, the first admin token
 * admin_token.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admin_token.h"
#include "api_server.h"
#include "checkpointer.h"
#include "conf.h"
#include "ctrl.h"
#include "ctrl_config.h"
#include "ingest.h"
#include "job_run.h"
#include "log.h"
#include "placement_ctrl.h"
#include "provision_job.h"
#include "rollout_run.h"
#include "tick.h"
#include "version.h"
#include "wmon.h"

static int sigfds[2] = { -1, -1 };
static volatile sig_atomic_t stopping, reloading;

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
	struct ctrl_config cfg;
	char err[512];

	if (ctrl_config_load(&cfg, argc, argv, err, sizeof(err)) == -1) {
		log_warnx("SIGHUP: %s; settings unchanged", err);
	} else {
		log_setlevel((enum log_level)cfg.log_level);
		/* said at the most severe level shown, so that it is always seen */
		log_msg((enum log_level)(cfg.log_level < LOG_LVL_INFO ? cfg.log_level :
		    LOG_LVL_INFO), __func__,
		    "SIGHUP: configuration read again; log level %s (other settings take "
		    "effect at the next start)", log_level_name(cfg.log_level));
	}
	ctrl_config_free(&cfg);
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

/* What serve() starts, and stop_threads() stops. */
struct server {
	struct ctrl c;
	struct ckpt *ckpt;
	struct api_server *api;
	struct ticker *tick;
	struct rollout_runner *runner;
	char agent_url[300];          /* the API's URL; provisioning keeps a pointer to it */
};

/*
 * The inventory behind its lock, its first admin token, the registry, and
 * what the last stop cut short.  Nothing else runs yet: no lock is taken.
 */
static void
open_inventory(struct ctrl *c, const struct ctrl_config *cfg)
{
	char err[512];
	struct inv *inv;

	if ((inv = inv_open(cfg->db, err, sizeof(err))) == NULL)
		fatalx("%s", err);
	if (store_init(&c->store, inv) == -1)
		fatalx("cannot start: no lock for the inventory");
	if (admin_token_ensure(c, cfg->admin_token_file) == -1)
		fatalx("cannot start without a usable admin token");
	if ((c->reg = registry_new()) == NULL || registry_load(c->reg, c->store.inv) == -1)
		fatalx("cannot start: the inventory could not be read");
	rollout_rearm_reboots(c);
	if (inv_prov_interrupted(c->store.inv, ctrl_now(),
	    "the controller stopped during the run") > 0)
		log_warnx("provisioning runs cut short by the last stop are marked failed");
}

/* Provisioning (tbctl node add), when the controller has an SSH key. */
static void
start_provisioning(struct server *s, const struct ctrl_config *cfg, const char *host)
{
	struct ctrl *c = &s->c;
	struct prov_session_ops ops;

	snprintf(s->agent_url, sizeof(s->agent_url), "%s://%s:%d",
	    cfg->tls_cert ? "https" : "http", host, api_port(s->api));
	prov_ssh_ops(c, &ops);
	struct prov_jobs_config pcfg = { cfg->provision_agent,
		cfg->provision_url != NULL ? cfg->provision_url : s->agent_url,
		cfg->provision_report_wait, (int)c->ssh_command_timeout,
		cfg->provision_root != NULL ? cfg->provision_root : "", 0 };
	if (cfg->ssh_key != NULL && (c->prov = prov_jobs_new(c, &ops, &pcfg)) == NULL)
		fatalx("cannot start provisioning");
}

/*
 * The model catalog, then the threads in this order: ingest, the wiring
 * monitor, the checkpointer, the API, the ticker, rollouts, provisioning, jobs.
 */
static void
start_threads(struct server *s, const struct ctrl_config *cfg)
{
	struct api_tls tls = { cfg->tls_cert, cfg->tls_key };
	struct ctrl *c = &s->c;
	char err[512], host[256];
	int port;

	c->place_headroom = (int64_t)(cfg->headroom_gib * (1 << 30));
	if (placement_catalog_load(c, cfg->catalog, err, sizeof(err)) == -1)
		fatalx("%s", err);
	if ((c->ingest = ingest_start(c)) == NULL)
		fatalx("cannot start the ingest thread");
	if ((c->wmon = wmon_new(c)) == NULL || wmon_start(c->wmon) == -1)
		fatalx("cannot start the wiring thread");
	s->ckpt = ckpt_start(c, cfg->db);
	conf_split_hostport(cfg->listen, host, sizeof(host), &port, err, sizeof(err));
	s->api = api_start(c, host, port, &tls, cfg->web_root, &cfg->http, err, sizeof(err));
	if (s->api == NULL)
		fatalx("%s", err);
	log_info("listening on %s:%d (%s)", host, api_port(s->api),
	    cfg->tls_cert ? "https" : "http");
	if ((s->tick = tick_start(c)) == NULL)
		fatalx("cannot start the ticker");
	s->runner = rollout_runner_start(c, &rollout_adapters_builtin);
	start_provisioning(s, cfg, host);
	if (s->runner == NULL)
		fatalx("cannot start the rollout runner");
	if (job_runner_start(c) == NULL)
		fatalx("cannot start the job runner");
}

/* The ticker first, as soon as the signal comes; the ingest drained before the API stops. */
static void
stop_threads(struct server *s)
{
	tick_stop(s->tick);
	rollout_runner_stop(s->runner);
	/* no new connections; store and answer every queued report (this resumes
	 * their suspended connections); only then stop the server */
	api_quiesce(s->api);
	ingest_stop(s->c.ingest);
	api_stop(s->api);
	job_runner_stop(s->c.jobs);   /* after the API: its calls wake the runner */
	prov_jobs_free(s->c.prov);
	ingest_free(s->c.ingest);
	wmon_stop(s->c.wmon);
	wmon_free(s->c.wmon);
	ckpt_stop(s->ckpt);
}

static int
serve(const struct ctrl_config *cfg, int argc, char **argv)
{
	struct server s = { .c = {
		.unreachable_after = cfg->unreachable_after, .retention = cfg->retention,
		.state_dir = cfg->state_dir, .ssh_key = cfg->ssh_key,
		.password_command = cfg->password_command, .ssh_connect_timeout = cfg->ssh_timeout,
		.ssh_command_timeout = cfg->ssh_command_timeout,
		.install_timeout = cfg->install_timeout, .boot_timeout = cfg->boot_timeout,
		.job_check_interval = cfg->job_check_interval,
		.job_probe_timeout = cfg->job_probe_timeout, .job_hang_after = cfg->job_hang_after,
		.job_start_timeout = cfg->job_start_timeout } };

	signal(SIGPIPE, SIG_IGN);
	catch_signals();
	open_inventory(&s.c, cfg);
	start_threads(&s, cfg);
	wait_for_signal(argc, argv);
	log_info("stopping");
	stop_threads(&s);
	registry_free(s.c.reg);
	inv_close(s.c.store.inv);
	store_fini(&s.c.store);
	free(s.c.models);
	return 0;
}

int
main(int argc, char **argv)
{
	struct ctrl_config cfg;
	char err[512];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return fputs(ctrl_config_usage, stdout), 0;
		if (strcmp(argv[i], "-V") == 0 || strcmp(argv[i], "--version") == 0)
			return printf("tbcontrollerd %s\n", TBMESH_VERSION), 0;
	}
	log_init("tbcontrollerd", 0, LOG_LVL_INFO);
	if (ctrl_config_load(&cfg, argc, argv, err, sizeof(err)) == -1 ||
	    ctrl_config_check(&cfg, err, sizeof(err)) == -1) {
		fprintf(stderr, "tbcontrollerd: %s\nTry 'tbcontrollerd --help'.\n", err);
		ctrl_config_free(&cfg);
		return 2;
	}
	if (cfg.check_only) {
		printf("configuration OK\n");
		ctrl_config_free(&cfg);
		return 0;
	}
	log_init("tbcontrollerd", cfg.use_syslog, (enum log_level)cfg.log_level);
	int rc = serve(&cfg, argc, argv);
	ctrl_config_free(&cfg);
	return rc;
}
