/*
 * provision_job: one thread per provisioning run (see provision_job.h).
 * The run's status lives in the inventory; this file writes it there as the
 * run goes (provision_inv.h), and the API reads it back.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "auth.h"
#include "credentials.h"
#include "ctrl.h"
#include "log.h"
#include "prov_api.h"
#include "provision_inv.h"
#include "provision_job.h"
#include "report.h"
#include "wiring.h"

#define AGENT_MAX ((size_t)64 << 20)   /* the agent binary, at most */
#define TOKEN_TTL 3600.0

struct job {
	struct prov_jobs *jobs;
	pthread_t thread;
	int started;
	atomic_int done;                /* the thread has ended: it can be joined at once */
	struct job *next;
	int deprov;
	struct prov_api_request req;
	struct prov_api_deprov dep;
	struct prov_api_status *st;     /* what is stored, kept in step */
	char root[512];                 /* cfg.root with "%h" replaced by the host */
	void *sess;
	int n_recorded;
};

struct prov_jobs {
	struct ctrl *c;
	struct prov_session_ops ops;
	struct prov_jobs_config cfg;
	pthread_mutex_t mu;
	struct job *list;
	atomic_int stopping;
};

struct prov_jobs *
prov_jobs_new(struct ctrl *c, const struct prov_session_ops *ops,
    const struct prov_jobs_config *cfg)
{
	struct prov_jobs *j = calloc(1, sizeof(*j));

	if (j == NULL)
		return NULL;
	j->c = c;
	j->ops = *ops;
	j->cfg = *cfg;
	pthread_mutex_init(&j->mu, NULL);
	return j;
}

static void
job_free(struct job *jb)
{
	if (jb == NULL)
		return;
	free(jb->st);
	free(jb);
}

void
prov_jobs_free(struct prov_jobs *j)
{
	if (j == NULL)
		return;
	atomic_store(&j->stopping, 1);
	for (struct job *jb = j->list, *next; jb != NULL; jb = next) {
		next = jb->next;
		if (jb->started)
			pthread_join(jb->thread, NULL);
		job_free(jb);
	}
	pthread_mutex_destroy(&j->mu);
	free(j);
}

/* Store st's header. */
static void
save(struct job *jb)
{
	if (prov_inv_save(jb->jobs->c, jb->st) != 0)
		log_warnx("%s: provisioning %lld: could not store its state", __func__,
		    (long long)jb->st->id);
}

/* End the run in state, with reason (may be NULL). */
static void
finish(struct job *jb, const char *state, const char *reason)
{
	snprintf(jb->st->state, sizeof(jb->st->state), "%s", state);
	if (reason != NULL)
		snprintf(jb->st->reason, sizeof(jb->st->reason), "%s", reason);
	jb->st->finished_at = ctrl_now();
	save(jb);
	prov_inv_event(jb->jobs->c, jb->st->finished_at, jb->st->node,
	    jb->deprov ? "deprovision" : "provision", reason != NULL ? reason : state);
}

/* prov_exec.run through the session, refused once the controller stops. */
static int
job_run(void *ctx, const char *cmd, const void *in, size_t inlen, int timeout_s,
    struct prov_output *o, char *err, size_t errlen)
{
	struct job *jb = ctx;

	if (atomic_load(&jb->jobs->stopping)) {
		snprintf(err, errlen, "the controller is stopping");
		return -1;
	}
	return jb->jobs->ops.run(jb->sess, cmd, in, inlen, timeout_s, o, err, errlen);
}

/* prov_exec.recorded: store the record as a step of the run. */
static void
job_recorded(void *ctx, const struct prov_record *rec)
{
	struct job *jb = ctx;
	struct prov_api_step s;

	memset(&s, 0, sizeof(s));
	snprintf(s.step, sizeof(s.step), "%s", rec->step);
	snprintf(s.title, sizeof(s.title), "%s", rec->title);
	snprintf(s.outcome, sizeof(s.outcome), "%s", prov_outcome_name(rec->outcome));
	snprintf(s.command, sizeof(s.command), "%s", rec->command);
	snprintf(s.detail, sizeof(s.detail), "%s", rec->detail);
	if (prov_inv_step(jb->jobs->c, jb->st->id, jb->n_recorded++, &s) != 0)
		log_warnx("%s: provisioning %lld: could not store step %s", __func__,
		    (long long)jb->st->id, s.step);
}

