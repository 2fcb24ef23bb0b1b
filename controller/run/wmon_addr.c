/*
 * Thunderbolt address changes in the live wiring view.  The ingest writer
 * hands each stored report's wiring to wmon_apply(), which compares its
 * Thunderbolt addresses with the node's previous report (addr_change.h)
 * and calls wmon_addr_seen().  Each change is counted per node and
 * interface (tbmesh_wiring_address_changes_total), queued as the cause
 * the next pass gives the placements it makes stale, and becomes an event
 * through the interface's gate (wmon_gate.h: at most one a
 * WMON_EVENT_GAP, the changes held back counted in the next), so an
 * interface flapping between DHCP and a static address every half hour,
 * or every second, cannot flood the event log.  The wmon thread records
 * the queued events (wmon_watch.c) and lets the gates out once their gap
 * is over (wmon_addr_flush).  Everything here runs with the cache's mutex
 * held.
 */
#include "wmon.h"
#include "wmon_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "textbuf.h"

/*
 * Array v (n used of *cap, each size bytes) with room for one more: v, or
 * where realloc moved it; NULL out of memory (v is still valid).
 */
static void *
reserve(void *v, int n, int *cap, size_t size)
{
	void *p;
	int c;

	if (n < *cap)
		return v;
	c = *cap ? *cap * 2 : 16;
	if ((p = realloc(v, (size_t)c * size)) == NULL)
		return NULL;
	*cap = c;
	return p;
}

/* The state of node's interface, created (gate at before's addresses) when absent. */
static struct wmon_addr *
addr_state(struct wmon *m, const char *node, const struct addr_change *ch)
{
	struct wmon_addr *a;

	for (int k = 0; k < m->n_addrs; k++)
		if (strcmp(m->addrs[k].node, node) == 0 &&
		    strcmp(m->addrs[k].last.interface, ch->interface) == 0)
			return &m->addrs[k];
	if ((a = reserve(m->addrs, m->n_addrs, &m->cap_addrs, sizeof(*m->addrs))) == NULL)
		return NULL;
	m->addrs = a;
	a = &m->addrs[m->n_addrs++];
	memset(a, 0, sizeof(*a));
	snprintf(a->node, sizeof(a->node), "%s", node);
	a->last = *ch;
	wmon_gate_init(&a->gate, addr_set_key(ch->before, ch->n_before));
	return a;
}

/* Queue the event the gate's answer ev makes about a (QUIET: none). */
static void
addr_event(struct wmon *m, struct wmon_addr *a, enum wmon_gate_event ev, int held, double now)
{
	struct wmon_addr_event *e;

	if (ev == WMON_GATE_QUIET)
		return;
	if (ev == WMON_GATE_CHANGED)
		a->last.kind = addr_change_kind_of(a->last.n_before, a->last.n_after);
	if (m->n_addr_ev >= WMON_ADDR_EVENTS_MAX || (e = reserve(m->addr_ev, m->n_addr_ev,
	    &m->cap_addr_ev, sizeof(*m->addr_ev))) == NULL) {
		log_warnx("%s: address event of %s %s dropped", __func__, a->node,
		    a->last.interface);
		return;
	}
	m->addr_ev = e;
	e = &m->addr_ev[m->n_addr_ev++];
	memcpy(e->node, a->node, sizeof(e->node));
	e->at = now;
	addr_change_event(&a->last, ev == WMON_GATE_FLAPPING, held, e->what, sizeof(e->what),
	    e->reason, sizeof(e->reason));
	/* what the event said is now the logged side */
	memcpy(a->last.before, a->last.after, sizeof(a->last.before));
	a->last.n_before = a->last.n_after;
}

