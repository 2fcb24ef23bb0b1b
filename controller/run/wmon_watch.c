/*
 * The wmon thread: after a report changed some node's wiring (or a plan or
 * a membership changed), check the clusters concerned; every
 * WMON_FULL_EVERY seconds, check them all.  A link whose verdict differs
 * from the previous pass's is an event ("wiring pass -> degraded", about
 * the link's first node, the reason naming the link and its fix), and so
 * is a cluster verdict that changed, each at most once a WMON_EVENT_GAP
 * (wmon_gate.h: a flapping cable makes one event a minute, not one a
 * check).  The verdicts stay for /metrics.  The address changes the ingest
 * writer queued (wmon_addr.c) are recorded first, and the placements of
 * the clusters checked are checked for staleness with them as the cause.
 */
#include "wmon.h"
#include "wmon_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctrl.h"
#include "log.h"
#include "placement_ctrl.h"
#include "textbuf.h"

struct pending {
	api_name node;
	char what[64];
	char reason[API_REASON_MAX + 1];
};

struct pass {
	struct pending *ev;
	int n_ev, cap_ev;
	struct wmon_addr_event *addr_ev;   /* wmon_addr.c's, recorded first */
	int n_addr_ev;
	struct placement_cause *causes;    /* the address changes since the last pass */
	int n_causes;
};

static void
pending_add(struct pass *p, const char *node, const char *what, const char *reason)
{
	if (p->n_ev == p->cap_ev) {
		int cap = p->cap_ev ? p->cap_ev * 2 : 16;
		struct pending *v = realloc(p->ev, (size_t)cap * sizeof(*v));

		if (v == NULL)
			return;
		p->ev = v;
		p->cap_ev = cap;
	}
	snprintf(p->ev[p->n_ev].node, sizeof(p->ev[0].node), "%s", node);
	snprintf(p->ev[p->n_ev].what, sizeof(p->ev[0].what), "%s", what);
	memcpy(p->ev[p->n_ev].reason, reason, strnlen(reason, API_REASON_MAX));
	p->ev[p->n_ev].reason[strnlen(reason, API_REASON_MAX)] = '\0';
	p->n_ev++;
}

/* The state kept for cluster (mu held); NULL when none. */
static struct wmon_state *
state_of(struct wmon *m, const char *cluster)
{
	for (int k = 0; k < m->n_states; k++)
		if (strcmp(m->states[k].cluster, cluster) == 0)
			return &m->states[k];
	return NULL;
}

static const struct wmon_link_state *
old_link(const struct wmon_state *s, const char *expected)
{
	for (int k = 0; s != NULL && k < s->n_links; k++)
		if (strcmp(s->links[k].expected, expected) == 0)
			return &s->links[k];
	return NULL;
}

/* The event a gate lets out, if any, for what (a link, or "cluster C"). */
static void
gate_event(struct pass *p, const char *node, struct wmon_gate *g, int verdict, double now,
    const char *(*str)(int), const char *detail)
{
	char what[64], reason[1400];
	int from, unlogged;
	enum wmon_gate_event ev = wmon_gate_pass(g, verdict, now, &from, &unlogged);

	if (ev == WMON_GATE_QUIET)
		return;
	if (ev == WMON_GATE_CHANGED)
		snprintf(what, sizeof(what), "wiring %s -> %s", str(from), str(verdict));
	else
		snprintf(what, sizeof(what), "wiring flapping");
	if (unlogged > 0)
		snprintf(reason, sizeof(reason), "%s; %d change%s since the last event not logged%s%s",
		    detail, unlogged, unlogged == 1 ? "" : "s",
		    ev == WMON_GATE_FLAPPING ? ", now " : "",
		    ev == WMON_GATE_FLAPPING ? str(verdict) : "");
	else
		snprintf(reason, sizeof(reason), "%s", detail);
	pending_add(p, node, what, reason);
}

static const char *
link_verdict_str(int v)
{
	return wiring_verdict_str((enum wiring_verdict)v);
}