static int
job_connect(struct job *jb, char *err, size_t errlen)
{
	struct prov_jobs *j = jb->jobs;
	struct prov_target t = { jb->st->host, jb->st->port, jb->st->user, jb->st->key_file,
		jb->req.fingerprint, jb->req.accept_new };
	char fp[PROV_FP_MAX] = "";

	jb->sess = j->ops.open(j->ops.ctx, &t, fp, err, errlen);
	snprintf(jb->st->fingerprint, sizeof(jb->st->fingerprint), "%s", fp);
	save(jb);
	return jb->sess != NULL ? 0 : -1;
}

/* Survey and preflight; -1 with the run finished when the Mac does not pass. */
static int
job_preflight(struct job *jb, struct prov_facts *f, struct prov_preflight *p)
{
	struct prov_exec ex = { jb, job_run, NULL };
	char err[256], why[300];

	if (prov_survey(&ex, jb->jobs->cfg.command_timeout, f, err, sizeof(err)) != 0) {
		snprintf(why, sizeof(why), "survey: %s", err);
		finish(jb, "failed", why);
		return -1;
	}
	prov_preflight(f, 0, p);
	prov_inv_preflight(jb->jobs->c, jb->st->id, p);
	if (jb->st->node[0] == '\0')
		snprintf(jb->st->node, sizeof(jb->st->node), "%.63s", f->hostname);
	for (int i = 0; i < p->n; i++)
		if (p->lines[i].verdict == PROV_FAIL) {
			snprintf(why, sizeof(why), "preflight: %s", p->lines[i].text);
			finish(jb, "failed", why);
			return -1;
		}
	return 0;
}

/* The agent binary into *buf and its SHA-256 in hex; -1 with err. */
static int
agent_read(const char *path, char **buf, size_t *len, char hex[65], char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	uint8_t d[AUTH_HASH_LEN];

	*buf = NULL;
	if (f == NULL) {
		snprintf(err, errlen, "agent binary %.200s: %s", path, strerror(errno));
		return -1;
	}
	if ((*buf = malloc(AGENT_MAX)) == NULL) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*len = fread(*buf, 1, AGENT_MAX, f);
	int bad = ferror(f) || *len == 0 || *len == AGENT_MAX;
	fclose(f);
	if (bad || auth_sha256(*buf, *len, d) != 0) {
		snprintf(err, errlen, "agent binary %.200s: cannot be read, empty or over %zu MiB", path,
		    AGENT_MAX >> 20);
		free(*buf);
		*buf = NULL;
		return -1;
	}
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	return 0;
}

/* A one-time, pre-approved bootstrap token for the run's cluster; its id in id.  -1 with err. */
static int
token_make(struct job *jb, char id[API_TOKEN_ID_LEN + 1], char token[API_TOKEN_MAX + 1],
    char *err, size_t errlen)
{
	struct ctrl *c = jb->jobs->c;
	struct api_token t = { 0 };
	uint8_t hash[AUTH_HASH_LEN];
	double now = ctrl_now();

	if (auth_token_new(t.id, token, hash) == -1) {
		snprintf(err, errlen, "could not make a token");
		return -1;
	}
	t.role = ROLE_BOOTSTRAP;
	t.accept = 1;   /* the operator asked for this node: pre-approved, it enrols ready */
	snprintf(t.cluster, sizeof(t.cluster), "%s", jb->st->cluster);
	snprintf(t.label, sizeof(t.label), "provisioning %lld of %.200s", (long long)jb->st->id,
	    jb->st->host);
	t.created_at = now;
	t.expires_at = now + TOKEN_TTL;
	t.used_at = NAN;
	if (prov_inv_token_add(c, &t, hash) != 0) {
		snprintf(err, errlen, "the inventory could not store the token");
		return -1;
	}
	registry_put_token(c->reg, &t, hash);
	memcpy(id, t.id, sizeof(t.id));
	return 0;
}

