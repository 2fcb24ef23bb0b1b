/*
 * A provisioning run's inventory reads and writes (provision_inv.h): each a
 * small store_fn with its arguments, run under the store's lock.
 */
#include "provision_inv.h"

#include <stdio.h>

#include "ctrl.h"
#include "prov_api.h"

/* store_fn: arg is the run's status, stored new (its id set). */
static int
run_add(struct inv *inv, void *arg)
{
	return inv_prov_add(inv, arg);
}

int
prov_inv_add(struct ctrl *c, struct prov_api_status *st)
{
	return store_with(&c->store, run_add, st);
}

/* store_fn: arg is the run's status, its header stored again. */
static int
run_save(struct inv *inv, void *arg)
{
	return inv_prov_update(inv, arg);
}

int
prov_inv_save(struct ctrl *c, const struct prov_api_status *st)
{
	return store_with(&c->store, run_save, (void *)st);
}

struct run_step {
	int64_t id;
	int ord;
	const struct prov_api_step *s;
};

static int
run_step(struct inv *inv, void *arg)
{
	const struct run_step *a = arg;

	return inv_prov_step(inv, a->id, a->ord, a->s);
}

int
prov_inv_step(struct ctrl *c, int64_t id, int ord, const struct prov_api_step *s)
{
	struct run_step a = { id, ord, s };

	return store_with(&c->store, run_step, &a);
}

struct run_preflight {
	int64_t id;
	const struct prov_preflight *p;
};

static int
run_preflight(struct inv *inv, void *arg)
{
	const struct run_preflight *a = arg;

	for (int i = 0; i < a->p->n; i++) {
		const struct prov_check_line *pl = &a->p->lines[i];
		struct prov_api_line l;

		snprintf(l.what, sizeof(l.what), "%s", pl->what);
		snprintf(l.verdict, sizeof(l.verdict), "%s", pl->verdict == PROV_PASS ? "pass" :
		    pl->verdict == PROV_WARN ? "warn" : "fail");
		snprintf(l.text, sizeof(l.text), "%s", pl->text);
		inv_prov_line(inv, a->id, i, &l);
	}
	return 0;
}

void
prov_inv_preflight(struct ctrl *c, int64_t id, const struct prov_preflight *p)
{
	struct run_preflight a = { id, p };

	store_with(&c->store, run_preflight, &a);
}

struct run_event {
	struct ctrl *c;
	double now;
	const char *node, *what, *reason;
};

static int
run_event(struct inv *inv, void *arg)
{
	const struct run_event *a = arg;

	(void)inv;   /* ctrl_event writes through the store's inv */
	ctrl_event(a->c, a->now, "provisioning", a->node, a->what, a->reason);
	return 0;
}

void
prov_inv_event(struct ctrl *c, double now, const char *node, const char *what,
    const char *reason)
{
	struct run_event a = { c, now, node, what, reason };

	store_with(&c->store, run_event, &a);
}

struct token {
	const struct api_token *t;
	const uint8_t *hash;
	const char *id;
};

static int
token_add(struct inv *inv, void *arg)
{
	const struct token *a = arg;

	return inv_token_add(inv, a->t, a->hash);
}

int
prov_inv_token_add(struct ctrl *c, const struct api_token *t, const uint8_t *hash)
{
	struct token a = { t, hash, NULL };

	return store_with(&c->store, token_add, &a);
}

static int
token_revoke(struct inv *inv, void *arg)
{
	const struct token *a = arg;

	return inv_token_revoke(inv, a->id);
}

int
prov_inv_token_revoke(struct ctrl *c, const char *id)
{
	struct token a = { NULL, NULL, id };

	return store_with(&c->store, token_revoke, &a);
}

struct cluster_get {
	const char *name;
	struct api_cluster *out;
};

static int
cluster_get(struct inv *inv, void *arg)
{
	const struct cluster_get *a = arg;

	return inv_cluster_get(inv, a->name, a->out);
}

int
prov_inv_cluster(struct ctrl *c, const char *name, struct api_cluster *out)
{
	struct cluster_get a = { name, out };

	return store_with(&c->store, cluster_get, &a);
}

struct host_key {
	const char *host;
	int port;
	char *fp;
	size_t size;
};

static int
host_key(struct inv *inv, void *arg)
{
	const struct host_key *a = arg;

	return inv_prov_host_key(inv, a->host, a->port, a->fp, a->size);
}

int
prov_inv_host_key(struct ctrl *c, const char *host, int port, char *fp, size_t size)
{
	struct host_key a = { host, port, fp, size };

	return store_with(&c->store, host_key, &a);
}

struct wiring_get {
	const char *cluster;
	char *topo;
	size_t topolen;
	char **dot;
	double *at;
};

static int
wiring_get(struct inv *inv, void *arg)
{
	const struct wiring_get *a = arg;

	return inv_wiring_get(inv, a->cluster, a->topo, a->topolen, a->dot, a->at);
}

int
prov_inv_wiring(struct ctrl *c, const char *cluster, char *topo, size_t topolen, char **dot,
    double *at)
{
	struct wiring_get a = { cluster, topo, topolen, dot, at };

	return store_with(&c->store, wiring_get, &a);
}

struct last_add {
	const char *node;
	struct prov_api_status *st;
	int64_t id;
};

/* store_fn: the id of node's latest add, and that run. */
static int
last_add(struct inv *inv, void *arg)
{
	struct last_add *a = arg;

	if ((a->id = inv_prov_last_add(inv, a->node)) <= 0)
		return 0;
	if (inv_prov_get(inv, a->id, a->st) != 0)
		a->id = -1;
	return 0;
}

int64_t
prov_inv_last_add(struct ctrl *c, const char *node, struct prov_api_status *st)
{
	struct last_add a = { node, st, -1 };

	store_with(&c->store, last_add, &a);
	return a.id;
}