static const char *
cluster_verdict_str(int v)
{
	return wiring_cluster_verdict_str((enum wiring_cluster_verdict)v);
}

/*
 * Replace cluster's state with r's verdicts, and queue the events their
 * changes make through each link's gate (none on a cluster's first
 * sight, nor for a link first seen); mu held.
 */
static void
keep(struct wmon *m, const struct wiring_result *r, double now, struct pass *p)
{
	struct wmon_state *s = state_of(m, r->cluster);
	struct wmon_link_state *links = calloc((size_t)(r->n_links > 0 ? r->n_links : 1),
	    sizeof(*links));
	char detail[1400];

	if (links == NULL)
		return;
	if (s == NULL) {
		struct wmon_state *v = realloc(m->states, (size_t)(m->n_states + 1) * sizeof(*v));

		if (v == NULL) {
			free(links);
			return;
		}
		m->states = v;
		s = &m->states[m->n_states++];
		memset(s, 0, sizeof(*s));
		snprintf(s->cluster, sizeof(s->cluster), "%s", r->cluster);
		wmon_gate_init(&s->gate, r->verdict);
	}
	for (int k = 0; k < r->n_links; k++) {
		const struct wiring_link *l = &r->links[k];
		const struct wmon_link_state *o = old_link(s, l->expected);

		memcpy(links[k].expected, l->expected, sizeof(links[k].expected));
		memcpy(links[k].a, l->a.node, sizeof(links[k].a));
		memcpy(links[k].b, l->b.node, sizeof(links[k].b));
		links[k].verdict = l->verdict;
		links[k].pass = l->pass;
		if (o == NULL) {
			wmon_gate_init(&links[k].gate, l->verdict);
			continue;
		}
		links[k].gate = o->gate;
		snprintf(detail, sizeof(detail), "%s: %s: %s%s%s", r->cluster, l->expected,
		    l->actual, l->fix[0] ? "; fix: " : "", l->fix);
		gate_event(p, l->a.node, &links[k].gate, l->verdict, now, link_verdict_str, detail);
	}
	snprintf(detail, sizeof(detail), "cluster %s: %s", r->cluster, r->verdict_text);
	gate_event(p, "", &s->gate, r->verdict, now, cluster_verdict_str, detail);
	free(s->links);
	s->links = links;
	s->n_links = r->n_links;
	s->verdict = r->verdict;
	s->seen = 1;
}

/* Forget clusters a full pass did not see (removed); mu held. */
static void
forget_unseen(struct wmon *m)
{
	int j = 0;

	for (int k = 0; k < m->n_states; k++) {
		if (!m->states[k].seen) {
			free(m->states[k].links);
			continue;
		}
		m->states[k].seen = 0;
		m->states[j++] = m->states[k];
	}
	m->n_states = j;
}

/* Names of the nodes whose wiring changed; empties the dirty list; mu held. */
static int
take_dirty(struct wmon *m, api_name **out)
{
	struct wmon_node *e;
	int n = 0;

	*out = NULL;
	for (e = m->dirty_head; e != NULL; e = e->next_dirty)
		n++;
	if (n == 0 || (*out = calloc((size_t)n, sizeof(**out))) == NULL)
		return 0;
	n = 0;
	while ((e = m->dirty_head) != NULL) {
		memcpy((*out)[n++], e->name, sizeof(api_name));
		m->dirty_head = e->next_dirty;
		e->next_dirty = NULL;
		e->dirty = 0;
	}
	return n;
}

static int
concerned(const char *cluster, const struct api_node *all, int n_all, api_name *dirty,
    int n_dirty)
{
	for (int i = 0; i < n_all; i++) {
		if (strcmp(all[i].cluster, cluster) != 0)
			continue;
		for (int d = 0; d < n_dirty; d++)
			if (strcmp(all[i].name, dirty[d]) == 0)
				return 1;
	}
	return 0;
}