static void
token_drop(struct job *jb, const char *id)
{
	struct ctrl *c = jb->jobs->c;

	prov_inv_token_revoke(c, id);
	registry_revoke_token(c->reg, id);
}

/* Wait for a report from the node newer than since; 0 when it came. */
static int
wait_report(struct job *jb, double since, int *rdma)
{
	struct ctrl *c = jb->jobs->c;
	double deadline = ctrl_now() + jb->jobs->cfg.report_wait;

	while (!atomic_load(&jb->jobs->stopping) && ctrl_now() < deadline) {
		struct api_node n;

		if (ctrl_node_get(c, jb->st->node, &n) == 0 && !isnan(n.last_report_at) && n.last_report_at >= since) {
			*rdma = n.rdma == RDMA_STATE_ENABLED;
			return 0;
		}
		nanosleep(&(struct timespec){ 0, 200 * 1000 * 1000 }, NULL);
	}
	return -1;
}

/* Steps, run through the session, told to the inventory as they end. */
static int
job_plan(struct job *jb, struct prov_plan *p, const struct prov_blob *agent, const char *token)
{
	struct prov_exec ex = { jb, job_run, job_recorded };
	struct prov_result *r = calloc(1, sizeof(*r));
	int rc;

	if (r == NULL) {
		finish(jb, "failed", "out of memory");
		return -1;
	}
	rc = prov_run(&ex, p, jb->st->dry_run, jb->jobs->cfg.command_timeout, agent, token, r);
	if (rc != 0) {
		snprintf(jb->st->failed_step, sizeof(jb->st->failed_step), "%s", r->failed_step);
		finish(jb, "failed", r->reason);
	}
	free(r);
	return rc;
}

/* The LAN addresses node reports (network.interfaces), appended to lan/who. */
static void
lan_of(struct ctrl *c, const char *node, char (*lan)[16], const char **who, int *n, int max)
{
	struct report *r = ctrl_latest_report(c, node);

	if (r == NULL)
		return;
	for (int i = 0; i < r->network.n_interfaces; i++)
		for (int k = 0; k < r->network.interfaces[i].n_ipv4 && *n < max; k++) {
			snprintf(lan[*n], 16, "%s", r->network.interfaces[i].ipv4[k]);
			who[(*n)++] = node;
		}
	free(r);
}

/*
 * The cables' /24s against the LAN addresses of the plan's nodes (their
 * reports) and the address this run reaches the Mac at: 0, or -1 with err.
 */
static int
lan_check(struct job *jb, const struct prov_cable *cables, int n,
    const struct prov_settings *s, char *err, size_t errlen)
{
	char lan[64][16];
	const char *who[64], *ptrs[64];
	int nl = 0;

	snprintf(lan[nl], 16, "%.15s", jb->st->host);
	who[nl++] = jb->st->node;
	for (int k = 0; k < n; k++) {
		lan_of(jb->jobs->c, cables[k].a_node, lan, who, &nl, 64);
		lan_of(jb->jobs->c, cables[k].b_node, lan, who, &nl, 64);
	}
	for (int i = 0; i < nl; i++)
		ptrs[i] = lan[i];
	return prov_lan_check(s->ip_base, n, ptrs, who, nl, err, errlen);
}

/*
 * The node's port addresses from its cluster's cabling plan (topology
 * "plan"): one /30 per cable (prov_plan_addresses).  No cluster, or a
 * mesh or ring without a plan: none.  0, or -1 with err.
 */
