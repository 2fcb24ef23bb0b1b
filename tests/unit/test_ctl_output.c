/*
 * tbctl's output for people: human sizes, durations, ages, times and
 * watts; tables (widths, "-" for null, no trailing spaces, hostile text);
 * and what each listing and node show print.  Then the two output tables:
 * every entry set, and what an action done, a 204 and the wiring check of
 * every cluster print for people and as JSON.  The command line is tested
 * in test_ctl_parse.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_json.h"
#include "ctl.h"
#include "ctl_format.h"
#include "ctl_http.h"
#include "ctl_output.h"
#include "report.h"

#define GIB (INT64_C(1) << 30)
#define NOW 1763782801.0   /* 2025-11-22T03:40:01Z */

/* What was printed into a FILE, as a string (free it). */
struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

static void
cap_open(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
}

static char *
cap_close(struct capture *c)
{
	fclose(c->f);
	return c->buf;
}

static void
assert_no_trailing_space(const char *s)
{
	for (const char *p = s; *p != '\0'; p++)
		if (*p == '\n')
			assert_true(p == s || p[-1] != ' ');
}

/* ---- formats ---- */

static void
test_bytes(void **state)
{
	(void)state;
	char b[CTL_FMT_MAX];

	assert_string_equal(ctl_fmt_bytes(0, b, sizeof(b)), "0B");
	assert_string_equal(ctl_fmt_bytes(1023, b, sizeof(b)), "1023B");
	assert_string_equal(ctl_fmt_bytes(1024, b, sizeof(b)), "1K");
	assert_string_equal(ctl_fmt_bytes(1536, b, sizeof(b)), "1.5K");
	assert_string_equal(ctl_fmt_bytes(512 * GIB, b, sizeof(b)), "512G");
	assert_string_equal(ctl_fmt_bytes(187 * GIB + GIB / 2, b, sizeof(b)), "187.5G");
	assert_string_equal(ctl_fmt_bytes((int64_t)(187.46 * GIB), b, sizeof(b)), "187.5G");
	assert_string_equal(ctl_fmt_bytes((int64_t)(187.04 * GIB), b, sizeof(b)), "187G");
	assert_string_equal(ctl_fmt_bytes((int64_t)(1023.97 * GIB), b, sizeof(b)), "1T");
	assert_string_equal(ctl_fmt_bytes(3 * (INT64_C(1) << 40), b, sizeof(b)), "3T");
	assert_string_equal(ctl_fmt_bytes(INT64_C(1) << 60, b, sizeof(b)), "1E");
	assert_string_equal(ctl_fmt_bytes(INT64_MAX, b, sizeof(b)), "8E");
	assert_string_equal(ctl_fmt_bytes(REPORT_NULL_I64, b, sizeof(b)), "-");
	assert_string_equal(ctl_fmt_bytes(-5, b, sizeof(b)), "-");
}

static void
test_usage(void **state)
{
	(void)state;
	char b[CTL_FMT_MAX];

	assert_string_equal(ctl_fmt_usage(187 * GIB + GIB / 2, 512 * GIB, b, sizeof(b)),
	    "187.5G/512G");
	assert_string_equal(ctl_fmt_usage(REPORT_NULL_I64, 512 * GIB, b, sizeof(b)), "-/512G");
	assert_string_equal(ctl_fmt_usage(GIB, REPORT_NULL_I64, b, sizeof(b)), "-");
}

static void
test_duration(void **state)
{
	(void)state;
	char b[CTL_FMT_MAX];

	assert_string_equal(ctl_fmt_duration(0, b, sizeof(b)), "0s");
	assert_string_equal(ctl_fmt_duration(45, b, sizeof(b)), "45s");
	assert_string_equal(ctl_fmt_duration(59.9, b, sizeof(b)), "59s");
	assert_string_equal(ctl_fmt_duration(60, b, sizeof(b)), "1m");
	assert_string_equal(ctl_fmt_duration(3599, b, sizeof(b)), "59m");
	assert_string_equal(ctl_fmt_duration(3600, b, sizeof(b)), "1h");
	assert_string_equal(ctl_fmt_duration(86399, b, sizeof(b)), "23h");
	assert_string_equal(ctl_fmt_duration(5 * 86400 + 7, b, sizeof(b)), "5d");
	assert_string_equal(ctl_fmt_duration(400 * 86400, b, sizeof(b)), "400d");
	assert_string_equal(ctl_fmt_duration(-3, b, sizeof(b)), "0s");
	assert_string_equal(ctl_fmt_duration(NAN, b, sizeof(b)), "-");
	assert_string_equal(ctl_fmt_duration(INFINITY, b, sizeof(b)), "-");
}