struct clusters_read {
	struct wmon *m;
	int full;
	api_name *dirty;
	int n_dirty;
	struct wmon_cluster_in *ci;  /* malloc'd */
	int n;
};

/* store_fn: the clusters to check, each as the inventory has it. */
static int
clusters_read(struct inv *inv, void *arg)
{
	struct clusters_read *a = arg;
	struct api_cluster *cl = NULL;
	struct api_node *all = NULL;
	int ncl = 0, n = 0;

	/* no cluster, nothing to check: spare listing every node under the lock */
	if (inv_cluster_list(inv, &cl, &ncl) == 0 &&
	    (ncl == 0 || inv_node_list(inv, &all, &n) == 0) &&
	    (a->ci = calloc((size_t)(ncl > 0 ? ncl : 1), sizeof(*a->ci))) != NULL)
		for (int k = 0; k < ncl; k++)
			if ((a->full || concerned(cl[k].name, all, n, a->dirty, a->n_dirty)) &&
			    wmon_cluster_load(a->m, cl[k].name, all, n, &a->ci[a->n]) == 0)
				a->n++;
	free(cl);
	free(all);
	return 0;
}

/* Load the clusters to check (the store's lock taken here); *n_out of them. */
static struct wmon_cluster_in *
load(struct wmon *m, int full, api_name *dirty, int n_dirty, int *n_out)
{
	struct clusters_read a = { m, full, dirty, n_dirty, NULL, 0 };

	store_with(&m->c->store, clusters_read, &a);
	*n_out = a.n;
	return a.ci;
}

struct pass_record {
	struct wmon *m;
	const struct pass *p;
	const struct wmon_cluster_in *ci;
	int n;
	double now;
};

/* store_fn: a pass's events, and the placements its changes made stale. */
static int
pass_record(struct inv *inv, void *arg)
{
	const struct pass_record *a = arg;
	struct ctrl *c = a->m->c;

	(void)inv;
	for (int k = 0; k < a->p->n_addr_ev; k++)
		ctrl_event(c, a->p->addr_ev[k].at, "controller", a->p->addr_ev[k].node,
		    a->p->addr_ev[k].what, a->p->addr_ev[k].reason);
	for (int k = 0; k < a->p->n_ev; k++)
		ctrl_event(c, a->now, "controller", a->p->ev[k].node, a->p->ev[k].what,
		    a->p->ev[k].reason);
	for (int k = 0; k < a->n; k++)
		placement_stale_check(c, a->ci[k].name, a->now, a->p->causes, a->p->n_causes);
	return 0;
}

static void
run_pass(struct wmon *m, int full)
{
	struct pass p = { 0 };
	api_name *dirty;
	struct wmon_cluster_in *ci;
	double now = ctrl_now();
	char err[256];
	int n_dirty, n;

	pthread_mutex_lock(&m->mu);
	n_dirty = take_dirty(m, &dirty);
	wmon_addr_flush(m, now);
	wmon_addr_take(m, &p.addr_ev, &p.n_addr_ev, &p.causes, &p.n_causes);
	full |= m->touched;
	m->touched = 0;
	m->dirty = 0;
	pthread_mutex_unlock(&m->mu);
	ci = load(m, full, dirty, n_dirty, &n);
	for (int k = 0; k < n; k++) {
		struct wiring_result *r = wmon_cluster_check(m, &ci[k], now, err, sizeof(err));

		if (r == NULL) {
			log_warnx("wiring of cluster %s: %s", ci[k].name, err);
			continue;
		}
		pthread_mutex_lock(&m->mu);
		keep(m, r, now, &p);
		pthread_mutex_unlock(&m->mu);
		wiring_result_free(r);
	}
	struct pass_record rec = { m, &p, ci, n, now };
	store_with(&m->c->store, pass_record, &rec);
	pthread_mutex_lock(&m->mu);
	if (full)
		forget_unseen(m);
	m->passes++;
	pthread_mutex_unlock(&m->mu);
	for (int k = 0; k < n; k++)
		wmon_cluster_free(&ci[k]);
	free(ci);
	free(dirty);
	free(p.ev);
	free(p.addr_ev);
	free(p.causes);
}