/* Node's latest change, the cause its placements turn stale with. */
static void
cause_put(struct wmon *m, const char *node, const struct addr_change *ch)
{
	struct placement_cause *pc = NULL;
	char brief[96];

	for (int k = 0; k < m->n_causes && pc == NULL; k++)
		if (strcmp(m->causes[k].node, node) == 0)
			pc = &m->causes[k];
	if (pc == NULL) {
		if ((pc = reserve(m->causes, m->n_causes, &m->cap_causes,
		    sizeof(*m->causes))) == NULL)
			return;
		m->causes = pc;
		pc = &m->causes[m->n_causes++];
		snprintf(pc->node, sizeof(pc->node), "%s", node);
	}
	addr_change_brief(ch, brief, sizeof(brief));
	snprintf(pc->what, sizeof(pc->what), "address change %s", brief);
}

void
wmon_addr_seen(struct wmon *m, const char *node, const struct addr_ports *before,
    const struct addr_ports *after, double now)
{
	struct addr_change ch[ADDR_PORTS_MAX];
	int n = addr_changes(before, after, ch, ADDR_PORTS_MAX), from, held;

	for (int k = 0; k < n; k++) {
		struct wmon_addr *a = addr_state(m, node, &ch[k]);

		if (a == NULL)
			continue;
		a->changes++;
		memcpy(a->last.receptacle, ch[k].receptacle, sizeof(a->last.receptacle));
		memcpy(a->last.after, ch[k].after, sizeof(a->last.after));
		a->last.n_after = ch[k].n_after;
		cause_put(m, node, &ch[k]);
		enum wmon_gate_event ev = wmon_gate_pass(&a->gate,
		    addr_set_key(ch[k].after, ch[k].n_after), now, &from, &held);
		addr_event(m, a, ev, held, now);
	}
}

void
wmon_addr_flush(struct wmon *m, double now)
{
	int from, held;

	for (int k = 0; k < m->n_addrs; k++) {
		struct wmon_addr *a = &m->addrs[k];

		if (a->gate.changes == 0)
			continue;
		enum wmon_gate_event ev = wmon_gate_pass(&a->gate,
		    addr_set_key(a->last.after, a->last.n_after), now, &from, &held);
		addr_event(m, a, ev, held, now);
	}
}

void
wmon_addr_take(struct wmon *m, struct wmon_addr_event **ev, int *n_ev,
    struct placement_cause **causes, int *n_causes)
{
	*ev = m->addr_ev;
	*n_ev = m->n_addr_ev;
	*causes = m->causes;
	*n_causes = m->n_causes;
	m->addr_ev = NULL;
	m->n_addr_ev = m->cap_addr_ev = 0;
	m->causes = NULL;
	m->n_causes = m->cap_causes = 0;
}

void
wmon_addr_forget(struct wmon *m, const char *node)
{
	int j = 0;

	for (int k = 0; k < m->n_addrs; k++)
		if (strcmp(m->addrs[k].node, node) != 0)
			m->addrs[j++] = m->addrs[k];
	m->n_addrs = j;
	j = 0;
	for (int k = 0; k < m->n_causes; k++)
		if (strcmp(m->causes[k].node, node) != 0)
			m->causes[j++] = m->causes[k];
	m->n_causes = j;
}

void
wmon_addr_metrics(struct wmon *m, struct textbuf *b)
{
	textbuf_printf(b, "# HELP tbmesh_wiring_address_changes_total Changes of a Thunderbolt "
	    "interface's IPv4 addresses from one report of its node to the next, since the "
	    "controller started.\n# TYPE tbmesh_wiring_address_changes_total counter\n");
	for (int k = 0; k < m->n_addrs; k++) {
		textbuf_printf(b, "tbmesh_wiring_address_changes_total{node=\"%s\",interface=\"",
		    m->addrs[k].node);
		textbuf_label_value(b, m->addrs[k].last.interface);
		textbuf_printf(b, "\"} %llu\n", (unsigned long long)m->addrs[k].changes);
	}
}

void
wmon_addr_free(struct wmon *m)
{
	free(m->addrs);
	free(m->addr_ev);
	free(m->causes);
	m->addrs = NULL;
	m->addr_ev = NULL;
	m->causes = NULL;
	m->n_addrs = m->n_addr_ev = m->n_causes = 0;
	m->cap_addrs = m->cap_addr_ev = m->cap_causes = 0;
}