static void
test_age(void **state)
{
	(void)state;
	char b[CTL_FMT_MAX];

	assert_string_equal(ctl_fmt_age(NOW - 3, NOW, b, sizeof(b)), "3s");
	assert_string_equal(ctl_fmt_age(NOW - 150, NOW, b, sizeof(b)), "2m");
	assert_string_equal(ctl_fmt_age(NOW - 7200, NOW, b, sizeof(b)), "2h");
	assert_string_equal(ctl_fmt_age(NAN, NOW, b, sizeof(b)), "never");
	assert_string_equal(ctl_fmt_age(NOW + 30, NOW, b, sizeof(b)), "0s");
}

static void
test_time(void **state)
{
	(void)state;
	char b[CTL_FMT_MAX];

	assert_string_equal(ctl_fmt_time(0, b, sizeof(b)), "1970-01-01T00:00:00Z");
	assert_string_equal(ctl_fmt_time(NOW + 0.75, b, sizeof(b)), "2025-11-22T03:40:01Z");
	assert_string_equal(ctl_fmt_time(951782400, b, sizeof(b)), "2000-02-29T00:00:00Z");
	assert_string_equal(ctl_fmt_time(NAN, b, sizeof(b)), "-");
	assert_string_equal(ctl_fmt_time(1e18, b, sizeof(b)), "-");
}

static void
test_watts(void **state)
{
	(void)state;
	char b[CTL_FMT_MAX];

	assert_string_equal(ctl_fmt_watts(182.4, b, sizeof(b)), "182 W");
	assert_string_equal(ctl_fmt_watts(3.44, b, sizeof(b)), "3.4 W");
	assert_string_equal(ctl_fmt_watts(9.96, b, sizeof(b)), "10 W");
	assert_string_equal(ctl_fmt_watts(0, b, sizeof(b)), "0.0 W");
	assert_string_equal(ctl_fmt_watts(NAN, b, sizeof(b)), "-");
	assert_string_equal(ctl_str(NULL), "-");
	assert_string_equal(ctl_str(""), "-");
	assert_string_equal(ctl_str("x"), "x");
}

/* ---- tables ---- */

static void
test_table_widths(void **state)
{
	(void)state;
	static const char *h[] = { "NAME", "STATE", "AGE" };
	static const char *r1[] = { "mac1", "ready", "3s" };
	static const char *r2[] = { "mac10-long", NULL, "" };
	struct ctl_table *t = ctl_table_new(3, h);
	struct capture c;

	assert_non_null(t);
	assert_int_equal(ctl_table_add(t, r1), 0);
	assert_int_equal(ctl_table_add(t, r2), 0);
	assert_int_equal(ctl_table_rows(t), 2);
	cap_open(&c);
	ctl_table_print(t, c.f, 0);
	char *out = cap_close(&c);
	assert_string_equal(out,
	    "NAME        STATE  AGE\n"
	    "mac1        ready  3s\n"
	    "mac10-long  -      -\n");
	assert_no_trailing_space(out);
	free(out);
	ctl_table_free(t);
}

static void
test_table_empty_indent_and_hostile_text(void **state)
{
	(void)state;
	static const char *h[] = { "A", "REASON" };
	static const char *r1[] = { "\xc3\xa9t\xc3\xa9", "line\nbreak\x1b[31m" };
	static const char *r2[] = { "x", "" };
	struct ctl_table *t = ctl_table_new(2, h);
	struct capture c;

	cap_open(&c);
	ctl_table_print(t, c.f, 2);
	char *out = cap_close(&c);
	assert_string_equal(out, "  A  REASON\n");
	free(out);

	assert_int_equal(ctl_table_add(t, r1), 0);
	assert_int_equal(ctl_table_add(t, r2), 0);
	cap_open(&c);
	ctl_table_print(t, c.f, 2);
	out = cap_close(&c);
	/* "été" is 3 characters wide; control characters print as '?'. */
	assert_string_equal(out,
	    "  A    REASON\n"
	    "  \xc3\xa9t\xc3\xa9  line?break?[31m\n"
	    "  x    -\n");
	free(out);
	/* ctl_table_end prints what ctl_table_print does, then frees */
	cap_open(&c);
	assert_int_equal(ctl_table_end(t, c.f, 2), 0);
	out = cap_close(&c);
	assert_string_equal(out,
	    "  A    REASON\n"
	    "  \xc3\xa9t\xc3\xa9  line?break?[31m\n"
	    "  x    -\n");
	free(out);
	ctl_table_free(NULL);
}

