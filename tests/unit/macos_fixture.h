/*
 * What the unit tests of the macOS JSON parser (macos_json.c) share: the
 * fixtures of tests/fixtures/macos/ and the captures of
 * tests/fixtures/captures/ read whole, a fresh Thunderbolt section, a port
 * by receptacle, and the table of what each port of a capture must show.
 * Header-only: each test file includes it once, after <cmocka.h>.
 */
#ifndef TBMESH_MACOS_FIXTURE_H
#define TBMESH_MACOS_FIXTURE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_text.h"
#include "macos_json.h"

/* tests/fixtures/captures/ (its README.md: repository, file, commit) */
#define OSAURUS_LOCAL "osaurus/sp_thunderbolt_local.json"
#define OSAURUS_PEER "osaurus/sp_thunderbolt_peer.json"
#define OMLX_STUDIO "omlx-plus/sp_thunderbolt_studio.json"
#define OMLX_MACBOOK "omlx-plus/sp_thunderbolt_macbook.json"


#define assert_dbl(got, want) do {						\
	double g_ = (got), w_ = (want);						\
	if (!(g_ == w_ || fabs(g_ - w_) <= 1e-9 * fabs(w_)))			\
		fail_msg("%s is %.17g, expected %.17g", #got, g_, w_);		\
} while (0)
#define assert_nan(got) do {							\
	if (!isnan(got))							\
		fail_msg("%s is %.17g, expected NAN", #got, (double)(got));	\
} while (0)

/* A fixture of tests/fixtures/macos/. */
static inline char *
fixture(const char *name, size_t *len)
{
	return fx_fixture("macos", name, len);
}

/*
 * A real capture of another project, tests/fixtures/captures/NAME: its
 * README.md says whose (repository, file, commit).
 */
static inline char *
capture(const char *name, size_t *len)
{
	return fx_fixture("captures", name, len);
}

static inline struct report_thunderbolt *
tb_new(void)
{
	static struct report r;

	report_init(&r);
	return &r.thunderbolt;
}

static inline const struct report_port *
port_of(const struct report_thunderbolt *tb, const char *receptacle)
{
	for (int i = 0; i < tb->n_ports; i++)
		if (strcmp(tb->ports[i].receptacle, receptacle) == 0)
			return &tb->ports[i];
	fail_msg("no port for receptacle %s", receptacle);
	return NULL;
}


/* What one port of a capture shows; peer_uuid NULL: no peer. */
struct want_port {
	const char *receptacle, *bus, *domain;
	enum port_status status;
	const char *link_status;
	double gbps;		/* NAN: empty ("Up to 120 Gb/s") */
	const char *peer_uuid, *peer_name, *peer_model;
	enum tri rdma_service;
	enum tri via_hub;
	const char *hub;	/* NULL: "" */
};

/* A port with nothing plugged in: "Up to 120 Gb/s", link 0x100. */
#define EMPTY_PORT(rec, bus, dom) \
	{ rec, bus, dom, PORT_STATUS_EMPTY, "0x100", NAN, NULL, NULL, NULL, TRI_NULL, \
	  TRI_NULL, NULL }
/* A device that is no host (a drive, dock or hub) plugged in: connected, no peer. */
#define DEVICE_PORT(rec, bus, dom, link, gbps) \
	{ rec, bus, dom, PORT_STATUS_CONNECTED, link, gbps, NULL, NULL, NULL, TRI_NULL, \
	  TRI_NULL, NULL }

static inline void
port_str(int i, const char *field, const char *got, const char *want)
{
	if (strcmp(got, want != NULL ? want : "") != 0)
		fail_msg("ports[%d].%s is \"%s\", expected \"%s\"", i, field, got,
		    want != NULL ? want : "");
}

static inline void
port_int(int i, const char *field, int got, int want)
{
	if (got != want)
		fail_msg("ports[%d].%s is %d, expected %d", i, field, got, want);
}

/* tb holds exactly the ports of want, in the order printed. */
static inline void
assert_ports(const struct report_thunderbolt *tb, const struct want_port *want, int n)
{
	assert_int_equal(tb->n_ports, n);
	for (int i = 0; i < n; i++) {
		const struct report_port *p = &tb->ports[i];
		const struct want_port *w = &want[i];

		port_str(i, "receptacle", p->receptacle, w->receptacle);
		port_str(i, "bus", p->bus, w->bus);
		port_str(i, "domain_uuid", p->domain_uuid, w->domain);
		port_int(i, "status", (int)p->status, (int)w->status);
		port_str(i, "link_status", p->link_status, w->link_status);
		if (isnan(w->gbps) ? !isnan(p->speed_gbps) : p->speed_gbps != w->gbps)
			fail_msg("ports[%d].speed_gbps is %g, expected %g", i, p->speed_gbps,
			    w->gbps);
		/* every empty port of these captures says "Up to 120 Gb/s"; a link only its rate */
		if (w->status == PORT_STATUS_EMPTY ? p->max_speed_gbps != 120 :
		    !isnan(p->max_speed_gbps))
			fail_msg("ports[%d].max_speed_gbps is %g", i, p->max_speed_gbps);
		port_int(i, "has_peer", p->has_peer, w->peer_uuid != NULL);
		port_str(i, "peer.domain_uuid", p->peer.domain_uuid, w->peer_uuid);
		port_str(i, "peer.name", p->peer.name, w->peer_name);
		port_str(i, "peer.model", p->peer.model, w->peer_model);
		port_int(i, "peer.rdma_service", (int)p->peer.rdma_service,
		    (int)w->rdma_service);
		port_int(i, "via_hub", (int)p->via_hub, (int)w->via_hub);
		port_str(i, "hub", p->hub, w->hub);
		/* from other commands: untouched */
		port_str(i, "interface", p->interface, "");
		port_int(i, "n_ipv4", p->n_ipv4, -1);
	}
}

/* The capture parses with no error into tb. */
static inline void
parse_capture(const char *name, struct report_thunderbolt *tb)
{
	char err[256];
	size_t len;
	char *json = capture(name, &len);

	if (macos_parse_thunderbolt(json, len, tb, err, sizeof(err)) != 0)
		fail_msg("%s: %s", name, err);
	assert_string_equal(err, "");
	free(json);
}

#endif