static int
plan_addresses(struct job *jb, struct prov_settings *s, char *err, size_t errlen)
{
	struct ctrl *c = jb->jobs->c;
	struct wiring_plan_link *links = NULL;
	struct prov_cable *cables = NULL;
	char topo[32] = "", *dot = NULL;
	double at;
	int n = 0, rc;

	s->n_addrs = 0;
	if (jb->st->cluster[0] == '\0')
		return 0;
	rc = prov_inv_wiring(c, jb->st->cluster, topo, sizeof(topo), &dot, &at);
	if (rc != 0 || strcmp(topo, "plan") != 0 || dot == NULL) {
		free(dot);
		return 0;
	}
	rc = wiring_dot_parse(dot, strlen(dot), &links, &n, err, errlen);
	free(dot);
	if (rc != 0)
		return -1;
	if ((cables = calloc(n > 0 ? (size_t)n : 1, sizeof(*cables))) == NULL) {
		free(links);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++)
		cables[i] = (struct prov_cable){ links[i].a.node, links[i].a.receptacle,
			links[i].b.node, links[i].b.receptacle };
	rc = prov_plan_addresses(cables, n, jb->st->node, s, err, errlen) < 0 ? -1 : 0;
	if (rc == 0 && s->n_addrs > 0)
		rc = lan_check(jb, cables, n, s, err, errlen);
	free(cables);
	free(links);
	return rc;
}

/* The settings of node add, from the request and the configuration. */
static void
add_settings(struct job *jb, const struct prov_facts *f, const char *sha, size_t size,
    struct prov_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->root = jb->root;
	/* root logs in without sudo; any other user goes through sudo -n */
	s->sudo = jb->jobs->cfg.sudo || prov_needs_sudo(f);
	s->controller_url = jb->jobs->cfg.agent_url;
	s->node_name = jb->req.node;
	s->agent_sha256 = sha;
	s->agent_size = size;
	s->wired_limit_mb = jb->req.wired_limit_mb > 0 ? jb->req.wired_limit_mb : 0;
	s->ip_base = jb->req.ip_base[0] != '\0' ? jb->req.ip_base : PROV_IP_BASE;
}

static void
job_add(struct job *jb)
{
	struct prov_facts f;
	struct prov_preflight pf;
	struct prov_settings s;
	struct prov_blob agent = { NULL, 0 };
	struct prov_plan *p = NULL;
	char err[300], sha[65], tid[API_TOKEN_ID_LEN + 1] = "", token[API_TOKEN_MAX + 1] = "";
	char *bin = NULL;
	const char *path = jb->req.agent_binary[0] != '\0' ? jb->req.agent_binary :
	    jb->jobs->cfg.agent_binary;
	double since = ctrl_now();
	int rdma = 0;

	if (path == NULL || path[0] == '\0') {
		finish(jb, "failed", "no agent binary: give --agent-binary or configure "
		    "provision-agent-binary");
		return;
	}
	if (agent_read(path, &bin, &agent.len, sha, err, sizeof(err)) != 0) {
		finish(jb, "failed", err);
		return;
	}
	agent.data = bin;
	if (job_connect(jb, err, sizeof(err)) != 0) {
		finish(jb, "failed", err);
		goto out;
	}
	if (job_preflight(jb, &f, &pf) != 0)
		goto out;
	add_settings(jb, &f, sha, agent.len, &s);
	if (plan_addresses(jb, &s, err, sizeof(err)) != 0) {
		finish(jb, "failed", err);
		goto out;
	}
	if ((p = prov_plan_build(&f, &s, err, sizeof(err))) == NULL) {
		finish(jb, "failed", err);
		goto out;
	}
	if (!jb->st->dry_run && token_make(jb, tid, token, err, sizeof(err)) != 0) {
		finish(jb, "failed", err);
		goto out;
	}
	if (job_plan(jb, p, &agent, token) != 0)
		goto out;
	if (p->rdma_manual)
		snprintf(jb->st->manual, sizeof(jb->st->manual), "%s", PROV_RDMA_MANUAL);
	if (jb->st->dry_run) {
		finish(jb, "done", NULL);
		goto out;
	}
	snprintf(jb->st->state, sizeof(jb->st->state), "waiting");
	save(jb);
	if (wait_report(jb, since, &rdma) != 0) {
		snprintf(err, sizeof(err), "no report from %s's agent within %.0f s", jb->st->node,
		    jb->jobs->cfg.report_wait);
		finish(jb, "failed", err);
		goto out;
	}
	if (rdma)
		jb->st->manual[0] = '\0';
	if (jb->jobs->ops.provisioned != NULL) {
		struct prov_target t = { jb->st->host, jb->st->port, jb->st->user, jb->st->key_file,
			jb->st->fingerprint, 0 };
		jb->jobs->ops.provisioned(jb->jobs->ops.ctx, jb->st->node, &t, jb->st->fingerprint);
	}
	finish(jb, "ready", NULL);
out:
	if (tid[0] != '\0')
		token_drop(jb, tid);   /* used by now, or never needed: it must not linger */
	cred_wipe(token, sizeof(token));
	prov_plan_free(p);
	free(bin);
}

