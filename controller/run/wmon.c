/*
 * The live wiring view: the node cache keyed by name, the fingerprint that
 * keeps the per-report cost to a hash, and on-demand checks of a cluster
 * from the inventory (membership, node states, expected topology) and the
 * cache (each node's wiring; filled from the stored report after a
 * restart).  The thread and the metrics are in wmon_watch.c.
 */
#include "wmon.h"
#include "wmon_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"
#include "log.h"

#define FNV_OFFSET 1469598103934665603ull
#define FNV_PRIME 1099511628211ull

#define MIX 0x9e3779b97f4a7c15ull

/* A string into the hash, eight bytes at a time, its length as separator. */
static uint64_t
fnv_str(uint64_t h, const char *s)
{
	size_t len = strlen(s), k = 0;
	uint64_t w;

	for (; k + 8 <= len; k += 8) {
		memcpy(&w, s + k, 8);
		h = (h ^ w) * MIX;
		h ^= h >> 31;
	}
	for (; k < len; k++)
		h = (h ^ (unsigned char)s[k]) * FNV_PRIME;
	return (h ^ len) * FNV_PRIME;
}

static uint64_t
fnv_u64(uint64_t h, uint64_t v)
{
	return (h ^ v) * FNV_PRIME;
}

static uint64_t
fnv_dbl(uint64_t h, double d)
{
	uint64_t v = 0;

	if (!isnan(d))
		memcpy(&v, &d, sizeof(v));
	return fnv_u64(h, v ^ (isnan(d) ? 0x7ff8ull : 0));
}

static uint64_t
fp_port(uint64_t h, const struct report_port *p)
{
	h = fnv_str(h, p->receptacle);
	h = fnv_str(h, p->domain_uuid);
	h = fnv_u64(h, (uint64_t)p->status);
	h = fnv_dbl(h, p->speed_gbps);
	h = fnv_dbl(h, p->max_speed_gbps);	/* Thunderbolt 4 or 5: degraded's fix */
	h = fnv_str(h, p->interface);
	h = fnv_u64(h, (uint64_t)(int64_t)p->n_ipv4);
	/* every address: an address change is an event (wmon_addr.c) */
	for (int k = 0; k < p->n_ipv4 && k < REPORT_IPV4_MAX; k++)
		h = fnv_str(h, p->ipv4[k]);
	h = fnv_u64(h, (uint64_t)p->has_peer);
	if (p->has_peer) {
		h = fnv_str(h, p->peer.domain_uuid);
		h = fnv_u64(h, (uint64_t)(int64_t)p->peer.rdma_service);
		/* a cable moved onto or off a dock or hub (via-hub) */
		h = fnv_u64(h, (uint64_t)(int64_t)p->via_hub);
		h = fnv_str(h, p->hub);
	}
	return h;
}

uint64_t
wmon_fingerprint(const struct report *r)
{
	const struct report_bridge *br = &r->thunderbolt.bridge;
	uint64_t h = FNV_OFFSET;

	h = fnv_str(h, r->node.os_build);
	h = fnv_str(h, r->node.hostname);      /* DOT labels name hosts */
	h = fnv_str(h, r->node.machine_name);  /* bad-port: a Mac Studio's en2 */
	char lan[16] = "", ifn[32];
	const char *kind;
	if (report_lan_ipv4(r, lan, sizeof(lan), ifn, sizeof(ifn), &kind) == -1)
		lan[0] = '\0';
	h = fnv_str(h, lan);                    /* a placement's coordinator */
	h = fnv_u64(h, (uint64_t)r->rdma.state);
	h = fnv_u64(h, (uint64_t)(int64_t)r->thunderbolt.n_ports);
	for (int p = 0; p < r->thunderbolt.n_ports && p < REPORT_PORTS_MAX; p++)
		h = fp_port(h, &r->thunderbolt.ports[p]);
	h = fnv_u64(h, (uint64_t)(int64_t)r->rdma.n_devices);
	for (int d = 0; d < r->rdma.n_devices && d < REPORT_DEVICES_MAX; d++) {
		h = fnv_str(h, r->rdma.devices[d].name);
		h = fnv_str(h, r->rdma.devices[d].interface);
		h = fnv_u64(h, (uint64_t)r->rdma.devices[d].port_state);
		h = fnv_u64(h, (uint64_t)(int64_t)r->rdma.devices[d].ipv4_gid);	/* no-gid */
	}
	h = fnv_u64(h, (uint64_t)(int64_t)br->active);
	h = fnv_u64(h, (uint64_t)(int64_t)br->n_members);
	for (int k = 0; k < br->n_members && k < REPORT_MEMBERS_MAX; k++)
		h = fnv_str(h, br->members[k]);
	return h ? h : 1;   /* 0 means "none yet" */
}