static void
test_table_many_rows(void **state)
{
	(void)state;
	static const char *h[] = { "N" };
	struct ctl_table *t = ctl_table_new(1, h);
	char num[16];
	struct capture c;

	for (int i = 0; i < 1000; i++) {
		snprintf(num, sizeof(num), "%d", i);
		const char *row[] = { num };
		assert_int_equal(ctl_table_add(t, row), 0);
	}
	assert_int_equal(ctl_table_rows(t), 1000);
	cap_open(&c);
	ctl_table_print(t, c.f, 0);
	char *out = cap_close(&c);
	assert_non_null(strstr(out, "\n999\n"));
	assert_no_trailing_space(out);
	free(out);
	ctl_table_free(t);
}

static void
test_kv(void **state)
{
	(void)state;
	struct capture c;

	cap_open(&c);
	ctl_kv(c.f, 0, "Name", "%s", "mac3");
	ctl_kv(c.f, 2, "GPU wired limit", "%s", "480G");
	ctl_kv(c.f, 0, "A key longer than the column", "%d", 7);
	ctl_kv(c.f, 0, "Empty", "%s", "");
	ctl_kv(c.f, 0, "Hostile", "%s", "a\nb");
	char *out = cap_close(&c);
	assert_string_equal(out,
	    "Name:               mac3\n"
	    "  GPU wired limit:  480G\n"
	    "A key longer than the column: 7\n"
	    "Empty:              -\n"
	    "Hostile:            a?b\n");
	free(out);
}

/* ---- what the listings print ---- */

static void
node_init(struct api_node *n, const char *name)
{
	memset(n, 0, sizeof(*n));
	REPORT_SET(n->name, name);
	n->state = NODE_READY;
	n->rdma = RDMA_STATE_UNKNOWN;
	n->memory_total_bytes = n->memory_used_bytes = REPORT_NULL_I64;
	n->power_watts = n->last_report_at = n->enrolled_at = NAN;
}

static void
test_nodes_print(void **state)
{
	(void)state;
	struct api_node n[3];
	struct capture c;

	node_init(&n[0], "mac2");
	REPORT_SET(n[0].cluster, "lab");
	REPORT_SET(n[0].model, "Mac15,14");
	REPORT_SET(n[0].os_build, "25C56");
	n[0].rdma = RDMA_STATE_ENABLED;
	n[0].memory_total_bytes = 512 * GIB;
	n[0].memory_used_bytes = 187 * GIB + GIB / 2;
	n[0].power_watts = 182.2;
	n[0].last_report_at = NOW - 3;
	n[0].unexpected_reboot = 1;
	node_init(&n[1], "mac1");
	n[1].state = NODE_CORDONED;
	n[1].rdma = RDMA_STATE_DISABLED;
	n[1].last_report_at = NOW - 7200;
	node_init(&n[2], "mac10");
	n[2].state = NODE_PENDING;
	cap_open(&c);
	assert_int_equal(ctl_nodes_print(c.f, n, 3, NOW), 0);
	char *out = cap_close(&c);
	assert_string_equal(out,
	    "NAME   CLUSTER  STATE     MODEL     MEMORY       POWER  OS     RDMA      AGE\n"
	    "mac1   -        cordoned  -         -            -      -      disabled  2h\n"
	    "mac2   lab      ready*    Mac15,14  187.5G/512G  182 W  25C56  enabled   3s\n"
	    "mac10  -        pending   -         -            -      -      -         never\n");
	free(out);
	cap_open(&c);
	assert_int_equal(ctl_nodes_print(c.f, n, 0, NOW), 0);
	out = cap_close(&c);
	assert_string_equal(out, "NAME  CLUSTER  STATE  MODEL  MEMORY  POWER  OS  RDMA  AGE\n");
	free(out);
}