static void
job_deprov(struct job *jb)
{
	struct prov_facts f;
	struct prov_plan *p = NULL;
	struct prov_exec ex = { jb, job_run, NULL };
	char err[300];

	if (job_connect(jb, err, sizeof(err)) != 0) {
		finish(jb, "failed", err);
		return;
	}
	struct prov_check_line root;

	if (prov_survey(&ex, jb->jobs->cfg.command_timeout, &f, err, sizeof(err)) != 0) {
		finish(jb, "failed", err);
		return;
	}
	/* deprovisioning changes the Mac too: root, or sudo -n, first */
	prov_preflight_root(&f, &root);
	if (root.verdict == PROV_FAIL) {
		snprintf(err, sizeof(err), "preflight: %s", root.text);
		finish(jb, "failed", err);
		return;
	}
	if ((p = prov_deprov_build(&f, jb->root, jb->jobs->cfg.sudo || prov_needs_sudo(&f),
	    jb->dep.network)) == NULL) {
		finish(jb, "failed", "out of memory");
		return;
	}
	if (job_plan(jb, p, NULL, NULL) == 0)
		finish(jb, "done", NULL);
	prov_plan_free(p);
}

static void *
job_main(void *arg)
{
	struct job *jb = arg;

	if (jb->deprov)
		job_deprov(jb);
	else
		job_add(jb);
	jb->jobs->ops.close(jb->sess);
	jb->sess = NULL;
	atomic_store(&jb->done, 1);
	return NULL;
}

/* Join and free the runs that have ended; j->mu held. */
static void
reap(struct prov_jobs *j)
{
	for (struct job **pp = &j->list; *pp != NULL; ) {
		struct job *jb = *pp;

		if (!atomic_load(&jb->done)) {
			pp = &jb->next;
			continue;
		}
		*pp = jb->next;
		pthread_join(jb->thread, NULL);
		job_free(jb);
	}
}

/* cfg.root with each "%h" replaced by the run's host, into jb->root. */
static void
job_root(struct job *jb)
{
	const char *r = jb->jobs->cfg.root != NULL ? jb->jobs->cfg.root : "";
	size_t o = 0;

	for (; *r != '\0' && o + 1 < sizeof(jb->root); r++) {
		if (r[0] == '%' && r[1] == 'h') {
			o += (size_t)snprintf(jb->root + o, sizeof(jb->root) - o, "%s", jb->st->host);
			r++;
		} else {
			jb->root[o++] = *r;
		}
		if (o >= sizeof(jb->root))
			o = sizeof(jb->root) - 1;
	}
	jb->root[o] = '\0';
}