/* ---- the cache: open addressing on the node's name, entries by pointer ---- */

static uint64_t
name_hash(const char *name)
{
	return fnv_str(FNV_OFFSET, name);
}

/* The slot of name (hash h): its entry's, or the empty one where it would go. */
static size_t
slot_of(const struct wmon *m, const char *name, uint64_t h)
{
	size_t i = (size_t)h & (m->cap - 1);

	while (m->slots[i].e != NULL &&
	    (m->slots[i].h != h || strcmp(m->slots[i].e->name, name) != 0))
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* Twice the slots; only pointers move (a node is allocated once). */
static int
grow(struct wmon *m)
{
	struct wmon_slot *old = m->slots;
	size_t oldcap = m->cap;

	m->cap = oldcap ? oldcap * 2 : 64;
	if ((m->slots = calloc(m->cap, sizeof(*m->slots))) == NULL) {
		m->slots = old;
		m->cap = oldcap;
		return -1;
	}
	for (size_t k = 0; k < oldcap; k++)
		if (old[k].e != NULL)
			m->slots[slot_of(m, old[k].e->name, old[k].h)] = old[k];
	free(old);
	return 0;
}

/*
 * The entry for name; when absent and create, fresh (if not NULL, and
 * named name) becomes it, else a new one is allocated.  mu held.  NULL when absent or out of
 * memory.  *took tells whether fresh was kept.
 */
static struct wmon_node *
node_put(struct wmon *m, const char *name, int create, struct wmon_node *fresh, int *took)
{
	struct wmon_node *e;
	uint64_t h = name_hash(name);
	size_t i;

	*took = 0;
	if (m->cap == 0 && (!create || grow(m) == -1))
		return NULL;
	i = slot_of(m, name, h);
	if (m->slots[i].e != NULL)
		return m->slots[i].e;
	if (!create)
		return NULL;
	if ((m->used + 1) * 2 > m->cap) {
		if (grow(m) == -1)
			return NULL;
		i = slot_of(m, name, h);
	}
	if ((e = fresh) != NULL) {       /* named name already */
		e->dirty = 0;
		e->next_dirty = NULL;
		*took = 1;
	} else if ((e = calloc(1, sizeof(*e))) == NULL)
		return NULL;
	else {
		snprintf(e->name, sizeof(e->name), "%s", name);
		addr_ports_init(&e->addrs);
	}
	m->slots[i].h = h;
	m->slots[i].e = e;
	m->used++;
	return e;
}

/* The entry for name, created when absent; mu held.  NULL out of memory. */
struct wmon_node *
wmon_node_get(struct wmon *m, const char *name, int create)
{
	int took;

	return node_put(m, name, create, NULL, &took);
}

/* e's wiring changed: on the dirty list once, and the thread woken; mu held. */
void
wmon_node_mark(struct wmon *m, struct wmon_node *e)
{
	if (!e->dirty) {
		e->dirty = 1;
		e->next_dirty = m->dirty_head;
		m->dirty_head = e;
	}
	m->dirty = 1;
	pthread_cond_signal(&m->cv);
}

/* Take e off the dirty list (it is being removed); mu held. */
static void
unmark(struct wmon *m, struct wmon_node *e)
{
	struct wmon_node **pp;

	if (!e->dirty)
		return;
	for (pp = &m->dirty_head; *pp != NULL; pp = &(*pp)->next_dirty)
		if (*pp == e) {
			*pp = e->next_dirty;
			break;
		}
	e->dirty = 0;
	e->next_dirty = NULL;
}

/* Store r's wiring for node when its fingerprint fp is new; mu held. */
static void
store_locked(struct wmon *m, const char *node, const struct report *r, uint64_t fp)
{
	struct wmon_node *e = wmon_node_get(m, node, 1);

	if (e == NULL)
		return;
	if (e->fp == fp) {	/* the same wiring, read again or not: how old */
		e->wn.facts_age = wiring_report_facts_age(r);
		return;
	}
	wiring_node_from_report(&e->wn, node, NODE_READY, r, 0, 0, 0);
	addr_ports_from_report(&e->addrs, r);
	e->fp = fp;
	wmon_node_mark(m, e);
}

void
wmon_report(struct wmon *m, const char *node, const struct report *r)
{
	uint64_t fp = wmon_fingerprint(r);

	if (m == NULL)
		return;
	pthread_mutex_lock(&m->mu);
	store_locked(m, node, r, fp);
	pthread_mutex_unlock(&m->mu);
}

/* A staged wiring is the cache's entry to be: a new node's goes in as it is. */
struct wmon_staged {
	struct wmon_node e;
};

struct wmon_staged *
wmon_stage(struct wmon *m, const char *node, const struct report *r)
{
	uint64_t fp = wmon_fingerprint(r);
	struct wmon_node *e;
	struct wmon_staged *st;
	int same;

	if (m == NULL)
		return NULL;
	pthread_mutex_lock(&m->mu);
	e = wmon_node_get(m, node, 0);
	same = e != NULL && e->fp == fp;
	if (same)	/* the same wiring, read again or not: how old */
		e->wn.facts_age = wiring_report_facts_age(r);
	pthread_mutex_unlock(&m->mu);
	if (same || (st = malloc(sizeof(*st))) == NULL)
		return NULL;
	snprintf(st->e.name, sizeof(st->e.name), "%s", node);
	st->e.fp = fp;
	st->e.dirty = 0;
	st->e.next_dirty = NULL;
	wiring_node_from_report(&st->e.wn, node, NODE_READY, r, 0, 0, 0);
	addr_ports_from_report(&st->e.addrs, r);
	return st;
}

/*
 * On the writer thread: a new node's staged entry is kept, not copied.  A
 * node seen before has its Thunderbolt addresses compared with its
 * previous report's (wmon_addr.c): a node's first report changes none.
 */
void
wmon_apply(struct wmon *m, struct wmon_staged *st)
{
	struct wmon_node *e;
	int took = 0;

	if (m == NULL || st == NULL) {
		free(st);
		return;
	}
	pthread_mutex_lock(&m->mu);
	if ((e = node_put(m, st->e.name, 1, &st->e, &took)) != NULL &&
	    (took || e->fp != st->e.fp)) {
		if (!took) {
			if (e->fp != 0)
				wmon_addr_seen(m, e->name, &e->addrs, &st->e.addrs, ctrl_now());
			e->wn = st->e.wn;
			e->addrs = st->e.addrs;
			e->fp = st->e.fp;
		}
		wmon_node_mark(m, e);
	}
	pthread_mutex_unlock(&m->mu);
	if (!took)
		free(st);
}

void
wmon_staged_free(struct wmon_staged *st)
{
	free(st);
}

void
wmon_forget(struct wmon *m, const char *node)
{
	size_t i, j;

	if (m == NULL)
		return;
	pthread_mutex_lock(&m->mu);
	if (m->cap == 0 || m->slots[i = slot_of(m, node, name_hash(node))].e == NULL) {
		pthread_mutex_unlock(&m->mu);
		return;
	}
	unmark(m, m->slots[i].e);
	wmon_addr_forget(m, node);
	free(m->slots[i].e);
	memset(&m->slots[i], 0, sizeof(m->slots[i]));
	m->used--;
	/* open addressing: pull later entries of the run back over the hole */
	for (j = (i + 1) & (m->cap - 1); m->slots[j].e != NULL; j = (j + 1) & (m->cap - 1)) {
		size_t home = (size_t)m->slots[j].h & (m->cap - 1);

		/* j stays unless its home lies cyclically outside (i, j] */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		m->slots[i] = m->slots[j];
		memset(&m->slots[j], 0, sizeof(m->slots[j]));
		i = j;
	}
	m->touched = 1;
	pthread_cond_signal(&m->cv);
	pthread_mutex_unlock(&m->mu);
}

void
wmon_touch(struct wmon *m)
{
	if (m == NULL)
		return;
	pthread_mutex_lock(&m->mu);
	m->touched = 1;
	pthread_cond_signal(&m->cv);
	pthread_mutex_unlock(&m->mu);
}

/* ---- one cluster from the inventory ---- */

void
wmon_cluster_free(struct wmon_cluster_in *ci)
{
	if (ci == NULL)
		return;
	free(ci->members);
	free(ci->dot);
	for (int k = 0; k < ci->n_members; k++)
		free(ci->json[k]);
	free(ci->json);
	free(ci->ro_phase);
	memset(ci, 0, sizeof(*ci));
}

/* Is node in the cache (mu taken here)? */
static int
cached(struct wmon *m, const char *node)
{
	int have;

	pthread_mutex_lock(&m->mu);
	have = wmon_node_get(m, node, 0) != NULL;
	pthread_mutex_unlock(&m->mu);
	return have;
}

/* Where a rollout is with a node at step s (see enum wiring_rollout_phase). */
static enum wiring_rollout_phase
ro_phase(const struct ro_node *n)
{
	enum ro_step s = n->step == RO_FAILED ? n->failed_step : n->step;

	switch (s) {
	case RO_INSTALL:
	case RO_WAIT:
		return WIRING_RO_UPDATING;
	case RO_VERIFY:
	case RO_UNCORDON:
	case RO_DONE:
	case RO_SKIPPED:
		return WIRING_RO_UPDATED;
	default:
		return WIRING_RO_NOT_YET;
	}
}

/* The rollout open on ci's cluster and each member's phase in it; the
 * store's lock held.  No rollout (or one the inventory cannot give) leaves
 * them 0. */
static void
load_rollout(struct wmon *m, struct wmon_cluster_in *ci)
{
	struct ro_campaign *camp;
	int64_t id = 0;

	if (inv_rollout_open_on(m->c->store.inv, ci->name, &id) != 0 || id == 0)
		return;
	if ((camp = malloc(sizeof(*camp))) == NULL)
		return;
	if (inv_rollout_get(m->c->store.inv, id, camp) == 0 && camp->state != RO_ABORTED &&
	    camp->state != RO_FINISHED) {
		ci->rollout_id = id;
		for (int k = 0; k < ci->n_members; k++)
			for (int i = 0; i < camp->n; i++)
				if (strcmp(camp->nodes[i].node, ci->members[k].name) == 0)
					ci->ro_phase[k] = ro_phase(&camp->nodes[i]);
	}
	free(camp);
}

/*
 * The members of cluster among all (sorted by name) and its expectation;
 * the store's lock held.  Reports of members missing from the cache are
 * read too.
 */
int
wmon_cluster_load(struct wmon *m, const char *cluster, const struct api_node *all, int n_all,
    struct wmon_cluster_in *ci)
{
	int rc, k = 0;

	memset(ci, 0, sizeof(*ci));
	snprintf(ci->name, sizeof(ci->name), "%s", cluster);
	rc = inv_wiring_get(m->c->store.inv, cluster, ci->topology, sizeof(ci->topology), &ci->dot,
	    &ci->updated_at);
	if (rc != 0)
		return rc;
	for (int i = 0; i < n_all; i++)
		k += strcmp(all[i].cluster, cluster) == 0;
	ci->members = calloc((size_t)(k > 0 ? k : 1), sizeof(*ci->members));
	ci->json = calloc((size_t)(k > 0 ? k : 1), sizeof(*ci->json));
	ci->ro_phase = calloc((size_t)(k > 0 ? k : 1), sizeof(*ci->ro_phase));
	if (ci->members == NULL || ci->json == NULL || ci->ro_phase == NULL)
		return -1;
	/* every member, however many: wiring_check refuses a cluster beyond
	 * WIRING_NODES_MAX with a reason rather than checking part of it */
	for (int i = 0; i < n_all; i++) {
		if (strcmp(all[i].cluster, cluster) != 0)
			continue;
		ci->members[ci->n_members] = all[i];
		if (!cached(m, all[i].name) &&
		    inv_node_report(m->c->store.inv, all[i].name, &ci->json[ci->n_members]) != 0)
			ci->json[ci->n_members] = NULL;
		ci->n_members++;
	}
	load_rollout(m, ci);
	return 0;
}

/* Decode the reports read for members missing from the cache (no lock held). */
static void
fill_missing(struct wmon *m, struct wmon_cluster_in *ci)
{
	const struct wmon_node *e;
	struct report *r = NULL;
	char err[256];

	for (int k = 0; k < ci->n_members; k++) {
		if (ci->json[k] == NULL)
			continue;
		if (r == NULL && (r = report_new()) == NULL)
			return;
		if (report_decode(ci->json[k], strlen(ci->json[k]), r, err, sizeof(err)) == -1) {
			log_warnx("%s: stored report of %s: %s", __func__, ci->members[k].name, err);
			continue;
		}
		/*
		 * Decoded without the lock: a newer report may have come in
		 * meanwhile (wmon_apply), which the stored one must not undo.
		 */
		pthread_mutex_lock(&m->mu);
		e = wmon_node_get(m, ci->members[k].name, 0);
		if (e == NULL || e->fp == 0)
			store_locked(m, ci->members[k].name, r, wmon_fingerprint(r));
		pthread_mutex_unlock(&m->mu);
	}
	free(r);
}

/* The engine's node for a member: the cached wiring, state and freshness. */
static void
member_node(struct wmon *m, const struct api_node *a, double now, struct wiring_node *wn)
{
	const struct wmon_node *e;

	int have;

	/* another thread's wmon_forget() may free e: everything read from it
	 * is read under the lock */
	pthread_mutex_lock(&m->mu);
	e = wmon_node_get(m, a->name, 0);
	have = e != NULL && e->fp != 0;
	if (have)
		*wn = e->wn;
	pthread_mutex_unlock(&m->mu);
	if (!have) {
		wiring_node_from_report(wn, a->name, a->state, NULL, NAN, now, 0);
		return;
	}
	wn->state = a->state;
	/* late, unreachable, or its Thunderbolt and RDMA facts read too long ago */
	wiring_node_freshen(wn, a->last_report_at, now, m->c->unreachable_after);
}

static int
expectation(struct wmon_cluster_in *ci, struct wiring_expect *ex,
    struct wiring_plan_link **plan, char *err, size_t errlen)
{
	char perr[256];

	*plan = NULL;
	memset(ex, 0, sizeof(*ex));
	if (wiring_topology_parse(ci->topology, &ex->topology) == -1) {
		snprintf(err, errlen, "cluster %s: stored topology \"%s\" is unknown", ci->name,
		    ci->topology);
		return -1;
	}
	if (ex->topology != WIRING_TOPO_PLAN)
		return 0;
	if (ci->dot == NULL || wiring_dot_parse(ci->dot, strlen(ci->dot), plan, &ex->n_links,
	    perr, sizeof(perr)) == -1) {
		snprintf(err, errlen, "cluster %s: stored plan does not parse: %s", ci->name,
		    ci->dot ? perr : "none");
		return -1;
	}
	ex->links = *plan;
	return 0;
}

/* The members as the engine's nodes (malloc'd), NULL out of memory. */
static struct wiring_node *
member_nodes(struct wmon *m, struct wmon_cluster_in *ci, double now)
{
	struct wiring_node *nodes;

	fill_missing(m, ci);
	nodes = calloc((size_t)(ci->n_members > 0 ? ci->n_members : 1), sizeof(*nodes));
	for (int k = 0; nodes != NULL && k < ci->n_members; k++) {
		member_node(m, &ci->members[k], now, &nodes[k]);
		if (ci->rollout_id != 0 && ci->ro_phase[k] != WIRING_RO_NONE) {
			nodes[k].rollout_id = ci->rollout_id;
			nodes[k].rollout_phase = ci->ro_phase[k];
		}
	}
	return nodes;
}

struct wiring_result *
wmon_cluster_check(struct wmon *m, struct wmon_cluster_in *ci, double now, char *err,
    size_t errlen)
{
	struct wiring_input in;
	struct wiring_node *nodes;
	struct wiring_plan_link *plan = NULL;
	struct wiring_result *r = NULL;

	memset(&in, 0, sizeof(in));
	if (ci->n_members > WIRING_NODES_MAX) {
		snprintf(err, errlen, "a cluster has at most %d nodes, not %d", WIRING_NODES_MAX,
		    ci->n_members);
		return NULL;
	}
	if (expectation(ci, &in.expect, &plan, err, errlen) == -1)
		return NULL;
	if ((nodes = member_nodes(m, ci, now)) == NULL) {
		free(plan);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(in.cluster, sizeof(in.cluster), "%s", ci->name);
	in.now = now;
	in.n_nodes = ci->n_members;
	in.nodes = nodes;
	r = wiring_check(&in, err, errlen);
	free(nodes);
	free(plan);
	return r;
}

struct cluster_read {
	struct wmon *m;
	const char *cluster;
	struct wmon_cluster_in *ci;
};

/* store_fn: the cluster as the inventory has it (wmon_cluster_load). */
static int
cluster_read(struct inv *inv, void *arg)
{
	struct cluster_read *a = arg;
	struct api_node *all = NULL;
	int n = 0, rc;

	rc = inv_node_list(inv, &all, &n);
	if (rc == 0)
		rc = wmon_cluster_load(a->m, a->cluster, all, n, a->ci);
	free(all);
	return rc;
}

/* Load cluster from the inventory (the store's lock taken here); 0, INV_NOTFOUND or -1. */
static int
load_one(struct wmon *m, const char *cluster, struct wmon_cluster_in *ci, char *err,
    size_t errlen)
{
	struct cluster_read a = { m, cluster, ci };
	int rc;

	memset(ci, 0, sizeof(*ci));
	rc = store_with(&m->c->store, cluster_read, &a);
	if (rc != 0 && rc != INV_NOTFOUND)
		snprintf(err, errlen, "the inventory is not available");
	if (rc != 0)
		wmon_cluster_free(ci);
	return rc == INV_NOTFOUND ? INV_NOTFOUND : rc != 0 ? -1 : 0;
}

int
wmon_check(struct wmon *m, const char *cluster, double now, struct wiring_result **out,
    char *err, size_t errlen)
{
	struct wmon_cluster_in ci;
	int rc;

	*out = NULL;
	if ((rc = load_one(m, cluster, &ci, err, errlen)) != 0)
		return rc;
	if (ci.n_members > WIRING_NODES_MAX) {
		snprintf(err, errlen, "cluster %s has %d nodes; a wiring check takes at most %d",
		    cluster, ci.n_members, WIRING_NODES_MAX);
		wmon_cluster_free(&ci);
		return WMON_TOO_BIG;
	}
	*out = wmon_cluster_check(m, &ci, now, err, errlen);
	wmon_cluster_free(&ci);
	return *out ? 0 : -1;
}

int
wmon_nodes(struct wmon *m, const char *cluster, double now, struct wiring_node **out,
    int *n, char *err, size_t errlen)
{
	struct wmon_cluster_in ci;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = load_one(m, cluster, &ci, err, errlen)) != 0)
		return rc;
	if (ci.n_members > WIRING_NODES_MAX) {
		snprintf(err, errlen, "cluster %s has %d nodes; a cabling plan takes at most %d",
		    cluster, ci.n_members, WIRING_NODES_MAX);
		wmon_cluster_free(&ci);
		return WMON_TOO_BIG;
	}
	if ((*out = member_nodes(m, &ci, now)) == NULL) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	} else
		*n = ci.n_members;
	wmon_cluster_free(&ci);
	return rc;
}

struct wmon *
wmon_new(struct ctrl *c)
{
	struct wmon *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return NULL;
	m->c = c;
	pthread_mutex_init(&m->mu, NULL);
	pthread_cond_init(&m->cv, NULL);
	m->touched = 1;
	return m;
}

void
wmon_free(struct wmon *m)
{
	if (m == NULL)
		return;
	for (size_t k = 0; k < m->cap; k++)
		free(m->slots[k].e);
	free(m->slots);
	for (int k = 0; k < m->n_states; k++)
		free(m->states[k].links);
	free(m->states);
	wmon_addr_free(m);
	pthread_mutex_destroy(&m->mu);
	pthread_cond_destroy(&m->cv);
	free(m);
}