static void
test_tokens_print(void **state)
{
	(void)state;
	struct api_token t[2];
	struct capture c;

	memset(t, 0, sizeof(t));
	snprintf(t[0].id, sizeof(t[0].id), "0123456789ab");
	t[0].role = ROLE_BOOTSTRAP;
	REPORT_SET(t[0].cluster, "lab");
	REPORT_SET(t[0].label, "rack 2");
	t[0].created_at = NOW - 600;
	t[0].expires_at = NOW + 3000;
	t[0].used_at = NAN;
	snprintf(t[1].id, sizeof(t[1].id), "ba9876543210");
	t[1].role = ROLE_NODE;
	REPORT_SET(t[1].node, "mac1");
	t[1].created_at = NOW - 2 * 86400;
	t[1].expires_at = NAN;
	t[1].used_at = NOW - 5;
	t[1].revoked = 1;
	cap_open(&c);
	assert_int_equal(ctl_tokens_print(c.f, t, 2, NOW), 0);
	char *out = cap_close(&c);
	assert_string_equal(out,
	    "ID            ROLE       CLUSTER  NODE  LABEL   CREATED  EXPIRES  USED  REVOKED\n"
	    "0123456789ab  bootstrap  lab      -     rack 2  10m      50m      -     no\n"
	    "ba9876543210  node       -        mac1  -       2d       never    5s    yes\n");
	free(out);
	t[0].expires_at = NOW - 1;
	cap_open(&c);
	assert_int_equal(ctl_tokens_print(c.f, t, 1, NOW), 0);
	out = cap_close(&c);
	assert_non_null(strstr(out, " expired "));
	free(out);
}

static void
test_events_and_clusters_print(void **state)
{
	(void)state;
	struct api_event ev[2];
	struct api_cluster cl[2];
	struct capture c;

	memset(ev, 0, sizeof(ev));
	ev[0].time = NOW;
	REPORT_SET(ev[0].actor, "admin:0123456789ab");
	REPORT_SET(ev[0].node, "mac3");
	REPORT_SET(ev[0].what, "cordoned");
	REPORT_SET(ev[0].reason, "replacing cable");
	ev[1].time = NOW + 61;
	REPORT_SET(ev[1].actor, "controller");
	REPORT_SET(ev[1].what, "state ready -> unreachable");
	cap_open(&c);
	assert_int_equal(ctl_events_print(c.f, ev, 2), 0);
	char *out = cap_close(&c);
	assert_string_equal(out,
	    "TIME                  ACTOR               NODE  WHAT                        REASON\n"
	    "2025-11-22T03:40:01Z  admin:0123456789ab  mac3  cordoned                    "
	    "replacing cable\n"
	    "2025-11-22T03:41:02Z  controller          -     state ready -> unreachable  -\n");
	free(out);
	memset(cl, 0, sizeof(cl));
	REPORT_SET(cl[0].name, "lab");
	cl[0].n_nodes = 4;
	cl[0].created_at = NOW - 3 * 86400;
	REPORT_SET(cl[1].name, "rack2");
	cl[1].created_at = NOW - 3 * 86400;
	cl[1].allow.n = 2;
	REPORT_SET(cl[1].allow.v[0], "C02XK0ABCDEF");
	REPORT_SET(cl[1].allow.v[1], "H9XK2J4F7Q");
	cap_open(&c);
	assert_int_equal(ctl_clusters_print(c.f, cl, 2, NOW), 0);
	out = cap_close(&c);
	assert_string_equal(out, "NAME   NODES  CREATED  ALLOWED\n"
	    "lab    4      3d       -\n"
	    "rack2  0      3d       C02XK0ABCDEF H9XK2J4F7Q\n");
	free(out);
}

static void
test_show_without_report(void **state)
{
	(void)state;
	struct api_node n;
	struct capture c;

	node_init(&n, "mac3");
	n.state = NODE_CORDONED;
	REPORT_SET(n.reason, "replacing cable");
	n.last_report_at = NOW - 3;
	cap_open(&c);
	assert_int_equal(ctl_show_print(c.f, &n, NULL, NOW), 0);
	char *out = cap_close(&c);
	assert_non_null(strstr(out, "Name:               mac3\n"));
	assert_non_null(strstr(out, "State:              cordoned\n"));
	assert_non_null(strstr(out, "Reason:             replacing cable\n"));
	assert_non_null(strstr(out, "Last report:        2025-11-22T03:39:58Z (3s ago)\n"));
	assert_non_null(strstr(out, "Enrolled:           never\n"));
	assert_non_null(strstr(out, "Memory:             -\n"));
	assert_non_null(strstr(out, "\nReport: none yet\n"));
	assert_no_trailing_space(out);
	free(out);
}

