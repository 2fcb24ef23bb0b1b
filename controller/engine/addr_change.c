/* See addr_change.h. */
#include "addr_change.h"
#include "textbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXO_NETWORKSETUP_INTERVAL 1786   /* seconds: NetworkSetupHelper.swift L14 */

void
addr_ports_init(struct addr_ports *a)
{
	memset(a, 0, sizeof(*a));
	a->n_ports = -1;
}

/* A dotted quad's value into *v: 0, or -1 when it is not one. */
static int
quad(const char *s, uint32_t *v)
{
	unsigned o[4];
	char tail;

	if (sscanf(s, "%u.%u.%u.%u%c", &o[0], &o[1], &o[2], &o[3], &tail) != 4 ||
	    o[0] > 255 || o[1] > 255 || o[2] > 255 || o[3] > 255)
		return -1;
	*v = (uint32_t)o[0] << 24 | (uint32_t)o[1] << 16 | (uint32_t)o[2] << 8 | o[3];
	return 0;
}

/* Addresses in numeric order; what is not a dotted quad after, by its text. */
static int
addr_cmp(const void *x, const void *y)
{
	const char *a = x, *b = y;
	uint32_t va, vb;
	int qa = quad(a, &va) == 0, qb = quad(b, &vb) == 0;

	if (qa && qb)
		return va < vb ? -1 : va > vb;
	if (qa != qb)
		return qa ? -1 : 1;
	return strcmp(a, b);
}

/* set (n of them) sorted and each once; returns how many are left. */
static int
set_normalize(report_ipv4 *set, int n)
{
	int k = 0;

	qsort(set, (size_t)n, sizeof(*set), addr_cmp);
	for (int i = 0; i < n; i++)
		if (set[i][0] != '\0' && (k == 0 || strcmp(set[k - 1], set[i]) != 0))
			memmove(set[k++], set[i], sizeof(*set));
	return k;
}

static void
port_from_report(struct addr_port *a, const struct report_port *p)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->receptacle, sizeof(a->receptacle), "%.*s", ADDR_NAME_MAX, p->receptacle);
	snprintf(a->interface, sizeof(a->interface), "%.*s", ADDR_NAME_MAX, p->interface);
	a->status = p->status;
	a->n_ipv4 = p->n_ipv4 < 0 ? -1 : p->n_ipv4 > ADDR_IPV4_MAX ? ADDR_IPV4_MAX : p->n_ipv4;
	for (int k = 0; k < a->n_ipv4; k++)
		snprintf(a->ipv4[k], sizeof(a->ipv4[k]), "%.15s", p->ipv4[k]);
	if (a->n_ipv4 > 0)
		a->n_ipv4 = set_normalize(a->ipv4, a->n_ipv4);
}

void
addr_ports_from_report(struct addr_ports *a, const struct report *r)
{
	addr_ports_init(a);
	if (r == NULL || r->thunderbolt.n_ports < 0)
		return;
	a->n_ports = r->thunderbolt.n_ports > ADDR_PORTS_MAX ? ADDR_PORTS_MAX :
	    r->thunderbolt.n_ports;
	for (int i = 0; i < a->n_ports; i++)
		port_from_report(&a->ports[i], &r->thunderbolt.ports[i]);
}