/* Store the run and start its thread; 0 with *st, or an HTTP status. */
static int
job_start(struct prov_jobs *j, struct job *jb, double now, struct prov_api_status *st,
    char *err, size_t errlen)
{
	struct ctrl *c = j->c;

	jb->jobs = j;
	job_root(jb);
	jb->st->started_at = now;
	jb->st->finished_at = NAN;
	snprintf(jb->st->state, sizeof(jb->st->state), "running");
	if (prov_inv_add(c, jb->st) != 0) {
		snprintf(err, errlen, "the inventory could not store the run");
		job_free(jb);
		return 503;
	}
	*st = *jb->st;
	pthread_mutex_lock(&j->mu);
	reap(j);
	if (atomic_load(&j->stopping) || pthread_create(&jb->thread, NULL, job_main, jb) != 0) {
		pthread_mutex_unlock(&j->mu);
		snprintf(err, errlen, "the controller cannot start the run now");
		finish(jb, "failed", err);
		job_free(jb);
		return 503;
	}
	jb->started = 1;
	jb->next = j->list;
	j->list = jb;
	pthread_mutex_unlock(&j->mu);
	return 0;
}

static struct job *
job_new(void)
{
	struct job *jb = calloc(1, sizeof(*jb));

	if (jb != NULL && (jb->st = calloc(1, sizeof(*jb->st))) == NULL) {
		free(jb);
		jb = NULL;
	}
	return jb;
}

int
prov_jobs_add(struct prov_jobs *j, const struct prov_api_request *req, double now,
    struct prov_api_status *st, char *err, size_t errlen)
{
	struct job *jb;
	struct api_cluster cl;
	int rc = 0;

	if (req->cluster[0] != '\0')
		rc = prov_inv_cluster(j->c, req->cluster, &cl);
	if (rc != 0) {
		snprintf(err, errlen, "cluster %s: no such cluster", req->cluster);
		return rc == INV_NOTFOUND ? 404 : 503;
	}
	if ((jb = job_new()) == NULL) {
		snprintf(err, errlen, "out of memory");
		return 503;
	}
	jb->req = *req;
	/* a host reached before keeps the key it had: a changed one is refused */
	if (req->fingerprint[0] == '\0' && prov_inv_host_key(j->c, req->host, req->port,
	    jb->req.fingerprint, sizeof(jb->req.fingerprint)) != 0) {
		job_free(jb);
		snprintf(err, errlen, "the inventory is not available");
		return 503;
	}
	snprintf(jb->st->kind, sizeof(jb->st->kind), "add");
	snprintf(jb->st->host, sizeof(jb->st->host), "%s", req->host);
	jb->st->port = req->port;
	snprintf(jb->st->user, sizeof(jb->st->user), "%s", req->user);
	snprintf(jb->st->key_file, sizeof(jb->st->key_file), "%s", req->key_file);
	snprintf(jb->st->node, sizeof(jb->st->node), "%s", req->node);
	snprintf(jb->st->cluster, sizeof(jb->st->cluster), "%s", req->cluster);
	jb->st->dry_run = req->dry_run;
	return job_start(j, jb, now, st, err, errlen);
}

int
prov_jobs_deprovision(struct prov_jobs *j, const char *node, const struct prov_api_deprov *d,
    double now, struct prov_api_status *st, char *err, size_t errlen)
{
	struct job *jb = job_new();
	int64_t id;

	if (jb == NULL) {
		snprintf(err, errlen, "out of memory");
		return 503;
	}
	if ((id = prov_inv_last_add(j->c, node, jb->st)) <= 0) {
		snprintf(err, errlen, id == 0 ? "node %s: no provisioning of it to find its SSH "
		    "address by (provision it with tbctl node add first)" :
		    "the inventory is not available", node);
		job_free(jb);
		return id == 0 ? 409 : 503;
	}
	/* the same Mac, reached the same way, with its host key pinned */
	jb->deprov = 1;
	jb->dep = *d;
	snprintf(jb->req.fingerprint, sizeof(jb->req.fingerprint), "%s", jb->st->fingerprint);
	snprintf(jb->st->kind, sizeof(jb->st->kind), "deprovision");
	jb->st->dry_run = d->dry_run;
	jb->st->n_preflight = jb->st->n_steps = 0;
	jb->st->failed_step[0] = jb->st->reason[0] = jb->st->manual[0] = '\0';
	return job_start(j, jb, now, st, err, errlen);
}