/* Port 1 connected to a peer with two addresses, port 2 empty. */
static void
fill_ports(struct report *r)
{
	struct report_port *p = &r->thunderbolt.ports[0];

	r->thunderbolt.n_ports = 2;
	report_port_init(&r->thunderbolt.ports[0]);
	report_port_init(&r->thunderbolt.ports[1]);
	REPORT_SET(p->receptacle, "1");
	p->status = PORT_STATUS_CONNECTED;
	p->speed_gbps = 80;
	REPORT_SET(p->interface, "en2");
	p->n_ipv4 = 2;
	REPORT_SET(p->ipv4[0], "169.254.1.1");
	REPORT_SET(p->ipv4[1], "10.0.0.1");
	p->has_peer = 1;
	REPORT_SET(p->peer.name, "Mac Studio");
	REPORT_SET(p->peer.model, "Mac15,14");
	p->peer.rdma_service = TRI_TRUE;
	p = &r->thunderbolt.ports[1];
	REPORT_SET(p->receptacle, "2");
	p->status = PORT_STATUS_EMPTY;
	p->n_ipv4 = 0;
}

static void
fill_report(struct report *r)
{
	r->collected_at = NOW - 3;
	fill_ports(r);
	r->rdma.state = RDMA_STATE_ENABLED;
	r->rdma.n_devices = 1;
	report_rdma_device_init(&r->rdma.devices[0]);
	REPORT_SET(r->rdma.devices[0].name, "rdma_en2");
	REPORT_SET(r->rdma.devices[0].interface, "en2");
	r->rdma.devices[0].port_state = RDMA_PORT_ACTIVE;
	r->rdma.devices[0].ipv4_gid = TRI_TRUE;
	r->memory.total_bytes = 512 * GIB;
	r->memory.gpu_wired_limit_bytes = 0;
	r->thermal.cpu_celsius = 45.25;
	r->network.n_interfaces = 3;
	for (int i = 0; i < 3; i++)
		report_netif_init(&r->network.interfaces[i]);
	REPORT_SET(r->network.interfaces[0].name, "en0");
	r->network.interfaces[0].kind = NETIF_KIND_ETHERNET;
	r->network.interfaces[0].n_ipv4 = 1;
	REPORT_SET(r->network.interfaces[0].ipv4[0], "192.0.2.11");
	REPORT_SET(r->network.interfaces[1].name, "en1");
	r->network.interfaces[1].kind = NETIF_KIND_WIFI;
	r->network.interfaces[1].n_ipv4 = 2;
	REPORT_SET(r->network.interfaces[1].ipv4[0], "192.0.2.111");
	REPORT_SET(r->network.interfaces[1].ipv4[1], "169.254.7.7");
	REPORT_SET(r->network.interfaces[2].name, "utun4");
	r->network.interfaces[2].n_ipv4 = 0;
	report_add_error(r, "rdma_ctl", "timed out after 5 s");
}

static void
test_show_with_report(void **state)
{
	(void)state;
	struct api_node n;
	struct report *r = report_new();
	struct capture c;

	node_init(&n, "mac3");
	fill_report(r);
	cap_open(&c);
	assert_int_equal(ctl_show_print(c.f, &n, r, NOW), 0);
	char *out = cap_close(&c);
	assert_non_null(strstr(out,
	    "\nThunderbolt ports\n"
	    "  RECEPTACLE  STATUS     SPEED    INTERFACE  IPV4                  PEER        "
	    "PEER MODEL  PEER RDMA\n"
	    "  1           connected  80 Gb/s  en2        169.254.1.1,10.0.0.1  Mac Studio  "
	    "Mac15,14    yes\n"
	    "  2           empty      -        -          none                  -           "
	    "-           -\n"));
	assert_non_null(strstr(out, "  Collected:        2025-11-22T03:39:58Z (3s ago)\n"));
	assert_non_null(strstr(out, "  Members:          -\n"));
	assert_non_null(strstr(out, "  rdma_en2  en2        active  yes\n"
	    "\nNetwork\n"
	    "  LAN:              en0 (ethernet) 192.0.2.11\n"
	    "  LAN:              en1 (wifi) 192.0.2.111,169.254.7.7\n"
	    "  LAN:              utun4 (-) none\n"
	    "\nMemory\n"));
	assert_non_null(strstr(out, "  Total:            512G\n"));
	assert_non_null(strstr(out, "  GPU wired limit:  system default\n"));
	assert_non_null(strstr(out, "  CPU:              45.2 C\n"));
	assert_non_null(strstr(out, "  rdma_ctl  timed out after 5 s\n"));
	assert_null(strstr(out, "Manual step"));
	assert_no_trailing_space(out);
	free(out);
	free(r);
}