int
addr_set_equal(const report_ipv4 *a, int na, const report_ipv4 *b, int nb)
{
	if (na != nb)
		return 0;
	for (int i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return 0;
	return 1;
}

enum addr_change_kind
addr_change_kind_of(int n_before, int n_after)
{
	if (n_before == 0)
		return ADDR_APPEARED;
	return n_after == 0 ? ADDR_GONE : ADDR_REPLACED;
}

/* The port of ports named interface, or NULL. */
static const struct addr_port *
port_named(const struct addr_ports *ports, const char *interface)
{
	for (int i = 0; i < ports->n_ports; i++)
		if (strcmp(ports->ports[i].interface, interface) == 0)
			return &ports->ports[i];
	return NULL;
}

/* 1 when the two reports of one port say its addresses changed. */
static int
port_changed(const struct addr_port *b, const struct addr_port *a)
{
	if (b->n_ipv4 < 0 || a->n_ipv4 < 0)
		return 0;               /* unknown on one side: no evidence */
	if (b->status == PORT_STATUS_EMPTY || a->status == PORT_STATUS_EMPTY)
		return 0;               /* a cable pulled or plugged: the wiring check says */
	return !addr_set_equal(b->ipv4, b->n_ipv4, a->ipv4, a->n_ipv4);
}

int
addr_changes(const struct addr_ports *before, const struct addr_ports *after,
    struct addr_change *out, int max)
{
	int n = 0;

	if (before == NULL || after == NULL || before->n_ports < 0 || after->n_ports < 0)
		return 0;
	for (int i = 0; i < after->n_ports && n < max; i++) {
		const struct addr_port *a = &after->ports[i], *b;

		if (a->interface[0] == '\0' || (b = port_named(before, a->interface)) == NULL ||
		    port_named(after, a->interface) != a || !port_changed(b, a))
			continue;
		struct addr_change *ch = &out[n++];
		memset(ch, 0, sizeof(*ch));
		memcpy(ch->interface, a->interface, sizeof(ch->interface));
		memcpy(ch->receptacle, a->receptacle[0] ? a->receptacle : b->receptacle,
		    sizeof(ch->receptacle));
		ch->n_before = b->n_ipv4;
		ch->n_after = a->n_ipv4;
		memcpy(ch->before, b->ipv4, sizeof(ch->before));
		memcpy(ch->after, a->ipv4, sizeof(ch->after));
		ch->kind = addr_change_kind_of(ch->n_before, ch->n_after);
	}
	return n;
}

int
addr_is_link_local(const char *addr)
{
	uint32_t v;

	return quad(addr, &v) == 0 && (v >> 16) == 0xa9fe;   /* 169.254 */
}

int
addr_set_dynamic(const report_ipv4 *set, int n)
{
	for (int i = 0; i < n; i++)
		if (!addr_is_link_local(set[i]))
			return 0;
	return 1;
}

void
addr_set_text(const report_ipv4 *set, int n, char *buf, size_t len)
{
	if (n <= 0)
		snprintf(buf, len, "none");
	else if (n == 1)
		snprintf(buf, len, "%s", set[0]);
	else if (n == 2)
		snprintf(buf, len, "%s, %s", set[0], set[1]);
	else
		snprintf(buf, len, "%s, %s +%d", set[0], set[1], n - 2);
}

int
addr_set_key(const report_ipv4 *set, int n)
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < n; i++) {
		for (const char *s = set[i]; *s; s++)
			h = (h ^ (unsigned char)*s) * 16777619u;
		h = (h ^ ',') * 16777619u;
	}
	return (int)(h & 0x7fffffff);
}

void
addr_change_brief(const struct addr_change *ch, char *buf, size_t len)
{
	char b[48], a[48];

	addr_set_text(ch->before, ch->n_before, b, sizeof(b));
	addr_set_text(ch->after, ch->n_after, a, sizeof(a));
	snprintf(buf, len, "%s %s -> %s", ch->interface, b, a);
}

void
addr_change_event(const struct addr_change *ch, int flapping, int held, char *what,
    size_t whatlen, char *reason, size_t reasonlen)
{
	char b[48], a[48];
	int n;

	addr_set_text(ch->before, ch->n_before, b, sizeof(b));
	addr_set_text(ch->after, ch->n_after, a, sizeof(a));
	reason[0] = '\0';
	/* the addresses in what when they fit, else first in reason */
	if (flapping)
		n = snprintf(what, whatlen, "address %s flapping, back at %s", ch->interface, a);
	else
		n = snprintf(what, whatlen, "address %s %s -> %s", ch->interface, b, a);
	if (n < 0 || (size_t)n >= whatlen) {
		snprintf(what, whatlen, "address %s %s", ch->interface,
		    flapping ? "flapping" : "changed");
		if (flapping)
			text_append(reason, reasonlen, "back at %s; ", a);
		else
			text_append(reason, reasonlen, "%s -> %s; ", b, a);
	}
	if (held > 0)
		text_append(reason, reasonlen, "%d %s change%s not logged; ", held,
		    flapping ? "more" : "earlier", held == 1 ? "" : "s");
	/* tbctl node add: cable k of the cluster's plan is A.B.k.0/30 (provision.h) */
	text_append(reason, reasonlen, "fix: a static /30 per cable");
	if (ch->receptacle[0])
		text_append(reason, reasonlen, " (receptacle %s)", ch->receptacle);
	text_append(reason, reasonlen, ": tbctl node add HOST --cluster C [--ip-base A.B.0.0]");
	/*
	 * exo-explore/exo issue 2067: its daemon (NetworkSetupHelper.swift L41,
	 * L55) switches to its own network location with every Thunderbolt
	 * service on DHCP, every 1786 s; its own uninstall runs launchctl
	 * bootout system/io.exo.networksetup (L233)
	 */
	if (flapping || addr_set_dynamic(ch->after, ch->n_after))
		text_append(reason, reasonlen, "; exo's io.exo.networksetup resets Thunderbolt services to "
		    "DHCP every %d s (sudo launchctl bootout system/io.exo.networksetup)",
		    EXO_NETWORKSETUP_INTERVAL);
}