static void
deadline(struct timespec *ts, double seconds)
{
	double t;

	clock_gettime(CLOCK_REALTIME, ts);
	t = (double)ts->tv_nsec / 1e9 + seconds;
	ts->tv_sec += (time_t)t;
	ts->tv_nsec = (long)((t - floor(t)) * 1e9);
}

static void *
watch(void *arg)
{
	struct wmon *m = arg;
	double next_full = 0;

	pthread_mutex_lock(&m->mu);
	while (!m->stopping) {
		struct timespec ts;
		double now = ctrl_now();
		int full = now >= next_full;

		if (!full && !m->dirty && !m->touched) {
			deadline(&ts, next_full - now);
			pthread_cond_timedwait(&m->cv, &m->mu, &ts);
			continue;
		}
		pthread_mutex_unlock(&m->mu);
		run_pass(m, full);
		if (full)
			next_full = now + WMON_FULL_EVERY;
		pthread_mutex_lock(&m->mu);
		deadline(&ts, WMON_MIN_GAP);   /* let changes gather; wakes early to stop */
		while (!m->stopping && pthread_cond_timedwait(&m->cv, &m->mu, &ts) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&m->mu);
	return NULL;
}

int
wmon_start(struct wmon *m)
{
	if (pthread_create(&m->thread, NULL, watch, m) != 0)
		return -1;
	m->running = 1;
	return 0;
}

void
wmon_stop(struct wmon *m)
{
	if (m == NULL || !m->running)
		return;
	pthread_mutex_lock(&m->mu);
	m->stopping = 1;
	pthread_cond_broadcast(&m->cv);
	pthread_mutex_unlock(&m->mu);
	pthread_join(m->thread, NULL);
	m->running = 0;
}

uint64_t
wmon_passes(struct wmon *m)
{
	uint64_t n;

	pthread_mutex_lock(&m->mu);
	n = m->passes;
	pthread_mutex_unlock(&m->mu);
	return n;
}

/* ---- metrics ---- */

char *
wmon_metrics(struct wmon *m)
{
	struct textbuf b = { 0 };

	textbuf_printf(&b, "# HELP tbmesh_wiring_link_pass Each expected Thunderbolt link of a cluster: "
	    "1 when it passes, 0 when it fails; its verdict is a label.\n"
	    "# TYPE tbmesh_wiring_link_pass gauge\n");
	pthread_mutex_lock(&m->mu);
	for (int k = 0; k < m->n_states; k++)
		for (int l = 0; l < m->states[k].n_links; l++) {
			const struct wmon_link_state *s = &m->states[k].links[l];

			textbuf_printf(&b, "tbmesh_wiring_link_pass{cluster=\"%s\",link=\"", m->states[k].cluster);
			textbuf_label_value(&b, s->expected);
			textbuf_printf(&b, "\",a=\"%s\",b=\"%s\",verdict=\"%s\"} %d\n", s->a, s->b,
			    wiring_verdict_str(s->verdict), s->pass);
		}
	textbuf_printf(&b, "# HELP tbmesh_wiring_cluster_verdict A cluster's wiring verdict: 1 for the "
	    "verdict it has, 0 for the others.\n# TYPE tbmesh_wiring_cluster_verdict gauge\n");
	for (int k = 0; k < m->n_states; k++)
		for (int v = WIRING_TENSOR_READY; v <= WIRING_UNUSABLE; v++)
			textbuf_printf(&b, "tbmesh_wiring_cluster_verdict{cluster=\"%s\",verdict=\"%s\"} %d\n",
			    m->states[k].cluster,
			    wiring_cluster_verdict_str((enum wiring_cluster_verdict)v),
			    m->states[k].verdict == (enum wiring_cluster_verdict)v);
	wmon_addr_metrics(m, &b);
	pthread_mutex_unlock(&m->mu);
	return textbuf_take(&b);
}