/* network.interfaces unknown, then known empty. */
static void
test_show_network_none(void **state)
{
	(void)state;
	struct api_node n;
	struct report *r = report_new();
	struct capture c;
	char *out;

	node_init(&n, "mac3");
	r->collected_at = NOW - 3;
	cap_open(&c);
	assert_int_equal(ctl_show_print(c.f, &n, r, NOW), 0);
	out = cap_close(&c);
	assert_non_null(strstr(out, "\nNetwork: -\n\nMemory\n"));
	free(out);
	r->network.n_interfaces = 0;
	cap_open(&c);
	assert_int_equal(ctl_show_print(c.f, &n, r, NOW), 0);
	out = cap_close(&c);
	assert_non_null(strstr(out, "\nNetwork: none\n\nMemory\n"));
	assert_null(strstr(out, "LAN:"));
	free(out);
	free(r);
}

/* A node that reports RDMA disabled shows the manual step until it reports it enabled. */
static void
test_show_rdma_manual_step(void **state)
{
	(void)state;
	struct api_node n;
	struct capture c;
	char *out;

	node_init(&n, "mac3");
	n.rdma = RDMA_STATE_DISABLED;
	cap_open(&c);
	assert_int_equal(ctl_show_print(c.f, &n, NULL, NOW), 0);
	out = cap_close(&c);
	assert_non_null(strstr(out, "RDMA:               disabled\n"
	    "Manual step:        boot into Recovery, Terminal, rdma_ctl enable, reboot\n"));
	free(out);
	n.rdma = RDMA_STATE_ENABLED;
	cap_open(&c);
	assert_int_equal(ctl_show_print(c.f, &n, NULL, NOW), 0);
	out = cap_close(&c);
	assert_null(strstr(out, "Manual step"));
	free(out);
}

/* ---- the output tables ---- */

/* What is printed on stdout between out_begin and out_end (free it). */
struct stdout_capture {
	FILE *tmp;
	int saved;
};

static void
out_begin(struct stdout_capture *c)
{
	fflush(stdout);
	c->tmp = tmpfile();
	assert_non_null(c->tmp);
	c->saved = dup(STDOUT_FILENO);
	assert_true(c->saved >= 0);
	assert_true(dup2(fileno(c->tmp), STDOUT_FILENO) >= 0);
}

static char *
out_end(struct stdout_capture *c)
{
	char *buf = calloc(1, 4096);
	size_t n;

	fflush(stdout);
	assert_true(dup2(c->saved, STDOUT_FILENO) >= 0);
	close(c->saved);
	rewind(c->tmp);
	assert_non_null(buf);
	n = fread(buf, 1, 4095, c->tmp);
	buf[n] = '\0';
	fclose(c->tmp);
	return buf;
}

/* What the JSON output prints for json: indented, one newline at the end. */
static char *
pretty(const char *json)
{
	char *p = api_json_pretty(json, strlen(json)), *q;
	size_t n;

	assert_non_null(p);
	n = strlen(p);
	if (n > 0 && p[n - 1] == '\n')
		return p;
	q = realloc(p, n + 2);
	assert_non_null(q);
	memcpy(q + n, "\n", 2);
	return q;
}

typedef void (*any_fn)(void);
_Static_assert(sizeof(struct ctl_output) % sizeof(any_fn) == 0,
    "struct ctl_output holds function pointers only");

/* A table with an entry left out would crash the command that uses it. */
static void
test_output_tables_complete(void **state)
{
	(void)state;
	const struct ctl_output *tables[] = { &ctl_output_text, &ctl_output_json };

	for (size_t t = 0; t < 2; t++)
		for (size_t off = 0; off < sizeof(struct ctl_output); off += sizeof(any_fn)) {
			any_fn fn;
			memcpy(&fn, (const char *)tables[t] + off, sizeof(fn));
			assert_non_null(fn);
		}
}

