/*
 * The fixture of the inventory's unit tests (test_inventory*.c,
 * test_ingest.c, test_store.c): a fresh inventory file in a temporary
 * directory, a full report of a Mac Studio, enrolment.  Header-only: each
 * test file includes it once.
 */
#ifndef TBMESH_INVENTORY_FIXTURE_H
#define TBMESH_INVENTORY_FIXTURE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inventory.h"
#include "report.h"

#define UUID_A "00008103-0001-4000-8000-00000000000A"
#define UUID_B "00008103-0001-4000-8000-00000000000B"
#define GIB (INT64_C(1) << 30)
#define T0 1763782800.0

struct fx {
	char dir[64];
	char path[128];
	struct inv *inv;
	struct report *r;
	char *json;
};

static inline int
setup_dir(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/tbmesh-inv-XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/inventory.db", f->dir);
	if ((f->r = report_new()) == NULL)
		return -1;
	*state = f;
	return 0;
}

static inline int
setup(void **state)
{
	char err[256];
	struct fx *f;

	if (setup_dir(state) == -1)
		return -1;
	f = *state;
	if ((f->inv = inv_open(f->path, err, sizeof(err))) == NULL) {
		print_error("inv_open: %s\n", err);
		return -1;
	}
	return 0;
}

static inline int
teardown(void **state)
{
	struct fx *f = *state;
	char p[512];
	struct dirent *de;
	DIR *d;

	inv_close(f->inv);
	if ((d = opendir(f->dir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", f->dir, de->d_name);
			unlink(p);
		}
		closedir(d);
	}
	rmdir(f->dir);
	free(f->json);
	free(f->r);
	free(f);
	return 0;
}

/* A full report of a Mac Studio; watts and free memory vary with v. */
static inline void
fill_report(struct report *r, const char *uuid, int v)
{
	report_init(r);
	r->collected_at = T0 + v;
	REPORT_SET(r->node.hostname, "studio-1");
	REPORT_SET(r->node.hardware_uuid, uuid);
	REPORT_SET(r->node.serial, "H4KX7Q2P9D");
	REPORT_SET(r->node.model, "Mac15,14");
	REPORT_SET(r->node.chip, "Apple M3 Ultra");
	REPORT_SET(r->node.os_version, "26.2");
	REPORT_SET(r->node.os_build, "25C56");
	REPORT_SET(r->node.agent_version, "0.1.0");
	r->node.boot_time = T0 - 86400;
	r->thunderbolt.n_ports = 4;
	for (int i = 0; i < 4; i++) {
		struct report_port *p = &r->thunderbolt.ports[i];

		report_port_init(p);
		snprintf(p->receptacle, sizeof(p->receptacle), "%d", i + 1);
		REPORT_SET(p->bus, "thunderboltusb4_bus_1");
		p->status = PORT_STATUS_CONNECTED;
		p->speed_gbps = i == 3 ? 40 : 80;
		snprintf(p->interface, sizeof(p->interface), "en%d", i + 2);
		p->n_ipv4 = 1;
		snprintf(p->ipv4[0], sizeof(p->ipv4[0]), "169.254.%d.1", i + 1);
		p->has_peer = 1;
		REPORT_SET(p->peer.domain_uuid, "7A1C0F3E-0000-4000-8000-00000000000B");
		REPORT_SET(p->peer.name, "Mac Studio");
		REPORT_SET(p->peer.model, "Mac15,14");
		p->peer.rdma_service = TRI_TRUE;

		struct report_rdma_device *d = &r->rdma.devices[i];
		report_rdma_device_init(d);
		snprintf(d->name, sizeof(d->name), "rdma_en%d", i + 2);
		snprintf(d->interface, sizeof(d->interface), "en%d", i + 2);
		d->port_state = RDMA_PORT_ACTIVE;
		d->ipv4_gid = TRI_TRUE;
	}
	r->thunderbolt.bridge.exists = TRI_TRUE;
	r->thunderbolt.bridge.active = TRI_FALSE;
	r->thunderbolt.bridge.n_members = 0;
	r->rdma.state = RDMA_STATE_ENABLED;
	r->rdma.n_devices = 4;
	r->memory.total_bytes = 512 * GIB;
	r->memory.free_bytes = (100 + v % 7) * GIB;
	REPORT_SET(r->power.source, "macmon");
	r->power.system_watts = 120.5 + v % 10;
}

/* An all-null report but for its hardware UUID. */
static inline void
null_report(struct report *r, const char *uuid)
{
	report_init(r);
	REPORT_SET(r->node.hardware_uuid, uuid);
}

static inline int
upsert(struct fx *f, const char *name, const char *cluster, enum node_state st,
    double now, struct inv_node_key *key, char *err, size_t errlen)
{
	free(f->json);
	assert_non_null(f->json = report_encode(f->r, 0));
	return inv_node_upsert(f->inv, f->r, f->json, strlen(f->json), name, cluster, st,
	    now, key, err, errlen);
}

/* Enrol a full report as name with UUID uuid; returns its id. */
static inline int64_t
enrol(struct fx *f, const char *name, const char *uuid)
{
	struct inv_node_key key;
	char err[256] = "";

	fill_report(f->r, uuid, 0);
	assert_int_equal(inv_begin(f->inv), 0);
	if (upsert(f, name, "", NODE_READY, T0, &key, err, sizeof(err)) != 0)
		fail_msg("upsert %s: %s", name, err);
	assert_int_equal(inv_commit(f->inv), 0);
	return key.id;
}

static inline void
reopen(struct fx *f)
{
	char err[256];

	inv_close(f->inv);
	f->inv = inv_open(f->path, err, sizeof(err));
	if (f->inv == NULL)
		fail_msg("reopen: %s", err);
}

static inline int
file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* A 4-byte big-endian header field of the closed database file. */
static inline uint32_t
header_get(const char *path, long off)
{
	unsigned char b[4];
	FILE *fp = fopen(path, "rb");

	assert_non_null(fp);
	assert_int_equal(fseek(fp, off, SEEK_SET), 0);
	assert_int_equal(fread(b, 1, 4, fp), 4);
	fclose(fp);
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static inline void
header_set(const char *path, long off, uint32_t v)
{
	unsigned char b[4] = { v >> 24, v >> 16, v >> 8, v };
	FILE *fp = fopen(path, "r+b");

	assert_non_null(fp);
	assert_int_equal(fseek(fp, off, SEEK_SET), 0);
	assert_int_equal(fwrite(b, 1, 4, fp), 4);
	fclose(fp);
}

#endif