static void
test_output_done_and_deleted(void **state)
{
	(void)state;
	char body[] = "{\"name\":\"mac1\",\"state\":\"cordoned\"}";
	struct ctl_reply r = { 200, body, sizeof(body) - 1 };
	struct stdout_capture c;
	char *out, *want;

	out_begin(&c);
	assert_int_equal(ctl_output_text.done(&r, "%s %s%s", "mac1", "cordoned", ": a cable"),
	    CTL_EXIT_OK);
	out = out_end(&c);
	assert_string_equal(out, "mac1 cordoned: a cable\n");
	free(out);
	out_begin(&c);
	assert_int_equal(ctl_output_json.done(&r, "%s cordoned", "mac1"), CTL_EXIT_OK);
	out = out_end(&c);
	want = pretty(body);
	assert_string_equal(out, want);
	free(out);
	free(want);

	out_begin(&c);
	assert_int_equal(ctl_output_text.deleted("token 0123456789ab", "revoked", "0123456789ab",
	    1), CTL_EXIT_OK);
	out = out_end(&c);
	assert_string_equal(out, "token 0123456789ab revoked\n");
	free(out);
	out_begin(&c);
	assert_int_equal(ctl_output_json.deleted("token 0123456789ab", "revoked", "0123456789ab",
	    1), CTL_EXIT_OK);
	out = out_end(&c);
	want = pretty("{\"revoked\":\"0123456789ab\"}");
	assert_string_equal(out, want);
	free(out);
	free(want);
	out_begin(&c);
	assert_int_equal(ctl_output_json.deleted("placement 7", "removed", "7", 0), CTL_EXIT_OK);
	out = out_end(&c);
	want = pretty("{\"removed\":7}");
	assert_string_equal(out, want);
	free(out);
	free(want);
	/* nothing that would need escaping gets into the object */
	out_begin(&c);
	assert_int_equal(ctl_output_json.deleted("x", "removed", "a\"b", 1), CTL_EXIT_FAIL);
	out = out_end(&c);
	assert_string_equal(out, "");
	free(out);
}

/* Every cluster's check: one object for JSON, blank lines between them for people. */
static void
test_output_wiring_list(void **state)
{
	(void)state;
	char a[] = "{\"cluster\":\"a\"}", b[] = "{\"cluster\":\"b\"}";
	struct ctl_reply ra = { 200, a, sizeof(a) - 1 }, rb = { 200, b, sizeof(b) - 1 };
	struct stdout_capture c;
	char *out;

	out_begin(&c);
	ctl_output_json.wiring_head();
	assert_int_equal(ctl_output_json.wiring_item(&ra, NULL, 1), CTL_EXIT_OK);
	assert_int_equal(ctl_output_json.wiring_item(&rb, NULL, 0), CTL_EXIT_OK);
	ctl_output_json.wiring_tail(2);
	out = out_end(&c);
	assert_string_equal(out, "{\"clusters\":[{\"cluster\":\"a\"},{\"cluster\":\"b\"}]}\n");
	free(out);
	out_begin(&c);
	ctl_output_json.wiring_head();
	ctl_output_json.wiring_tail(0);
	out = out_end(&c);
	assert_string_equal(out, "{\"clusters\":[]}\n");
	free(out);
	out_begin(&c);
	ctl_output_text.wiring_head();
	ctl_output_text.wiring_tail(0);
	out = out_end(&c);
	assert_string_equal(out, "no clusters\n");
	free(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_age),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_watts),
		cmocka_unit_test(test_table_widths),
		cmocka_unit_test(test_table_empty_indent_and_hostile_text),
		cmocka_unit_test(test_table_many_rows),
		cmocka_unit_test(test_kv),
		cmocka_unit_test(test_nodes_print),
		cmocka_unit_test(test_tokens_print),
		cmocka_unit_test(test_events_and_clusters_print),
		cmocka_unit_test(test_show_without_report),
		cmocka_unit_test(test_show_with_report),
		cmocka_unit_test(test_show_network_none),
		cmocka_unit_test(test_show_rdma_manual_step),
		cmocka_unit_test(test_output_tables_complete),
		cmocka_unit_test(test_output_done_and_deleted),
		cmocka_unit_test(test_output_wiring_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
